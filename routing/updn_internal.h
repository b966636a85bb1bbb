/* updn internals shared by updn.c (ranking, legal routes) and
 * updn_detour.c (switches with no up*\/down* path to a destination). */
#ifndef IBSM_ROUTING_UPDN_INTERNAL_H
#define IBSM_ROUTING_UPDN_INTERNAL_H

#include <stdint.h>
#include "rg_turns.h"
#include "route_graph.h"

#define INF UINT32_MAX
#define UPDN_EARLY_ROUNDS 3     /* passes with failed destinations first */

struct detour_search;

struct updn {
	struct route_graph g;
	uint32_t *rank;         /* BFS distance from the root set */
	uint32_t *pos;          /* position in key order: smaller = more "up" */
	uint32_t *order;        /* switch ordinals in key order */
	uint32_t *comp;         /* connected component id */
	uint32_t *by_guid;      /* switch ordinals in GUID order: every loop
				 * whose order shows in the tables runs in it,
				 * so they do not depend on the order the
				 * fabric was read or discovered in */
	uint8_t *early;         /* per switch: route it first as a destination
				 * (a detour to it failed in an earlier pass) */
	uint32_t *D, *C, *queue;
	uint32_t *load;
	uint8_t *cand;
	uint32_t nroots;
	struct rg_turns turns;  /* down->up turns taken by CA-sourced detours */
	uint64_t connected;     /* (switch, destination) pairs with no up*\/down* path */
	uint64_t detoured;      /* ... of those, switches with CAs given safe detours */
	uint64_t unsafe;        /* ... switches with CAs left on min-hop entries */
	struct detour_search *ds; /* updn_detour.c's search state, made on first use */
};

/* Give the switches that cannot reach switch d legally their entries
 * (cand[] for d): loop-safe detours for switches with CAs, min-hop for the
 * rest. Needs dest_candidates' C[] and cand[] for d. Returns 0 or
 * -ENOMEM. */
int updn_connect_stuck(struct updn *u, uint32_t d);
/* Forget what the detour search learnt about the admitted turns (they
 * were reset: a new pass). */
void updn_detour_reset(struct updn *u);
void updn_detour_free(struct updn *u);

#endif
