/* The `ftree` routing engine: fat-tree aware, up-then-down paths where the
 * tree has them and checked detours elsewhere (deadlock-free with one VL),
 * d-mod-k balanced on intact trees, rebalancing on degraded ones, LMC
 * multipath and minimal-change re-routing. Internal to routing/:
 * the rest of ibsm only sees `route_ftree` (engine.h).
 *
 * References:
 *  - E. Zahavi et al., "Optimized InfiniBand fat-tree routing for shift
 *    all-to-all communication patterns", CCPE 2010 (d-mod-k, cabled order).
 *  - S. Ohring et al., "On generalized fat trees", IPPS 1995 (XGFT levels).
 *  - Schroeder et al., "Autonet", 1991 (up-down routing is deadlock-free).
 *
 * Files: ftree_levels.c (tree shape from the graph), ftree_chassis.c
 * (director chassis above the leaves, and their cabled order), ftree_route.c (the
 * per-destination assignment and the engine), ftree_group.c (a target
 * switch's setup: ancestors, candidates, good and non-good switches),
 * ftree_ahead.c (setups prepared ahead, the detours' context ring),
 * ftree_split.c (several chains per destination on degraded trees,
 * admitted by room; ftree_widest.c: their widest paths),
 * ftree_degraded.c (load caps and source spilling on degraded trees),
 * ftree_reroute.c (keep previous entries where still valid),
 * ftree_repair*.c (after lost links or switches: change only the entries
 * that must change), ftree_detour.c (switches with no up-then-down
 * path: detours whose down->up turns keep the CDG acyclic), ftree_turns.c
 * (the turn set and its cycle check, on the incremental checker
 * routing/cdg/cdg_incr.h), ftree_witness.c (short cycles found from the
 * taken turns, before any search), ftree_hub.c (the
 * hub leaf where detours take their new turns first), ftree_write.c
 * (the detours and the tables, on a second thread), ftree_closed.c (closed-form
 * routes for the CA LIDs of intact trees, rows written in parallel),
 * ftree_tuning.c (the default settings and ftree_run). */
#ifndef IBSM_ROUTING_FTREE_H
#define IBSM_ROUTING_FTREE_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include "../../core/fabric.h"
#include "../engine.h"
#include "../lft.h"
#include "../cdg/cdg_incr.h"
#include "../cdg/cdg_witness.h"

#define FT_MAX_LEVELS 16
#define FT_TURN_MEMO 16
#define FT_WINDOW 64            /* LIDs buffered before writing rows */

/* What a test or a benchmark may tune in one ftree run (ftree_run); the
 * daemon, ibsm-route and route_run use ftree_tuning_default. Each field
 * names the file that reads it; none changes the tables unless it says
 * so (the tests compare both ways). */
struct ftree_tuning {
	unsigned order_gap_bits;        /* turn checker: label spacing (32;
					 * tests: small, to force relabels) */
	int witness;                    /* ftree_witness.c: short cycles from
					 * the taken turns first (1; 0: the
					 * search decides alone) */
	int repair;                     /* ftree_repair.c: minimal-change
					 * repair (1; 0: route in full) */
	unsigned repair_idle_min_hits;  /* ftree_repair_idle.c: idle up-link
					 * entries re-pointed in bulk at a
					 * switch with this many on its lost
					 * port (256) */
	int closed;                     /* ftree_closed.c: closed-form CA
					 * routes on intact trees (1) */
	uint64_t interleave_min;        /* ftree_route.c: degraded trees with
					 * this many table entries interleave
					 * switch LIDs between the targets
					 * (FT_THREAD_MIN_ENTRIES; CHANGES the
					 * tables of smaller trees) */
	unsigned setup_depth;           /* ftree_ahead.c: targets' setups
					 * prepared ahead on the second
					 * thread (12; 1 to FT_SIDE_MAX) */
	unsigned ng_rounds;             /* ftree_group.c: distance from which
					 * the non-good switches are searched
					 * from their side (4; 0: always) */
	int split_ref;                  /* ftree_split.c: the reference chain
					 * split, every widest path again (0) */
	unsigned ul32_max_weight;       /* ftree_split.c: trees with more
					 * compute nodes do not split
					 * (FT_UL32_MAX_WEIGHT; CHANGES the
					 * tables when lowered) */
	int spill_full;                 /* ftree_degraded.c: run every spill
					 * pass whole (0) */
};

/* The defaults, in one place (ftree_tuning.c). */
extern const struct ftree_tuning ftree_tuning_default;

/* What one ftree run did, for tests and benchmarks: zeroed when the run
 * starts, counted by the router's thread only. */
