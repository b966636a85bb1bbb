/* ftree's settings in one place, and its tuned entry point (ftree.h):
 * no mutable globals, so a test that changes a setting or reads a
 * counter does it for one run only. */
#include "../engine_internal.h"
#include "ftree.h"

const struct ftree_tuning ftree_tuning_default = {
	.order_gap_bits = 32,
	.witness = 1,
	.repair = 1,
	.repair_idle_min_hits = 256,
	.closed = 1,
	.interleave_min = FT_THREAD_MIN_ENTRIES,
	.setup_depth = 12,
	.ng_rounds = 4,
	.split_ref = 0,
	.ul32_max_weight = FT_UL32_MAX_WEIGHT,
	.spill_full = 0,
};

int ftree_run(const struct fabric *f, const struct route_options *opt,
	      const struct ftree_tuning *tu, struct ftree_stats *st,
	      struct lft_set *t, char *why)
{
	struct ftree_run_arg arg = { .tuning = tu, .stats = st };

	return route_run_arg(&route_ftree, f, opt, t, why, &arg);
}
