/* The SA (sa/): record layouts against libibmad's own SA field table, the
 * server's statuses, and answers over a small hand-made fabric. */
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
#include "tests/unit/support.h"

static void test_layout_sizes(void **state)
{
	const struct sa_layout *all[] = { &sa_node_rec, &sa_portinfo_rec,
		&sa_link_rec, &sa_swinfo_rec, &sa_lft_rec, &sa_guidinfo_rec,
		&sa_pkey_rec, &sa_sminfo_rec, &sa_path_rec, &sa_sl2vl_rec,
		&sa_mcmember_rec, &sa_service_rec };

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		assert_int_equal(sa_comp_offset(all[i], all[i]->num), all[i]->rec_len * 8u);
		assert_true(all[i]->num <= 64);
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
			sa_put(l, a, i, v);
			assert_memory_equal(a, want, sizeof(a));
			for (unsigned k = 0; k < w; k++)
				got = got << 1 | ref_bit(a, off + k);
			assert_true(sa_get(l, a, i) == got);
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

/* --- a small fabric: switch (LID 1) with CAs on ports 1 and 2 ----------- */

struct mini {
	struct subnet r;
	struct lft_set lft;
	struct sa_server s;
};

static void mini_portinfo(uint8_t *pi, unsigned lid, unsigned port)
{
	memset(pi, 0, 64);
	mad_set_field(pi, 0, IB_PORT_LID_F, lid);
	mad_set_field(pi, 0, IB_PORT_LOCAL_PORT_F, port);
	mad_set_field(pi, 0, IB_PORT_STATE_F, 4);
	mad_set_field(pi, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);   /* 4x */
	mad_set_field(pi, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);   /* QDR */
	mad_set_field(pi, 0, IB_PORT_MTU_CAP_F, 5);             /* 4096 */
	mad_set_field(pi, 0, IB_PORT_NEIGHBOR_MTU_F, 4);        /* 2048 */
	mad_set_field64(pi, 0, IB_PORT_MKEY_F, 0x5555);
}

static void mini_build(struct mini *m)
{
	struct fabric *f = &m->r.fab;
	uint32_t sw, ca[2];

	memset(m, 0, sizeof(*m));
	subnet_init(&m->r);
	sw = fab_add_node(f, FAB_SWITCH, 4, 0x100, "sw");
	ca[0] = fab_add_node(f, FAB_CA, 1, 0x200, "ca-a");
	ca[1] = fab_add_node(f, FAB_CA, 1, 0x300, "ca-b");
	fab_link(f, fab_port_idx(f, sw, 1), fab_port_idx(f, ca[0], 1));
	fab_link(f, fab_port_idx(f, sw, 2), fab_port_idx(f, ca[1], 1));
	fab_port(f, sw, 0)->lid = 1;
	fab_port(f, sw, 0)->guid = 0x100;
	fab_port(f, ca[0], 1)->lid = 2;
	fab_port(f, ca[0], 1)->guid = 0x201;
	fab_port(f, ca[1], 1)->lid = 3;
	fab_port(f, ca[1], 1)->guid = 0x301;
	ut_subnet_arrays(&m->r);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		mad_set_field(m->r.node_info[n], 0, IB_NODE_TYPE_F, f->nodes[n].type);
		mad_set_field64(m->r.node_info[n], 0, IB_NODE_GUID_F, f->nodes[n].guid);
		for (unsigned i = 0; i <= f->nodes[n].num_ports; i++) {
			uint32_t p = fab_port_idx(f, n, i);

			if (!fab_is_switch(f, n) && i == 0)
				continue;
			mini_portinfo(m->r.port_info[p], fab_port_lid(f, p), i);
			m->r.port_info_ok[p] = 1;
		}
	}
	assert_int_equal(lft_alloc(&m->lft, 1, 3), 0);
	lft_fill_local(f, &m->lft);
	sa_server_init(&m->s, NULL);
	m->s.ctx.sm.sm_key = 1;
	m->s.ctx.packet_life_time = 0x12;
	assert_int_equal(sa_db_build(&m->s.ctx.db, &m->r, f, &m->lft,
				     0xfe80000000000000ull), 0);
}