struct ftree_stats {
	int repair_taken;               /* the repair made the tables */
	int closed_taken;               /* the closed form routed the CAs */
	unsigned reset_by_holes;        /* resets that wrote only the unrouted
					 * LIDs (ft_repair_reset) */
	uint64_t wide_updates;          /* widest paths updated, not redone
					 * (ftree_split.c) */
	uint64_t spill_cut;             /* spill passes cut short
					 * (ftree_degraded.c) */
};

/* route_ctx.arg of an ftree run (ftree_run; a test that calls the
 * engine's callbacks itself may set it): either pointer may be NULL. */
struct ftree_run_arg {
	const struct ftree_tuning *tuning;
	struct ftree_stats *stats;
};

/* route_run of ftree, tuned (tu NULL: the defaults), with this run's
 * counters in *st (optional). Same return and `why` as route_run. */
int ftree_run(const struct fabric *f, const struct route_options *opt,
	      const struct ftree_tuning *tu, struct ftree_stats *st,
	      struct lft_set *t, char *why);

/* One switch-to-switch link seen from one end. */
struct ft_link {
	uint32_t peer;          /* switch ordinal at the far end */
	uint32_t egress;        /* fabric port index of this end (load slot) */
	uint32_t rev_egress;    /* fabric port index of the far end */
	uint8_t port;           /* port number at this end */
	uint8_t rport;          /* port number at the far end */
};

/* One destination endpoint: a CA/router port or a switch (port 0). */
struct ft_dest {
	uint32_t sw;            /* switch the endpoint hangs off (or is) */
	uint32_t lid;           /* base LID */
	uint8_t port;           /* egress port at sw (0: the switch itself) */
	uint8_t nlids;          /* 1 << LMC */
	uint8_t weighted;       /* a compute node: counts in load balancing */
};

/* The tree as the engine sees it; built once per fabric by ft_build. */
struct ftree {
	const struct fabric *fab;
	uint32_t nsw;
	uint8_t *level;         /* per switch ordinal: 0 = leaf */
	uint32_t height;        /* highest level */
	uint32_t *order;        /* tie-break rank per switch (column order) */
	uint32_t *up_off, *dn_off;      /* CSR offsets, nsw + 1 each */
	struct ft_link *up, *dn;        /* links to level + 1 / level - 1 */
	uint32_t *by_level;     /* switch ordinals sorted by level, ascending */
	uint32_t lvl_off[FT_MAX_LEVELS + 2];
	uint32_t *nb_off;       /* nsw + 1: every switch link, up-links then */
	uint32_t *nb_peer;      /* down-links (the order of up[] and dn[]), */
	uint8_t *nb_rport;      /* compact for whole-fabric searches */
	uint32_t *nb_rev;       /* per nb index: the same link's index in
				 * its far end's list (NULL: not paired) */
	uint32_t *nb_srt_rev;   /* each switch's nb_rev values ascending */
	uint32_t *nb_srt_peer;  /* (same slots) their far ends */
	uint32_t *peer_sw;      /* per fabric port index: peer switch or FAB_NONE */
	uint8_t *peer_num;      /* per fabric port index: the peer switch's port
				 * number (0 where peer_sw is FAB_NONE) */
	uint8_t *port_up;       /* per fabric port index: 1 if it links to a
				 * switch one level up (compact for the
				 * detours' many turn checks) */
	uint8_t *nports;        /* per switch: its number of ports */
	uint32_t *fport;        /* per switch: fabric index of its port 0 */
	uint32_t *weight;       /* per switch: compute-node ports attached */
	uint64_t total_weight;
	struct ft_dest *dest;   /* CAs in cabled order, then switches */
	uint32_t ndest, nca_dest;
	uint64_t cap;           /* target max link load (degraded rebalancing) */
	uint32_t nchassis;      /* director chassis found */
	uint32_t *chassis;      /* per switch: chassis id or FAB_NONE (NULL: none) */
	uint32_t *chassis_pos;  /* per switch: cabled position inside it */
	uint32_t hub;           /* the leaf where detours turn (FAB_NONE: none) */
	uint8_t *hub_role;      /* per switch: FT_HUB_* bits */
	uint8_t *hub_des;       /* per up-link of the hub: the port to the
				 * designated switch of its piece */
	uint8_t *hub_port;      /* per switch: its step toward the hub (0:
				 * none; ftree_hub.c) */
	uint32_t *hub_e;        /* per top without FT_HUB_DOWN: its rescue
				 * switch (ftree_hub.c), else FAB_NONE */
	uint32_t max_lid;
	/* The run's settings and counters: ft_build points them at the
	 * defaults and at own_stats, ft_prepare at ftree_run's. Counted
	 * through a const tree by the router's thread (ft_work.t). */
	const struct ftree_tuning *tune;
	struct ftree_stats *stats;
	struct ftree_stats own_stats;
};

/* The switch at the far end of port p of switch y, or FAB_NONE (port 0,
 * no port, a CA or nothing there). Hot in the detour searches: reads the
 * tree's own arrays, not the fabric's node records. */
