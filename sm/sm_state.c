/* The SM: lifecycle, sweeps and the loop (the SMInfo / trap responder is
 * sm_responder.c, the state table standby/sm_fsm.h). */
#include "sm_state.h"
#include "sm_sa_state.h"
#include "sm_responder.h"
#include "sm_service.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <infiniband/mad.h>

#include "../core/log.h"
#include "../mad/gmp.h"
#include "../formats/topo_read.h"
#include "../routing/engine.h"
#include "../routing/verify.h"
#include "../routing/route_select.h"
#include "program/lid_manager.h"
#include "program/port_config.h"
#include "observe/sm_metrics.h"
#include "observe/sm_ctl.h"
#include "../core/cn_rank.h"
#include "observe/sm_heat.h"
#include "program/vl_program.h"
#include "../routing/path_sl.h"
#include "sm_qos.h"
#include "../routing/cong_rebalance.h"

/* --- lifecycle -------------------------------------------------------- */

/* What the SA says about us (SMInfoRecord). */
static void sa_identity(struct sm *sm)
{
	struct sa_sm_identity *id = &sm->sa.ctx.sm;

	id->guid = sm->guid;
	id->sm_key = sm->cfg->sm_key;
	id->act_count = SM_ACT_COUNT(sm);
	id->lid = sm->lid;
	id->priority = sm->cfg->sm_priority;
	id->state = sm->state;
}

static int sa_preempted(void *arg);

/* Inside a long SA answer: traps and SMInfo queries that arrived are
 * handled (at most every 5 ms; SA work waits, mt_yield). A sweep due
 * then (a trap came) stops the answer: it is Busy, the sweep runs. */
static int sa_yield(void *arg)
{
	struct sm *sm = arg;
	double now = now_seconds();

	if (now - sm->sa_yielded < 0.005)
		return 0;
	sm->sa_yielded = now;
	if (mt_yield(sm->t) < 0)
		log_warn("SA: MAD transport failed while yielding");
	return sa_preempted(sm);
}

/* The per-port quotas as configured now (live: SIGHUP, then a sweep). */
static void sa_quotas(struct sm *sm)
{
	struct sa_quota *q = &sm->sa.ctx.quota;

	q->max[SA_QUOTA_SERVICES] = sm->cfg->sa_max_services_per_port;
	q->max[SA_QUOTA_MCAST_GROUPS] = sm->cfg->mcast_max_groups_per_port;
	q->max[SA_QUOTA_MCAST_JOINS] = sm->cfg->mcast_max_joins_per_port;
}

/* A port is in the fabric while this sweep found it: a switch's port 0
 * with its switch, a CA port while linked (as for multicast members,
 * sm_multicast.c). */
static bool port_present(void *arg, uint64_t guid)
{
	const struct sa_db *db = arg;
	const struct fabric *f = &db->r->fab;
	uint32_t p = sa_db_port_of_guid(db, guid);

	return p != FAB_NONE &&
	       (fab_is_switch(f, f->ports[p].node) || f->ports[p].peer != FAB_NONE);
}

/* ServiceRecords go with the port that registered them: a host that left
 * (this sweep no longer sees its port) cannot renew or delete them, and
 * with infinite leases they would hold their slots for good. */
static void sa_drop_orphans(struct sm *sm, unsigned n)
{
	struct sa_ctx *c = &sm->sa.ctx;
	uint32_t gone = sa_service_drop_orphans(&c->services, port_present, &c->db);

	if (!gone)
		return;
	c->quota.services_owner_gone += gone;
	log_info("sweep %u: %u ServiceRecord%s dropped: the ports that registered them left the fabric",
		 n, gone, gone == 1 ? "" : "s");
}

int sm_init(struct sm *sm, const struct ibsm_config *cfg,
	    struct mad_transport *t)
{
	memset(sm, 0, sizeof(*sm));
	sm->cfg = cfg;
	sm->t = t;
	sm->ctl_fd = -1;        /* sm_free closes it: not stdin on an early failure */
	sm_set_state(sm, SMEV_START, NULL);     /* NOTACTIVE -> DISCOVERING */
	sm->guid = mt_port_guid(t);
	subnet_init(&sm->cur);
	lft_held_init(&sm->held);
	if (config_guid2lid_path(cfg, sm->guid2lid, sizeof(sm->guid2lid)) < 0 ||
	    config_dump_path(cfg, sm->dump_dir, sizeof(sm->dump_dir)) < 0)
		return -ENAMETOOLONG;
	sweep_guard_init(&sm->guard, cfg->missing_grace_s);
	unreach_init(&sm->unreach);
	sm->retries = cfg->mad_retries;
	sa_server_init(&sm->sa, t);
	sa_server_rmpp_timers(&sm->sa, cfg->sa_rmpp_timeout_ms / 1000.0,
			      cfg->sa_rmpp_retries);
	sa_quotas(sm);
	{
		int rc = sm_mcast_init(&sm->mcast, cfg->mcast_groups, cfg->partitions);

		if (rc < 0)
			return rc;
	}
	part_tables_init(&sm->parts);
	pkeyprog_cache_init(&sm->pkeys);
	sm_sa_state_load(sm);
	sm->sa.ctx.parts = &sm->parts;
	sm->sa.ctx.mcast = &sm->mcast.db;
	sm->sa.ctx.mft = &sm->mcast.held;
	sm->sa.ctx.packet_life_time = cfg->packet_life_time;
	sl2vl_reader_init(&sm->sl2vl_rd, &sm->sa.ctx.sl2vl,
			  cfg->sa_enabled && cfg->sl2vl_read ? cfg->sl2vl_read_rate : 0,
			  cfg->sl2vl_read_all);
	/* VLArb blocks for the SA: read as SL2VL tables are, by the same keys. */
	sl2vl_reader_init(&sm->vlarb_rd, &sm->sa.ctx.vlarb,
			  cfg->sa_enabled && cfg->sl2vl_read ? cfg->sl2vl_read_rate : 0,
			  cfg->sl2vl_read_all);
	sm->sa.ctx.subnet_timeout = cfg->subnet_timeout;
	sa_identity(sm);
	link_hold_init(&sm->hold);
	link_hold_init(&sm->down);
	link_hold_init(&sm->wake);
	sm_flap_init(&sm->flap, cfg);
	trap_damp_init(&sm->damp);
	if (sm_perf_init(&sm->perf, cfg, t, &sm->hold, &sm->down, &sm->wake) < 0 ||
	    sm_metrics_start(sm) < 0 || sm_ctl_start(sm) < 0)
		return -EINVAL;
	mt_set_request_handler(t, sm_on_request, sm);
	mt_set_long_request_handler(t, sm_on_long_request, sm);
	/* Fault handling first (docs/sa.md "Scheduling"): SA requests wait
	 * in a bounded queue for slices of the loop, Reports in their own
	 * behind the SMPs, RMPP answers within a memory budget. */
	sm->sa.yield = sa_yield;
	sm->sa.yield_arg = sm;
	sm->sa.rmpp_budget = (size_t)cfg->sa_rmpp_budget_mb << 20;
	sm->sa.rmpp_per_requester = (size_t)cfg->sa_rmpp_requester_mb << 20;
	if (mt_set_deferral(t, cfg->sa_enabled ? cfg->sa_queue : 0,
			    cfg->sa_queue_per_requester) < 0 ||
	    mt_set_low_queue(t, cfg->report_queue, mt_window(t) / 8,
			     cfg->report_timeout_ms, cfg->report_retries) < 0) {
		log_err("no memory for the SA and Report queues");
		return -ENOMEM;
	}
	return 0;
}

