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
/* PortInfo.CapabilityMask bit 6, IsSLMappingSupported (IBA 14.2.5.6): a
 * port without it has no SL2VL table to write. */
#define CAP_HAS_SL_MAP (1u << 6)

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
	uint8_t block;              /* VLArb block (1..4) */
	uint8_t len;                /* bytes that matter: 8 of an SL2VL table,
				     * the entries of a VLArb block */
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
			sa_vlarb_store(c->known_vlarb, j->guid, j->key, j->block, tbl, st);
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

/* 1: read every table not known yet; 2: write those that differ (or
 * unread). */
static int run_jobs(struct mad_transport *t, struct vp_ctx *c, uint32_t n)
{
	size_t limit = (size_t)mt_window(t) * 8;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		if (c->j[i].have)
			continue;
		rc = mt_throttle(t, limit);
		if (!rc)
			rc = mt_submit_dr(t, c->j[i].path, IB_MAD_METHOD_GET, c->j[i].attr,
					  c->j[i].mod, NULL, on_read, c, i);
	}
	if (!rc)
		rc = mt_drain(t);
	for (size_t i = 0; i < n && !rc; i++) {
		if (c->j[i].have && !memcmp(c->j[i].cur, c->j[i].want, c->j[i].len)) {
			c->st->unchanged++;
			continue;
		}
		rc = mt_throttle(t, limit);
		if (!rc)
			rc = mt_submit_dr(t, c->j[i].path, IB_MAD_METHOD_SET, c->j[i].attr,
					  c->j[i].mod, c->j[i].want, on_write, c, i);
	}
	if (!rc)
		rc = mt_drain(t);
	return rc;
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
		c.j[n].have = 0; WANTFN(c.j[n].want, vls, c.map); c.j[n].block = 1; \
		c.j[n].len = (ATTR) == IB_ATTR_SLVL_TABLE ? 8 : 64; n++; \
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
	rc = run_jobs(t, &c, n);
out:
	free(c.j);
	return rc;
}

/* ---- QoS tables (issue 28): OpenSM's `qos TRUE` on every port type ---- */

void vlprog_qos_init(struct vlprog_qos *q, const struct qos_vl_keys *keys)
{
	for (unsigned t = 0; t < QOS_PT_NUM; t++)
		qos_vl_build(&q->tbl[t], keys, (enum qos_port_type)t);
}

/* The OperationalVLs code port p runs: what port_config sets on a linked
 * external port (the smaller VLCap of the two ends), else what it reads. */
static unsigned port_oper_vls(const struct subnet *r, uint32_t p)
{
	const struct fab_port *fp = &r->fab.ports[p];
	struct smp_portinfo pi, peer;

	if (r->port_info_ok[p] != 1)
		return 1;
	smp_get_portinfo(r->port_info[p], &pi);
	if (fp->num && fp->peer != FAB_NONE && r->port_info_ok[fp->peer] == 1) {
		smp_get_portinfo(r->port_info[fp->peer], &peer);
		if (pi.vl_cap && peer.vl_cap)
			return pi.vl_cap < peer.vl_cap ? pi.vl_cap : peer.vl_cap;
	}
	return pi.oper_vls ? pi.oper_vls : 1;
}

static unsigned pi_field(const struct subnet *r, uint32_t p, int field)
{
	return r->port_info_ok[p] == 1 ?
		mad_get_field((void *)r->port_info[p], 0, field) : 0;
}

/* Which set of tables a port takes (OpenSM's choice): a switch's external
 * ports swe, its port 0 sw0, a router's ports rtr, a CA's ca. */
static enum qos_port_type port_type(const struct fabric *f, uint32_t p)
{
	const struct fab_port *fp = &f->ports[p];
	const struct fab_node *n = &f->nodes[fp->node];

	if (n->type == FAB_SWITCH)
		return fp->num ? QOS_PT_SWE : QOS_PT_SW0;
	return n->type == FAB_ROUTER ? QOS_PT_RTR : QOS_PT_CA;
}

int vlprog_qos_sl2vl(const struct vlprog_qos *q, const struct subnet *r,
		     uint32_t nd, unsigned in, unsigned out, uint8_t want[8])
{
	const struct fabric *f = &r->fab;
	const struct fab_node *n = &f->nodes[nd];
	uint32_t po = n->first_port + out;
	enum qos_port_type type = port_type(f, po);

	/* OpenSM's order on an enhanced port 0: every input to port 0 with
	 * the external ports' table, then (0, 0) with port 0's own. */
	if (type == QOS_PT_SW0 && in != 0)
		type = QOS_PT_SWE;
	qos_vl_sl2vl_wire(&q->tbl[type], port_oper_vls(r, po), want);
	return 0;
}

unsigned vlprog_qos_vlarb(const struct vlprog_qos *q, const struct subnet *r,
			  uint32_t p, unsigned block, uint8_t want[64])
{
	int cap_f = block <= 2 ? IB_PORT_VL_ARBITRATION_LOW_CAP_F :
				 IB_PORT_VL_ARBITRATION_HIGH_CAP_F;

	/* One data VL: nothing to arbitrate (OpenSM writes no table). */
	if (pi_field(r, p, IB_PORT_VL_CAP_F) <= 1) {
		memset(want, 0, 64);
		return 0;
	}
	return qos_vl_vlarb_wire(&q->tbl[port_type(&r->fab, p)], block,
				 port_oper_vls(r, p), pi_field(r, p, cap_f), want);
}

/* A table the SA's cache holds (read or written since its ports last
 * changed) is not read again: steady sweeps cost no MADs. */