static inline uint32_t ft_far_sw(const struct ftree *t, uint32_t y, uint8_t p)
{
	if (!p || p == LFT_NO_PATH || p > t->nports[y])
		return FAB_NONE;
	return t->peer_sw[t->fport[y] + p];
}

/* ftree_levels.c: build the tree view. Returns 0, -ENOMEM, or -ENOTSUP
 * with `why` (256 bytes) saying why f is not a fat-tree. */
int ft_build(struct ftree *t, const struct fabric *f,
	     const struct route_options *opt, char *why);
void ft_free(struct ftree *t);

/* ftree_chassis.c: director chassis, i.e. the connected pieces of the
 * tree above the leaves that are complete 2-level trees of ASICs; fills
 * nchassis, chassis and chassis_pos (needs levels and links). 0 or
 * -ENOMEM. */
int ft_find_chassis(struct ftree *t);
/* Parse a chassis ASIC's description, "MF0;<chassis>:<model>/L05/U1"
 * (line card 5, ASIC 1) or ".../S01/U2" (fabric card): 1 and the parts,
 * or 0 if desc has another shape. */
int ft_chassis_desc(const char *desc, char *name, size_t len, char *kind,
		    unsigned *card, unsigned *unit);

/* ftree_hub.c: the hub leaf and its designated up-neighbours, where
 * detours take their new down->up turns first (see there why): fills the
 * hub_* fields (needs levels, links, weights and by_level; opt: the
 * previous tables' memo, whose hub is kept). 0 or -ENOMEM.
 * ft_hub_turn: may a detour take the new turn at y, in on port `in`
 * (from above), out on port `out` (upward), as a hub turn? */
#define FT_HUB_LEAF 1           /* the hub leaf */
#define FT_HUB_UP 2             /* a designated up-neighbour of it */
#define FT_HUB_DOWN 4           /* a top with a path down to it */
#define FT_HUB_RESCUE 8         /* the rescue switch of a top without */
int ft_find_hub(struct ftree *t, const struct route_options *opt);
int ft_hub_turn(const struct ftree *t, uint32_t y, uint8_t in, uint8_t out);
/* A LID that carries no load (a switch's, or a CA's that is no compute
 * node): the hub's entry, if it goes up, goes up to a designated switch
 * (of the same piece if that one is good: good[x] == grp), so detours
 * turn there. */
void ft_hub_entry(const struct ftree *t, uint8_t *nh, const uint32_t *good,
		  uint32_t grp);
/* Does a designated switch lack an up-then-down path to the target (its
 * piece may have to leave through the hub)? */
int ft_hub_needed(const struct ftree *t, const uint32_t *good, uint32_t grp);

/* ftree_degraded.c: the load cap, the largest per-link all-to-all lower
 * bound over leaves (traffic into a leaf over its up-links). */
uint64_t ft_load_cap(const struct ftree *t);

#define FT_PORT_UP 1
#define FT_PORT_TURN_IN 2

/* ftree_turns.c: the down->up turns detours take (ports at switch y:
 * in from above, out upward) and the check that each keeps the channel
 * dependency graph acyclic: the incremental checker (cdg/cdg_incr.h) over
 * fabric ports as channels, the tree's up*-down* dependencies and the
 * taken turns both enumerated here, and its witness index. */
struct ft_turns {
	const struct ftree *t;
	uint64_t *bits;         /* per switch: [in port][out port] taken */
	uint64_t *refused_bits; /* same layout: found to close a cycle */
	uint64_t *bit_off;      /* nsw + 1 */
	/* Per switch, per search (stamped with cdg.epoch): what the forward
	 * side pushed (up arrival from up_from, from two neighbours, down
	 * arrival), and the backward side's mirror of it. */
	uint32_t *up_seen, *up_all, *up_from, *dn_seen;
	uint32_t *bk_up_seen, *bk_dn_seen, *bk_dn_all, *bk_dn_from;
	uint8_t *out_of;        /* per fabric port: a turn was taken entering
				 * the switch there (skips the bit tests) */
	uint8_t *into_of;       /* per fabric port: a turn leaves on it */
	uint8_t *port_flag;     /* per fabric port: FT_PORT_UP (links one
				 * level up), FT_PORT_TURN_IN (a turn was
				 * taken entering its own switch on it) */
	struct cdg_incr cdg;    /* one layer; its order starts as up*-down*'s */
	uint64_t ok[FT_TURN_MEMO];      /* new turns that passed, graph unchanged */
	uint32_t nok;
	uint64_t taken, refused;
	/* ftree_witness.c: the taken turns by the pieces of their ends */
	uint32_t *piece;        /* per switch: connected piece with the
				 * switches it shares an up-neighbour with */
	struct cdg_witness wit; /* key (piece of a, piece of b); found counts
				 * the turns refused by a witness, no search */
	uint32_t *mark_z, *mark_x, wstamp;
};

