/* The heavy sweep's route phase (sweep.h): tables for the view just
 * given LIDs, kept from the switches at a takeover or routed in a worker
 * thread while the transport is served. routing/route_select.h decides
 * which engine's tables are taken; this file runs it and says so.
 *
 * The worker sees only a route_job: its inputs are copied from the SM
 * before it starts, and what it chose is written back into the SM by
 * this thread after it ended (route_note). */
#include "sweep.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../../core/cn_rank.h"
#include "../../routing/engine.h"
#include "../../routing/verify.h"
#include "../../routing/route_select.h"
#include "../../routing/cong_rebalance.h"
#include "../program/vl_program.h"
#include "../sm_qos.h"

struct route_job {
	/* in */
	const struct ibsm_config *cfg;  /* routing_engine, cn_order, congestion */
	const struct fabric *f;
	struct route_options ro;
	unsigned vls;                   /* layer budget, for the log */
	/* Hot ports (PerfMgr): read when the tables are verified, as the
	 * samples go on arriving while the worker routes. */
	struct sm_perf *perf;
	/* QoS classes x layers (sm_qos.h), NULL without: the plan is made
	 * in the SM (qos_space_next, qos_said), which nothing else touches
	 * while the worker runs. */
	struct sm *qos;
	/* out */
	struct lft_set *t;
	struct route_choice *c;
	int rc;
	int done;
};

/* Congestion-aware multipath (key congestion_aware): with hot ports
 * measured, move at most congestion_max_moves entries of the verified
 * tables t onto equally short, less loaded ports (routing/cong_rebalance.h)
 * and keep the result only if it verifies complete, loop-free and
 * credit-loop-free; otherwise t stays as the engine made it. */
static void cong_apply(struct route_job *j)
{
	/* The route fabric is the sweep's own (or its held-out copy):
	 * writable; the GUID lookup builds its index lazily. */
	struct fabric *f = (struct fabric *)(uintptr_t)j->f;
	struct lft_set *t = j->t;
	unsigned max_moves = j->cfg->congestion_max_moves;
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct verify_result vr;
	struct cong_stats cs;
	struct lft_set c = { 0 };
	double *load = malloc(((size_t)f->num_ports + 1) * sizeof(*load));
	uint8_t *hot = malloc((size_t)f->num_ports + 1);
	double t0 = now_seconds();

	if (!load || !hot || lft_alloc(&c, t->num_switches, t->max_lid) < 0) {
		log_err("congestion: out of memory: tables left as routed");
		goto out;
	}
	if (!sm_perf_cong_inputs(j->perf, f, load, hot))
		goto out;
	memcpy(c.port, t->port, (size_t)t->num_switches * t->stride);
	if (cong_rebalance(f, &c, load, hot, max_moves, &cs) < 0) {
		log_err("congestion: out of memory: tables left as routed");
		goto out;
	}
	if (!cs.moved) {
		log_info("congestion: %u hot port%s, no equally short port with less load to move to",
			 cs.hot_ports, cs.hot_ports == 1 ? "" : "s");
		goto out;
	}
	if (verify_routes(f, &c, &vo, &vr) < 0 || !verify_usable(&vr) || vr.credit_loop) {
		log_warn("congestion: moving %u entries would fail verification (%s): tables left as routed",
			 cs.moved, vr.credit_loop ? "credit loop" : vr.first_error);
		goto out;
	}
	log_info("congestion: moved %u LFT entries off %u hot port%s (at most %u): highest measured switch-port load %.2f MB/s, estimated %.2f MB/s after; verified, credit-loop-free (%.3f s)",
		 cs.moved, cs.hot_ports, cs.hot_ports == 1 ? "" : "s",
		 max_moves, cs.max_before / 1e6, cs.max_after / 1e6,
		 now_seconds() - t0);
	lft_free(t);
	*t = c;
	memset(&c, 0, sizeof(c));
	/* The memo described the tables as routed, not these. */
	route_memo_free(j->ro.memo_out);
out:
	lft_free(&c);
	free(load);
	free(hot);
}

/* The pairs the tables taken leave unreachable: how many, and the
 * verifier's first few (it keeps up to VERIFY_MAX_ERRORS). */
