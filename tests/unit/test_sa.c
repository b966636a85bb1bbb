/* The SA (sa/): record layouts against libibmad's own SA field table, the
 * server's statuses, and answers over a small hand-made fabric (sa_mini.h;
 * more of its records in test_sa_records.c). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "qos/qos_policy.h"
#include "qos/qos_sl_space.h"
#include "mad/gmp.h"
#include "routing/lft.h"
#include "sa/sa_handler.h"
#include "sa/sa_layout.h"
#include "sa/sa_server.h"
#include "sa/sa_sl2vl.h"
#include "tests/unit/sa_mini.h"
#include "tests/unit/support.h"

static void test_layout_sizes(void **state)
{
	const struct sa_layout *all[] = { &sa_node_rec, &sa_portinfo_rec,
		&sa_link_rec, &sa_swinfo_rec, &sa_lft_rec, &sa_guidinfo_rec,
		&sa_pkey_rec, &sa_sminfo_rec, &sa_path_rec, &sa_sl2vl_rec,
		&sa_mcmember_rec, &sa_service_rec };
	const struct sa_layout *every[] = { &sa_node_rec, &sa_portinfo_rec,
		&sa_link_rec, &sa_swinfo_rec, &sa_lft_rec, &sa_guidinfo_rec,
		&sa_pkey_rec, &sa_sminfo_rec, &sa_path_rec, &sa_sl2vl_rec,
		&sa_mcmember_rec, &sa_service_rec, &sa_mpr_rec, &sa_vlarb_rec,
		&sa_mft_rec, &sa_inform_rec, &sa_iir_rec };

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		assert_int_equal(sa_comp_offset(all[i], all[i]->num), all[i]->rec_len * 8u);
		assert_true(all[i]->num <= 64);
	}
	/* The offsets the L() macro sums at compile time are the widths'
	 * running sums. */
	for (size_t k = 0; k < sizeof(every) / sizeof(every[0]); k++) {
		unsigned sum = 0;

		for (unsigned i = 0; i <= every[k]->num; i++) {
			assert_int_equal(sa_comp_offset(every[k], i), sum);
			if (i < every[k]->num)
				sum += every[k]->width[i];
		}
	}
	/* PortInfo inside the PortInfoRecord is the 64-byte attribute. */
	assert_int_equal(sa_comp_offset(&sa_portinfo_rec, PIR_PORTINFO), 32);
}

/* The byte-wise accessors (sa_layout.c) against a bit-at-a-time model:
 * every component of every layout, values of every width, over random
 * records; and the match against a per-bit comparison. */
static unsigned ref_bit(const uint8_t *b, unsigned pos)
{
	return (b[pos / 8] >> (7 - pos % 8)) & 1;
}

static void test_accessors_vs_bits(void **state)
{
	const struct sa_layout *all[] = { &sa_node_rec, &sa_portinfo_rec,
		&sa_link_rec, &sa_swinfo_rec, &sa_lft_rec, &sa_guidinfo_rec,
		&sa_pkey_rec, &sa_sminfo_rec, &sa_path_rec, &sa_sl2vl_rec,
		&sa_mcmember_rec, &sa_service_rec, &sa_mpr_rec, &sa_vlarb_rec,
		&sa_mft_rec, &sa_inform_rec, &sa_iir_rec };
	uint8_t a[256], b[256], want[256];
	uint64_t seed = 88172645463325252ull;

	(void)state;
	for (unsigned round = 0; round < 40; round++)
	for (size_t li = 0; li < sizeof(all) / sizeof(all[0]); li++) {
		const struct sa_layout *l = all[li];

		for (unsigned i = 0; i < l->num; i++) {
			unsigned off = sa_comp_offset(l, i), w = l->width[i];
			uint64_t v, got = 0;

			for (unsigned k = 0; k < sizeof(a); k++) {
				seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
				a[k] = (uint8_t)seed;
			}
			v = seed;
			memcpy(want, a, sizeof(a));
			if (w > 64)
				w = 64;
			for (unsigned k = 0; k < w; k++) {
				uint8_t m = (uint8_t)(1u << (7 - (off + w - 1 - k) % 8));

				if (v >> k & 1)
					want[(off + w - 1 - k) / 8] |= m;
				else
					want[(off + w - 1 - k) / 8] &= (uint8_t)~m;
			}
			/* The inline accessors and the general ones alike. */
			memcpy(b, a, sizeof(b));
			sa_put_bits(l, b, i, v);
			assert_memory_equal(b, want, sizeof(b));
			sa_put(l, a, i, v);
			assert_memory_equal(a, want, sizeof(a));
			for (unsigned k = 0; k < w; k++)
				got = got << 1 | ref_bit(a, off + k);
			assert_true(sa_get(l, a, i) == got);
			assert_true(sa_get_bits(l, a, i) == got);
			/* One bit flipped inside component i: no match on i,
			 * a match on every other component. */
			memcpy(b, a, sizeof(b));
			b[(off + (unsigned)(seed % l->width[i])) / 8] ^=
				(uint8_t)(1u << (7 - (off + (unsigned)(seed % l->width[i])) % 8));
			assert_false(sa_comp_match(l, a, b, 1ull << i));
			assert_true(sa_comp_match(l, a, b, ~(1ull << i) &
				    (l->num >= 64 ? ~0ull : (1ull << l->num) - 1)));
			assert_true(sa_comp_match(l, a, b, 0));
		}
	}
}

