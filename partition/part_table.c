/* Per-port P_Key tables from the partition configuration
 * (partition/part_table.h). One pass per partition over its members, with
 * a sorted port-GUID index for GUID members: O(partitions x ports). */
#include "part_table.h"

#include <errno.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

struct guid_port {
	uint64_t guid;
	uint32_t port;
};

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct guid_port *)a)->guid;
	uint64_t y = ((const struct guid_port *)b)->guid;

	return x < y ? -1 : x > y;
}

/* End ports: switch port 0, linked CA and router ports. */
static int end_port(const struct fabric *f, uint32_t p)
{
	const struct fab_port *port = &f->ports[p];

	if (fab_is_switch(f, port->node))
		return port->num == 0;
	return port->num != 0 && port->peer != FAB_NONE;
}

static int kind_matches(const struct fabric *f, uint32_t p, uint8_t kind,
			uint32_t sm_port)
{
	uint8_t type = f->nodes[f->ports[p].node].type;

	switch (kind) {
	case PM_ALL: return 1;
	case PM_ALL_CAS: return type == FAB_CA;
	case PM_ALL_SWITCHES: return type == FAB_SWITCH;
	case PM_ALL_ROUTERS: return type == FAB_ROUTER;
	case PM_SELF: return p == sm_port;
	default: return 0;
	}
}

void part_tables_init(struct part_tables *t)
{
	memset(t, 0, sizeof(*t));
}

void part_tables_free(struct part_tables *t)
{
	free(t->first);
	free(t->keys);
	free(t->enforce);
	free(t->cap);
	memset(t, 0, sizeof(*t));
}

/* Apply partition d's members to st (0 none, 1 limited, 2 full). */
static void apply_members(const struct part_def *d, const struct fabric *f,
			  const struct guid_port *idx, uint32_t nidx,
			  uint32_t sm_port, uint8_t *st,
			  struct part_build_stats *bs)
{
	for (uint32_t k = 0; k < d->n; k++) {
		const struct part_member *m = &d->m[k];
		uint8_t v = m->full ? 2 : 1;

		if (m->kind == PM_GUID) {
			struct guid_port key = { .guid = m->guid };
			const struct guid_port *hit = bsearch(&key, idx, nidx, sizeof(*idx), cmp_guid);

			if (hit)
				st[hit->port] = v;
			else
				bs->unknown_guids++;
			continue;
		}
		for (uint32_t p = 0; p < f->num_ports; p++)
			if (end_port(f, p) && kind_matches(f, p, m->kind, sm_port))
				st[p] = v;
	}
}

int part_switch_enforces(const struct subnet *r, uint32_t n)
{
	void *si = (void *)(uintptr_t)r->sw_info[n];

	return mad_get_field(si, 0, IB_SW_PARTITION_ENF_INB_F) ||
	       mad_get_field(si, 0, IB_SW_PARTITION_ENF_OUTB_F);
}