static void log_unreachable(const struct verify_result *vr)
{
	uint32_t n = vr->num_errors < 3 ? vr->num_errors : 3;

	for (uint32_t i = 0; i < n; i++)
		log_err("  unreachable: %s", vr->errors[i]);
	if (vr->num_errors > n)
		log_err("  ... and more (%llu unreachable pairs, %llu missing entries in all)",
			(unsigned long long)vr->pairs_unreachable,
			(unsigned long long)vr->missing_entries);
}

/* What the tables taken are, and why not the first engine's. */
static void log_choice(const struct route_job *j)
{
	const struct route_choice *c = j->c;
	const char *list = j->cfg->routing_engine;
	const struct verify_result *vr = &c->vr;

	if (c->reason != ROUTE_PASS_NONE && strcmp(c->engine->name, c->preferred))
		log_warn("routing: using %s, not %s (first in \"%s\"): %s (%s)",
			 c->engine->name, c->preferred, list,
			 route_pass_name(c->reason), c->reason_why);
	else if (c->reason != ROUTE_PASS_NONE)
		log_warn("routing: using %s (first in \"%s\") as the last resort: %s (%s)",
			 c->engine->name, list, route_pass_name(c->reason), c->reason_why);
	switch (c->grade) {
	case ROUTE_GRADE_VERIFIED:
		if (c->sl_layers > 1)
			log_info("routed with %s: %llu LIDs, max hops %u, avg hops %.2f, verified, %u SL layers each credit-loop-free (budget %u VLs)",
				 c->engine->name, (unsigned long long)vr->lids_total,
				 vr->max_hops, vr->avg_hops, c->sl_layers, j->vls);
		else
			log_info("routed with %s: %llu LIDs, max hops %u, avg hops %.2f, verified, credit-loop-free",
				 c->engine->name, (unsigned long long)vr->lids_total,
				 vr->max_hops, vr->avg_hops);
		break;
	case ROUTE_GRADE_CREDIT_LOOP:
		log_warn("tables from %s have a credit loop (%s): NOT DEADLOCK-FREE; programming them anyway, no engine of \"%s\" gave verified credit-loop-free tables (a deadlock-free engine, ftree or updn, avoids this)",
			 c->engine->name, c->sl_layers > 1 ? c->layer_why : vr->cdg_cycle,
			 list);
		log_info("routed with %s: %llu LIDs, max hops %u, avg hops %.2f, verified",
			 c->engine->name, (unsigned long long)vr->lids_total,
			 vr->max_hops, vr->avg_hops);
		break;
	default:
		log_err("routing: no engine of \"%s\" routes every pair; programming the best tables there are, from %s (%llu unreachable pairs, %llu missing entries%s) rather than keep tables that may lead into dead links",
			list, c->engine->name,
			(unsigned long long)vr->pairs_unreachable,
			(unsigned long long)vr->missing_entries,
			vr->credit_loop ? ", credit loop" : "");
		log_unreachable(vr);
		break;
	}
}

/* Route and verify. Returns 1 with j->t filled when the tables may be
 * programmed, 0 when no engine gave any (logged), negative errno on
 * failure. */
