/* Path-SL tables: allocation, lookup, the --sl-out writer and the per-SL
 * credit-loop check (one channel dependency graph per SL, Dally and Seitz
 * 1987; acyclic by Kahn's topological sort, independent of how the engine
 * built its layers). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "path_sl.h"

#include "../core/grow.h"
#include "../core/input_file.h"
#include "../core/log.h"
#include "route_graph.h"

int path_sl_alloc(struct path_sl *p, const struct fabric *f)
{
	struct route_graph g;
	memset(p, 0, sizeof(*p));
	if (rg_build(&g, f))
		return -ENOMEM;
	p->num_switches = g.nsw;
	p->max_lid = fab_max_lid(f);
	p->stride = p->max_lid + 1;
	p->sl = calloc((size_t)p->stride * (g.nsw ? g.nsw : 1), 1);
	p->sw_of_lid = malloc((size_t)p->stride * sizeof(uint32_t));
	if (!p->sl || !p->sw_of_lid) {
		rg_free(&g);
		path_sl_free(p);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l < p->stride; l++)
		p->sw_of_lid[l] = UINT32_MAX;
	for (uint32_t s = 0; s < g.nsw; s++)
		for (uint32_t e = g.ep_off[s]; e < g.ep_off[s + 1]; e++)
			for (uint32_t k = 0; k < g.ep[e].nlids; k++)
				if (g.ep[e].lid + k <= p->max_lid)
					p->sw_of_lid[g.ep[e].lid + k] = s;
	p->vls_used = 1;
	rg_free(&g);
	return 0;
}

void path_sl_free(struct path_sl *p)
{
	free(p->sl);
	free(p->sw_of_lid);
	memset(p, 0, sizeof(*p));
}

uint8_t path_sl_lookup(const struct path_sl *p, uint32_t slid, uint32_t dlid)
{
	if (!p || !p->sl || slid > p->max_lid || dlid > p->max_lid ||
	    p->sw_of_lid[slid] == UINT32_MAX)
		return 0;
	return p->sl[(size_t)p->sw_of_lid[slid] * p->stride + dlid];
}

uint8_t path_sl_hook(void *arg, uint16_t slid, uint16_t dlid)
{
	return path_sl_lookup(arg, slid, dlid);
}

int path_sl_write(const struct fabric *f, const struct path_sl *p,
		  const char *path, int switch_lids)
{
	struct route_graph g;
	FILE *out = fopen(path, "w");
	if (!out)
		return -errno;
	if (rg_build(&g, f)) {
		fclose(out);
		return -ENOMEM;
	}
	fprintf(out, "# SLID DLID SL (ibsm path SLs, %u VLs used)\n", p->vls_used);
	for (uint32_t a = 0; a < g.ep_off[g.nsw]; a++) {
		if (!g.ep[a].weighted)
			continue;
		for (uint32_t b = 0; b < g.ep_off[g.nsw]; b++) {
			if ((!g.ep[b].weighted && !switch_lids) || a == b)
				continue;
			for (uint32_t k = 0; k < g.ep[b].nlids; k++) {
				uint32_t d = g.ep[b].lid + k;
				fprintf(out, "%u %u %u\n", g.ep[a].lid, d,
					path_sl_lookup(p, g.ep[a].lid, d));
			}
		}
	}
	rg_free(&g);
	return fclose(out) ? -errno : 0;
}

uint32_t path_sl_channels(const struct route_graph *g, const struct lft_set *t,
			  uint32_t s, uint32_t lid, uint32_t *chan, uint32_t max)
{
	uint32_t n = 0, cur = s;
	for (;;) {
		uint8_t port = lft_get(t, cur, lid);
		if (port == LFT_NO_PATH)
			return UINT32_MAX;
		uint32_t i = g->adj_off[cur];
		while (i < g->adj_off[cur + 1] && g->adj[i].port != port)
			i++;
		if (i == g->adj_off[cur + 1])
			return n; /* port 0 or a CA/router port: delivered */
		if (n == max)
			return UINT32_MAX; /* longer than any loop-free route */
		chan[n++] = i;
		cur = g->adj[i].peer;
	}
}

