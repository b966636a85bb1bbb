/* The spare set of route tables the next re-route writes into, kept warm
 * between routes by the idle loop (a service of sm/sm_services.c). */
#include "sm_spare.h"

#include "sm_state.h"
#include "../core/log.h"

/* A copy of the tables held: ftree's repair after a lost link starts
 * from it (route_ctx.tables_prev) instead of copying 345 MB on the way to
 * the new tables (65,536 CAs). A spare of another layout (a switch came
 * or went): cleared instead, so the next route need not fill it. Either
 * is 345 MB at 65k, 30-50 ms in one go, during which SA queries and traps
 * would wait: done in slices of SPARE_SLICE (about 1 ms each), one per
 * turn of the event loop, which polls without sleeping while one is under
 * way, so the whole still takes about as long as in one go. New tables
 * held restart a copy (lft_held_take); the repair only ever starts from a
 * complete copy (lft_set.copy_of), a route only trusts a complete clean.
 * Returns 1 while bytes remain. */
#define SPARE_SLICE (8u << 20)
static int spare_slice(struct sm *sm, const struct lft_set *h, double t0)
{
	struct lft_set *sp = &sm->spare;
	int copy = lft_same_layout(sp, h);

	if (copy ? sp->copy_of == h->port : sp->clean)
		return 0;
	if (copy ? sp->copying != h->port : sp->cleared == 0) {
		sm->spare_work_s = sm->spare_work_max_s = 0;
		sm->spare_work_slices = 0;
		sm->spare_work_t0 = t0;
	}
	int r = copy ? lft_copy_step(sp, h, SPARE_SLICE) : lft_clean_step(sp, SPARE_SLICE);
	double dt = now_seconds() - t0;
	sm->spare_work_s += dt;
	if (dt > sm->spare_work_max_s)
		sm->spare_work_max_s = dt;
	sm->spare_work_slices++;
	if (r != 1)
		return r == 0;
	log_debug("route tables: the spare set %s (%.1f MB) in %.3f s, %u slice%s of at most %u MB (the longest %.4f s), %.3f s from the first",
		  copy ? "made a copy of the tables held" : "cleared",
		  (double)sp->num_switches * sp->stride / 1048576.0, sm->spare_work_s,
		  sm->spare_work_slices, sm->spare_work_slices == 1 ? "" : "s",
		  SPARE_SLICE >> 20, sm->spare_work_max_s,
		  now_seconds() - sm->spare_work_t0);
	return 0;
}

/* Once the fabric is up and the loop idle, give the next route warm
 * memory for its tables: at 65,536 CAs faulting in 345 MB of fresh pages
 * takes 0.2-0.3 s, longer than a minimal-change repair after a lost link
 * (routing/ftree/ftree_repair.c), so the first re-route after start would pay
 * it. The memory is what the tables take anyway while being routed; it
 * stays reserved between routes instead. It is allocated untouched and
 * its pages are faulted in by the sliced copy of the held tables (or
 * clear) that follows, 8 MB per turn of the loop, so SA queries and
 * traps never wait for the whole 345 MB at once. */
int sm_spare_tick(struct sm *sm, double now)
{
	const struct lft_set *h = &sm->held.lft;
	double t0 = now;
	if (!sm->held.valid)
		return 0;
	if (!sm->spare.port) {
		if (sm->spare_failed)
			return 0;
		if (lft_take_spare(&sm->spare, NULL, h->num_switches, h->max_lid) < 0) {
			sm->spare_failed = 1;
			log_warn("route tables: no memory for a spare set of %.1f MB; re-routes allocate theirs",
				 (double)h->num_switches * h->stride / 1048576.0);
			return 0;
		}
		/* (not clean, no copy: the slices below fill every byte) */
		log_info("route tables: spare set of %.1f MB allocated, pre-faulted by its copy of the tables held in slices (the next re-route writes warm memory)",
			 (double)h->num_switches * h->stride / 1048576.0);
	}
	return spare_slice(sm, h, t0);
}

double sm_spare_next_deadline(const struct sm *sm, double now)
{
	const struct lft_set *h = &sm->held.lft, *sp = &sm->spare;

	if (!sm->fabric_up || sm->heavy_wanted || !sm->held.valid)
		return SM_NEVER;
	if (!sp->port)
		return sm->spare_failed ? SM_NEVER : now;
	/* what spare_slice would still do */
	if (lft_same_layout(sp, h) ? sp->copy_of != h->port : !sp->clean)
		return now;
	return SM_NEVER;
}