/* Our component tables put fields where libibmad's SA fields have them. */
static void test_layout_vs_libibmad(void **state)
{
	uint8_t rec[256];

	(void)state;
	memset(rec, 0, sizeof(rec));
	sa_put(&sa_path_rec, rec, PR_DLID, 0x1234);
	sa_put(&sa_path_rec, rec, PR_SLID, 0x0042);
	sa_put(&sa_path_rec, rec, PR_SL, 5);
	sa_put(&sa_path_rec, rec, PR_NUMBPATH, 0x7f);
	assert_int_equal(mad_get_field(rec, 0, IB_SA_PR_DLID_F), 0x1234);
	assert_int_equal(mad_get_field(rec, 0, IB_SA_PR_SLID_F), 0x42);
	assert_int_equal(mad_get_field(rec, 0, IB_SA_PR_SL_F), 5);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 5);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_NUMBPATH), 0x7f);

	memset(rec, 0, sizeof(rec));
	sa_put(&sa_node_rec, rec, NR_LID, 77);
	sa_put(&sa_node_rec, rec, NR_NODEGUID, 0x0102030405060708ull);
	sa_put(&sa_node_rec, rec, NR_PORTGUID, 0x1112131415161718ull);
	assert_int_equal(mad_get_field(rec, 0, IB_SA_NR_LID_F), 77);
	assert_int_equal(mad_get_field64(rec, 0, IB_SA_NR_GUID_F), 0x0102030405060708ull);
	assert_int_equal(mad_get_field64(rec, 0, IB_SA_NR_PORT_GUID_F), 0x1112131415161718ull);

	memset(rec, 0, sizeof(rec));
	sa_put(&sa_guidinfo_rec, rec, GIR_LID, 9);
	sa_put(&sa_guidinfo_rec, rec, GIR_GUID0, 0xabcdull);
	assert_int_equal(mad_get_field(rec, 0, IB_SA_GIR_LID_F), 9);
	assert_int_equal(mad_get_field64(rec, 0, IB_SA_GIR_GUID0_F), 0xabcdull);

	/* ServiceRecord: ID, P_Key, lease and name where libibmad puts them. */
	memset(rec, 0, sizeof(rec));
	sa_put(&sa_service_rec, rec, SR_ID, 0x1122334455667788ull);
	sa_put(&sa_service_rec, rec, SR_PKEY, 0xffff);
	sa_put(&sa_service_rec, rec, SR_LEASE, 600);
	memcpy(rec + sa_comp_offset(&sa_service_rec, SR_NAME) / 8, "svc", 4);
	{
		char name[64];

		assert_int_equal(mad_get_field64(rec, 0, IB_SA_SR_ID_F), 0x1122334455667788ull);
		assert_int_equal(mad_get_field(rec, 0, IB_SA_SR_PKEY_F), 0xffff);
		assert_int_equal(mad_get_field(rec, 0, IB_SA_SR_LEASE_F), 600);
		mad_get_array(rec, 0, IB_SA_SR_NAME_F, name);
		assert_string_equal(name, "svc");
	}
}

