/* Switch records: SwitchInfoRecord (IBA 15.2.5.4) from the SwitchInfo the
 * sweep read, LinearForwardingTableRecord (15.2.5.6) from the tables as
 * programmed, one record per 64-LID block up to the switch's top LID. */
#include <string.h>
#include <infiniband/mad.h>

#include "sa_rec.h"
#include "../multicast/mft_program.h"

static int switches(const struct sa_ctx *c, const struct sa_layout *l,
		    const struct sa_query *q, unsigned lid_comp,
		    uint32_t *lo, uint32_t *hi, uint64_t *mask)
{
	struct sa_node_span s;

	*mask = q->comp_mask;
	if (!sa_query_nodes(c, l, q, lid_comp, mask, &s) ||
	    (s.by_lid && !fab_is_switch(sa_fab(c), s.lo)))
		return 0;
	*lo = s.lo;
	*hi = s.hi;
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
		 * LinearFDBTop the SM set since (sm/program/lft_program.c). */
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

/* MulticastForwardingTableRecord (15.2.5.8) from the MFTs as programmed
 * (multicast/mft_program.c holds them by switch GUID). As OpenSM: only
 * switches with a group on them, blocks of 32 MLIDs up to the highest one
 * in use on that switch, every position of 16 ports the switch has. */
static const uint8_t (*mft_row(const struct mft_held *h, uint64_t guid))[MFT_MASK_BYTES]
{
	for (uint32_t i = 0; i < h->num_switches; i++)
		if (h->guid[i] == guid)
			return &h->mask[(size_t)i * h->num_mlids];
	return NULL;
}

static int mftr_query(struct sa_ctx *c, const struct sa_query *q,
		      struct sa_answer *a)
{
	const struct mft_held *h = c->mft;
	uint32_t lo, hi;
	uint64_t mask;
	uint8_t rec[REC_MAX];

	if (!c->db.r || !h || !h->num_mlids ||
	    !switches(c, &sa_mft_rec, q, MFTR_LID, &lo, &hi, &mask))
		return 0;
	for (uint32_t n = lo; n < hi; n++) {
		const struct fab_node *nd = &sa_fab(c)->nodes[n];
		const uint8_t (*row)[MFT_MASK_BYTES];
		int top = -1;

		if (!fab_is_switch(sa_fab(c), n) || !(row = mft_row(h, nd->guid)))
			continue;
		for (uint32_t m = 0; m < h->num_mlids; m++)
			for (unsigned k = 0; k < MFT_MASK_BYTES; k++)
				if (row[m][k])
					top = (int)m;
		if (top < 0)
			continue;
		for (uint32_t b = 0; b <= (uint32_t)top / 32; b++) {
			for (uint32_t pos = 0; pos <= nd->num_ports / 16u; pos++) {
				uint8_t *t;

				memset(rec, 0, REC_MAX);
				sa_put(&sa_mft_rec, rec, MFTR_LID,
				       sa_lid_of_port(c, fab_port_idx(sa_fab(c), n, 0)));
				sa_put(&sa_mft_rec, rec, MFTR_POSITION, pos);
				sa_put(&sa_mft_rec, rec, MFTR_BLOCK, b);
				t = rec + sa_comp_offset(&sa_mft_rec, MFTR_TABLE) / 8;
				for (uint32_t i = 0; i < 32; i++) {
					uint32_t m = b * 32 + i;
					unsigned bits = 0;

					for (unsigned j = 0; m < h->num_mlids && j < 16; j++)
						if (pos * 16 + j < 256 &&
						    mft_has_port(row[m], pos * 16 + j))
							bits |= 1u << j;
					t[2 * i] = (uint8_t)(bits >> 8);
					t[2 * i + 1] = (uint8_t)bits;
				}
				if (sa_offer(&sa_mft_rec, q, mask, rec, a) < 0)
					return SA_STATUS_NO_RESOURCES;
			}
		}
	}
	return 0;
}

const struct sa_attr_ops sa_mftrecord_ops = {
	.attr_id = 0x0017,
	.name = "MulticastForwardingTableRecord",
	.rec_len = 72,
	.query = mftr_query,
};
