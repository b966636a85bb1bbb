/* Checks of routing engines' tables that test_engines.c and
 * test_engine_props.c share: see engine_check.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "routing/engine.h"
#include "routing/lft.h"
#include "tests/unit/engine_check.h"
#include "tests/unit/support.h"

void lid_dest_build(const struct fabric *f, struct lid_dest *ld)
{
	ld->max_lid = fab_max_lid(f);
	ld->sw = malloc((ld->max_lid + 1) * sizeof(uint32_t));
	ld->port = malloc((ld->max_lid + 1) * sizeof(uint32_t));
	for (uint32_t l = 0; l <= ld->max_lid; l++)
		ld->sw[l] = ld->port[l] = FAB_NONE;
	uint32_t n = fab_endpoint_ports(f, NULL);
	uint32_t *ep = malloc((n + 1) * sizeof(uint32_t));
	fab_endpoint_ports(f, ep);
	for (uint32_t i = 0; i < n; i++) {
		const struct fab_port *p = &f->ports[ep[i]];
		uint32_t s = fab_is_switch(f, p->node) ? f->nodes[p->node].sw_index
			: (fab_is_switch(f, fab_peer_node(f, ep[i]))
			   ? f->nodes[fab_peer_node(f, ep[i])].sw_index : FAB_NONE);
		for (uint32_t l = p->lid; p->lid && l < p->lid + (1u << p->lmc); l++) {
			ld->sw[l] = s;
			ld->port[l] = ep[i];
		}
	}
	free(ep);
}

void lid_dest_free(struct lid_dest *ld)
{
	free(ld->sw);
	free(ld->port);
}

int ec_walk(const struct fabric *f, const struct lft_set *t,
	 const struct lid_dest *ld, uint32_t s, uint32_t lid,
	 uint32_t *chans)
{
	for (int hops = 0; hops <= (int)f->num_switches; hops++) {
		uint8_t p = lft_get(t, s, lid);
		uint32_t n = f->switches[s];
		if (p == LFT_NO_PATH || p > f->nodes[n].num_ports)
			return -1;
		uint32_t gp = fab_port_idx(f, n, p);
		if (p == 0)
			return ld->port[lid] == gp ? hops : -1;
		uint32_t q = f->ports[gp].peer;
		if (q == FAB_NONE)
			return -1;
		if (!fab_is_switch(f, f->ports[q].node))
			return ld->port[lid] == q ? hops : -1;
		if (chans)
			chans[hops] = gp;
		s = f->nodes[f->ports[q].node].sw_index;
	}
	return -2;
}

uint32_t ec_check_reach(const struct fabric *f, const struct lft_set *t,
		     const uint32_t *dist, uint32_t *long_paths)
{
	struct lid_dest ld;
	uint32_t bad = 0;
	lid_dest_build(f, &ld);
	if (long_paths)
		*long_paths = 0;
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 1; lid <= ld.max_lid; lid++) {
			if (ld.sw[lid] == FAB_NONE)
				continue;
			int h = ec_walk(f, t, &ld, s, lid, NULL);
			if (h < 0) {
				if (bad++ < 3)
					fprintf(stderr, "switch %u -> LID %u: %s\n", s, lid,
						h == -2 ? "loop" : "no path");
				continue;
			}
			if (dist && (uint32_t)h != dist[(size_t)s * f->num_switches + ld.sw[lid]])
				(*long_paths)++;
		}
	lid_dest_free(&ld);
	return bad;
}

uint32_t *ec_switch_dists(const struct fabric *f)
{
	uint32_t n = f->num_switches;
	uint32_t *d = malloc((size_t)n * n * sizeof(uint32_t));
	uint32_t *q = malloc(n * sizeof(uint32_t));
	for (uint32_t src = 0; src < n; src++) {
		uint32_t *row = d + (size_t)src * n, head = 0, tail = 0;
		for (uint32_t i = 0; i < n; i++)
			row[i] = UINT32_MAX;
		row[src] = 0;
		q[tail++] = src;
		while (head < tail) {
			uint32_t s = q[head++], node = f->switches[s];
			for (unsigned i = 1; i <= f->nodes[node].num_ports; i++) {
				uint32_t pn = fab_peer_node(f, fab_port_idx(f, node, i));
				if (pn == FAB_NONE || !fab_is_switch(f, pn))
					continue;
				uint32_t v = f->nodes[pn].sw_index;
				if (row[v] == UINT32_MAX) {
					row[v] = row[s] + 1;
					q[tail++] = v;
				}
			}
		}
	}
	free(q);
	return d;
}

/* 1 if switch ordinal s has a CA or router cabled to it. */
static int has_cas(const struct fabric *f, uint32_t s)
{
	uint32_t n = f->switches[s];
	for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
		uint32_t pn = fab_peer_node(f, fab_port_idx(f, n, i));
		if (pn != FAB_NONE && !fab_is_switch(f, pn))
			return 1;
	}
	return 0;
}