int ft_turns_init(struct ft_turns *tu, const struct ftree *t);
void ft_turns_free(struct ft_turns *tu);
/* May a route enter switch y on port `in` and leave on port `out`? Yes if
 * that is no down->up turn, a turn already taken, or (allow_new) a new one
 * that closes no cycle; ft_turn_take also records a new one. */
int ft_turn_ok(struct ft_turns *tu, uint32_t y, uint8_t in, uint8_t out,
	       int allow_new);
int ft_turn_take(struct ft_turns *tu, uint32_t y, uint8_t in, uint8_t out);
int ft_turn_is_taken(const struct ft_turns *tu, uint32_t y, uint8_t in,
		     uint8_t out);

/* ftree_witness.c: the index of taken turns (turn at v, down from a, up
 * to b) and the short cycle a new turn at y (down from x, up to z) closes
 * with one of them: 1 when found (the turn is refused), 0 when the search
 * must decide (ftree_tuning.witness = 0 leaves every verdict to the
 * search; tests compare both). */
/* piece[s] for every switch: one id per set of switches joined by shared
 * up-neighbours (union-find); the witness index and the hub use it. 0 or
 * -ENOMEM. */
int ft_up_pieces(const struct ftree *t, uint32_t *piece);
int ft_witness_init(struct ft_turns *tu);
void ft_witness_free(struct ft_turns *tu);
void ft_witness_add(struct ft_turns *tu, uint32_t v, uint32_t a, uint32_t b);
int ft_witness_find(struct ft_turns *tu, uint32_t y, uint32_t x, uint32_t z);

/* ftree_detour.c: paths for switches with no up-then-down path. */
struct ft_detour {
	struct ft_turns turns;
	uint32_t *done;         /* per switch: == stamp once its entry is final */
	uint32_t *seen, *pred, *queue;  /* per switch: search state */
	uint8_t *in_port;       /* port at which the search entered a switch */
	uint8_t *via;           /* port at pred[x] that leads to x */
	uint8_t *memo;          /* per switch: port of its last one-hop detour */
	struct ft_peer_cache {  /* per switch, two: a port and its far end */
		uint32_t peer;
		uint8_t port, rport, down;
	} *pcache;
	uint32_t stamp, search;
	int allow_new;          /* new turns this search may take: 0 none,
				 * 1 at the hub (ftree_hub.c), 2 any */
	uint64_t paths, failed;
	int timed;              /* debug log: time the detours */
	double cpu;             /* CPU seconds of the thread making them */
};

int ft_detour_init(struct ft_detour *d, const struct ftree *t);
void ft_detour_free(struct ft_detour *d);

/* Split trees keep the switch links' loads in 32 bits (ft_work.upl). A
 * link's load (per plane) counts the (source, destination) pairs of
 * compute-node ports whose route crosses it: each destination LID adds
 * the flow of the sources routed through the link, once each (a route
 * crosses a link once), and a port's traffic to itself crosses no switch
 * link; so it stays at most W * (W - 1) < 2^32 for W (total_weight) up
 * to 65,536. Bigger trees do not split (ft_split_init). */
#define FT_UL32_MAX_WEIGHT 65536u