static void test_comp_match(void **state)
{
	uint8_t a[64] = { 0 }, b[64] = { 0 };

	(void)state;
	sa_put(&sa_path_rec, a, PR_SL, 3);
	sa_put(&sa_path_rec, b, PR_SL, 4);
	sa_put(&sa_path_rec, a, PR_DLID, 7);
	sa_put(&sa_path_rec, b, PR_DLID, 7);
	assert_true(sa_comp_match(&sa_path_rec, a, b, 1ull << PR_DLID));
	assert_false(sa_comp_match(&sa_path_rec, a, b, 1ull << PR_SL));
	assert_true(sa_comp_match(&sa_path_rec, a, b, 0));
}

static void test_statuses(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];

	(void)state;
	mini_build(&m);
	mini_req_init(req, 0x01, 0x0011, 1);             /* NodeRecord Get, LID 9 */
	sa_put(&sa_node_rec, req + GMP_SA_DATA_OFFS, NR_LID, 9);
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
	assert_int_equal(mad_get_field64(out, 0, IB_MAD_TRID_F), 0x77);
	assert_int_equal(mad_get_field(out, 0, IB_MAD_METHOD_F), 0x01); /* GetResp = */
	assert_int_equal(mad_get_field(out, 0, IB_MAD_RESPONSE_F), 1);  /* 0x81 */

	mini_req_init(req, 0x01, 0x0011, 0);             /* Get of 3 records */
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_TOO_MANY_RECORDS);

	mini_req_init(req, 0x01, 0x0999, 0);             /* no such attribute: */
	mini_answer(&m.s, req, 2, out, 4);     /* IBA 13.4.7 */
	assert_int_equal(mini_status_of(out), GMP_STATUS_METHOD_ATTR_UNSUPP);

	mini_req_init(req, 0x01, 0x0011, 0);
	mad_set_field(req, 0, IB_MAD_CLASSVER_F, 1);  /* wrong class version */
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), GMP_STATUS_BAD_CLASS);

	mini_req_init(req, 0x07, 0x0011, 0);             /* not an SA method */
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), GMP_STATUS_METHOD_UNSUPP);

	mini_req_init(req, 0x02, 0x0011, 0);             /* Set of a NodeRecord */
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), GMP_STATUS_METHOD_ATTR_UNSUPP);

	mini_req_init(req, 0x01, 0x0035, 0);             /* PathRecord: no ends */
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_REQ_INSUFFICIENT_COMPONENTS);
	assert_true(m.s.st.errors >= 7);
	mini_free(&m);
}

/* ServiceRecord Set from the port at slid with ServiceID id; the status. */
static unsigned sr_set_from(struct mini *m, uint16_t slid, uint64_t id)
{
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE], gid[16] = { 0xfe, 0x80 };

	mini_req_init(req, 0x02, 0x0031, 1ull << SR_ID | 1ull << SR_GID);
	gid[15] = (uint8_t)slid;
	sa_put(&sa_service_rec, req + GMP_SA_DATA_OFFS, SR_ID, id);
	sa_put_bytes(&sa_service_rec, req + GMP_SA_DATA_OFFS, SR_GID, gid);
	assert_int_equal(mini_answer(&m->s, req, slid, out, 4), 1);
	return mini_status_of(out);
}

static bool only_0x301(void *arg, uint64_t guid)
{
	(void)arg;
	return guid == 0x301;
}

/* Issue 26 finding 4: a port gets its quota of ServiceRecords and no more
 * (renewals free), another port still registers, each record is its
 * registering port's and goes with it. */
static void test_service_quota(void **state)
{
	struct mini m;
	struct sa_service_db *db;

	(void)state;
	mini_build(&m);
	db = &m.s.ctx.services;
	m.s.ctx.quota.max[SA_QUOTA_SERVICES] = 2;
	assert_int_equal(sr_set_from(&m, 2, 1), 0);
	assert_int_equal(sr_set_from(&m, 2, 2), 0);
	assert_int_equal(sr_set_from(&m, 2, 3), SA_STATUS_NO_RESOURCES);
	assert_int_equal(sr_set_from(&m, 2, 1), 0);         /* renewal */
	assert_int_equal(sr_set_from(&m, 3, 9), 0);         /* another port */
	assert_int_equal(m.s.ctx.quota.refused[SA_QUOTA_SERVICES], 1);
	assert_int_equal(db->n, 3);
	assert_int_equal(sa_service_count_owned(db, 0x201), 2);
	assert_int_equal(sa_service_count_owned(db, 0x301), 1);
	/* port 0x201 leaves: its two go */
	assert_int_equal(sa_service_drop_orphans(db, only_0x301, NULL), 2);
	assert_int_equal(db->n, 1);
	assert_int_equal(sr_set_from(&m, 3, 10), 0);
	assert_int_equal(sr_set_from(&m, 3, 11), SA_STATUS_NO_RESOURCES);
	m.s.ctx.quota.max[SA_QUOTA_SERVICES] = 0;          /* no limit */
	assert_int_equal(sr_set_from(&m, 3, 11), 0);
	mini_free(&m);
}

