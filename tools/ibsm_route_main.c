/* ibsm-route: route a dumped or generated topology offline and judge the
 * tables. Flow: read the topology (ibnetdiscover or ibsim net), assign
 * LIDs as an SM would (keep the file's, honour a guid2lid file, LMC), run
 * the first engine of the list that accepts the fabric (or read existing
 * tables with --lfts-in), write the tables in dump_fts format (what
 * OpenSM's `file` engine loads with -U), verify, print JSON on stdout.
 *
 * Exit: 0 tables verified, 1 verification failed or no engine could route,
 * 2 usage or bad input (messages name the file and line). See
 * docs/ibsm-route.md and ibsm-route(1). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../core/fabric.h"
#include "../core/input_file.h"
#include "../core/guid_list.h"
#include "../core/lid_assign.h"
#include "../core/cn_rank.h"
#include "../core/log.h"
#include "../formats/topo_read.h"
#include "../qos/qos_offline.h"
#include "../qos/qos_policy.h"
#include "../routing/engine.h"
#include "../routing/lft.h"
#include "../routing/route_select.h"
#include "../routing/path_sl.h"
#include "../routing/verify.h"
#include "../sm/config/config.h"

#define EXIT_VERIFY 1
#define EXIT_USAGE 2

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
	"  --qos FILE           QoS policy (qos-policy.conf, or an ibsm YAML naming\n"
	"                       one): print each class's SLs and VLs (with a\n"
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

struct cli {
	const char *topo, *engines, *roots, *cns, *guid2lid, *save_guid2lid;
	const char *out, *lfts_in, *dot, *sl_out, *cn_order, *sl_in;
	const char *prev_topo, *prev_lfts;
	const char *qos, *sl2vl;
	const char *engine_path[16];
	unsigned num_engine_paths;
	enum topo_format format;
	unsigned lmc, shifts, threads, vls;
	int check, cdg_switch_lids, quiet, verbose, list_engines, wide_lids;
};

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

static int parse_args(int argc, char **argv, struct cli *c)
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

/* Warn about listed GUIDs that are not nodes of the wanted type. */
static void check_guids(struct fabric *f, const char *path, const uint64_t *g,
			uint32_t n, uint8_t type)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = fab_find_node_guid(f, g[i]);
		if (node == FAB_NONE)
			log_warn("%s: GUID 0x%016" PRIx64 " is not in the fabric",
				 path, g[i]);
		else if (f->nodes[node].type != type)
			log_warn("%s: GUID 0x%016" PRIx64 " is a %s, not a %s",
				 path, g[i], fab_type_str(f->nodes[node].type),
				 fab_type_str(type));
	}
}

/* The largest LMC of the CA and router ports that have a LID. */
static uint8_t fabric_lmc(const struct fabric *f)
{
	uint8_t lmc = 0;

	for (uint32_t p = 0; p < f->num_ports; p++)
		if (!fab_is_switch(f, f->ports[p].node) && f->ports[p].lid &&
		    f->ports[p].lmc > lmc)
			lmc = f->ports[p].lmc;
	return lmc;
}

/* Ports whose LID in `topo` is past the unicast range: lid_assign gives
 * them fresh LIDs, so the tables would not match the file; say so, since
 * only --wide-lids (analysis tables) keeps such LIDs. */
static void warn_wide_lids(const struct fabric *f, const char *topo)
{
	uint32_t n = 0, first = 0;

	for (uint32_t p = 0; p < f->num_ports; p++)
		if (f->ports[p].lid > FAB_MAX_UCAST_LID && !n++)
			first = p;
	if (n)
		log_warn("%s: %u %s past the unicast range (0x%x; first: "
			 "port GUID 0x%016llx, LID 0x%x) and get new LIDs; "
			 "--wide-lids keeps them (analysis only)", topo, n,
			 n == 1 ? "port carries a LID" : "ports carry LIDs",
			 FAB_MAX_UCAST_LID,
			 (unsigned long long)f->ports[first].guid,
			 f->ports[first].lid);
}