/* Per-destination routing scratch, shared by ftree_route.c and helpers. */
struct ft_work {
	const struct ftree *t;
	uint64_t *load;         /* [plane * num_ports + egress] */
	uint32_t num_ports;
	/* per switch scratch */
	uint32_t *anc_mark, *good_mark, *assigned, *ng_dist;
	uint64_t *ng_key;       /* group setup: each non-good switch's first
				 * reaching link, (queue position, index) */
	uint32_t epoch_grp, epoch_dst;
	uint8_t *nh;            /* next-hop port per switch for this LID */
	uint8_t *ng_nh;         /* per group: next hop of non-good switches */
	uint64_t *flow;
	/* ftree_degraded.c: per switch, does its path to the target cross
	 * a link above the cap (valid while ov_stamp == ov_epoch) */
	uint8_t *ov;
	uint32_t *ov_stamp, ov_epoch;
	/* ftree_degraded.c, while a destination spills: per good switch,
	 * the switch its entry leads to and that link's load (compact
	 * copies of peer_sw and load, for the many path walks) */
	uint32_t *nx;
	uint64_t *ld;
	uint32_t nover;         /* switches whose ld is above the cap */
	uint32_t *queue, *anc_list, nanc;
	uint32_t chain[FT_MAX_LEVELS + 1];
	uint8_t chain_port[FT_MAX_LEVELS + 1];  /* port at chain[i] toward chain[i-1] */
	uint32_t nchain;
	uint32_t *br_root, *br_up, *br_flow;    /* ftree_route.c, split
				 * chains: per switch, the switch right below
				 * the chain it goes through, that one's
				 * up-link and flow admitted */
	int64_t *wide;          /* per anc_list index: widest path's room (split) */
	uint32_t *weighted, nweighted;  /* compute-node switches, by level */
	int upper_weighted;     /* some are above the leaves */
	uint8_t *tight;         /* per switch: its flow fills its up-links to
				 * within one unit per link of the cap */
	uint32_t *wide_via;     /* per anc_list index: its down-link (candidate) */
	int64_t *crm;           /* per down candidate: room left (split) */
	uint32_t *rc_off, *rc, *rc_cur; /* per anc_list index: the candidates
				 * whose lower end it is (split) */
	uint32_t *cown;         /* per candidate: its upper end's anc_list index */
	uint32_t rc_tg, rc_na, rc_nc;   /* rc, cown are for target switch
				 * rc_tg - 1 (0: none yet), its nanc, ncand */
	uint32_t *blk_top;      /* per 64 anc_list indices: the best top */
	uint8_t *alvl;          /* per anc_list index: level, and ... */
	uint32_t *aord;         /* ... column order (with rc) */
	uint64_t *wdirty;       /* anc_list indices whose wide is stale */
	int split_on;           /* degraded tree: split chains (ftree_route.c) */
	uint64_t *gl_bits;      /* the target's good compute-node leaves, a bit
				 * per ordinal (ftree_split.c) */
	uint32_t gl_tg;         /* ... of target switch gl_tg - 1 (0: none) */
	uint32_t *pend_memo;    /* per switch above the leaves: == epoch_dst
				 * once pend_has is known */
	uint8_t *pend_has;      /* ... whether a waiting leaf is below it */
	uint64_t *pend_bits;    /* the waiting leaves, a bit per ordinal */
	uint32_t *kid_base;     /* per switch: its lowest lower end, and... */
	uint64_t *kid_mask;     /* ... its lower ends' ordinals - kid_base,
				 * as bits (0: they span 64 or more) */
	uint8_t *kid_seq;       /* per switch: kid_mask set, its links lead
				 * to ascending ordinals, once each */
	uint32_t *dn_peer;      /* per down-link (t->dn): its lower end */
	int all_weighted;       /* every leaf holds compute nodes */
	uint32_t *cm_stamp;     /* per leaf: == epoch_dst once its flow is
				 * committed by the chain that routed it */
	uint32_t *cq, ncq;      /* switches that got such flow, to commit */
	uint32_t early_over;    /* early-committed links above the cap */
	uint32_t *up_rev;       /* per up-link (t->up): the same link's index
				 * in t->dn (ftree_route.c; shared, read-only) */
	uint32_t *up_peer;      /* per up-link: t->up[k].peer, compact (the
				 * scans of a switch's up-links read 4 bytes
				 * a link, not the 16-byte ft_link; shared) */
	uint32_t *anc_pos;      /* per ancestor: its anc_list index */
	uint64_t *xtra;         /* per port: flow admitted this destination */
	uint32_t *xtra_stamp;   /* per port: epoch_dst of xtra */
	/* Split trees: the loads of the switch links live here, not in
	 * load[]. Up-going: slot k = the link's t->dn index (the link seen
	 * from above), so a pass down from a switch reads and writes its
	 * lower ends' up-link loads in sequence, not one cache line per
	 * leaf (ftree_split.c). Down-going: slot ndn + the link's t->up
	 * index (seen from below), so the links down into one switch (a
	 * chain's, the ancestors' candidates) are read in sequence. ft_ld
	 * finds a port's slot. */
	uint32_t *upl;          /* [plane * ul_stride + slot]; 32 bits (half
				 * the bytes the passes below the chains
				 * stream through; in range: see
				 * FT_UL32_MAX_WEIGHT) */
	uint32_t *ul;           /* upl of the plane being routed */
	uint32_t ndn;           /* t->dn_off[nsw]: where down slots start */
	uint32_t ul_stride;     /* slots per plane */
	uint32_t *up_dn;        /* per fabric port: its slot if it is a
				 * switch link's, else UINT32_MAX (NULL: none) */
	uint8_t *dn_rport;      /* per down-link: t->dn[k].rport, compact */
	uint32_t planes;
	uint32_t *used_sw;      /* LMC: chain switches used by earlier LIDs */
	uint32_t nused;
	/* re-routing */
	const struct lft_set *prev;
	uint32_t *prev_sw;      /* new ordinal -> previous ordinal or FAB_NONE */
	/* statistics */
	uint64_t spilled_dests, spilled_sources;
};

/* Add f to (sub: take f from) the load counter of fabric port e (L:
 * load[] of the plane routed): in ul for an up-port on split trees, else
 * L[e]. Returns the new load. */
