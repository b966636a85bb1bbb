/* Make a generated fabric look like a cabled one: GUIDs that are not in
 * cabling order, and switch-to-switch cables on arbitrary port numbers.
 * Both run after any generator (topogen/topo_gen_*.c), so every shape gets them
 * the same way. Why: engines sort by GUID and walk ports in number order; a
 * generator that hands out both in cabling order hides every bug that only
 * shows when they disagree (issue 24: ftree credit loops on degraded trees
 * appeared only with random GUIDs). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo_gen.h"
#include "topo_gen_util.h"

/* OUIs of one vendor's HCAs and switches over the years (IEEE registry,
 * Mellanox/NVIDIA): a real fabric mixes several. */
static const uint64_t gen_ouis[] = {
	0x0002c9, 0xe41d2d, 0x248a07, 0x506b4b, 0x98039b, 0x0c42a1, 0xb8cef6,
	0x043f72, 0x1070fd, 0xb83fd2,
};

/* Open-addressing set of 64-bit values (0 = empty slot). */
struct guid_set {
	uint64_t *slot;
	uint32_t mask;
};

static int set_init(struct guid_set *s, uint64_t want)
{
	uint32_t cap = 16;
	while (cap < 2 * want + 2)
		cap <<= 1;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->mask = cap - 1;
	return s->slot ? 0 : -ENOMEM;
}

/* 1 if g was added, 0 if it was there already. */
static int set_add(struct guid_set *s, uint64_t g)
{
	uint64_t h = g * 0x9e3779b97f4a7c15ull;
	for (uint32_t i = (uint32_t)(h >> 32) & s->mask;; i = (i + 1) & s->mask) {
		if (s->slot[i] == g)
			return 0;
		if (s->slot[i] == 0) {
			s->slot[i] = g;
			return 1;
		}
	}
}

/* A fresh GUID: vendor OUI in the top 24 bits (EUI-64, IBA 4.1.1), random
 * low 40 bits with the low two clear, so that a CA's port GUIDs (node + p,
 * ibsim's rule) are distinct values too; all of them are claimed in
 * `used`, so no node, port or system GUID repeats. */
static uint64_t fresh_guid(struct guid_set *used, uint64_t *rng,
			   unsigned ca_ports)
{
	for (;;) {
		uint64_t oui = gen_ouis[gen_rand_below(rng, sizeof(gen_ouis) /
							sizeof(gen_ouis[0]))];
		uint64_t g = oui << 40 | (gen_rand(rng) & 0xfffffffffcull);
		int clash = 0;
		for (unsigned p = 0; p <= ca_ports; p++)
			clash |= !set_add(used, g + p);
		if (!clash)         /* on a clash, what was claimed stays unused */
			return g;
	}
}

int gen_random_guids(struct fabric *f, uint64_t seed)
{
	struct guid_set used;
	/* old SystemImageGUIDs shared by several nodes (director chassis) map
	 * to one new value: remembered as pairs, looked up linearly (few). */
	uint64_t (*shared)[2] = calloc(f->num_nodes ? f->num_nodes : 1,
				       sizeof(*shared));
	uint32_t num_shared = 0;
	if (!shared || set_init(&used, 2ull * f->num_ports + f->num_nodes)) {
		free(shared);
		return -ENOMEM;
	}
	uint64_t rng = seed ^ 0x6a09e667f3bcc909ull;  /* not the removal stream */
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct fab_node *node = &f->nodes[n];
		int ca = node->type != FAB_SWITCH;
		uint64_t old = node->guid;
		uint64_t g = fresh_guid(&used, &rng, ca ? node->num_ports : 0);
		node->guid = g;
		if (ca)
			for (unsigned i = 1; i <= node->num_ports; i++)
				fab_port(f, n, i)->guid = g + i;
		else
			for (unsigned i = 0; i <= node->num_ports; i++)
				fab_port(f, n, i)->guid = g;
		if (node->sys_guid == old || node->sys_guid == 0) {
			node->sys_guid = node->sys_guid ? g : 0;
			continue;
		}
		uint32_t k = 0;
		while (k < num_shared && shared[k][0] != node->sys_guid)
			k++;
		if (k == num_shared) {
			shared[k][0] = node->sys_guid;
			shared[k][1] = fresh_guid(&used, &rng, 0);
			num_shared++;
		}
		node->sys_guid = shared[k][1];
	}
	free(shared);
	free(used.slot);
	fab_guids_changed(f);
	return 0;
}

int gen_shuffle_ports(struct fabric *f, uint64_t seed)
{
	uint64_t rng = seed ^ 0xbb67ae8584caa73bull;
	uint8_t num[FAB_MAX_PORTS + 1];
	uint32_t peer[FAB_MAX_PORTS + 1];
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];
		unsigned cnt = 0;
		/* ports not cabled to a CA: switch links and dark ports; CA
		 * cabling is --shuffle-hosts' business and stays put */
		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t p = fab_port_idx(f, n, i);
			uint32_t m = fab_peer_node(f, p);
			if (m != FAB_NONE && !fab_is_switch(f, m))
				continue;
			num[cnt] = (uint8_t)i;
			peer[cnt++] = f->ports[p].peer;
		}
		/* Fisher-Yates over the peers, then recable in that order */
		for (unsigned i = cnt; i > 1; i--) {
			unsigned j = (unsigned)gen_rand_below(&rng, i);
			uint32_t t = peer[i - 1];
			peer[i - 1] = peer[j];
			peer[j] = t;
		}
		for (unsigned i = 0; i < cnt; i++)
			fab_unlink(f, fab_port_idx(f, n, num[i]));
		for (unsigned i = 0; i < cnt; i++) {
			if (peer[i] == FAB_NONE)
				continue;
			int r = fab_link(f, fab_port_idx(f, n, num[i]), peer[i]);
			if (r)
				return r;
		}
	}
	return 0;
}
