/* Dragonfly (Kim, Dally, Scott, Abts, ISCA 2008): g groups of a switches;
 * the switches of a group are linked all-to-all; every switch has h global
 * links to other groups and p CAs.
 *
 * Global links use the consecutive ("absolute") arrangement: number the
 * a*h global ports of a group gp = s*h + k (switch s, its k-th global port).
 * Port gp of group G leads to group G + o (mod g) with o = gp % (g-1) + 1,
 * and arrives there at the port of the same copy c = gp / (g-1) with offset
 * g - o, i.e. gp' = c*(g-1) + (g-1-o). With g = a*h + 1 (the balanced, maximal
 * size) every pair of groups has exactly one global link; with fewer groups
 * pairs get a*h/(g-1) links, and ports whose partner would lie past a*h stay
 * unlinked. g must be in 2..a*h+1 so every pair of groups is linked.
 *
 * Node order: CAs first (CA c on switch c / p, port c % p + 1), then
 * switches group-major: switch s of group G has ordinal G*a + s and the name
 * "df-g<G>-s<s>".
 * Ports (down ports first):
 *   1..p                    CAs
 *   p+1 .. p+a-1            local links: to switch t of the group at local
 *                           index t (t < s) or t - 1 (t > s)
 *   p+a .. p+a+h-1          global ports k = 0..h-1 */
#include <errno.h>
#include <stdio.h>

#include "topo_gen.h"
#include "topo_gen_util.h"

static int df_check(const struct dragonfly_params *p, char *err)
{
	unsigned a = p->switches_per_group, h = p->global_per_switch;
	if (a < 1 || a > FAB_MAX_PORTS)
		return gen_fail(err, "switches per group must be in 1..%u, not %u",
				FAB_MAX_PORTS, a);
	if (h < 1 || h > FAB_MAX_PORTS)
		return gen_fail(err, "global links per switch must be in 1..%u, "
				"not %u", FAB_MAX_PORTS, h);
	if (p->hcas_per_switch < 1 || p->hcas_per_switch > FAB_MAX_PORTS)
		return gen_fail(err, "hosts per switch must be in 1..%u, not %u",
				FAB_MAX_PORTS, p->hcas_per_switch);
	if ((uint64_t)p->hcas_per_switch + a - 1 + h > FAB_MAX_PORTS)
		return gen_fail(err, "hosts + switches-1 + global = %llu ports per "
				"switch, over %u",
				(unsigned long long)p->hcas_per_switch + a - 1 + h,
				FAB_MAX_PORTS);
	if (p->groups < 2 || p->groups > a * h + 1)
		return gen_fail(err, "groups must be in 2..%u (switches * global + "
				"1), not %u", a * h + 1, p->groups);
	if ((uint64_t)p->groups * a * (p->hcas_per_switch + 1) > GEN_MAX_NODES)
		return gen_fail(err, "dragonfly too large (over %u nodes)",
				GEN_MAX_NODES);
	return 0;
}

static int df_build(struct fabric *f, const struct dragonfly_params *p)
{
	unsigned g = p->groups, a = p->switches_per_group;
	unsigned h = p->global_per_switch, hp = p->hcas_per_switch;
	unsigned ports = hp + a - 1 + h;
	uint32_t num_sw = g * a;
	char desc[48];

	if (gen_add_cas(f, num_sw * hp))
		return -ENOMEM;
	uint32_t sw0 = f->num_nodes;
	for (uint32_t s = 0; s < num_sw; s++) {
		snprintf(desc, sizeof(desc), "df-g%u-s%u", s / a, s % a);
		if (gen_add_switch(f, s, ports, desc) == FAB_NONE)
			return -ENOMEM;
	}
	for (uint32_t c = 0; c < num_sw * hp; c++)
		if (gen_link(f, c, 1, sw0 + c / hp, c % hp + 1))
			return -EINVAL;

	for (uint32_t grp = 0; grp < g; grp++)
		for (unsigned s = 0; s < a; s++)
			for (unsigned t = s + 1; t < a; t++)
				if (gen_link(f, sw0 + grp * a + s, hp + 1 + (t - 1),
					     sw0 + grp * a + t, hp + 1 + s))
					return -EINVAL;

	unsigned gports = a * h;
	for (uint32_t grp = 0; grp < g; grp++)
		for (unsigned gp = 0; gp < gports; gp++) {
			unsigned o = gp % (g - 1) + 1, c = gp / (g - 1);
			unsigned back = c * (g - 1) + (g - 1 - o);
			uint32_t peer = (grp + o) % g;
			if (back >= gports || peer < grp)
				continue;   /* no partner, or linked from the other side */
			if (peer == grp)
				continue;
			if (gen_link(f, sw0 + grp * a + gp / h, hp + a + gp % h,
				     sw0 + peer * a + back / h, hp + a + back % h))
				return -EINVAL;
		}
	return 0;
}

int gen_dragonfly(struct fabric *f, const struct dragonfly_params *p,
		  char *err)
{
	fab_init(f);
	if (err)
		err[0] = '\0';
	int r = df_check(p, err);
	if (r)
		return r;
	r = df_build(f, p);
	return gen_finish(f, r, NULL, 0, 0, 0, err);
}
