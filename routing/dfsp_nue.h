/* dfsp_nue's shared state (internal to routing/dfsp_nue*.c): the
 * algorithm is described in dfsp_nue.c; dfsp_nue_escape.c builds the
 * escape trees and seeds the layers, dfsp_nue_tree.c grows one
 * destination's sink tree (constrained Dijkstra, impasse repair) and
 * keeps the channel loads. */
#ifndef IBSM_ROUTING_DFSP_NUE_H
#define IBSM_ROUTING_DFSP_NUE_H

#include <stdint.h>

#include "cdg/cdg_incr.h"
#include "dfsp_internal.h"

/* A heap entry: reach the tail of channel ch (toward the destination)
 * at cost; ties go to the lower tb. */
struct hent {
	uint64_t cost;
	uint32_t tb, ch;
};

struct nue {
	const struct route_graph *g;
	struct cdg_incr dag;
	uint32_t nsw, nch;
	uint32_t *pos;          /* per layer and switch: breadth-first position
				 * in that layer's escape tree */
	uint8_t *tree;          /* per layer and channel: on its escape tree */
	uint32_t *comp, *comp_size;
	uint32_t *layer_of_sw;
	uint64_t *load;         /* per channel: CA pairs routed over it */
	uint64_t *w;            /* per channel: hop + chan_cost, kept with load
				 * (a push then costs no division) */
	uint64_t *base_load;    /* ... by the routes this does not touch */
	const uint8_t *only;    /* per LID: route it (NULL: all) */
	uint32_t layer_base;    /* first layer this may use */
	uint64_t hop;           /* weight of a hop beside its load */
	/* one destination */
	uint32_t *out;          /* per switch: channel toward the destination */
	uint32_t *mark, epoch;
	uint32_t *order, norder;
	uint64_t *cnt;
	struct hent *heap;
	uint32_t nheap;
	uint64_t *qcost;        /* free paths: best queued (cost, tb) per switch */
	uint32_t *qtb, *qmark;
	uint32_t salt;          /* the LID being routed (ties) */
	uint64_t *added;
	uint32_t nadded;
	uint32_t impasses;
	int free_paths;         /* no dependency constraint (balanced paths) */
	uint32_t root_rank;     /* escape roots: the rank-th most central
				 * switch of each layer's region */
	uint64_t max_load;      /* highest channel load so far this pass */
	uint64_t give_up;       /* a pass stops once max_load passes this */
	uint64_t below;         /* nonzero: a pass less than half done stops
				 * once max_load reaches this (stopped set) */
	int stopped;
	int complete;           /* the last pass routed every destination */
	uint64_t give_up_early; /* a pass less than half done stops once
				 * max_load passes this (hopeless set) */
	int hopeless;
	uint64_t sq;            /* nonzero: a channel weighs load^2 / sq */
	/* weighted paths: each CA LID's last sink tree (its channels in
	 * settle order), to take its load off without walking the tables */
	uint32_t *tree_ch, *tree_n, *tree_at, *acc;
};

/* What a channel adds to a path's cost besides the hop. */
static inline uint64_t chan_cost(const struct nue *u, uint32_t c)
{
	uint64_t l = u->load[c];
	return u->sq ? l * l / u->sq : l;
}

static inline void reweigh(struct nue *u, uint32_t c)
{
	u->w[c] = u->hop + chan_cost(u, c);
}

/* dfsp_nue_escape.c: components, each layer's escape tree and (unless
 * free paths) its seed turns. 0 or a negative errno. */
int nue_escape_tree(struct nue *u, int seed_updown);

/* dfsp_nue_tree.c: one destination's sink tree. */
void nue_next_epoch(struct nue *u);
int nue_grow(struct nue *u, uint32_t d, uint32_t l);
void nue_repair(struct nue *u, uint32_t d, uint32_t l, uint32_t *esc,
		uint8_t *x);
void nue_write_rows(struct nue *u, uint32_t lid, uint32_t l,
		    struct lft_set *t, struct path_sl *p);
void nue_add_load(struct nue *u);
int nue_keep_trees(struct nue *u, const struct lft_set *t);
void nue_keep_tree(struct nue *u, uint32_t lid);
void nue_drop_tree(struct nue *u, uint32_t d, uint32_t lid);

#endif