/* LIDs for f (read from `topo`): the file's, then `given` (the previous
 * fabric's, on a re-route) or --guid2lid, then fresh ones. `keep`, if
 * set, receives the LIDs used (and --save-guid2lid is left to the
 * fabric routed last). */
static int assign_lids(struct fabric *f, const struct cli *c, const char *topo,
		       const struct lid_map *given, struct lid_map *keep)
{
	struct lid_map map, used;
	struct lid_assign_opts lo = { .lmc = (uint8_t)c->lmc, .keep_existing = 1 };
	int rc;

	if (c->wide_lids)
		lo.max_lid = LFT_MAX_ANALYSIS_LID;
	/* The LMC the dump's port lines carry ("lid 16 lmc 1"): those ports
	 * answer to every LID of their range, so every one needs a route. */
	{
		uint8_t file_lmc = fabric_lmc(f);

		if (file_lmc != c->lmc)
			log_warn("%s: ports carry LMC %u, --lmc is %d: routing with LMC %u",
				 topo, file_lmc, c->lmc,
				 file_lmc > c->lmc ? file_lmc : (unsigned)c->lmc);
		if (file_lmc > lo.lmc)
			lo.lmc = file_lmc;
	}

	lid_map_init(&map);
	lid_map_init(&used);
	if (given) {
		lo.map = given;
	} else if (c->guid2lid) {
		rc = lid_map_load(&map, c->guid2lid);
		if (rc == -ENOENT)
			log_err("%s: no such file", c->guid2lid);
		if (rc) {
			lid_map_free(&map);
			return EXIT_USAGE;
		}
		lo.map = &map;
	}
	if (!c->wide_lids)
		warn_wide_lids(f, topo);
	rc = lid_assign(f, &lo, &used);
	if (rc == -ENOSPC && !c->wide_lids) {
		log_err("%s: the fabric needs more LIDs than the unicast range "
			"holds (0x%x); --wide-lids routes it for analysis only",
			topo, FAB_MAX_UCAST_LID);
		rc = EXIT_USAGE;
	} else if (rc < 0) {
		log_err("%s: LID assignment failed: %s", topo, strerror(-rc));
		rc = EXIT_USAGE;
	} else {
		if (fab_max_lid(f) > FAB_MAX_UCAST_LID)
			log_warn("%s: LIDs up to 0x%x, past the unicast range "
				 "(0x%x): tables for analysis only, no switch "
				 "holds them", topo, fab_max_lid(f),
				 FAB_MAX_UCAST_LID);
		if (rc && c->lfts_in)
			log_warn("%s: %d ports had no LID; --lfts-in tables will "
				 "not route them", topo, rc);
		else if (rc)
			log_info("assigned %d new LIDs", rc);
		rc = 0;
		if (keep) {
			*keep = used;
			lid_map_init(&used);
		} else if (c->save_guid2lid) {
			int r = lid_map_save(&used, c->save_guid2lid);
			if (r) {
				log_err("%s: %s", c->save_guid2lid, strerror(-r));
				rc = EXIT_USAGE;
			}
		}
	}
	lid_map_free(&map);
	lid_map_free(&used);
	return rc;
}

static int check_engine_names(const char *list)
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

/* Re-route input (--prev-topo, --prev-lfts): the previous fabric, its
 * LIDs (kept for --topo, as an SM keeps them across sweeps) and tables. */
struct prev {
	struct fabric fab;
	struct lid_map lids;
	struct lft_set lft;
	/* Warm memory for the new tables, as the daemon keeps between
	 * routes (sm/sm_state.c, spare_prefault): a re-route is then timed
	 * as the daemon runs it, not with 345 MB of page faults at 65k. */
	struct lft_set spare;
	/* What the engine that routed the previous fabric kept for a repair
	 * of its tables (ftree: their turns), as the daemon keeps it with the
	 * tables it holds; empty with --prev-lfts. */
	struct route_memo memo;
};

