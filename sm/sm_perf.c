/* Wiring the PerfMgr and the noisy-link policy into the SM. */
#include "sm_perf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/log.h"

/* The far end of (guid, port) in f, 0 when unknown. */
static int peer_end(const struct fabric *f, uint64_t guid, uint8_t port,
		    uint64_t *pguid, uint8_t *pport)
{
	if (!f)
		return 0;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_port *q;

		if (f->nodes[n].guid != guid || port > f->nodes[n].num_ports)
			continue;
		q = fab_port(f, n, port);
		if (q->peer == FAB_NONE)
			return 0;
		*pguid = f->nodes[f->ports[q->peer].node].guid;
		*pport = f->ports[q->peer].num;
		return 1;
	}
	return 0;
}

int sm_perf_would_split(const struct sm_perf *sp, uint64_t guid, uint8_t port)
{
	const struct link_hold *sets[] = { sp->down, sp->hold };

	return link_hold_would_split(sp->fab, sets, 2, guid, port);
}

/* Both ends of a disabled link are taken down (a link is down at both
 * ends anyway; doing it ourselves also keeps an SMA that would answer on
 * the far end from looking alive). The far end's entry says whose it is,
 * so a restore brings both back. */
#define PEER_OF "peer of 0x%016llx port %u"

int sm_perf_disable(struct sm_perf *sp, uint64_t guid, uint8_t port,
		    int restore, const char *reason)
{
	char mark[64];
	uint64_t pg = 0;
	uint8_t pp = 0;
	int rc;

	snprintf(mark, sizeof(mark), PEER_OF, (unsigned long long)guid, port);
	if (restore) {
		rc = link_hold_remove(sp->down, guid, port);
		link_hold_remove(sp->hold, guid, port);
		if (rc > 0 && link_hold_add(sp->wake, guid, port, reason,
					    now_seconds()) < 0)
			return -ENOMEM;
		for (uint32_t i = 0; rc > 0 && i < sp->down->n; i++) {
			const struct link_hold_entry *e = &sp->down->e[i];

			if (strcmp(e->reason, mark))
				continue;
			pg = e->guid;
			pp = e->port;
			link_hold_remove(sp->down, pg, pp);
			if (link_hold_add(sp->wake, pg, pp, mark, now_seconds()) < 0)
				return -ENOMEM;
			break;
		}
		if (rc > 0)
			sp->reroute = 1;
		return rc;
	}
	/* A link whose loss splits the fabric (the last one between two
	 * parts) stays up: the route phase would route over it anyway. */
	{
		int split = sm_perf_would_split(sp, guid, port);

		if (split)
			return split < 0 ? split : -EBUSY;
	}
	if (link_hold_add(sp->hold, guid, port, reason, now_seconds()) < 0)
		return -ENOMEM;
	link_hold_remove(sp->wake, guid, port);
	rc = link_hold_add(sp->down, guid, port, reason, now_seconds());
	if (rc > 0 && peer_end(sp->fab, guid, port, &pg, &pp)) {
		link_hold_remove(sp->wake, pg, pp);
		if (link_hold_add(sp->down, pg, pp, mark, now_seconds()) < 0)
			return -ENOMEM;
	}
	if (rc > 0) {
		if (!sp->reroute)
			sp->first_flag_at = now_seconds();
		sp->reroute = 1;
	}
	return rc;
}

static int act(void *ctx, const struct pm_port *p, enum noisy_action a,
	       int restore, const char *reason)
{
	struct sm_perf *sp = ctx;
	int rc;

	if (a == NOISY_DISABLE)
		return sm_perf_disable(sp, p->node_guid, p->port, restore,
				       reason) < 0 ? -1 : 0;
	if (a != NOISY_AVOID)
		return -ENOTSUP;
	if (restore) {
		rc = link_hold_remove(sp->hold, p->node_guid, p->port);
	} else {
		/* Routing around it must leave every part reachable with
		 * the links already held or down (issue 26). */
		rc = sm_perf_would_split(sp, p->node_guid, p->port);
		if (rc) {
			log_warn("perfmgr: not avoiding 0x%016llx \"%s\" port %u: with the links held or down it is the last path to part of the fabric",
				 (unsigned long long)p->node_guid, p->desc, p->port);
			return -1;
		}
		rc = link_hold_add(sp->hold, p->node_guid, p->port, reason,
				   now_seconds());
		if (rc > 0 && !sp->reroute)
			sp->first_flag_at = now_seconds();
	}
	if (rc < 0)
		return rc;
	if (rc > 0)
		sp->reroute = 1;
	return 0;
}

