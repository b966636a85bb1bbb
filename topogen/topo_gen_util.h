/* Shared pieces of the topology generators (topogen/topo_gen_*.c): GUID and
 * description conventions, node creation, linking, a seeded PRNG and
 * connectivity checks. Private to topogen/.
 *
 * GUIDs (documented in docs/topologies.md): the k-th CA created (k from 0)
 * has node GUID GEN_CA_GUID_BASE + 2k and port 1 GUID node + 1 (ibsim's rule
 * for CA ports, IBA 4.1.1 leaves the choice to the vendor); the k-th switch
 * has GEN_SW_GUID_BASE + k, shared by all its ports. Bases carry the
 * Mellanox OUI 0x0002c9 so tools print familiar values; never zero. */
#ifndef IBSM_TOPOGEN_TOPO_GEN_UTIL_H
#define IBSM_TOPOGEN_TOPO_GEN_UTIL_H

#include <stdarg.h>
#include <stdint.h>

#include "../core/fabric.h"

#define GEN_CA_GUID_BASE 0x0002c90300000000ull
#define GEN_SW_GUID_BASE 0x0002c90200000000ull
#define GEN_VENDOR_ID 0x02c9
#define GEN_CA_DEVICE_ID 0x101b     /* a ConnectX-6 */
#define GEN_SW_DEVICE_ID 0xd2f0     /* a Quantum switch */
#define GEN_MAX_NODES 2000000u      /* sanity bound on generated fabrics */

/* Format a parameter error into err (256 bytes) and return -EINVAL. */
int gen_fail(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Add CA number `k` ("node-k", one port) / a switch with the given ordinal,
 * port count and description. Return the node index or FAB_NONE (ENOMEM). */
uint32_t gen_add_ca(struct fabric *f, uint32_t k);
uint32_t gen_add_switch(struct fabric *f, uint32_t ordinal, unsigned ports,
			const char *desc);

/* Add CAs 0 .. count-1 (gen_add_ca). 0 or -ENOMEM. */
int gen_add_cas(struct fabric *f, uint32_t count);
/* Add `count` switches of `ports` ports named "<prefix><i><suffix>", i
 * from 0, with ordinals from *ordinal on (advanced past them). 0 or
 * -ENOMEM. */
int gen_add_switch_row(struct fabric *f, uint32_t *ordinal, uint32_t count,
		       unsigned ports, const char *prefix, const char *suffix);

/* Link port pa of node a to port pb of node b. 0 or negative errno. */
int gen_link(struct fabric *f, uint32_t a, unsigned pa, uint32_t b,
	     unsigned pb);

/* splitmix64 (Steele, Lea, Flood 2014): tiny, seedable, good enough for
 * picking links. State is the caller's. */
uint64_t gen_rand(uint64_t *state);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t gen_rand_below(uint64_t *state, uint64_t n);

/* xorshift64 (Marsaglia 2003) reduced by plain modulo: the fat-tree
 * generator's first picker, kept so that the fabrics its seeds made stay
 * the same. New code uses gen_rand_below. */
uint64_t gen_xorshift_below(uint64_t *state, uint64_t n);

/* Cable CAs 0 .. hcas-1 (created first) to the `leaves` leaves from node
 * leaf0 on, leaf-major: leaf l gets hcas / leaves CAs, one more if l <
 * hcas % leaves, on its ports 1, 2, ... in CA order or, with shuffle, in
 * an order pick draws (Fisher-Yates) from a state seeded by seed, as
 * real cabling often is. 0 or -EINVAL. */
int gen_link_hosts(struct fabric *f, uint32_t leaf0, uint32_t leaves,
		   uint32_t hcas, int shuffle, uint64_t seed,
		   uint64_t (*pick)(uint64_t *state, uint64_t n));

/* 1 if every node is reachable from node 0, 0 if not, -ENOMEM. */
int gen_connected(const struct fabric *f);

/* Scratch for repeated reachability queries between switches. */
struct gen_bfs {
	uint32_t *queue;
	uint32_t *mark;         /* per node: epoch of the last visit */
	uint32_t epoch;
};
int gen_bfs_init(struct gen_bfs *b, const struct fabric *f);
void gen_bfs_free(struct gen_bfs *b);
/* 1 if node `to` is reachable from node `from` through switch-to-switch
 * links only (stops as soon as it is found), else 0. */
int gen_sw_reachable(struct gen_bfs *b, const struct fabric *f, uint32_t from,
		     uint32_t to);

/* Remove round(frac * count) of the given switch-switch links (port indices
 * of one end each) chosen at random with `seed`, skipping any link whose
 * removal would disconnect the switch graph. Returns the number removed, or
 * -EINVAL (with err) if too few could be removed, or -ENOMEM. */
int gen_remove_links(struct fabric *f, uint32_t *links, uint32_t count,
		     double frac, uint64_t seed, char *err);

/* The end of a generator whose build returned r: with r == 0, remove
 * remove_frac of the switch-switch links (gen_remove_links, seeded by
 * seed); frees links (may be NULL). On failure, err says why (unless it
 * already does) and f is freed. Returns r or the removal's error. */
int gen_finish(struct fabric *f, int r, uint32_t *links, uint32_t num_links,
	       double remove_frac, uint64_t seed, char *err);

#endif