static void prev_init(struct prev *pv)
{
	fab_init(&pv->fab);
	lid_map_init(&pv->lids);
	memset(&pv->lft, 0, sizeof(pv->lft));
	memset(&pv->spare, 0, sizeof(pv->spare));
	memset(&pv->memo, 0, sizeof(pv->memo));
}

static void prev_free(struct prev *pv)
{
	lft_free(&pv->lft);
	lft_free(&pv->spare);
	route_memo_free(&pv->memo);
	lid_map_free(&pv->lids);
	fab_free(&pv->fab);
}

static int prev_read(struct prev *pv, const struct cli *c)
{
	if (topo_read(&pv->fab, c->prev_topo, c->format))
		return EXIT_USAGE;
	if (!pv->fab.num_switches) {
		log_err("%s: no switches", c->prev_topo);
		return EXIT_USAGE;
	}
	return assign_lids(&pv->fab, c, c->prev_topo, NULL, &pv->lids);
}

/* Every switch header of a --prev-lfts file names a switch of
 * --prev-topo, and every switch there has a table: otherwise the two
 * files are not of one fabric. */
static int prev_check_headers(struct prev *pv, const struct cli *c)
{
	const char *path = c->prev_lfts;
	char line[1024];
	unsigned lineno = 0;
	int rc = 0;
	uint8_t *seen = calloc(pv->fab.num_switches, 1);
	int ck = input_file_check(path);
	FILE *in = ck ? NULL : fopen(path, "r");

	if (!in) {
		if (ck != -EISDIR && ck != -EINVAL)
			log_err("%s: %s", path, strerror(ck ? -ck : errno));
		free(seen);
		return EXIT_USAGE;
	}
	while (seen && fgets(line, sizeof(line), in)) {
		lineno++;
		char *p = line + strspn(line, " \t"), *g, *q;
		if (strncmp(p, "Unicast lids", 12) || !(g = strstr(p, " guid 0x")))
			continue;       /* the table reader judges the rest */
		uint64_t guid = strtoull(g + 8, &q, 16);
		uint32_t n = fab_find_node_guid(&pv->fab, guid);
		if (n == FAB_NONE || !fab_is_switch(&pv->fab, n)) {
			log_err("%s:%u: switch 0x%016" PRIx64 " is not a switch of "
				"%s: tables and fabric do not match", path, lineno,
				guid, c->prev_topo);
			rc = EXIT_USAGE;
			break;
		}
		seen[pv->fab.nodes[n].sw_index] = 1;
	}
	fclose(in);
	for (uint32_t s = 0; !rc && seen && s < pv->fab.num_switches; s++)
		if (!seen[s]) {
			const struct fab_node *nd = &pv->fab.nodes[pv->fab.switches[s]];
			log_err("%s: no table for switch 0x%016" PRIx64 " (\"%s\") "
				"of %s: tables and fabric do not match", path,
				nd->guid, nd->desc, c->prev_topo);
			rc = EXIT_USAGE;
		}
	if (!seen)
		rc = EXIT_USAGE;
	free(seen);
	return rc;
}

/* Route with the engine list as the daemon does (routing/route_select.h):
 * with more than one engine, each engine's tables are verified (routes to
 * switch LIDs included) and the first verified ones are taken, passing
 * over an engine whose tables fail, so ibsm-route prints the tables the
 * daemon would program for the same fabric and LIDs. One engine is simply
 * run (its tables are judged later, with --check). 0 or a negative errno;
 * *used names the engine whose tables t holds. */
