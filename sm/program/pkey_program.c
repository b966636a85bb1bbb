/* P_KeyTable and partition enforcement programming (sm/program/pkey_program.h). */
#include "pkey_program.h"

#include <errno.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../../mad/smp.h"

#define MAX_BLOCKS 2048             /* 65,536 entries: PartitionCap is 16 bits */

struct pkeyprog_entry {
	uint64_t key;               /* node GUID, port number */
	uint32_t nblocks;
	uint16_t *tbl;              /* nblocks x 32 entries */
};

/* One port this sweep. */
struct job {
	uint32_t port;
	uint64_t key;
	uint32_t nblocks;           /* its capacity in blocks */
	uint16_t *cur;              /* nblocks x 32: what it holds */
	uint8_t *known;             /* per block: cur is known */
	uint8_t failed;
};

struct pp_ctx {
	struct job *j;
	struct pkeyprog_stats *st;
	struct subnet *r;
	struct pkeyprog_cache *c;
};

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const struct pkeyprog_entry *)a)->key;
	uint64_t y = ((const struct pkeyprog_entry *)b)->key;

	return x < y ? -1 : x > y;
}

void pkeyprog_cache_init(struct pkeyprog_cache *c)
{
	memset(c, 0, sizeof(*c));
}

static void entries_free(struct pkeyprog_entry *e, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(e[i].tbl);
	free(e);
}

void pkeyprog_cache_free(struct pkeyprog_cache *c)
{
	entries_free(c->e, c->n);
	pkey_reads_free(&c->reads);
	memset(c, 0, sizeof(*c));
}

/* The same test as pkeyprog_program's: a port the cache holds with this
 * capacity, and whose link did not train again, is not read. */
static int read_wanted(void *ctx, uint64_t key, uint32_t nblocks, int active)
{
	struct pkeyprog_cache *c = ctx;
	struct pkeyprog_entry k = { .key = key }, *old;

	old = c->n ? bsearch(&k, c->e, c->n, sizeof(k), cmp_key) : NULL;
	return !(old && old->nblocks == nblocks && active);
}

void pkeyprog_discovery_hook(struct pkeyprog_cache *c, struct sweep_hook *h)
{
	pkey_reads_start(&c->reads, read_wanted, c, h);
}

/* Where the SMA of port p answers, and the attribute modifier of block b. */
static const struct smp_path *path_of(const struct subnet *r, uint32_t p)
{
	const struct fabric *f = &r->fab;

	return fab_is_switch(f, f->ports[p].node) ? &r->node_path[f->ports[p].node]
						   : &r->port_path[p];
}

static uint32_t mod_of(const struct fabric *f, uint32_t p, uint32_t block)
{
	if (fab_is_switch(f, f->ports[p].node))
		return (uint32_t)f->ports[p].num << 16 | block;
	return block;
}

static void on_read(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp)
{
	struct pp_ctx *c = ctx;
	struct job *j = &c->j[cookie >> 16];
	uint32_t b = (uint32_t)(cookie & 0xffff);

	(void)req;
	if (!resp || smp_status(resp)) {
		c->st->failed++;
		j->failed = 1;
		return;
	}
	pkey_block_get(resp + 64, j->cur + (size_t)b * 32);
	j->known[b] = 1;
	c->st->read++;
}

static void on_write(void *ctx, uint64_t cookie, const uint8_t *req,
		     const uint8_t *resp)
{
	struct pp_ctx *c = ctx;
	struct job *j = &c->j[cookie >> 16];

	(void)req;
	if (!resp || smp_status(resp)) {
		c->st->failed++;
		j->failed = 1;
		log_warn("P_KeyTable Set of 0x%016llx[%u] block %u: %s",
			 (unsigned long long)(j->key >> 8), (unsigned)(j->key & 0xff),
			 (unsigned)(cookie & 0xffff), resp ? "refused" : "no answer");
		return;
	}
	c->st->written++;
}

