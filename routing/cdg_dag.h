/* Channel dependency graphs kept acyclic while they grow, one per virtual
 * layer: the shared bookkeeping of dfsp's layering and its Nue-like
 * routing (routing/dfsp.c, routing/dfsp_nue.c).
 *
 * Channels are the directed switch-to-switch links of a route_graph (the
 * channel of adjacency index i runs from its switch to adj[i].peer). A
 * dependency a -> b exists when a route enters b's switch on a and leaves
 * on b. Each layer keeps a topological order of its channels; adding a
 * dependency that agrees with the order costs nothing, one that does not
 * searches only the channels between the two positions and reorders them
 * (Pearce and Kelly, "A dynamic topological sort algorithm for directed
 * acyclic graphs", JEA 2006). A dependency that would close a cycle is
 * refused and nothing changes. Removing dependencies keeps the order valid.
 * Each dependency counts the routes that use it, so one route can be taken
 * back without losing what others need. */
#ifndef IBSM_ROUTING_CDG_DAG_H
#define IBSM_ROUTING_CDG_DAG_H

#include <stddef.h>
#include <stdint.h>
#include "route_graph.h"

struct cdg_dag {
	const struct route_graph *g;
	uint32_t nch, nlayers;
	uint32_t *rev;          /* per channel: the opposite direction */
	uint32_t *tail;         /* per channel: the switch it leaves */
	uint32_t *dep_off;      /* per channel: base of its successor slots */
	size_t ndep;            /* slots per layer */
	uint32_t *dep;          /* dep[layer * ndep + slot]: routes using it */
	uint64_t *bits;         /* bit layer * ndep + slot: dep[...] != 0 (the
				 * forward search visits only dependencies
				 * present) */
	uint32_t *ord, *at;     /* per layer: position of channel, channel at */
	uint32_t *mark, epoch;  /* search marks */
	uint32_t *stack;
	uint64_t *fwd, *bwd;    /* (position << 32 | channel) found by a search */
	uint64_t *tmp;          /* radix sort scratch */
	uint32_t *pos;
	uint8_t *refused;       /* per layer and slot: refused once (with
				 * remember_refusals: dependencies are only
				 * added, so a refusal stands) */
	int remember_refusals;
	uint64_t reorders;      /* additions that needed a search */
};

int cdg_init(struct cdg_dag *d, const struct route_graph *g, uint32_t nlayers);
void cdg_free(struct cdg_dag *d);
/* Empty every layer again. */
void cdg_reset(struct cdg_dag *d);
/* Start (empty) layer l from this channel order (a permutation):
 * dependencies that agree with it are then added without a search. */
void cdg_set_layer_order(struct cdg_dag *d, uint32_t l,
			 const uint32_t *chan_in_order);

/* Is a -> b (b leaving a's head switch) a dependency of layer l? */
int cdg_has(const struct cdg_dag *d, uint32_t l, uint32_t a, uint32_t b);

/* Add a use of a -> b to layer l: 1 if new, 0 if it was there already
 * (one more use), -1 if it would close a cycle (layer unchanged). */
int cdg_add(struct cdg_dag *d, uint32_t l, uint32_t a, uint32_t b);

/* Take one use of a -> b back (gone at none; no-op if absent). */
void cdg_del(struct cdg_dag *d, uint32_t l, uint32_t a, uint32_t b);

#endif