static int route_and_verify(struct route_job *j)
{
	/* Credit loops are checked with switch-LID routes included: CA to
	 * switch routes (SMPs by LID, PerfMgr, SA to switches) share VL0. */
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	const struct ibsm_config *cfg = j->cfg;
	uint32_t *rank = NULL;
	int rc;

	/* Compute-node rank order (core/cn_rank.h, key cn_order): host-name
	 * order unless a file gives one; "port" keeps port order. A file
	 * that cannot be read was refused at start; if it went away since,
	 * route in host-name order and say so. */
	if (strcmp(cfg->cn_order, "port")) {
		rc = cn_rank_build(j->f, cfg->cn_order, &rank);
		if (rc == -ENOMEM)
			return rc;
		if (rc && cn_rank_build(j->f, NULL, &rank) == 0)
			log_warn("cn_order %s unreadable: routing in host-name order",
				 cfg->cn_order);
	}
	j->ro.cn_rank = rank;
	/* With a QoS policy every class needs its own layer SLs and VLs:
	 * the engine gets the layers per class (sm_qos.h). */
	if (j->qos)
		j->ro.max_vls = (uint8_t)sm_qos_layer_budget(j->qos, j->vls);
	rc = route_select(cfg->routing_engine, j->f, &j->ro, &vo, j->t, j->c);
	j->ro.cn_rank = NULL;
	free(rank);
	if (rc <= 0) {
		if (rc == 0)
			log_err("routing: no engine of \"%s\" gave tables that may be programmed: keeping the old tables",
				cfg->routing_engine);
		return rc;
	}
	/* QoS classes x layers: deadlock freedom per VL once the SL2VL map
	 * is applied, before anything is programmed; a cycle keeps the old
	 * tables (it cannot happen with the plan's map: a VL carries one
	 * layer). */
	if (j->qos && j->ro.sl_out->vls_used > 1) {
		int q = sm_qos_layers_check(j->qos, j->f, j->t, j->ro.sl_out, j->vls);

		if (q)
			return q < 0 ? q : 0;
	}
	log_choice(j);
	if (j->perf->cong_on && j->perf->cong_hot &&
	    j->c->grade == ROUTE_GRADE_VERIFIED && j->c->sl_layers <= 1)
		cong_apply(j);
	return 1;
}

/* Routing is the one long phase of a sweep that sends no MADs (about a
 * second at 11,664 CAs). It runs in a worker thread while this thread
 * keeps polling the transport, so SA queries, SMInfo queries and traps
 * are answered meanwhile (from the last sweep's view: the SA database and
 * the held tables do not change until the sweep ends; the worker only
 * reads them). */
static void *route_worker(void *arg)
{
	struct route_job *j = arg;

	j->rc = route_and_verify(j);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int route_while_serving(struct mad_transport *mt, struct route_job *j)
{
	pthread_t th;

	if (pthread_create(&th, NULL, route_worker, j) != 0)
		return route_and_verify(j);
	while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) {
		/* No SA slice here: one request can take longer than the
		 * routing, and the sweep comes first (docs/sa.md). */
		if (mt_poll(mt, 5) < 0) {
			/* The transport broke: let the routing finish, the
			 * programming that follows will report it. */
			break;
		}
	}
	pthread_join(th, NULL);
	return j->rc;
}

/* How the tables to program were chosen (struct sm's route_* fields). */
static void route_note(struct sm *sm, const char *engine, const char *preferred,
		       uint8_t reason, uint8_t grade)
{
	sm->engine_used = engine;
	snprintf(sm->route_preferred, sizeof(sm->route_preferred), "%s", preferred);
	sm->route_reason = reason;
	sm->route_grade = grade;
}

/* Route the view in a worker; the choice is noted in the SM. */
static int route_view(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	struct route_job j = {
		.cfg = c->cfg,
		.f = c->rf,
		.ro = {
			.lmc = c->cfg->lmc,
			.root_guids = sm->root_guids,
			.num_root_guids = sm->num_root_guids,
			.cn_guids = sm->cn_guids,
			.num_cn_guids = sm->num_cn_guids,
			.prev = sm->held.valid ? &sm->held.lft : NULL,
			.prev_fab = sm->held.valid ? &sm->held.fab : NULL,
			.spare = &sm->spare,
			.memo_out = &sm->memo_next,
			.prev_memo = sm->held.valid ? &sm->held.memo : NULL,
			/* Path SLs for layered engines (dfsp): the budget is
			 * what every link's VLCap allows, at most max_vls.
			 * route_select replaces sl_next with the SLs of the
			 * tables it takes. */
			.sl_out = &sm->sl_next,
			.max_vls = (uint8_t)sm->route_vls,
		},
		.vls = sm->route_vls,
		.perf = &sm->perf,
		.qos = sm_qos_layered(sm) ? sm : NULL,
		.t = &c->nl,
		.c = calloc(1, sizeof(struct route_choice)),
	};
	int rc;

	if (!j.c)
		return -ENOMEM;
	path_sl_free(&sm->sl_next);
	rc = route_while_serving(c->t, &j);
	for (int p = 1; p < ROUTE_PASS_N; p++)
		sm->route_fallbacks[p] += j.c->passed[p];
	if (rc > 0)
		route_note(sm, j.c->engine->name, j.c->preferred,
			   (uint8_t)j.c->reason, (uint8_t)j.c->grade);
	free(j.c);
	return rc;
}

