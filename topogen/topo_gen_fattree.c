/* Fat-trees of fixed-radix switches (Leiserson 1985; the three-level pod
 * layout of Al-Fares, Loukissas, Vahdat, SIGCOMM 2008), full bisection or
 * oversubscribed X:1 at the leaves.
 *
 * With radix k, oversubscription X: every leaf has u = floor(k / (X + 1))
 * up-links and d = X * u host ports (full bisection: u = d = k/2).
 *
 * 2 levels: k leaves, u spines. Every spine links once to every leaf.
 * 3 levels: k pods; a pod has k/2 leaves and u spines, every spine of a pod
 *   links once to every leaf of it; spines have k/2 down and k/2 up ports;
 *   there are u * k/2 cores, each with one link to every pod.
 *   k=20: 2,000 CAs / 500 switches; k=36: 11,664 / 1,620; k=64: 65,536 / 5,120.
 *
 * Node order: CAs first ("node-0" ...), then leaves, spines, cores; switch
 * ordinals (and GUIDs) follow that order. Global names: leaf l of pod p is
 * "leaf-<p*k/2 + l>", spine j of pod p "spine-<p*u + j>", "core-<c>".
 *
 * Cabling (every switch has k ports; down ports first, then up ports):
 *   leaf:  ports 1..d to its CAs in order; port d+1+j to spine j of its pod
 *          (2 levels: spine j), arriving at that spine's port l+1 where l is
 *          the leaf's index in its pod (2 levels: the leaf number).
 *   spine: ports 1..k/2 down (leaf l of the pod at port l+1; 2 levels: all k
 *          ports down); port k/2+1+i up to core j*(k/2)+i, arriving at that
 *          core's port p+1 (p = pod number).
 *   core:  port p+1 to pod p.
 * With a CA cap (hcas), CAs are spread evenly: leaf l gets hcas/L CAs, one
 * more if l < hcas % L, on its lowest ports; numbering stays leaf-major. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_gen.h"
#include "topo_gen_util.h"

struct ft_shape {
	unsigned k, u, d;       /* radix, leaf up-links, leaf host ports */
	unsigned pods;          /* 3 levels: k; 2 levels: 1 */
	unsigned leaves_per_pod, spines_per_pod, cores;
	uint32_t leaves, spines, hcas;
	int shuffle;            /* shuffle_hosts */
	uint64_t seed;
};

static int ft_shape(struct ft_shape *s, const struct fattree_params *p,
		    char *err)
{
	if (p->levels != 2 && p->levels != 3)
		return gen_fail(err, "levels must be 2 or 3, not %u", p->levels);
	s->shuffle = p->shuffle_hosts;
	s->seed = p->seed;
	if (p->radix < 4 || p->radix > FAB_MAX_PORTS || p->radix % 2)
		return gen_fail(err, "radix must be even and in 4..%u, not %u",
				FAB_MAX_PORTS, p->radix);
	unsigned x = p->oversub ? p->oversub : 1;
	if (x > p->radix - 1)
		return gen_fail(err, "oversub %u:1 leaves no up-link on a radix %u "
				"leaf (at most %u)", x, p->radix, p->radix - 1);
	if (!(p->remove_frac >= 0.0 && p->remove_frac < 1.0))
		return gen_fail(err, "remove fraction must be in [0, 1), not %g",
				p->remove_frac);
	s->k = p->radix;
	s->u = p->radix / (x + 1);
	s->d = x * s->u;
	if (p->levels == 2) {
		s->pods = 1;
		s->leaves_per_pod = s->k;
		s->spines_per_pod = s->u;
		s->cores = 0;
	} else {
		s->pods = s->k;
		s->leaves_per_pod = s->k / 2;
		s->spines_per_pod = s->u;
		s->cores = s->u * (s->k / 2);
	}
	s->leaves = s->pods * s->leaves_per_pod;
	s->spines = s->pods * s->spines_per_pod;
	uint32_t full = s->leaves * s->d;
	if (p->hcas > full)
		return gen_fail(err, "hcas %u exceeds the %u CA ports of this tree",
				p->hcas, full);
	s->hcas = p->hcas ? p->hcas : full;
	return 0;
}

static int ft_build(struct fabric *f, const struct ft_shape *s,
		    uint32_t *links, uint32_t *num_links)
{
	uint32_t sw = 0;
	if (gen_add_cas(f, s->hcas))
		return -ENOMEM;
	uint32_t leaf0 = f->num_nodes;
	if (gen_add_switch_row(f, &sw, s->leaves, s->k, "leaf-", ""))
		return -ENOMEM;
	uint32_t spine0 = f->num_nodes;
	if (gen_add_switch_row(f, &sw, s->spines, s->k, "spine-", ""))
		return -ENOMEM;
	uint32_t core0 = f->num_nodes;
	if (gen_add_switch_row(f, &sw, s->cores, s->k, "core-", ""))
		return -ENOMEM;

	/* CAs, leaf-major, spread evenly; with shuffle_hosts each leaf's CAs
	 * take its host ports in a seeded random order (node-97 on port 3,
	 * node-96 on port 2, ...), as real cabling often is. */
	if (gen_link_hosts(f, leaf0, s->leaves, s->hcas, s->shuffle, s->seed,
			   gen_xorshift_below))
		return -EINVAL;

	*num_links = 0;
	for (uint32_t p = 0; p < s->pods; p++)
		for (uint32_t l = 0; l < s->leaves_per_pod; l++) {
			uint32_t leaf = leaf0 + p * s->leaves_per_pod + l;
			for (uint32_t j = 0; j < s->u; j++) {
				uint32_t spine = spine0 + p * s->spines_per_pod + j;
				if (gen_link(f, leaf, s->d + 1 + j, spine, l + 1))
					return -EINVAL;
				links[(*num_links)++] = fab_port_idx(f, leaf, s->d + 1 + j);
			}
		}
	unsigned half = s->k / 2;
	for (uint32_t p = 0; s->cores && p < s->pods; p++)
		for (uint32_t j = 0; j < s->spines_per_pod; j++) {
			uint32_t spine = spine0 + p * s->spines_per_pod + j;
			for (uint32_t i = 0; i < half; i++) {
				uint32_t core = core0 + j * half + i;
				if (gen_link(f, spine, half + 1 + i, core, p + 1))
					return -EINVAL;
				links[(*num_links)++] = fab_port_idx(f, spine, half + 1 + i);
			}
		}
	return 0;
}

int gen_fattree(struct fabric *f, const struct fattree_params *p, char *err)
{
	struct ft_shape s = { 0 };
	fab_init(f);
	if (err)
		err[0] = '\0';
	int r = ft_shape(&s, p, err);
	if (r)
		return r;
	uint32_t max_links = s.leaves * s.u + s.spines * (s.cores ? s.k / 2 : 0);
	uint32_t *links = malloc((max_links ? max_links : 1) * sizeof(*links));
	uint32_t num_links = 0;
	if (!links)
		return gen_fail(err, "out of memory");
	r = ft_build(f, &s, links, &num_links);
	return gen_finish(f, r, links, num_links, p->remove_frac, p->seed, err);
}