static void from_cache(struct vp_ctx *c, struct job *j)
{
	struct sa_sl2vl_cache *k = j->attr == IB_ATTR_SLVL_TABLE ? c->known : c->known_vlarb;
	struct sa_sl2vl_node *n;
	int idx;

	if (!k || !(n = sa_sl2vl_find(k, j->guid, NULL)))
		return;
	idx = j->attr == IB_ATTR_SLVL_TABLE ?
		sa_sl2vl_index(n, n->is_switch ? j->key >> 8 : 0, j->key & 0xff) :
		sa_vlarb_index(n, j->key, j->block);
	if (idx < 0 || (n->state[idx] != SL2VL_READ && n->state[idx] != SL2VL_SET))
		return;
	memcpy(j->cur, sa_tbl_at(k, n, (unsigned)idx), sa_tbl_len(k));
	j->have = 1;
}

static int add_job(struct vp_ctx *c, uint32_t *cap, uint32_t *n,
		   const struct smp_path *path, uint64_t guid, uint16_t attr,
		   uint32_t mod, uint16_t key, uint8_t block, uint8_t len,
		   const uint8_t *want)
{
	struct job *j;

	if (grow_array((void **)&c->j, cap, *n + 1, sizeof(*c->j), 64))
		return -ENOMEM;
	j = &c->j[(*n)++];
	memset(j, 0, sizeof(*j));
	j->path = path;
	j->guid = guid;
	j->attr = attr;
	j->mod = mod;
	j->key = key;
	j->block = block;
	j->len = len;
	memcpy(j->want, want, attr == IB_ATTR_SLVL_TABLE ? 8 : 64);
	from_cache(c, j);
	return 0;
}

/* VLArb blocks of port p (port_num 0 for an end port or port 0). */
static int add_vlarb(struct vp_ctx *c, uint32_t *cap, uint32_t *n,
		     const struct vlprog_qos *q, const struct subnet *r,
		     const struct smp_path *path, uint32_t p, unsigned port_num,
		     uint16_t key)
{
	const struct fab_node *nd = &r->fab.nodes[r->fab.ports[p].node];

	for (unsigned b = 1; b <= 4; b++) {
		uint8_t want[64];
		unsigned len = vlprog_qos_vlarb(q, r, p, b, want);

		if (len && add_job(c, cap, n, path, nd->guid, IB_ATTR_VL_ARBITRATION,
				   b << 16 | port_num, key, (uint8_t)b,
				   (uint8_t)(2 * len), want))
			return -ENOMEM;
	}
	return 0;
}

static int has_sl_map(const struct subnet *r, uint32_t p)
{
	return (pi_field(r, p, IB_PORT_CAPMASK_F) & CAP_HAS_SL_MAP) != 0;
}

static int add_switch(struct vp_ctx *c, uint32_t *cap, uint32_t *n,
		      const struct vlprog_qos *q, const struct subnet *r,
		      uint32_t nd)
{
	const struct fab_node *node = &r->fab.nodes[nd];
	const struct smp_path *path = &r->node_path[nd];
	uint32_t p0 = node->first_port;
	uint8_t want[8];

	for (unsigned out = 1; out <= node->num_ports; out++)
		if (r->fab.ports[p0 + out].peer != FAB_NONE &&
		    add_vlarb(c, cap, n, q, r, path, p0 + out, out, out))
			return -ENOMEM;
	if (node->enhanced_sp0 && add_vlarb(c, cap, n, q, r, path, p0, 0, 0))
		return -ENOMEM;
	if (!has_sl_map(r, p0))
		return 0;
	/* Every input, linked or not, port 0 and the output itself
	 * included, as OpenSM writes them; port 0 as an output only when
	 * it is an enhanced port 0. */
	for (unsigned out = node->enhanced_sp0 ? 0 : 1; out <= node->num_ports; out++) {
		if (out && r->fab.ports[p0 + out].peer == FAB_NONE)
			continue;
		for (unsigned in = 0; in <= node->num_ports; in++) {
			vlprog_qos_sl2vl(q, r, nd, in, out, want);
			if (add_job(c, cap, n, path, node->guid, IB_ATTR_SLVL_TABLE,
				    in << 8 | out, (uint16_t)(in << 8 | out), 1, 8, want))
				return -ENOMEM;
		}
	}
	return 0;
}

int vlprog_program_qos(struct mad_transport *t, const struct subnet *r,
		       const struct vlprog_qos *q, struct sa_sl2vl_cache *known,
		       struct sa_sl2vl_cache *known_vlarb, struct vlprog_stats *st)
{
	const struct fabric *f = &r->fab;
	struct vp_ctx c = { .st = st, .known = known, .known_vlarb = known_vlarb };
	uint32_t cap = 0, n = 0;
	int rc = 0;

	for (uint32_t nd = 0; nd < f->num_nodes && !rc; nd++) {
		const struct fab_node *node = &f->nodes[nd];

		if (fab_is_switch(f, nd)) {
			rc = add_switch(&c, &cap, &n, q, r, nd);
			continue;
		}
		for (unsigned k = 1; k <= node->num_ports && !rc; k++) {
			uint32_t p = node->first_port + k;
			uint8_t want[8];

			if (f->ports[p].peer == FAB_NONE || !f->ports[p].lid)
				continue;
			rc = add_vlarb(&c, &cap, &n, q, r, &r->port_path[p], p, 0, k);
			if (rc || !has_sl_map(r, p))
				continue;
			vlprog_qos_sl2vl(q, r, nd, 0, k, want);
			rc = add_job(&c, &cap, &n, &r->port_path[p], node->guid,
				     IB_ATTR_SLVL_TABLE, 0, k, 1, 8, want);
		}
	}
	if (!rc)
		rc = run_jobs(t, &c, n);
	free(c.j);
	return rc;
}
