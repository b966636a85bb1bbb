/* SL2VL table cache for SL2VLTableRecord (sa/sa_sl2vl.h). */
#include "sa_sl2vl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

void sa_tbl_init(struct sa_sl2vl_cache *c, enum sa_tbl_kind kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
}

void sa_sl2vl_init(struct sa_sl2vl_cache *c)
{
	sa_tbl_init(c, SA_TBL_SL2VL);
}

unsigned sa_tbl_len(const struct sa_sl2vl_cache *c)
{
	return c->kind == SA_TBL_VLARB ? SA_VLARB_BLOCK_LEN : 8;
}

const char *sa_tbl_name(const struct sa_sl2vl_cache *c)
{
	return c->kind == SA_TBL_VLARB ? "VLArb" : "SL2VL";
}

static void node_free(struct sa_sl2vl_node *n)
{
	free(n->sig);
	free(n->state);
	free(n->tbl);
}

void sa_sl2vl_free(struct sa_sl2vl_cache *c)
{
	enum sa_tbl_kind kind = c->kind;

	for (uint32_t i = 0; i < c->num_nodes; i++)
		node_free(&c->nodes[i]);
	free(c->nodes);
	sa_tbl_init(c, kind);
}

unsigned sa_tbl_count(const struct sa_sl2vl_cache *c, const struct sa_sl2vl_node *n)
{
	unsigned p = n->num_ports + 1u;

	if (c->kind == SA_TBL_VLARB)
		return p * SA_VLARB_BLOCKS;
	return n->is_switch ? p * p : p;
}

/* The ports table i of node n belongs to: SL2VL (in, out), VLArb the
 * port twice. */
static void tbl_ports(const struct sa_sl2vl_cache *c, const struct sa_sl2vl_node *n,
		      unsigned i, unsigned *in, unsigned *out)
{
	if (c->kind == SA_TBL_VLARB) {
		*in = *out = i / SA_VLARB_BLOCKS;
	} else if (n->is_switch) {
		*in = i / (n->num_ports + 1u);
		*out = i % (n->num_ports + 1u);
	} else {
		*in = 0;
		*out = i;
	}
}

int sa_vlarb_index(const struct sa_sl2vl_node *n, unsigned port, unsigned block)
{
	if (port > n->num_ports || block < 1 || block > SA_VLARB_BLOCKS ||
	    (!n->is_switch && port == 0))
		return -1;
	return (int)(port * SA_VLARB_BLOCKS + block - 1);
}

int sa_sl2vl_index(const struct sa_sl2vl_node *n, unsigned in, unsigned out)
{
	if (out > n->num_ports || in > n->num_ports)
		return -1;
	if (!n->is_switch)
		return in ? -1 : (int)out;
	return (int)(in * (n->num_ports + 1u) + out);
}

struct sa_sl2vl_node *sa_sl2vl_find(const struct sa_sl2vl_cache *c,
				    uint64_t guid, uint32_t *pos)
{
	uint32_t lo = 0, hi = c->num_nodes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->nodes[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->num_nodes && c->nodes[lo].guid == guid) {
		if (pos)
			*pos = lo;
		return &c->nodes[lo];
	}
	return NULL;
}