static void mini_free(struct mini *m)
{
	sa_server_free(&m->s);
	lft_free(&m->lft);
	subnet_free(&m->r);
}

/* What the server sent, captured instead of a transport. */
struct cap {
	uint8_t mad[8][GMP_SIZE];
	size_t len[8];
	unsigned n;
};

static int capture(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
		   uint32_t dqp)
{
	struct cap *c = arg;

	(void)dlid;
	(void)dqp;
	if (c->n >= 8)
		return -1;
	memcpy(c->mad[c->n], mad, GMP_SIZE);
	c->len[c->n++] = len;
	return 0;
}

/* Hand req to the server; the first answer MAD lands in out. Returns the
 * number of MADs sent. */
static int sa_server_answer(struct sa_server *s, const uint8_t *req,
			    uint16_t slid, uint8_t *out, unsigned max)
{
	struct cap c = { .n = 0 };
	uint8_t buf[GMP_SIZE];

	s->send = capture;
	s->send_arg = &c;
	memcpy(buf, req, GMP_SIZE);
	sa_server_handle(s, buf, slid, 1);
	for (unsigned i = 0; i < c.n && i < max; i++)
		memcpy(out + (size_t)i * GMP_SIZE, c.mad[i], GMP_SIZE);
	return (int)c.n;
}

static void req_init(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask)
{
	memset(mad, 0, GMP_SIZE);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, GMP_CLASS_SA);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 2);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, method);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, 0x77);
	mad_set_field64(mad, 0, IB_SA_COMPMASK_F, mask);
}

static unsigned status_of(const uint8_t *mad)
{
	return mad_get_field((void *)(uintptr_t)mad, 0, IB_MAD_STATUS_F);
}

static void test_statuses(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];

	(void)state;
	mini_build(&m);
	req_init(req, 0x01, 0x0011, 1);             /* NodeRecord Get, LID 9 */
	sa_put(&sa_node_rec, req + GMP_SA_DATA_OFFS, NR_LID, 9);
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
	assert_int_equal(mad_get_field64(out, 0, IB_MAD_TRID_F), 0x77);
	assert_int_equal(mad_get_field(out, 0, IB_MAD_METHOD_F), 0x01); /* GetResp = */
	assert_int_equal(mad_get_field(out, 0, IB_MAD_RESPONSE_F), 1);  /* 0x81 */

	req_init(req, 0x01, 0x0011, 0);             /* Get of 3 records */
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_TOO_MANY_RECORDS);

	req_init(req, 0x01, 0x0999, 0);             /* no such attribute: */
	sa_server_answer(&m.s, req, 2, out, 4);     /* IBA 13.4.7 */
	assert_int_equal(status_of(out), GMP_STATUS_METHOD_ATTR_UNSUPP);

	req_init(req, 0x01, 0x0011, 0);
	mad_set_field(req, 0, IB_MAD_CLASSVER_F, 1);  /* wrong class version */
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), GMP_STATUS_BAD_CLASS);

	req_init(req, 0x07, 0x0011, 0);             /* not an SA method */
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), GMP_STATUS_METHOD_UNSUPP);

	req_init(req, 0x02, 0x0011, 0);             /* Set of a NodeRecord */
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), GMP_STATUS_METHOD_ATTR_UNSUPP);

	req_init(req, 0x01, 0x0035, 0);             /* PathRecord: no ends */
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_REQ_INSUFFICIENT_COMPONENTS);
	assert_true(m.s.st.errors >= 7);
	mini_free(&m);
}