static void test_node_table_rmpp(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE], ack[GMP_SIZE];
	struct rmpp_hdr h;
	struct cap c = { .n = 0 };

	(void)state;
	mini_build(&m);
	mini_req_init(req, 0x12, 0x0011, 0);             /* GetTable: 3 x 112 bytes */
	/* Without kernel RMPP: the first segment only, until an ACK. */
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(mad_get_field(out, 0, IB_SA_ATTROFFS_F), 112 / 8);
	rmpp_get(out, &h);
	assert_int_equal(h.type, RMPP_TYPE_DATA);
	assert_int_equal(h.flags, RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST);
	assert_int_equal(h.seg_num, 1);
	assert_int_equal(h.len_or_window, 336 + 2 * 20);
	/* The first record: the switch (node order), LID 1. */
	assert_int_equal(mad_get_field(out + GMP_SA_DATA_OFFS, 0, IB_SA_NR_LID_F), 1);

	/* The client ACKs segment 1 and opens the window to 2. */
	memcpy(ack, out, GMP_SIZE);
	rmpp_set(ack, &(struct rmpp_hdr){ .version = 1, .type = RMPP_TYPE_ACK,
		 .flags = RMPP_FLAG_ACTIVE, .seg_num = 1, .len_or_window = 2 });
	m.s.send = mini_capture;
	m.s.send_arg = &c;
	sa_server_handle(&m.s, ack, 2, 1);
	assert_int_equal(c.n, 1);
	rmpp_get(c.mad[0], &h);
	assert_int_equal(h.flags, RMPP_FLAG_ACTIVE | RMPP_FLAG_LAST);
	assert_int_equal(h.seg_num, 2);
	assert_int_equal(h.len_or_window, 136 + 20);
	assert_int_equal(c.len[0], GMP_SA_DATA_OFFS + 136);
	/* An ACK from another LID, or a repeated one, sends nothing. */
	sa_server_handle(&m.s, ack, 3, 1);
	assert_int_equal(c.n, 1);
	/* The last ACK ends the transfer. */
	rmpp_set(ack, &(struct rmpp_hdr){ .version = 1, .type = RMPP_TYPE_ACK,
		 .flags = RMPP_FLAG_ACTIVE, .seg_num = 2, .len_or_window = 2 });
	sa_server_handle(&m.s, ack, 2, 1);
	assert_int_equal(m.s.st.rmpp_transfers, 1);

	/* By PortGUID: exactly CA b's port. */
	mini_req_init(req, 0x01, 0x0011, 1ull << NR_PORTGUID);
	sa_put(&sa_node_rec, req + GMP_SA_DATA_OFFS, NR_PORTGUID, 0x301);
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(mad_get_field(out + GMP_SA_DATA_OFFS, 0, IB_SA_NR_LID_F), 3);
	mini_free(&m);
}

/* A GetMulti(MultiPathRecord) of 14 GIDs (24 + 224 bytes: two RMPP
 * segments), sent as a client would under ibsim: segment 1 is ACKed with
 * the window, the LAST is ACKed and the request answered, with one path
 * per source x destination pair; then the same with a bad LAST. */
static void mpr_segment(uint8_t *mad, const uint8_t *stream, size_t len,
			unsigned s, uint64_t tid)
{
	struct rmpp_hdr h = { .version = 1, .type = RMPP_TYPE_DATA,
			      .flags = RMPP_FLAG_ACTIVE, .seg_num = s };
	size_t off = (s - 1) * 200u, n = len - off < 200 ? len - off : 200;

	mini_req_init(mad, 0x14, 0x003A, (1ull << MPR_SGIDCOUNT) | (1ull << MPR_DGIDCOUNT));
	mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
	if (s == 1) {
		h.flags |= RMPP_FLAG_FIRST;
		h.len_or_window = (uint32_t)(len + 2 * 20);
	} else {
		h.flags |= RMPP_FLAG_LAST;
		h.len_or_window = (uint32_t)(n + 20);
	}
	rmpp_set(mad, &h);
	memcpy(mad + GMP_SA_DATA_OFFS, stream + off, n);
}

