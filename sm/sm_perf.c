/* Wiring the PerfMgr and the noisy-link policy into the SM. */
#include "sm_perf.h"

#include <errno.h>
#include <string.h>

#include "../core/log.h"

static int act(void *ctx, const struct pm_port *p, enum noisy_action a,
	       int restore, const char *reason)
{
	struct sm_perf *sp = ctx;
	int rc;

	if (a != NOISY_AVOID)
		return -ENOTSUP;
	if (restore) {
		rc = link_hold_remove(sp->hold, p->node_guid, p->port);
	} else {
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

static void on_sample(void *ctx, struct perfmgr *pm, struct pm_port *p)
{
	struct sm_perf *sp = ctx;

	(void)pm;
	noisy_sample(&sp->noisy, p, p->cur_at);
}

int sm_perf_init(struct sm_perf *sp, const struct ibsm_config *cfg,
		 struct mad_transport *t, struct link_hold *hold)
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
	if (!sp->pm.o.interval_s)
		return;
	if (perfmgr_set_fabric(&sp->pm, f) < 0)
		log_err("perfmgr: out of memory: counters not polled");
	if (sp->first_flag_at && !sp->reroute) {
		log_info("perfmgr: rerouted %.3f s after the first noisy-link action",
			 now_seconds() - sp->first_flag_at);
		sp->first_flag_at = 0;
	}
}

int sm_perf_tick(struct sm_perf *sp, double now)
{
	perfmgr_tick(&sp->pm, now);
	if (!sp->reroute)
		return 0;
	sp->reroute = 0;
	return 1;
}
