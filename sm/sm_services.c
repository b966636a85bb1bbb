/* The table of the services the SM hosts and the two functions the loop
 * calls on it (sm_service.h has the table drawn). Each entry adapts one
 * service's own tick and deadline to the interface; the services keep
 * their state in struct sm's members for now. */
#include "sm_service.h"

#include <infiniband/mad.h>

#include "sm_state.h"
#include "sm_multicast.h"
#include "sm_perf.h"
#include "sm_report.h"
#include "sm_responder.h"
#include "sm_sa_state.h"
#include "sm_spare.h"
#include "sm_standby.h"
#include "health/sm_flap.h"
#include "observe/sm_ctl.h"
#include "observe/sm_metrics.h"
#include "program/sl2vl_read.h"
#include "../core/log.h"
#include "../mad/gmp.h"
#include "../mad/smp.h"

static int master_idle(const struct sm *sm)
{
	return !sm->heavy_wanted;
}

/* --- SMP: SMInfo and traps (sm_state.c answers them) --- */
static const uint8_t smp_classes[] = { SMP_CLASS_LID, SMP_CLASS_DR, 0 };

/* --- SA --- */
static const uint8_t sa_classes[] = { GMP_CLASS_SA, 0 };

static void sa_on_mad(struct sm *sm, uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	if (sm->cfg->sa_enabled)
		sa_server_handle(&sm->sa, mad, slid, sqp);
}

void sm_services_sa_request(void *ctx, uint8_t *mad, uint16_t slid,
			    uint32_t sqp)
{
	sa_on_mad(ctx, mad, slid, sqp);
}

/* The SA answers from this sweep on (its database borrows sm->cur and
 * the held tables, which change only in a heavy sweep). */
static void sa_on_subnet(struct sm *sm, unsigned sweep, int routed)
{
	(void)routed;
	sa_identity(sm);
	if (sa_db_build(&sm->sa.ctx.db, &sm->cur,
			sm->held.valid ? &sm->held.fab : NULL,
			sm->held.valid ? &sm->held.lft : NULL,
			sm->cfg->subnet_prefix) < 0) {
		log_err("sweep %u: SA database: out of memory; SA queries get no records", sweep);
		return;
	}
	sa_quotas(sm);
	sa_drop_orphans(sm, sweep);
}

static double sa_deadline(const struct sm *sm, double now)
{
	(void)now;
	return sa_server_next_deadline(&sm->sa);
}

static int sa_tick(struct sm *sm, double now)
{
	sa_server_tick(&sm->sa, now);
	return 0;
}

/* --- standby --- */
static int standby_tick(struct sm *sm, double now)
{
	sm_standby_tick(sm, now);
	return 0;
}

/* --- metrics, ctl --- */
static int metrics_tick(struct sm *sm, double now)
{
	sm_metrics_tick(sm, now);
	return 0;
}

/* The control socket is in the transport's poll set (mt_watch_fd): an
 * idle loop wakes when a client connects. While MADs keep the loop busy
 * it may not sleep at all, so then the socket is looked at every 0.25 s. */
#define CTL_BUSY_S 0.25

static uint64_t mads_seen(const struct sm *sm)
{
	const struct mt_stats *st = mt_get_stats(sm->t);

	return st->unsolicited + st->received;
}

static double ctl_deadline(const struct sm *sm, double now)
{
	if (sm->ctl_fd < 0)
		return SM_NEVER;
	if (sm->ctl_ready)
		return now;
	return mads_seen(sm) != sm->ctl_mads ? sm->ctl_at + CTL_BUSY_S : SM_NEVER;
}

static int ctl_tick(struct sm *sm, double now)
{
	sm->ctl_ready = 0;
	sm->ctl_at = now;
	sm->ctl_mads = mads_seen(sm);
	sm_ctl_tick(sm);
	return 0;
}

/* --- trap 66/67 reports of multicast groups --- */
static double reports_deadline(const struct sm *sm, double now)
{
	return sm_report_groups_due(sm) ? now : SM_NEVER;
}

static int reports_tick(struct sm *sm, double now)
{
	(void)now;
	sm_report_groups(sm);
	return 0;
}

static void reports_on_subnet(struct sm *sm, unsigned sweep, int routed)
{
	(void)sweep;
	(void)routed;
	sm_report_sweep(sm);
}

/* --- SL2VL / VLArb tables read for the SA (not while a sweep is due) --- */
static double sl2vl_deadline(const struct sm *sm, double now)
{
	return master_idle(sm) ? sl2vl_reader_next_deadline(&sm->sl2vl_rd, now) : SM_NEVER;
}

