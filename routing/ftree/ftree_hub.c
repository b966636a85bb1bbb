/* ftree: the hub, where detours turn from down to up.
 *
 * Switch LIDs need detours on every 3-level tree (a top switch reaches a
 * middle switch of another column only by going down to a leaf and up
 * again), and degraded trees need them for CA LIDs too. A down->up turn
 * at a leaf from column j to column k and another from k to j at a
 * different leaf close a cycle in the channel dependency graph through
 * the up*-down* routes between them, whatever the leaves; so do two
 * middle switches of one column turning between two tops in opposite
 * directions. The checked search (ftree_detour.c) refuses such a cycle,
 * but when it takes its first turns wherever the search meets a leaf,
 * later LIDs find every way closed and keep a shortest path (a credit
 * loop). Intact trees with sequential GUIDs happened to put every turn
 * at one leaf (the first in node order); random GUIDs and lost links
 * spread them.
 *
 * So the detours take their new turns at one place first:
 *  - the hub leaf H, between designated up-neighbours: of H's
 *    up-neighbours that lie in one connected piece of levels 1-2 (a
 *    column, a chassis), one is designated (the one with the most
 *    up-links);
 *  - the designated up-neighbours themselves, between any two switches
 *    above them.
 * In a 3-level tree (any links missing) the checked graph with turns
 * only there is acyclic: after a turn at H into designated d, the route
 * goes up from d and down to a switch v != d of d's piece (no U-turn),
 * and v is not designated, so the only way back into a turn, down from v
 * to H, turns nowhere; after a turn at d up to a top, the same. (Autonet
 * routes, Schroeder et al. 1991, are deadlock-free by the same kind of
 * argument: every cycle would need a turn the rule forbids.) Sources
 * the hub cannot serve (a top with no path down to H) still search for
 * any acyclic turn, checked as before.
 *
 * The hub is the leaf whose designated up-neighbours cover the most
 * pieces, then have the most up-links (the tops they reach without a
 * turn), then with the most up-links itself, then the lowest ordinal. */
#include <errno.h>
#include <stdlib.h>

#include "../../core/log.h"
#include "ftree.h"

static const char *sw_name(const struct ftree *t, uint32_t s)
{
	return t->fab->nodes[t->fab->switches[s]].desc;
}

static uint32_t nup(const struct ftree *t, uint32_t s)
{
	return t->up_off[s + 1] - t->up_off[s];
}

/* Designate, for leaf h, one up-neighbour per piece (best[] indexed by
 * piece: the designated switch, FAB_NONE for none yet); returns the
 * number of pieces and, in *tops, their up-links summed. The pieces
 * touched are listed in touched[] so the caller can clear best[]. */
static uint32_t designate(const struct ftree *t, const uint32_t *piece,
			  uint32_t h, uint32_t *best, uint32_t *touched,
			  uint64_t *tops)
{
	uint32_t np = 0;
	*tops = 0;
	for (uint32_t k = t->up_off[h]; k < t->up_off[h + 1]; k++) {
		uint32_t u = t->up[k].peer, p = piece[u], b = best[p];
		if (b == FAB_NONE)
			touched[np++] = p;
		if (b == FAB_NONE || nup(t, u) > nup(t, b) ||
		    (nup(t, u) == nup(t, b) && u < b))
			best[p] = u;
	}
	for (uint32_t i = 0; i < np; i++)
		*tops += nup(t, best[touched[i]]);
	return np;
}

/* Tops with a path down to the hub (through a designated switch, or
 * designated themselves on a 2-level tree) get FT_HUB_DOWN. The others
 * ("orphans") get rescue switches: greedily, the switch below orphans
 * that is linked to the most orphans of one piece still without one,
 * then to the most tops with FT_HUB_DOWN; each of those orphans takes
 * it as its hub_e. The fewer rescue switches, the more orphan-to-orphan
 * routes find their turn at one of them (see ft_hub_turn). */