static void test_multipath_multi_mad(void **state)
{
	struct mini m;
	uint8_t stream[24 + 14 * 16] = { 0 }, mad[GMP_SIZE];
	struct cap c = { .n = 0 };
	struct rmpp_hdr h;

	(void)state;
	mini_build(&m);
	sa_put(&sa_mpr_rec, stream, MPR_SGIDCOUNT, 7);
	sa_put(&sa_mpr_rec, stream, MPR_DGIDCOUNT, 7);
	for (unsigned i = 0; i < 14; i++) {
		uint8_t *g = stream + 24 + 16 * i;

		g[0] = 0xfe;
		g[1] = 0x80;
		g[14] = i < 7 ? 0x02 : 0x03;    /* CA a's port to CA b's */
		g[15] = 0x01;
	}
	m.s.send = mini_capture;
	m.s.send_arg = &c;
	mpr_segment(mad, stream, sizeof(stream), 1, 0x99);
	sa_server_handle(&m.s, mad, 2, 1);
	assert_int_equal(c.n, 1);
	rmpp_get(c.mad[0], &h);
	assert_int_equal(h.type, RMPP_TYPE_ACK);
	assert_int_equal(h.seg_num, 1);
	assert_true(h.len_or_window >= 2);
	assert_int_equal(mad_get_field(c.mad[0], 0, IB_MAD_RESPONSE_F), 1);
	mpr_segment(mad, stream, sizeof(stream), 2, 0x99);
	sa_server_handle(&m.s, mad, 2, 1);
	assert_int_equal(c.n, 3);               /* final ACK, then the answer */
	rmpp_get(c.mad[1], &h);
	assert_int_equal(h.type, RMPP_TYPE_ACK);
	assert_int_equal(h.seg_num, 2);
	assert_int_equal(mini_status_of(c.mad[2]), 0);
	assert_int_equal(mad_get_field(c.mad[2], 0, IB_MAD_METHOD_F), 0x14); /* GetMultiResp */
	assert_int_equal(mad_get_field(c.mad[2], 0, IB_MAD_ATTRID_F), 0x0035);
	rmpp_get(c.mad[2], &h);
	assert_int_equal(h.type, RMPP_TYPE_DATA);
	/* 49 PathRecords of 64 bytes in 16 segments. */
	assert_int_equal(h.len_or_window, 49 * 64 + 16 * 20);
	assert_int_equal(mad_get_field(c.mad[2] + GMP_SA_DATA_OFFS, 0, IB_SA_PR_SLID_F), 2);
	assert_int_equal(mad_get_field(c.mad[2] + GMP_SA_DATA_OFFS, 0, IB_SA_PR_DLID_F), 3);
	assert_int_equal(m.s.st.rmpp_requests, 1);

	/* A LAST whose PayloadLength disagrees with the FIRST: ABORT 119. */
	c.n = 0;
	mpr_segment(mad, stream, sizeof(stream), 1, 0x9a);
	sa_server_handle(&m.s, mad, 2, 1);
	mpr_segment(mad, stream, sizeof(stream), 2, 0x9a);
	rmpp_get(mad, &h);
	h.len_or_window = 30;
	rmpp_set(mad, &h);
	sa_server_handle(&m.s, mad, 2, 1);
	assert_int_equal(c.n, 2);
	rmpp_get(c.mad[1], &h);
	assert_int_equal(h.type, RMPP_TYPE_ABORT);
	assert_int_equal(h.status, RMPP_ST_BAD_LEN);
	assert_int_equal(m.s.st.rmpp_requests, 1);
	mini_free(&m);
}

/* SL2VLTableRecord: tables come from the cache; unread ones make a Get
 * answer Busy and are left out of a GetTable; the port pair is matched by
 * the component mask; a CA port's record has both port numbers 0. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_sizes),
		cmocka_unit_test(test_layout_vs_libibmad),
		cmocka_unit_test(test_accessors_vs_bits),
		cmocka_unit_test(test_comp_match),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_service_quota),
		cmocka_unit_test(test_node_table_rmpp),
		cmocka_unit_test(test_multipath_multi_mad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
