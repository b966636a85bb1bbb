/* dfsp within a fixed layer budget, down to one VL: routes grown on the
 * channel dependency graph, after Nue (J. Domke, T. Hoefler, S. Matsuoka,
 * "Routing on the Dependency Graph: A New Approach to Deadlock-Free
 * High-Performance Routing", HPDC 2016). Our own design on those ideas:
 *
 * 1. Destination switches are split into nlayers contiguous groups of
 *    about equal LID count (in breadth-first order from the escape root,
 *    so a layer holds a region); every LID of a group routes on its layer.
 * 2. Escape paths: a breadth-first spanning tree from a central switch.
 *    Every turn between tree channels except a U-turn (up-up, up-down,
 *    down-down) is put into every layer's dependency graph first; that
 *    set is acyclic, so any destination can always be routed on tree
 *    paths alone.
 * 3. Per destination LID, a Dijkstra search backwards from its switch:
 *    a switch s joins the sink tree through channel c = s -> n only if
 *    c -> out(n) keeps the layer's dependency graph acyclic (cdg/cdg_incr.h:
 *    an incremental topological order, so most checks cost nothing).
 *    Channel weight = a hop cost + the CA pairs routed over it so far, so
 *    later destinations avoid loaded channels and may take longer paths.
 * 4. Impasse (a switch of the component left unreached because every way
 *    in would close a cycle): the unreached switches and everything on
 *    their escape paths take escape hops; the rest keep their channels
 *    where the new dependencies stay acyclic (nue_repair()).
 * A switch's own LID reuses the sink tree of the last CA routed to it
 * (same dependencies, none new). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "dfsp_nue.h"

static void reweigh_all(struct nue *u)
{
	for (uint32_t c = 0; c < u->nch; c++)
		reweigh(u, c);
}

static int alloc_nue(struct nue *u, const struct route_graph *g, uint32_t nl)
{
	memset(u, 0, sizeof(*u));
	u->g = g;
	u->give_up = u->give_up_early = UINT64_MAX;
	u->nsw = g->nsw;
	u->nch = g->adj_off[g->nsw];
	if (cdg_init_graph(&u->dag, g, nl, NULL, NULL))
		return -ENOMEM;
	/* Within one pass dependencies are only taken back right after
	 * they were added for the same destination: a refusal stands (a
	 * cheap, conservative cache that bounds the searches). */
	u->dag.remember_refusals = 1;
	size_t ns = (size_t)u->nsw + 1, nc = (size_t)u->nch + 1;
	u->pos = malloc(ns * nl * sizeof(uint32_t));
	u->tree = malloc(nc * nl);
	u->comp = malloc(ns * sizeof(uint32_t));
	u->comp_size = malloc(ns * sizeof(uint32_t));
	u->layer_of_sw = calloc(ns, sizeof(uint32_t));
	u->load = calloc(nc, sizeof(uint64_t));
	u->w = calloc(nc, sizeof(uint64_t));
	u->base_load = calloc(nc, sizeof(uint64_t));
	u->out = malloc(ns * sizeof(uint32_t));
	u->mark = calloc(ns, sizeof(uint32_t));
	u->order = malloc(ns * sizeof(uint32_t));
	u->cnt = malloc(ns * sizeof(uint64_t));
	u->heap = malloc((nc + ns) * sizeof(struct hent));
	u->qcost = malloc(ns * sizeof(uint64_t));
	u->qtb = malloc(ns * sizeof(uint32_t));
	u->qmark = calloc(ns, sizeof(uint32_t));
	u->added = malloc(ns * sizeof(uint64_t));
	if (!u->pos || !u->tree || !u->comp || !u->comp_size || !u->layer_of_sw ||
	    !u->load || !u->base_load || !u->out || !u->mark || !u->order || !u->cnt ||
	    !u->heap || !u->added || !u->w || !u->qcost || !u->qtb || !u->qmark)
		return -ENOMEM;
	return 0;
}

