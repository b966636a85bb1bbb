/* ibsm-topo: generate a fabric and write it as an ibsim net file (default),
 * ibnetdiscover text or Graphviz DOT.
 *
 *   ibsm-topo fattree --levels 2|3 --radix K [--oversub X] [--hcas N]
 *                     [--remove FRAC --seed S] [--shuffle-hosts]
 *   ibsm-topo director --directors D --radix R [--line-asics N]
 *                      [--leaves L] [--remove FRAC --seed S] [--shuffle-hosts]
 *   ibsm-topo torus --dims AxB[xC] [--mesh] --hcas-per-switch P
 *   ibsm-topo dragonfly --groups G --switches A --hosts P --global H
 *   ibsm-topo random --switches N --degree D --hosts P [--seed S]
 *   common: [--guids seq|random] [--shuffle-ports] [--seed S]
 *           [-o FILE|-] [--format net|ibnd|dot] [--summary]
 *
 * Exit status: 0 written, 1 write failed, 2 bad options. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/log.h"
#include "formats/topo_read.h"
#include "topogen/topo_gen.h"

enum opt_id {
	OPT_LEVELS = 256, OPT_RADIX, OPT_OVERSUB, OPT_REMOVE, OPT_SEED, OPT_HCAS,
	OPT_DIMS, OPT_MESH, OPT_HCAS_PER_SW, OPT_GROUPS, OPT_SWITCHES,
	OPT_HOSTS, OPT_GLOBAL, OPT_DEGREE, OPT_FORMAT, OPT_SUMMARY, OPT_HELP,
	OPT_SHUFFLE, OPT_DIRECTORS, OPT_LINE_ASICS, OPT_LEAVES, OPT_GUIDS,
	OPT_SHUFFLE_PORTS, OPT_END,
};

static const char usage[] =
	"usage: ibsm-topo SHAPE [options] [-o FILE|-]\n"
	"  fattree   --levels 2|3 --radix K [--oversub X] [--hcas N]\n"
	"            [--remove FRAC] [--seed S] [--shuffle-hosts]\n"
	"  director  --directors D --radix R [--line-asics N] [--leaves L]\n"
	"            [--remove FRAC] [--seed S] [--shuffle-hosts]\n"
	"  torus     --dims AxB[xC] [--mesh] --hcas-per-switch P\n"
	"  dragonfly --groups G --switches A --hosts P --global H\n"
	"  random    --switches N --degree D --hosts P [--seed S]\n"
	"common: -o FILE (- = stdout, the default), --format net|ibnd|dot\n"
	"        (default net: an ibsim net file), --summary (print counts)\n"
	"        --guids seq|random (default seq: GUIDs in cabling order;\n"
	"        random: as real fabrics have, seeded by --seed)\n"
	"        --shuffle-ports (switch-to-switch cables on random port\n"
	"        numbers, seeded by --seed)\n";

struct cli {
	const char *shape, *out, *format, *dims;
	int summary, mesh, random_guids, shuffle_ports;
	unsigned long long val[OPT_END - OPT_LEVELS];
	double remove;
	int given[OPT_END - OPT_LEVELS];
};

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "ibsm-topo: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n(ibsm-topo --help for usage)\n");
	return 2;
}

static int parse_uint(const char *opt, const char *s, unsigned long long max,
		      unsigned long long *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return bad("--%s: '%s' is not a non-negative number", opt, s);
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return bad("--%s: '%s' is not a number in range", opt, s);
	*out = v;
	return 0;
}

static int parse_dims(const char *s, struct torus_params *t)
{
	unsigned v[4];
	int n = 0;
	const char *c = s;
	while (n < 4) {
		char *end;
		if (*c < '0' || *c > '9')
			return bad("--dims: '%s' is not AxB or AxBxC%s", s, "");
		unsigned long x = strtoul(c, &end, 10);
		if (x > 1024)
			return bad("--dims: '%s': a size is over 1024%s", s, "");
		v[n++] = (unsigned)x;
		if (!*end)
			break;
		if (*end != 'x' && *end != 'X')
			return bad("--dims: '%s' is not AxB or AxBxC%s", s, "");
		c = end + 1;
	}
	if (n < 2 || n > 3)
		return bad("--dims: '%s' needs 2 or 3 sizes%s", s, "");
	t->dims = (unsigned)n;
	for (int i = 0; i < n; i++)
		t->size[i] = v[i];
	return 0;
}

/* Each shape accepts only its own options. */
static int check_allowed(const struct cli *c, const char *shape,
			 const int *allowed, const struct option *longopts)
{
	for (int id = OPT_LEVELS; id < OPT_END; id++) {
		if (!c->given[id - OPT_LEVELS] || id == OPT_FORMAT ||
		    id == OPT_SUMMARY || id == OPT_HELP || id == OPT_GUIDS ||
		    id == OPT_SHUFFLE_PORTS || id == OPT_SEED)
			continue;
		int ok = 0;
		for (const int *a = allowed; *a; a++)
			ok |= *a == id;
		if (ok)
			continue;
		const char *name = "?";
		for (const struct option *o = longopts; o->name; o++)
			if (o->val == id)
				name = o->name;
		return bad("--%s does not apply to %s", name, shape);
	}
	return 0;
}