/* ServiceRecord Set from the port at slid with ServiceID id; the status. */
static unsigned sr_set_from(struct mini *m, uint16_t slid, uint64_t id)
{
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE], gid[16] = { 0xfe, 0x80 };

	req_init(req, 0x02, 0x0031, 1ull << SR_ID | 1ull << SR_GID);
	gid[15] = (uint8_t)slid;
	sa_put(&sa_service_rec, req + GMP_SA_DATA_OFFS, SR_ID, id);
	sa_put_bytes(&sa_service_rec, req + GMP_SA_DATA_OFFS, SR_GID, gid);
	assert_int_equal(sa_server_answer(&m->s, req, slid, out, 4), 1);
	return status_of(out);
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
	req_init(req, 0x12, 0x0011, 0);             /* GetTable: 3 x 112 bytes */
	/* Without kernel RMPP: the first segment only, until an ACK. */
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), 0);
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
	m.s.send = capture;
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
	req_init(req, 0x01, 0x0011, 1ull << NR_PORTGUID);
	sa_put(&sa_node_rec, req + GMP_SA_DATA_OFFS, NR_PORTGUID, 0x301);
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), 0);
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

	req_init(mad, 0x14, 0x003A, (1ull << MPR_SGIDCOUNT) | (1ull << MPR_DGIDCOUNT));
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
	m.s.send = capture;
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
	assert_int_equal(status_of(c.mad[2]), 0);
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
static void test_sl2vl(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];
	const uint8_t t12[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe7 };
	const uint8_t tca[8] = { 0x10 };
	const uint8_t *rec = out + GMP_SA_DATA_OFFS;
	struct rmpp_hdr h;
	const uint64_t key = 1ull << SL2VL_LID | 1ull << SL2VL_INPORT |
			     1ull << SL2VL_OUTPORT;

	(void)state;
	mini_build(&m);
	/* Switch: out 1 or 2 (linked) x in 0, 1, 2, and port 0 to itself
	 * (osmtest -f q asks for it); each CA port: one. */
	assert_int_equal(sa_sl2vl_sweep(&m.s.ctx.sl2vl, &m.r), 0);
	assert_int_equal(m.s.ctx.sl2vl.wanted, 9);
	req_init(req, 0x01, 0x0013, key);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_LID, 1);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_INPORT, 1);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_OUTPORT, 2);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_BUSY);
	assert_int_equal(m.s.ctx.sl2vl.want_len, 1);    /* asked first */
	/* ... and the switch's other tables on demand, no other node's
	 * (issue 25: no background read of every table). */
	{
		uint32_t pos;

		assert_non_null(sa_sl2vl_find(&m.s.ctx.sl2vl, 0x100, &pos));
		assert_int_equal(m.s.ctx.sl2vl.nodes[pos].asked, 1);
		assert_non_null(sa_sl2vl_find(&m.s.ctx.sl2vl, 0x200, &pos));
		assert_int_equal(m.s.ctx.sl2vl.nodes[pos].asked, 0);
	}
	sa_sl2vl_store(&m.s.ctx.sl2vl, 0x100, 1, 2, t12, SL2VL_READ);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_LID), 1);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_INPORT), 1);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_OUTPORT), 2);
	assert_memory_equal(rec + 8, t12, 8);
	/* Port 3 is down: no table there at all (no record, not Busy). */
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_OUTPORT, 3);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
	/* GetTable of everything: the two tables known, the rest left out. */
	sa_sl2vl_store(&m.s.ctx.sl2vl, 0x300, 0, 1, tca, SL2VL_SET);
	req_init(req, 0x12, 0x0013, 0);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	rmpp_get(out, &h);
	assert_int_equal(h.len_or_window, 2 * 16 + 20);
	/* A GetTable of one switch with tables not read: Busy until read. */
	req_init(req, 0x12, 0x0013, 1ull << SL2VL_LID);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_LID, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_BUSY);
	/* By LID: CA b's record, ports 0/0, its table. */
	req_init(req, 0x01, 0x0013, 1ull << SL2VL_LID);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_LID, 3);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_LID), 3);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_OUTPORT), 0);
	assert_memory_equal(rec + 8, tca, 8);
	/* A link that now leads elsewhere loses its tables; the rest stay. */
	m.r.fab.ports[fab_port_idx(&m.r.fab, 0, 2)].peer = FAB_NONE;
	assert_int_equal(sa_sl2vl_sweep(&m.s.ctx.sl2vl, &m.r), 1);
	assert_int_equal(m.s.ctx.sl2vl.known, 1);       /* CA b's, by GUID */
	mini_free(&m);
}

/* VLArbitrationTableRecord (IBA 15.2.5.9): blocks come from the VLArb
 * cache, read or written; blocks wholly past the port's VLArb cap are
 * known zeros without a read; unread ones make a Get answer Busy; a CA is
 * named by its LID whatever OutputPortNum says (osmtest asks port 0). */