static void free_nue(struct nue *u)
{
	cdg_free(&u->dag);
	free(u->pos);
	free(u->tree);
	free(u->comp);
	free(u->comp_size);
	free(u->layer_of_sw);
	free(u->load);
	free(u->w);
	free(u->tree_ch);
	free(u->tree_n);
	free(u->tree_at);
	free(u->acc);
	free(u->base_load);
	free(u->out);
	free(u->mark);
	free(u->order);
	free(u->cnt);
	free(u->heap);
	free(u->qcost);
	free(u->qtb);
	free(u->qmark);
	free(u->added);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

static uint64_t spread_stride(uint32_t n)
{
	uint64_t s = (uint64_t)n * 618 / 1000;
	if (s < 1)
		s = 1;
	while (gcd(s, n) != 1)
		s++;
	return s;
}

/* One routing of every LID; returns the highest channel load. */
static uint64_t nue_pass(struct nue *u, int seed_updown, uint32_t root_rank,
			 struct lft_set *t,
			 struct path_sl *p, uint32_t *esc, uint8_t *x, int *r)
{
	const struct route_graph *g = u->g;
	cdg_reset(&u->dag);
	memcpy(u->load, u->base_load, (size_t)u->nch * sizeof(uint64_t));
	reweigh_all(u);
	u->max_load = 0;
	u->impasses = 0;
	u->root_rank = root_rank;
	u->stopped = 0;
	u->complete = 0;
	u->hopeless = 0;
	if ((*r = nue_escape_tree(u, seed_updown)))
		return UINT64_MAX;
	/* Destinations in a spread order (a stride coprime to the switch
	 * count, near the golden ratio of it): neighbouring destinations
	 * routed one after the other claim the same dependencies and leave
	 * later ones impasses; spread out they share the graph. Measured:
	 * 2D torus 8x8 4.50 -> 2.70, dragonfly 288 CAs 7.25 -> 3.9 (1 VL). */
	uint64_t stride = spread_stride(g->nsw);
	for (uint32_t dd = 0; dd < g->nsw; dd++) {
		uint32_t d = (uint32_t)(dd * stride % g->nsw);
		uint32_t l = u->layer_of_sw[d];
		int have = 0;
		/* Loads only grow: a pass already past give_up would be
		 * dropped whole, so its remaining destinations are not
		 * worth routing (t and p are then incomplete: unused). */
		if (u->max_load > u->give_up)
			return u->max_load;
		if (u->max_load > u->give_up_early && 2 * dd < g->nsw) {
			u->hopeless = 1;
			return u->max_load;
		}
		if (u->below && u->max_load >= u->below && 2 * dd < g->nsw) {
			u->stopped = 1;
			return u->max_load;
		}
		/* CA LIDs first; the switch's own LID then reuses a CA's tree. */
		for (int pass = 1; pass >= 0; pass--)
			for (uint32_t e = g->ep_off[d]; e < g->ep_off[d + 1]; e++) {
				if (g->ep[e].weighted != pass)
					continue;
				for (uint32_t j = 0; j < g->ep[e].nlids; j++) {
					uint32_t lid = g->ep[e].lid + j;
					if (lid > t->max_lid)
						break;
					if (u->only && !u->only[lid])
						continue;
					if (!(have && !pass)) {
						nue_next_epoch(u);
						u->salt = lid;
						if (!nue_grow(u, d, l)) {
							u->impasses++;
							nue_repair(u, d, l, esc, x);
						}
						have = 1;
						if (pass) {
							nue_add_load(u);
							nue_keep_tree(u, lid);
						}
					}
					nue_write_rows(u, lid, u->layer_base + l, t, p);
				}
			}
	}
	uint64_t max = 0;
	for (uint32_t c = 0; c < u->nch; c++)
		if (u->load[c] > max)
			max = u->load[c];
	u->complete = 1;
	return max;
}

/* The load the routes of LIDs not in only put on each channel. */
static void base_load(struct nue *u, const struct lft_set *t, const uint8_t *only)
{
	const struct route_graph *g = u->g;
	for (uint32_t d = 0; d < g->nsw; d++)
		for (uint32_t e = g->ep_off[d]; e < g->ep_off[d + 1]; e++) {
			uint32_t lid = g->ep[e].lid;
			if (!g->ep[e].weighted || lid > t->max_lid || only[lid])
				continue;
			for (uint32_t s = 0; s < g->nsw; s++) {
				if (s == d || !g->cas[s])
					continue;
				uint32_t n = path_sl_channels(g, t, s, lid, u->order, g->nsw);
				for (uint32_t k = 0; n != UINT32_MAX && k < n; k++)
					u->base_load[u->order[k]] += g->cas[s];
			}
		}
}

/* What dfsp_nue's passes share: the tables being routed, the scratch of
 * a pass, the best and the probe's tables, and what the probe learnt. */
struct nue_search {
	struct lft_set *t;
	struct path_sl *p;
	size_t tsize, psize;
	uint32_t *esc;
	uint8_t *x;
	uint8_t *best_t, *best_p;       /* the best pass's tables */
	uint8_t *win_t, *win_p;         /* the probe pass that got below */
	uint32_t tries;                 /* tree-seed passes (roots) to try */
	/* What the probe learnt, so the loop in best_pass does not route a
	 * pass twice: a pass the probe finished has that load; the one that
	 * got below keeps its tables (win_k). Any other finished one is at
	 * or past below, so its tables are never kept: best_pass drops a
	 * result whose busiest channel is not below. */
	uint64_t known[5];
	uint32_t win_k;
};

/* A hop costs about what the average channel carries at the end (CA
 * pairs x a few hops / channels), times scale: detours are taken when
 * they avoid a channel loaded well past the average. */
static void set_hop(struct nue *u, uint64_t scale)
{
	const struct route_graph *g = u->g;
	uint64_t cas = 0;
	for (uint32_t s = 0; s < g->nsw; s++)
		cas += g->cas[s];
	u->hop = u->nch ? cas * cas / u->nch * scale : 1;
	if (!u->hop)
		u->hop = 1;
}

/* Two escape seeds: the tree's turns only (most freedom, Nue's choice)
 * and the whole up*\/down* turn set (the routes updn could take,
 * balanced and with detours). Neither wins everywhere; keep the pass
 * with the lower highest channel load.
 * Where the escape trees grow from matters as much as the seed (random
 * 2,048 CAs on one VL: 4.5x to 9.4x the bound over the four most
 * central roots): the tree seed is tried from up to four roots, fewer on
 * big graphs (a pass costs about LIDs x channels heap operations; at
 * most about 2e7 of those in all). */
static uint32_t pass_tries(const struct nue *u)
{
	const struct route_graph *g = u->g;
	uint64_t lids = 0;
	for (uint32_t e = 0; e < g->ep_off[g->nsw]; e++)
		lids += g->ep[e].nlids;
	uint64_t work = lids * u->nch + 1, tries = 20000000ull / work;
	if (tries < 1)
		tries = 1;
	if (tries > 4)
		tries = 4;
	return (uint32_t)tries;
}

/* A pass's load (u.load, CA pairs per sink tree) is what
 * max_channel_load measures on its tables when every CA has one LID;
 * with LMC aliases each alias adds its own tree, so no probe. */
static int can_probe(const struct route_graph *g, uint64_t below,
		     const uint8_t *only)
{
	int probe = below && !only;
	for (uint32_t e = 0; probe && e < g->ep_off[g->nsw]; e++)
		if (g->ep[e].weighted && g->ep[e].nlids != 1)
			probe = 0;
	return probe;
}

/* The probe runs the passes of best_pass (a superset: they may break off
 * early) but gives each up as soon as it cannot be kept: loads only
 * grow, so once its busiest channel reaches below. Passes do not depend
 * on each other. Only a pass less than half done stops there; one
 * further on finishes, and its exact load bounds the best pass (lowest)
 * from above: a later tree pass past half again that bound is where
 * best_pass breaks for sure, so the probe may stop there too (a degraded
 * fat-tree: its up*\/down* pass reaches below late, its first tree pass
 * breaks). 0 once a pass gets below, -ERANGE if none does, or the
 * error of a pass. */
static int probe_passes(struct nue *u, struct nue_search *s, uint64_t below)
{
	uint64_t bound = UINT64_MAX;
	int r = 0, probe = 1;
	for (uint32_t k = 0; probe && k <= s->tries; k++) {
		u->below = bound == UINT64_MAX ? below : 0;
		u->give_up = k == 0 || bound == UINT64_MAX ? UINT64_MAX
							   : bound + bound / 2;
		uint64_t m = nue_pass(u, k == 0, k == 0 ? 0 : k - 1, s->t, s->p,
				      s->esc, s->x, &r);
		if (r)
			return r;
		if (u->complete)
			s->known[k] = m;
		if (u->stopped)
			continue;
		if (m < below) {
			probe = 0; /* one gets below: route as without it */
			s->win_k = k;
			memcpy(s->win_t, s->t->port, s->tsize);
			memcpy(s->win_p, s->p->sl, s->psize);
		}
		else if (k > 0 && bound != UINT64_MAX && m > bound + bound / 2)
			break;
		else if (m < bound)
			bound = m;
	}
	u->below = 0;
	if (probe) {
		log_info("dfsp: no dependency-graph pass loads its busiest channel "
			 "less than %llu CA pairs", (unsigned long long)below);
		return -ERANGE;
	}
	return 0;
}

/* Every pass (those the probe finished taken as they were), the best
 * into s->t and s->p; *best_mode says its seed. 0, -ERANGE if the best
 * is a probe's pass past below (dropped), or the error of a pass. */
static int best_pass(struct nue *u, struct nue_search *s, uint64_t below,
		     int *best_mode)
{
	uint64_t best = UINT64_MAX;
	int r = 0, best_tables = 0;
	for (uint32_t k = 0; k <= s->tries; k++) {
		/* The up*\/down* seed first, once; then the tree seed from
		 * each root, given up when a tree pass loads its busiest
		 * channel half again as much as the best so far (trees:
		 * up*\/down* fits them, three times less loaded). */
		int mode = k == 0;
		uint32_t rank = mode ? 0 : k - 1;
		/* A tree pass is given up past best + best / 2 (below): stop
		 * it as soon as it gets there, the result is the same. With
		 * below, a tree pass that cannot beat the best (loads only
		 * grow) while less than half done is hopeless: it stops and
		 * ends the loop as if it were past best + best / 2 (degraded
		 * fat-trees: the tree passes end at 1.7-3x the up*\/down*
		 * pass and reach it a fifth of the way in). */
		u->give_up = mode || best == UINT64_MAX ? UINT64_MAX : best + best / 2;
		u->give_up_early = below && !mode && best != UINT64_MAX ? best - 1
									: UINT64_MAX;
		uint64_t m = s->known[k];
		if (m == UINT64_MAX) {
			m = nue_pass(u, mode, rank, s->t, s->p, s->esc, s->x, &r);
			if (r)
				return r;
			log_info("dfsp: dependency-graph pass %s, root rank %u: "
				 "highest channel load %llu, %u LIDs on escape paths "
				 "after an impasse, %llu reorders", mode ?
				 "up*/down* seed" : "tree seed", rank,
				 (unsigned long long)m, u->impasses,
				 (unsigned long long)u->dag.reorders);
			if (u->hopeless)
				m = UINT64_MAX; /* break below */
		} else if (k == s->win_k) {
			memcpy(s->t->port, s->win_t, s->tsize);
			memcpy(s->p->sl, s->win_p, s->psize);
		}
		if (m < best) {
			best = m;
			*best_mode = mode;
			best_tables = s->known[k] == UINT64_MAX || k == s->win_k;
			if (best_tables) {
				memcpy(s->best_t, s->t->port, s->tsize);
				memcpy(s->best_p, s->p->sl, s->psize);
			}
		} else if (!mode && (m > best + best / 2 || m == UINT64_MAX)) {
			break;
		}
	}
	if (!best_tables)
		return -ERANGE; /* best is a probe's pass past below: dropped */
	memcpy(s->t->port, s->best_t, s->tsize);
	memcpy(s->p->sl, s->best_p, s->psize);
	return 0;
}

int dfsp_nue(struct route_ctx *ctx, const struct route_graph *g,
	     struct lft_set *t, struct path_sl *p, uint32_t nlayers,
	     const uint8_t *only, uint32_t layer_base, uint64_t below)
{
	struct nue u;
	struct nue_search s = {
		.t = t, .p = p,
		.tsize = (size_t)t->num_switches * t->stride,
		.psize = (size_t)p->num_switches * p->stride,
		.known = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
			   UINT64_MAX },
		.win_k = UINT32_MAX,
	};
	s.esc = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	s.x = malloc((size_t)g->nsw + 1);
	s.best_t = malloc(s.tsize + 1);
	s.best_p = malloc(s.psize + 1);
	s.win_t = malloc(s.tsize + 1);
	s.win_p = malloc(s.psize + 1);
	int r = alloc_nue(&u, g, nlayers), best_mode = 0;
	if (!r && (!s.esc || !s.x || !s.best_t || !s.best_p || !s.win_t || !s.win_p))
		r = -ENOMEM;
	if (r)
		goto out;
	u.only = only;
	u.layer_base = layer_base;
	if (only)
		base_load(&u, t, only);
	set_hop(&u, 1);
	s.tries = pass_tries(&u);
	if (can_probe(g, below, only) && (r = probe_passes(&u, &s, below)))
		goto out;
	if ((r = best_pass(&u, &s, below, &best_mode)))
		goto out;
	if (!only)
		p->vls_used = 1;
	for (uint32_t sw = 0; sw < g->nsw; sw++)
		if (g->ep_off[sw] < g->ep_off[sw + 1] &&
		    layer_base + u.layer_of_sw[sw] + 1 > p->vls_used)
			p->vls_used = (uint8_t)(layer_base + u.layer_of_sw[sw] + 1);
	log_info("dfsp: routed on the dependency graph in %u layers (%s seed)",
		 p->vls_used, best_mode ? "up*/down*" : "tree");
out:
	if (r == -EINVAL)
		snprintf(ctx->why, sizeof(ctx->why), "escape turns form a cycle");
	free_nue(&u);
	free(s.esc);
	free(s.x);
	free(s.best_t);
	free(s.best_p);
	free(s.win_t);
	free(s.win_p);
	return r;
}