static int route_list(const char *engines, const struct fabric *f,
		      const struct route_options *ro, struct lft_set *t,
		      const char **used)
{
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	const struct route_engine *e = NULL;
	struct route_choice *ch;
	int r;

	*used = "?";
	if (!strpbrk(engines, ", \t")) {
		r = route_run_list(engines, f, ro, t, &e);
		if (e)
			*used = e->name;
		return r;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	r = route_select(engines, f, ro, &vo, t, ch);
	if (ch->engine)
		*used = ch->engine->name;
	free(ch);
	return r == 1 ? 0 : r < 0 ? r : -EINVAL;
}

/* The previous tables: read them, or route the previous fabric with the
 * same engines (not counted in the route time). */
static int prev_tables_get(struct prev *pv, struct fabric *f, const struct cli *c);

static int prev_tables(struct prev *pv, struct fabric *f, const struct cli *c)
{
	int rc = prev_tables_get(pv, f, c);
	if (rc)
		return rc;
	double t0 = now_seconds();
	if (lft_alloc(&pv->spare, f->num_switches, fab_max_lid(f)))
		return 0;
	pv->spare.clean = 1;            /* lft_alloc filled it */
	log_info("spare tables: %.1f MB pre-faulted in %.3f s (not timed;"
		 " the daemon does it once the fabric is up)",
		 (double)pv->spare.num_switches * pv->spare.stride / 1048576.0,
		 now_seconds() - t0);
	/* As the daemon between routes: the spare a copy of the tables held
	 * (same layout), for an engine that starts from them. */
	t0 = now_seconds();
	if (pv->lft.port && lft_copy_step(&pv->spare, &pv->lft, 0) == 1) {
		log_info("spare tables: a copy of the previous tables made in %.3f s "
			 "(not timed; the daemon makes it in its idle loop)",
			 now_seconds() - t0);
	}
	return 0;
}

static int prev_tables_get(struct prev *pv, struct fabric *f, const struct cli *c)
{
	uint32_t common = 0;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = fab_find_node_guid(&pv->fab, f->nodes[f->switches[s]].guid);
		common += n != FAB_NONE && fab_is_switch(&pv->fab, n);
	}
	if (!common) {
		log_err("%s: no switch GUID in common with %s: not the same fabric",
			c->prev_topo, c->topo);
		return EXIT_USAGE;
	}
	if (c->prev_lfts) {
		int rc = prev_check_headers(pv, c);
		if (rc)
			return rc;
		if (lft_alloc(&pv->lft, pv->fab.num_switches, fab_max_lid(&pv->fab)) ||
		    lft_read_dump_fts(&pv->fab, &pv->lft, c->prev_lfts,
				      c->wide_lids))
			return EXIT_USAGE;
		return 0;
	}
	uint32_t *rank = NULL;
	int port_only = c->cn_order && !strcmp(c->cn_order, "port");
	if (cn_rank_build(&pv->fab, port_only ? NULL : c->cn_order, &rank))
		return EXIT_USAGE;
	struct route_options ro = {
		.lmc = fabric_lmc(&pv->fab),
		.threads = c->threads,
		.max_vls = (uint8_t)c->vls,
		.cn_rank = port_only ? NULL : rank,
		.memo_out = &pv->memo,
	};
	const char *used = "?";
	double t0 = now_seconds();
	int r = route_list(c->engines, &pv->fab, &ro, &pv->lft, &used);
	free(rank);
	if (r < 0) {
		log_err("%s: no engine of \"%s\" could route the previous fabric",
			c->prev_topo, c->engines);
		return EXIT_VERIFY;
	}
	log_info("previous tables: %s routed by %s in %.3f s", c->prev_topo,
		 used, now_seconds() - t0);
	return 0;
}

/* How many entries and 64-entry blocks differ from the previous tables
 * (switches matched by GUID; a new switch counts whole). */
