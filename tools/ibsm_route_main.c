/* ibsm-route: route a dumped or generated topology offline and judge the
 * tables. Flow: read the topology (ibnetdiscover or ibsim net), assign
 * LIDs as an SM would (keep the file's, honour a guid2lid file, LMC), run
 * the first engine of the list that accepts the fabric (or read existing
 * tables with --lfts-in), write the tables in dump_fts format (what
 * OpenSM's `file` engine loads with -U), verify, print JSON on stdout.
 * The parts (options, LIDs, re-route input, tables) are in tools/route/.
 *
 * Exit: 0 tables verified, 1 verification failed or no engine could route,
 * 2 usage or bad input (messages name the file and line). See
 * docs/ibsm-route.md and ibsm-route(1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../core/fabric.h"
#include "../core/cn_rank.h"
#include "../core/log.h"
#include "../formats/topo_read.h"
#include "../qos/qos_offline.h"
#include "../qos/qos_policy.h"
#include "../qos/qos_src.h"
#include "../routing/engine.h"
#include "../routing/lft.h"
#include "../routing/path_sl.h"
#include "../routing/verify.h"
#include "../sm/config/config.h"
#include "route/route_tool.h"

/* --qos / --sl2vl (qos/qos_offline.h): load and plan for the budget; a
 * layered engine then gets the layers per class (cc->vls). 0 or an exit
 * code. */
static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* --qos FILE: a qos-policy.conf, or an ibsm configuration holding a policy
 * (its qos: section, or the qos_policy_file it names; both is an error, as
 * the daemon says). */
static struct qos_policy *qos_policy_of(const char *file, char *err, size_t len)
{
	struct ibsm_config cfg;
	struct qos_policy *p;

	if (!ends_with(file, ".yaml") && !ends_with(file, ".yml"))
		return qos_policy_read(file, err, len);
	config_defaults(&cfg);
	if (config_load_yaml(&cfg, file) < 0) {
		snprintf(err, len, "%s: not a readable ibsm configuration", file);
		config_free(&cfg);
		return NULL;
	}
	if (cfg.qos_src && cfg.qos_policy_file[0]) {
		snprintf(err, len, "%s: a policy in its qos: section and qos_policy_file %s: give one",
			 file, cfg.qos_policy_file);
		config_free(&cfg);
		return NULL;
	}
	if (!cfg.qos_src && !cfg.qos_policy_file[0]) {
		snprintf(err, len, "%s: sets no qos_policy_file and has no policy in a qos: section",
			 file);
		config_free(&cfg);
		return NULL;
	}
	p = cfg.qos_src ? qos_src_parse(cfg.qos_src, err, len)
			: qos_policy_read(cfg.qos_policy_file, err, len);
	config_free(&cfg);
	return p;
}

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

/* One run with --topo: what its phases hand on. */
struct route_run {
	struct cli cl;                /* the options, --vls per QoS class */
	struct qos_offline q;
	struct fabric f;
	struct prev pv;
	struct lft_set t;
	struct path_sl sl;
	struct verify_result res;
	uint64_t *a2a;                /* --dot: all-to-all routes per port */
	uint32_t *rank;               /* compute-node rank order, or NULL */
	const uint32_t *engine_rank;
	const char *engine;
	double t_read, t_lids, route_s, t_verify;
};

/* The fabric, its LIDs (and the previous fabric's and tables on a
 * re-route), the --dot drawing. 0 or an exit code. */
static int load_fabric(struct route_run *rr, const struct cli *c0)
{
	const struct cli *c = &rr->cl;
	double t0 = now_seconds();
	int rc;

	if ((rc = qos_setup(c0, &rr->cl, &rr->q)))
		return rc;
	if (topo_read(&rr->f, c->topo, c->format))
		return EXIT_USAGE;
	rr->t_read = now_seconds() - t0;
	if (!rr->f.num_switches && !rr->f.num_cas) {
		log_err("%s: no nodes", c->topo);
		return EXIT_USAGE;
	}
	t0 = now_seconds();
	if (c->prev_topo && (rc = rt_prev_read(&rr->pv, c)))
		return rc;
	if ((rc = rt_assign_lids(&rr->f, c, c->topo,
				 c->prev_topo ? &rr->pv.lids : NULL, NULL)))
		return rc;
	if (c->prev_topo && (rc = rt_prev_tables(&rr->pv, &rr->f, c)))
		return rc;
	rr->t_lids = now_seconds() - t0;
	if (c->dot && (rc = topo_write_dot(&rr->f, c->dot))) {
		log_err("%s: %s", c->dot, strerror(-rc));
		return EXIT_USAGE;
	}
	return 0;
}

