/* ftree: the tree's shape from the graph alone (no names, no GUID layout).
 *
 * Leaves are the switches compute nodes hang off. A switch's level is its
 * hop distance from the nearest leaf, or, when root GUIDs are given, its
 * distance below the roots counted from the bottom (OpenSM's ftree ranks,
 * turned upside down). A graph is a fat-tree for this engine when every
 * switch-to-switch link joins adjacent levels: then "up" and "down" are
 * well defined and up-then-down routes cannot form credit loops (Autonet,
 * Schroeder et al. 1991). Tori, dragonflies and random graphs have links
 * inside a level and are refused with the first such link named. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cn_rank.h"
#include "ftree.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int guid_in(const uint64_t *sorted, uint32_t n, uint64_t g)
{
	return n && bsearch(&g, sorted, n, sizeof(g), cmp_u64) != NULL;
}

static uint64_t *sorted_copy(const uint64_t *v, uint32_t n)
{
	uint64_t *s = malloc((n ? n : 1) * sizeof(*s));
	if (s && n) {
		memcpy(s, v, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_u64);
	}
	return s;
}

static uint32_t sw_of(const struct fabric *f, uint32_t node)
{
	return node == FAB_NONE ? FAB_NONE : f->nodes[node].sw_index;
}

/* Compute-node weight per switch: linked CA ports (only the listed ones
 * when compute-node GUIDs are given). Routers never count. */
static int set_weights(struct ftree *t, const struct route_options *opt)
{
	const struct fabric *f = t->fab;
	uint64_t *cn = NULL;
	uint32_t ncn = opt ? opt->num_cn_guids : 0;
	if (ncn && !(cn = sorted_copy(opt->cn_guids, ncn)))
		return -ENOMEM;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *nd = &f->nodes[n];
		if (nd->type != FAB_CA)
			continue;
		if (ncn && !guid_in(cn, ncn, nd->guid))
			continue;
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t s = sw_of(f, fab_peer_node(f, nd->first_port + p));
			if (s == FAB_NONE)
				continue;
			t->weight[s]++;
			t->total_weight++;
		}
	}
	free(cn);
	return 0;
}

/* BFS over switch-switch links from the switches with dist[s] == 0. */
static void bfs_levels(const struct ftree *t, uint32_t *dist, uint32_t *queue)
{
	const struct fabric *f = t->fab;
	uint32_t head = 0, tail = 0;
	for (uint32_t s = 0; s < t->nsw; s++)
		if (dist[s] == 0)
			queue[tail++] = s;
	while (head < tail) {
		uint32_t s = queue[head++];
		const struct fab_node *nd = &f->nodes[f->switches[s]];
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t o = sw_of(f, fab_peer_node(f, nd->first_port + p));
			if (o == FAB_NONE || dist[o] != UINT32_MAX)
				continue;
			dist[o] = dist[s] + 1;
			queue[tail++] = o;
		}
	}
}

static const char *sw_name(const struct fabric *f, uint32_t s, char *buf, size_t len)
{
	const struct fab_node *nd = &f->nodes[f->switches[s]];
	snprintf(buf, len, "0x%016" PRIx64 " \"%.20s\"", nd->guid, nd->desc);
	return buf;
}

