/* Spanning trees and MFT masks (see mcast_tree.h). */
#include "mcast_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROOT_SAMPLES 32     /* member switches used to place the root */

void mft_free(struct mft_set *m)
{
	free(m->mask);
	memset(m, 0, sizeof(*m));
}

static void set_port(uint8_t *mask, unsigned port)
{
	mask[port / 8] |= (uint8_t)(1u << (port % 8));
}

struct port_guid {
	uint64_t guid;
	uint32_t port;
};

static int cmp_pg(const void *a, const void *b)
{
	const struct port_guid *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* BFS over switches from switch ordinal src: dist[] (UINT32_MAX when not
 * reached), and for each switch the port toward its BFS parent. */
static void bfs(const struct fabric *f, uint32_t src, uint32_t *dist,
		uint32_t *parent, uint8_t *up_port, uint8_t *down_port,
		uint32_t *queue)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < f->num_switches; s++)
		dist[s] = UINT32_MAX;
	dist[src] = 0;
	if (parent)
		parent[src] = UINT32_MAX;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t s = queue[head++], n = f->switches[s];

		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t p = fab_port_idx(f, n, i), q = f->ports[p].peer, m, t;

			if (q == FAB_NONE)
				continue;
			m = f->ports[q].node;
			if (!fab_is_switch(f, m) || m == n)
				continue;
			t = f->nodes[m].sw_index;
			if (dist[t] != UINT32_MAX)
				continue;
			dist[t] = dist[s] + 1;
			if (parent) {
				parent[t] = s;
				up_port[t] = f->ports[q].num;   /* t -> s */
				down_port[t] = (uint8_t)i;       /* s -> t */
			}
			queue[tail++] = t;
		}
	}
}

int mcast_compute_mfts(const struct fabric *f, const struct mcast_db *db,
		       struct mft_set *out)
{
	uint32_t ns = f->num_switches, top = 0, n_pg = 0;
	struct port_guid *pg = NULL;
	uint32_t *dist = NULL, *ecc = NULL, *parent = NULL, *queue = NULL;
	uint32_t *msw = NULL;
	uint8_t *up = NULL, *down = NULL, *in_tree = NULL;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < db->num_groups; i++)
		if (db->groups[i].mlid - MCAST_MLID_BASE + 1u > top)
			top = db->groups[i].mlid - MCAST_MLID_BASE + 1u;
	out->num_switches = ns;
	out->num_mlids = top;
	if (!ns || !top)
		return 0;
	out->mask = calloc((size_t)ns * top, MFT_MASK_BYTES);
	pg = malloc((f->num_ports + 1) * sizeof(*pg));
	dist = malloc(ns * sizeof(*dist));
	ecc = malloc(ns * sizeof(*ecc));
	parent = malloc(ns * sizeof(*parent));
	queue = malloc(ns * sizeof(*queue));
	msw = malloc(ns * sizeof(*msw));
	up = malloc(ns);
	down = malloc(ns);
	in_tree = malloc(ns);
	if (!out->mask || !pg || !dist || !ecc || !parent || !queue || !msw ||
	    !up || !down || !in_tree)
		goto out;
	/* Member ports by GUID: linked CA and router ports. */
	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint32_t n = f->ports[p].node;

		if (!fab_is_switch(f, n) && f->ports[p].num && f->ports[p].peer != FAB_NONE &&
		    fab_is_switch(f, f->ports[f->ports[p].peer].node)) {
			pg[n_pg].guid = f->ports[p].guid;
			pg[n_pg++].port = p;
		}
	}
	qsort(pg, n_pg, sizeof(*pg), cmp_pg);

	for (uint32_t gi = 0; gi < db->num_groups; gi++) {
		const struct mcast_group *g = &db->groups[gi];
		uint32_t nm = 0, root = UINT32_MAX, best = UINT32_MAX, ties = 0;

		/* The switches the members hang off. */
		memset(in_tree, 0, ns);
		for (uint32_t k = 0; k < g->num_members; k++) {
			struct port_guid key = { .guid = g->members[k].port_guid }, *hit;
			uint32_t q, s;

			hit = bsearch(&key, pg, n_pg, sizeof(key), cmp_pg);
			if (!hit)
				continue;
			q = f->ports[hit->port].peer;
			s = f->nodes[f->ports[q].node].sw_index;
			if (g->members[k].join_state & (MCAST_FULL | MCAST_NON))
				set_port(mft_mask(out, s, g->mlid), f->ports[q].num);
			if (!in_tree[s]) {
				in_tree[s] = 1;
				msw[nm++] = s;
			}
		}
		if (!nm)
			continue;
		/* Root: smallest eccentricity over (a sample of) the member
		 * switches; among equals, the (MLID mod ties)-th. */
		memset(ecc, 0, ns * sizeof(*ecc));
		for (uint32_t k = 0; k < nm && k < MAX_ROOT_SAMPLES; k++) {
			uint32_t src = msw[(uint64_t)k * nm / (nm < MAX_ROOT_SAMPLES ? nm : MAX_ROOT_SAMPLES)];

			bfs(f, src, dist, NULL, NULL, NULL, queue);
			for (uint32_t s = 0; s < ns; s++)
				if (dist[s] > ecc[s])
					ecc[s] = dist[s];
		}
		for (uint32_t s = 0; s < ns; s++) {
			if (ecc[s] < best) {
				best = ecc[s];
				ties = 0;
			}
			if (ecc[s] == best)
				ties++;
		}
		for (uint32_t s = 0, k = 0; s < ns; s++)
			if (ecc[s] == best && k++ == g->mlid % ties)
				root = s;
		/* The tree: each member switch's path to the root. */
		bfs(f, root, dist, parent, up, down, queue);
		memset(in_tree, 0, ns);
		in_tree[root] = 1;
		for (uint32_t k = 0; k < nm; k++) {
			uint32_t s = msw[k];

			if (dist[s] == UINT32_MAX)
				continue;       /* another island */
			while (!in_tree[s]) {
				uint32_t p = parent[s];

				in_tree[s] = 1;
				set_port(mft_mask(out, s, g->mlid), up[s]);
				set_port(mft_mask(out, p, g->mlid), down[s]);
				s = p;
			}
		}
	}
	rc = 0;
out:
	if (rc)
		mft_free(out);
	free(pg);
	free(dist);
	free(ecc);
	free(parent);
	free(queue);
	free(msw);
	free(up);
	free(down);
	free(in_tree);
	return rc;
}