static void test_vlarb(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE], blk[64], zero[64] = { 0 };
	const uint8_t *rec = out + GMP_SA_DATA_OFFS;
	struct sa_sl2vl_cache *t = &m.s.ctx.vlarb;
	struct rmpp_hdr h;
	const uint64_t key = 1ull << VLA_LID | 1ull << VLA_PORT | 1ull << VLA_BLOCK;

	(void)state;
	mini_build(&m);
	for (uint32_t p = 0; p < m.r.fab.num_ports; p++) {
		mad_set_field(m.r.port_info[p], 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, 8);
		mad_set_field(m.r.port_info[p], 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 8);
	}
	/* Switch port 1 has 40 low-priority entries: its block 2 is real. */
	mad_set_field(m.r.port_info[fab_port_idx(&m.r.fab, 0, 1)], 0,
		      IB_PORT_VL_ARBITRATION_LOW_CAP_F, 40);
	for (unsigned i = 0; i < 64; i++)
		blk[i] = (uint8_t)(i % 2 ? 32 + i : i / 2 % 8);
	assert_int_equal(sa_sl2vl_sweep(t, &m.r), 0);
	/* Switch ports 0, 1, 2: blocks 1, 3 (+ 2 on port 1); CAs: 1, 3. */
	assert_int_equal(t->wanted, 11);
	assert_int_equal(t->known, 9);                  /* blocks past the cap */

	req_init(req, 0x01, 0x0036, key);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_LID, 2);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 0);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_BUSY);
	assert_int_equal(t->want_len, 1);
	sa_vlarb_store(t, 0x200, 1, 1, blk, SL2VL_READ);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(mad_get_field(out, 0, IB_SA_ATTROFFS_F), 72 / 8);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_LID), 2);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_PORT), 1);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_BLOCK), 1);
	assert_memory_equal(rec + 8, blk, 64);
	/* Past the cap: zeros, no read; a CA's port number does not narrow. */
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 5);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 4);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_PORT), 1);
	assert_memory_equal(rec + 8, zero, 64);
	/* Switch: port 3 is down (no record), port 0 is kept, port 1's
	 * block 2 must be read, and what the SM wrote is answered. */
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_LID, 1);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 3);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 0);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 2);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_BUSY);
	sa_vlarb_store(t, 0x100, 2, 1, blk, SL2VL_SET);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 2);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_memory_equal(rec + 8, blk, 64);
	/* GetTable of every block 2: the four known, switch port 1's left
	 * out (a whole-fabric table is answered from what is known). */
	req_init(req, 0x12, 0x0036, 1ull << VLA_BLOCK);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 2);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	rmpp_get(out, &h);
	assert_int_equal(h.len_or_window, 4 * 72 + 2 * 20);    /* 2 segments */
	/* A link gone drops its port's blocks: the one written, the two
	 * past the cap. */
	m.r.fab.ports[fab_port_idx(&m.r.fab, 0, 2)].peer = FAB_NONE;
	assert_int_equal(sa_sl2vl_sweep(t, &m.r), 3);
	assert_int_equal(t->known, 8);
	mini_free(&m);
}

static void test_path(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];
	const uint8_t *rec = out + GMP_SA_DATA_OFFS;

	(void)state;
	mini_build(&m);
	req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_SLID, 2);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_DLID, 3);
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SLID), 2);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_DLID), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 4);     /* NeighborMTU */
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_RATE), 7);    /* 4x QDR = 40 */
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_PKEY), 0xffff);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_PLT), 0x12);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_REVERSIBLE), 1);

	/* MTU exactly 4096: more than the path has -> no record. */
	req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID) |
		 (1ull << PR_MTUSEL) | (1ull << PR_MTU));
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_SLID, 2);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_DLID, 3);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTUSEL, 2);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTU, 5);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
	/* Less than 2048: 1024. */
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTUSEL, 1);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTU, 4);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 3);

	/* A GID of another subnet. */
	req_init(req, 0x01, 0x0035, (1ull << PR_SGID) | (1ull << PR_DLID));
	memset(req + GMP_SA_DATA_OFFS + 24, 0x11, 16);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_DLID, 3);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_REQ_INVALID_GID);

	/* GetTable from LID 2: to every endpoint LID (1, 2, 3). */
	req_init(req, 0x12, 0x0035, 1ull << PR_SLID);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_SLID, 2);
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(mad_get_field(out, 0, IB_SA_RMPP_LEN_F), 3 * 64 + 20);
	mini_free(&m);
}

