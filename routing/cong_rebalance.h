/* Congestion-aware multipath (issue 12): move forwarding entries off
 * switch egress ports that measured counters show to be persistently hot,
 * onto other ports of the same switch that are exactly as close to the
 * destination (so paths stay minimal where they were), least loaded
 * first, at most max_moves entries in all.
 *
 * Loads are what the PerfMgr measured per fabric port index (bytes per
 * second sent, PortXmitData); a moved entry is assumed to carry an equal
 * share of its hot port's load, which gives the estimate after the moves.
 * The caller verifies the moved tables (loop- and credit-loop-free) before
 * using them: a move on a non-minimal route could close a loop. */
#ifndef IBSM_ROUTING_CONG_REBALANCE_H
#define IBSM_ROUTING_CONG_REBALANCE_H

#include <stdint.h>
#include "../core/fabric.h"
#include "lft.h"

struct cong_stats {
	uint32_t hot_ports;         /* hot switch-to-switch ports seen */
	uint32_t moved;             /* LFT entries moved */
	double max_before;          /* highest measured switch-port load */
	double max_after;           /* the same, estimated after the moves */
};

/* load and hot are indexed by fabric port index (f->num_ports entries);
 * hot[p] != 0 marks a hot egress port. Returns 0 (st filled) or -ENOMEM. */
int cong_rebalance(const struct fabric *f, struct lft_set *t,
		   const double *load, const uint8_t *hot, unsigned max_moves,
		   struct cong_stats *st);

#endif
