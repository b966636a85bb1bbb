/* ibsm-route's command line: the usage text, the options into struct
 * cli, and the engine names checked before anything is read. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../routing/engine.h"
#include "../../routing/route_select.h"
#include "route_tool.h"

static const char usage[] =
	"usage: ibsm-route --topo FILE [options]\n"
	"  --topo FILE          topology: ibnetdiscover output or ibsim net file\n"
	"  --format F           auto (default), ibnd, net or subnet-lst (OpenSM)\n"
	"  --engine LIST        engine and fallbacks (default " ROUTE_DEFAULT_ENGINES ")\n"
	"  --engine-path LIB    load an engine from a shared object (repeatable)\n"
	"  --lmc N              LIDs per port = 2^N (0..7, default 0)\n"
	"  --roots FILE         root switch GUIDs, one per line\n"
	"  --cns FILE           compute-node CA GUIDs, one per line\n"
	"  --guid2lid FILE      LIDs to honour (OpenSM guid2lid format)\n"
	"  --save-guid2lid FILE write the LIDs used (OpenSM guid2lid format)\n"
	"  --out FILE           write the tables (dump_fts format, for opensm -U)\n"
	"  --lfts-in FILE       verify these tables (dump_fts output) instead of routing\n"
	"  --prev-topo FILE     re-route: the fabric the previous tables were\n"
	"                       computed on (its LIDs are kept for --topo)\n"
	"  --prev-lfts FILE     re-route: the previous tables (dump_fts format);\n"
	"                       default: route --prev-topo with --engine first\n"
	"  --vls N              layers (SLs/VLs) a layered engine (dfsp) may\n"
	"                       use, 1..15 (default 8)\n"
	"  --sl-out FILE        write 'SLID DLID SL' for every CA-to-CA path\n"
	"  --sl-in FILE         path SLs to judge with the tables (--check: one\n"
	"                       credit-loop check per SL), e.g. the daemon's dump\n"
	"  --qos FILE           QoS policy (qos-policy.conf, or an ibsm YAML with a\n"
	"                       qos: section or qos_policy_file): print each\n"
	"                       class's SLs and VLs (with a\n"
	"                       layered engine or --sl-in: class base + layer);\n"
	"                       --check: one credit-loop check per VL\n"
	"  --sl2vl FILE         SL2VL map to check with (16 VLs a line, e.g.\n"
	"                       smpquery sl2vl output): SLs on one VL share\n"
	"                       its dependency graph\n"
	"  --check              full verification: credit loops, link loads,\n"
	"                       shifts, LMC path diversity; exit 1 if not ok\n"
	"  --cdg-switch-lids    credit loops: also CA -> switch-LID routes\n"
	"  --shifts N           shift permutations to evaluate (0 = all, default 256)\n"
	"  --threads N          engine and verifier threads (default: CPUs,\n"
	"                       at most 8; ftree uses 2 when N is 0 or >= 2)\n"
	"  --dot FILE           write the topology as Graphviz DOT (a heat map of\n"
	"                       the all-to-all load when there are tables)\n"
	"  --cn-order FILE|port compute-node rank order: GUIDs or host names, one\n"
	"                       per line (default: natural sort of host names);\n"
	"                       port: route in port order, check in host order\n"
	"  --list-engines       print the known engines\n"
	"  --wide-lids          allow LIDs past 0xBFFF (offline analysis of fabrics\n"
	"                       larger than one subnet; no switch holds such tables)\n"
	"  -q, --quiet          no JSON, no summary (the exit code tells)\n"
	"  -v, --verbose        more log (repeat for debug)\n"
	"  -h, --help           this text\n";


static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "ibsm-route: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(ibsm-route --help for usage)\n");
	return EXIT_USAGE;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > max || s[0] == '-')
		return -1;
	*out = (unsigned)v;
	return 0;
}

int rt_parse_args(int argc, char **argv, struct cli *c)
{
	enum { O_TOPO = 256, O_FORMAT, O_ENGINE, O_ENGINE_PATH, O_LMC, O_ROOTS,
	       O_CNS, O_GUID2LID, O_SAVE, O_OUT, O_LFTS_IN, O_CHECK, O_CDG_SW,
	       O_SHIFTS, O_THREADS, O_DOT, O_LIST, O_WIDE, O_VLS, O_SL_OUT,
	       O_CN_ORDER, O_SL_IN, O_PREV_TOPO, O_PREV_LFTS, O_QOS, O_SL2VL };
	static const struct option longopts[] = {
		{ "topo", required_argument, NULL, O_TOPO },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "engine-path", required_argument, NULL, O_ENGINE_PATH },
		{ "lmc", required_argument, NULL, O_LMC },
		{ "roots", required_argument, NULL, O_ROOTS },
		{ "cns", required_argument, NULL, O_CNS },
		{ "guid2lid", required_argument, NULL, O_GUID2LID },
		{ "save-guid2lid", required_argument, NULL, O_SAVE },
		{ "out", required_argument, NULL, O_OUT },
		{ "lfts-in", required_argument, NULL, O_LFTS_IN },
		{ "prev-topo", required_argument, NULL, O_PREV_TOPO },
		{ "prev-lfts", required_argument, NULL, O_PREV_LFTS },
		{ "check", no_argument, NULL, O_CHECK },
		{ "cdg-switch-lids", no_argument, NULL, O_CDG_SW },
		{ "shifts", required_argument, NULL, O_SHIFTS },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "dot", required_argument, NULL, O_DOT },
		{ "cn-order", required_argument, NULL, O_CN_ORDER },
		{ "sl-in", required_argument, NULL, O_SL_IN },
		{ "qos", required_argument, NULL, O_QOS },
		{ "sl2vl", required_argument, NULL, O_SL2VL },
		{ "list-engines", no_argument, NULL, O_LIST },
		{ "wide-lids", no_argument, NULL, O_WIDE },
		{ "vls", required_argument, NULL, O_VLS },
		{ "sl-out", required_argument, NULL, O_SL_OUT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	c->shifts = 256;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case O_TOPO: c->topo = optarg; break;
		case O_WIDE: c->wide_lids = 1; break;
		case O_SL_OUT: c->sl_out = optarg; break;
		case O_VLS:
			if (parse_uint(optarg, 15, &c->vls) || !c->vls)
				return bad_usage("--vls: '%s' is not 1..15", optarg);
			break;
		case O_FORMAT:
			if (!strcmp(optarg, "auto"))
				c->format = TOPO_AUTO;
			else if (!strcmp(optarg, "ibnd") || !strcmp(optarg, "ibnetdiscover"))
				c->format = TOPO_IBNETDISCOVER;
			else if (!strcmp(optarg, "net") || !strcmp(optarg, "ibsim"))
				c->format = TOPO_IBSIM_NET;
			else if (!strcmp(optarg, "subnet-lst") || !strcmp(optarg, "osm"))
				c->format = TOPO_OSM_SUBNET;
			else
				return bad_usage("--format: '%s' is not auto, ibnd, net or subnet-lst", optarg);
			break;
		case O_ENGINE: c->engines = optarg; break;
		case O_ENGINE_PATH:
			if (c->num_engine_paths == 16)
				return bad_usage("--engine-path: at most 16 objects%s", "");
			c->engine_path[c->num_engine_paths++] = optarg;
			break;
		case O_LMC:
			if (parse_uint(optarg, 7, &c->lmc))
				return bad_usage("--lmc: '%s' is not 0..7", optarg);
			break;
		case O_ROOTS: c->roots = optarg; break;
		case O_CNS: c->cns = optarg; break;
		case O_GUID2LID: c->guid2lid = optarg; break;
		case O_SAVE: c->save_guid2lid = optarg; break;
		case O_OUT: c->out = optarg; break;
		case O_LFTS_IN: c->lfts_in = optarg; break;
		case O_PREV_TOPO: c->prev_topo = optarg; break;
		case O_PREV_LFTS: c->prev_lfts = optarg; break;
		case O_CHECK: c->check = 1; break;
		case O_CDG_SW: c->cdg_switch_lids = 1; break;
		case O_SHIFTS:
			if (parse_uint(optarg, UINT32_MAX, &c->shifts))
				return bad_usage("--shifts: '%s' is not a count", optarg);
			break;
		case O_THREADS:
			if (parse_uint(optarg, 64, &c->threads))
				return bad_usage("--threads: '%s' is not 0..64", optarg);
			break;
		case O_DOT: c->dot = optarg; break;
		case O_CN_ORDER: c->cn_order = optarg; break;
		case O_SL_IN: c->sl_in = optarg; break;
		case O_QOS: c->qos = optarg; break;
		case O_SL2VL: c->sl2vl = optarg; break;
		case O_LIST: c->list_engines = 1; break;
		case 'q': c->quiet = 1; break;
		case 'v': c->verbose++; break;
		case 'h': fputs(usage, stdout); exit(0);
		case ':': return bad_usage("%s needs an argument", argv[optind - 1]);
		default: return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (c->list_engines)
		return 0;
	/* --qos alone: the plan for the budget, no fabric. */
	if (!c->topo && c->qos)
		return 0;
	if (!c->topo)
		return bad_usage("--topo FILE is required%s", "");
	/* No engine named and no tables given: the daemon's default list. */
	if (!c->engines && !c->lfts_in)
		c->engines = ROUTE_DEFAULT_ENGINES;
	if (c->engines && c->lfts_in)
		return bad_usage("--engine and --lfts-in exclude each other%s", "");
	if (c->prev_lfts && !c->prev_topo)
		return bad_usage("--prev-lfts needs --prev-topo (the fabric those "
				 "tables were computed on)%s", "");
	if (c->prev_topo && c->lfts_in)
		return bad_usage("--prev-topo re-routes; --lfts-in only verifies%s", "");
	return 0;
}

int rt_check_engine_names(const char *list)
{
	char buf[512], *save = NULL;
	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return bad_usage("--engine: list too long%s", "");
	for (char *n = strtok_r(buf, ", \t", &save); n; n = strtok_r(NULL, ", \t", &save))
		if (!route_engine_find(n)) {
			fprintf(stderr, "ibsm-route: unknown engine '%s' (known:", n);
			const struct route_engine *const *b = route_builtin_engines();
			for (unsigned i = 0; b[i]; i++)
				fprintf(stderr, " %s", b[i]->name);
			fprintf(stderr, ")\n");
			return EXIT_USAGE;
		}
	return 0;
}