static uint8_t layer_sl(void *arg, uint16_t slid, uint16_t dlid)
{
	(void)arg;
	(void)slid;
	(void)dlid;
	return 2;
}

/* SL, QoSClass, TClass, FlowLabel fixed by the client (rdma_cm's ToS):
 * answered as OpenSM does with QoS off (issue 25). */
static void test_path_qos_fields(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];
	uint8_t *r = req + GMP_SA_DATA_OFFS;
	const uint8_t *rec = out + GMP_SA_DATA_OFFS;
	uint8_t sl2vl[8] = { 0x01, 0x23, 0x45, 0x67, 0x01, 0x23, 0x45, 0x6f };

	(void)state;
	mini_build(&m);
	req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID) |
		 (1ull << PR_SL) | (1ull << PR_QOS) | (1ull << PR_TCLASS) |
		 (1ull << PR_FLOWLABEL));
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 3);
	sa_put(&sa_path_rec, r, PR_SL, 3);
	sa_put(&sa_path_rec, r, PR_QOS, 0x2a);
	sa_put(&sa_path_rec, r, PR_TCLASS, 0x60);
	sa_put(&sa_path_rec, r, PR_FLOWLABEL, 0x12345);
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_QOS), 0x2a);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_TCLASS), 0x60);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_FLOWLABEL), 0x12345);

	/* The source maps SL 15 to VL 15: no path on it. */
	assert_true(sa_sl2vl_sweep(&m.s.ctx.sl2vl, &m.r) >= 0);
	sa_sl2vl_store(&m.s.ctx.sl2vl, 0x200, 0, 1, sl2vl, SL2VL_READ);
	sa_put(&sa_path_rec, r, PR_SL, 15);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
	sa_put(&sa_path_rec, r, PR_SL, 14);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 14);

	/* An engine with SL layers (dfsp) fixes the SL: another one asked
	 * for gets no record, the layer's does. */
	m.s.ctx.path_sl = layer_sl;
	sa_put(&sa_path_rec, r, PR_SL, 3);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
	sa_put(&sa_path_rec, r, PR_SL, 2);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 2);
	m.s.ctx.path_sl = NULL;

	/* A switch's port 0 caps MTU and rate of paths to its LID. */
	mad_set_field(m.r.port_info[0], 0, IB_PORT_MTU_CAP_F, 3);
	mad_set_field(m.r.port_info[0], 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 1);
	mad_set_field(m.r.port_info[0], 0, IB_PORT_LINK_SPEED_ACTIVE_F, 1);
	req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_RATE), 2);    /* 1x SDR */
	mini_free(&m);
}

/* A QoS policy (issue 28, docs/qos.md): the request's level gives the SL
 * and caps MTU, rate and lifetime; another SL asked gets no record; a
 * MultiPathRecord's ServiceID matches as a PathRecord's. */
