/* Credit loops: the channel dependency graph (Dally and Seitz, "Deadlock-
 * free message routing in multiprocessor interconnection networks", 1987)
 * of the routes on one VL. Nodes are directed switch-to-switch links; an
 * edge a -> b means some route holds a and asks for b. The routes are
 * deadlock-free on one VL iff the graph is acyclic. Links to and from CAs
 * cannot be on a cycle (a CA does not forward) and are left out.
 *
 * The cycle search is an iterative depth-first search (no recursion, so a
 * 100k-channel graph cannot overflow the stack); the first back edge found
 * closes the reported cycle. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

struct csr {
	uint32_t *off;          /* nchan + 1 */
	uint32_t *to;
};

static int build_csr(const struct vx *x, const uint64_t *bits, struct csr *g,
		     uint64_t *edges)
{
	const struct fabric *f = x->f;
	uint64_t n = 0;

	g->off = calloc((size_t)x->nchan + 2, sizeof(uint32_t));
	if (!g->off)
		return -ENOMEM;
	/* Two passes over the set bits: count, then fill. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t v = 0; v < x->nsw; v++) {
			const struct fab_node *nv = &f->nodes[f->switches[v]];
			uint64_t np = (uint64_t)nv->num_ports + 1;
			for (uint64_t b = x->bit_off[v]; b < x->bit_off[v + 1]; b++) {
				if (!(b % 64) && !bits[b / 64]) {
					b += 63;
					continue;
				}
				if (!(bits[b / 64] >> (b % 64) & 1))
					continue;
				uint64_t rel = b - x->bit_off[v];
				uint32_t in = (uint32_t)(rel / np), out = (uint32_t)(rel % np);
				uint32_t pin = nv->first_port + in;
				uint32_t from = x->chan_of_port[f->ports[pin].peer];
				uint32_t to = x->chan_of_port[nv->first_port + out];
				if (!pass)
					g->off[from + 2]++;
				else
					g->to[g->off[from + 1]++] = to;
			}
		}
		if (!pass) {
			for (uint32_t c = 0; c < x->nchan; c++)
				g->off[c + 2] += g->off[c + 1];
			n = g->off[x->nchan + 1];
			g->to = malloc((n ? n : 1) * sizeof(uint32_t));
			if (!g->to)
				return -ENOMEM;
		}
	}
	*edges = n;
	return 0;
}

static void describe(const struct vx *x, const uint32_t *stack, uint32_t from,
		     uint32_t top, char *desc, size_t len)
{
	const struct fabric *f = x->f;
	size_t used = 0;
	uint32_t shown = 0;
	desc[0] = 0;
	for (uint32_t i = from; i <= top && used + 1 < len; i++, shown++) {
		uint32_t c = i < top ? stack[i] : stack[from];
		const struct fab_port *p = &f->ports[x->port_of_chan[c]];
		int k = snprintf(desc + used, len - used, "%s'%s'[%u]",
				 shown ? " -> " : "", f->nodes[p->node].desc, p->num);
		if (k < 0)
			break;
		used += (size_t)k;
	}
	if (used >= len && len > 4)
		memcpy(desc + len - 4, "...", 4);
}

int vx_cdg_cycle(const struct vx *x, const uint64_t *bits, uint64_t *edges,
		 char *desc, size_t len)
{
	struct csr g = { 0 };
	uint8_t *color = NULL;
	uint32_t *stack = NULL, *next = NULL;
	int rc = build_csr(x, bits, &g, edges);

	desc[0] = 0;
	if (rc)
		goto out;
	color = calloc((size_t)x->nchan + 1, 1);
	stack = malloc(((size_t)x->nchan + 1) * sizeof(uint32_t));
	next = malloc(((size_t)x->nchan + 1) * sizeof(uint32_t));
	if (!color || !stack || !next) {
		rc = -ENOMEM;
		goto out;
	}
	/* color: 0 unvisited, 1 on the DFS stack, 2 done. g.off[c + 1] holds
	 * the end of c's edges after the fill pass; g.off[c] is the start. */
	for (uint32_t root = 0; root < x->nchan && !rc; root++) {
		if (color[root])
			continue;
		uint32_t top = 0;
		stack[top] = root;
		next[top] = g.off[root];
		color[root] = 1;
		top++;
		while (top) {
			uint32_t c = stack[top - 1];
			if (next[top - 1] == g.off[c + 1]) {
				color[c] = 2;
				top--;
				continue;
			}
			uint32_t d = g.to[next[top - 1]++];
			if (color[d] == 1) {
				uint32_t i = 0;
				while (stack[i] != d)
					i++;
				describe(x, stack, i, top, desc, len);
				rc = 1;
				break;
			}
			if (!color[d]) {
				color[d] = 1;
				stack[top] = d;
				next[top] = g.off[d];
				top++;
			}
		}
	}
out:
	free(g.off);
	free(g.to);
	free(color);
	free(stack);
	free(next);
	return rc;
}