static void prev_report(struct prev *pv, const struct fabric *f,
			const struct lft_set *t, const struct cli *c)
{
	uint64_t entries = 0, blocks = 0, nblocks = 0;
	uint32_t fresh = 0;
	uint32_t nblk = t->stride / LFT_BLOCK;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = fab_find_node_guid(&pv->fab, f->nodes[f->switches[s]].guid);
		const uint8_t *now = lft_row(t, s);
		const uint8_t *was = n != FAB_NONE && fab_is_switch(&pv->fab, n) ?
			lft_row(&pv->lft, pv->fab.nodes[n].sw_index) : NULL;
		nblocks += nblk;
		fresh += !was;
		for (uint32_t b = 0; b < nblk; b++) {
			uint32_t l0 = b * LFT_BLOCK, d = 0;
			if (was && l0 + LFT_BLOCK <= pv->lft.stride &&
			    !memcmp(now + l0, was + l0, LFT_BLOCK))
				continue;
			for (uint32_t l = l0; l < l0 + LFT_BLOCK; l++)
				d += now[l] != (was && l < pv->lft.stride ?
						was[l] : LFT_NO_PATH);
			entries += d;
			blocks += d != 0;
			if (d && getenv("RP_DEBUG"))
				fprintf(stderr, "DIFF %s %u %u\n", f->nodes[f->switches[s]].desc, l0, d);
		}
	}
	if (!c->quiet)
		fprintf(stderr, "ibsm-route: re-route: %" PRIu64 " entries differ "
			"from the previous tables, in %" PRIu64 " of %" PRIu64
			" 64-entry LFT blocks (%u switches new)\n", entries,
			blocks, nblocks, fresh);
}

