/* The verifier's shared, read-only view of a fabric and its tables, built
 * once by verify_routes and read by the passes (per-destination walks,
 * channel dependency graph, shift permutations, LMC path diversity). */
#ifndef IBSM_ROUTING_VERIFY_INTERNAL_H
#define IBSM_ROUTING_VERIFY_INTERNAL_H

#include <stdint.h>
#include "../../core/fabric.h"
#include "../lft.h"
#include "../verify.h"

/* One switch-to-switch link seen from one end. */
struct vx_adj {
	uint32_t peer;          /* switch ordinal at the far end */
	uint32_t port;          /* fabric port index of this end */
};

struct vx {
	const struct fabric *f;
	const struct lft_set *t;
	const struct verify_opts *o;
	uint32_t nsw;
	uint32_t max_lid;       /* highest endpoint LID */
	uint32_t *owner;        /* LID -> endpoint port index, FAB_NONE */
	/* terminals: linked CA/router ports, node order */
	uint32_t nterm;
	uint32_t *term;         /* fabric port index */
	uint32_t *term_sw;      /* switch ordinal it hangs off, FAB_NONE if none */
	uint32_t *term_of_port; /* fabric port index -> terminal, FAB_NONE */
	uint32_t *sw_term_off;  /* nsw + 1: sw_term[off[s] .. off[s+1]) */
	uint32_t *sw_term;
	/* switch graph */
	uint32_t *adj_off;      /* nsw + 1 */
	struct vx_adj *adj;
	uint32_t nchan;         /* directed switch-to-switch links */
	uint32_t *chan_of_port; /* fabric port index -> channel, FAB_NONE */
	uint32_t *port_of_chan; /* channel -> fabric port index (its egress) */
	/* Where each port of each switch leads, so that a step reads these
	 * small arrays instead of three fabric structs scattered over tens of
	 * MB (at 65,536 CAs those misses cost more than the table lookup):
	 * port p of switch s is sw_port_to[sw_port_off[s] + p], p = 0..its
	 * num_ports; port 0's fabric index is sw_first[s]. */
	uint32_t *sw_first;     /* nsw: fabric port index of port 0 */
	uint32_t *sw_port_off;  /* nsw + 1 */
	uint32_t *sw_port_to;   /* VX_TO_BAD, a switch ordinal, or
				 * VX_TO_TERM | the peer's fabric port index */
	uint8_t *sw_port_back;  /* same index: the peer's port number */
	/* CDG dependency bitmaps: switch s has (np+1)^2 bits from bit_off[s],
	 * bit in*(np+1)+out set when a route enters on `in` and leaves on
	 * `out` (both switch-to-switch ports). */
	uint64_t *bit_off;      /* nsw + 1 */
};

/* Outcome of one LFT lookup at a switch. */
enum vx_step {
	VX_NEXT,                /* forwards to another switch */
	VX_DELIVER,             /* delivers to the LID's owner */
	VX_MISSING,             /* LFT_NO_PATH */
	VX_BAD_PORT,            /* port beyond the switch, unlinked, or 0 */
	VX_MISDELIVER,          /* delivers to a terminal that is not the owner */
};

#define VX_TO_BAD UINT32_MAX       /* unlinked */
#define VX_TO_TERM 0x80000000u     /* flag: a CA/router port */

/* vx_step for the entry p that switch ordinal s holds for `lid`. */
static inline enum vx_step vx_step_port(const struct vx *x, uint32_t s,
					uint32_t lid, uint8_t p,
					uint32_t *next, uint32_t *egress)
{
	uint32_t off = x->sw_port_off[s], to;

	*next = FAB_NONE;
	*egress = FAB_NONE;
	if (p == LFT_NO_PATH || lid > x->max_lid)
		return VX_MISSING;
	if (p >= x->sw_port_off[s + 1] - off)
		return VX_BAD_PORT;
	if (p == 0)
		return x->owner[lid] == x->sw_first[s] ? VX_DELIVER : VX_BAD_PORT;
	to = x->sw_port_to[off + p];
	if (to == VX_TO_BAD)
		return VX_BAD_PORT;
	*egress = x->sw_first[s] + p;
	if (!(to & VX_TO_TERM)) {
		*next = to;
		return VX_NEXT;
	}
	return x->owner[lid] == (to & ~VX_TO_TERM) ? VX_DELIVER : VX_MISDELIVER;
}

/* Look up LID `lid` at switch ordinal s. *next gets the next switch for
 * VX_NEXT, *egress the fabric port index used (VX_NEXT, VX_DELIVER to a
 * terminal; FAB_NONE for delivery on port 0). */
enum vx_step vx_step(const struct vx *x, uint32_t s, uint32_t lid,
		     uint32_t *next, uint32_t *egress);

/* Name of switch ordinal s for messages: its description or GUID. */
const char *vx_sw_name(const struct vx *x, uint32_t s, char *buf, size_t len);

/* Error list kept in discovery order. */
struct vx_errors {
	char (*msg)[VERIFY_ERR_LEN];
	uint32_t count, cap;
};
void vx_err_add(struct vx_errors *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Per-destination pass (completeness, reachability, hops, CDG edges,
 * all-to-all loads), threaded over destination switches. Fills res fields
 * and, when cdg_bits is non-NULL, the dependency bitmaps; a2a_load (per
 * fabric port) when link loads are wanted. Returns 0 or -ENOMEM. */
int vx_dest_pass(const struct vx *x, unsigned threads, uint64_t *cdg_bits,
		 uint64_t *a2a_load, uint64_t *min_sw_hops_total,
		 struct vx_errors *errs, struct verify_result *res);

/* Breadth-first search of the switch graph from src: dist[] (UINT32_MAX:
 * not connected) and the switches in the order visited, *qn of them. */
void vx_bfs(const struct vx *x, uint32_t src, uint32_t *dist,
	    uint32_t *queue, uint32_t *qn);

/* Distances from VX_GROUP destination switches at once (verify_bfs.c):
 * after vx_bfs_group_run(x, g, lo, n), dist + (d - lo) * nsw holds
 * vx_bfs's dist[] for destination d, lo <= d < lo + n <= lo + VX_GROUP. */
#define VX_GROUP 64
struct vx_bfs_group {
	uint32_t nsw, lo, n;
	uint64_t *vis, *front, *next;   /* per switch: bit b for lo + b */
	uint32_t *dist;                 /* VX_GROUP x nsw */
};
int vx_bfs_group_init(struct vx_bfs_group *g, uint32_t nsw);
void vx_bfs_group_free(struct vx_bfs_group *g);
void vx_bfs_group_run(const struct vx *x, struct vx_bfs_group *g,
		      uint32_t lo, uint32_t n);

/* Cycle search on the dependency graph in cdg_bits. Returns 1 and writes a
 * description of the cycle into desc (len bytes), 0 if acyclic, -ENOMEM.
 * *edges gets the number of dependencies. */
int vx_cdg_cycle(const struct vx *x, const uint64_t *cdg_bits,
		 uint64_t *edges, char *desc, size_t len);

/* Lower bound on the all-to-all max link load (documented in verify_load.c). */
double vx_a2a_bound(const struct vx *x, uint64_t min_sw_hops_total,
		    double *switch_bound);

/* Shift permutations; fills the shift_* fields. Returns 0 or -ENOMEM. */
int vx_shifts(const struct vx *x, unsigned threads, struct verify_result *res);

/* LMC path diversity; fills the *_disjoint_paths fields. */
int vx_diversity(const struct vx *x, struct verify_result *res);

#endif