/* Rip up and reroute: every CA LID's sink tree is taken off the loads
 * and grown again over the loads of all the others (the first pass saw
 * only the destinations before it, as DFSSSP's single pass does). */
static void reroute_round(struct nue *u, struct lft_set *t, struct path_sl *p)
{
	const struct route_graph *g = u->g;
	uint64_t stride = spread_stride(g->nsw);
	for (uint32_t dd = 0; dd < g->nsw; dd++) {
		uint32_t d = (uint32_t)(dd * stride % g->nsw);
		for (uint32_t e = g->ep_off[d]; e < g->ep_off[d + 1]; e++) {
			if (!g->ep[e].weighted)
				continue;
			for (uint32_t j = 0; j < g->ep[e].nlids; j++) {
				uint32_t lid = g->ep[e].lid + j;
				if (lid > t->max_lid)
					break;
				nue_drop_tree(u, d, lid);
				nue_next_epoch(u);
				u->salt = lid;
				nue_grow(u, d, 0);
				nue_add_load(u);
				nue_keep_tree(u, lid);
				nue_write_rows(u, lid, 0, t, p);
			}
		}
	}
}

/* One pass without the dependency check and its seeds: plain weighted
 * shortest paths (impasses cannot happen), then rounds of rerouting. */
int dfsp_weighted_paths(struct route_ctx *ctx, const struct route_graph *g,
			struct lft_set *t, uint64_t hop_scale, uint32_t rounds)
{
	struct nue u;
	struct path_sl p = { 0 };
	uint32_t *esc = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	uint8_t *x = malloc((size_t)g->nsw + 1);
	int r = alloc_nue(&u, g, 1);
	(void)ctx;
	if (!r && (!esc || !x))
		r = -ENOMEM;
	if (!r)
		r = path_sl_alloc(&p, g->fab);
	if (r)
		goto out;
	set_hop(&u, hop_scale);
	u.free_paths = 1;
	u.give_up = UINT64_MAX;
	if (rounds && (r = nue_keep_trees(&u, t)))
		goto out;
	uint64_t best = nue_pass(&u, 0, 0, t, &p, esc, x, &r);
	/* Rerouting lowers the sum of the loads each path sees, not
	 * always the highest: the round with the least loaded busiest
	 * channel stays. */
	size_t tsize = (size_t)t->num_switches * t->stride;
	uint8_t *best_t = rounds ? malloc(tsize + 1) : NULL;
	if (!r && rounds && !best_t)
		r = -ENOMEM;
	if (!r && rounds)
		memcpy(best_t, t->port, tsize);
	uint64_t sum = 0;
	for (uint32_t c = 0; c < u.nch; c++)
		sum += u.load[c];
	/* Rerouted paths weigh a channel by load^2 / (a quarter of the
	 * average load): the sum of linear loads a path sees trades one
	 * busy channel for two quiet ones, the square does not (measured,
	 * 2 rounds, 4 VLs: dragonfly 288 CAs 1.87 -> 1.75x the bound,
	 * random 128 CAs 1.52 -> 1.41, degraded fat-tree 32 CAs 1.26 ->
	 * 1.16). */
	u.sq = (u.nch ? sum / u.nch / 4 : 0) + 1;     /* no channels: one switch */
	reweigh_all(&u);
	for (uint32_t k = 0; !r && k < rounds; k++) {
		reroute_round(&u, t, &p);
		uint64_t m = 0;
		for (uint32_t c = 0; c < u.nch; c++)
			if (u.load[c] > m)
				m = u.load[c];
		if (m < best) {
			best = m;
			memcpy(best_t, t->port, tsize);
		}
	}
	if (!r && rounds)
		memcpy(t->port, best_t, tsize);
	free(best_t);
out:
	free_nue(&u);
	path_sl_free(&p);
	free(esc);
	free(x);
	return r;
}