/* Compute-node rank order (core/cn_rank.h): the engine routes for it,
 * the verifier's shifts follow it. "--cn-order port": the engine keeps
 * port order, the shifts are still judged in host-name order (what a
 * launcher does). 0 or an exit code. */
static int rank_order(struct route_run *rr)
{
	const struct cli *c = &rr->cl;
	int port_only = c->cn_order && !strcmp(c->cn_order, "port");

	if (cn_rank_build(&rr->f, port_only ? NULL : c->cn_order, &rr->rank))
		return EXIT_USAGE;
	rr->engine_rank = port_only ? NULL : rr->rank;
	return 0;
}

/* --sl-in, --out, --sl-out; room for --dot's loads. 0 or an exit code. */
static int write_outputs(struct route_run *rr)
{
	const struct cli *c = &rr->cl;
	struct path_sl *sl = &rr->sl;
	int rc;

	if (c->sl_in) {
		/* SLs from elsewhere (the daemon's path-sl.txt dump, or the
		 * SA's answers) judged with these tables. */
		path_sl_free(sl);
		if (path_sl_alloc(sl, &rr->f) || path_sl_read(sl, c->sl_in))
			return EXIT_USAGE;
	}
	if (c->out && (rc = lft_write_dump_fts(&rr->f, &rr->t, c->out))) {
		log_err("%s: %s", c->out, strerror(-rc));
		return EXIT_USAGE;
	}
	if (sl->sl && sl->vls_used > 1 && c->out && !c->sl_out)
		log_warn("%s: these tables need %u SL layers to be deadlock-free; "
			 "--sl-out writes them", c->out, sl->vls_used);
	if (c->sl_out) {
		if (!sl->sl)
			log_warn("%s: engine %s sets no path SLs; every path "
				 "uses SL 0", c->sl_out, rr->engine);
		if (!sl->sl && path_sl_alloc(sl, &rr->f))
			return EXIT_USAGE;
		if ((rc = path_sl_write(&rr->f, sl, c->sl_out, 0))) {
			log_err("%s: %s", c->sl_out, strerror(-rc));
			return EXIT_USAGE;
		}
	}
	if (c->dot && !(rr->a2a = calloc((size_t)rr->f.num_ports + 1, sizeof(*rr->a2a))))
		return EXIT_USAGE;
	return 0;
}

/* The verifier's judgement (printed as JSON), and the --dot drawing
 * again, now with each link's all-to-all routes. 0 or an exit code. */
static int verify(struct route_run *rr)
{
	const struct cli *c = &rr->cl;
	struct fabric *f = &rr->f;
	struct verify_opts vo = {
		/* Layered tables: one CDG per SL below, not one for all. */
		.check_credit_loops = c->check && !rr->sl.sl,
		/* --dot draws the all-to-all load as a heat map. */
		.link_load = c->check || c->dot,
		.a2a_load_out = rr->a2a,
		.cn_rank = rr->rank,
		.path_diversity = c->check && c->lmc,
		.max_shifts = c->check ? c->shifts : 1,
		.threads = c->threads,
		.cdg_switch_lids = c->cdg_switch_lids,
		.unchecked_lid = c->lfts_in ? rt_dropped_top_lid(f, &rr->t) : 0,
	};
	int rc = verify_routes(f, &rr->t, &vo, &rr->res);

	if (rc) {
		log_err("verification could not run: %s", strerror(-rc));
		return EXIT_VERIFY;
	}
	rr->t_verify = rr->res.seconds;
	if (c->dot) {
		double *load = calloc((size_t)f->num_ports + 1, sizeof(*load));
		struct dot_heat heat = { .load = load, .unit = "routes" };

		if (!load)
			return EXIT_USAGE;
		for (uint32_t p = 0; p < f->num_ports; p++)
			load[p] = (double)rr->a2a[p];
		rc = topo_write_dot_heat(f, c->dot, &heat);
		free(load);
		if (rc)
			return EXIT_USAGE;
	}
	if (!c->quiet)
		verify_print_json(stdout, &rr->res);
	return 0;
}