static inline uint64_t ft_ld_add(const struct ft_work *w, uint64_t *L,
				 uint32_t e, uint64_t f, int sub)
{
	uint32_t k = w->up_dn ? w->up_dn[e] : UINT32_MAX;
	if (k == UINT32_MAX)
		return L[e] = sub ? L[e] - f : L[e] + f;
	/* (in range: see FT_UL32_MAX_WEIGHT) */
	return w->ul[k] = (uint32_t)(sub ? w->ul[k] - f : w->ul[k] + f);
}

static inline uint64_t ft_ldv(const struct ft_work *w, const uint64_t *L,
			      uint32_t e)
{
	uint32_t k = w->up_dn ? w->up_dn[e] : UINT32_MAX;
	return k == UINT32_MAX ? L[e] : w->ul[k];
}

/* ftree_degraded.c: called after the default assignment of a weighted
 * destination LID; adds its all-to-all flows to the link loads and, where
 * a link exceeds the cap, re-chooses the up-links of source leaves and of
 * the switches above them. */
void ft_spill(struct ft_work *w, uint32_t target, uint32_t plane);

/* ftree_split.c: step 3b, the switches below the destination's chain
 * go up toward it; on degraded trees (split_on) a chain takes flow only
 * while its links have room and further chains take the rest. cand_off
 * and cand: the ancestors' down candidates (ftree_route.c's group),
 * cand_lo: each one's lower end (its anc_list index), cand_up: its
 * t->up index;
 * good_weight: compute nodes on good switches off the ancestors. */
void ft_below_chains(struct ft_work *w, const uint32_t *cand_off,
		     const uint32_t *cand, const uint32_t *cand_lo,
		     const uint32_t *cand_up,
		     uint64_t good_weight, uint32_t lid,
		     uint64_t *L, int weighted);
/* Decide split_on and allocate what splitting needs: 0 or -ENOMEM. */
int ft_split_init(struct ft_work *w);
void ft_split_free(struct ft_work *w);

/* Is port p of switch x an up-link to a good switch (for this target)? */
static inline int ft_good_up_port(const struct ft_work *w, uint32_t x,
				  uint8_t p)
{
	const struct ftree *t = w->t;
	uint32_t o = ft_far_sw(t, x, p);
	return o != FAB_NONE && t->level[o] > t->level[x] &&
	       w->good_mark[o] == w->epoch_grp;
}

/* ftree_detour.c: after the default entries of one LID (w->nh), give the
 * non-good switches ng[0..nng) (nearest the good set first) paths whose
 * down->up turns keep the CDG acyclic. */
void ft_detour_route(struct ft_detour *d, struct ft_work *w,
		     const uint32_t *ng, uint32_t nng);

/* ftree_reroute.c: previous-table support. */
int ft_reroute_init(struct ft_work *w, const struct route_options *opt,
		    const struct fabric *f);
void ft_reroute_free(struct ft_work *w);
/* Previous egress port of switch sw for lid, or LFT_NO_PATH. */
uint8_t ft_prev_port(const struct ft_work *w, uint32_t sw, uint32_t lid);
/* Log how many entries and 64-entry blocks differ from the previous tables. */
void ft_reroute_report(const struct ft_work *w, const struct fabric *f,
		       const struct lft_set *now);

/* ftree_repair.c: minimal-change repair of the previous tables after
 * links or switches are lost (ftree_repair_diff.c says when it applies).
 * holds_prev: lft already holds a copy of the previous tables
 * (route_ctx.tables_prev), used as it is when the switches are in the same
 * order. Returns 1 when lft holds the repaired tables, 0 when it does not apply
 * or gave up (logged why; lft then holds anything: the caller resets it,
 * ft_repair_reset, before routing in full), or -ENOMEM.
 * ftree_tuning.repair = 0 turns it off (tests compare both);
 * ftree_stats.repair_taken says whether the route took it. */
int ft_repair(struct ft_work *w, const struct route_options *opt,
	      struct lft_set *lft, unsigned threads, int holds_prev);
/* lft as route_run gives an engine that did not set route_ctx.tables_any
 * (empty tables with the local entries), as far as a route in full can
 * tell: the LIDs it routes are left as they are (it writes all of their
 * entries), every other LID is reset. */
void ft_repair_reset(const struct ftree *t, struct lft_set *lft);

/* ftree_write.c: decided LIDs into the tables, and the next target's
 * setup, on a second thread when threads (route_options.threads) is 0 on
 * a multi-CPU machine, or >= 2. */
/* Below this many table entries the hand-off costs more than the second
 * thread saves (measured: 2,000 CAs 0.023 s alone, 0.036 s with two; equal
 * at 11,664 CAs, 21 M entries; 15% faster at 65,536 CAs, 362 M). Also the
 * size from which degraded trees interleave switch LIDs (ftree_route.c). */