/* Congestion: a switch-to-switch port whose XmitWait rate stays high
 * for cong_persist samples becomes hot, and asks for one reroute; it
 * stays hot (the next sweeps keep spreading within their bound) until a
 * sample below the rate. */
static void cong_sample(struct sm_perf *sp, struct pm_port *p)
{
	if (!sp->cong_on || !p->is_switch || !p->peer_is_switch)
		return;
	if (p->rate[PM_XMIT_WAIT] < sp->cong_rate) {
		if (p->hot_streak >= sp->cong_persist) {
			log_info("congestion: 0x%016llx \"%s\" port %u cooled down (PortXmitWait %.0f/s)",
				 (unsigned long long)p->node_guid, p->desc, p->port,
				 p->rate[PM_XMIT_WAIT]);
			if (sp->cong_hot)
				sp->cong_hot--;
		}
		p->hot_streak = 0;
		return;
	}
	if (p->hot_streak < UINT16_MAX)
		p->hot_streak++;
	if (p->hot_streak == sp->cong_persist) {
		log_warn("congestion: 0x%016llx \"%s\" port %u -> \"%s\" is hot: PortXmitWait %.0f/s for %u samples, sending %.1f MB/s: spreading at the next sweep",
			 (unsigned long long)p->node_guid, p->desc, p->port,
			 p->peer_desc, p->rate[PM_XMIT_WAIT], p->hot_streak,
			 p->rate[PM_XMIT_DATA] * 4 / 1e6);
		sp->cong_hot++;
		sp->reroute = 1;
	}
}

static void on_sample(void *ctx, struct perfmgr *pm, struct pm_port *p)
{
	struct sm_perf *sp = ctx;

	(void)pm;
	noisy_sample(&sp->noisy, p, p->cur_at);
	cong_sample(sp, p);
}

uint32_t sm_perf_cong_inputs(struct sm_perf *sp, struct fabric *f,
			     double *load, uint8_t *hot)
{
	uint32_t n = 0;

	memset(load, 0, (size_t)f->num_ports * sizeof(*load));
	memset(hot, 0, f->num_ports);
	for (uint32_t i = 0; i < sp->pm.num_ports; i++) {
		const struct pm_port *p = &sp->pm.ports[i];
		uint32_t node = fab_find_node_guid(f, p->node_guid);
		uint32_t q;

		if (node == FAB_NONE || p->port > f->nodes[node].num_ports)
			continue;
		q = fab_port_idx(f, node, p->port);
		/* PortXmitData counts 4-byte words. */
		load[q] = p->rate[PM_XMIT_DATA] * 4;
		if (sp->cong_on && p->hot_streak >= sp->cong_persist) {
			hot[q] = 1;
			n++;
		}
	}
	return n;
}

int sm_perf_init(struct sm_perf *sp, const struct ibsm_config *cfg,
		 struct mad_transport *t, struct link_hold *hold,
		 struct link_hold *down, struct link_hold *wake)
{
	struct pm_opts po = {
		.interval_s = cfg->perf_interval_s,
		.window = cfg->perf_window,
		.history = cfg->perf_history,
	};
	struct noisy_opts no = {
		.action = noisy_action_parse(cfg->perf_action),
		.quiet_s = cfg->perf_quiet_period_s,
		.restore_fraction = cfg->perf_restore_fraction,
		.max_avoided = cfg->perf_max_avoided,
	};

	memset(sp, 0, sizeof(*sp));
	sp->hold = hold;
	sp->down = down;
	sp->wake = wake;
	sp->cong_on = cfg->congestion_aware && cfg->perf_interval_s;
	sp->cong_rate = cfg->congestion_xmit_wait_rate;
	sp->cong_persist = cfg->congestion_persist;
	if (cfg->congestion_aware && !cfg->perf_interval_s)
		log_warn("congestion_aware needs perf_interval: off");
	no.threshold[PM_SYMBOL_ERR] = cfg->perf_symbol_error_rate;
	no.threshold[PM_LINK_ERR_RECOVERY] = cfg->perf_link_error_recovery_rate;
	no.threshold[PM_LINK_DOWNED] = cfg->perf_link_downed_rate;
	no.threshold[PM_RCV_ERR] = cfg->perf_rcv_errors_rate;
	no.threshold[PM_LOCAL_LINK_INTEGRITY_ERR] = cfg->perf_local_link_integrity_rate;
	no.threshold[PM_EXCESSIVE_BUF_OVERRUN_ERR] = cfg->perf_excessive_buffer_overrun_rate;
	no.threshold[PM_XMIT_DISCARDS] = cfg->perf_xmit_discards_rate;
	if (po.window > mt_window(t))
		po.window = mt_window(t);
	perfmgr_init(&sp->pm, t, &po);
	sp->pm.on_sample = on_sample;
	sp->pm.cb_ctx = sp;
	if (noisy_init(&sp->noisy, &no, cfg->perf_event_log, act, sp) < 0)
		return -EINVAL;
	if (cfg->perf_interval_s)
		log_info("perfmgr: counters every %u s, %u ports at once; noisy links: %s, restored after %u quiet s",
			 cfg->perf_interval_s, po.window, cfg->perf_action,
			 cfg->perf_quiet_period_s);
	return 0;
}

