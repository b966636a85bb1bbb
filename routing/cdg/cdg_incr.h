/* The incremental credit-loop checker: channel dependency graphs (CDG,
 * Dally and Seitz 1987) kept acyclic while they grow, one per layer
 * (virtual lane / SL). One checker serves the three engines that had one
 * each (issue 27):
 *
 * - updn (routing/rg_turns.c): channels are the route_graph's directed
 *   switch links; the graph is every up*-down* dependency of an
 *   orientation (implicit, G0) plus the down->up turns admitted for
 *   detours (explicit). Needs: a check without change (rg_turn_ok), an
 *   addition, and rollback of the turns a refused path took half way.
 *   Before: a whole-graph depth-first search per new turn.
 * - ftree (routing/ftree/ftree_turns.c): channels are fabric ports; the
 *   graph is the tree's up*-down* dependencies plus the taken turns, both
 *   implicit (the caller enumerates them: it pushes each switch's links
 *   once per kind of arrival, not once per incoming channel). Needs: an
 *   order to skip searches, searches bounded by it, a reorder when a turn
 *   goes against it, and the witness index (cdg_witness.h) that refuses
 *   most turns before any search. Before: ftree_order.c, its own copy of
 *   the order and the search.
 * - dfsp (routing/dfsp.c, dfsp_nue.c): channels as for updn; every
 *   dependency explicit, one graph per layer, counted per route so one
 *   route can be taken back; refusals remembered (dependencies are only
 *   added). Before: cdg_dag.c, a third order with dense positions.
 *
 * How the one checker serves them. Each layer keeps a topological order
 * of its channels (Pearce and Kelly, "A dynamic topological sort
 * algorithm for directed acyclic graphs", JEA 2006): a dependency a -> b
 * with a before b cannot close a cycle, so it needs no search; one
 * against the order closes a cycle exactly when b reaches a, and only
 * channels ordered between b and a can be on such a path. Inside that
 * window two breadth-first searches run in step, forward from b and
 * backward from a; they meet exactly when b reaches a, and "no path" is
 * proven as soon as either side runs out (cost about twice the smaller
 * side). To admit the dependency, the side that ran out moves past the
 * other end (all b reaches, to just after a; or all reaching a, to just
 * before b): the partition step of Marchetti-Spaccamela, Nanni and
 * Rohnert (1996), driven by the smaller search. The order is a linked
 * list with sparse 64-bit labels, so a move costs the moved set, not the
 * window; when a gap runs out of labels the layer is relabelled. Removing
 * dependencies (rollback, a route taken back) keeps any order valid.
 *
 * The graph's edges come from two sources, either or both: explicit
 * dependencies stored here, over a route_graph (per layer and per
 * (channel, next channel) slot: a use count, a bit for the forward scan,
 * a refusal flag, and a log for rollback); and implicit ones the caller
 * enumerates (struct cdg_ops), pushing with cdg_push_fwd/cdg_push_bwd.
 * Verdicts are exact reachability, so the order, the search direction
 * and the witness index change only the cost, never an answer. */
#ifndef IBSM_ROUTING_CDG_INCR_H
#define IBSM_ROUTING_CDG_INCR_H

#include <stddef.h>
#include <stdint.h>
#include "../route_graph.h"

#define CDG_NONE UINT32_MAX

struct cdg_incr;

/* Implicit dependencies: push (cdg_push_fwd) every channel that may
 * follow channel e in layer c->layer, or (cdg_push_bwd) every channel
 * that may precede it. c->epoch changes with each search: per-search
 * marks of the caller compare against it. */
struct cdg_ops {
	void (*succ)(struct cdg_incr *c, void *ctx, uint32_t e, uint32_t *top);
	void (*pred)(struct cdg_incr *c, void *ctx, uint32_t e, uint32_t *top);
};

struct cdg_incr {
	uint32_t nch, nlayers;
	unsigned gap_bits;      /* label spacing after a relabelling (log2) */
	/* Per layer l, per channel e at [l * nch + e]: the order. */
	uint64_t *lab;          /* sparse label; 0 = not in the order */
	uint32_t *onext, *oprev;/* the list in order */
	uint32_t *ohead;        /* per layer: first channel */
	/* Implicit dependencies (may be NULL). */
	const struct cdg_ops *ops;
	void *ctx;
	/* Explicit dependencies over g (cdg_init_graph; NULL otherwise). */
	const struct route_graph *g;
	uint32_t *rev;          /* per channel: the opposite direction */
	int one_way;            /* some link has no opposite channel: the
				 * backward search would miss dependencies,
				 * so only the forward one decides */
	uint32_t *tail;         /* per channel: the switch it leaves */
	uint32_t *dep_off;      /* per channel: base of its successor slots */
	size_t ndep;            /* slots per layer */
	uint32_t *dep;          /* [layer * ndep + slot]: routes using it */
	uint64_t *bits;         /* same index: dep != 0 (forward scan) */
	uint8_t *refused;       /* same index: refused (remember_refusals) */
	int remember_refusals;  /* dependencies only added: a refusal stands */
	int logging;            /* keep the log for cdg_rollback */
	size_t *log;            /* slots added, oldest first */
	uint32_t nlog, log_cap;
	/* The last search (cdg_reaches). */
	uint32_t *seen, epoch;  /* epoch: forward side, epoch + 1: backward */
	uint32_t *fq, *bq, *tmp;
	uint32_t nf, nb;        /* channels each side queued */
	uint32_t layer;
	const uint64_t *cur;    /* lab of that layer */
	uint64_t lb, ub;        /* the window: labels of its two ends */
	uint32_t at_lb, at_ub;  /* the two ends */
	int met, whole_fwd;
	/* Counters. */
	uint64_t searches, visited, moved, reorders;
};