static double vlarb_deadline(const struct sm *sm, double now)
{
	return master_idle(sm) ? sl2vl_reader_next_deadline(&sm->vlarb_rd, now) : SM_NEVER;
}

static int reader_tick(struct sm *sm, struct sl2vl_reader *rd, double now)
{
	if (sl2vl_reader_tick(rd, sm->t, &sm->cur, now) < 0)
		log_warn("SL2VL/VLArb background read: out of memory");
	return 0;
}

static int sl2vl_tick(struct sm *sm, double now)
{
	return reader_tick(sm, &sm->sl2vl_rd, now);
}

static int vlarb_tick(struct sm *sm, double now)
{
	return reader_tick(sm, &sm->vlarb_rd, now);
}

/* --- spare tables --- */
static int spare_tick(struct sm *sm, double now)
{
	sm_spare_tick(sm, now);
	return 0;
}

/* --- multicast forwarding tables after joins and leaves --- */
static double mcast_deadline(const struct sm *sm, double now)
{
	return sm->fabric_up && master_idle(sm) && sm_mcast_dirty(&sm->mcast) ?
	       now : SM_NEVER;
}

static int mcast_tick(struct sm *sm, double now)
{
	(void)now;
	sm_mcast_update(&sm->mcast, sm->t, &sm->cur);
	return 0;
}

/* Multicast trees follow the fabric just programmed (after the SA
 * database: programming polls the transport, which may serve SA). */
static void mcast_on_subnet(struct sm *sm, unsigned sweep, int routed)
{
	if (!routed)
		return;
	sm->mcast.topo_gen++;
	if (sm_mcast_update(&sm->mcast, sm->t, &sm->cur) < 0)
		log_warn("sweep %u: multicast forwarding tables not all programmed", sweep);
}

/* --- SA state file --- */
static int sa_state_tick(struct sm *sm, double now)
{
	(void)now;
	sm_sa_state_tick(sm, 0);
	return 0;
}

/* --- PerfMgr and noisy links --- */
static double perf_deadline(const struct sm *sm, double now)
{
	return sm_perf_next_deadline(&sm->perf, now);
}

static void perf_on_subnet(struct sm *sm, unsigned sweep, int routed)
{
	(void)sweep;
	if (routed)
		sm_perf_fabric(&sm->perf, &sm->cur.fab);
}

static int perf_tick(struct sm *sm, double now)
{
	if (!sm_perf_tick(&sm->perf, now) || sm->heavy_wanted)
		return 0;
	log_info("links held out of routing changed: rerouting");
	return 1;
}

/* --- flapping ports held out of routing --- */
static int flap_tick(struct sm *sm, double now)
{
	/* Reroute now, even in a trap storm (once per port, so bounded). */
	if (!sm_flap_tick(sm, now))
		return 0;
	log_info("links held out of routing changed (flapping ports): rerouting");
	return 1;
}

static const struct sm_service services[] = {
	{ "smp", SM_SVC_ALWAYS, .classes = smp_classes, .on_mad = sm_smp_request },
	{ "sa", SM_SVC_ALWAYS, .classes = sa_classes, .on_mad = sa_on_mad, .on_subnet = sa_on_subnet },
	{ "standby", SM_SVC_STANDBY, .next_deadline = sm_standby_next_deadline, .tick = standby_tick },
	{ "reports", SM_SVC_MASTER, .next_deadline = reports_deadline, .tick = reports_tick,
	  .on_subnet = reports_on_subnet },
	{ "sa-timers", SM_SVC_MASTER, .next_deadline = sa_deadline, .tick = sa_tick },
	{ "sl2vl", SM_SVC_MASTER, .next_deadline = sl2vl_deadline, .tick = sl2vl_tick },
	{ "vlarb", SM_SVC_MASTER, .next_deadline = vlarb_deadline, .tick = vlarb_tick },
	{ "spare", SM_SVC_MASTER, .next_deadline = sm_spare_next_deadline, .tick = spare_tick },
	{ "mcast", SM_SVC_MASTER, .next_deadline = mcast_deadline, .tick = mcast_tick,
	  .on_subnet = mcast_on_subnet },
	{ "sa-state", SM_SVC_MASTER, .next_deadline = sm_sa_state_next_deadline, .tick = sa_state_tick },
	{ "metrics", SM_SVC_ALWAYS, .next_deadline = sm_metrics_next_deadline, .tick = metrics_tick },
	{ "ctl", SM_SVC_ALWAYS, .next_deadline = ctl_deadline, .tick = ctl_tick },
	{ "perfmgr", SM_SVC_MASTER, .next_deadline = perf_deadline, .tick = perf_tick,
	  .on_subnet = perf_on_subnet },
	{ "flap", SM_SVC_MASTER, .next_deadline = sm_flap_next_deadline, .tick = flap_tick },
};
#define NUM_SERVICES (sizeof(services) / sizeof(services[0]))