static int orphans(struct ftree *t, const uint32_t *piece, uint32_t *cand)
{
	uint32_t h = t->height, n = t->nsw, left = 0;
	for (uint32_t d = 0; d < n; d++) {
		if (!(t->hub_role[d] & FT_HUB_UP))
			continue;
		if (t->level[d] == h)
			t->hub_role[d] |= FT_HUB_DOWN;
		for (uint32_t k = t->up_off[d]; k < t->up_off[d + 1]; k++)
			if (t->level[t->up[k].peer] == h)
				t->hub_role[t->up[k].peer] |= FT_HUB_DOWN;
	}
	for (uint32_t o = 0; o < n; o++)
		left += t->level[o] == h && !(t->hub_role[o] & FT_HUB_DOWN) &&
			t->dn_off[o + 1] > t->dn_off[o];
	uint32_t *seen = calloc(n ? n : 1, sizeof(uint32_t)), round = 0;
	if (!seen)
		return -ENOMEM;
	while (left) {
		uint32_t best = FAB_NONE, best_c = 0, best_d = 0, nc = 0;
		/* candidates: the switches below orphans still waiting, once */
		round++;
		for (uint32_t o = t->lvl_off[h]; o < t->lvl_off[h + 1]; o++) {
			uint32_t u = t->by_level[o];
			if ((t->hub_role[u] & FT_HUB_DOWN) || t->hub_e[u] != FAB_NONE)
				continue;
			for (uint32_t k = t->dn_off[u]; k < t->dn_off[u + 1]; k++)
				if (seen[t->dn[k].peer] != round) {
					seen[t->dn[k].peer] = round;
					cand[nc++] = t->dn[k].peer;
				}
		}
		for (uint32_t i = 0; i < nc; i++) {
			uint32_t x = cand[i], c = 0, dn = 0;
			for (uint32_t j = t->up_off[x]; j < t->up_off[x + 1]; j++) {
				uint32_t u = t->up[j].peer;
				if (t->level[u] != h)
					continue;
				if (t->hub_role[u] & FT_HUB_DOWN)
					dn++;
				else if (t->hub_e[u] == FAB_NONE)
					c++;
			}
			if (best == FAB_NONE || c > best_c ||
			    (c == best_c && (dn > best_d ||
			     (dn == best_d && x < best)))) {
				best = x;
				best_c = c;
				best_d = dn;
			}
		}
		if (best == FAB_NONE)
			break;
		/* the orphans of one piece: the first one's */
		uint32_t pc = FAB_NONE;
		for (uint32_t j = t->up_off[best]; j < t->up_off[best + 1]; j++) {
			uint32_t u = t->up[j].peer;
			if (t->level[u] != h || (t->hub_role[u] & FT_HUB_DOWN) ||
			    t->hub_e[u] != FAB_NONE)
				continue;
			uint32_t pu = piece[t->dn[t->dn_off[u]].peer];
			if (pc == FAB_NONE)
				pc = pu;
			if (pu != pc)
				continue;
			t->hub_e[u] = best;
			t->hub_role[best] |= FT_HUB_RESCUE;
			left--;
			log_debug("ftree: top \"%s\" has no path down to the hub; "
				  "rescue switch \"%s\"", sw_name(t, u),
				  sw_name(t, best));
		}
	}
	free(seen);
	return 0;
}

/* One step of x toward the hub: the port to the neighbour at the least
 * distance (dist[], FAB_NONE: none) among those `ok` allows. */
static void step_to(struct ftree *t, uint32_t *dist, uint32_t x, int down)
{
	const struct ft_link *L = down ? t->dn : t->up;
	const uint32_t *off = down ? t->dn_off : t->up_off;
	for (uint32_t k = off[x]; k < off[x + 1]; k++) {
		uint32_t y = L[k].peer;
		/* into the hub only from a designated switch (the turn there) */
		if (dist[y] == FAB_NONE ||
		    (y == t->hub && !(t->hub_role[x] & FT_HUB_UP)))
			continue;
		if (dist[x] == FAB_NONE || dist[y] + 1 < dist[x]) {
			dist[x] = dist[y] + 1;
			t->hub_port[x] = L[k].port;
		}
	}
}

/* hub_port: each switch's first step on a shortest path to the hub
 * that needs no turn but the hub's own (down only, through a designated
 * switch; else up to a switch that has one), or for an orphan top, down
 * to its rescue switch. The detours try it before any search. */