/* A sweep that is due ends a slice of SA work. */
static int sa_preempted(void *arg)
{
	struct sm *sm = arg;

	return sm->heavy_wanted && now_seconds() >= sm->next_heavy_at;
}

/* One slice of SA work: at most sa_slice_requests requests and
 * sa_slice_ms, fewer if a trap makes a sweep due meanwhile (traps and
 * SMInfo are handled between two requests, in mt_serve_deferred). */
int sm_sa_slice(struct sm *sm, double max_s)
{
	const struct ibsm_config *cfg = sm->cfg;
	double slice = cfg->sa_slice_ms / 1000.0;

	if (!mt_deferred(sm->t))
		return 0;
	if (max_s < slice)
		slice = max_s;
	return mt_serve_deferred(sm->t, cfg->sa_slice_requests,
				 now_seconds() + slice, sa_preempted, sm);
}

void sm_free(struct sm *sm)
{
	mt_set_request_handler(sm->t, NULL, NULL);
	mt_set_long_request_handler(sm->t, NULL, NULL);
	sl2vl_reader_free(&sm->sl2vl_rd);
	sl2vl_reader_free(&sm->vlarb_rd);
	sa_server_free(&sm->sa);
	sm_report_free(&sm->report);
	sm_standby_free(&sm->standby);
	path_sl_free(&sm->sl);
	path_sl_free(&sm->sl_next);
	sm_qos_free(sm);
	sm_mcast_free(&sm->mcast);
	part_tables_free(&sm->parts);
	pkeyprog_cache_free(&sm->pkeys);
	subnet_free(&sm->cur);
	unreach_free(&sm->unreach);
	lft_free(&sm->spare);
	route_memo_free(&sm->memo_next);
	lft_held_free(&sm->held);
	sm_ctl_stop(sm);
	sm_metrics_stop(sm);
	sm_perf_free(&sm->perf);
	sm_flap_free(&sm->flap);
	trap_damp_free(&sm->damp);
	link_hold_free(&sm->hold);
	link_hold_free(&sm->down);
	link_hold_free(&sm->wake);
	free(sm->root_guids);
	free(sm->cn_guids);
	memset(sm, 0, sizeof(*sm));
}

/* --- heavy sweep -------------------------------------------------------- */

static uint32_t count_links(const struct fabric *f)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < f->num_ports; p++)
		if (f->ports[p].peer != FAB_NONE && f->ports[p].peer > p)
			n++;
	return n;
}

/* Congestion-aware multipath (key congestion_aware): with hot ports
 * measured, move at most congestion_max_moves entries of the verified
 * tables t onto equally short, less loaded ports (routing/cong_rebalance.h)
 * and keep the result only if it verifies complete, loop-free and
 * credit-loop-free; otherwise t stays as the engine made it. */