static int by_guid(const void *a, const void *b)
{
	const struct sa_sl2vl_node *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Who port p's link leads to: the peer's node GUID and port, 0 if down. */
static uint64_t port_sig(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	if (q == FAB_NONE)
		return 0;
	return f->nodes[f->ports[q].node].guid * 257u + f->ports[q].num + 1u;
}

/* Whether the cache keeps table idx of node n (fabric node fn). A
 * switch's port 0 too (OpenSM answers it, and osmtest asks for it). */
static int planned(const struct sa_sl2vl_cache *c, const struct fabric *f,
		   uint32_t fn, const struct sa_sl2vl_node *n, unsigned idx)
{
	const struct fab_node *nd = &f->nodes[fn];
	unsigned in, out;

	tbl_ports(c, n, idx, &in, &out);
	if (!n->is_switch) {
		uint32_t p = nd->first_port + out;

		return out >= 1 && f->ports[p].peer != FAB_NONE && f->ports[p].lid;
	}
	if (c->kind == SA_TBL_VLARB)
		return out == 0 || f->ports[nd->first_port + out].peer != FAB_NONE;
	/* Port 0 to itself: the one port-0 table osmtest -f q asks for (it
	 * asks a switch's port 0 as it asks a CA port, ports 0/0). */
	if (in == 0 && out == 0)
		return 1;
	return out >= 1 && f->ports[nd->first_port + out].peer != FAB_NONE &&
	       (in == 0 || f->ports[nd->first_port + in].peer != FAB_NONE);
}

/* Whether VLArb table idx of node fn lies wholly past its port's
 * VLArbitrationLowCap/HighCap (PortInfo, IBA 14.2.5.6): blocks 2 and 4
 * hold entries 32..63, which a port with a cap of 32 or less does not
 * have (ibsim refuses the Get). Such a block is known without a read:
 * all zeros, weight 0 being an entry that is skipped (IBA 7.6.9), which is
 * also what OpenSM answers for it. */
static int vlarb_past_cap(const struct subnet *r, uint32_t fn, unsigned idx)
{
	uint32_t p = r->fab.nodes[fn].first_port + idx / SA_VLARB_BLOCKS;
	unsigned block = idx % SA_VLARB_BLOCKS + 1, cap;

	if (!r->port_info || !r->port_info_ok || r->port_info_ok[p] != 1)
		return 0;
	cap = (unsigned)mad_get_field((void *)r->port_info[p], 0, block <= 2 ?
				      IB_PORT_VL_ARBITRATION_LOW_CAP_F :
				      IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	return (block == 2 || block == 4 ? 32u : 0u) >= cap;
}

int sa_sl2vl_sweep(struct sa_sl2vl_cache *c, const struct subnet *r)
{
	const struct fabric *f = &r->fab;
	struct sa_sl2vl_node *nodes = calloc(f->num_nodes ? f->num_nodes : 1,
					     sizeof(*nodes));
	int dropped = 0;

	if (!nodes)
		goto nomem;
	for (uint32_t fn = 0; fn < f->num_nodes; fn++) {
		struct sa_sl2vl_node *n = &nodes[fn];
		const struct fab_node *nd = &f->nodes[fn];
		unsigned nt;

		n->guid = nd->guid;
		n->num_ports = (uint8_t)nd->num_ports;
		n->is_switch = fab_is_switch(f, fn);
		nt = sa_tbl_count(c, n);
		n->sig = calloc(n->num_ports + 1u, sizeof(*n->sig));
		n->state = calloc(nt, 1);
		n->tbl = calloc(nt, sa_tbl_len(c));
		if (!n->sig || !n->state || !n->tbl) {
			for (uint32_t k = 0; k <= fn; k++)
				node_free(&nodes[k]);
			free(nodes);
			goto nomem;
		}
		for (unsigned p = 0; p <= n->num_ports; p++)
			n->sig[p] = port_sig(f, nd->first_port + p);
	}
	/* Carry over what is still true, then plan the rest. */
	for (uint32_t fn = 0; fn < f->num_nodes; fn++) {
		struct sa_sl2vl_node *n = &nodes[fn];
		const struct sa_sl2vl_node *o = sa_sl2vl_find(c, n->guid, NULL);
		unsigned nt = sa_tbl_count(c, n);

		if (o && o->num_ports == n->num_ports && o->is_switch == n->is_switch) {
			n->asked = o->asked;    /* keep a node clients ask for fresh */
			memcpy(n->state, o->state, nt);
			memcpy(n->tbl, o->tbl, (size_t)nt * sa_tbl_len(c));
			for (unsigned p = 0; p <= n->num_ports; p++) {
				if (o->sig[p] == n->sig[p])
					continue;
				for (unsigned i = 0; i < nt; i++) {
					unsigned in, out;

					tbl_ports(c, n, i, &in, &out);
					if ((in == p || out == p) &&
					    (n->state[i] == SL2VL_READ || n->state[i] == SL2VL_SET)) {
						n->state[i] = SL2VL_NONE;
						dropped++;
					}
				}
			}
		}
		for (unsigned i = 0; i < nt; i++) {
			if (!planned(c, f, fn, n, i)) {
				n->state[i] = SL2VL_NONE;
			} else if (c->kind == SA_TBL_VLARB && vlarb_past_cap(r, fn, i)) {
				memset(sa_tbl_at(c, n, i), 0, sa_tbl_len(c));
				n->state[i] = SL2VL_SET;
			} else if (n->state[i] == SL2VL_NONE || n->state[i] == SL2VL_FAILED ||
				 n->state[i] == SL2VL_READING)
				n->state[i] = SL2VL_WANTED;
		}
	}
	qsort(nodes, f->num_nodes, sizeof(*nodes), by_guid);
	{
		unsigned gen = c->gen;

		sa_sl2vl_free(c);
		c->gen = gen + 1;
	}
	c->nodes = nodes;
	c->num_nodes = f->num_nodes;
	for (uint32_t i = 0; i < c->num_nodes; i++)
		for (unsigned k = 0; k < sa_tbl_count(c, &nodes[i]); k++) {
			c->wanted += nodes[i].state[k] == SL2VL_WANTED;
			c->known += nodes[i].state[k] == SL2VL_READ ||
				    nodes[i].state[k] == SL2VL_SET;
		}
	return dropped;
nomem:
	{
		unsigned gen = c->gen;

		sa_sl2vl_free(c);
		c->gen = gen + 1;
	}
	return -ENOMEM;
}

void sa_sl2vl_store_at(struct sa_sl2vl_cache *c, uint32_t node, uint32_t idx,
		       const uint8_t *tbl, enum sl2vl_state st)
{
	struct sa_sl2vl_node *n;
	uint8_t *s;

	if (node >= c->num_nodes || idx >= sa_tbl_count(c, &c->nodes[node]))
		return;
	n = &c->nodes[node];
	s = &n->state[idx];
	if (*s == SL2VL_NONE)
		return;
	if (*s == SL2VL_WANTED || *s == SL2VL_READING)
		c->wanted--;
	if (*s == SL2VL_READ || *s == SL2VL_SET)
		c->known--;
	if (st == SL2VL_FAILED || !tbl) {
		*s = SL2VL_FAILED;
		return;
	}
	memcpy(sa_tbl_at(c, n, idx), tbl, sa_tbl_len(c));
	*s = (uint8_t)st;
	c->known++;
}

void sa_sl2vl_store(struct sa_sl2vl_cache *c, uint64_t guid, unsigned in,
		    unsigned out, const uint8_t *tbl, enum sl2vl_state st)
{
	uint32_t pos;
	struct sa_sl2vl_node *n = sa_sl2vl_find(c, guid, &pos);
	int idx;

	if (!n || (idx = sa_sl2vl_index(n, in, out)) < 0)
		return;
	sa_sl2vl_store_at(c, pos, (uint32_t)idx, tbl, st);
}

void sa_vlarb_store(struct sa_sl2vl_cache *c, uint64_t guid, unsigned port,
		    unsigned block, const uint8_t *tbl, enum sl2vl_state st)
{
	uint32_t pos;
	struct sa_sl2vl_node *n = sa_sl2vl_find(c, guid, &pos);
	int idx;

	if (!n || (idx = sa_vlarb_index(n, port, block)) < 0)
		return;
	sa_sl2vl_store_at(c, pos, (uint32_t)idx, tbl, st);
}

void sa_sl2vl_want(struct sa_sl2vl_cache *c, uint32_t node, uint32_t idx)
{
	struct sa_sl2vl_node *n;
	unsigned k;

	if (node >= c->num_nodes || idx >= sa_tbl_count(c, &c->nodes[node]))
		return;
	n = &c->nodes[node];
	if (!n->asked) {
		n->asked = 1;
		c->asks++;
	}
	/* Asked again after a failed read: read again (on demand). */
	if (n->state[idx] == SL2VL_FAILED) {
		n->state[idx] = SL2VL_WANTED;
		c->wanted++;
	}
	if (c->want_len == SL2VL_WANT_RING)
		return;
	for (unsigned i = 0; i < c->want_len; i++) {
		k = (c->want_head + i) % SL2VL_WANT_RING;
		if (c->want[k].node == node && c->want[k].idx == idx &&
		    c->want[k].gen == c->gen)
			return;
	}
	k = (c->want_head + c->want_len++) % SL2VL_WANT_RING;
	c->want[k].node = node;
	c->want[k].idx = idx;
	c->want[k].gen = c->gen;
}

void sa_sl2vl_reading(struct sa_sl2vl_cache *c, uint32_t node, uint32_t idx)
{
	if (node < c->num_nodes && idx < sa_tbl_count(c, &c->nodes[node]) &&
	    c->nodes[node].state[idx] == SL2VL_WANTED)
		c->nodes[node].state[idx] = SL2VL_READING;
}

int sa_sl2vl_drops(const struct sa_sl2vl_cache *c, const struct fabric *f,
		   uint32_t p, unsigned sl)
{
	const struct fab_port *fp = &f->ports[p];
	const struct sa_sl2vl_node *n;
	int idx;
	unsigned vl;

	if (sl > 15 || fab_is_switch(f, fp->node) || c->kind != SA_TBL_SL2VL)
		return 0;
	n = sa_sl2vl_find(c, f->nodes[fp->node].guid, NULL);
	if (!n || (idx = sa_sl2vl_index(n, 0, fp->num)) < 0 ||
	    (n->state[idx] != SL2VL_READ && n->state[idx] != SL2VL_SET))
		return 0;
	{
		const uint8_t *t = sa_tbl_at(c, n, (unsigned)idx);

		vl = sl & 1 ? t[sl / 2] & 0xf : t[sl / 2] >> 4;
	}
	return vl == 15;
}