static void test_path_qos_policy(void **state)
{
	static const char policy[] =
		"qos-levels\n"
		" qos-level\n name: DEFAULT\n sl: 0\n end-qos-level\n"
		" qos-level\n name: Slow\n sl: 5\n mtu-limit: 3\n rate-limit: 3\n packet-life: 9\n end-qos-level\n"
		" qos-level\n name: Class\n sl: 6\n end-qos-level\n"
		"end-qos-levels\n"
		"qos-match-rules\n"
		" qos-match-rule\n qos-class: 7\n qos-level-name: Class\n end-qos-match-rule\n"
		" qos-match-rule\n service-id: 0x100000002000\n qos-level-name: Slow\n end-qos-match-rule\n"
		"end-qos-match-rules\n"
		"qos-ulps\n default : 0\n any, service-id 0x1000-0x1fff : 1\nend-qos-ulps\n";
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];
	uint8_t *r = req + GMP_SA_DATA_OFFS;
	const uint8_t *rec = out + GMP_SA_DATA_OFFS;
	char err[256];
	struct qos_policy *p = qos_policy_parse("t.conf", policy, err, sizeof(err));
	uint64_t pr_sid = (1ull << PR_SERVICEID0) | (1ull << (PR_SERVICEID0 + 1));

	(void)state;
	if (!p)
		fail_msg("%s", err);
	mini_build(&m);
	m.s.ctx.qos = p;
	/* No component: DEFAULT, the path's own MTU, rate and lifetime. */
	req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 3);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 4);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_RATE), 7);
	/* ServiceID 0x100000002000 (both halves): level Slow. */
	req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID) | pr_sid);
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 3);
	sa_put(&sa_path_rec, r, PR_SERVICEID0, 0x1000);
	sa_put(&sa_path_rec, r, PR_SERVICEID0 + 1, 0x2000);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 5);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_RATE), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_PLT), 9);
	/* The low half alone is 0x1000..0x1fff: SL 1. */
	sa_put(&sa_path_rec, r, PR_SERVICEID0, 0);
	sa_put(&sa_path_rec, r, PR_SERVICEID0 + 1, 0x1234);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 1);
	/* Asking the policy's SL is fine, another one gets no record. */
	mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << PR_SLID) | (1ull << PR_DLID) |
			pr_sid | (1ull << PR_SL));
	sa_put(&sa_path_rec, r, PR_SL, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 1);
	sa_put(&sa_path_rec, r, PR_SL, 3);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
	/* Match rules before ULPs: QoS class 7 wins over the service ID. */
	mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << PR_SLID) | (1ull << PR_DLID) |
			pr_sid | (1ull << PR_QOS));
	sa_put(&sa_path_rec, r, PR_QOS, 7);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 6);

	/* With dfsp layers (qos/qos_sl_space.h): class base + the path's
	 * layer (layer_sl: 2). Classes 0, 1, 5, 6 x 3 layers are rebased to
	 * 0, 3, 6, 9: ServiceID 0x1234 (class SL 1) answers 3 + 2; asking
	 * the policy's SL 1 gets no record, asking 5 does. */
	{
		struct qos_sl_space sp;
		uint8_t cls[QOS_SL_NUM];
		unsigned nc = qos_sl_classes(p, cls);

		assert_int_equal(nc, 4);
		assert_int_equal(qos_sl_space_plan(cls, nc, 3, 15, 0, &sp), QOS_SL_FIT);
		assert_true(sp.rebased);
		m.s.ctx.path_sl = layer_sl;
		m.s.ctx.sl_space = &sp;
		mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << PR_SLID) |
				(1ull << PR_DLID) | pr_sid);
		sa_put(&sa_path_rec, r, PR_SERVICEID0, 0);
		sa_put(&sa_path_rec, r, PR_SERVICEID0 + 1, 0x1234);
		sa_server_answer(&m.s, req, 2, out, 4);
		assert_int_equal(status_of(out), 0);
		assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 5);
		mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << PR_SLID) |
				(1ull << PR_DLID) | pr_sid | (1ull << PR_SL));
		sa_put(&sa_path_rec, r, PR_SL, 1);
		sa_server_answer(&m.s, req, 2, out, 4);
		assert_int_equal(status_of(out), SA_STATUS_NO_RECORDS);
		sa_put(&sa_path_rec, r, PR_SL, 5);
		sa_server_answer(&m.s, req, 2, out, 4);
		assert_int_equal(status_of(out), 0);
		/* No component: DEFAULT's class (SL 0) + layer 2. */
		req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
		sa_put(&sa_path_rec, r, PR_SLID, 2);
		sa_put(&sa_path_rec, r, PR_DLID, 3);
		sa_server_answer(&m.s, req, 2, out, 4);
		assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 2);
		m.s.ctx.path_sl = NULL;
		m.s.ctx.sl_space = NULL;
	}

	/* MultiPathRecord: CA a -> CA b with ServiceID 0x100000002000. */
	req_init(req, 0x14, 0x003A, (1ull << MPR_SGIDCOUNT) | (1ull << MPR_DGIDCOUNT) |
		 (1ull << MPR_SID_MSB) | (1ull << MPR_SID_LSB));
	sa_put(&sa_mpr_rec, r, MPR_SGIDCOUNT, 1);
	sa_put(&sa_mpr_rec, r, MPR_DGIDCOUNT, 1);
	sa_put(&sa_mpr_rec, r, MPR_SID_MSB, 0);
	sa_put(&sa_mpr_rec, r, MPR_SID_LSB, 0x100000002000ull);
	for (unsigned i = 0; i < 2; i++) {
		uint8_t *g = r + 24 + 16 * i;

		g[0] = 0xfe;
		g[1] = 0x80;
		g[14] = i ? 0x03 : 0x02;
		g[15] = 0x01;
	}
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SLID), 2);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 5);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 3);
	/* Without the ServiceID: DEFAULT. */
	mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << MPR_SGIDCOUNT) | (1ull << MPR_DGIDCOUNT));
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 0);
	m.s.ctx.qos = NULL;
	qos_policy_free(p);
	mini_free(&m);
}

