/* The heavy sweep's gates (sweep.h): may the view just discovered be
 * programmed (the sweep guard), and is it ours to program (other SMs). */
#include "sweep.h"

#include <errno.h>
#include <math.h>

#include "../../core/log.h"
#include "../../standby/sminfo_control.h"

/* Loss seen: more tries per MAD from now on; a whole sweep brings them
 * back to the configured number. The same requests lost sweep after
 * sweep, and nothing else failed even once, is a silent node, not loss:
 * more tries would only make each sweep wait longer for it. */
static void adapt_retries(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	const struct subnet *nr = &c->nr;
	uint32_t lost = nr->lost_probes + nr->lost_attrs;
	int lossy = lost > sm->guard.silent_again ||
		    nr->redone > (uint64_t)lost * nr->redo_rounds;

	if (lossy) {
		/* Enough tries that a MAD fails all of them with
		 * p < 0.1% at the loss this discovery saw (75% lost
		 * tries -> 24), at least double the last count. */
		double loss = mt_stats_loss(&c->s0, mt_get_stats(c->t));
		unsigned r = sm->retries < 4 ? 4 : sm->retries * 2;

		if (loss > 0.01 && loss < 0.99) {
			unsigned need = (unsigned)ceil(log(1e-3) / log(loss));

			if (need > r + 1)
				r = need - 1;
		}
		sm->retries = r > 31 ? 31 : r;
	} else {
		sm->retries = c->cfg->mad_retries;
	}
	mt_set_retries(c->t, sm->retries);
}

/* A view that lost answers, or shows less than the programmed one
 * without a trap to say why, is not programmed (sm/health/sweep_guard.h). */
int sweep_phase_guard(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	char why[256];
	enum sweep_verdict v = sweep_guard_judge(&sm->guard, &c->nr,
						 now_seconds(), why, sizeof(why));

	adapt_retries(c);
	if (v != SWEEP_PROGRAM && v != SWEEP_PROGRAM_UNREACHABLE) {
		double wait = sweep_guard_backoff(&sm->guard);

		log_warn("sweep %u: %s: keeping the programmed tables and LIDs; sweeping again in %.1f s with %u retries per MAD",
			 c->n, why, wait, sm->retries);
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now_seconds() + wait;
		c->rc = 1;
		return SWEEP_END;
	}
	if (why[0])
		log_warn("sweep %u: %s", c->n, why);
	/* Silent nodes: the rest is programmed; they are named, cut off if
	 * half seen, and swept for again. */
	if (v == SWEEP_PROGRAM_UNREACHABLE &&
	    unreach_update(&sm->unreach, &c->nr, sm->cur.fab.num_nodes ?
			   &sm->cur : NULL, &sm->guard) < 0)
		return -ENOMEM;
	if (v == SWEEP_PROGRAM)
		unreach_clear(&sm->unreach, &c->nr);
	return SWEEP_NEXT;
}

/* Other SMs (IBA 14.4): follow a master, or a better SM, as STANDBY and
 * program nothing; a master yields only to a better master, so two never
 * program at once. */
int sweep_phase_standby(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	const struct sm_peer *lead;

	if (sm_standby_discover(sm, &c->nr) < 0)
		return -ENOMEM;
	lead = sm_standby_elect(sm, sm->state == SMP_SM_MASTER);
	if (!lead && sm->state == SMP_SM_MASTER)
		sm_standby_handover(sm, &c->nr);
	if (lead) {
		sm->standby.rechecks = 0;
		if (sm->state == SMP_SM_MASTER)
			log_warn("sweep %u: a better master SM 0x%016llx (priority %u) is here: stepping down",
				 c->n, (unsigned long long)lead->guid, lead->priority);
		sm_standby_enter(sm, lead);
		c->rc = SM_SWEEP_STANDBY;
		return SWEEP_END;
	}
	/* A control obeyed while this sweep ran (the ACKNOWLEDGE of our
	 * HANDOVER) made us STANDBY: program nothing, and do not end MASTER. */
	if (sm->state == SMP_SM_STANDBY || sm->state == SMP_SM_NOTACTIVE) {
		log_info("sweep %u: %s by an SMInfo control during the sweep: programming nothing",
			 c->n, smctl_state_str(sm->state));
		c->rc = SM_SWEEP_STANDBY;
		return SWEEP_END;
	}
	return SWEEP_NEXT;
}
