/* The switch-level view the generic engines (minhop, updn, loadable ones)
 * route on, and the per-destination port chooser they share.
 *
 * A destination is routed per destination *switch*: hop counts or up/down
 * distances are computed once for the switch, then every LID hanging off it
 * (its own LID and the CA/router ports cabled to it, with their LMC
 * aliases) gets its entries from the same candidate sets. */
#ifndef IBSM_ROUTING_ROUTE_GRAPH_H
#define IBSM_ROUTING_ROUTE_GRAPH_H

#include <stdint.h>
#include "../core/fabric.h"
#include "lft.h"

/* One switch-to-switch link seen from one end. */
struct rg_adj {
	uint32_t peer;          /* switch ordinal at the far end */
	uint32_t gport;         /* fabric port index of this end (load slot) */
	uint32_t peer_node;     /* fabric node index of the far end */
	uint8_t port;           /* port number at this end */
};

/* One LID-owning endpoint hanging off (or being) a switch. */
struct rg_ep {
	uint32_t lid;           /* base LID */
	uint8_t nlids;          /* 1 << LMC */
	uint8_t port;           /* egress at its switch (0: the switch itself) */
	uint8_t weighted;       /* CA/router: counts in port load */
};

struct route_graph {
	const struct fabric *fab;
	uint32_t nsw;
	uint32_t *adj_off;      /* nsw + 1: adj[adj_off[s] .. adj_off[s+1]) */
	struct rg_adj *adj;
	uint32_t *ep_off;       /* nsw + 1: endpoints attached to switch s */
	struct rg_ep *ep;
	uint32_t *cas;          /* per switch: weighted endpoints attached */
	uint32_t max_lid;
};

/* Build from f (LIDs assigned). Returns 0 or -ENOMEM. */
int rg_build(struct route_graph *g, const struct fabric *f);
void rg_free(struct route_graph *g);

/* Breadth-first hop counts from switch src over switch links; unreachable
 * switches get UINT32_MAX. queue is nsw entries of scratch. */
void rg_bfs(const struct route_graph *g, uint32_t src, uint32_t *dist,
	    uint32_t *queue);

/* Switch ordinals sorted by node GUID (ties by ordinal) into order[nsw]:
 * engines whose tables depend on the order destinations are routed in
 * (port loads build up in it) use it, so the same fabric gets the same
 * tables whether it was read from a file or discovered by the daemon. */
void rg_guid_order(const struct route_graph *g, uint32_t *order);

/* Route every LID attached to switch d from every other switch s that has
 * at least one candidate link (cand[i] != 0 for adj index i of s).
 * Among the candidates of s, each LID takes the least loaded port (load is
 * per fabric port index: weighted LIDs routed out of it so far); the
 * 2^lmc LIDs of one endpoint prefer distinct neighbour switches, then
 * distinct ports, before load. Ties go to the lower port number. */
void rg_route_dest(const struct route_graph *g, uint32_t d,
		   const uint8_t *cand, uint32_t *load, struct lft_set *t);

/* Switches that have no route to some LID attached to d (no candidate):
 * count of (switch, LID) pairs left LFT_NO_PATH, for refusal messages. */
uint32_t rg_count_unrouted(const struct route_graph *g, uint32_t d,
			   const uint8_t *cand);

#endif