static void on_enforce(void *ctx, uint64_t cookie, const uint8_t *req,
		       const uint8_t *resp)
{
	struct pp_ctx *c = ctx;
	uint32_t p = (uint32_t)cookie;
	unsigned want = mad_get_field((void *)(uintptr_t)(req + 64), 0, IB_PORT_PART_EN_INB_F) |
			mad_get_field((void *)(uintptr_t)(req + 64), 0, IB_PORT_PART_EN_OUTB_F);

	if (!resp || smp_status(resp)) {
		c->st->failed++;
		log_warn("PortInfo Set (partition enforcement) of 0x%016llx[%u]: %s",
			 (unsigned long long)c->r->fab.nodes[c->r->fab.ports[p].node].guid,
			 c->r->fab.ports[p].num, resp ? "refused" : "no answer");
		return;
	}
	c->st->enforce_set++;
	memcpy(c->r->port_info[p], resp + 64, 64);
	if (want && !mad_get_field((void *)(uintptr_t)(resp + 64), 0, IB_PORT_PART_EN_INB_F) &&
	    !mad_get_field((void *)(uintptr_t)(resp + 64), 0, IB_PORT_PART_EN_OUTB_F) &&
	    !c->c->enforce_not_kept) {
		c->c->enforce_not_kept = 1;
		log_warn("partitions: switch 0x%016llx answered our enforcement Set with the bits clear: this fabric's SMAs do not keep PartitionEnforcementInbound/Outbound (ibsim does not); they are no longer compared",
			 (unsigned long long)c->r->fab.nodes[c->r->fab.ports[p].node].guid);
	}
}

/* May what the cache says about port p be believed? Not when its link
 * trained again since (the port may have been reset). */
static int trusted(const struct subnet *r, uint32_t p)
{
	const struct fab_port *port = &r->fab.ports[p];

	if (port->num == 0)
		return 1;
	return port->state == FAB_PORT_ACTIVE;
}

static int enforcement(struct mad_transport *t, struct pp_ctx *c,
		       const struct part_tables *pt, size_t limit)
{
	struct subnet *r = c->r;

	for (uint32_t p = 0; p < pt->num_ports; p++) {
		struct smp_portinfo cur;
		struct smp_port_set s;
		uint8_t data[64];
		unsigned want_in, want_out, in, out;
		int rc;

		if (pt->enforce[p] > 1 || r->port_info_ok[p] != 1 ||
		    !fab_is_switch(&r->fab, r->fab.ports[p].node) || !r->fab.ports[p].num)
			continue;
		/* Only the directions the switch can enforce (SwitchInfo
		 * Inbound/OutboundEnforcementCap, IBA 14.2.5.4); OpenSM sets
		 * both whenever PartitionEnforcementCap is not 0. */
		want_in = pt->enforce[p] &&
			mad_get_field(r->sw_info[r->fab.ports[p].node], 0, IB_SW_PARTITION_ENF_INB_F);
		want_out = pt->enforce[p] &&
			mad_get_field(r->sw_info[r->fab.ports[p].node], 0, IB_SW_PARTITION_ENF_OUTB_F);
		in = mad_get_field(r->port_info[p], 0, IB_PORT_PART_EN_INB_F);
		out = mad_get_field(r->port_info[p], 0, IB_PORT_PART_EN_OUTB_F);
		if (in == want_in && out == want_out)
			continue;
		if ((want_in || want_out) && c->c->enforce_not_kept)
			continue;
		smp_get_portinfo(r->port_info[p], &cur);
		memset(&s, 0, sizeof(s));
		s.gid_prefix = cur.gid_prefix;
		s.lid = cur.lid;
		s.sm_lid = cur.sm_lid;
		s.lmc = cur.lmc;
		s.subnet_timeout = cur.subnet_timeout;
		smp_build_portinfo_set(data, r->port_info[p], &s);
		mad_set_field(data, 0, IB_PORT_PART_EN_INB_F, want_in);
		mad_set_field(data, 0, IB_PORT_PART_EN_OUTB_F, want_out);
		rc = mt_throttle(t, limit);
		if (!rc)
			rc = mt_submit_dr(t, &r->node_path[r->fab.ports[p].node],
					  IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO,
					  r->fab.ports[p].num, data, on_enforce, c, p);
		if (rc < 0)
			return rc;
	}
	return mt_drain(t);
}

int pkeyprog_program(struct mad_transport *t, struct subnet *r,
		     const struct part_tables *pt, struct pkeyprog_cache *cache,
		     struct pkeyprog_stats *st)
{
	const struct fabric *f = &r->fab;
	size_t limit = (size_t)mt_window(t) * 8, nj = 0;
	struct pp_ctx c = { .st = st, .r = r, .c = cache };
	struct pkeyprog_entry *ne = NULL;
	uint32_t nn = 0;
	int rc = 0;

