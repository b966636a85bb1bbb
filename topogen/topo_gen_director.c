/* Fat-trees whose spines are director switches: chassis built inside as a
 * 2-level tree of fixed-radix ASICs, with edge ("leaf") switches below.
 *
 * A director of ASIC radix R (e.g. 36) holds N line ASICs (N <= R), each
 * with R/2 external ports (front panel) and R/2 internal ports, one to each
 * of the R/2 fabric ASICs of the chassis; a fabric ASIC has one port per
 * line-ASIC slot (R), so a chassis with N < R line ASICs leaves R - N of
 * its fabric ports dark, as a half-populated chassis does. R = 36, N = 36
 * is the 648-port class (Mellanox CS7500: 18 line cards and 9 fabric cards
 * of two ASICs each), N = 18 the 324-port one (CS7510), N = 12 the
 * 216-port one (CS7520).
 *
 * Leaves are R-port switches: ports 1..R/2 to hosts, ports R/2+1..R up,
 * u = R/2 up-links spread evenly over the D directors (u/D each, D must
 * divide u). Leaf l's j-th link into director d goes to that director's
 * external port number g = l*(u/D) + j counted round-robin over the line
 * ASICs: line ASIC g mod N, external port g / N + 1. So consecutive leaves
 * take consecutive line ASICs, and one leaf's links into a chassis land on
 * distinct line ASICs while u/D <= N. Leaf ports are director-major: leaf
 * port R/2+1 + d*(u/D) + j. At most D*N leaves fit (every external port
 * used); fewer leave the last external ports dark.
 *
 * Inside a director: line ASIC i port R/2+1+k to fabric ASIC k, arriving at
 * its port i+1.
 *
 * Node order: CAs ("node-<k>", leaf-major, R/2 per leaf), leaves, then per
 * director its line ASICs and its fabric ASICs; switch ordinals (GUIDs)
 * follow that order. Descriptions as real chassis report them:
 * "MF0;leaf-<l>:MSB7800/U1", "MF0;director-<d>:<model>/L<card>/U<asic>"
 * and ".../S<card>/U<asic>" (cards count from 01, two ASICs per card when
 * the count is even, as on the CS7500). All ASICs of a chassis share one
 * SystemImageGUID, as they do on real directors; each leaf is its own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_gen.h"
#include "topo_gen_util.h"

/* SystemImageGUIDs of the chassis: outside the switch node GUID range. */
#define DIR_SYS_GUID_BASE (GEN_SW_GUID_BASE + 0x00f0000000ull)

struct dir_shape {
	unsigned d, r, n, half, per_dir;        /* per_dir = u / D */
	uint32_t leaves, hcas;
	const char *model;
	int shuffle;
	uint64_t seed;
};

static const char *dir_model(unsigned r, unsigned n)
{
	if (r == 36 && n == 36)
		return "CS7500";
	if (r == 36 && n == 18)
		return "CS7510";
	if (r == 36 && n == 12)
		return "CS7520";
	return NULL;
}

static int dir_shape(struct dir_shape *s, const struct director_params *p,
		     char *err)
{
	if (p->radix < 4 || p->radix > FAB_MAX_PORTS || p->radix % 2)
		return gen_fail(err, "radix must be even and in 4..%u, not %u",
				FAB_MAX_PORTS, p->radix);
	s->r = p->radix;
	s->half = p->radix / 2;
	if (p->directors < 1 || s->half % p->directors)
		return gen_fail(err, "directors must divide the %u leaf up-links "
				"(radix %u / 2), not %u", s->half, s->r, p->directors);
	s->d = p->directors;
	s->per_dir = s->half / s->d;
	s->n = p->line_asics ? p->line_asics : s->r;
	if (s->n < 2 || s->n > s->r)
		return gen_fail(err, "line ASICs per director must be in 2..%u "
				"(the fabric ASICs' radix), not %u", s->r, s->n);
	uint32_t max_leaves = s->d * s->n;
	if (p->leaves > max_leaves)
		return gen_fail(err, "%u leaves do not fit: %u directors of %u "
				"line ASICs hold %u leaves of %u up-links", p->leaves,
				s->d, s->n, max_leaves, s->half);
	s->leaves = p->leaves ? p->leaves : max_leaves;
	s->hcas = s->leaves * s->half;
	if ((uint64_t)s->hcas + s->leaves + (uint64_t)s->d * (s->n + s->half) >
	    GEN_MAX_NODES)
		return gen_fail(err, "more than %u nodes", GEN_MAX_NODES);
	s->model = dir_model(s->r, s->n);
	s->shuffle = p->shuffle_hosts;
	s->seed = p->seed;
	return 0;
}