static int assign_levels(struct ftree *t, const struct route_options *opt,
			 char *why)
{
	const struct fabric *f = t->fab;
	uint32_t *dist = malloc(t->nsw * sizeof(*dist));
	uint32_t *queue = malloc(t->nsw * sizeof(*queue));
	char a[48], b[48];
	int r = 0;
	if (!dist || !queue) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t s = 0; s < t->nsw; s++)
		dist[s] = UINT32_MAX;
	uint32_t nroots = 0;
	if (opt && opt->num_root_guids) {
		for (uint32_t i = 0; i < opt->num_root_guids; i++) {
			uint32_t s = FAB_NONE;
			for (uint32_t k = 0; k < t->nsw && s == FAB_NONE; k++)
				if (f->nodes[f->switches[k]].guid == opt->root_guids[i])
					s = k;
			if (s == FAB_NONE) {
				snprintf(why, 256, "root GUID 0x%016" PRIx64
					 " is not a switch of this fabric", opt->root_guids[i]);
				r = -ENOTSUP;
				goto out;
			}
			dist[s] = 0;
			nroots++;
		}
	} else {
		for (uint32_t s = 0; s < t->nsw; s++)
			if (t->weight[s])
				dist[s] = 0, nroots++;
	}
	if (!nroots) {
		snprintf(why, 256, "no switch has compute nodes attached");
		r = -ENOTSUP;
		goto out;
	}
	bfs_levels(t, dist, queue);
	uint32_t maxd = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		if (dist[s] == UINT32_MAX) {
			snprintf(why, 256, "switch %s is not connected to the tree",
				 sw_name(f, s, a, sizeof(a)));
			r = -ENOTSUP;
			goto out;
		}
		if (dist[s] > maxd)
			maxd = dist[s];
	}
	if (maxd >= FT_MAX_LEVELS) {
		snprintf(why, 256, "%u levels: deeper than any fat-tree (max %u)",
			 maxd + 1, FT_MAX_LEVELS);
		r = -ENOTSUP;
		goto out;
	}
	int from_roots = opt && opt->num_root_guids;
	t->height = maxd;
	for (uint32_t s = 0; s < t->nsw; s++) {
		t->level[s] = (uint8_t)(from_roots ? maxd - dist[s] : dist[s]);
		if (from_roots && t->weight[s] && t->level[s] != 0) {
			snprintf(why, 256, "leaf %s is %u levels above the lowest "
				 "leaves: not a fat-tree under the given roots",
				 sw_name(f, s, a, sizeof(a)), t->level[s]);
			r = -ENOTSUP;
			goto out;
		}
	}
	/* Every switch link must join adjacent levels. */
	for (uint32_t s = 0; s < t->nsw; s++) {
		const struct fab_node *nd = &f->nodes[f->switches[s]];
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t o = sw_of(f, fab_peer_node(f, nd->first_port + p));
			if (o == FAB_NONE || o < s)
				continue;
			int dl = (int)t->level[s] - (int)t->level[o];
			if (dl == 1 || dl == -1)
				continue;
			snprintf(why, 256, "switches %s and %s are linked %s level %u:"
				 " not a fat-tree", sw_name(f, s, a, sizeof(a)),
				 sw_name(f, o, b, sizeof(b)),
				 dl ? "across more than one" : "inside", t->level[s]);
			r = -ENOTSUP;
			goto out;
		}
	}
	/* A CA that defines no leaf (not a compute node) may hang anywhere;
	 * compute nodes must hang off level 0. */
	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->weight[s] && t->level[s]) {
			snprintf(why, 256, "compute nodes hang off switch %s at level %u",
				 sw_name(f, s, a, sizeof(a)), t->level[s]);
			r = -ENOTSUP;
			goto out;
		}
out:
	free(dist);
	free(queue);
	return r;
}

