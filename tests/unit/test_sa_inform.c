/* InformInfo matching and the notices the SM reports (sa/sa_inform.c):
 * which subscriptions a notice reaches, and the layout of the notices and
 * the Report MAD, read back with libibmad's Notice fields. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "mad/gmp.h"
#include "sa/sa_inform.h"
#include "sa/sa_layout.h"

#define II (&sa_inform_rec)

struct sub_spec {
	unsigned begin, end, trap, type, producer, generic, trusted;
	uint8_t gid_last;           /* nonzero: GID fe80::gid_last */
};

static void add_sub(struct sa_inform_db *db, const struct sub_spec *sp,
		    uint16_t lid)
{
	static struct sa_subscription subs[8];
	struct sa_subscription *s = &subs[db->n];
	uint8_t ii[64] = { 0 }, gid[16] = { 0 };

	assert_true(db->n < 8);
	db->s = subs;
	memset(s, 0, sizeof(*s));
	if (sp->gid_last) {
		gid[0] = 0xfe;
		gid[1] = 0x80;
		gid[15] = sp->gid_last;
		sa_put_bytes(II, ii, II_GID, gid);
	}
	sa_put(II, ii, II_LID_BEGIN, sp->begin);
	sa_put(II, ii, II_LID_END, sp->end);
	sa_put(II, ii, II_IS_GENERIC, sp->generic);
	sa_put(II, ii, II_SUBSCRIBE, 1);
	sa_put(II, ii, II_TYPE, sp->type);
	sa_put(II, ii, II_TRAP, sp->trap);
	sa_put(II, ii, II_PRODUCER, sp->producer);
	sa_put(II, ii, II_QPN, 1);
	memcpy(s->iir + sa_comp_offset(&sa_iir_rec, IIR_II) / 8, ii, SA_INFORM_LEN);
	s->lid = lid;
	s->qpn = 1;
	s->trusted = (uint8_t)sp->trusted;
	db->n++;
	db->cap = 8;
}

static uint32_t hits_mask;

static void hit(void *ctx, const struct sa_subscription *s)
{
	(void)ctx;
	hits_mask |= 1u << s->lid;
}

static uint32_t match(const struct sa_inform_db *db, const struct sa_notice *n)
{
	hits_mask = 0;
	sa_inform_match(db, n, hit, NULL);
	return hits_mask;
}

static void trap_notice(struct sa_notice *n, unsigned trap, unsigned issuer,
			unsigned type, unsigned producer, uint8_t gid_last)
{
	uint8_t smp[64] = { 0 }, gid[16] = { 0xfe, 0x80 };

	gid[15] = gid_last;
	mad_set_field(smp, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(smp, 0, IB_NOTICE_TYPE_F, type);
	mad_set_field(smp, 0, IB_NOTICE_PRODUCER_F, producer);
	mad_set_field(smp, 0, IB_NOTICE_TRAP_NUMBER_F, trap);
	mad_set_field(smp, 0, IB_NOTICE_ISSUER_LID_F, issuer);
	sa_notice_from_trap(n, smp, gid);
}

static void test_match(void **state)
{
	struct sa_inform_db db = { 0 };
	struct sa_notice n;
	const struct sub_spec all = { 0xFFFF, 0, 0xFFFF, 0xFFFF, 0xFFFFFF, 1, 0, 0 },
		only128 = { 0xFFFF, 0, 128, 0xFFFF, 0xFFFFFF, 1, 0, 0 },
		range = { 10, 20, 0xFFFF, 0xFFFF, 0xFFFFFF, 1, 0, 0 },
		by_gid = { 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFF, 1, 0, 7 },
		urgent_sw = { 0xFFFF, 0, 0xFFFF, 1, 2, 1, 0, 0 },
		vendor = { 0xFFFF, 0, 0xFFFF, 0xFFFF, 0xFFFFFF, 0, 0, 0 },
		trusted = { 0xFFFF, 0, 0xFFFF, 0xFFFF, 0xFFFFFF, 1, 1, 0 };

	(void)state;
	add_sub(&db, &all, 1);
	add_sub(&db, &only128, 2);
	add_sub(&db, &range, 3);
	add_sub(&db, &by_gid, 4);
	add_sub(&db, &urgent_sw, 5);
	add_sub(&db, &vendor, 6);
	add_sub(&db, &trusted, 7);

	/* 128 from switch LID 15 (GID ...:7), urgent, producer switch. */
	trap_notice(&n, 128, 15, 1, 2, 7);
	assert_int_equal(match(&db, &n), 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4 |
			 1u << 5 | 1u << 7);
	/* Issuer outside 10..20 and another GID. */
	trap_notice(&n, 128, 30, 1, 2, 8);
	assert_int_equal(match(&db, &n), 1u << 1 | 1u << 2 | 1u << 5 | 1u << 7);
	/* Trap 144 (informational, from a CA): not the 128-only one, not
	 * the urgent-switch one. */
	trap_notice(&n, 144, 12, 4, 1, 9);
	assert_int_equal(match(&db, &n), 1u << 1 | 1u << 3 | 1u << 7);
	/* A security trap reaches trusted subscriptions only. */
	trap_notice(&n, 257, 12, 2, 1, 9);
	assert_int_equal(match(&db, &n), 1u << 7);
}

static void test_gid_service_notice(void **state)
{
	struct sa_notice n;
	uint8_t sm_gid[16] = { 0xfe, 0x80, [15] = 1 }, port[16] = { 0xfe, 0x80, [15] = 0x42 };
	uint8_t mad[GMP_SIZE];

	(void)state;
	sa_notice_sm_trap(&n, SA_TRAP_GID_OUT_OF_SERVICE, 13, sm_gid, port);
	assert_int_equal(n.trap, 65);
	assert_int_equal(n.issuer_lid, 13);
	assert_int_equal(n.type, SA_NOTICE_TYPE_SUBN_MGMT);
	assert_int_equal(n.producer, SA_NOTICE_PRODUCER_SM);
	assert_memory_equal(n.issuer_gid, sm_gid, 16);
	sa_report_build(mad, &n);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F), GMP_CLASS_SA);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_CLASSVER_F), 2);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_METHOD_F), IB_MAD_METHOD_REPORT);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_RESPONSE_F), 0);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRID_F), IB_SA_ATTR_NOTICE);
	assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_NOTICE_IS_GENERIC_F), 1);
	assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_NOTICE_TRAP_NUMBER_F), 65);
	assert_int_equal(mad_get_field(mad, IB_SA_DATA_OFFS, IB_NOTICE_ISSUER_LID_F), 13);
	/* DataDetails of 64-67: 6 reserved bytes, then the GID; the
	 * IssuerGID after the 64 bytes of the SMP-sized Notice. */
	assert_memory_equal(mad + IB_SA_DATA_OFFS + 16, port, 16);
	assert_memory_equal(mad + IB_SA_DATA_OFFS + 64, sm_gid, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_gid_service_notice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