static void cong_apply(struct sm *sm, const struct fabric *fc, struct lft_set *t)
{
	/* The route fabric is the sweep's own (or its held-out copy):
	 * writable; the GUID lookup builds its index lazily. */
	struct fabric *f = (struct fabric *)(uintptr_t)fc;
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
	if (!sm_perf_cong_inputs(&sm->perf, f, load, hot))
		goto out;
	memcpy(c.port, t->port, (size_t)t->num_switches * t->stride);
	if (cong_rebalance(f, &c, load, hot, sm->cfg->congestion_max_moves, &cs) < 0) {
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
		 sm->cfg->congestion_max_moves, cs.max_before / 1e6,
		 cs.max_after / 1e6, now_seconds() - t0);
	lft_free(t);
	*t = c;
	memset(&c, 0, sizeof(c));
	/* The memo described the tables as routed, not these. */
	route_memo_free(&sm->memo_next);
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

/* Route and verify (routing/route_select.h decides which engine's tables
 * are taken). Returns 1 with t filled when the tables may be programmed,
 * 0 when no engine gave any (logged), negative errno on failure. */
static int route_and_verify(struct sm *sm, const struct fabric *f,
			    struct lft_set *t)
{
	struct route_options ro = {
		.lmc = sm->cfg->lmc,
		.root_guids = sm->root_guids,
		.num_root_guids = sm->num_root_guids,
		.cn_guids = sm->cn_guids,
		.num_cn_guids = sm->num_cn_guids,
		.prev = sm->held.valid ? &sm->held.lft : NULL,
		.prev_fab = sm->held.valid ? &sm->held.fab : NULL,
		.spare = &sm->spare,
		.memo_out = &sm->memo_next,
		.prev_memo = sm->held.valid ? &sm->held.memo : NULL,
	};
	/* Credit loops are checked with switch-LID routes included: CA to
	 * switch routes (SMPs by LID, PerfMgr, SA to switches) share VL0. */
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct route_choice *c = calloc(1, sizeof(*c));
	uint32_t *rank = NULL;
	int rc;

	if (!c)
		return -ENOMEM;
	/* Compute-node rank order (core/cn_rank.h, key cn_order): host-name
	 * order unless a file gives one; "port" keeps port order. A file
	 * that cannot be read was refused at start; if it went away since,
	 * route in host-name order and say so. */
	if (strcmp(sm->cfg->cn_order, "port")) {
		rc = cn_rank_build(f, sm->cfg->cn_order, &rank);
		if (rc == -ENOMEM) {
			free(c);
			return rc;
		}
		if (rc && cn_rank_build(f, NULL, &rank) == 0)
			log_warn("cn_order %s unreadable: routing in host-name order",
				 sm->cfg->cn_order);
	}
	ro.cn_rank = rank;
	/* Path SLs for layered engines (dfsp): the budget is what every
	 * link's VLCap allows, at most max_vls. route_select replaces
	 * sl_next with the SLs of the tables it takes. */
	path_sl_free(&sm->sl_next);
	ro.sl_out = &sm->sl_next;
	ro.max_vls = (uint8_t)sm->route_vls;
	/* With a QoS policy every class needs its own layer SLs and VLs:
	 * the engine gets the layers per class (sm_qos.h). */
	if (sm_qos_layered(sm))
		ro.max_vls = (uint8_t)sm_qos_layer_budget(sm, sm->route_vls);
	rc = route_select(sm->cfg->routing_engine, f, &ro, &vo, t, c);
	free(rank);
	for (int p = 1; p < ROUTE_PASS_N; p++)
		sm->route_fallbacks[p] += c->passed[p];
	if (rc <= 0) {
		if (rc == 0)
			log_err("routing: no engine of \"%s\" gave tables that may be programmed: keeping the old tables",
				sm->cfg->routing_engine);
		free(c);
		return rc;
	}
	/* QoS classes x layers: deadlock freedom per VL once the SL2VL map
	 * is applied, before anything is programmed; a cycle keeps the old
	 * tables (it cannot happen with the plan's map: a VL carries one
	 * layer). */
	if (sm_qos_layered(sm) && sm->sl_next.vls_used > 1) {
		int q = sm_qos_layers_check(sm, f, t, &sm->sl_next, sm->route_vls);

		if (q) {
			free(c);
			return q < 0 ? q : 0;
		}
	}
	sm->engine_used = c->engine->name;
	snprintf(sm->route_preferred, sizeof(sm->route_preferred), "%s", c->preferred);
	sm->route_reason = (uint8_t)c->reason;
	sm->route_grade = (uint8_t)c->grade;
	if (c->reason != ROUTE_PASS_NONE && strcmp(c->engine->name, c->preferred))
		log_warn("routing: using %s, not %s (first in \"%s\"): %s (%s)",
			 c->engine->name, c->preferred, sm->cfg->routing_engine,
			 route_pass_name(c->reason), c->reason_why);
	else if (c->reason != ROUTE_PASS_NONE)
		log_warn("routing: using %s (first in \"%s\") as the last resort: %s (%s)",
			 c->engine->name, sm->cfg->routing_engine,
			 route_pass_name(c->reason), c->reason_why);
	const struct verify_result *vr = &c->vr;
	switch (c->grade) {
	case ROUTE_GRADE_VERIFIED:
		if (c->sl_layers > 1)
			log_info("routed with %s: %llu LIDs, max hops %u, avg hops %.2f, verified, %u SL layers each credit-loop-free (budget %u VLs)",
				 c->engine->name, (unsigned long long)vr->lids_total,
				 vr->max_hops, vr->avg_hops, c->sl_layers, sm->route_vls);
		else
			log_info("routed with %s: %llu LIDs, max hops %u, avg hops %.2f, verified, credit-loop-free",
				 c->engine->name, (unsigned long long)vr->lids_total,
				 vr->max_hops, vr->avg_hops);
		break;
	case ROUTE_GRADE_CREDIT_LOOP:
		log_warn("tables from %s have a credit loop (%s): NOT DEADLOCK-FREE; programming them anyway, no engine of \"%s\" gave verified credit-loop-free tables (a deadlock-free engine, ftree or updn, avoids this)",
			 c->engine->name, c->sl_layers > 1 ? c->layer_why : vr->cdg_cycle,
			 sm->cfg->routing_engine);
		log_info("routed with %s: %llu LIDs, max hops %u, avg hops %.2f, verified",
			 c->engine->name, (unsigned long long)vr->lids_total,
			 vr->max_hops, vr->avg_hops);
		break;
	default:
		log_err("routing: no engine of \"%s\" routes every pair; programming the best tables there are, from %s (%llu unreachable pairs, %llu missing entries%s) rather than keep tables that may lead into dead links",
			sm->cfg->routing_engine, c->engine->name,
			(unsigned long long)vr->pairs_unreachable,
			(unsigned long long)vr->missing_entries,
			vr->credit_loop ? ", credit loop" : "");
		log_unreachable(vr);
		break;
	}
	if (sm->perf.cong_on && sm->perf.cong_hot && c->grade == ROUTE_GRADE_VERIFIED &&
	    c->sl_layers <= 1)
		cong_apply(sm, f, t);
	free(c);
	return 1;
}

/* Takeover without disruption (issue 10): a new master first reads the
 * tables the switches hold; when they are complete, loop-free and
 * credit-loop-free on one VL (switch-LID routes included) it keeps them
 * instead of routing anew, so a takeover from any SM (OpenSM too) changes
 * no table. 1 with *t filled, 0 to route (logged why), negative errno. */
static int keep_switch_tables(struct sm *sm, const struct subnet *r,
			      struct lft_set *t)
{
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct verify_result *vr = calloc(1, sizeof(*vr));
	struct lftprog_stats st = { 0 };
	int rc;

	if (!vr)
		return -ENOMEM;
	rc = lftprog_read(sm->t, r, t, &st);
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
	sm->engine_used = "kept (takeover)";
	sm->route_preferred[0] = 0;
	sm->route_reason = ROUTE_PASS_NONE;
	sm->route_grade = ROUTE_GRADE_VERIFIED;
	free(vr);
	path_sl_free(&sm->sl_next);
	return 1;
}

/* Routing is the one long phase of a sweep that sends no MADs (about a
 * second at 11,664 CAs). It runs in a worker thread while this thread
 * keeps polling the transport, so SA queries, SMInfo queries and traps
 * are answered meanwhile (from the last sweep's view: the SA database and
 * the held tables do not change until the sweep ends; the worker only
 * reads them). */
struct route_job {
	struct sm *sm;
	const struct fabric *f;
	struct lft_set *t;
	int rc;
	int done;
};

static void *route_worker(void *arg)
{
	struct route_job *j = arg;

	j->rc = route_and_verify(j->sm, j->f, j->t);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int route_while_serving(struct sm *sm, const struct fabric *f,
			       struct lft_set *t)
{
	struct route_job j = { sm, f, t, 0, 0 };
	pthread_t th;

	if (pthread_create(&th, NULL, route_worker, &j) != 0)
		return route_and_verify(sm, f, t);
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE)) {
		/* No SA slice here: one request can take longer than the
		 * routing, and the sweep comes first (docs/sa.md). */
		if (mt_poll(sm->t, 5) < 0) {
			/* The transport broke: let the routing finish, the
			 * programming that follows will report it. */
			break;
		}
	}
	pthread_join(th, NULL);
	return j.rc;
}