static int need(const struct cli *c, int id, const char *name,
		const char *shape)
{
	if (!c->given[id - OPT_LEVELS])
		return bad("%s needs --%s", shape, name);
	return 0;
}

#define V(id) ((unsigned)c->val[(id) - OPT_LEVELS])

static int generate(const struct cli *c, struct fabric *f,
		    const struct option *lo, char *err)
{
	const char *s = c->shape;
	if (!strcmp(s, "fattree")) {
		static const int ok[] = { OPT_LEVELS, OPT_RADIX, OPT_OVERSUB,
			OPT_REMOVE, OPT_SEED, OPT_HCAS, OPT_SHUFFLE, 0 };
		if (check_allowed(c, s, ok, lo) || need(c, OPT_LEVELS, "levels", s) ||
		    need(c, OPT_RADIX, "radix", s))
			return 2;
		struct fattree_params p = {
			.levels = V(OPT_LEVELS), .radix = V(OPT_RADIX),
			.oversub = c->given[OPT_OVERSUB - OPT_LEVELS] ? V(OPT_OVERSUB) : 1,
			.remove_frac = c->remove, .seed = c->val[OPT_SEED - OPT_LEVELS],
			.hcas = V(OPT_HCAS),
			.shuffle_hosts = c->given[OPT_SHUFFLE - OPT_LEVELS],
		};
		if (c->given[OPT_OVERSUB - OPT_LEVELS] && p.oversub == 0)
			return bad("--oversub must be at least 1%s%s", "", "");
		if (c->given[OPT_HCAS - OPT_LEVELS] && p.hcas == 0)
			return bad("--hcas must be at least 1%s%s", "", "");
		return gen_fattree(f, &p, err) ? 2 : 0;
	}
	if (!strcmp(s, "director")) {
		static const int ok[] = { OPT_DIRECTORS, OPT_RADIX, OPT_LINE_ASICS,
			OPT_LEAVES, OPT_REMOVE, OPT_SEED, OPT_SHUFFLE, 0 };
		if (check_allowed(c, s, ok, lo) ||
		    need(c, OPT_DIRECTORS, "directors", s) ||
		    need(c, OPT_RADIX, "radix", s))
			return 2;
		struct director_params p = {
			.directors = V(OPT_DIRECTORS), .radix = V(OPT_RADIX),
			.line_asics = V(OPT_LINE_ASICS), .leaves = V(OPT_LEAVES),
			.remove_frac = c->remove, .seed = c->val[OPT_SEED - OPT_LEVELS],
			.shuffle_hosts = c->given[OPT_SHUFFLE - OPT_LEVELS],
		};
		if (c->given[OPT_LINE_ASICS - OPT_LEVELS] && p.line_asics == 0)
			return bad("--line-asics must be at least 2%s%s", "", "");
		if (c->given[OPT_LEAVES - OPT_LEVELS] && p.leaves == 0)
			return bad("--leaves must be at least 1%s%s", "", "");
		return gen_director(f, &p, err) ? 2 : 0;
	}
	if (!strcmp(s, "torus")) {
		static const int ok[] = { OPT_DIMS, OPT_MESH, OPT_HCAS_PER_SW, 0 };
		if (check_allowed(c, s, ok, lo) || need(c, OPT_DIMS, "dims", s) ||
		    need(c, OPT_HCAS_PER_SW, "hcas-per-switch", s))
			return 2;
		struct torus_params p = { .wrap = !c->mesh,
			.hcas_per_switch = V(OPT_HCAS_PER_SW) };
		if (parse_dims(c->dims, &p))
			return 2;
		return gen_torus(f, &p, err) ? 2 : 0;
	}
	if (!strcmp(s, "dragonfly")) {
		static const int ok[] = { OPT_GROUPS, OPT_SWITCHES, OPT_HOSTS,
			OPT_GLOBAL, 0 };
		if (check_allowed(c, s, ok, lo) || need(c, OPT_GROUPS, "groups", s) ||
		    need(c, OPT_SWITCHES, "switches", s) ||
		    need(c, OPT_HOSTS, "hosts", s) || need(c, OPT_GLOBAL, "global", s))
			return 2;
		struct dragonfly_params p = {
			.groups = V(OPT_GROUPS), .switches_per_group = V(OPT_SWITCHES),
			.hcas_per_switch = V(OPT_HOSTS),
			.global_per_switch = V(OPT_GLOBAL),
		};
		return gen_dragonfly(f, &p, err) ? 2 : 0;
	}
	if (!strcmp(s, "random")) {
		static const int ok[] = { OPT_SWITCHES, OPT_DEGREE, OPT_HOSTS,
			OPT_SEED, 0 };
		if (check_allowed(c, s, ok, lo) || need(c, OPT_SWITCHES, "switches", s) ||
		    need(c, OPT_DEGREE, "degree", s) || need(c, OPT_HOSTS, "hosts", s))
			return 2;
		struct random_params p = {
			.switches = V(OPT_SWITCHES), .degree = V(OPT_DEGREE),
			.hcas_per_switch = V(OPT_HOSTS),
			.seed = c->val[OPT_SEED - OPT_LEVELS],
		};
		return gen_random(f, &p, err) ? 2 : 0;
	}
	return bad("unknown shape '%s' (fattree, director, torus, dragonfly, "
		   "random)%s",
		   s, "");
}