/* With --check and path SLs: one credit-loop check per SL; with --qos or
 * --sl2vl: one per VL. A loop fails the result. 0 or an exit code. */
static int check_layers(struct route_run *rr)
{
	const struct cli *c = &rr->cl;
	struct verify_result *res = &rr->res;

	if (c->check && rr->sl.sl) {
		uint32_t vls = 0;
		char why[160];
		int loop = path_sl_check(&rr->f, &rr->t, &rr->sl, &vls, why, sizeof(why));
		if (loop < 0) {
			log_err("per-SL check could not run: %s", strerror(-loop));
			return EXIT_VERIFY;
		}
		if (!c->quiet)
			printf("{\"sl_layers\":{\"vls_used\":%u,\"credit_loop\":%d,"
			       "\"first_error\":\"%s\"}}\n", vls, loop, why);
		if (loop) {
			res->ok = 0;
			snprintf(res->first_error, sizeof(res->first_error), "%s", why);
		}
	}
	if (c->qos || c->sl2vl) {
		char why[200];
		int loop = qos_offline_report(&rr->q, c->quiet ? NULL : stdout, c->check,
					      &rr->f, &rr->t, &rr->sl, why, sizeof(why));

		if (loop < 0) {
			log_err("per-VL check could not run: %s", strerror(-loop));
			return EXIT_VERIFY;
		}
		if (loop) {
			res->ok = 0;
			snprintf(res->first_error, sizeof(res->first_error), "%s", why);
		}
	}
	return 0;
}

/* The summary line on stderr. */
static void summary(const struct route_run *rr)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	/* The route time comes last: scripts take the last "N s". */
	fprintf(stderr, "ibsm-route: %u switches, %u CAs; read %.3f s, "
		"lids %.3f s, verify %.3f s (%u threads), peak RSS %.1f MB; "
		"engine %s, route %.3f s\n", rr->f.num_switches, rr->f.num_cas,
		rr->t_read, rr->t_lids, rr->t_verify, rr->res.threads,
		ru.ru_maxrss / 1024.0, rr->engine, rr->route_s);
}

static int run(const struct cli *c0)
{
	struct route_run rr = { .cl = *c0, .engine = "?" };
	const struct cli *c = &rr.cl;
	int rc;

	fab_init(&rr.f);
	rt_prev_init(&rr.pv);
	if ((rc = load_fabric(&rr, c0)) || (rc = rank_order(&rr)))
		goto out;
	if ((rc = rt_make_tables(&rr.f, c, &rr.t, &rr.sl, rr.engine_rank,
				 c->prev_topo ? &rr.pv : NULL, &rr.engine,
				 &rr.route_s)))
		goto out;
	if (c->prev_topo)
		rt_prev_report(&rr.pv, &rr.f, &rr.t, c);
	if ((rc = write_outputs(&rr)) || (rc = verify(&rr)) ||
	    (rc = check_layers(&rr)))
		goto out;
	if (!rr.res.ok)
		log_err("%s: tables from %s fail verification: %s", c->topo,
			rr.engine, rr.res.first_error);
	rc = rr.res.ok ? 0 : EXIT_VERIFY;
	if (!c->quiet)
		summary(&rr);
out:
	free(rr.a2a);
	free(rr.rank);
	path_sl_free(&rr.sl);
	lft_free(&rr.t);
	fab_free(&rr.f);
	rt_prev_free(&rr.pv);
	qos_offline_free(&rr.q);
	return rc;
}
int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int rc;

	log_set_prog("ibsm-route");
	if ((rc = rt_parse_args(argc, argv, &c)))
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
	if (c.engines && (rc = rt_check_engine_names(c.engines)))
		return rc;
	if (!c.topo)
		return qos_only(&c);
	return run(&c);
}

