/* 2D/3D tori and meshes of switches (the direct networks of Dally & Towles,
 * "Principles and Practices of Interconnection Networks", ch. 5), each
 * switch with hcas_per_switch CAs.
 *
 * Switch (x, y[, z]) has ordinal x + X * (y + Y * z) and the name
 * "torus-x-y[-z]" ("mesh-..." for meshes). CAs come first: CA c sits on
 * switch c / p at port c % p + 1 (p = hcas_per_switch).
 *
 * Ports (all switches have p + 2 * dims ports; down ports first):
 *   1..p                CAs
 *   p + 1 + 2*i         "+" link in dimension i, to the switch one step up
 *                       (wrapping in a torus), arriving at its "-" port
 *   p + 2 + 2*i         "-" link in dimension i
 * A mesh leaves the border switches' outward ports unlinked. A torus
 * dimension of size 2 has two parallel links between its two switches. */
#include <errno.h>
#include <stdio.h>

#include "topo_gen.h"
#include "topo_gen_util.h"

static int torus_check(const struct torus_params *p, char *err,
		       uint64_t *num_sw)
{
	if (p->dims != 2 && p->dims != 3)
		return gen_fail(err, "dims must be 2 or 3, not %u", p->dims);
	*num_sw = 1;
	for (unsigned i = 0; i < p->dims; i++) {
		if (p->size[i] < 2 || p->size[i] > 1024)
			return gen_fail(err, "size of dimension %u must be in 2..1024, "
					"not %u", i, p->size[i]);
		*num_sw *= p->size[i];
	}
	if (p->hcas_per_switch < 1 ||
	    p->hcas_per_switch + 2 * p->dims > FAB_MAX_PORTS)
		return gen_fail(err, "hcas per switch must be in 1..%u, not %u",
				FAB_MAX_PORTS - 2 * p->dims, p->hcas_per_switch);
	if (*num_sw * (p->hcas_per_switch + 1) > GEN_MAX_NODES)
		return gen_fail(err, "%llu switches with %u CAs each is over the "
				"%u node limit", (unsigned long long)*num_sw,
				p->hcas_per_switch, GEN_MAX_NODES);
	return 0;
}

static int torus_build(struct fabric *f, const struct torus_params *p,
		       uint32_t num_sw)
{
	unsigned hp = p->hcas_per_switch, ports = hp + 2 * p->dims;
	unsigned sz[3] = { p->size[0], p->size[1], p->dims == 3 ? p->size[2] : 1 };
	const char *kind = p->wrap ? "torus" : "mesh";
	char desc[48];

	if (gen_add_cas(f, num_sw * hp))
		return -ENOMEM;
	uint32_t sw0 = f->num_nodes;
	for (uint32_t s = 0; s < num_sw; s++) {
		unsigned x = s % sz[0], y = s / sz[0] % sz[1], z = s / sz[0] / sz[1];
		if (p->dims == 3)
			snprintf(desc, sizeof(desc), "%s-%u-%u-%u", kind, x, y, z);
		else
			snprintf(desc, sizeof(desc), "%s-%u-%u", kind, x, y);
		if (gen_add_switch(f, s, ports, desc) == FAB_NONE)
			return -ENOMEM;
	}
	for (uint32_t c = 0; c < num_sw * hp; c++)
		if (gen_link(f, c, 1, sw0 + c / hp, c % hp + 1))
			return -EINVAL;

	uint32_t stride[3] = { 1, sz[0], sz[0] * sz[1] };
	for (uint32_t s = 0; s < num_sw; s++) {
		for (unsigned i = 0; i < p->dims; i++) {
			unsigned coord = s / stride[i] % sz[i];
			uint32_t t;
			if (coord + 1 < sz[i])
				t = s + stride[i];
			else if (p->wrap)
				t = s - coord * stride[i];
			else
				continue;
			if (gen_link(f, sw0 + s, hp + 1 + 2 * i, sw0 + t, hp + 2 + 2 * i))
				return -EINVAL;
		}
	}
	return 0;
}

int gen_torus(struct fabric *f, const struct torus_params *p, char *err)
{
	uint64_t num_sw = 0;
	fab_init(f);
	if (err)
		err[0] = '\0';
	int r = torus_check(p, err, &num_sw);
	if (r)
		return r;
	r = torus_build(f, p, (uint32_t)num_sw);
	return gen_finish(f, r, NULL, 0, 0, 0, err);
}
