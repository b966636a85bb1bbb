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
	const struct route_memo *memo;  /* the previous tables' turns, or NULL */
	uint32_t *new_of_prev;          /* previous ordinal -> new (memo only) */
	int turns_from_memo;
	int turns_overlap;              /* taken while the tables were copied */
	double turns_s;
	uint64_t *load;                 /* per fabric port: flow the repair added */
	uint64_t nidle;                 /* hits[nhits - nidle ..]: idle, in bulk */
	/* statistics */
	uint64_t idle_moved;
	uint64_t blocks;
	struct { uint64_t lids, r; double s; } by_kind[2]; /* switch, CA LIDs */
	uint64_t changed, cleared, redecided, detours, lazy_fallbacks;
	uint32_t nlids;
	unsigned threads;               /* for the previous-turn scan */
};

enum { RS_OPEN, RS_DOWN, RS_UP, RS_DETOUR };     /* a switch of R */
enum { W_BAD, W_DOWN, W_UPDOWN, W_OTHER };      /* shape of a path */

static inline uint8_t rp_entry(const struct ft_repair *rp, uint32_t x,
			       uint32_t lid)
{
	return lft_row(rp->lft, x)[lid];
}

static inline void rp_set_entry(struct ft_repair *rp, uint32_t x, uint32_t lid,
				uint8_t p)
{
	lft_row(rp->lft, x)[lid] = p;
}

/* In R for this LID: its path crossed a lost link. */
static inline int rp_in_r(const struct ft_repair *rp, uint32_t x)
{
	return rp->in_r[x] == rp->stamp;
}

/* Settled for this LID: outside R (path unchanged) or decided. */
static inline int rp_is_final(const struct ft_repair *rp, uint32_t x)
{
	return !rp_in_r(rp, x) || rp->state[x] != RS_OPEN;
}

/* The shape a decided switch of R gives its path. */
static inline int rp_shape_of(const struct ft_repair *rp, uint32_t x)
{
	static const uint8_t shape[] = { W_BAD, W_DOWN, W_UPDOWN, W_OTHER };
	return shape[rp->state[x]];
}

/* ftree_repair_choose.c */
void rp_add_to_r(struct ft_repair *rp, uint32_t x, uint32_t lid);
int rp_walk(struct ft_repair *rp, uint32_t y, uint32_t tg, uint32_t lid);
void rp_account(struct ft_repair *rp, uint32_t x, uint32_t tg, uint32_t lid,
		uint64_t f);
void rp_decide_down(struct ft_repair *rp, uint32_t x, uint32_t tg, uint32_t lid);
void rp_decide_up(struct ft_repair *rp, uint32_t x, uint32_t tg, uint32_t lid,
		  uint64_t f);
int rp_decide_detour(struct ft_repair *rp, uint32_t s, uint32_t tg, uint32_t lid);
void rp_sort_r(struct ft_repair *rp);
uint32_t rp_detour_order(struct ft_repair *rp, uint32_t *out);

/* ftree_repair_lid.c: repair one LID given its entries on lost ports
 * h[0..nh); undecided is scratch for nsw switches. 0, -1 when some
 * switch finds no path (the engine then routes in full), -ENOMEM. */
int rp_repair_lid(struct ft_repair *rp, uint32_t lid, const struct ft_hit *h,
		  uint32_t nh, uint32_t *undecided);

/* ftree_repair_diff.c: fills lost and gone; 0 when the repair applies,
 * 1 with why when not, negative errno. */
int ft_repair_diff(struct ft_repair *rp, const struct route_options *opt,
		   char *why, size_t len);

/* ftree_repair_idle.c: rp_idle_split moves the hits of LIDs whose every
 * hit is an idle entry on a lost up-link (nothing leads into the switch)
 * to the tail of hits (nidle of them); rp_idle_repoint gives those from
 * hits[from] on the first up-link whose path is up*-then-down*, after the
 * per-LID pass, and sets redo[lid] where none is. 0 or -ENOMEM. */
int rp_idle_split(struct ft_repair *rp);
int rp_idle_repoint(struct ft_repair *rp, uint64_t from, uint8_t *redo);

/* ftree_repair_turns.c: rp->tu holding the turns the previous tables
 * take. 0, 1 with why if they close a cycle on this tree, -ENOMEM. */
int ft_repair_turns(struct ft_repair *rp, char *why, size_t len);

#endif