static void summary(FILE *out, const char *shape, const struct fabric *f)
{
	uint32_t sw_links = 0, ca_links = 0, unused = 0, max_ports = 0;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *node = &f->nodes[n];
		if (node->type == FAB_SWITCH && node->num_ports > max_ports)
			max_ports = node->num_ports;
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t m = fab_peer_node(f, node->first_port + i);
			if (m == FAB_NONE) {
				unused += node->type == FAB_SWITCH;
				continue;
			}
			if (m < n)
				continue;
			if (fab_is_switch(f, n) && fab_is_switch(f, m))
				sw_links++;
			else
				ca_links++;
		}
	}
	fprintf(out, "%s: %u nodes: %u CAs, %u switches (%u ports); %u links: "
		"%u switch-switch, %u CA; %u unused switch ports\n", shape,
		f->num_nodes, f->num_cas, f->num_switches, max_ports,
		sw_links + ca_links, sw_links, ca_links, unused);
	/* ibsim's tables (sim_net.c): a switch takes num_ports + 1 port slots,
	 * a CA num_ports; every switch has an LFT of -L entries, which must
	 * exceed the highest LID (one per switch and per CA port, LMC 0). */
	uint64_t slots = 0, lids = f->num_switches;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		slots += f->nodes[n].num_ports + (fab_is_switch(f, n) ? 1u : 0u);
		if (!fab_is_switch(f, n))
			lids += f->nodes[n].num_ports;
	}
	uint64_t linear = (lids + 1 + 1023) / 1024 * 1024;
	fprintf(out, "ibsim: ibsim -s -N %u -S %u -P %llu -L %llu FILE "
		"(defaults 2048 nodes, 256 switches, 13312 ports, LFT 30720)\n",
		f->num_nodes, f->num_switches, (unsigned long long)slots,
		(unsigned long long)(linear < 30720 ? 30720 : linear));
	if (lids > FAB_MAX_UCAST_LID)
		fprintf(out, "note: %llu LIDs needed, more than the %u unicast LIDs "
			"of a subnet (IBA 4.1.3): fine for offline routing, not for "
			"an SM\n", (unsigned long long)lids, FAB_MAX_UCAST_LID);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "levels", required_argument, NULL, OPT_LEVELS },
		{ "radix", required_argument, NULL, OPT_RADIX },
		{ "oversub", required_argument, NULL, OPT_OVERSUB },
		{ "remove", required_argument, NULL, OPT_REMOVE },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "hcas", required_argument, NULL, OPT_HCAS },
		{ "dims", required_argument, NULL, OPT_DIMS },
		{ "mesh", no_argument, NULL, OPT_MESH },
		{ "hcas-per-switch", required_argument, NULL, OPT_HCAS_PER_SW },
		{ "groups", required_argument, NULL, OPT_GROUPS },
		{ "switches", required_argument, NULL, OPT_SWITCHES },
		{ "hosts", required_argument, NULL, OPT_HOSTS },
		{ "global", required_argument, NULL, OPT_GLOBAL },
		{ "degree", required_argument, NULL, OPT_DEGREE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "shuffle-hosts", no_argument, NULL, OPT_SHUFFLE },
		{ "directors", required_argument, NULL, OPT_DIRECTORS },
		{ "line-asics", required_argument, NULL, OPT_LINE_ASICS },
		{ "leaves", required_argument, NULL, OPT_LEAVES },
		{ "guids", required_argument, NULL, OPT_GUIDS },
		{ "shuffle-ports", no_argument, NULL, OPT_SHUFFLE_PORTS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct cli c;
	memset(&c, 0, sizeof(c));
	c.format = "net";
	log_set_prog("ibsm-topo");
	int opt;
	while ((opt = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'o':
			c.out = optarg;
			break;
		case 'h':
		case OPT_HELP:
			fputs(usage, stdout);
			return 0;
		case OPT_FORMAT:
			c.format = optarg;
			break;
		case OPT_SUMMARY:
			c.summary = 1;
			break;
		case OPT_MESH:
			c.mesh = 1;
			c.given[opt - OPT_LEVELS] = 1;
			break;
		case OPT_SHUFFLE:
			c.given[opt - OPT_LEVELS] = 1;
			break;
		case OPT_SHUFFLE_PORTS:
			c.shuffle_ports = 1;
			break;
		case OPT_GUIDS:
			if (strcmp(optarg, "seq") && strcmp(optarg, "random"))
				return bad("--guids: '%s' is not seq or random%s",
					   optarg, "");
			c.random_guids = !strcmp(optarg, "random");
			break;
		case OPT_DIMS:
			c.dims = optarg;
			c.given[opt - OPT_LEVELS] = 1;
			break;
		case OPT_REMOVE: {
			char *end;
			double v = strtod(optarg, &end);
			if (!*optarg || *end || !(v >= 0.0 && v < 1.0))
				return bad("--remove: '%s' is not a fraction in [0, 1)%s",
					   optarg, "");
			c.remove = v;
			c.given[opt - OPT_LEVELS] = 1;
			break;
		}
		case '?':
			fputs(usage, stderr);
			return 2;
		default: {
			const char *name = "?";
			for (const struct option *o = lo; o->name; o++)
				if (o->val == opt)
					name = o->name;
			unsigned long long max = opt == OPT_SEED ? UINT64_MAX : 1000000000ull;
			if (parse_uint(name, optarg, max, &c.val[opt - OPT_LEVELS]))
				return 2;
			c.given[opt - OPT_LEVELS] = 1;
			break;
		}
		}
	}
	if (argc - optind != 1) {
		fputs(argc - optind ? "ibsm-topo: one shape, please\n" :
		      "ibsm-topo: which shape?\n", stderr);
		fputs(usage, stderr);
		return 2;
	}
	c.shape = argv[optind];
	if (strcmp(c.format, "net") && strcmp(c.format, "ibnd") &&
	    strcmp(c.format, "dot"))
		return bad("--format: '%s' is not net, ibnd or dot%s", c.format, "");
	/* With --summary and no -o, only the summary is printed. */
	if (!c.out)
		c.out = c.summary ? NULL : "-";

	struct fabric f;
	char err[256] = "";
	fab_init(&f);
	int r = generate(&c, &f, lo, err);
	/* after the shape, so every shape gets them alike; the seed is the
	 * shape's own (removals), each pass draws its own stream from it */
	uint64_t seed = c.val[OPT_SEED - OPT_LEVELS];
	if (!r && c.shuffle_ports && gen_shuffle_ports(&f, seed)) {
		snprintf(err, sizeof(err), "--shuffle-ports: out of memory");
		r = 2;
	}
	if (!r && c.random_guids && gen_random_guids(&f, seed)) {
		snprintf(err, sizeof(err), "--guids random: out of memory");
		r = 2;
	}
	if (r) {
		if (err[0])
			fprintf(stderr, "ibsm-topo: %s: %s\n", c.shape, err);
		fab_free(&f);
		return 2;
	}
	int to_stdout = c.out && !strcmp(c.out, "-");
	if (c.summary)
		summary(to_stdout ? stderr : stdout, c.shape, &f);
	if (c.out) {
		if (!strcmp(c.format, "net"))
			r = topo_write_ibsim_net(&f, c.out);
		else if (!strcmp(c.format, "ibnd"))
			r = topo_write_ibnetdiscover(&f, to_stdout ? "/dev/stdout" : c.out);
		else
			r = topo_write_dot(&f, to_stdout ? "/dev/stdout" : c.out);
	}
	fab_free(&f);
	return r ? 1 : 0;
}
