/* ftree minimal-change repair: state shared by ftree_repair.c (the
 * per-LID repair) and ftree_repair_diff.c (what changed in the fabric).
 * Internal to those two files; the engine sees ft_repair (ftree.h). */
#ifndef IBSM_ROUTING_FTREE_REPAIR_H
#define IBSM_ROUTING_FTREE_REPAIR_H

#include <stddef.h>
#include <stdint.h>
#include "ftree.h"

/* More lost links than this: a large change, routed in full. */
#define FT_REPAIR_MAX_LINKS 256

struct ft_lost {                /* a port of a surviving switch whose link is gone */
	uint32_t sw;
	uint8_t port;
};

struct ft_hit {                 /* an entry that points at a lost port */
	uint32_t lid, sw;
};

struct ft_repair {
	const struct ftree *t;
	const struct fabric *pf;        /* the previous fabric */
	const struct lft_set *prev;
	const uint32_t *prev_sw;        /* new ordinal -> previous ordinal */
	struct lft_set *lft;
	struct ft_lost *lost;
	uint32_t nlost;
	uint32_t *gone, ngone;          /* LIDs whose port left the fabric */
	struct ft_hit *hits;
	uint64_t nhits;
	uint32_t *dest_of;              /* per LID: index into t->dest */
	/* per switch, for the LID being repaired */
	uint32_t *in_r;                 /* == stamp: its path crossed a lost link */
	uint8_t *state;                 /* RS_*, while in_r == stamp */
	uint8_t *old;                   /* its entry before the repair */
	uint32_t *walk_at;              /* == stamp: walk_res is this LID's */
	uint8_t *walk_res;
	uint64_t *inflow;
	uint32_t *committed;            /* == stamp: its flow is in load[] */
	uint32_t *free_at;              /* == stamp: free_res is this LID's */
	uint8_t *free_res;              /* nothing is routed through it */
	uint32_t *anc_mark, *anc_list, anc_of, anc_epoch; /* ancestors of anc_of */
	uint32_t stamp, wstamp, wround; /* per LID; walk memo: per decision,
					 * and where this LID's round began */
	uint8_t *old_ty;                /* W_* shape of its path before */
	uint32_t *prev_level;           /* per previous switch ordinal */
	uint32_t *rl, nr;               /* the switches whose path broke */
	/* detour search */
	uint32_t *seen, *pred, *queue, search;
	uint8_t *in_port, *via;
	/* the down->up turns of the previous tables, then those the repair
	 * adds (ftree_turns.c checks each new one for cycles) */
	struct ft_turns tu;
	int have_turns;
	uint64_t prev_turns;
	double turns_s;
	uint64_t *load;                 /* per fabric port: flow the repair added */
	/* statistics */
	uint64_t changed, cleared, redecided, detours, lazy_fallbacks;
	uint32_t nlids;
	unsigned threads;               /* for the previous-turn scan */
};

/* ftree_repair_diff.c: fills lost and gone; 0 when the repair applies,
 * 1 with why when not, negative errno. */
int ft_repair_diff(struct ft_repair *rp, const struct route_options *opt,
		   char *why, size_t len);

/* ftree_repair_turns.c: rp->tu holding the turns the previous tables
 * take. 0, 1 with why if they close a cycle on this tree, -ENOMEM. */
int ft_repair_turns(struct ft_repair *rp, char *why, size_t len);

#endif