int part_tables_build(struct part_tables *t, const struct part_conf *c,
		      const struct subnet *r, struct part_build_stats *bs)
{
	const struct fabric *f = &r->fab;
	const struct part_def *def = part_conf_default(c);
	uint32_t np = f->num_ports, nparts = 1, nidx = 0, total = 0;
	uint16_t *pkey_of = NULL;
	uint8_t *st = NULL;
	struct guid_port *idx = NULL;
	int rc = -ENOMEM;

	part_tables_free(t);
	memset(bs, 0, sizeof(*bs));
	if (c)
		nparts += c->n - (def ? 1 : 0);
	pkey_of = calloc(nparts, sizeof(*pkey_of));
	st = calloc((size_t)nparts * np + 1, 1);
	idx = malloc(((size_t)np + 1) * sizeof(*idx));
	t->first = calloc((size_t)np + 1, sizeof(*t->first));
	t->enforce = calloc((size_t)np + 1, 1);
	t->cap = calloc((size_t)np + 1, sizeof(*t->cap));
	if (!pkey_of || !st || !idx || !t->first || !t->enforce || !t->cap)
		goto out;
	for (uint32_t p = 0; p < np; p++)
		if (end_port(f, p))
			idx[nidx++] = (struct guid_port){ f->ports[p].guid, p };
	qsort(idx, nidx, sizeof(*idx), cmp_guid);

	/* Partition 0: the default one (IBA 10.9.1.2). */
	pkey_of[0] = PART_DEFAULT_PKEY;
	for (uint32_t p = 0; p < np; p++)
		if (end_port(f, p))
			st[p] = def ? 1 : 2;
	if (def)
		apply_members(def, f, idx, nidx, r->sm_port, st, bs);
	/* The SM must reach every port's SMA and SA clients: full member. */
	if (r->sm_port < np)
		st[r->sm_port] = 2;
	for (uint32_t i = 0, k = 1; c && i < c->n; i++) {
		if (&c->p[i] == def)
			continue;
		pkey_of[k] = c->p[i].pkey;
		apply_members(&c->p[i], f, idx, nidx, r->sm_port, st + (size_t)k * np, bs);
		k++;
	}

	/* Capacities: NodeInfo.PartitionCap for end ports, SwitchInfo.
	 * PartitionEnforcementCap for switch external ports. */
	for (uint32_t p = 0; p < np; p++) {
		const struct fab_port *port = &f->ports[p];
		uint32_t n = port->node;

		if (end_port(f, p))
			t->cap[p] = (uint16_t)mad_get_field((void *)r->node_info[n], 0,
							    IB_NODE_PARTITION_CAP_F);
		else if (fab_is_switch(f, n) && port->num)
			t->cap[p] = (uint16_t)mad_get_field((void *)r->sw_info[n], 0,
							    IB_SW_PARTITION_ENFORCE_CAP_F);
	}
	/* Count: end ports first, then switch ports copy their peer's. */
	for (uint32_t p = 0; p < np; p++) {
		uint32_t want = 0;

		if (end_port(f, p)) {
			for (uint32_t k = 0; k < nparts; k++)
				want += st[(size_t)k * np + p] != 0;
			if (want > t->cap[p]) {
				bs->dropped += want - t->cap[p];
				want = t->cap[p];
			}
		}
		t->first[p + 1] = want;
	}
	for (uint32_t p = 0; p < np; p++) {
		const struct fab_port *port = &f->ports[p];
		uint32_t q = port->peer;

		if (!fab_is_switch(f, port->node) || !port->num)
			continue;
		t->enforce[p] = 2;
		if (q == FAB_NONE)
			continue;
		t->enforce[p] = 0;
		if (fab_is_switch(f, f->ports[q].node) || !t->cap[p])
			continue;
		if (!part_switch_enforces(r, port->node)) {
			bs->enforce_no_cap++;
			continue;
		}
		if (t->first[q + 1] > t->cap[p]) {
			/* OpenSM: a table that does not fit turns enforcement off. */
			bs->enforce_off_full++;
			continue;
		}
		t->first[p + 1] = t->first[q + 1];
		t->enforce[p] = 1;
	}
	for (uint32_t p = 0; p < np; p++) {
		t->first[p + 1] += t->first[p];
		bs->ports += t->first[p + 1] > t->first[p];
	}
	total = t->first[np];
	t->keys = malloc(((size_t)total + 1) * sizeof(*t->keys));
	if (!t->keys)
		goto out;
	for (uint32_t p = 0; p < np; p++) {
		uint32_t w = t->first[p], end = t->first[p + 1];

		if (!end_port(f, p))
			continue;
		for (uint32_t k = 0; k < nparts && w < end; k++) {
			uint8_t v = st[(size_t)k * np + p];

			if (v)
				t->keys[w++] = (uint16_t)(pkey_of[k] | (v == 2 ? PART_FULL_BIT : 0));
		}
	}
	for (uint32_t p = 0; p < np; p++)
		if (t->enforce[p] == 1) {
			uint32_t q = f->ports[p].peer;

			memcpy(t->keys + t->first[p], t->keys + t->first[q],
			       (t->first[q + 1] - t->first[q]) * sizeof(*t->keys));
		}
	t->num_ports = np;
	rc = 0;
out:
	if (rc)
		part_tables_free(t);
	free(pkey_of);
	free(st);
	free(idx);
	return rc;
}

unsigned part_blocks(const struct part_tables *t, uint32_t p)
{
	return (part_num_keys(t, p) + 31) / 32;
}

void part_block(const struct part_tables *t, uint32_t p, unsigned block,
		uint16_t out[32])
{
	uint32_t n = part_num_keys(t, p);

	memset(out, 0, 32 * sizeof(*out));
	for (uint32_t i = block * 32; i < n && i < block * 32 + 32; i++)
		out[i - block * 32] = part_keys(t, p)[i];
}

uint16_t part_port_entry(const struct part_tables *t, uint32_t p, uint16_t pkey)
{
	uint32_t n = part_num_keys(t, p);

	pkey &= 0x7FFF;
	if (!n)
		return pkey == PART_DEFAULT_PKEY ? 0xFFFF : 0;
	for (uint32_t i = 0; i < n; i++)
		if ((part_keys(t, p)[i] & 0x7FFF) == pkey)
			return part_keys(t, p)[i];
	return 0;
}

int part_share_pkey(const struct part_tables *t, uint32_t a, uint32_t b,
		    uint16_t pkey)
{
	uint16_t x = part_port_entry(t, a, pkey), y = part_port_entry(t, b, pkey);

	if (!x || !y)
		return 0;
	return a == b || ((x | y) & PART_FULL_BIT);
}

uint16_t part_common_pkey(const struct part_tables *t, uint32_t a, uint32_t b)
{
	uint32_t n = part_num_keys(t, a);
	uint16_t best = 0;

	if (part_share_pkey(t, a, b, PART_DEFAULT_PKEY))
		return part_port_entry(t, a, PART_DEFAULT_PKEY);
	for (uint32_t i = 0; i < n; i++) {
		uint16_t k = part_keys(t, a)[i];

		if (part_share_pkey(t, a, b, k) &&
		    (!best || (k & 0x7FFF) < (best & 0x7FFF)))
			best = k;
	}
	return best;
}