static int hub_ports(struct ftree *t)
{
	uint32_t n = t->nsw, *dist = malloc(n * sizeof(uint32_t));
	if (!dist)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++)
		dist[s] = FAB_NONE;
	dist[t->hub] = 0;
	for (int round = 0; round < 2; round++) {
		/* down paths, from the levels above the hub's upward */
		for (uint32_t i = t->lvl_off[1]; i < t->lvl_off[t->height + 1]; i++)
			step_to(t, dist, t->by_level[i], 1);
		/* then up to them, from the top down */
		for (uint32_t i = t->lvl_off[t->height + 1]; i-- > 0;)
			if (dist[t->by_level[i]] == FAB_NONE)
				step_to(t, dist, t->by_level[i], 0);
		/* orphan tops: down to their rescue switch, then as above */
		for (uint32_t o = 0; o < n; o++) {
			uint32_t e = t->hub_e[o];
			if (e == FAB_NONE || dist[o] != FAB_NONE || dist[e] == FAB_NONE)
				continue;
			for (uint32_t k = t->dn_off[o]; k < t->dn_off[o + 1]; k++)
				if (t->dn[k].peer == e) {
					dist[o] = dist[e] + 1;
					t->hub_port[o] = t->dn[k].port;
					break;
				}
		}
	}
	free(dist);
	return 0;
}

struct guid_ord {
	uint64_t guid;
	uint32_t ord;
};

static int cmp_go(const void *a, const void *b)
{
	const struct guid_ord *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

#define HUB_PROBES 8            /* top switches' LIDs probed, ... */
#define HUB_SOURCES 8           /* ... from this many tops each */

/* The hub of the previous tables, found from the tables themselves (so
 * the same whether or not their memo comes along): routes between top
 * switches of different pieces turn at the hub leaf, so a few of them
 * are walked in the previous tables and the leaf where most turn from
 * down to up wins; FAB_NONE when none does (or it is no leaf now).
 * Kept while no leaf covers more pieces, so a re-route (a link lost or
 * back) keeps its detours where they were instead of moving every
 * switch LID's detours to another leaf that won a tie. */
static uint32_t prev_hub(const struct ftree *t, const struct route_options *opt,
			 uint32_t *votes)
{
	if (!opt || !opt->prev || !opt->prev_fab ||
	    opt->prev->num_switches != opt->prev_fab->num_switches)
		return FAB_NONE;
	const struct fabric *pf = opt->prev_fab, *f = t->fab;
	uint32_t n = t->nsw, ntop = t->lvl_off[t->height + 1] - t->lvl_off[t->height];
	uint32_t pn_sw = pf->num_switches;
	/* switches by GUID: v in this fabric, pv in the previous one */
	struct guid_ord *v = malloc((n ? n : 1) * sizeof(*v));
	struct guid_ord *pv = malloc((pn_sw ? pn_sw : 1) * sizeof(*pv));
	if (!v || !pv || ntop < 2 || !pn_sw) {
		free(v);
		free(pv);
		return FAB_NONE;
	}
	for (uint32_t s = 0; s < n; s++) {
		v[s] = (struct guid_ord){ f->nodes[f->switches[s]].guid, s };
		votes[s] = 0;
	}
	for (uint32_t s = 0; s < pn_sw; s++)
		pv[s] = (struct guid_ord){ pf->nodes[pf->switches[s]].guid,
					   pf->switches[s] };
	qsort(v, n, sizeof(*v), cmp_go);
	qsort(pv, pn_sw, sizeof(*pv), cmp_go);
	const uint32_t *tops = t->by_level + t->lvl_off[t->height];
	for (uint32_t i = 0; i < HUB_PROBES && i < ntop; i++) {
		uint32_t d = tops[(uint64_t)i * ntop / HUB_PROBES];
		uint32_t lid = f->ports[f->nodes[f->switches[d]].first_port].lid;
		for (uint32_t j = 1; j <= HUB_SOURCES && j < ntop; j++) {
			uint32_t s = tops[((uint64_t)i * ntop / HUB_PROBES +
					   (uint64_t)j * ntop / (HUB_SOURCES + 1)) % ntop];
			/* s's route to d in the previous tables, switch by
			 * switch (GUIDs name them in both fabrics) */
			uint32_t x = s, went_down = 0;
			for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS && x != d; hops++) {
				struct guid_ord key = { f->nodes[f->switches[x]].guid, 0 };
				const struct guid_ord *ph = bsearch(&key, pv, pn_sw,
								    sizeof(*pv), cmp_go);
				if (!ph || !lid || lid > opt->prev->max_lid)
					break;
				uint32_t pn = ph->ord;
				uint8_t p = lft_get(opt->prev, pf->nodes[pn].sw_index, lid);
				if (!p || p > pf->nodes[pn].num_ports)
					break;
				uint32_t q = pf->ports[pf->nodes[pn].first_port + p].peer;
				if (q == FAB_NONE)
					break;
				key.guid = pf->nodes[pf->ports[q].node].guid;
				const struct guid_ord *hit = bsearch(&key, v, n, sizeof(*v), cmp_go);
				if (!hit)
					break;
				uint32_t y = hit->ord;
				if (t->level[y] > t->level[x] && went_down && t->level[x] == 0)
					votes[x]++;
				went_down = t->level[y] < t->level[x];
				x = y;
			}
		}
	}
	free(v);
	free(pv);
	uint32_t best = FAB_NONE;
	for (uint32_t s = 0; s < n; s++)
		if (votes[s] && t->level[s] == 0 && t->weight[s] &&
		    (best == FAB_NONE || votes[s] > votes[best]))
			best = s;
	return best;
}

