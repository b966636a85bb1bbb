/* SA database: indexes over the swept fabric. */
#include "sa_db.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "sa_layout.h"

void sa_db_init(struct sa_db *db)
{
	memset(db, 0, sizeof(*db));
}

void sa_db_free(struct sa_db *db)
{
	free(db->port_of_lid);
	free(db->lft_row);
	free(db->by_guid);
	free(db->pir);
	memset(db, 0, sizeof(*db));
}

static int cmp_guid(const void *a, const void *b)
{
	const struct sa_port_guid *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* The PortInfoRecords of sa_db.pir: the fixed part of the record as the
 * handler (sa_rec_port.c) answers it; the M_Key cleared through
 * libibmad's field, once per port and build. */
static void build_pirs(struct sa_db *db, const struct subnet *r)
{
	const struct sa_layout *l = &sa_portinfo_rec;
	const struct fabric *f = &r->fab;

	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint8_t *rec = db->pir + (size_t)p * SA_DB_PIR_LEN;
		uint8_t *d = rec + sa_comp_offset(l, PIR_PORTINFO) / 8;
		const uint8_t *pi = sa_db_portinfo(db, p);

		sa_put(l, rec, PIR_LID, fab_port_lid(f, p));
		sa_put(l, rec, PIR_PORTNUM, f->ports[p].num);
		if (pi) {
			memcpy(d, pi, 64);
			mad_set_field64(d, 0, IB_PORT_MKEY_F, 0);
		}
	}
}

int sa_db_build(struct sa_db *db, const struct subnet *r,
		struct fabric *lft_fab, const struct lft_set *lft,
		uint64_t subnet_prefix)
{
	const struct fabric *f = &r->fab;
	uint32_t builds = db->builds + 1, n_ep;
	uint32_t *eps;

	sa_db_free(db);
	db->builds = builds;
	db->subnet_prefix = subnet_prefix;
	n_ep = fab_endpoint_ports(f, NULL);
	eps = malloc((n_ep + 1) * sizeof(*eps));
	db->max_lid = fab_max_lid(f);
	db->port_of_lid = malloc((db->max_lid + 1) * sizeof(uint32_t));
	db->lft_row = malloc((f->num_nodes + 1) * sizeof(uint32_t));
	db->by_guid = malloc((n_ep + 1) * sizeof(*db->by_guid));
	db->pir = calloc((size_t)f->num_ports + 1, SA_DB_PIR_LEN);
	if (!eps || !db->port_of_lid || !db->lft_row || !db->by_guid || !db->pir) {
		free(eps);
		sa_db_free(db);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l <= db->max_lid; l++)
		db->port_of_lid[l] = FAB_NONE;
	fab_endpoint_ports(f, eps);
	for (uint32_t i = 0; i < n_ep; i++) {
		const struct fab_port *p = &f->ports[eps[i]];
		uint32_t base = p->lid, top = base + (1u << p->lmc) - 1;

		for (uint32_t l = base; base && l <= top && l <= db->max_lid; l++)
			db->port_of_lid[l] = eps[i];
		db->by_guid[db->num_guids].guid = p->guid;
		db->by_guid[db->num_guids++].port = eps[i];
	}
	free(eps);
	qsort(db->by_guid, db->num_guids, sizeof(*db->by_guid), cmp_guid);
	/* Tables are rows by switch ordinal of the fabric they were made
	 * for; match our switches to them by GUID. */
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		uint32_t m;

		db->lft_row[n] = FAB_NONE;
		if (!lft || !lft_fab || !fab_is_switch(f, n))
			continue;
		m = fab_find_node_guid(lft_fab, f->nodes[n].guid);
		if (m != FAB_NONE && fab_is_switch(lft_fab, m))
			db->lft_row[n] = lft_fab->nodes[m].sw_index;
	}
	db->r = r;
	db->lft_fab = lft_fab;
	db->lft = lft;
	build_pirs(db, r);
	return 0;
}

uint32_t sa_db_port_of_guid(const struct sa_db *db, uint64_t guid)
{
	struct sa_port_guid key = { .guid = guid }, *hit;

	if (!db->r)
		return FAB_NONE;
	hit = bsearch(&key, db->by_guid, db->num_guids, sizeof(key), cmp_guid);
	return hit ? hit->port : FAB_NONE;
}

uint8_t sa_db_lft(const struct sa_db *db, uint32_t node, uint32_t lid)
{
	if (!db->r || !db->lft || db->lft_row[node] == FAB_NONE)
		return LFT_NO_PATH;
	return lft_get(db->lft, db->lft_row[node], lid);
}