/* Kahn's algorithm on the dependency edges of one SL (CSR from an edge
 * list sorted by tail); returns 1 if a cycle remains. */
static int has_cycle(uint32_t nchan, const uint64_t *edge, size_t nedge,
		     uint32_t *indeg, uint32_t *off, uint32_t *queue)
{
	memset(indeg, 0, nchan * sizeof(uint32_t));
	memset(off, 0, (nchan + 1) * sizeof(uint32_t));
	for (size_t e = 0; e < nedge; e++) {
		off[(edge[e] >> 32) + 1]++;
		indeg[(uint32_t)edge[e]]++;
	}
	for (uint32_t c = 0; c < nchan; c++)
		off[c + 1] += off[c];
	uint32_t head = 0, tail = 0, done = 0;
	for (uint32_t c = 0; c < nchan; c++)
		if (!indeg[c])
			queue[tail++] = c;
	while (head < tail) {
		uint32_t c = queue[head++];
		done++;
		for (uint32_t e = off[c]; e < off[c + 1]; e++) {
			uint32_t d = (uint32_t)edge[e];
			if (!--indeg[d])
				queue[tail++] = d;
		}
	}
	return done != nchan;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int path_sl_check(const struct fabric *f, const struct lft_set *t,
		  const struct path_sl *p, uint32_t *vls_used, char *why,
		  size_t len)
{
	return path_sl_check_vls(f, t, p, NULL, vls_used, why, len);
}

/* "VL 2 (SLs 2, 6)": the SLs whose routes share a VL's graph. */
static void vl_name(char *buf, size_t len, const struct path_sl_vls *v,
		    unsigned vl)
{
	size_t used;
	unsigned n = 0;
	int k = snprintf(buf, len, "VL %u (SL%s", vl,
			 __builtin_popcount(v->sls_of_vl[vl]) > 1 ? "s" : "");

	used = k > 0 ? (size_t)k : 0;
	for (unsigned sl = 0; sl < 16 && used < len; sl++)
		if (v->sls_of_vl[vl] >> sl & 1) {
			k = snprintf(buf + used, len - used, "%s%u", n++ ? ", " : " ", sl);
			used += k > 0 ? (size_t)k : 0;
		}
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

int path_sl_check_vls(const struct fabric *f, const struct lft_set *t,
		      const struct path_sl *p, const struct path_sl_vls *v,
		      uint32_t *vls_used, char *why, size_t len)
{
	struct route_graph g;
	int rc = 0;
	why[0] = 0;
	*vls_used = 0;
	if (rg_build(&g, f))
		return -ENOMEM;
	uint32_t nchan = g.adj_off[g.nsw];
	uint32_t n[16] = { 0 }, ecap[16] = { 0 };
	uint64_t *edge[16] = { 0 };
	uint32_t *chan = malloc(((size_t)g.nsw + 1) * sizeof(uint32_t));
	uint32_t *indeg = malloc(((size_t)nchan + 1) * sizeof(uint32_t));
	uint32_t *off = malloc(((size_t)nchan + 2) * sizeof(uint32_t));
	uint32_t *queue = malloc(((size_t)nchan + 1) * sizeof(uint32_t));
	if (!chan || !indeg || !off || !queue) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t s = 0; s < g.nsw && !rc; s++)
		for (uint32_t lid = 1; g.cas[s] && lid <= p->max_lid && lid <= t->max_lid; lid++) {
			if (p->sw_of_lid[lid] == UINT32_MAX || p->sw_of_lid[lid] == s)
				continue;
			uint32_t k = path_sl_channels(&g, t, s, lid, chan, g.nsw);
			if (k == UINT32_MAX || k < 2)
				continue;
			uint8_t sl = p->sl[(size_t)s * p->stride + lid] & 15;
			/* Per SL, or into the graph of every VL the layer's
			 * SLs map to (two SLs on one VL share its graph). */
			uint16_t mask = v ? v->vl_mask[sl] : (uint16_t)(1u << sl);
			if (sl + 1u > *vls_used)
				*vls_used = sl + 1u;
			if (!mask && !rc) {
				snprintf(why, len, "layer %u: no VL carries it (the SL2VL "
					 "map has no SL for it)", sl);
				rc = 1;
			}
			for (unsigned g2 = 0; g2 < 16; g2++) {
				if (!(mask >> g2 & 1))
					continue;
				for (uint32_t j = 0; j + 1 < k; j++) {
					if (grow_array((void **)&edge[g2], &ecap[g2], n[g2] + 1,
						       sizeof(*edge[g2]), 1024)) {
						rc = -ENOMEM;
						goto out;
					}
					edge[g2][n[g2]++] = (uint64_t)chan[j] << 32 | chan[j + 1];
				}
			}
		}
	if (!*vls_used)
		*vls_used = 1;
	for (int l = 0; l < 16 && rc >= 0; l++) {
		if (!n[l])
			continue;
		qsort(edge[l], n[l], sizeof(uint64_t), cmp_u64);
		/* Per SL the last cycle found is named (as before); per VL the first. */
		if (has_cycle(nchan, edge[l], n[l], indeg, off, queue) && (!rc || !v)) {
			char name[96];

			if (v)
				vl_name(name, sizeof(name), v, (unsigned)l);
			else
				snprintf(name, sizeof(name), "SL %d", l);
			snprintf(why, len, "%s: channel dependency graph has a "
				 "cycle (credit loop)", name);
			rc = 1;
		}
	}
out:
	for (int l = 0; l < 16; l++)
		free(edge[l]);
	free(chan);
	free(indeg);
	free(off);
	free(queue);
	rg_free(&g);
	return rc;
}

int path_sl_read(struct path_sl *p, const char *path)
{
	char line[256];
	unsigned ln = 0;
	int rc = 0;
	FILE *in = input_file_open(path, &rc);

	if (!in)
		return rc;
	p->vls_used = 1;
	while (fgets(line, sizeof(line), in)) {
		unsigned slid, dlid, sl;
		char extra;
		uint32_t s;
		uint8_t *cell;

		ln++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (sscanf(line, "%u %u %u %c", &slid, &dlid, &sl, &extra) != 3) {
			log_err("%s:%u: expected \"SLID DLID SL\"", path, ln);
			rc = -EINVAL;
			break;
		}
		if (sl >= PATH_SL_MAX_VLS) {
			log_err("%s:%u: SL %u: data VLs are 0..%u", path, ln, sl,
				PATH_SL_MAX_VLS - 1);
			rc = -EINVAL;
			break;
		}
		if (slid > p->max_lid || dlid > p->max_lid ||
		    (s = p->sw_of_lid[slid]) == UINT32_MAX ||
		    p->sw_of_lid[dlid] == UINT32_MAX) {
			log_err("%s:%u: LID %u or %u is no endpoint of this fabric",
				path, ln, slid, dlid);
			rc = -EINVAL;
			break;
		}
		/* One SL per source switch and destination: every CA on a
		 * switch shares its route past it. */
		cell = &p->sl[(size_t)s * p->stride + dlid];
		if (*cell && *cell != sl) {
			log_err("%s:%u: SL %u for %u -> %u, but another CA on the same switch has SL %u to %u",
				path, ln, sl, slid, dlid, *cell, dlid);
			rc = -EINVAL;
			break;
		}
		*cell = (uint8_t)sl;
		if (sl + 1 > p->vls_used)
			p->vls_used = (uint8_t)(sl + 1);
	}
	fclose(in);
	return rc;
}
