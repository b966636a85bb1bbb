/* `loopy`: a routing engine for tests only (build/tests/libibsm-engine-
 * loopy.so, never installed) that returns tables the daemon must not
 * program, to exercise the fallback of routing/route_select.h. It declares
 * ROUTE_ENGINE_DEADLOCK_FREE, as a buggy engine would.
 *
 * IBSM_TEST_LOOPY_MODE selects what is wrong with its tables:
 *   credit (default)  complete and loop-free, but a credit loop: on one
 *                     cycle of switches C0..Ck-1 every LID of a cycle
 *                     switch is routed clockwise around it, so the
 *                     channels of the cycle depend on each other in a
 *                     ring (Dally & Seitz 1987); the rest is shortest path
 *   loop              a forwarding loop: two neighbouring switches send
 *                     every LID not on them to each other
 *   missing           CA LIDs routed only by the switch they hang off
 *   good              shortest paths, nothing wrong (on a fat-tree they
 *                     are up/down, so they verify)
 * Anything else refuses the fabric. IBSM_TEST_LOOPY_MODE_FILE names a file
 * whose first word is read at every route instead, so a test can make a
 * running daemon's next re-route fail. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/engine.h"

/* The switch ordinal a LID-owning port hangs off (itself for port 0). */
static uint32_t home_switch(const struct fabric *f, uint32_t p)
{
	uint32_t n = f->ports[p].node;

	if (fab_is_switch(f, n))
		return f->nodes[n].sw_index;
	n = fab_peer_node(f, p);
	return n != FAB_NONE && fab_is_switch(f, n) ? f->nodes[n].sw_index : FAB_NONE;
}

/* Port number of switch ordinal a that leads to switch ordinal b, 0 if none. */
static uint8_t port_to(const struct fabric *f, uint32_t a, uint32_t b)
{
	const struct fab_node *n = &f->nodes[f->switches[a]];

	for (unsigned k = 1; k <= n->num_ports; k++) {
		uint32_t m = fab_peer_node(f, n->first_port + k);

		if (m != FAB_NONE && f->nodes[m].sw_index == b)
			return (uint8_t)k;
	}
	return 0;
}

/* next[s]: port of switch s on a shortest path to switch d (0 at d or
 * unreachable). queue: num_switches entries. */
static void toward(const struct fabric *f, uint32_t d, uint8_t *next,
		   uint32_t *queue, uint8_t *seen)
{
	uint32_t head = 0, tail = 0;

	memset(next, 0, f->num_switches);
	memset(seen, 0, f->num_switches);
	queue[tail++] = d;
	seen[d] = 1;
	while (head < tail) {
		uint32_t u = queue[head++];
		const struct fab_node *n = &f->nodes[f->switches[u]];

		for (unsigned k = 1; k <= n->num_ports; k++) {
			uint32_t q = f->ports[n->first_port + k].peer;

			if (q == FAB_NONE || !fab_is_switch(f, f->ports[q].node))
				continue;
			uint32_t v = f->nodes[f->ports[q].node].sw_index;
			if (seen[v])
				continue;
			seen[v] = 1;
			next[v] = f->ports[q].num;
			queue[tail++] = v;
		}
	}
}

/* A cycle of >= 3 switches found by BFS from a switch with CAs (so that
 * CA routes cross it): cyc[0..*len). Returns 0 or -ENOENT (a tree). */
static int find_cycle(const struct fabric *f, uint32_t *cyc, uint32_t *len)
{
	uint32_t ns = f->num_switches, s0 = 0, head = 0, tail = 0;
	uint32_t *parent = malloc(ns * sizeof(*parent));
	uint32_t *depth = malloc(ns * sizeof(*depth));
	uint32_t *queue = malloc(ns * sizeof(*queue));
	int r = -ENOENT;

	if (!parent || !depth || !queue) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t p = 0; p < f->num_ports; p++)
		if (f->ports[p].num && !fab_is_switch(f, f->ports[p].node) &&
		    home_switch(f, p) != FAB_NONE) {
			s0 = home_switch(f, p);
			break;
		}
	for (uint32_t s = 0; s < ns; s++)
		parent[s] = FAB_NONE, depth[s] = UINT32_MAX;
	depth[s0] = 0;
	queue[tail++] = s0;
	while (head < tail && r == -ENOENT) {
		uint32_t u = queue[head++];
		const struct fab_node *n = &f->nodes[f->switches[u]];

		for (unsigned k = 1; k <= n->num_ports && r == -ENOENT; k++) {
			uint32_t m = fab_peer_node(f, n->first_port + k);

			if (m == FAB_NONE || !fab_is_switch(f, m))
				continue;
			uint32_t v = f->nodes[m].sw_index;
			if (v == u || v == parent[u] || u == parent[v])
				continue;
			if (depth[v] == UINT32_MAX) {
				depth[v] = depth[u] + 1;
				parent[v] = u;
				queue[tail++] = v;
				continue;
			}
			/* u-v closes a cycle: u .. lca and v .. lca. */
			uint32_t a = u, b = v, na = 0, nb = 0, tmp[512];
			while (depth[a] > depth[b] && na < 256)
				cyc[na++] = a, a = parent[a];
			while (depth[b] > depth[a] && nb < 256)
				tmp[nb++] = b, b = parent[b];
			while (a != b && na < 256 && nb < 256) {
				cyc[na++] = a, a = parent[a];
				tmp[nb++] = b, b = parent[b];
			}
			if (na >= 256 || nb >= 256)
				continue;
			cyc[na++] = a;  /* the lca */
			/* cyc: u .. lca; reverse to lca .. u, then v .. */
			for (uint32_t i = 0; i < na / 2; i++) {
				uint32_t x = cyc[i];
				cyc[i] = cyc[na - 1 - i];
				cyc[na - 1 - i] = x;
			}
			for (uint32_t i = 0; i < nb; i++)
				cyc[na + i] = tmp[i];
			*len = na + nb;
			r = 0;
		}
	}
