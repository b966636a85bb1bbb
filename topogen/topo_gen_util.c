/* Shared pieces of the topology generators: see topo_gen_util.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_gen_util.h"

int gen_fail(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err)
		vsnprintf(err, 256, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

uint32_t gen_add_ca(struct fabric *f, uint32_t k)
{
	char desc[32];
	uint64_t guid = GEN_CA_GUID_BASE + 2ull * k;
	snprintf(desc, sizeof(desc), "node-%u", k);
	uint32_t n = fab_add_node(f, FAB_CA, 1, guid, desc);
	if (n == FAB_NONE)
		return n;
	f->nodes[n].sys_guid = guid;
	f->nodes[n].vendor_id = GEN_VENDOR_ID;
	f->nodes[n].device_id = GEN_CA_DEVICE_ID;
	fab_port(f, n, 1)->guid = guid + 1;
	return n;
}

uint32_t gen_add_switch(struct fabric *f, uint32_t ordinal, unsigned ports,
			const char *desc)
{
	uint64_t guid = GEN_SW_GUID_BASE + ordinal;
	uint32_t n = fab_add_node(f, FAB_SWITCH, (uint8_t)ports, guid, desc);
	if (n == FAB_NONE)
		return n;
	f->nodes[n].sys_guid = guid;
	f->nodes[n].vendor_id = GEN_VENDOR_ID;
	f->nodes[n].device_id = GEN_SW_DEVICE_ID;
	return n;
}

int gen_add_cas(struct fabric *f, uint32_t count)
{
	for (uint32_t c = 0; c < count; c++)
		if (gen_add_ca(f, c) == FAB_NONE)
			return -ENOMEM;
	return 0;
}

int gen_add_switch_row(struct fabric *f, uint32_t *ordinal, uint32_t count,
		       unsigned ports, const char *prefix, const char *suffix)
{
	char desc[64];
	for (uint32_t i = 0; i < count; i++) {
		snprintf(desc, sizeof(desc), "%s%u%s", prefix, i, suffix);
		if (gen_add_switch(f, (*ordinal)++, ports, desc) == FAB_NONE)
			return -ENOMEM;
	}
	return 0;
}

int gen_link(struct fabric *f, uint32_t a, unsigned pa, uint32_t b,
	     unsigned pb)
{
	uint32_t x = fab_port_idx(f, a, pa), y = fab_port_idx(f, b, pb);
	if (x == FAB_NONE || y == FAB_NONE)
		return -EINVAL;
	return fab_link(f, x, y);
}

uint64_t gen_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t gen_rand_below(uint64_t *state, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t r;
	do
		r = gen_rand(state);
	while (r >= limit);
	return r % n;
}

uint64_t gen_xorshift_below(uint64_t *state, uint64_t n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state % n;
}

int gen_link_hosts(struct fabric *f, uint32_t leaf0, uint32_t leaves,
		   uint32_t hcas, int shuffle, uint64_t seed,
		   uint64_t (*pick)(uint64_t *state, uint64_t n))
{
	uint32_t per = hcas / leaves, extra = hcas % leaves, ca = 0;
	uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
	uint32_t port_of[FAB_MAX_PORTS + 1];
	for (uint32_t l = 0; l < leaves; l++) {
		uint32_t here = per + (l < extra);
		if (here > FAB_MAX_PORTS)
			return -EINVAL;
		for (uint32_t j = 0; j < here; j++)
			port_of[j] = j + 1;
		for (uint32_t j = here; shuffle && j > 1; j--) {
			uint32_t r = (uint32_t)pick(&rng, j), tmp;
			tmp = port_of[j - 1];
			port_of[j - 1] = port_of[r];
			port_of[r] = tmp;
		}
		for (uint32_t j = 0; j < here; j++, ca++)
			if (gen_link(f, ca, 1, leaf0 + l, port_of[j]))
				return -EINVAL;
	}
	return 0;
}

int gen_connected(const struct fabric *f)
{
	if (f->num_nodes == 0)
		return 1;
	uint32_t *queue = malloc(f->num_nodes * sizeof(*queue));
	uint8_t *seen = calloc(f->num_nodes, 1);
	if (!queue || !seen) {
		free(queue);
		free(seen);
		return -ENOMEM;
	}
	uint32_t head = 0, tail = 0;
	queue[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		uint32_t n = queue[head++];
		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t m = fab_peer_node(f, f->nodes[n].first_port + i);
			if (m != FAB_NONE && !seen[m]) {
				seen[m] = 1;
				queue[tail++] = m;
			}
		}
	}
	free(queue);
	free(seen);
	return tail == f->num_nodes;
}

int gen_bfs_init(struct gen_bfs *b, const struct fabric *f)
{
	uint32_t n = f->num_nodes ? f->num_nodes : 1;
	b->queue = malloc(n * sizeof(*b->queue));
	b->mark = calloc(n, sizeof(*b->mark));
	b->epoch = 0;
	if (!b->queue || !b->mark) {
		gen_bfs_free(b);
		return -ENOMEM;
	}
	return 0;
}

void gen_bfs_free(struct gen_bfs *b)
{
	free(b->queue);
	free(b->mark);
	b->queue = NULL;
	b->mark = NULL;
}

int gen_sw_reachable(struct gen_bfs *b, const struct fabric *f, uint32_t from,
		     uint32_t to)
{
	if (from == to)
		return 1;
	if (++b->epoch == 0) {  /* wrapped: forget old marks */
		memset(b->mark, 0, f->num_nodes * sizeof(*b->mark));
		b->epoch = 1;
	}
	uint32_t head = 0, tail = 0;
	b->queue[tail++] = from;
	b->mark[from] = b->epoch;
	while (head < tail) {
		uint32_t n = b->queue[head++];
		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t m = fab_peer_node(f, f->nodes[n].first_port + i);
			if (m == FAB_NONE || !fab_is_switch(f, m) ||
			    b->mark[m] == b->epoch)
				continue;
			if (m == to)
				return 1;
			b->mark[m] = b->epoch;
			b->queue[tail++] = m;
		}
	}
	return 0;
}