/* "L05/U2": card and ASIC of the i-th of `count` ASICs of one kind. */
static void card_name(char *out, size_t len, char kind, unsigned i,
		      unsigned count)
{
	unsigned per = count % 2 == 0 ? 2 : 1;
	snprintf(out, len, "%c%02u/U%u", kind, i / per + 1, i % per + 1);
}

static uint32_t add_dir_asic(struct fabric *f, const struct dir_shape *s,
			     uint32_t ordinal, unsigned dir, char kind,
			     unsigned i, unsigned count)
{
	char desc[64], card[16], model[16];
	card_name(card, sizeof(card), kind, i, count);
	if (s->model)
		snprintf(model, sizeof(model), "%s", s->model);
	else
		snprintf(model, sizeof(model), "DIR%u", s->n * s->half);
	snprintf(desc, sizeof(desc), "MF0;director-%u:%s/%s", dir + 1, model, card);
	uint32_t n = gen_add_switch(f, ordinal, s->r, desc);
	if (n != FAB_NONE)
		f->nodes[n].sys_guid = DIR_SYS_GUID_BASE + dir;
	return n;
}

static int dir_build(struct fabric *f, const struct dir_shape *s,
		     uint32_t *links, uint32_t *num_links)
{
	uint32_t sw = 0;
	if (gen_add_cas(f, s->hcas))
		return -ENOMEM;
	uint32_t leaf0 = f->num_nodes;
	if (gen_add_switch_row(f, &sw, s->leaves, s->r, "MF0;leaf-", ":MSB7800/U1"))
		return -ENOMEM;
	uint32_t dir0 = f->num_nodes, per_chassis = s->n + s->half;
	for (unsigned d = 0; d < s->d; d++) {
		for (unsigned i = 0; i < s->n; i++)
			if (add_dir_asic(f, s, sw++, d, 'L', i, s->n) == FAB_NONE)
				return -ENOMEM;
		for (unsigned k = 0; k < s->half; k++)
			if (add_dir_asic(f, s, sw++, d, 'S', k, s->half) == FAB_NONE)
				return -ENOMEM;
	}
	/* Hosts leaf-major; with shuffle_hosts each leaf's hosts take its host
	 * ports in a seeded random order (as fattree --shuffle-hosts). */
	if (gen_link_hosts(f, leaf0, s->leaves, s->hcas, s->shuffle, s->seed,
			   gen_rand_below))
		return -EINVAL;
	*num_links = 0;
	for (uint32_t l = 0; l < s->leaves; l++)
		for (unsigned d = 0; d < s->d; d++)
			for (unsigned j = 0; j < s->per_dir; j++) {
				uint32_t g = l * s->per_dir + j;
				uint32_t line = dir0 + d * per_chassis + g % s->n;
				unsigned lp = s->half + 1 + d * s->per_dir + j;
				if (gen_link(f, leaf0 + l, lp, line, g / s->n + 1))
					return -EINVAL;
				links[(*num_links)++] = fab_port_idx(f, leaf0 + l, lp);
			}
	for (unsigned d = 0; d < s->d; d++)
		for (unsigned i = 0; i < s->n; i++)
			for (unsigned k = 0; k < s->half; k++) {
				uint32_t line = dir0 + d * per_chassis + i;
				uint32_t fab = dir0 + d * per_chassis + s->n + k;
				if (gen_link(f, line, s->half + 1 + k, fab, i + 1))
					return -EINVAL;
				links[(*num_links)++] = fab_port_idx(f, line, s->half + 1 + k);
			}
	return 0;
}

int gen_director(struct fabric *f, const struct director_params *p, char *err)
{
	struct dir_shape s = { 0 };
	fab_init(f);
	if (err)
		err[0] = '\0';
	int r = dir_shape(&s, p, err);
	if (r)
		return r;
	if (!(p->remove_frac >= 0.0 && p->remove_frac < 1.0))
		return gen_fail(err, "remove fraction must be in [0, 1), not %g",
				p->remove_frac);
	uint32_t max_links = s.leaves * s.half + s.d * s.n * s.half;
	uint32_t *links = malloc(max_links * sizeof(*links));
	uint32_t num_links = 0;
	if (!links)
		return gen_fail(err, "out of memory");
	r = dir_build(f, &s, links, &num_links);
	return gen_finish(f, r, links, num_links, p->remove_frac, p->seed, err);
}