/* CSR adjacency split into up and down links, and the per-port peer map. */
static int build_links(struct ftree *t)
{
	const struct fabric *f = t->fab;
	t->up_off = calloc(t->nsw + 1, sizeof(uint32_t));
	t->dn_off = calloc(t->nsw + 1, sizeof(uint32_t));
	t->peer_sw = malloc((f->num_ports ? f->num_ports : 1) * sizeof(uint32_t));
	t->fport = malloc(t->nsw * sizeof(uint32_t));
	t->nports = malloc(t->nsw);
	t->peer_num = calloc(f->num_ports ? f->num_ports : 1, 1);
	t->port_up = calloc(f->num_ports ? f->num_ports : 1, 1);
	if (!t->up_off || !t->dn_off || !t->peer_sw || !t->fport || !t->nports ||
	    !t->peer_num || !t->port_up)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->nsw; s++) {
		t->fport[s] = f->nodes[f->switches[s]].first_port;
		t->nports[s] = f->nodes[f->switches[s]].num_ports;
	}
	for (uint32_t p = 0; p < f->num_ports; p++)
		t->peer_sw[p] = FAB_NONE;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t nu = 0, nd = 0;
		for (uint32_t s = 0; s < t->nsw; s++) {
			const struct fab_node *node = &f->nodes[f->switches[s]];
			t->up_off[s] = nu;
			t->dn_off[s] = nd;
			for (unsigned p = 1; p <= node->num_ports; p++) {
				uint32_t pi = node->first_port + p;
				uint32_t o = sw_of(f, fab_peer_node(f, pi));
				if (o == FAB_NONE)
					continue;
				uint32_t q = f->ports[pi].peer;
				struct ft_link l = { o, pi, q, (uint8_t)p, f->ports[q].num };
				t->peer_sw[pi] = o;
				t->peer_num[pi] = l.rport;
				t->port_up[pi] = t->level[o] > t->level[s];
				if (t->level[o] > t->level[s]) {
					if (pass)
						t->up[nu] = l;
					nu++;
				} else {
					if (pass)
						t->dn[nd] = l;
					nd++;
				}
			}
		}
		t->up_off[t->nsw] = nu;
		t->dn_off[t->nsw] = nd;
		if (!pass) {
			t->up = malloc((nu ? nu : 1) * sizeof(*t->up));
			t->dn = malloc((nd ? nd : 1) * sizeof(*t->dn));
			if (!t->up || !t->dn)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The switch links of up[] and dn[] in one compact array (peer and far
 * port only): the group setup's breadth-first search over the whole
 * fabric runs once per target switch and reads nothing else. */
static int build_neighbours(struct ftree *t)
{
	uint32_t n = t->up_off[t->nsw] + t->dn_off[t->nsw], k = 0;
	t->nb_off = malloc((t->nsw + 1) * sizeof(uint32_t));
	t->nb_peer = malloc((n ? n : 1) * sizeof(uint32_t));
	t->nb_rport = malloc(n ? n : 1);
	if (!t->nb_off || !t->nb_peer || !t->nb_rport)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->nsw; s++) {
		t->nb_off[s] = k;
		for (uint32_t i = t->up_off[s]; i < t->up_off[s + 1]; i++, k++) {
			t->nb_peer[k] = t->up[i].peer;
			t->nb_rport[k] = t->up[i].rport;
		}
		for (uint32_t i = t->dn_off[s]; i < t->dn_off[s + 1]; i++, k++) {
			t->nb_peer[k] = t->dn[i].peer;
			t->nb_rport[k] = t->dn[i].rport;
		}
	}
	t->nb_off[t->nsw] = k;
	/* Each link's index at its far end, so the group setup can search
	 * from the few non-good switches toward the good set (pairs by the
	 * fabric port index of each end). */
	uint32_t np = t->fab->num_ports, *at = malloc((np + 1) * sizeof(uint32_t));
	t->nb_rev = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!at || !t->nb_rev) {
		free(at);
		return -ENOMEM;
	}
	for (uint32_t e = 0; e <= np; e++)
		at[e] = UINT32_MAX;
	k = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		for (uint32_t i = t->up_off[s]; i < t->up_off[s + 1]; i++)
			at[t->up[i].egress] = k++;
		for (uint32_t i = t->dn_off[s]; i < t->dn_off[s + 1]; i++)
			at[t->dn[i].egress] = k++;
	}
	int paired = 1;
	k = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		for (uint32_t i = t->up_off[s]; i < t->up_off[s + 1]; i++)
			paired &= (t->nb_rev[k++] = at[t->up[i].rev_egress]) != UINT32_MAX;
		for (uint32_t i = t->dn_off[s]; i < t->dn_off[s + 1]; i++)
			paired &= (t->nb_rev[k++] = at[t->dn[i].rev_egress]) != UINT32_MAX;
	}
	free(at);
	if (!paired) {
		free(t->nb_rev);
		t->nb_rev = NULL;
		return 0;
	}
	/* Each switch's links by their index at the far end (the order
	 * the good set's search meets them in): the first good neighbour
	 * in this order is the one that reaches it first. */
	t->nb_srt_rev = malloc((n ? n : 1) * sizeof(uint32_t));
	t->nb_srt_peer = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!t->nb_srt_rev || !t->nb_srt_peer)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t a = t->nb_off[s];
		for (uint32_t j = a; j < t->nb_off[s + 1]; j++) {
			uint32_t v = t->nb_rev[j], p = t->nb_peer[j], b = j;
			for (; b > a && t->nb_srt_rev[b - 1] > v; b--) {
				t->nb_srt_rev[b] = t->nb_srt_rev[b - 1];
				t->nb_srt_peer[b] = t->nb_srt_peer[b - 1];
			}
			t->nb_srt_rev[b] = v;
			t->nb_srt_peer[b] = p;
		}
	}
	return 0;
}