/* ClassPortInfo claims PortInfoCapMaskMatch, and a CapabilityMask
 * component then matches bitwise: saquery -s finds the SM (issue 25). */
static void test_capmask_match(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];
	uint8_t *pi = req + GMP_SA_DATA_OFFS + 4;
	const uint8_t *cpi = out + GMP_SA_DATA_OFFS;

	(void)state;
	mini_build(&m);
	req_init(req, 0x01, 0x0001, 0);
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), 0);
	assert_true(mad_get_field((void *)(uintptr_t)cpi, 0, IB_CPI_CAPMASK_F) & (1u << 13));
	assert_true(mad_get_field((void *)(uintptr_t)cpi, 0, IB_CPI_CAPMASK2_F) & (1u << 10));

	/* The components sit where libibmad has the PortInfo fields. */
	memset(req, 0, sizeof(req));
	mad_set_field(pi, 0, IB_PORT_CAPMASK2_F, 0xbeef);
	assert_int_equal(sa_get(&sa_portinfo_rec, req + GMP_SA_DATA_OFFS, PIR_CAPMASK2), 0xbeef);
	mad_set_field(pi, 0, IB_PORT_CAPMASK_F, 0x12345678);
	assert_int_equal(sa_get(&sa_portinfo_rec, req + GMP_SA_DATA_OFFS, PIR_CAPMASK), 0x12345678);

	/* CA port LID 2 is an SM (IsSM, bit 1) with more bits; LID 3 not. */
	for (uint32_t p = 0; p < m.r.fab.num_ports; p++)
		mad_set_field(m.r.port_info[p], 0, IB_PORT_CAPMASK_F, 0x10048);
	mad_set_field(m.r.port_info[fab_port_idx(&m.r.fab, 1, 1)], 0,
		      IB_PORT_CAPMASK_F, 0x5004a);
	mad_set_field(m.r.port_info[fab_port_idx(&m.r.fab, 1, 1)], 0,
		      IB_PORT_CAPMASK2_F, 0x30);
	req_init(req, 0x12, 0x0012, 1ull << PIR_CAPMASK);
	mad_set_field(pi, 0, IB_PORT_CAPMASK_F, 0x2);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(status_of(out), 0);
	assert_int_equal(mad_get_field(out, 0, IB_SA_RMPP_LEN_F), 1 * 72 + 20);
	assert_int_equal(sa_get(&sa_portinfo_rec, out + GMP_SA_DATA_OFFS, PIR_LID), 2);
	/* CapabilityMask2 the same way; 0x40 is on no port. */
	req_init(req, 0x12, 0x0012, 1ull << PIR_CAPMASK2);
	mad_set_field(pi, 0, IB_PORT_CAPMASK2_F, 0x10);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field(out, 0, IB_SA_RMPP_LEN_F), 1 * 72 + 20);
	mad_set_field(pi, 0, IB_PORT_CAPMASK2_F, 0x40);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field(out, 0, IB_SA_RMPP_LEN_F), 20);
	mini_free(&m);
}

