/* SMP encoding/decoding (sm/smp.c), checked against libibmad's own field
 * layout and against the IBA byte offsets the wire format fixes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "mad/gmp.h"
#include "mad/smp.h"

static void test_path(void **state)
{
	struct smp_path a = { 0 }, b;
	char buf[64];

	(void)state;
	assert_int_equal(smp_path_extend(&b, &a, 1), 0);
	assert_int_equal(smp_path_extend(&b, &b, 5), 0);
	assert_int_equal(smp_path_extend(&b, &b, 12), 0);
	assert_int_equal(b.hops, 3);
	assert_string_equal(smp_path_str(&b, buf, sizeof(buf)), "0,1,5,12");
	assert_int_equal(a.hops, 0);
	for (a.hops = 0; a.hops < SMP_MAX_HOPS;)
		assert_int_equal(smp_path_extend(&a, &a, 1), 0);
	assert_int_equal(smp_path_extend(&b, &a, 1), -E2BIG);
}

static void test_dr_header(void **state)
{
	struct smp_path p = { .hops = 2, .port = { 0, 3, 7 } };
	uint8_t mad[SMP_SIZE];

	(void)state;
	smp_init_dr(mad, &p, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 5,
		    0x1122334455667788ULL);
	/* IBA 14.2.1.2: byte 0 base version, 1 class, 2 class version, 3 method */
	assert_int_equal(mad[0], 1);
	assert_int_equal(mad[1], 0x81);
	assert_int_equal(mad[2], 1);
	assert_int_equal(mad[3], IB_MAD_METHOD_GET);
	/* byte 7 hop count, 6 hop pointer, TID at 8, attr id at 16, mod at 20 */
	assert_int_equal(mad[7], 2);
	assert_int_equal(mad[6], 0);
	assert_int_equal(mad[8], 0x11);
	assert_int_equal(mad[15], 0x88);
	assert_int_equal(mad[16] << 8 | mad[17], IB_ATTR_PORT_INFO);
	assert_int_equal(mad[23], 5);
	/* DrSLID / DrDLID permissive (bytes 32..35), initial path at 128 */
	assert_int_equal(mad[32], 0xff);
	assert_int_equal(mad[35], 0xff);
	assert_int_equal(mad[129], 3);
	assert_int_equal(mad[130], 7);
	assert_int_equal(smp_class(mad), SMP_CLASS_DR);
	assert_int_equal(smp_attr(mad), IB_ATTR_PORT_INFO);
	assert_int_equal(smp_mod(mad), 5);
	assert_true(smp_tid(mad) == 0x1122334455667788ULL);
	assert_false(smp_is_response(mad));

	smp_make_response(mad, 0x1c);
	assert_true(smp_is_response(mad));
	assert_int_equal(smp_status(mad), 0x1c);
	assert_int_equal(mad[3], 0x81);
	assert_int_equal(mad[4] & 0x80, 0x80);          /* D bit: inbound */
}

static void test_lid_header(void **state)
{
	uint8_t mad[SMP_SIZE];

	(void)state;
	smp_init_lid(mad, IB_MAD_METHOD_GET, IB_ATTR_SMINFO, 0, 42);
	assert_int_equal(smp_class(mad), SMP_CLASS_LID);
	smp_make_response(mad, 0);
	assert_int_equal(smp_status(mad), 0);
	/* the method field holds GetResp as Get plus the response bit */
	assert_int_equal(smp_method(mad), IB_MAD_METHOD_GET);
	assert_true(smp_is_response(mad));
	assert_int_equal(mad[3], IB_MAD_METHOD_GET_RESPONSE);
}

static void test_nodeinfo(void **state)
{
	uint8_t d[64] = { 0 };
	struct smp_nodeinfo ni;
	uint64_t g = 0x0002c90200000010ULL;

	(void)state;
	/* IBA 14.2.5.3 layout: type byte 2, ports byte 3, node GUID at 12,
	 * port GUID at 20, local port byte 36, vendor id bytes 37..39. */
	d[0] = 1; d[1] = 1; d[2] = 2; d[3] = 36;
	for (int i = 0; i < 8; i++)
		d[12 + i] = (uint8_t)(g >> (56 - 8 * i));
	d[36] = 7;
	d[39] = 0xc9;
	smp_get_nodeinfo(d, &ni);
	assert_int_equal(ni.type, 2);
	assert_int_equal(ni.num_ports, 36);
	assert_int_equal(ni.local_port, 7);
	assert_true(ni.node_guid == g);
	assert_int_equal(ni.vendor_id, 0xc9);
}