int gen_remove_links(struct fabric *f, uint32_t *links, uint32_t count,
		     double frac, uint64_t seed, char *err)
{
	uint32_t want = (uint32_t)llround(frac * count);
	if (want == 0)
		return 0;
	struct gen_bfs bfs;
	if (gen_bfs_init(&bfs, f))
		return -ENOMEM;
	uint64_t rng = seed;
	/* Fisher-Yates shuffle, then take links in that order, skipping those
	 * whose removal would cut the switch graph in two. */
	for (uint32_t i = count; i > 1; i--) {
		uint32_t j = (uint32_t)gen_rand_below(&rng, i);
		uint32_t t = links[i - 1];
		links[i - 1] = links[j];
		links[j] = t;
	}
	uint32_t removed = 0;
	for (uint32_t i = 0; i < count && removed < want; i++) {
		uint32_t p = links[i], q = f->ports[p].peer;
		if (q == FAB_NONE)
			continue;
		uint32_t a = f->ports[p].node, b = f->ports[q].node;
		fab_unlink(f, p);
		if (gen_sw_reachable(&bfs, f, a, b)) {
			removed++;
			continue;
		}
		fab_link(f, p, q);  /* a bridge: keep it */
	}
	gen_bfs_free(&bfs);
	if (removed < want)
		return gen_fail(err, "remove: only %u of %u links can be removed "
				"without disconnecting the fabric", removed, want);
	return (int)removed;
}

int gen_finish(struct fabric *f, int r, uint32_t *links, uint32_t num_links,
	       double remove_frac, uint64_t seed, char *err)
{
	if (r == 0 && remove_frac > 0)
		r = gen_remove_links(f, links, num_links, remove_frac, seed, err);
	free(links);
	if (r < 0) {
		if (r == -ENOMEM)
			gen_fail(err, "out of memory");
		else if (r == -EINVAL && err && !err[0])
			gen_fail(err, "internal error: cabling failed");
		fab_free(f);
		return r;
	}
	return 0;
}