int ft_find_hub(struct ftree *t, const struct route_options *opt)
{
	double t0 = now_seconds();
	uint32_t n = t->nsw;
	t->hub = FAB_NONE;
	t->hub_role = calloc(n ? n : 1, 1);
	t->hub_e = malloc((n ? n : 1) * sizeof(uint32_t));
	t->hub_port = calloc(n ? n : 1, 1);
	if (!t->hub_role || !t->hub_e || !t->hub_port)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++)
		t->hub_e[s] = FAB_NONE;
	if (t->height == 0)
		return 0;
	uint32_t *piece = malloc(n * sizeof(uint32_t));
	/* (a piece is named by its union-find root, one of 2n) */
	uint32_t *best = malloc(2 * (size_t)n * sizeof(uint32_t));
	uint32_t *touched = malloc((t->dn_off[n] + n + 1) * sizeof(uint32_t));
	if (!piece || !best || !touched || ft_up_pieces(t, piece)) {
		free(piece);
		free(best);
		free(touched);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < 2 * n; s++)
		best[s] = FAB_NONE;
	uint32_t hub = FAB_NONE, hub_np = 0, hub_up = 0;
	uint64_t hub_tops = 0;
	for (uint32_t h = 0; h < n; h++) {
		if (t->level[h] != 0 || !t->weight[h])
			continue;
		uint64_t tops;
		uint32_t np = designate(t, piece, h, best, touched, &tops);
		for (uint32_t i = 0; i < np; i++)
			best[touched[i]] = FAB_NONE;
		if (hub == FAB_NONE || np > hub_np ||
		    (np == hub_np && (tops > hub_tops ||
		     (tops == hub_tops && nup(t, h) > hub_up)))) {
			hub = h;
			hub_np = np;
			hub_tops = tops;
			hub_up = nup(t, h);
		}
	}
	uint32_t prev = prev_hub(t, opt, touched);
	if (prev != FAB_NONE && prev != hub) {
		uint64_t tops;
		uint32_t np = designate(t, piece, prev, best, touched, &tops);
		for (uint32_t i = 0; i < np; i++)
			best[touched[i]] = FAB_NONE;
		if (np >= hub_np)
			hub = prev;
	}
	if (hub != FAB_NONE) {
		uint64_t tops;
		uint32_t np = designate(t, piece, hub, best, touched, &tops);
		t->hub = hub;
		t->hub_role[hub] |= FT_HUB_LEAF;
		for (uint32_t i = 0; i < np; i++)
			t->hub_role[best[touched[i]]] |= FT_HUB_UP;
		uint32_t nu = nup(t, hub);
		t->hub_des = malloc(nu ? nu : 1);
		if (!t->hub_des) {
			free(piece);
			free(best);
			free(touched);
			return -ENOMEM;
		}
		/* each up-link's designated switch of its piece, by port */
		for (uint32_t k = 0; k < nu; k++) {
			uint32_t d = best[piece[t->up[t->up_off[hub] + k].peer]];
			for (uint32_t j = 0; j < nu; j++)
				if (t->up[t->up_off[hub] + j].peer == d) {
					t->hub_des[k] = t->up[t->up_off[hub] + j].port;
					break;
				}
		}
		if (orphans(t, piece, touched) || hub_ports(t)) {
			free(piece);
			free(best);
			free(touched);
			return -ENOMEM;
		}
		uint32_t nor = 0;
		for (uint32_t s = 0; s < n; s++)
			nor += t->level[s] == t->height &&
			       !(t->hub_role[s] & FT_HUB_DOWN);
		log_debug("ftree: hub leaf \"%s\"%s, %u designated up-neighbours, "
			  "%u tops without a path down to it; %.3f s", sw_name(t, hub),
			  hub == prev ? " (the previous tables')" : "", np, nor,
			  now_seconds() - t0);
	}
	free(piece);
	free(best);
	free(touched);
	return 0;
}

