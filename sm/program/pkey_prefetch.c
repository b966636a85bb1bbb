/* P_KeyTable reads in the discovery window (sm/program/pkey_prefetch.h). */
#include "pkey_prefetch.h"

#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/grow.h"
#include "../../partition/part_table.h"

#define MAX_BLOCKS 2048             /* 65,536 entries: the caps are 16 bits */

void pkey_block_put(uint8_t *d, const uint16_t k[32])
{
	memset(d, 0, 64);
	for (unsigned i = 0; i < 32; i++) {
		d[2 * i] = (uint8_t)(k[i] >> 8);
		d[2 * i + 1] = (uint8_t)k[i];
	}
}

void pkey_block_get(const uint8_t *d, uint16_t k[32])
{
	for (unsigned i = 0; i < 32; i++)
		k[i] = (uint16_t)(d[2 * i] << 8 | d[2 * i + 1]);
}

static void entries_clear(struct pkey_reads *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		free(s->e[i].tbl);
		free(s->e[i].known);
	}
	s->n = 0;
}

void pkey_reads_init(struct pkey_reads *s)
{
	memset(s, 0, sizeof(*s));
}

void pkey_reads_free(struct pkey_reads *s)
{
	entries_clear(s);
	free(s->e);
	free(s->asked);
	pkey_reads_init(s);
}

static void on_read(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp)
{
	struct pkey_reads *s = ctx;
	struct pkey_read *e = &s->e[cookie >> 16];
	uint32_t b = (uint32_t)(cookie & 0xffff);

	(void)req;
	if (!resp || smp_status(resp))
		return;                 /* read again by pkeyprog_program */
	pkey_block_get(resp + 64, e->tbl + (size_t)b * 32);
	e->known[b] = 1;
	s->answered++;
}

/* Queue the Gets of every block of port p (at path, attribute modifier
 * port_mod << 16 | block), unless it was asked already or is not wanted. */
static void read_port(struct pkey_reads *s, struct mad_transport *t,
		      const struct subnet *r, uint32_t p,
		      const struct smp_path *path, uint32_t port_mod,
		      uint32_t cap)
{
	const struct fabric *f = &r->fab;
	const struct fab_port *port = &f->ports[p];
	uint64_t key = pkey_port_key(f, p);
	uint32_t nb = (cap + 31) / 32;
	struct pkey_read *e;

	if (!nb || s->asked[p])
		return;
	s->asked[p] = 1;
	if (nb > MAX_BLOCKS)
		nb = MAX_BLOCKS;
	if (!s->wanted(s->wanted_ctx, key, nb,
		       port->num == 0 || port->state == FAB_PORT_ACTIVE))
		return;
	if (grow_array((void **)&s->e, &s->cap, s->n + 1, sizeof(*s->e), 256)) {
		s->nomem = 1;
		return;
	}
	e = &s->e[s->n];
	e->key = key;
	e->nblocks = nb;
	e->tbl = calloc((size_t)nb * 32, sizeof(*e->tbl));
	e->known = calloc(nb, 1);
	if (!e->tbl || !e->known) {
		free(e->tbl);
		free(e->known);
		s->nomem = 1;
		return;
	}
	s->n++;
	for (uint32_t b = 0; b < nb; b++) {
		if (mt_submit_dr(t, path, IB_MAD_METHOD_GET, IB_ATTR_PKEY_TBL,
				 port_mod << 16 | b, NULL, on_read, s,
				 (uint64_t)(s->n - 1) << 16 | b) < 0) {
			s->nomem = 1;
			return;
		}
		s->sent++;
	}
}

/* Port p of a switch, with its PortInfo: port 0 is an end port; an
 * external port is read when it faces an end port. */
static void switch_port(struct pkey_reads *s, struct mad_transport *t,
			const struct subnet *r, uint32_t p)
{
	const struct fabric *f = &r->fab;
	const struct fab_port *port = &f->ports[p];
	uint32_t n = port->node, q = port->peer;

	if (port->num == 0) {
		read_port(s, t, r, p, &r->node_path[n], 0,
			  mad_get_field((void *)(uintptr_t)r->node_info[n], 0,
					IB_NODE_PARTITION_CAP_F));
		return;
	}
	/* SwitchInfo not answered yet reads as cap 0: left to later. A
	 * switch that can enforce in no direction gets no table. */
	if (q != FAB_NONE && !fab_is_switch(f, f->ports[q].node) &&
	    part_switch_enforces(r, n))
		read_port(s, t, r, p, &r->node_path[n], port->num,
			  mad_get_field((void *)(uintptr_t)r->sw_info[n], 0,
					IB_SW_PARTITION_ENFORCE_CAP_F));
}

static void port_seen(void *ctx, struct mad_transport *t,
		      const struct subnet *r, uint32_t p)
{
	struct pkey_reads *s = ctx;
	const struct fabric *f = &r->fab;
	uint32_t n = f->ports[p].node, q;

	if (f->num_ports > s->cap_asked) {
		uint32_t had = s->cap_asked;

		if (grow_array((void **)&s->asked, &s->cap_asked, f->num_ports,
			       1, 1024)) {
			s->nomem = 1;
			return;
		}
		memset(s->asked + had, 0, s->cap_asked - had);
	}
	if (fab_is_switch(f, n)) {
		switch_port(s, t, r, p);
		return;
	}
	/* A CA or router port: its own table, and the switch port facing
	 * it if that one's PortInfo came first (the SM's own port, or the
	 * second port of an HCA reached again). */
	read_port(s, t, r, p, &r->port_path[p], 0,
		  mad_get_field((void *)(uintptr_t)r->node_info[n], 0,
				IB_NODE_PARTITION_CAP_F));
	q = f->ports[p].peer;
	if (q != FAB_NONE && fab_is_switch(f, f->ports[q].node) &&
	    r->port_info_ok[q] == 1)
		switch_port(s, t, r, q);
}

void pkey_reads_start(struct pkey_reads *s, pkey_read_wanted_fn wanted,
		      void *ctx, struct sweep_hook *h)
{
	entries_clear(s);
	if (s->asked)
		memset(s->asked, 0, s->cap_asked);
	s->wanted = wanted;
	s->wanted_ctx = ctx;
	s->sent = s->answered = 0;
	s->nomem = 0;
	s->sorted = 0;
	h->port_seen = port_seen;
	h->ctx = s;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const struct pkey_read *)a)->key;
	uint64_t y = ((const struct pkey_read *)b)->key;

	return x < y ? -1 : x > y;
}

const struct pkey_read *pkey_reads_find(struct pkey_reads *s, uint64_t key)
{
	struct pkey_read k = { .key = key };

	if (!s->n)
		return NULL;
	if (!s->sorted) {
		/* Only after the sweep drained: completions index e[]. */
		qsort(s->e, s->n, sizeof(*s->e), cmp_key);
		s->sorted = 1;
	}
	return bsearch(&k, s->e, s->n, sizeof(k), cmp_key);
}
