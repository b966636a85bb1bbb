/* ftree on degraded trees: keep the all-to-all maximum link load near its
 * lower bound when links or switches are missing.
 *
 * The cap is a lower bound on the maximum link load of any routing: the
 * all-to-all traffic into (and out of) a leaf, w * (W - w) routes for w
 * compute nodes out of W, must cross that leaf's u up-links, so some link
 * carries at least ceil(w * (W - w) / u). On an intact tree d-mod-k meets
 * it exactly. When a destination's default assignment would push a link
 * of its chain above the cap, the source leaves are taken one at a time
 * (cabled order): each keeps its default up-link if its whole path stays
 * under the cap, else it moves to the good up-link whose path has the
 * lowest resulting maximum load. Only leaves move: a switch above has a
 * single entry per LID shared by everything below it. Paths stay
 * up-then-down, so deadlock freedom is unaffected. */
#include <stdint.h>

#include "ftree.h"

uint64_t ft_load_cap(const struct ftree *t)
{
	uint64_t cap = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint64_t w = t->weight[s];
		uint32_t u = t->up_off[s + 1] - t->up_off[s];
		if (!w || !u)
			continue;
		uint64_t in = w * (t->total_weight - w);
		uint64_t c = (in + u - 1) / u;
		if (c > cap)
			cap = c;
	}
	return cap ? cap : UINT64_MAX;
}

static uint32_t fport(const struct ftree *t, uint32_t s)
{
	return t->fport[s];
}

/* Highest load + f along the path leaving switch x by port p to tg. */
static uint64_t path_cost(const struct ft_work *w, uint32_t x, uint8_t p,
			  uint32_t tg, uint64_t f, const uint64_t *L)
{
	const struct ftree *t = w->t;
	uint64_t worst = 0;
	for (unsigned hops = 0; hops < 2 * FT_MAX_LEVELS + 2; hops++) {
		uint32_t e = fport(t, x) + p;
		if (L[e] + f > worst)
			worst = L[e] + f;
		x = t->peer_sw[e];
		if (x == FAB_NONE || x == tg)
			break;
		p = w->nh[x];
	}
	return worst;
}

static void path_add(const struct ft_work *w, uint32_t x, uint8_t p,
		     uint32_t tg, uint64_t f, uint64_t *L)
{
	const struct ftree *t = w->t;
	for (unsigned hops = 0; hops < 2 * FT_MAX_LEVELS + 2; hops++) {
		uint32_t e = fport(t, x) + p;
		L[e] += f;
		x = t->peer_sw[e];
		if (x == FAB_NONE || x == tg)
			break;
		p = w->nh[x];
	}
}

int ft_spill(struct ft_work *w, uint32_t tg, uint32_t plane)
{
	const struct ftree *t = w->t;
	uint64_t *L = w->load + (size_t)plane * w->num_ports;
	uint64_t F = t->total_weight - t->weight[tg];
	int over = 0;
	for (uint32_t i = 1; i < w->nchain && !over; i++) {
		uint32_t e = fport(t, w->chain[i]) + w->chain_port[i];
		over = L[e] + F > t->cap;
	}
	if (!over)
		return 0;
	w->spilled_dests++;
	uint32_t grp = w->epoch_grp;
	for (uint32_t i = t->lvl_off[0]; i < t->lvl_off[1]; i++) {
		uint32_t x = t->by_level[i];
		uint64_t f = t->weight[x];
		if (x == tg || !f || w->good_mark[x] != grp)
			continue;
		uint8_t p = w->nh[x];
		uint64_t best = path_cost(w, x, p, tg, f, L);
		if (best > t->cap) {
			uint8_t p0 = p;
			for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++) {
				const struct ft_link *l = &t->up[k];
				if (l->port == p0 || w->good_mark[l->peer] != grp)
					continue;
				uint64_t c = path_cost(w, x, l->port, tg, f, L);
				if (c < best) {
					best = c;
					p = l->port;
				}
			}
			if (p != p0) {
				w->nh[x] = p;
				w->spilled_sources++;
			}
		}
		path_add(w, x, p, tg, f, L);
	}
	return 1;
}