out:
	free(parent);
	free(depth);
	free(queue);
	return r;
}

static int loopy_route(struct route_ctx *ctx, struct lft_set *t)
{
	const struct fabric *f = ctx->fab;
	const char *mode = getenv("IBSM_TEST_LOOPY_MODE");
	const char *mode_file = getenv("IBSM_TEST_LOOPY_MODE_FILE");
	char word[32] = "";
	uint32_t ns = f->num_switches, cyc[512], clen = 0;
	uint8_t *next = malloc(ns ? ns : 1), *seen = malloc(ns ? ns : 1);
	uint32_t *queue = malloc((ns ? ns : 1) * sizeof(*queue));
	uint32_t *on_cycle = malloc((ns ? ns : 1) * sizeof(*on_cycle));
	int r = 0;

	if (mode_file && *mode_file) {
		FILE *mf = fopen(mode_file, "r");

		if (!mf || fscanf(mf, "%31s", word) != 1)
			word[0] = 0;
		if (mf)
			fclose(mf);
		mode = word;
	}
	if (!mode || !*mode)
		mode = "credit";
	if (!next || !seen || !queue || !on_cycle) {
		r = -ENOMEM;
		goto out;
	}
	if (strcmp(mode, "credit") && strcmp(mode, "loop") && strcmp(mode, "missing") &&
	    strcmp(mode, "good")) {
		snprintf(ctx->why, sizeof(ctx->why), "mode '%s': want credit, loop, missing or good", mode);
		r = -ENOTSUP;
		goto out;
	}
	for (uint32_t s = 0; s < ns; s++)
		on_cycle[s] = UINT32_MAX;
	if (!strcmp(mode, "credit")) {
		r = find_cycle(f, cyc, &clen);
		if (r) {
			snprintf(ctx->why, sizeof(ctx->why), "no cycle of switches to loop credits around");
			goto out;
		}
		for (uint32_t i = 0; i < clen; i++)
			on_cycle[cyc[i]] = i;
		fprintf(stderr, "loopy: credit loop around %u switches\n", clen);
	}
	for (uint32_t d = 0; d < ns; d++) {
		toward(f, d, next, queue, seen);
		for (uint32_t p = 0; p < f->num_ports; p++) {
			uint32_t lid = f->ports[p].lid;

			if (!lid || home_switch(f, p) != d)
				continue;
			if (!f->ports[p].num && !fab_is_switch(f, f->ports[p].node))
				continue;
			int is_ca = !fab_is_switch(f, f->ports[p].node);
			for (uint32_t j = 0; j < (1u << f->ports[p].lmc); j++) {
				if (lid + j > t->max_lid)
					break;
				for (uint32_t s = 0; s < ns; s++) {
					if (s == d || !next[s])
						continue;
					if (is_ca && !strcmp(mode, "missing"))
						continue;
					lft_row(t, s)[lid + j] = next[s];
				}
				if (on_cycle[d] != UINT32_MAX) {
					/* Clockwise to d from every cycle switch. */
					for (uint32_t i = 0; i < clen; i++) {
						uint32_t s = cyc[i], nx = cyc[(i + 1) % clen];
						if (s != d)
							lft_row(t, s)[lid + j] = port_to(f, s, nx);
					}
				}
			}
		}
	}
	if (!strcmp(mode, "loop")) {
		/* The first switch-to-switch link a-b: a and b send every LID
		 * not on them to each other. */
		for (uint32_t a = 0; a < ns; a++) {
			const struct fab_node *n = &f->nodes[f->switches[a]];
			uint32_t b = FAB_NONE;
			uint8_t pa = 0;
			for (unsigned k = 1; k <= n->num_ports && b == FAB_NONE; k++) {
				uint32_t m = fab_peer_node(f, n->first_port + k);
				if (m != FAB_NONE && fab_is_switch(f, m) &&
				    f->nodes[m].sw_index != a)
					b = f->nodes[m].sw_index, pa = (uint8_t)k;
			}
			if (b == FAB_NONE)
				continue;
			uint8_t pb = port_to(f, b, a);
			for (uint32_t p = 0; p < f->num_ports; p++) {
				uint32_t lid = f->ports[p].lid, h = home_switch(f, p);
				if (!lid || h == a || h == b || h == FAB_NONE)
					continue;
				lft_row(t, a)[lid] = pa;
				lft_row(t, b)[lid] = pb;
			}
			break;
		}
	}
out:
	free(next);
	free(seen);
	free(queue);
	free(on_cycle);
	return r;
}

static const struct route_engine loopy_engine = {
	.name = "loopy",
	.summary = "TEST ONLY: tables with a credit loop / forwarding loop / holes",
	/* It claims what ftree and updn claim: the daemon must not believe it. */
	.flags = ROUTE_ENGINE_DEADLOCK_FREE,
	.route = loopy_route,
};

const struct route_engine *ibsm_engine_entry(uint32_t abi_version);

const struct route_engine *ibsm_engine_entry(uint32_t abi_version)
{
	return abi_version == ROUTE_ENGINE_ABI ? &loopy_engine : NULL;
}