/* nch channels, nlayers layers, implicit dependencies only (ops may be
 * NULL: then the graph is empty). Every layer starts with no channel in
 * its order: give it one with cdg_set_order. 0 or -ENOMEM. */
int cdg_init(struct cdg_incr *c, uint32_t nch, uint32_t nlayers,
	     const struct cdg_ops *ops, void *ctx);
/* Channels = g's adjacency entries, explicit dependencies stored (plus
 * ops' if not NULL); every layer starts in channel order, empty. */
int cdg_init_graph(struct cdg_incr *c, const struct route_graph *g,
		   uint32_t nlayers, const struct cdg_ops *ops, void *ctx);
void cdg_free(struct cdg_incr *c);
/* Empty every layer's explicit dependencies, refusals and log; orders
 * back to channel order (graph) or kept (implicit only). */
void cdg_reset(struct cdg_incr *c);

/* Layer l's order: these n channels, in this order (others leave it). */
void cdg_set_order(struct cdg_incr *c, uint32_t l, const uint32_t *chan,
		   uint32_t n);
/* Label spacing 2^bits (tests make it small: relabelling exercised). */
void cdg_set_gap_bits(struct cdg_incr *c, unsigned bits);
static inline uint64_t cdg_label(const struct cdg_incr *c, uint32_t l,
				 uint32_t e)
{
	return c->lab[(size_t)l * c->nch + e];
}
/* a before b in layer l's order: a -> b cannot close a cycle. */
static inline int cdg_before(const struct cdg_incr *c, uint32_t l,
			     uint32_t a, uint32_t b)
{
	return cdg_label(c, l, a) < cdg_label(c, l, b);
}

/* Does channel u reach channel d in layer l (u ordered before d)? The
 * search is kept: cdg_reorder may follow it. */
int cdg_reaches(struct cdg_incr *c, uint32_t l, uint32_t u, uint32_t d);
/* After cdg_reaches(l, u, d) found no path, and nothing changed since:
 * reorder so that d comes before u (d -> u may then be added). */
void cdg_reorder(struct cdg_incr *c);
/* Would a -> b close a cycle in layer l? 1 yes, 0 no (a search only if
 * b is ordered before a). Changes nothing in the graph. */
int cdg_closes(struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b);

/* Explicit dependencies (cdg_init_graph). b leaves a's head switch. */
int cdg_has(const struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b);
/* Add a use of a -> b to layer l: 1 if new, 0 if it was there already
 * (one more use), -1 if it would close a cycle (layer unchanged). */
int cdg_add(struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b);
/* Take one use of a -> b back (gone at none; no-op if absent). */
void cdg_del(struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b);
/* With logging: the log position now, and taking back every dependency
 * added new after it (each had one use), newest first. */
static inline uint32_t cdg_mark(const struct cdg_incr *c) { return c->nlog; }
void cdg_rollback(struct cdg_incr *c, uint32_t mark);

/* For struct cdg_ops callbacks: queue channel e on the forward side
 * (unless seen or ordered past the window) or the backward side. */
static inline void cdg_push_fwd(struct cdg_incr *c, uint32_t *top, uint32_t e)
{
	if (c->seen[e] == c->epoch || c->cur[e] > c->ub)
		return;
	if (c->seen[e] == c->epoch + 1)
		c->met = 1;     /* the backward side saw it: it reaches d */
	c->seen[e] = c->epoch;
	c->fq[(*top)++] = e;
}

static inline void cdg_push_bwd(struct cdg_incr *c, uint32_t *top, uint32_t e)
{
	if (c->seen[e] == c->epoch + 1 || c->cur[e] < c->lb)
		return;
	if (c->seen[e] == c->epoch)
		c->met = 1;     /* the forward side saw it: u reaches it */
	c->seen[e] = c->epoch + 1;
	c->bq[(*top)++] = e;
}

#endif