int ec_credit_loop(const struct fabric *f, const struct lft_set *t,
		int ca_dests_only)
{
	struct lid_dest ld;
	lid_dest_build(f, &ld);
	size_t cap = 1 << 16, ne = 0;
	uint64_t *e = malloc(cap * sizeof(uint64_t));
	uint32_t *ch = malloc((f->num_switches + 2) * sizeof(uint32_t));
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 1; lid <= ld.max_lid && has_cas(f, s); lid++) {
			if (ld.sw[lid] == FAB_NONE)
				continue;
			if (ca_dests_only && fab_is_switch(f, f->ports[ld.port[lid]].node))
				continue;
			int h = ec_walk(f, t, &ld, s, lid, ch);
			for (int i = 0; i + 1 < h; i++) {
				if (ne == cap)
					e = realloc(e, (cap *= 2) * sizeof(uint64_t));
				e[ne++] = (uint64_t)ch[i] << 32 | ch[i + 1];
			}
		}
	qsort(e, ne, sizeof(uint64_t), ut_cmp_u64);
	uint32_t np = f->num_ports;
	uint32_t *off = calloc(np + 2, sizeof(uint32_t));
	for (size_t i = 0; i < ne; i++)
		off[(e[i] >> 32) + 1]++;
	for (uint32_t i = 0; i < np; i++)
		off[i + 1] += off[i];
	/* Iterative DFS with colours: 0 new, 1 on stack, 2 done. */
	uint8_t *colour = calloc(np, 1);
	uint32_t *stack = malloc((np + 1) * sizeof(uint32_t));
	uint32_t *next = malloc((np + 1) * sizeof(uint32_t));
	int loop = 0;
	for (uint32_t r = 0; r < np && !loop; r++) {
		if (colour[r])
			continue;
		uint32_t sp = 0;
		stack[sp] = r;
		next[sp++] = off[r];
		colour[r] = 1;
		while (sp && !loop) {
			uint32_t v = stack[sp - 1];
			if (next[sp - 1] == off[v + 1]) {
				colour[v] = 2;
				sp--;
				continue;
			}
			uint32_t w = (uint32_t)e[next[sp - 1]++];
			if (colour[w] == 1)
				loop = 1;
			else if (!colour[w]) {
				colour[w] = 1;
				stack[sp] = w;
				next[sp++] = off[w];
			}
		}
	}
	free(colour);
	free(stack);
	free(next);
	free(off);
	free(e);
	free(ch);
	lid_dest_free(&ld);
	return loop;
}

int ec_has_credit_loop(const struct fabric *f, const struct lft_set *t)
{
	return ec_credit_loop(f, t, 0);
}

void ec_assign(struct fabric *f, uint8_t lmc)
{
	struct lid_assign_opts o = { .lmc = lmc };
	assert_true(lid_assign(f, &o, NULL) >= 0);
}

void ec_route_ok(const char *engine, const struct fabric *f,
	      struct lft_set *t, uint8_t lmc)
{
	char why[256];
	struct route_options o = { .lmc = lmc };
	const struct route_engine *e = route_engine_find(engine);
	assert_non_null(e);
	int r = route_run(e, f, &o, t, why);
	if (r)
		fprintf(stderr, "%s: %s\n", engine, why);
	assert_int_equal(r, 0);
	assert_int_equal(t->num_switches, f->num_switches);
	assert_true(t->max_lid >= fab_max_lid(f));
}