struct sort_key {
	uint64_t k1, k2, k3;
	uint32_t id;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	if (x->k3 != y->k3)
		return x->k3 < y->k3 ? -1 : 1;
	return 0;
}

/* Switches by level, and the tie-break order: top level by node index,
 * each lower level by (lowest order among its up-neighbours, node index);
 * inside director chassis (ftree_chassis.c) by chassis, then the cabled
 * position, then node index.
 * On a regular tree this groups the switches of one "column" (those that
 * share upper switches) so every leaf sees its spines in the same order,
 * which is what makes d-mod-k consistent across leaves. */
static int build_order(struct ftree *t)
{
	const struct fabric *f = t->fab;
	t->by_level = malloc(t->nsw * sizeof(uint32_t));
	t->order = malloc(t->nsw * sizeof(uint32_t));
	struct sort_key *k = malloc(t->nsw * sizeof(*k));
	if (!t->by_level || !t->order || !k) {
		free(k);
		return -ENOMEM;
	}
	memset(t->lvl_off, 0, sizeof(t->lvl_off));
	for (uint32_t s = 0; s < t->nsw; s++)
		t->lvl_off[t->level[s] + 1]++;
	for (uint32_t l = 1; l <= FT_MAX_LEVELS + 1; l++)
		t->lvl_off[l] += t->lvl_off[l - 1];
	uint32_t next = 0;
	for (int l = (int)t->height; l >= 0; l--) {
		uint32_t n = 0;
		for (uint32_t s = 0; s < t->nsw; s++) {
			if (t->level[s] != l)
				continue;
			uint64_t m = UINT64_MAX;
			for (uint32_t i = t->up_off[s]; i < t->up_off[s + 1]; i++)
				if (t->order[t->up[i].peer] < m)
					m = t->order[t->up[i].peer];
			uint32_t c = t->chassis ? t->chassis[s] : FAB_NONE;
			if (c == FAB_NONE)
				k[n++] = (struct sort_key){ m, f->switches[s], 0, s };
			else    /* chassis, then cabled position inside it */
				k[n++] = (struct sort_key){ m, (uint64_t)c << 32 |
					t->chassis_pos[s], f->switches[s], s };
		}
		qsort(k, n, sizeof(*k), cmp_key);
		for (uint32_t i = 0; i < n; i++) {
			t->order[k[i].id] = next++;
			t->by_level[t->lvl_off[l] + i] = k[i].id;
		}
	}
	free(k);
	return 0;
}

/* Cabled order of the switches endpoints hang off: leaves by (pod, port at
 * the pod's upper switches) where a pod is named by the lowest node index
 * among the leaves its upper switch reaches; then other switches by order.
 * Regular cabling (spine port i -> leaf i) makes this the order the tree
 * is wired in, whichever links are missing. */