static void test_portinfo_set(void **state)
{
	uint8_t cur[64] = { 0 }, out[64];
	struct smp_portinfo pi;
	struct smp_port_set s = {
		.gid_prefix = 0xfe80000000000000ULL, .lid = 0x1234, .sm_lid = 1,
		.lmc = 2, .subnet_timeout = 18, .neighbor_mtu = 4, .oper_vls = 3,
		.state = 3,
	};

	(void)state;
	mad_set_field(cur, 0, IB_PORT_VL_CAP_F, 4);
	mad_set_field(cur, 0, IB_PORT_MTU_CAP_F, 5);
	mad_set_field(cur, 0, IB_PORT_STATE_F, 2);
	mad_set_field(cur, 0, IB_PORT_PHYS_STATE_F, 5);
	mad_set_field(cur, 0, IB_PORT_LINK_SPEED_ENABLED_F, 7);
	smp_build_portinfo_set(out, cur, &s);
	smp_get_portinfo(out, &pi);
	assert_int_equal(pi.lid, 0x1234);
	assert_int_equal(pi.sm_lid, 1);
	assert_int_equal(pi.lmc, 2);
	assert_int_equal(pi.subnet_timeout, 18);
	assert_int_equal(pi.neighbor_mtu, 4);
	assert_int_equal(pi.oper_vls, 3);
	assert_int_equal(pi.state, 3);
	assert_true(pi.gid_prefix == 0xfe80000000000000ULL);
	/* capabilities kept from the port, "no change" where it matters */
	assert_int_equal(pi.vl_cap, 4);
	assert_int_equal(pi.mtu_cap, 5);
	assert_int_equal(pi.phys_state, 0);
	assert_int_equal(mad_get_field(out, 0, IB_PORT_LINK_SPEED_ENABLED_F), 0);
	/* IBA 14.2.5.6: LID at bytes 16..17 */
	assert_int_equal(out[16], 0x12);
	assert_int_equal(out[17], 0x34);
	/* zero MTU / VLs mean "leave as is" */
	s.neighbor_mtu = 0;
	s.oper_vls = 0;
	mad_set_field(cur, 0, IB_PORT_OPER_VLS_F, 2);
	smp_build_portinfo_set(out, cur, &s);
	smp_get_portinfo(out, &pi);
	assert_int_equal(pi.oper_vls, 2);
	/* timers only when asked; ClientReregister as asked, never kept */
	mad_set_field(cur, 0, IB_PORT_HOQ_LIFE_F, 5);
	mad_set_field(cur, 0, IB_PORT_CLIENT_REREG_F, 1);
	smp_build_portinfo_set(out, cur, &s);
	smp_get_portinfo(out, &pi);
	assert_int_equal(pi.hoq_life, 5);
	assert_int_equal(mad_get_field(out, 0, IB_PORT_CLIENT_REREG_F), 0);
	s.set_timers = 1;
	s.hoq_life = 0x12;
	s.vl_stall = 7;
	s.client_rereg = 1;
	smp_build_portinfo_set(out, cur, &s);
	smp_get_portinfo(out, &pi);
	assert_int_equal(pi.hoq_life, 0x12);
	assert_int_equal(pi.vl_stall, 7);
	assert_int_equal(mad_get_field(out, 0, IB_PORT_CLIENT_REREG_F), 1);
}

