/* The SM: lifecycle, the SA glue and dumps (the sweeps are sm/sweep/,
 * drawn in sm/sweep/sweep.h; the loop sm_loop.c; the SMInfo / trap
 * responder sm_responder.c; the state table standby/sm_fsm.h). */
#include "sm_state.h"
#include "sm_sa_state.h"
#include "sm_responder.h"
#include "sm_service.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/log.h"
#include "../mad/gmp.h"
#include "../formats/topo_read.h"
#include "observe/sm_metrics.h"
#include "observe/sm_ctl.h"
#include "observe/sm_heat.h"
#include "sm_qos.h"

/* --- lifecycle -------------------------------------------------------- */

/* What the SA says about us (SMInfoRecord). */
void sa_identity(struct sm *sm)
{
	struct sa_sm_identity *id = &sm->sa.ctx.sm;

	id->guid = sm->guid;
	id->sm_key = sm->cfg->sm_key;
	id->act_count = SM_ACT_COUNT(sm);
	id->lid = sm->lid;
	id->priority = sm->cfg->sm_priority;
	id->state = sm->state;
}

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
	return sm_sa_preempted(sm);
}

/* The per-port quotas as configured now (live: SIGHUP, then a sweep). */
void sa_quotas(struct sm *sm)
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
void sa_drop_orphans(struct sm *sm, unsigned n)
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
	/* The deferral queue holds SubnAdm MADs only: straight to the SA
	 * service, no class decoded and looked up per request. */
	mt_set_deferred_handler(t, sm_services_sa_request, sm);
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
int sm_sa_preempted(void *arg)
{
	struct sm *sm = arg;

	return sm->heavy_wanted && now_seconds() >= sm->next_heavy_at;
}

/* One slice of SA work: at most sa_slice_requests requests and
 * sa_slice_ms, fewer if a trap makes a sweep due meanwhile (traps and
 * SMInfo are handled between two requests, in mt_serve_deferred). */
double sm_sa_slice_s(const struct sm *sm, double max_s)
{
	double slice = sm->cfg->sa_slice_ms / 1000.0;

	return max_s < slice ? max_s : slice;
}

int sm_sa_slice(struct sm *sm, double max_s)
{
	return mt_serve_slice(sm->t, sm->cfg->sa_slice_requests,
			      sm_sa_slice_s(sm, max_s), sm_sa_preempted, sm);
}

void sm_free(struct sm *sm)
{
	mt_set_request_handler(sm->t, NULL, NULL);
	mt_set_deferred_handler(sm->t, NULL, NULL);
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