	c.j = calloc((size_t)pt->num_ports + 1, sizeof(*c.j));
	ne = calloc((size_t)pt->num_ports + 1, sizeof(*ne));
	if (!c.j || !ne) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t p = 0; p < pt->num_ports; p++) {
		struct job *j;
		struct pkeyprog_entry key, *old;
		uint32_t nb;

		if (!part_num_keys(pt, p))
			continue;
		nb = (pt->cap[p] + 31u) / 32u;
		if (nb > MAX_BLOCKS)
			nb = MAX_BLOCKS;
		j = &c.j[nj++];
		j->port = p;
		j->key = pkey_port_key(f, p);
		j->nblocks = nb;
		j->cur = calloc((size_t)nb * 32, sizeof(*j->cur));
		j->known = calloc(nb, 1);
		if (!j->cur || !j->known) {
			rc = -ENOMEM;
			goto out;
		}
		key.key = j->key;
		old = cache->n ? bsearch(&key, cache->e, cache->n, sizeof(key), cmp_key) : NULL;
		if (old && old->nblocks == nb && trusted(r, p)) {
			memcpy(j->cur, old->tbl, (size_t)nb * 32 * sizeof(*j->cur));
			memset(j->known, 1, nb);
			continue;
		}
		/* Read during discovery: this sweep's view of the port. */
		const struct pkey_read *pre = pkey_reads_find(&cache->reads, j->key);

		if (!pre || pre->nblocks != nb)
			continue;
		for (uint32_t b = 0; b < nb; b++) {
			if (!pre->known[b])
				continue;
			memcpy(j->cur + (size_t)b * 32, pre->tbl + (size_t)b * 32,
			       32 * sizeof(*j->cur));
			j->known[b] = 1;
			st->read++;
			st->read_early++;
		}
	}
	pkey_reads_free(&cache->reads);
	st->ports = (uint32_t)nj;
	/* 1: read what is not known; 2: write the blocks that differ. */
	for (size_t i = 0; i < nj && !rc; i++)
		for (uint32_t b = 0; b < c.j[i].nblocks && !rc; b++) {
			if (c.j[i].known[b])
				continue;
			rc = mt_throttle(t, limit);
			if (!rc)
				rc = mt_submit_dr(t, path_of(r, c.j[i].port), IB_MAD_METHOD_GET,
						  IB_ATTR_PKEY_TBL, mod_of(f, c.j[i].port, b),
						  NULL, on_read, &c, (uint64_t)i << 16 | b);
		}
	if (!rc)
		rc = mt_drain(t);
	for (size_t i = 0; i < nj && !rc; i++)
		for (uint32_t b = 0; b < c.j[i].nblocks && !rc; b++) {
			uint16_t want[32];
			uint8_t data[64];

			part_block(pt, c.j[i].port, b, want);
			if (c.j[i].known[b] &&
			    !memcmp(want, c.j[i].cur + (size_t)b * 32, sizeof(want))) {
				st->unchanged++;
				continue;
			}
			pkey_block_put(data, want);
			rc = mt_throttle(t, limit);
			if (!rc)
				rc = mt_submit_dr(t, path_of(r, c.j[i].port), IB_MAD_METHOD_SET,
						  IB_ATTR_PKEY_TBL, mod_of(f, c.j[i].port, b),
						  data, on_write, &c, (uint64_t)i << 16 | b);
		}
	if (!rc)
		rc = mt_drain(t);
	/* Tables in place first: a port that enforces drops what its
	 * table does not hold. */
	if (!rc)
		rc = enforcement(t, &c, pt, limit);
	if (rc)
		goto out;
	/* What the ports hold now: the wanted tables, except where a MAD
	 * failed (read again next sweep). Ports not seen are dropped. */
	for (size_t i = 0; i < nj; i++) {
		struct job *j = &c.j[i];

		if (j->failed)
			continue;
		for (uint32_t b = 0; b < j->nblocks; b++)
			part_block(pt, j->port, b, j->cur + (size_t)b * 32);
		ne[nn].key = j->key;
		ne[nn].nblocks = j->nblocks;
		ne[nn].tbl = j->cur;
		j->cur = NULL;
		nn++;
	}
	qsort(ne, nn, sizeof(*ne), cmp_key);
	entries_free(cache->e, cache->n);
	cache->e = ne;
	cache->n = nn;
	ne = NULL;
	nn = 0;
out:
	for (size_t i = 0; c.j && i < nj; i++) {
		free(c.j[i].cur);
		free(c.j[i].known);
	}
	free(c.j);
	if (ne)
		entries_free(ne, nn);
	return rc;
}