/* QoS on without layered routes: SL2VL and VLArb from the qos_* keys on
 * every port type (sm/program/vl_program.h), before the LFTs, as the layers'. */
static int program_qos_tables(struct sm *sm, const struct subnet *r,
			      unsigned n)
{
	const struct ibsm_config *cfg = sm->cfg;
	struct vlprog_qos q;
	struct vlprog_stats vs = { 0 };
	double t0 = now_seconds();
	int rc;

	vlprog_qos_init(&q, cfg->qos_vl);
	rc = vlprog_program_qos(sm->t, r, &q,
				cfg->sa_enabled ? &sm->sa.ctx.sl2vl : NULL,
				cfg->sa_enabled ? &sm->sa.ctx.vlarb : NULL, &vs);
	if (rc < 0)
		return rc;
	log_info("sweep %u: QoS tables: SL2VL/VLArb %llu written, %llu unchanged, %llu read, %u failed (%.3f s)",
		 n, (unsigned long long)vs.written, (unsigned long long)vs.unchanged,
		 (unsigned long long)vs.read, vs.failed, now_seconds() - t0);
	if (vs.failed) {
		/* A table that did not take: try again at the next sweep. */
		log_warn("sweep %u: %u SL2VL/VLArb MADs failed: QoS tables again next sweep",
			 n, vs.failed);
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now_seconds() + 1.0;
	}
	return 0;
}