#define FT_THREAD_MIN_ENTRIES (32ull << 20)

struct ft_window {
	uint8_t *nh;            /* [k * nsw + sw]: next hop of lid[k] */
	uint32_t lid[FT_WINDOW];
	void *ctx[FT_WINDOW];   /* lid[k]'s argument to fix (NULL: none) */
	uint32_t count;
};

#define FT_WINDOWS 8            /* windows: one filled, the rest queued */
#define FT_SIDE_MAX 16          /* side jobs queued at most */
enum { FT_SIDE_PENDING = 1, FT_SIDE_RUNNING, FT_SIDE_DONE };

struct ft_writer {
	struct lft_set *lft;
	uint32_t nsw;
	struct ft_window win[FT_WINDOWS];
	uint32_t cur;           /* win[cur] is being filled by the router */
	uint32_t head, queued;  /* win[head], ... (queued of them) are handed
				 * to the writer thread, oldest first */
	int threaded, stop;
	/* Called on each LID's row, in LID order, before it is written
	 * (the detours, ftree_route.c); skipped where ctx is NULL. */
	void (*fix)(void *arg, void *ctx, uint8_t *nh);
	void *fix_arg;
	double cpu;             /* the second thread's CPU seconds, once
				 * joined (-1: none) */
	/* Side jobs (the next targets' setups), in the order queued:
	 * side[side_head], ... (side_n of them), started, running or done
	 * until ft_writer_side_wait takes the oldest. */
	struct ft_side {
		void (*fn)(void *);
		void *arg;
		int state;      /* FT_SIDE_PENDING, _RUNNING, _DONE */
	} side[FT_SIDE_MAX];
	uint32_t side_head, side_n;
	int side_pending;       /* atomic: jobs not started (the writer
				 * looks between the rows of a window) */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* CPU seconds of the calling thread (the log's per-thread split). */
static inline double ft_thread_cpu(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int ft_writer_init(struct ft_writer *wr, const struct ftree *t,
		   struct lft_set *lft, unsigned threads);
void ft_writer_add(struct ft_writer *wr, const uint8_t *nh, uint32_t lid,
		   void *ctx);
/* Queue fn(arg) for the second thread (after the side jobs queued
 * before it), or run it here with one thread; -EBUSY (nothing queued)
 * when FT_SIDE_MAX are queued and not taken. ft_writer_side_wait: the
 * oldest job queued is done when it returns (run here if the second
 * thread had not started it); it is taken off the queue. Both from the
 * router's thread only. */
int ft_writer_side(struct ft_writer *wr, void (*fn)(void *), void *arg);
void ft_writer_side_wait(struct ft_writer *wr);
/* Write what is left, stop the thread, free the buffers. */
void ft_writer_finish(struct ft_writer *wr);

/* ftree_closed.c: on an intact tree, route every CA LID in closed form
 * (the tables the load-aware assignment would write, rows in parallel)
 * and leave the chain loads in w->load. Returns 1 if it did, 0 if the
 * tree is not intact (nothing written), -ENOMEM. ftree_tuning.closed = 0
 * turns it off (the unit test compares both); ftree_stats.closed_taken
 * says whether the route took it. */
int ft_closed_route(struct ft_work *w, struct lft_set *lft, unsigned threads);

/* ftree_memo.c: the route memo (engine.h) of ftree's tables, the
 * down->up turns they take. ft_memo_put: the turns of tu into m (emptied
 * first); ft_memo_turn: turn i of m on tree t (new_of_prev maps the memo's
 * switch ordinals to t's), 1 with *y when it is still a down->up turn of
 * t, 0 when a switch or link of it is gone; ft_memo_carry: the turns of
 * prev still in t into m; ft_memo_usable: m is ftree's and sized for the
 * fabric of the previous tables. */
int ft_memo_put(const struct ft_turns *tu, struct route_memo *m);
int ft_memo_turn(const struct ftree *t, const struct route_memo *m,
		 const uint32_t *new_of_prev, uint32_t i, uint32_t *y);
int ft_memo_carry(const struct ftree *t, const struct route_memo *prev,
		  const uint32_t *new_of_prev, struct route_memo *m);
int ft_memo_usable(const struct route_memo *m, const struct fabric *prev_fab);

/* ftree_group.c: a target switch's setup (step 1 of ftree_route.c),
 * cached per target and prepared ahead (ftree_ahead.c). */
struct ft_group {               /* cached per target switch */
	uint32_t *cand_off;     /* per anc_list index: candidates in cand[] */
	uint32_t *cand;         /* indices into t->dn */
	uint32_t *cand_lo;      /* per candidate: its lower end's anc_list index */
	uint32_t *cand_up;      /* per candidate: the same link's t->up index */
	uint8_t *cand_port;     /* per candidate: its port at the ancestor
				 * above (t->dn[cand].port, read in sequence
				 * rather than a cache miss in t->dn each) */
	uint32_t ncand_cap;
	int has_nongood;
	uint64_t good_weight;   /* compute nodes on good switches off the
				 * ancestors (ftree_split.c) */
	uint32_t *ng_list;      /* non-good switches, nearest the good set first */
	uint32_t nng;
	uint8_t *dflt;          /* per switch: its entry unless the LID's own
				 * pass decides otherwise (see group_defaults) */
};
/* The setup of target switch tg into w's group arrays and g. */
int ft_group_setup(struct ft_work *w, struct ft_group *g, uint32_t tg);

/* ftree_ahead.c: the next targets' setups, prepared ahead, and the
 * detours' contexts handed to the thread that writes the rows. */
/* The next targets' setups (step 1) depend on the tree only, so they
 * are prepared ahead, in arrays of their own, while the current target's
 * LIDs are routed; when its target comes, a context's arrays are swapped
 * with the router's. Each array keeps its own epoch (swapped with it),
 * so stale marks never match. */
struct ft_next {
	struct ft_work w;       /* t and the group arrays only */
	struct ft_group g;
	uint32_t tg;
	int r;
	int side;               /* queued for the second thread */
};

/* The setups of the targets after the current one, a ring of contexts
 * given to the next targets in todo order as soon as one is free. With
 * switch LIDs interleaved (~1.5 switch targets, each routed in
 * microseconds, between two compute-node targets at 65,536 CAs) one
 * setup prepared ahead is mostly not started, or still running, when the
 * router comes to it; a few ahead are done. Only for compute-node targets
 * unless interleaved (side_all): without interleaving the switch LIDs
 * come last, their own routing is light and their detours heavy, so the
 * router prepares them itself (side stays 0), in step with the second
 * thread's detours. With one thread one context (setups run when
 * queued). How many: ftree_tuning.setup_depth (12). */

struct ft_ahead {
	struct ft_next c[FT_SIDE_MAX];
	uint32_t depth;
	uint64_t given, taken;  /* targets given a context, taken by the router */
	const uint32_t *todo;   /* the destinations in routing order */
	uint32_t ntodo;
	uint32_t pos;           /* todo index of the next target to give one */
	int side_all;
};
void ft_ahead_free(struct ft_ahead *a);
int ft_ahead_init(struct ft_ahead *a, const struct ftree *t,
		  const struct ft_work *w, uint32_t depth);
/* Give free contexts to the next targets of todo (queued on the second
 * thread where side). */
void ft_ahead_fill(struct ft_ahead *a, const struct ftree *t,
		   struct ft_writer *wr);
/* The next target's setup into w and g (run here if it was not queued
 * or not started); its context goes to a later target. */
int ft_ahead_take(struct ft_ahead *a, const struct ftree *t,
		  struct ft_writer *wr, struct ft_work *w, struct ft_group *g);

/* The detours of a LID depend on its final entries of the good switches
 * and on the turns taken for the LIDs before it, not on the loads. So
 * they are made where its row is written (ftree_write.c: on the second
 * thread with two), in LID order, while the router goes on with the next
 * LIDs; the turns taken, and the tables, are the same either way. Each
 * target's good set and non-good list are copied for them into a ring of
 * contexts. At most FT_WINDOWS windows of FT_WINDOW LIDs are alive (the
 * one the router fills, less than full, and those handed over), so a
 * context is reused only once no LID alive refers to it. The good set
 * is kept one byte per switch (the ring holds ~500 of them) and spread
 * back into marks when the second thread meets a new context. */
#define FT_DCTX (FT_WINDOWS * FT_WINDOW + 2)

struct ft_dctx {
	uint8_t *good;          /* per switch: good for the target */
	uint32_t *ng;           /* non-good switches, nearest the good set first */
	uint32_t nng, ng_cap;
	uint64_t serial;        /* which target it holds (ring reuse) */
};

struct ft_dring {
	const struct ftree *t;
	struct ft_detour *dt;
	struct ft_dctx c[FT_DCTX];
	uint64_t next;
	uint32_t *marks;        /* second thread: good marks of... */
	uint64_t marks_of;      /* ... this serial (0: none yet) */
};
void ft_dring_free(struct ft_dring *r);
/* The context of the current target's LIDs (NULL: no detours), or
 * (void *)-1 without memory. */
void *ft_dring_take(struct ft_dring *r, const struct ft_work *w,
		    const struct ft_group *g);
/* ft_writer's fix: the detours of one LID's row. */
void ft_dring_fix(void *arg, void *ctx, uint8_t *nh);

/* Engine entry points (ftree_route.c). */
extern const struct route_engine route_ftree;

#endif
