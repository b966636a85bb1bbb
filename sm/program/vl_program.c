/* SL2VL and VLArbitration tables for layered routes (sm/program/vl_program.h). */
#include "vl_program.h"

#include <errno.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/grow.h"
#include "../../core/log.h"
#include "../../mad/smp.h"

#define VLARB_WEIGHT 64         /* equal for every used VL */

static const unsigned cap_vls[] = { 0, 1, 2, 4, 8, 15 };

static unsigned port_vls(const struct subnet *r, uint32_t p)
{
	struct smp_portinfo pi;

	if (r->port_info_ok[p] != 1)
		return 0;
	smp_get_portinfo(r->port_info[p], &pi);
	return pi.vl_cap < 6 ? cap_vls[pi.vl_cap] : 0;
}

unsigned vlprog_fabric_vls(const struct subnet *r)
{
	const struct fabric *f = &r->fab;
	unsigned best = 15;

	for (uint32_t p = 0; p < f->num_ports; p++) {
		unsigned v;

		if (!f->ports[p].num || f->ports[p].peer == FAB_NONE)
			continue;
		v = port_vls(r, p);
		if (v && v < best)
			best = v;
	}
	return best;
}

struct job {
	const struct smp_path *path;
	uint64_t guid;              /* node, for the SA's SL2VL cache ... */
	uint16_t key;               /* ... and its in << 8 | out (CA: port; VLArb: port) */
	uint32_t mod;
	uint16_t attr;
	uint8_t cur[64], want[64];
	uint8_t have;               /* cur read */
};

struct vp_ctx {
	struct job *j;
	const uint8_t *map;         /* qoslayer28: SL -> VL, or NULL: SL n -> VL n */
	struct vlprog_stats *st;
	struct sa_sl2vl_cache *known, *known_vlarb;
};

/* The SA's copy: switches key tables by (in, out), CA ports by the port
 * (read through the port's own path with modifier 0); VLArb block 1 (the
 * one written) by the port. */
static void keep(struct vp_ctx *c, const struct job *j, const uint8_t *tbl,
		 enum sl2vl_state st)
{
	if (j->attr == IB_ATTR_VL_ARBITRATION) {
		if (c->known_vlarb)
			sa_vlarb_store(c->known_vlarb, j->guid, j->key, 1, tbl, st);
		return;
	}
	if (!c->known || j->attr != IB_ATTR_SLVL_TABLE)
		return;
	sa_sl2vl_store(c->known, j->guid, j->key >> 8, j->key & 0xff, tbl, st);
}

static void on_read(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp)
{
	struct vp_ctx *c = ctx;
	struct job *j = &c->j[cookie];

	(void)req;
	if (!resp || smp_status(resp)) {
		c->st->failed++;
		return;
	}
	memcpy(j->cur, resp + 64, 64);
	j->have = 1;
	c->st->read++;
	keep(c, j, j->cur, SL2VL_READ);
}

static void on_write(void *ctx, uint64_t cookie, const uint8_t *req,
		     const uint8_t *resp)
{
	struct vp_ctx *c = ctx;

	(void)req;
	if (!resp || smp_status(resp)) {
		c->st->failed++;
	} else {
		c->st->written++;
		keep(c, &c->j[cookie], c->j[cookie].want, SL2VL_SET);
	}
}

static void sl2vl_want(uint8_t *d, unsigned vls, const uint8_t *map)
{
	memset(d, 0, 64);
	for (unsigned sl = 0; sl < 16; sl++) {
		unsigned vl = map ? map[sl] & 15 : sl < vls ? sl : 0;

		d[sl / 2] |= (uint8_t)(sl % 2 ? vl : vl << 4);
	}
}

static void vlarb_want(uint8_t *d, unsigned vls, const uint8_t *map)
{
	(void)map;
	memset(d, 0, 64);
	for (unsigned vl = 0; vl < vls && vl < 32; vl++) {
		d[2 * vl] = (uint8_t)vl;        /* reserved:4, VL:4 */
		d[2 * vl + 1] = VLARB_WEIGHT;
	}
}

/* Bytes that matter: 8 of an SL2VL table, the entries of a VLArb block. */
static size_t job_len(const struct job *j)
{
	return j->attr == IB_ATTR_SLVL_TABLE ? 8 : 64;
}