static void test_portinfo_mkey_hidden(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];
	const uint8_t *pi;

	(void)state;
	mini_build(&m);
	req_init(req, 0x01, 0x0012, (1ull << PIR_LID) | (1ull << PIR_PORTNUM));
	sa_put(&sa_portinfo_rec, req + GMP_SA_DATA_OFFS, PIR_LID, 2);
	sa_put(&sa_portinfo_rec, req + GMP_SA_DATA_OFFS, PIR_PORTNUM, 1);
	assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(status_of(out), 0);
	pi = out + GMP_SA_DATA_OFFS + 4;
	assert_int_equal(mad_get_field((void *)(uintptr_t)pi, 0, IB_PORT_LID_F), 2);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0);
	/* SM_Key 1, the default everyone knows: trusted, still no M_Key
	 * (issue 26; OpenSM shows it). */
	mad_set_field64(req, 0, IB_SA_MKEY_F, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0);
	/* a key of the operator's own: shown to who carries it */
	m.s.ctx.sm.sm_key = 0x5eed;
	mad_set_field64(req, 0, IB_SA_MKEY_F, 0x5eed);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0x5555);
	mad_set_field64(req, 0, IB_SA_MKEY_F, 1);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0);
	m.s.ctx.sm.sm_key = 1;

	/* LinkRecords: two links, both directions. */
	req_init(req, 0x12, 0x0020, 0);
	sa_server_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field(out, 0, IB_SA_RMPP_LEN_F), 4 * 8 + 20);
	mini_free(&m);
}

/* The RMPP memory budget (issue 26): table answers kept for their
 * readers within a per-requester and a total budget, the oldest evicted
 * (of the requester first), an answer over the per-requester budget
 * refused with ERR_NO_RESOURCES. NodeRecord GetTable: 3 x 112 = 336. */
static void test_rmpp_budget(void **state)
{
	struct mini m;
	uint8_t req[GMP_SIZE], out[4 * GMP_SIZE];

	(void)state;
	mini_build(&m);
	m.s.rmpp_per_requester = 700;   /* two answers of one requester */
	m.s.rmpp_budget = 1000;         /* two in all */
	req_init(req, 0x12, 0x0011, 0);
	for (unsigned i = 0; i < 3; i++) {
		mad_set_field64(req, 0, IB_MAD_TRID_F, 0x100 + i);
		assert_int_equal(sa_server_answer(&m.s, req, 2, out, 4), 1);
		assert_int_equal(status_of(out), 0);
	}
	/* The third evicted LID 2's first. */
	assert_int_equal(sa_server_kept_bytes(&m.s), 672);
	assert_int_equal(m.s.st.rmpp_budget_dropped, 1);
	for (unsigned i = 0; i < SA_MAX_XFERS; i++)
		if (m.s.xfer[i].busy)
			assert_true((uint32_t)m.s.xfer[i].tid != 0x100);
	/* Another requester: over the total, the oldest of all goes. */
	mad_set_field64(req, 0, IB_MAD_TRID_F, 0x200);
	assert_int_equal(sa_server_answer(&m.s, req, 3, out, 4), 1);
	assert_int_equal(sa_server_kept_bytes(&m.s), 672);
	assert_int_equal(m.s.st.rmpp_budget_dropped, 2);
	for (unsigned i = 0; i < SA_MAX_XFERS; i++)
		if (m.s.xfer[i].busy)
			assert_true((uint32_t)m.s.xfer[i].tid == 0x102 ||
				    (uint32_t)m.s.xfer[i].tid == 0x200);
	/* An answer no requester may hold: refused before it is built. */
	m.s.rmpp_per_requester = 300;
	assert_int_equal(sa_server_answer(&m.s, req, 4, out, 4), 1);
	assert_int_equal(status_of(out), SA_STATUS_NO_RESOURCES);
	assert_int_equal(sa_server_kept_bytes(&m.s), 672);
	mini_free(&m);
}

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
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_path_qos_fields),
		cmocka_unit_test(test_path_qos_policy),
		cmocka_unit_test(test_multipath_multi_mad),
		cmocka_unit_test(test_sl2vl),
		cmocka_unit_test(test_vlarb),
		cmocka_unit_test(test_portinfo_mkey_hidden),
		cmocka_unit_test(test_rmpp_budget),
		cmocka_unit_test(test_capmask_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