static void leaf_key(const struct ftree *t, uint32_t s, struct sort_key *k)
{
	const struct fabric *f = t->fab;
	k->id = s;
	if (t->level[s] != 0) {
		*k = (struct sort_key){ 1, t->order[s], 0, s };
		return;
	}
	uint64_t best1 = f->switches[s], best2 = 0;
	int any = 0;
	for (uint32_t i = t->up_off[s]; i < t->up_off[s + 1]; i++) {
		uint32_t u = t->up[i].peer;
		uint64_t pod = UINT64_MAX;
		for (uint32_t j = t->dn_off[u]; j < t->dn_off[u + 1]; j++)
			if (t->level[t->dn[j].peer] == 0 &&
			    f->switches[t->dn[j].peer] < pod)
				pod = f->switches[t->dn[j].peer];
		if (!any || pod < best1 || (pod == best1 && t->up[i].rport < best2)) {
			best1 = pod;
			best2 = t->up[i].rport;
			any = 1;
		}
	}
	*k = (struct sort_key){ 0, best1, best2, s };
}

/* qsort_r context for the rank order of one leaf's CAs. */
struct rank_ctx {
	const uint32_t *rank;
	const struct fab_node *nd;
	const struct fabric *f;
};

static uint32_t dest_rank(const struct ft_dest *d, const struct rank_ctx *c)
{
	uint32_t q = c->f->ports[c->nd->first_port + d->port].peer;

	return q == FAB_NONE ? CN_NO_RANK : c->rank[q];
}

static int cmp_dest_rank(const void *a, const void *b, void *arg)
{
	uint32_t x = dest_rank(a, arg), y = dest_rank(b, arg);

	if (x != y)
		return x < y ? -1 : 1;
	return ((const struct ft_dest *)a)->port < ((const struct ft_dest *)b)->port ? -1 : 1;
}

/* Leaves with compute nodes by their lowest rank, the others after them
 * in the order they had (stable). */
static void rank_leaves(const struct ftree *t, const uint32_t *rank,
			struct sort_key *k)
{
	const struct fabric *f = t->fab;
	struct { uint32_t r, pos; struct sort_key k; } *v = malloc(t->nsw * sizeof(*v));

	if (!v)
		return;                 /* keep the cabled order */
	for (uint32_t i = 0; i < t->nsw; i++) {
		const struct fab_node *nd = &f->nodes[f->switches[k[i].id]];
		uint32_t r = CN_NO_RANK;

		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t q = f->ports[nd->first_port + p].peer;

			if (q != FAB_NONE && rank[q] < r)
				r = rank[q];
		}
		v[i].r = r;
		v[i].pos = i;
		v[i].k = k[i];
	}
	/* Insertion by (rank, position): leaves are few. */
	for (uint32_t i = 1; i < t->nsw; i++) {
		uint32_t j = i;
		__typeof__(v[0]) x = v[i];

		while (j > 0 && (v[j - 1].r > x.r ||
				 (v[j - 1].r == x.r && v[j - 1].pos > x.pos))) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	for (uint32_t i = 0; i < t->nsw; i++)
		k[i] = v[i].k;
	free(v);
}