static int runs_in(int state, const struct sm_service *s)
{
	int following = state == SMP_SM_STANDBY || state == SMP_SM_NOTACTIVE;

	switch (s->when) {
	case SM_SVC_ALWAYS:
		return 1;
	case SM_SVC_STANDBY:
		return state == SMP_SM_STANDBY;
	case SM_SVC_MASTER:
		return !following;
	}
	return 0;
}

/* The services with a tick that run in a state, in the table's order, for
 * the three kinds of state (STANDBY, NOTACTIVE, the others): the pass
 * walks its list instead of asking every entry whether it runs (issue 27:
 * that was half the pass). Built on the first pass; NULL ends a list. */
enum { RUN_STANDBY, RUN_NOTACTIVE, RUN_OTHER, RUN_KINDS };
static const struct sm_service *run_list[RUN_KINDS][NUM_SERVICES + 1];
static int run_lists_built;

static int run_kind(int state)
{
	return state == SMP_SM_STANDBY ? RUN_STANDBY :
	       state == SMP_SM_NOTACTIVE ? RUN_NOTACTIVE : RUN_OTHER;
}

static void build_run_lists(void)
{
	static const int state_of[RUN_KINDS] = {
		[RUN_STANDBY] = SMP_SM_STANDBY,
		[RUN_NOTACTIVE] = SMP_SM_NOTACTIVE,
		[RUN_OTHER] = SMP_SM_MASTER,
	};

	for (unsigned k = 0; k < RUN_KINDS; k++) {
		unsigned n = 0;

		for (unsigned i = 0; i < NUM_SERVICES; i++)
			if (services[i].tick && runs_in(state_of[k], &services[i]))
				run_list[k][n++] = &services[i];
		run_list[k][n] = NULL;
	}
	run_lists_built = 1;
}

/* The place in the state kind's list of the first service after s. */
static const struct sm_service *const *after_in(int kind,
						const struct sm_service *s)
{
	const struct sm_service *const *l = run_list[kind];

	while (*l && *l <= s)
		l++;
	return l;
}

int sm_services_tick(struct sm *sm, double now, double *next)
{
	int resweep = 0, ran = 0;
	double t = SM_NEVER;
	int kind;
	const struct sm_service *const *l;

	if (!run_lists_built)
		build_run_lists();
	kind = run_kind(sm->state);
	for (l = run_list[kind]; *l;) {
		const struct sm_service *s = *l++;
		double d = s->next_deadline(sm, now);

		if (!(d <= now)) {
			if (d < t)
				t = d;
			continue;
		}
		resweep |= s->tick(sm, now);
		ran = 1;
		if (run_kind(sm->state) != kind) {
			/* The tick changed the state (a takeover): the rest
			 * of the pass is the new state's, as when each entry
			 * was asked whether it runs. */
			kind = run_kind(sm->state);
			l = after_in(kind, s);
		}
	}
	/* A service that ran may have given work to one asked before it
	 * (mcast's changes to reports, ...): after any ran, the loop looks
	 * again without sleeping. A MAD costs no tick, so under a query
	 * load every service is asked once per wakeup. */
	*next = ran ? now : t;
	return resweep;
}

void sm_services_on_subnet(struct sm *sm, unsigned sweep, int routed)
{
	for (unsigned i = 0; i < NUM_SERVICES; i++)
		if (services[i].on_subnet)
			services[i].on_subnet(sm, sweep, routed);
}

/* Built on the first lookup from the services' class lists (a scan of
 * the table per unsolicited MAD before: issue 27). */
static const struct sm_service *by_class[256];
static int by_class_built;

const struct sm_service *sm_service_for_class(uint8_t mgmt_class)
{
	if (!by_class_built) {
		for (unsigned i = NUM_SERVICES; i-- > 0;)
			for (const uint8_t *c = services[i].classes; c && *c; c++)
				by_class[*c] = &services[i];
		by_class_built = 1;
	}
	return by_class[mgmt_class];
}
