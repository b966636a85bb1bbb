/* Down->up turns admitted into an up*\/down* routing without closing a
 * credit loop (one VL): updn's use of the incremental checker
 * (cdg/cdg_incr.h).
 *
 * Channels are the directed switch-to-switch links of a route_graph: the
 * channel of adjacency index i runs from its switch to adj[i].peer. Given
 * an orientation (pos[]: smaller = more "up"), every dependency an
 * up*\/down* route can create goes up->up, up->down or down->down; that
 * graph (G0: all such dependencies, used or not, no U-turns) is acyclic.
 * A down->up turn is admitted only if it closes no cycle in G0 plus the
 * turns admitted before it, so the real channel dependency graph, always a
 * subgraph, stays acyclic however the routes are later chosen among
 * admitted dependencies. G0 is the checker's implicit graph (enumerated
 * here from pos[]), the turns its explicit dependencies; its order starts
 * as G0's (up channels from the bottom, then down channels from the top),
 * so a turn that agrees with it needs no search, and a path refused half
 * way gives its turns back through the checker's log. */
#ifndef IBSM_ROUTING_RG_TURNS_H
#define IBSM_ROUTING_RG_TURNS_H

#include <stdint.h>
#include "route_graph.h"
#include "cdg/cdg_incr.h"

struct rg_turns {
	const struct route_graph *g;
	const uint32_t *pos;
	uint32_t nch;           /* channels = adjacency entries */
	const uint32_t *tail;   /* per channel: its switch (the checker's) */
	uint32_t nturns;        /* turns admitted (the checker's log) */
	uint64_t *key;          /* scratch for the order */
	struct cdg_incr cdg;    /* G0 implicit, turns explicit */
};

int rg_turns_init(struct rg_turns *t, const struct route_graph *g,
		  const uint32_t *pos);
void rg_turns_free(struct rg_turns *t);
/* Forget every admitted turn (a new orientation: pos[] changed; the
 * order of G0 is rebuilt from it). */
void rg_turns_reset(struct rg_turns *t);

/* 1 if the dependency channel a -> channel b (b leaves a's head switch) is
 * in G0 or admitted already, or would close no cycle if admitted; 0 if it
 * would close one. Changes nothing. */
int rg_turn_ok(struct rg_turns *t, uint32_t a, uint32_t b);
/* 1 if a -> b is in G0 or admitted already (no search). */
int rg_turn_known(const struct rg_turns *t, uint32_t a, uint32_t b);
/* Admit a dependency rg_turn_ok accepted (no-op for G0 or known ones).
 * Returns 0 or -ENOMEM. */
int rg_turn_take(struct rg_turns *t, uint32_t a, uint32_t b);
/* Forget the turns admitted after the first `mark` (nturns then): a
 * path refused half way gives back what it took. */
void rg_turns_rollback(struct rg_turns *t, uint32_t mark);

#endif
