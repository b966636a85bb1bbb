/* ftree, split chains (ftree_split.c) and their widest paths
 * (ftree_widest.c): what the two share. */
#ifndef IBSM_FTREE_SPLIT_H
#define IBSM_FTREE_SPLIT_H

#include "ftree.h"

/* One destination's chains while they admit flow by room. */
struct ft_split {
	int on;                 /* admit by room (weighted, degraded, no prev) */
	uint32_t link[FT_MAX_LEVELS + 1];       /* chain[i] -> chain[i - 1] */
	int64_t rem[FT_MAX_LEVELS + 1];         /* room left on link[i] */
	uint32_t cidx[FT_MAX_LEVELS + 1];       /* link[i]'s candidate index
						 * (later chains), or UINT32_MAX */
	int crm_ok;             /* w->crm holds this destination's rooms */
	uint32_t lastc[FT_MAX_LEVELS + 1];      /* the last chain's candidates */
	uint32_t nlast;         /* ... its length (0: none) */
	int extra;              /* not the destination's first chain */
	int more;               /* flow left out, or a chain link filled up */
	uint64_t admitted;      /* compute-node flow routed by the chains */
};

/* What this destination's chains admitted onto link e so far. */
static inline uint64_t split_extra(const struct ft_work *w, uint32_t e)
{
	return w->xtra_stamp[e] == w->epoch_dst ? w->xtra[e] : 0;
}

/* Bits set in v (without -mpopcnt the builtin is a library call). */
static inline uint32_t ones64(uint64_t v)
{
	v -= (v >> 1) & 0x5555555555555555ull;
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((v * 0x0101010101010101ull) >> 56);
}

/* The next chain of a split destination: the path down from an ancestor
 * as high as any to the destination's switch whose tightest link has the
 * most room left (widest path, over the ancestors in level order; ties:
 * column order), so one chain takes as much as one can. 0 if every such
 * path has a full link. */
uint32_t ft_split_chain(struct ft_work *w, const uint32_t *cand_off,
			const uint32_t *cand, const uint32_t *cand_lo,
			const uint32_t *cand_up, struct ft_split *sp,
			uint32_t *chain);

#endif