/* Takeover without disruption (issue 10): a new master first reads the
 * tables the switches hold; when they are complete, loop-free and
 * credit-loop-free on one VL (switch-LID routes included) it keeps them
 * instead of routing anew, so a takeover from any SM (OpenSM too) changes
 * no table. 1 with *t filled, 0 to route (logged why), negative errno. */
static int keep_switch_tables(struct mad_transport *mt, const struct subnet *r,
			      struct lft_set *t)
{
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct verify_result *vr = calloc(1, sizeof(*vr));
	struct lftprog_stats st = { 0 };
	int rc;

	if (!vr)
		return -ENOMEM;
	rc = lftprog_read(mt, r, t, &st);
	if (rc < 0) {
		free(vr);
		return rc;
	}
	rc = verify_routes(&r->fab, t, &vo, vr);
	if (rc < 0) {
		lft_free(t);
		free(vr);
		return rc;
	}
	/* Every CA reaches every LID loop-free and no credit loop; a missing
	 * entry is tolerated only for a switch's LID at another switch (up/down
	 * engines, OpenSM's updn among them, leave spine-to-spine unrouted:
	 * no CA route crosses it and switches send LID-routed MADs only to
	 * the SM), and so is a loop among switches for a switch's LID that no
	 * CA route enters; a loop for a CA's LID that only switches enter is
	 * not (a switch's traps to the SM would circle). */
	if (vr->missing_entries != vr->missing_to_switches || vr->bad_port_entries ||
	    vr->misdelivered_entries || vr->pairs_unreachable || vr->pairs_looping ||
	    vr->forwarding_loops != vr->loops_to_switches ||
	    vr->duplicate_lids || vr->endpoints_without_lid || vr->credit_loop) {
		log_info("takeover: the tables the switches hold do not verify (%s; %llu missing entries, %llu unreachable pairs, credit loop %d): routing anew",
			 vr->first_error[0] ? vr->first_error : "credit loop",
			 (unsigned long long)vr->missing_entries,
			 (unsigned long long)vr->pairs_unreachable, vr->credit_loop);
		lft_free(t);
		free(vr);
		return 0;
	}
	log_info("takeover: keeping the tables the switches hold (%llu blocks read; every CA reaches every LID, loop-free, credit-loop-free; max hops %u; %llu switch-to-switch entries unrouted)",
		 (unsigned long long)st.blocks_read, vr->max_hops,
		 (unsigned long long)vr->missing_to_switches);
	free(vr);
	return 1;
}

int sweep_phase_route(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	const struct ibsm_config *cfg = c->cfg;
	int routed = 0;
	double now;

	/* The layers a layered engine may use: what every link's VLCap
	 * allows (port_config sets OperationalVLs to that), at most max_vls. */
	sm->route_vls = vlprog_fabric_vls(&c->nr);
	if (cfg->max_vls && cfg->max_vls < sm->route_vls)
		sm->route_vls = cfg->max_vls;
	c->rf = &c->nr.fab;
	if (sm->hold.n && fab_clone(&c->heldout, &c->nr.fab) == 0) {
		c->have_heldout = 1;
		if (link_hold_apply(&sm->hold, &c->heldout))
			c->rf = &c->heldout;
	}
	/* Only a route of this sweep leaves a memo (tables kept from the
	 * switches have none). */
	route_memo_free(&sm->memo_next);
	if (sm->standby.takeover_at > 0 && !sm->held.valid &&
	    cfg->takeover_keep_tables && !sm->hold.n) {
		routed = keep_switch_tables(c->t, &c->nr, &c->nl);
		if (routed > 0) {
			route_note(sm, "kept (takeover)", "", ROUTE_PASS_NONE,
				   ROUTE_GRADE_VERIFIED);
			path_sl_free(&sm->sl_next);
		}
	}
	if (routed == 0)
		routed = route_view(c);
	sm->route_refused = routed == 0;
	if (routed < 0)
		return routed;
	c->routed = routed;
	now = now_seconds();
	log_info("sweep %u: route %.3f s", c->n, now - c->mark);
	c->mark = now;
	return SWEEP_NEXT;
}