int ft_hub_turn(const struct ftree *t, uint32_t y, uint8_t in, uint8_t out)
{
	uint8_t role = t->hub_role[y];
	if (role & FT_HUB_UP)
		return 1;
	uint32_t a = ft_far_sw(t, y, in), b = ft_far_sw(t, y, out);
	if (a == FAB_NONE || b == FAB_NONE)
		return 0;
	if (role & FT_HUB_LEAF)
		return (t->hub_role[a] & FT_HUB_UP) && (t->hub_role[b] & FT_HUB_UP);
	if (!(role & FT_HUB_RESCUE))
		return 0;
	/* At a rescue switch: out of or into one of its orphans, from or
	 * to a top with a path down to the hub or another of its orphans. */
	int ra = t->hub_e[a] == y, rb = t->hub_e[b] == y;
	return (ra || rb) && (ra || (t->hub_role[a] & FT_HUB_DOWN)) &&
	       (rb || (t->hub_role[b] & FT_HUB_DOWN));
}

int ft_hub_needed(const struct ftree *t, const uint32_t *good, uint32_t grp)
{
	uint32_t h = t->hub;
	if (h == FAB_NONE)
		return 0;
	for (uint32_t k = t->up_off[h]; k < t->up_off[h + 1]; k++)
		if ((t->hub_role[t->up[k].peer] & FT_HUB_UP) &&
		    good[t->up[k].peer] != grp)
			return 1;
	return 0;
}

void ft_hub_entry(const struct ftree *t, uint8_t *nh, const uint32_t *good,
		  uint32_t grp)
{
	uint32_t h = t->hub;
	if (h == FAB_NONE || good[h] != grp)
		return;
	uint32_t o = ft_far_sw(t, h, nh[h]);
	if (o == FAB_NONE || (t->hub_role[o] & FT_HUB_UP) ||
	    t->level[o] <= t->level[h])
		return;
	/* The designated switch of the entry's piece, else any designated
	 * one with an up-then-down path (good). */
	uint32_t nu = nup(t, h);
	for (uint32_t k = 0; k < nu; k++)
		if (t->up[t->up_off[h] + k].port == nh[h]) {
			uint32_t d = ft_far_sw(t, h, t->hub_des[k]);
			if (d != FAB_NONE && good[d] == grp) {
				nh[h] = t->hub_des[k];
				return;
			}
			break;
		}
	for (uint32_t k = t->up_off[h]; k < t->up_off[h + 1]; k++)
		if ((t->hub_role[t->up[k].peer] & FT_HUB_UP) &&
		    good[t->up[k].peer] == grp) {
			nh[h] = t->up[k].port;
			return;
		}
}