int vlprog_program(struct mad_transport *t, const struct subnet *r,
		   unsigned vls, struct sa_sl2vl_cache *known,
		   struct sa_sl2vl_cache *known_vlarb, struct vlprog_stats *st)
{
	return vlprog_program_map(t, r, vls, NULL, known, known_vlarb, st);
}

int vlprog_program_map(struct mad_transport *t, const struct subnet *r,
		       unsigned vls, const uint8_t *map,
		       struct sa_sl2vl_cache *known,
		       struct sa_sl2vl_cache *known_vlarb, struct vlprog_stats *st)
{
	const struct fabric *f = &r->fab;
	size_t limit = (size_t)mt_window(t) * 8;
	uint32_t cap = 0, n = 0;
	struct vp_ctx c = { .st = st, .known = known, .known_vlarb = known_vlarb,
			    .map = map };
	int rc = 0;

#define ADD(PATH, ATTR, MOD, WANTFN, KEY) do { \
		if (grow_array((void **)&c.j, &cap, n + 1, sizeof(*c.j), 64)) { \
			rc = -ENOMEM; \
			goto out; \
		} \
		c.j[n].path = (PATH); c.j[n].attr = (ATTR); c.j[n].mod = (MOD); \
		c.j[n].guid = node->guid; c.j[n].key = (KEY); \
		c.j[n].have = 0; WANTFN(c.j[n].want, vls, c.map); n++; \
	} while (0)
	for (uint32_t nd = 0; nd < f->num_nodes; nd++) {
		const struct fab_node *node = &f->nodes[nd];

		if (fab_is_switch(f, nd)) {
			for (unsigned out = 1; out <= node->num_ports; out++) {
				uint32_t po = node->first_port + out;

				if (f->ports[po].peer == FAB_NONE)
					continue;
				for (unsigned in = 1; in <= node->num_ports; in++)
					if (in != out &&
					    f->ports[node->first_port + in].peer != FAB_NONE)
						ADD(&r->node_path[nd], IB_ATTR_SLVL_TABLE,
						    in << 8 | out, sl2vl_want, in << 8 | out);
				if (r->port_info_ok[po] != 1)
					continue;
				if (mad_get_field((void *)r->port_info[po], 0,
						  IB_PORT_VL_ARBITRATION_LOW_CAP_F) >= vls)
					ADD(&r->node_path[nd], IB_ATTR_VL_ARBITRATION,
					    1u << 16 | out, vlarb_want, out);
			}
		} else {
			for (unsigned k = 1; k <= node->num_ports; k++) {
				uint32_t p = node->first_port + k;

				if (f->ports[p].peer == FAB_NONE || !f->ports[p].lid)
					continue;
				ADD(&r->port_path[p], IB_ATTR_SLVL_TABLE, 0, sl2vl_want, k);
				if (r->port_info_ok[p] == 1 &&
				    mad_get_field((void *)r->port_info[p], 0,
						  IB_PORT_VL_ARBITRATION_LOW_CAP_F) >= vls)
					ADD(&r->port_path[p], IB_ATTR_VL_ARBITRATION,
					    1u << 16, vlarb_want, k);
			}
		}
	}
#undef ADD
	/* 1: read every table; 2: write those that differ (or unread). */
	for (size_t i = 0; i < n && !rc; i++) {
		rc = mt_throttle(t, limit);
		if (!rc)
			rc = mt_submit_dr(t, c.j[i].path, IB_MAD_METHOD_GET, c.j[i].attr,
					  c.j[i].mod, NULL, on_read, &c, i);
	}
	if (!rc)
		rc = mt_drain(t);
	for (size_t i = 0; i < n && !rc; i++) {
		if (c.j[i].have && !memcmp(c.j[i].cur, c.j[i].want, job_len(&c.j[i]))) {
			st->unchanged++;
			continue;
		}
		rc = mt_throttle(t, limit);
		if (!rc)
			rc = mt_submit_dr(t, c.j[i].path, IB_MAD_METHOD_SET, c.j[i].attr,
					  c.j[i].mod, c.j[i].want, on_write, &c, i);
	}
	if (!rc)
		rc = mt_drain(t);
out:
	free(c.j);
	return rc;
}