/* Route (or read tables); returns 0 or an exit code. */
static int make_tables(struct fabric *f, const struct cli *c, struct lft_set *t,
		       struct path_sl *sl, const uint32_t *rank,
		       struct prev *pv, const char **engine_used,
		       double *route_s)
{
	uint64_t *roots = NULL, *cns = NULL;
	uint32_t nroots = 0, ncns = 0;
	double t0 = now_seconds();
	int rc = 0;

	if (c->lfts_in) {
		if (lft_alloc(t, f->num_switches, fab_max_lid(f)))
			return EXIT_USAGE;
		if (lft_read_dump_fts(f, t, c->lfts_in, c->wide_lids)) {
			lft_free(t);
			return EXIT_USAGE;
		}
		*engine_used = "lfts-in";
		*route_s = now_seconds() - t0;
		return 0;
	}
	if ((c->roots && guid_list_read(c->roots, &roots, &nroots)) ||
	    (c->cns && guid_list_read(c->cns, &cns, &ncns))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (c->roots)
		check_guids(f, c->roots, roots, nroots, FAB_SWITCH);
	if (c->cns)
		check_guids(f, c->cns, cns, ncns, FAB_CA);
	struct route_options ro = {
		.lmc = fabric_lmc(f),           /* --lmc, or the dump's if larger */
		.root_guids = roots, .num_root_guids = nroots,
		.cn_guids = cns, .num_cn_guids = ncns,
		.threads = c->threads,
		.max_vls = (uint8_t)c->vls,
		.sl_out = sl,
		.cn_rank = rank,
		.prev = pv ? &pv->lft : NULL,
		.prev_fab = pv ? &pv->fab : NULL,
		.spare = pv ? &pv->spare : NULL,
		.prev_memo = pv ? &pv->memo : NULL,
	};
	const char *used = "?";
	struct rusage ru0;
	int had_spare = pv && pv->spare.port;
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_seconds();
	if (route_list(c->engines, f, &ro, t, &used) < 0) {
		log_err("%s: no engine of \"%s\" could route the fabric",
			c->topo, c->engines);
		rc = EXIT_VERIFY;
		goto out;
	}
	*route_s = now_seconds() - t0;
	*engine_used = used;
	{
		/* Memory of the route phase alone (the verifier adds its own
		 * later): the tables are most of it on large fabrics. */
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		double tab = (double)t->stride * t->num_switches / 1048576.0;
		double grew = (ru.ru_maxrss - ru0.ru_maxrss) / 1024.0;
		/* CPU besides wall: on a shared machine the wall time of a
		 * 0.2 s route says as much about the others' load as ours */
		double cpu = (ru.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
			(ru.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
			(ru.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
			(ru.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
		if (had_spare && !pv->spare.port)
			log_info("route: tables %.1f MB, built in the pre-faulted "
				 "spare; peak RSS %.1f MB before routing, %.1f MB after; "
				 "route CPU %.3f s", tab, ru0.ru_maxrss / 1024.0,
				 ru.ru_maxrss / 1024.0, cpu);
		else
			log_info("route: tables %.1f MB; peak RSS %.1f MB before routing, "
				 "%.1f MB after (+%.1f MB, %.1f%% over the tables)",
				 tab, ru0.ru_maxrss / 1024.0, ru.ru_maxrss / 1024.0, grew,
				 tab > 0 ? 100.0 * (grew - tab) / tab : 0.0);
	}
out:
	free(roots);
	free(cns);
	return rc;
}

/* dump_fts leaves out the top LID when it is a multiple of 64
 * (docs: IBSIM-NOTES); if no switch has it, do not judge that LID. */
static uint32_t dropped_top_lid(const struct fabric *f, const struct lft_set *t)
{
	uint32_t top = fab_max_lid(f);
	if (!top || top % 64 || top > t->max_lid)
		return 0;
	for (uint32_t s = 0; s < t->num_switches; s++)
		if (lft_get(t, s, top) != LFT_NO_PATH)
			return 0;
	log_warn("no switch has an entry for LID %u: dump_fts leaves out the "
		 "top LID when it is a multiple of 64, so it is not judged", top);
	return top;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* The policy of --qos FILE (qos/qos_offline.h qos_policy_loader): OpenSM's
 * qos-policy.conf, or an ibsm YAML configuration (*.yaml, *.yml) whose
 * qos_policy_file names one. Port groups' partition names are not
 * resolved (classes do not need them). Here and not in qos/: the
 * configuration's reader is the daemon's (sm/config/). */
static struct qos_policy *qos_policy_of(const char *file, char *err, size_t len)
{
	struct ibsm_config cfg;
	struct qos_policy *p;

	if (!ends_with(file, ".yaml") && !ends_with(file, ".yml"))
		return qos_policy_read(file, err, len);
	/* An ibsm configuration: its qos_policy_file. (Its qos: section, if
	 * any, is not read here.) */
	config_defaults(&cfg);
	if (config_load_yaml(&cfg, file) < 0) {
		snprintf(err, len, "%s: not a readable ibsm configuration", file);
		config_free(&cfg);
		return NULL;
	}
	if (!cfg.qos_policy_file[0]) {
		snprintf(err, len, "%s: sets no qos_policy_file", file);
		config_free(&cfg);
		return NULL;
	}
	p = qos_policy_read(cfg.qos_policy_file, err, len);
	config_free(&cfg);
	return p;
}

/* --qos / --sl2vl (qos/qos_offline.h): load and plan for the budget; a
 * layered engine then gets the layers per class (cc->vls). 0 or an exit
 * code. */
static int qos_setup(const struct cli *c, struct cli *cc, struct qos_offline *q)
{
	int layered = c->sl_in || (c->engines && strstr(c->engines, "dfsp"));
	unsigned layers = 0;

	if (!c->qos && !c->sl2vl)
		return 0;
	if (qos_offline_setup(q, c->qos, qos_policy_of, c->sl2vl, c->vls, layered, &layers) < 0)
		return EXIT_USAGE;
	if (layers)
		cc->vls = layers;
	return 0;
}

/* --qos without --topo: the plan for the budget. */
static int qos_only(const struct cli *c)
{
	struct qos_offline q;
	struct cli cc = *c;
	int rc = qos_setup(c, &cc, &q);

	if (!rc && !c->quiet)
		qos_offline_print(stdout, c->qos, &q.space, q.layered, q.vls, q.map);
	qos_offline_free(&q);
	return rc;
}

static int run(const struct cli *c0)
{
	struct qos_offline q = { 0 };
	struct cli cl = *c0;
	const struct cli *c = &cl;
	struct fabric f;
	struct prev pv;
	struct lft_set t = { 0 };
	struct path_sl sl = { 0 };
	struct verify_result res;
	uint64_t *a2a = NULL;         /* --dot: all-to-all routes per port */
	uint32_t *rank = NULL;        /* compute-node rank order, or NULL */
	const uint32_t *engine_rank = NULL;
	const char *engine = "?";
	double t0 = now_seconds(), t_read, t_lids, route_s = 0, t_verify = 0;
	int rc;

	fab_init(&f);
	prev_init(&pv);
	if ((rc = qos_setup(c0, &cl, &q)))
		goto out;
	if (topo_read(&f, c->topo, c->format)) {
		rc = EXIT_USAGE;
		goto out;
	}
	t_read = now_seconds() - t0;
	if (!f.num_switches && !f.num_cas) {
		log_err("%s: no nodes", c->topo);
		rc = EXIT_USAGE;
		goto out;
	}
	t0 = now_seconds();
	if (c->prev_topo && (rc = prev_read(&pv, c)))
		goto out;
	if ((rc = assign_lids(&f, c, c->topo, c->prev_topo ? &pv.lids : NULL,
			      NULL)))
		goto out;
	if (c->prev_topo && (rc = prev_tables(&pv, &f, c)))
		goto out;
	t_lids = now_seconds() - t0;
	if (c->dot && (rc = topo_write_dot(&f, c->dot))) {
		log_err("%s: %s", c->dot, strerror(-rc));
		rc = EXIT_USAGE;
		goto out;
	}
	/* Compute-node rank order (core/cn_rank.h): the engine routes for
	 * it, the verifier's shifts follow it. "--cn-order port": the
	 * engine keeps port order, the shifts are still judged in host-name
	 * order (what a launcher does). */
	{
		int port_only = c->cn_order && !strcmp(c->cn_order, "port");

		rc = cn_rank_build(&f, port_only ? NULL : c->cn_order, &rank);
		if (rc) {
			rc = EXIT_USAGE;
			goto out;
		}
		engine_rank = port_only ? NULL : rank;
	}
	if ((rc = make_tables(&f, c, &t, &sl, engine_rank,
			      c->prev_topo ? &pv : NULL, &engine, &route_s)))
		goto out;
	if (c->prev_topo)
		prev_report(&pv, &f, &t, c);
	if (c->sl_in) {
		/* SLs from elsewhere (the daemon's path-sl.txt dump, or the
		 * SA's answers) judged with these tables. */
		path_sl_free(&sl);
		if (path_sl_alloc(&sl, &f) || path_sl_read(&sl, c->sl_in)) {
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (c->out && (rc = lft_write_dump_fts(&f, &t, c->out))) {
		log_err("%s: %s", c->out, strerror(-rc));
		rc = EXIT_USAGE;
		goto out;
	}
	if (sl.sl && sl.vls_used > 1 && c->out && !c->sl_out)
		log_warn("%s: these tables need %u SL layers to be deadlock-free; "
			 "--sl-out writes them", c->out, sl.vls_used);
	if (c->sl_out) {
		if (!sl.sl)
			log_warn("%s: engine %s sets no path SLs; every path "
				 "uses SL 0", c->sl_out, engine);
		if (!sl.sl && (rc = path_sl_alloc(&sl, &f))) {
			rc = EXIT_USAGE;
			goto out;
		}
		if ((rc = path_sl_write(&f, &sl, c->sl_out, 0))) {
			log_err("%s: %s", c->sl_out, strerror(-rc));
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (c->dot && !(a2a = calloc((size_t)f.num_ports + 1, sizeof(*a2a)))) {
		rc = EXIT_USAGE;
		goto out;
	}
	struct verify_opts vo = {
		/* Layered tables: one CDG per SL below, not one for all. */
		.check_credit_loops = c->check && !sl.sl,
		/* --dot draws the all-to-all load as a heat map. */
		.link_load = c->check || c->dot,
		.a2a_load_out = a2a,
		.cn_rank = rank,
		.path_diversity = c->check && c->lmc,
		.max_shifts = c->check ? c->shifts : 1,
		.threads = c->threads,
		.cdg_switch_lids = c->cdg_switch_lids,
		.unchecked_lid = c->lfts_in ? dropped_top_lid(&f, &t) : 0,
	};
	rc = verify_routes(&f, &t, &vo, &res);
	if (rc) {
		log_err("verification could not run: %s", strerror(-rc));
		rc = EXIT_VERIFY;
		goto out;
	}
	t_verify = res.seconds;
	if (c->dot) {
		/* The drawing again, now with each link's all-to-all routes. */
		double *load = calloc((size_t)f.num_ports + 1, sizeof(*load));
		struct dot_heat heat = { .load = load, .unit = "routes" };

		if (!load) {
			rc = EXIT_USAGE;
			goto out;
		}
		for (uint32_t p = 0; p < f.num_ports; p++)
			load[p] = (double)a2a[p];
		rc = topo_write_dot_heat(&f, c->dot, &heat);
		free(load);
		if (rc) {
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (!c->quiet)
		verify_print_json(stdout, &res);
	if (c->check && sl.sl) {
		uint32_t vls = 0;
		char why[160];
		int loop = path_sl_check(&f, &t, &sl, &vls, why, sizeof(why));
		if (loop < 0) {
			log_err("per-SL check could not run: %s", strerror(-loop));
			rc = EXIT_VERIFY;
			goto out;
		}
		if (!c->quiet)
			printf("{\"sl_layers\":{\"vls_used\":%u,\"credit_loop\":%d,"
			       "\"first_error\":\"%s\"}}\n", vls, loop, why);
		if (loop) {
			res.ok = 0;
			snprintf(res.first_error, sizeof(res.first_error), "%s", why);
		}
	}
	if (c->qos || c->sl2vl) {
		char why[200];
		int loop = qos_offline_report(&q, c->quiet ? NULL : stdout, c->check,
					      &f, &t, &sl, why, sizeof(why));

		if (loop < 0) {
			log_err("per-VL check could not run: %s", strerror(-loop));
			rc = EXIT_VERIFY;
			goto out;
		}
		if (loop) {
			res.ok = 0;
			snprintf(res.first_error, sizeof(res.first_error), "%s", why);
		}
	}
	if (!res.ok)
		log_err("%s: tables from %s fail verification: %s", c->topo,
			engine, res.first_error);
	rc = res.ok ? 0 : EXIT_VERIFY;
	if (!c->quiet) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		/* The route time comes last: scripts take the last "N s". */
		fprintf(stderr, "ibsm-route: %u switches, %u CAs; read %.3f s, "
			"lids %.3f s, verify %.3f s (%u threads), peak RSS %.1f MB; "
			"engine %s, route %.3f s\n", f.num_switches, f.num_cas,
			t_read, t_lids, t_verify, res.threads,
			ru.ru_maxrss / 1024.0, engine, route_s);
	}
out:
	free(a2a);
	free(rank);
	path_sl_free(&sl);
	lft_free(&t);
	fab_free(&f);
	prev_free(&pv);
	qos_offline_free(&q);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int rc;

	log_set_prog("ibsm-route");
	if ((rc = parse_args(argc, argv, &c)))
		return rc;
	log_set_level(c.quiet ? LOG_ERR : c.verbose >= 2 ? LOG_DEBUG :
		      c.verbose ? LOG_INFO : LOG_WARN);
	for (unsigned i = 0; i < c.num_engine_paths; i++)
		if (!route_engine_load(c.engine_path[i]))
			return EXIT_USAGE;
	if (c.list_engines) {
		const struct route_engine *const *b = route_builtin_engines();
		char fl[96];
		for (unsigned i = 0; b[i]; i++)
			printf("%-10s %s [%s]\n", b[i]->name,
			       b[i]->summary ? b[i]->summary : "",
			       route_engine_flag_names(b[i]->flags, fl, sizeof(fl)));
		return 0;
	}
	if (c.engines && (rc = check_engine_names(c.engines)))
		return rc;
	if (!c.topo)
		return qos_only(&c);
	return run(&c);
}
