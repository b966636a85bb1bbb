/* Switch records: SwitchInfoRecord (IBA 15.2.5.4) from the SwitchInfo the
 * sweep read, LinearForwardingTableRecord (15.2.5.6) from the tables as
 * programmed, one record per 64-LID block up to the switch's top LID. */
#include <string.h>
#include <infiniband/mad.h>

#include "sa_rec.h"

static int switches(const struct sa_ctx *c, const struct sa_layout *l,
		    const struct sa_query *q, unsigned lid_comp,
		    uint32_t *lo, uint32_t *hi, uint64_t *mask)
{
	uint32_t port;
	int64_t n;

	*mask = q->comp_mask;
	n = sa_query_lid_node(c, l, q, lid_comp, mask, &port);
	if (n == FAB_NONE || (n >= 0 && !fab_is_switch(sa_fab(c), (uint32_t)n)))
		return 0;
	*lo = n >= 0 ? (uint32_t)n : 0;
	*hi = n >= 0 ? (uint32_t)n + 1 : sa_fab(c)->num_nodes;
	return 1;
}

static int swir_query(struct sa_ctx *c, const struct sa_query *q,
		      struct sa_answer *a)
{
	uint32_t lo, hi;
	uint64_t mask;
	uint8_t rec[REC_MAX];

	if (!c->db.r || !switches(c, &sa_swinfo_rec, q, SWIR_LID, &lo, &hi, &mask))
		return 0;
	for (uint32_t n = lo; n < hi; n++) {
		if (!fab_is_switch(sa_fab(c), n))
			continue;
		memset(rec, 0, REC_MAX);
		sa_put(&sa_swinfo_rec, rec, SWIR_LID,
		       sa_lid_of_port(c, fab_port_idx(sa_fab(c), n, 0)));
		sa_put_bytes(&sa_swinfo_rec, rec, SWIR_SWINFO, c->db.r->sw_info[n]);
		/* The sweep read SwitchInfo before programming: show the
		 * LinearFDBTop the SM set since (sm/lft_program.c). */
		if (c->db.lft && c->db.lft_row[n] != FAB_NONE)
			mad_set_field(rec + sa_comp_offset(&sa_swinfo_rec, SWIR_SWINFO) / 8,
				      0, IB_SW_LINEAR_FDB_TOP_F, c->db.lft->max_lid);
		if (sa_offer(&sa_swinfo_rec, q, mask, rec, a) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return 0;
}

const struct sa_attr_ops sa_switchinforecord_ops = {
	.attr_id = 0x0014,
	.name = "SwitchInfoRecord",
	.rec_len = 24,
	.query = swir_query,
};

static int lftr_query(struct sa_ctx *c, const struct sa_query *q,
		      struct sa_answer *a)
{
	uint32_t lo, hi, top, b0 = 0, b1;
	uint64_t mask;
	uint8_t rec[REC_MAX];

	if (!c->db.r || !c->db.lft ||
	    !switches(c, &sa_lft_rec, q, LFTR_LID, &lo, &hi, &mask))
		return 0;
	top = c->db.max_lid;
	b1 = top / 64;
	if (mask >> LFTR_BLOCK & 1) {
		b0 = (uint32_t)sa_get(&sa_lft_rec, q->record, LFTR_BLOCK);
		if (b0 > b1)
			return 0;
		b1 = b0;
	}
	for (uint32_t n = lo; n < hi; n++) {
		if (!fab_is_switch(sa_fab(c), n) || c->db.lft_row[n] == FAB_NONE)
			continue;
		for (uint32_t b = b0; b <= b1; b++) {
			uint8_t *t;

			memset(rec, 0, REC_MAX);
			sa_put(&sa_lft_rec, rec, LFTR_LID,
			       sa_lid_of_port(c, fab_port_idx(sa_fab(c), n, 0)));
			sa_put(&sa_lft_rec, rec, LFTR_BLOCK, b);
			t = rec + sa_comp_offset(&sa_lft_rec, LFTR_TABLE) / 8;
			for (uint32_t i = 0; i < 64; i++)
				t[i] = sa_db_lft(&c->db, n, b * 64 + i);
			if (sa_offer(&sa_lft_rec, q, mask, rec, a) < 0)
				return SA_STATUS_NO_RESOURCES;
		}
	}
	return 0;
}

const struct sa_attr_ops sa_lftrecord_ops = {
	.attr_id = 0x0015,
	.name = "LinearForwardingTableRecord",
	.rec_len = 72,
	.query = lftr_query,
};