int sm_heavy_sweep(struct sm *sm)
{
	const struct ibsm_config *cfg = sm->cfg;
	struct subnet nr;
	struct lft_set nl = { 0 };
	struct portcfg_stats ps = { 0 };
	struct lftprog_stats ls = { 0 };
	struct part_tables npt;
	struct mt_stats s0 = *mt_get_stats(sm->t), ds;
	uint8_t *sw_ok = NULL;
	double t0 = now_seconds(), t1, t2, t3, t4, t5;
	int rc, changed, routed = 0, up = 0;
	uint32_t n = ++sm->sweeps;
	/* Engines route on a copy without the held-out links; the tables
	 * are held with that copy, so the next route's previous fabric is
	 * the one they were computed on (a link given back is then a link
	 * gained, which ftree's repair must not take for no change). */
	struct fabric heldout;
	const struct fabric *rf = NULL;
	int have_heldout = 0;

	sm->heavy_wanted = 0;
	sm->act_count++;
	sm->sweep_mads0 = s0.sent;
	if (sm->state != SMP_SM_MASTER) {
		sm->rereg_done = 0;     /* not master now: rereg when we become it */
		sm->rereg_tries = 0;
	}
	subnet_init(&nr);
	part_tables_init(&npt);

	{
		/* The P_Key tables the SM may program are read in the
		 * discovery window (sm/program/pkey_prefetch.h). */
		struct sweep_hook hook;

		pkeyprog_discovery_hook(&sm->pkeys, &hook);
		rc = sweep_discover_hooked(sm->t, &nr, &hook);
	}
	if (rc < 0)
		goto out;
	t1 = now_seconds();
	log_info("sweep %u: discovered %u nodes (%u switches, %u CAs, %u routers), %u links in %.3f s%s",
		 n, nr.fab.num_nodes, nr.fab.num_switches, nr.fab.num_cas,
		 nr.fab.num_routers, count_links(&nr.fab), t1 - t0,
		 nr.lost_probes || nr.lost_attrs ? " (some nodes did not answer)" : "");
	if (nr.redone)
		log_info("sweep %u: loss: %u request%s failed every try and %s asked again in %u round%s; %u still unanswered",
			 n, nr.redone, nr.redone == 1 ? "" : "s",
			 nr.redone == 1 ? "was" : "were",
			 nr.redo_rounds, nr.redo_rounds == 1 ? "" : "s",
			 nr.lost_probes + nr.lost_attrs);

	/* A view that lost answers, or shows less than the programmed one
	 * without a trap to say why, is not programmed (sm/health/sweep_guard.h). */
	{
		char why[256];
		enum sweep_verdict v = sweep_guard_judge(&sm->guard, &nr,
							 now_seconds(), why,
							 sizeof(why));

		/* Loss seen: more tries per MAD from now on; a whole
		 * sweep brings them back to the configured number. The
		 * same requests lost sweep after sweep, and nothing else
		 * failed even once, is a silent node, not loss: more tries
		 * would only make each sweep wait longer for it. */
		uint32_t lost = nr.lost_probes + nr.lost_attrs;
		int lossy = lost > sm->guard.silent_again ||
			    nr.redone > (uint64_t)lost * nr.redo_rounds;

		if (lossy) {
			/* Enough tries that a MAD fails all of them with
			 * p < 0.1% at the loss this discovery saw (75% lost
			 * tries -> 24), at least double the last count. */
			double loss = mt_stats_loss(&s0, mt_get_stats(sm->t));
			unsigned r = sm->retries < 4 ? 4 : sm->retries * 2;

			if (loss > 0.01 && loss < 0.99) {
				unsigned need = (unsigned)ceil(log(1e-3) / log(loss));

				if (need > r + 1)
					r = need - 1;
			}
			sm->retries = r > 31 ? 31 : r;
		} else {
			sm->retries = cfg->mad_retries;
		}
		mt_set_retries(sm->t, sm->retries);
		if (v != SWEEP_PROGRAM && v != SWEEP_PROGRAM_UNREACHABLE) {
			double wait = sweep_guard_backoff(&sm->guard);

			log_warn("sweep %u: %s: keeping the programmed tables and LIDs; sweeping again in %.1f s with %u retries per MAD",
				 n, why, wait, sm->retries);
			sm->heavy_wanted = 1;
			sm->next_heavy_at = now_seconds() + wait;
			rc = 1;
			goto out;
		}
		if (why[0])
			log_warn("sweep %u: %s", n, why);
		/* Silent nodes: the rest is programmed; they are named,
		 * cut off if half seen, and swept for again. */
		if (v == SWEEP_PROGRAM_UNREACHABLE &&
		    unreach_update(&sm->unreach, &nr, sm->cur.fab.num_nodes ?
				   &sm->cur : NULL, &sm->guard) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		if (v == SWEEP_PROGRAM)
			unreach_clear(&sm->unreach, &nr);
	}

	/* Other SMs (IBA 14.4): follow a master, or a better SM, as
	 * STANDBY and program nothing; a master yields only to a better
	 * master, so two never program at once. */
	{
		const struct sm_peer *lead;

		if (sm_standby_discover(sm, &nr) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		lead = sm_standby_elect(sm, sm->state == SMP_SM_MASTER);
		if (!lead && sm->state == SMP_SM_MASTER)
			sm_standby_handover(sm, &nr);
		if (lead) {
			sm->standby.rechecks = 0;
			if (sm->state == SMP_SM_MASTER)
				log_warn("sweep %u: a better master SM 0x%016llx (priority %u) is here: stepping down",
					 n, (unsigned long long)lead->guid, lead->priority);
			sm_standby_enter(sm, lead);
			rc = SM_SWEEP_STANDBY;
			goto out;
		}
	}

	/* A control obeyed while this sweep ran (the ACKNOWLEDGE of our
	 * HANDOVER) made us STANDBY: program nothing, and do not end MASTER. */
	if (sm->state == SMP_SM_STANDBY || sm->state == SMP_SM_NOTACTIVE) {
		log_info("sweep %u: %s by an SMInfo control during the sweep: programming nothing",
			 n, smctl_state_str(sm->state));
		rc = SM_SWEEP_STANDBY;
		goto out;
	}
	{
		int save_failed = 0;

		changed = lidmgr_assign(&nr.fab, cfg->lmc, sm->guid2lid, &save_failed);
		if (changed >= 0 && sm->guid2lid[0])
			sm_persist_note(sm, SM_PERSIST_GUID2LID, !save_failed);
	}
	if (changed < 0) {
		rc = changed;
		goto out;
	}
	sm->lid = (uint16_t)nr.fab.ports[nr.sm_port].lid;
	t2 = now_seconds();
	log_info("sweep %u: LIDs: %d changed, top LID %u, SM LID %u (%.3f s)", n,
		 changed, fab_max_lid(&nr.fab), sm->lid, t2 - t1);

	/* The layers a layered engine may use: what every link's VLCap
	 * allows (port_config sets OperationalVLs to that), at most max_vls. */
	sm->route_vls = vlprog_fabric_vls(&nr);
	if (cfg->max_vls && cfg->max_vls < sm->route_vls)
		sm->route_vls = cfg->max_vls;
	rf = &nr.fab;
	if (sm->hold.n && fab_clone(&heldout, &nr.fab) == 0) {
		have_heldout = 1;
		if (link_hold_apply(&sm->hold, &heldout))
			rf = &heldout;
	}
	routed = 0;
	/* Only a route of this sweep leaves a memo (tables kept from the
	 * switches have none). */
	route_memo_free(&sm->memo_next);
	if (sm->standby.takeover_at > 0 && !sm->held.valid &&
	    cfg->takeover_keep_tables && !sm->hold.n)
		routed = keep_switch_tables(sm, &nr, &nl);
	if (routed == 0)
		routed = route_while_serving(sm, rf, &nl);
	sm->route_refused = routed == 0;
	if (routed < 0) {
		rc = routed;
		goto out;
	}
	t3 = now_seconds();
	log_info("sweep %u: route %.3f s", n, t3 - t2);

	struct portcfg_opts po = {
		.gid_prefix = cfg->subnet_prefix,
		.sm_lid = sm->lid,
		.subnet_timeout = cfg->subnet_timeout,
		.m_key = cfg->m_key,
		.mkey_prot = (uint8_t)cfg->m_key_protect_bits,
		.mkey_lease = (uint16_t)cfg->m_key_lease_period,
		.mkey_not_kept = &sm->mkey_not_kept,
		.down = &sm->down,
		.wake = &sm->wake,
		/* IBA 14.4.11: the first sweep as master (at start, after a
		 * takeover or a handover) asks every end port's clients to
		 * re-register; until one such sweep reached every port. */
		.client_rereg = cfg->client_reregister && !sm->rereg_done,
		.set_timers = 1,
		.hoq_life = cfg->hoq_life,
		.leaf_hoq_life = cfg->leaf_hoq_life,
		.vl_stall = cfg->vl_stall,
		.leaf_vl_stall = cfg->leaf_vl_stall,
	};
	uint8_t vl_high_limit[QOS_PT_NUM];

	if (cfg->qos) {
		for (unsigned t = 0; t < QOS_PT_NUM; t++) {
			struct qos_vl_table tb;

			qos_vl_build(&tb, cfg->qos_vl, (enum qos_port_type)t);
			vl_high_limit[t] = tb.high_limit;
		}
		po.vl_high_limit = vl_high_limit;
		po.vl_high_limit_not_kept = &sm->vl_high_limit_not_kept;
	}
	rc = portcfg_configure(sm->t, &nr, &po, &ps);
	if (rc < 0)
		goto out;
	if (po.client_rereg) {
		/* Sets lost to MAD loss: again next sweep, three times at
		 * most (a port that never answers must not make every host
		 * re-register on every sweep). */
		sm->rereg_done = !ps.failed || ++sm->rereg_tries >= 3;
		log_info("sweep %u: ClientReregister set on %u end ports (first sweep as master; %u advertise IsClientReregistrationSupported)%s",
			 n, ps.rereg, ps.rereg_capable,
			 sm->rereg_done ? "" : "; some Sets failed: again next sweep");
	}
	/* The SA's SL2VL tables follow this view of the fabric (by GUID):
	 * before programming, so the tables written below are kept. */
	if (cfg->sa_enabled) {
		struct sa_sl2vl_cache *tc[] = { &sm->sa.ctx.sl2vl, &sm->sa.ctx.vlarb };

		for (unsigned k = 0; k < 2; k++) {
			int dropped = sa_sl2vl_sweep(tc[k], &nr);

			if (dropped < 0)
				log_err("sweep %u: SA %s tables: out of memory", n,
					sa_tbl_name(tc[k]));
			else if (dropped)
				log_info("sweep %u: SA %s tables: %d dropped (their ports changed), %llu to read",
					 n, sa_tbl_name(tc[k]), dropped,
					 (unsigned long long)tc[k]->wanted);
		}
	}
	/* Partitions (IBA 10.9): P_Key tables before any port goes ACTIVE,
	 * as OpenSM's partition manager does. */
	{
		struct part_build_stats pb;
		struct pkeyprog_stats ks = { 0 };
		double tk = now_seconds();

		rc = part_tables_build(&npt, cfg->partitions, &nr, &pb);
		if (rc < 0)
			goto out;
		if (pb.dropped || pb.enforce_off_full || pb.unknown_guids)
			log_warn("sweep %u: partitions: %u P_Key entries past a port's PartitionCap dropped, %u switch ports without enforcement (table too large), %u configured GUIDs not in the fabric",
				 n, pb.dropped, pb.enforce_off_full, pb.unknown_guids);
		rc = pkeyprog_program(sm->t, &nr, &npt, &sm->pkeys, &ks);
		if (rc < 0)
			goto out;
		log_info("sweep %u: P_Keys: %u ports, %u switch ports facing end ports without a table (their switch cannot enforce); P_KeyTable blocks %llu written, %llu unchanged, %llu read (%llu in the discovery window); enforcement %u set; %u failed (%.3f s)",
			 n, ks.ports, pb.enforce_no_cap, (unsigned long long)ks.written,
			 (unsigned long long)ks.unchanged, (unsigned long long)ks.read,
			 (unsigned long long)ks.read_early, ks.enforce_set, ks.failed,
			 now_seconds() - tk);
	}
	if (routed && sm->sl_next.vls_used > 1) {
		/* SL n on VL n before any table that uses SL n is in place
		 * (old single-layer routes use SL 0, which stays on VL 0). */
		struct vlprog_stats vs = { 0 };
		/* qoslayer28: QoS classes x layers, each (class, layer) SL on
		 * its VL (sm_qos_layers_check planned and checked the map). */
		const struct qos_sl_space *qs = sm_qos_layered(sm) ? &sm->qos_space_next : NULL;

		rc = vlprog_program_map(sm->t, &nr, qs ? qs->vls : sm->sl_next.vls_used,
					qs ? qs->sl2vl : NULL,
					cfg->sa_enabled ? &sm->sa.ctx.sl2vl : NULL,
					cfg->sa_enabled ? &sm->sa.ctx.vlarb : NULL, &vs);
		if (rc < 0)
			goto out;
		log_info("sweep %u: VLs: %u layers; SL2VL/VLArb tables %llu written, %llu unchanged, %llu read, %u failed",
			 n, sm->sl_next.vls_used, (unsigned long long)vs.written,
			 (unsigned long long)vs.unchanged, (unsigned long long)vs.read,
			 vs.failed);
		if (vs.failed) {
			log_err("sweep %u: %u SL2VL/VLArb MADs failed: layered tables not programmed this sweep (a layer without its VL could deadlock)", n, vs.failed);
			routed = 0;
			sm->heavy_wanted = 1;
			sm->next_heavy_at = now_seconds() + 1.0;
		}
	}
	if (routed && cfg->qos && sm->sl_next.vls_used <= 1) {
		rc = program_qos_tables(sm, &nr, n);
		if (rc < 0)
			goto out;
	}
	/* (with layers, QoS classes x layers went into the map above:
	 * sm_qos_layered, qos/qos_sl_space.h) */
	if (routed) {
		sw_ok = calloc(nr.fab.num_switches + 1, 1);
		if (!sw_ok) {
			rc = -ENOMEM;
			goto out;
		}
		rc = lftprog_program(sm->t, &nr, &nl, &sm->held, sw_ok,
				     cfg->packet_life_time > 31 ? 31 : cfg->packet_life_time,
				     &ls);
		if (rc < 0)
			goto out;
		/* The path SLs the SA answers are now the tables'. */
		path_sl_free(&sm->sl);
		sm->sl = sm->sl_next;
		memset(&sm->sl_next, 0, sizeof(sm->sl_next));
		sm->sa.ctx.path_sl = sm->sl.vls_used > 1 ? path_sl_hook : NULL;
		sm->sa.ctx.path_sl_arg = &sm->sl;
		/* ... and with QoS, class base + layer (sm_qos.h). */
		sm->qos_space = sm->qos_space_next;
		sm->sa.ctx.sl_space = sm->sa.ctx.path_sl && sm_qos_layered(sm) ?
			&sm->qos_space : NULL;
	}
	t4 = now_seconds();
	log_info("sweep %u: program %.3f s: PortInfo %u set, %u unchanged, %u failed; LFT blocks %llu written, %llu unchanged, %llu read back; SwitchInfo %u set; %u switches failed",
		 n, t4 - t3, ps.sets, ps.unchanged, ps.failed,
		 (unsigned long long)ls.blocks_written,
		 (unsigned long long)ls.blocks_unchanged,
		 (unsigned long long)ls.blocks_read, ls.swinfo_sets,
		 ls.switches_failed);
	if (ps.timer_ports || ls.life_time_sets)
		log_info("sweep %u: timers: HOQLife/VLStallCount set on %u switch ports, LifeTimeValue on %u switches",
			 n, ps.timer_ports, ls.life_time_sets);

	if (routed) {
		rc = portcfg_activate(sm->t, &nr, &po, &ps);
		if (rc >= 0)
			rc = portcfg_disable(sm->t, &nr, &po, &ps);
		if (rc < 0)
			goto out;
	}
	t5 = now_seconds();
	log_info("sweep %u: activate %.3f s: %u ports ACTIVE, %u not", n, t5 - t4,
		 ps.active, ps.not_active);
	if (ps.disabled)
		log_info("sweep %u: %u link end%s taken down by the disable action", n,
			 ps.disabled, ps.disabled == 1 ? "" : "s");

	up = routed && !ps.failed && !ps.not_active && !ls.switches_failed &&
	     (!nr.lost_probes || sm->unreach.n) && !nr.dup_guids;
	sm->dup_guids = nr.dup_guids;
	if (nr.dup_guids)
		log_err("sweep %u: %u duplicate GUID%s (named above): the second node of each is left out of routing; the fabric is not up until they are fixed",
			n, nr.dup_guids, nr.dup_guids == 1 ? "" : "s");
	if (routed) {
		rc = lft_held_take(&sm->held, rf, &nl, &sm->memo_next, sw_ok,
				   &sm->spare);
		if (rc < 0)
			goto out;
		sweep_guard_programmed(&sm->guard, &nr);
	}
	subnet_free(&sm->cur);
	sm->cur = nr;
	subnet_init(&nr);
	part_tables_free(&sm->parts);
	sm->parts = npt;
	part_tables_init(&npt);
	sm_flap_sweep(sm);
	sm->fabric_up = up;
	sm_set_state(sm, SMEV_SWEPT, NULL);   /* STANDBY, NOTACTIVE: ignored */
	/* The SA answers from this sweep on (its database borrows sm->cur
	 * and the held tables, which change only here). */
	sa_identity(sm);
	if (sa_db_build(&sm->sa.ctx.db, &sm->cur,
			sm->held.valid ? &sm->held.fab : NULL,
			sm->held.valid ? &sm->held.lft : NULL,
			cfg->subnet_prefix) < 0)
		log_err("sweep %u: SA database: out of memory; SA queries get no records", n);
	else {
		sa_quotas(sm);
		sa_drop_orphans(sm, n);
		sm_report_sweep(sm);
	}
	/* Multicast trees follow the fabric just programmed (after the SA
	 * database: programming polls the transport, which may serve SA). */
	if (routed) {
		sm->mcast.topo_gen++;
		if (sm_mcast_update(&sm->mcast, sm->t, &sm->cur) < 0)
			log_warn("sweep %u: multicast forwarding tables not all programmed", n);
		sm_perf_fabric(&sm->perf, &sm->cur.fab);
	}
	rc = up ? 0 : 1;
out:
	mt_stats_diff(&ds, &s0, mt_get_stats(sm->t));
	if (rc < 0)
		log_err("sweep %u failed: %s", n, strerror(-rc));
	log_info("sweep %u: heavy sweep %.3f s, fabric %s%s; MADs sent %llu, received %llu, timed out %llu, retried %llu, failed %llu",
		 n, now_seconds() - t0, rc == 0 ? "UP" :
		 rc == SM_SWEEP_STANDBY ? "left to the master SM" : "NOT up",
		 rc == 0 && sm->unreach.n ?
		 " without its silent nodes (unreachable, see above)" : "",
		 (unsigned long long)ds.sent, (unsigned long long)ds.received,
		 (unsigned long long)ds.timed_out, (unsigned long long)ds.retried,
		 (unsigned long long)ds.failed);
	free(sw_ok);
	lft_free(&nl);
	if (have_heldout)
		fab_free(&heldout);
	part_tables_free(&npt);
	subnet_free(&nr);
	sm->last_heavy_end = now_seconds();
	sm->last_heavy_s = sm->last_heavy_end - t0;
	sm->heavy_s_total += sm->last_heavy_s;
	return rc;
}

/* --- light sweep -------------------------------------------------------- */

struct light_ctx {
	int changed;
	const struct subnet *r;
};

static void on_light(void *ctx, uint64_t cookie, const uint8_t *req,
		     const uint8_t *resp)
{
	struct light_ctx *c = ctx;
	const struct fab_node *node = &c->r->fab.nodes[(uint32_t)cookie];
	struct smp_switchinfo si;

	(void)req;
	if (!resp || smp_status(resp)) {
		log_info("light sweep: switch 0x%016llx \"%s\" does not answer",
			 (unsigned long long)node->guid, node->desc);
		c->changed = 1;
		return;
	}
	smp_get_switchinfo(resp + 64, &si);
	if (si.port_state_change) {
		log_info("light sweep: port state change on switch 0x%016llx \"%s\"",
			 (unsigned long long)node->guid, node->desc);
		c->changed = 1;
	}
}

int sm_light_sweep(struct sm *sm, int *changed)
{
	struct light_ctx c = { .r = &sm->cur };
	const struct fabric *f = &sm->cur.fab;
	int rc;

	sm->act_count++;
	sm->light_sweeps++;
	for (uint32_t sw = 0; sw < f->num_switches; sw++) {
		uint32_t n = f->switches[sw];

		rc = mt_submit_dr(sm->t, &sm->cur.node_path[n], IB_MAD_METHOD_GET,
				  IB_ATTR_SWITCH_INFO, 0, NULL, on_light, &c, n);
		if (rc < 0)
			return rc;
	}
	rc = mt_drain(sm->t);
	/* Silent nodes left out are swept for again, once a light-sweep
	 * interval, to pick them up when they answer (unreachable.h). */
	*changed = c.changed || !sm->fabric_up || sm->unreach.n;
	return rc;
}

/* --- dumps and the loop ----------------------------------------------------- */

static int join(char *buf, size_t len, const char *dir, const char *name)
{
	return (size_t)snprintf(buf, len, "%s/%s", dir, name) >= len ? -ENAMETOOLONG : 0;
}

void sm_persist_note(struct sm *sm, unsigned what, int ok)
{
	static const char *const names[] = { "guid2lid", "SA state", "dumps" };
	unsigned i = what == SM_PERSIST_GUID2LID ? 0 : what == SM_PERSIST_SA_STATE ? 1 : 2;

	if (ok) {
		if (sm->persist_lost & what)
			log_info("persistence: %s written again", names[i]);
		sm->persist_lost &= ~what;
		return;
	}
	sm->persist_failures++;
	if (!(sm->persist_lost & what))
		log_err("persistence lost: %s could not be written (is %s writable?); the SM keeps running, /metrics shows ibsm_persistence_ok 0",
			names[i], what == SM_PERSIST_DUMPS ? "dump_dir" : "cache_dir");
	sm->persist_lost |= what;
}

int sm_write_dumps(struct sm *sm, const char *dir)
{
	char path[1200];
	int rc = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rc = -errno;
		log_err("cannot create dump directory %s: %s", dir, strerror(errno));
		sm_persist_note(sm, SM_PERSIST_DUMPS, 0);
		return rc;
	}
	if (!join(path, sizeof(path), dir, "ibnetdiscover.txt"))
		rc |= topo_write_ibnetdiscover(&sm->cur.fab, path);
	if (!join(path, sizeof(path), dir, "fabric.dot"))
		rc |= sm_write_heat_dot(sm, path);
	if (sm->held.valid && !join(path, sizeof(path), dir, "lfts.txt"))
		rc |= lft_write_dump_fts(&sm->held.fab, &sm->held.lft, path);
	if (sm->sl.vls_used > 1 && !join(path, sizeof(path), dir, "path-sl.txt"))
		rc |= path_sl_write(&sm->cur.fab, &sm->sl, path, 1);
	if (sm->perf.pm.o.interval_s &&
	    !join(path, sizeof(path), dir, "perf-counters.txt"))
		rc |= perfmgr_write(&sm->perf.pm, path);
	if (!join(path, sizeof(path), dir, "sa-stats.txt"))
		rc |= sa_server_write_stats(&sm->sa, path);
	sa_server_log_stats(&sm->sa);
	if (rc)
		log_err("could not write every dump into %s", dir);
	else
		log_info("dumps written to %s", dir);
	sm_persist_note(sm, SM_PERSIST_DUMPS, !rc);
	return rc ? -EIO : 0;
}
