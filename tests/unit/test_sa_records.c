/* The SA (sa/) over the small hand-made fabric of sa_mini.h: SL2VL and
 * VLArb table records, PathRecords and their QoS fields, PortInfo
 * records, and the RMPP budget (the rest in test_sa.c). */
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
	mini_req_init(req, 0x01, 0x0013, key);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_LID, 1);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_INPORT, 1);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_OUTPORT, 2);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_BUSY);
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
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_LID), 1);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_INPORT), 1);
	assert_int_equal(sa_get(&sa_sl2vl_rec, rec, SL2VL_OUTPORT), 2);
	assert_memory_equal(rec + 8, t12, 8);
	/* Port 3 is down: no table there at all (no record, not Busy). */
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_OUTPORT, 3);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
	/* GetTable of everything: the two tables known, the rest left out. */
	sa_sl2vl_store(&m.s.ctx.sl2vl, 0x300, 0, 1, tca, SL2VL_SET);
	mini_req_init(req, 0x12, 0x0013, 0);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	rmpp_get(out, &h);
	assert_int_equal(h.len_or_window, 2 * 16 + 20);
	/* A GetTable of one switch with tables not read: Busy until read. */
	mini_req_init(req, 0x12, 0x0013, 1ull << SL2VL_LID);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_LID, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_BUSY);
	/* By LID: CA b's record, ports 0/0, its table. */
	mini_req_init(req, 0x01, 0x0013, 1ull << SL2VL_LID);
	sa_put(&sa_sl2vl_rec, req + GMP_SA_DATA_OFFS, SL2VL_LID, 3);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
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

	mini_req_init(req, 0x01, 0x0036, key);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_LID, 2);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 0);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_BUSY);
	assert_int_equal(t->want_len, 1);
	sa_vlarb_store(t, 0x200, 1, 1, blk, SL2VL_READ);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(mad_get_field(out, 0, IB_SA_ATTROFFS_F), 72 / 8);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_LID), 2);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_PORT), 1);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_BLOCK), 1);
	assert_memory_equal(rec + 8, blk, 64);
	/* Past the cap: zeros, no read; a CA's port number does not narrow. */
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 5);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 4);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_vlarb_rec, rec, VLA_PORT), 1);
	assert_memory_equal(rec + 8, zero, 64);
	/* Switch: port 3 is down (no record), port 0 is kept, port 1's
	 * block 2 must be read, and what the SM wrote is answered. */
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_LID, 1);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 3);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 0);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 2);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_BUSY);
	sa_vlarb_store(t, 0x100, 2, 1, blk, SL2VL_SET);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_PORT, 2);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_memory_equal(rec + 8, blk, 64);
	/* GetTable of every block 2: the four known, switch port 1's left
	 * out (a whole-fabric table is answered from what is known). */
	mini_req_init(req, 0x12, 0x0036, 1ull << VLA_BLOCK);
	sa_put(&sa_vlarb_rec, req + GMP_SA_DATA_OFFS, VLA_BLOCK, 2);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
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
	mini_req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_SLID, 2);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_DLID, 3);
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SLID), 2);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_DLID), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 4);     /* NeighborMTU */
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_RATE), 7);    /* 4x QDR = 40 */
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_PKEY), 0xffff);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_PLT), 0x12);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_REVERSIBLE), 1);

	/* MTU exactly 4096: more than the path has -> no record. */
	mini_req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID) |
		 (1ull << PR_MTUSEL) | (1ull << PR_MTU));
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_SLID, 2);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_DLID, 3);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTUSEL, 2);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTU, 5);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
	/* Less than 2048: 1024. */
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTUSEL, 1);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_MTU, 4);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 3);

	/* A GID of another subnet. */
	mini_req_init(req, 0x01, 0x0035, (1ull << PR_SGID) | (1ull << PR_DLID));
	memset(req + GMP_SA_DATA_OFFS + 24, 0x11, 16);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_DLID, 3);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_REQ_INVALID_GID);

	/* GetTable from LID 2: to every endpoint LID (1, 2, 3). */
	mini_req_init(req, 0x12, 0x0035, 1ull << PR_SLID);
	sa_put(&sa_path_rec, req + GMP_SA_DATA_OFFS, PR_SLID, 2);
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), 0);
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
	mini_req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID) |
		 (1ull << PR_SL) | (1ull << PR_QOS) | (1ull << PR_TCLASS) |
		 (1ull << PR_FLOWLABEL));
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 3);
	sa_put(&sa_path_rec, r, PR_SL, 3);
	sa_put(&sa_path_rec, r, PR_QOS, 0x2a);
	sa_put(&sa_path_rec, r, PR_TCLASS, 0x60);
	sa_put(&sa_path_rec, r, PR_FLOWLABEL, 0x12345);
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_QOS), 0x2a);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_TCLASS), 0x60);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_FLOWLABEL), 0x12345);

	/* The source maps SL 15 to VL 15: no path on it. */
	assert_true(sa_sl2vl_sweep(&m.s.ctx.sl2vl, &m.r) >= 0);
	sa_sl2vl_store(&m.s.ctx.sl2vl, 0x200, 0, 1, sl2vl, SL2VL_READ);
	sa_put(&sa_path_rec, r, PR_SL, 15);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
	sa_put(&sa_path_rec, r, PR_SL, 14);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 14);

	/* An engine with SL layers (dfsp) fixes the SL: another one asked
	 * for gets no record, the layer's does. */
	m.s.ctx.path_sl = layer_sl;
	sa_put(&sa_path_rec, r, PR_SL, 3);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
	sa_put(&sa_path_rec, r, PR_SL, 2);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 2);
	m.s.ctx.path_sl = NULL;

	/* A switch's port 0 caps MTU and rate of paths to its LID. */
	mad_set_field(m.r.port_info[0], 0, IB_PORT_MTU_CAP_F, 3);
	mad_set_field(m.r.port_info[0], 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 1);
	mad_set_field(m.r.port_info[0], 0, IB_PORT_LINK_SPEED_ACTIVE_F, 1);
	mini_req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
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
	mini_req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 3);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 4);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_RATE), 7);
	/* ServiceID 0x100000002000 (both halves): level Slow. */
	mini_req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID) | pr_sid);
	sa_put(&sa_path_rec, r, PR_SLID, 2);
	sa_put(&sa_path_rec, r, PR_DLID, 3);
	sa_put(&sa_path_rec, r, PR_SERVICEID0, 0x1000);
	sa_put(&sa_path_rec, r, PR_SERVICEID0 + 1, 0x2000);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 5);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_RATE), 3);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_PLT), 9);
	/* The low half alone is 0x1000..0x1fff: SL 1. */
	sa_put(&sa_path_rec, r, PR_SERVICEID0, 0);
	sa_put(&sa_path_rec, r, PR_SERVICEID0 + 1, 0x1234);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 1);
	/* Asking the policy's SL is fine, another one gets no record. */
	mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << PR_SLID) | (1ull << PR_DLID) |
			pr_sid | (1ull << PR_SL));
	sa_put(&sa_path_rec, r, PR_SL, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 1);
	sa_put(&sa_path_rec, r, PR_SL, 3);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
	/* Match rules before ULPs: QoS class 7 wins over the service ID. */
	mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << PR_SLID) | (1ull << PR_DLID) |
			pr_sid | (1ull << PR_QOS));
	sa_put(&sa_path_rec, r, PR_QOS, 7);
	mini_answer(&m.s, req, 2, out, 4);
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
		mini_answer(&m.s, req, 2, out, 4);
		assert_int_equal(mini_status_of(out), 0);
		assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 5);
		mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << PR_SLID) |
				(1ull << PR_DLID) | pr_sid | (1ull << PR_SL));
		sa_put(&sa_path_rec, r, PR_SL, 1);
		mini_answer(&m.s, req, 2, out, 4);
		assert_int_equal(mini_status_of(out), SA_STATUS_NO_RECORDS);
		sa_put(&sa_path_rec, r, PR_SL, 5);
		mini_answer(&m.s, req, 2, out, 4);
		assert_int_equal(mini_status_of(out), 0);
		/* No component: DEFAULT's class (SL 0) + layer 2. */
		mini_req_init(req, 0x01, 0x0035, (1ull << PR_SLID) | (1ull << PR_DLID));
		sa_put(&sa_path_rec, r, PR_SLID, 2);
		sa_put(&sa_path_rec, r, PR_DLID, 3);
		mini_answer(&m.s, req, 2, out, 4);
		assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 2);
		m.s.ctx.path_sl = NULL;
		m.s.ctx.sl_space = NULL;
	}

	/* MultiPathRecord: CA a -> CA b with ServiceID 0x100000002000. */
	mini_req_init(req, 0x14, 0x003A, (1ull << MPR_SGIDCOUNT) | (1ull << MPR_DGIDCOUNT) |
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
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SLID), 2);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_SL), 5);
	assert_int_equal(sa_get(&sa_path_rec, rec, PR_MTU), 3);
	/* Without the ServiceID: DEFAULT. */
	mad_set_field64(req, 0, IB_SA_COMPMASK_F, (1ull << MPR_SGIDCOUNT) | (1ull << MPR_DGIDCOUNT));
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
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
	mini_req_init(req, 0x01, 0x0001, 0);
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), 0);
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
	/* A changed view is a new database (as every heavy sweep builds). */
	assert_int_equal(sa_db_build(&m.s.ctx.db, &m.r, &m.r.fab, &m.lft,
				     0xfe80000000000000ull), 0);
	mini_req_init(req, 0x12, 0x0012, 1ull << PIR_CAPMASK);
	mad_set_field(pi, 0, IB_PORT_CAPMASK_F, 0x2);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mini_status_of(out), 0);
	assert_int_equal(mad_get_field(out, 0, IB_SA_RMPP_LEN_F), 1 * 72 + 20);
	assert_int_equal(sa_get(&sa_portinfo_rec, out + GMP_SA_DATA_OFFS, PIR_LID), 2);
	/* CapabilityMask2 the same way; 0x40 is on no port. */
	mini_req_init(req, 0x12, 0x0012, 1ull << PIR_CAPMASK2);
	mad_set_field(pi, 0, IB_PORT_CAPMASK2_F, 0x10);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field(out, 0, IB_SA_RMPP_LEN_F), 1 * 72 + 20);
	mad_set_field(pi, 0, IB_PORT_CAPMASK2_F, 0x40);
	mini_answer(&m.s, req, 2, out, 4);
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
	mini_req_init(req, 0x01, 0x0012, (1ull << PIR_LID) | (1ull << PIR_PORTNUM));
	sa_put(&sa_portinfo_rec, req + GMP_SA_DATA_OFFS, PIR_LID, 2);
	sa_put(&sa_portinfo_rec, req + GMP_SA_DATA_OFFS, PIR_PORTNUM, 1);
	assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
	assert_int_equal(mini_status_of(out), 0);
	pi = out + GMP_SA_DATA_OFFS + 4;
	assert_int_equal(mad_get_field((void *)(uintptr_t)pi, 0, IB_PORT_LID_F), 2);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0);
	/* SM_Key 1, the default everyone knows: trusted, still no M_Key
	 * (issue 26; OpenSM shows it). */
	mad_set_field64(req, 0, IB_SA_MKEY_F, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0);
	/* a key of the operator's own: shown to who carries it */
	m.s.ctx.sm.sm_key = 0x5eed;
	mad_set_field64(req, 0, IB_SA_MKEY_F, 0x5eed);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0x5555);
	mad_set_field64(req, 0, IB_SA_MKEY_F, 1);
	mini_answer(&m.s, req, 2, out, 4);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)pi, 0, IB_PORT_MKEY_F), 0);
	m.s.ctx.sm.sm_key = 1;

	/* LinkRecords: two links, both directions. */
	mini_req_init(req, 0x12, 0x0020, 0);
	mini_answer(&m.s, req, 2, out, 4);
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
	mini_req_init(req, 0x12, 0x0011, 0);
	for (unsigned i = 0; i < 3; i++) {
		mad_set_field64(req, 0, IB_MAD_TRID_F, 0x100 + i);
		assert_int_equal(mini_answer(&m.s, req, 2, out, 4), 1);
		assert_int_equal(mini_status_of(out), 0);
	}
	/* The third evicted LID 2's first. */
	assert_int_equal(sa_server_kept_bytes(&m.s), 672);
	assert_int_equal(m.s.st.rmpp_budget_dropped, 1);
	for (unsigned i = 0; i < SA_MAX_XFERS; i++)
		if (m.s.xfer[i].busy)
			assert_true((uint32_t)m.s.xfer[i].tid != 0x100);
	/* Another requester: over the total, the oldest of all goes. */
	mad_set_field64(req, 0, IB_MAD_TRID_F, 0x200);
	assert_int_equal(mini_answer(&m.s, req, 3, out, 4), 1);
	assert_int_equal(sa_server_kept_bytes(&m.s), 672);
	assert_int_equal(m.s.st.rmpp_budget_dropped, 2);
	for (unsigned i = 0; i < SA_MAX_XFERS; i++)
		if (m.s.xfer[i].busy)
			assert_true((uint32_t)m.s.xfer[i].tid == 0x102 ||
				    (uint32_t)m.s.xfer[i].tid == 0x200);
	/* An answer no requester may hold: refused before it is built. */
	m.s.rmpp_per_requester = 300;
	assert_int_equal(mini_answer(&m.s, req, 4, out, 4), 1);
	assert_int_equal(mini_status_of(out), SA_STATUS_NO_RESOURCES);
	assert_int_equal(sa_server_kept_bytes(&m.s), 672);
	mini_free(&m);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_path_qos_fields),
		cmocka_unit_test(test_path_qos_policy),
		cmocka_unit_test(test_sl2vl),
		cmocka_unit_test(test_vlarb),
		cmocka_unit_test(test_portinfo_mkey_hidden),
		cmocka_unit_test(test_rmpp_budget),
		cmocka_unit_test(test_capmask_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