static int build_dests(struct ftree *t, const struct route_options *opt)
{
	const struct fabric *f = t->fab;
	uint64_t *cn = NULL;
	uint32_t ncn = opt ? opt->num_cn_guids : 0;
	if (ncn && !(cn = sorted_copy(opt->cn_guids, ncn)))
		return -ENOMEM;
	struct sort_key *k = malloc(t->nsw * sizeof(*k));
	uint32_t cap = f->num_ports + 1;
	t->dest = malloc(cap * sizeof(*t->dest));
	if (!k || !t->dest) {
		free(k);
		free(cn);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < t->nsw; s++)
		leaf_key(t, s, &k[s]);
	qsort(k, t->nsw, sizeof(*k), cmp_key);
	const uint32_t *rank = opt ? opt->cn_rank : NULL;
	if (rank)
		rank_leaves(t, rank, k);
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nsw; i++) {
		uint32_t s = k[i].id;
		const struct fab_node *nd = &f->nodes[f->switches[s]];
		uint32_t first = n;
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t pi = nd->first_port + p;
			uint32_t q = f->ports[pi].peer;
			if (q == FAB_NONE || fab_is_switch(f, f->ports[q].node))
				continue;
			const struct fab_port *cp = &f->ports[q];
			if (!cp->lid)
				continue;
			const struct fab_node *cnode = &f->nodes[cp->node];
			int w = cnode->type == FAB_CA &&
				(!ncn || guid_in(cn, ncn, cnode->guid));
			t->dest[n++] = (struct ft_dest){ s, cp->lid, (uint8_t)p,
				(uint8_t)(1u << cp->lmc), (uint8_t)w };
		}
		/* Rank order: the leaf's CAs in rank order, so that d-mod-k
		 * gives the i-th ranked CA of a leaf the i-th up column. */
		if (rank && n - first > 1) {
			struct rank_ctx c = { rank, nd, f };
			qsort_r(t->dest + first, n - first, sizeof(*t->dest),
				cmp_dest_rank, &c);
		}
	}
	t->nca_dest = n;
	for (uint32_t i = 0; i < t->nsw; i++) {
		uint32_t s = t->by_level[i];
		const struct fab_port *p0 = &f->ports[f->nodes[f->switches[s]].first_port];
		if (!p0->lid)
			continue;
		t->dest[n++] = (struct ft_dest){ s, p0->lid, 0,
			(uint8_t)(1u << p0->lmc), 0 };
	}
	t->ndest = n;
	free(k);
	free(cn);
	return 0;
}

void ft_free(struct ftree *t)
{
	free(t->level);
	free(t->order);
	free(t->up_off);
	free(t->dn_off);
	free(t->up);
	free(t->dn);
	free(t->by_level);
	free(t->peer_sw);
	free(t->peer_num);
	free(t->port_up);
	free(t->nports);
	free(t->nb_off);
	free(t->nb_peer);
	free(t->nb_rport);
	free(t->nb_rev);
	free(t->nb_srt_rev);
	free(t->nb_srt_peer);
	free(t->fport);
	free(t->weight);
	free(t->dest);
	free(t->chassis);
	free(t->chassis_pos);
	free(t->hub_role);
	free(t->hub_e);
	free(t->hub_des);
	free(t->hub_port);
	memset(t, 0, sizeof(*t));
}

int ft_build(struct ftree *t, const struct fabric *f,
	     const struct route_options *opt, char *why)
{
	memset(t, 0, sizeof(*t));
	t->fab = f;
	t->tune = &ftree_tuning_default;
	t->stats = &t->own_stats;
	t->nsw = f->num_switches;
	if (!t->nsw) {
		snprintf(why, 256, "the fabric has no switches");
		return -ENOTSUP;
	}
	t->level = calloc(t->nsw, 1);
	t->weight = calloc(t->nsw, sizeof(uint32_t));
	if (!t->level || !t->weight)
		goto nomem;
	int r = set_weights(t, opt);
	if (r)
		goto fail;
	r = assign_levels(t, opt, why);
	if (r)
		goto fail;
	if ((r = build_links(t)) || (r = build_neighbours(t)) ||
	    (r = ft_find_chassis(t)) || (r = build_order(t)) ||
	    (r = ft_find_hub(t, opt)) || (r = build_dests(t, opt)))
		goto fail;
	t->max_lid = fab_max_lid(f);
	t->cap = ft_load_cap(t);
	return 0;
nomem:
	r = -ENOMEM;
fail:
	if (r == -ENOMEM)
		snprintf(why, 256, "out of memory");
	ft_free(t);
	return r;
}