void sm_perf_free(struct sm_perf *sp)
{
	perfmgr_free(&sp->pm);
	noisy_free(&sp->noisy);
}

void sm_perf_fabric(struct sm_perf *sp, const struct fabric *f)
{
	sp->fab = f;
	if (!sp->pm.o.interval_s)
		return;
	/* Links being taken down are not polled: what a port counts while
	 * it goes down (under ibsim, the SMPs it drops) is no sign of a bad
	 * cable, and the policy already acted on them. */
	if (sp->down && sp->down->n) {
		struct fabric copy;

		if (fab_clone(&copy, f) == 0) {
			link_hold_apply(sp->down, &copy);
			if (perfmgr_set_fabric(&sp->pm, &copy) < 0)
				log_err("perfmgr: out of memory: counters not polled");
			fab_free(&copy);
			goto polled;
		}
	}
	if (perfmgr_set_fabric(&sp->pm, f) < 0)
		log_err("perfmgr: out of memory: counters not polled");
polled:
	if (sp->first_flag_at && !sp->reroute) {
		log_info("perfmgr: rerouted %.3f s after the first noisy-link action",
			 now_seconds() - sp->first_flag_at);
		sp->first_flag_at = 0;
	}
}

/* A port the policy took down carries nothing to measure, so its quiet
 * period is counted from when it went down: after perf_quiet_period
 * seconds it is brought back, and if it is still noisy the next PerfMgr
 * cycles flag it again. Ports an operator disabled stay down until
 * `ibsmctl restore`. */
static void restore_disabled(struct sm_perf *sp, double now)
{
	for (uint32_t i = 0; i < sp->down->n; i++) {
		const struct link_hold_entry *e = &sp->down->e[i];
		struct pm_port p;
		char reason[200];

		if (!strncmp(e->reason, "peer of ", 8) ||
		    !strncmp(e->reason, "operator", 8) ||
		    now - e->since < sp->noisy.o.quiet_s)
			continue;
		memset(&p, 0, sizeof(p));
		p.node_guid = e->guid;
		p.port = e->port;
		snprintf(reason, sizeof(reason),
			 "down for %.0f s (perf_quiet_period %u s); it was: %.120s",
			 now - e->since, sp->noisy.o.quiet_s, e->reason);
		log_info("perfmgr: link 0x%016llx port %u restored (disable was taken): %s",
			 (unsigned long long)p.node_guid, p.port, reason);
		noisy_event(&sp->noisy, "restore", &p, reason);
		sp->noisy.restored_total++;
		if (sp->noisy.num_acting)
			sp->noisy.num_acting--;
		sm_perf_disable(sp, p.node_guid, p.port, 1, reason);
		return;     /* the set changed; one per tick is enough */
	}
}

/* A disabled link restore_disabled would give back (not an operator's,
 * not a peer's): when it has been down for the quiet period. */
static double next_restore(const struct sm_perf *sp)
{
	double t = HUGE_VAL;

	for (uint32_t i = 0; sp->down && i < sp->down->n; i++) {
		const struct link_hold_entry *e = &sp->down->e[i];

		if (strncmp(e->reason, "peer of ", 8) && strncmp(e->reason, "operator", 8) &&
		    e->since + sp->noisy.o.quiet_s < t)
			t = e->since + sp->noisy.o.quiet_s;
	}
	return t;
}

double sm_perf_next_deadline(const struct sm_perf *sp, double now)
{
	double t = perfmgr_next_deadline(&sp->pm, now), r = next_restore(sp);

	if (sp->reroute)
		return now;
	return r < t ? r : t;
}

int sm_perf_tick(struct sm_perf *sp, double now)
{
	perfmgr_tick(&sp->pm, now);
	if (sp->down && sp->down->n)
		restore_disabled(sp, now);
	if (!sp->reroute)
		return 0;
	sp->reroute = 0;
	return 1;
}
