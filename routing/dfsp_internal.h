/* Between dfsp's two routing methods (dfsp.c: minimal paths, layered
 * first-fit; dfsp_nue.c: routes grown on the dependency graph within a
 * fixed number of layers). */
#ifndef IBSM_ROUTING_DFSP_INTERNAL_H
#define IBSM_ROUTING_DFSP_INTERNAL_H

#include "engine.h"
#include "path_sl.h"
#include "route_graph.h"

/* Route every LID (with only: the LIDs marked in it, per LID) from every
 * switch on layers layer_base .. layer_base + nlayers - 1, each layer's
 * channel dependency graph acyclic by construction (with only, the other
 * LIDs' routes in t must not use those layers; their load is avoided).
 * Fills t (local entries already set) and p (SL = layer of the
 * destination). Returns 0 or -ENOMEM.
 * below (0: none): the caller keeps the result only if its busiest
 * channel carries fewer than below CA pairs. Every pass is then first
 * run only until it gets there; if none stays below, -ERANGE (t and p
 * undefined), else the passes are run again as without below, so a
 * kept result is the same. */
int dfsp_nue(struct route_ctx *ctx, const struct route_graph *g,
	     struct lft_set *t, struct path_sl *p, uint32_t nlayers,
	     const uint8_t *only, uint32_t layer_base, uint64_t below);

/* Balanced paths (weighted Dijkstra per LID, weight = hop cost x
 * hop_scale + CA pairs routed so far), no deadlock constraint. */
int dfsp_weighted_paths(struct route_ctx *ctx, const struct route_graph *g,
			struct lft_set *t, uint64_t hop_scale, uint32_t rounds);

#endif