static void test_switchinfo_and_lft(void **state)
{
	uint8_t cur[64] = { 0 }, out[64], blk[64], back[64];
	struct smp_switchinfo si;

	(void)state;
	mad_set_field(cur, 0, IB_SW_LINEAR_FDB_CAP_F, 49152);
	mad_set_field(cur, 0, IB_SW_STATE_CHANGE_F, 1);
	smp_get_switchinfo(cur, &si);
	assert_int_equal(si.port_state_change, 1);
	smp_build_switchinfo_set(out, cur, 300, 1, -1);
	smp_get_switchinfo(out, &si);
	assert_int_equal(si.life_time, 0);
	smp_build_switchinfo_set(out, cur, 300, 1, 0x12);
	smp_get_switchinfo(out, &si);
	assert_int_equal(si.life_time, 0x12);
	smp_build_switchinfo_set(out, cur, 300, 1, -1);
	smp_get_switchinfo(out, &si);
	assert_int_equal(si.lft_top, 300);
	assert_int_equal(si.lft_cap, 49152);
	assert_int_equal(si.port_state_change, 1);      /* 1 = clear it */
	for (int i = 0; i < 64; i++)
		blk[i] = (uint8_t)(i * 3);
	smp_set_lft_block(out, blk);
	assert_memory_equal(out, blk, 64);              /* port i at byte i */
	smp_get_lft_block(out, back);
	assert_memory_equal(back, blk, 64);
}

static void test_sminfo_notice_desc(void **state)
{
	uint8_t d[64];
	struct smp_sminfo a = { .guid = 0x123456789abcdefULL, .act_count = 77,
				.priority = 9, .state = SMP_SM_MASTER }, b;
	char desc[65];

	(void)state;
	smp_set_sminfo(d, &a);
	smp_get_sminfo(d, &b);
	assert_true(b.guid == a.guid);
	assert_int_equal(b.act_count, 77);
	assert_int_equal(b.priority, 9);
	assert_int_equal(b.state, SMP_SM_MASTER);

	memset(d, 0, sizeof(d));
	mad_set_field(d, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(d, 0, IB_NOTICE_TRAP_NUMBER_F, 128);
	mad_set_field(d, 0, IB_NOTICE_ISSUER_LID_F, 17);
	assert_int_equal(smp_notice_trap_num(d), 128);
	assert_int_equal(smp_notice_issuer_lid(d), 17);
	mad_set_field(d, 0, IB_NOTICE_IS_GENERIC_F, 0);
	assert_int_equal(smp_notice_trap_num(d), 0);

	memset(d, 0, sizeof(d));
	memcpy(d, "leaf-3\x01x", 8);
	smp_get_nodedesc(d, desc);
	assert_string_equal(desc, "leaf-3?x");
	memset(d, 'a', 64);
	smp_get_nodedesc(d, desc);
	assert_int_equal(strlen(desc), 64);
}

/* The one request builder (mad/gmp.h): the common header, zeros after. */
static void test_gmp_request(void **state)
{
	uint8_t m[256];

	(void)state;
	memset(m, 0xee, sizeof(m));
	gmp_init_request(m, GMP_CLASS_PERF, GMP_PERF_CLASS_VERSION,
			 IB_MAD_METHOD_GET, 0x0012, 7, 0x1122334455667788ull);
	assert_int_equal(m[0], 1);                  /* BaseVersion */
	assert_int_equal(m[1], GMP_CLASS_PERF);
	assert_int_equal(m[2], 1);
	assert_int_equal(m[3], IB_MAD_METHOD_GET);
	assert_int_equal(mad_get_field64(m, 0, IB_MAD_TRID_F), 0x1122334455667788ull);
	assert_int_equal(mad_get_field(m, 0, IB_MAD_ATTRID_F), 0x0012);
	assert_int_equal(mad_get_field(m, 0, IB_MAD_ATTRMOD_F), 7);
	for (int i = 4; i < 8; i++)                 /* status, reserved */
		assert_int_equal(m[i], 0);
	for (int i = 24; i < 256; i++)
		assert_int_equal(m[i], 0);
	gmp_init_request(m, GMP_CLASS_SA, GMP_SA_CLASS_VERSION, 0x06, 0x0002, 0, 0);
	assert_int_equal(m[1], GMP_CLASS_SA);
	assert_int_equal(m[2], 2);
	assert_int_equal(m[3], 0x06);
	assert_int_equal(mad_get_field64(m, 0, IB_MAD_TRID_F), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_dr_header),
		cmocka_unit_test(test_lid_header),
		cmocka_unit_test(test_nodeinfo),
		cmocka_unit_test(test_portinfo_set),
		cmocka_unit_test(test_switchinfo_and_lft),
		cmocka_unit_test(test_sminfo_notice_desc),
		cmocka_unit_test(test_gmp_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
