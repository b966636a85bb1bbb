/* qos/qos_vl: OpenSM's qos_* table options parsed, inherited by port type
 * and clipped to a port's OperationalVLs and VLArb caps as OpenSM does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "qos/qos_vl.h"

static void no_keys(struct qos_vl_keys k[QOS_PT_NUM])
{
	memset(k, 0, sizeof(struct qos_vl_keys) * QOS_PT_NUM);
	for (unsigned t = 0; t < QOS_PT_NUM; t++)
		k[t].high_limit = -1;
}

static void test_defaults(void **state)
{
	struct qos_vl_keys k[QOS_PT_NUM];
	struct qos_vl_table t;
	uint8_t w[64];

	(void)state;
	no_keys(k);
	qos_vl_build(&t, k, QOS_PT_CA);
	assert_int_equal(t.max_vls, 15);
	assert_int_equal(t.high_limit, 0);
	assert_int_equal(t.sl2vl[14], 14);
	assert_int_equal(t.sl2vl[15], 7);
	/* 15 VLs: as given; 8 VLs (OperationalVLs 4): 8..14 -> 0..6. */
	qos_vl_sl2vl_wire(&t, 5, w);
	assert_memory_equal(w, "\x01\x23\x45\x67\x89\xab\xcd\xe7", 8);
	qos_vl_sl2vl_wire(&t, 4, w);
	assert_memory_equal(w, "\x01\x23\x45\x67\x01\x23\x45\x67", 8);
	/* VLArb low, cap 8: VL 0 weight 0, VLs 1..7 weight 4, the rest 0. */
	assert_int_equal(qos_vl_vlarb_wire(&t, 1, 4, 8, w), 8);
	assert_int_equal(w[0], 0);
	assert_int_equal(w[1], 0);
	assert_int_equal(w[2], 1);
	assert_int_equal(w[3], 4);
	assert_int_equal(w[14], 7);
	assert_int_equal(w[16], 0);
	/* Block 2 of a cap-8 port carries nothing; high block 3 has 0:4. */
	assert_int_equal(qos_vl_vlarb_wire(&t, 2, 4, 8, w), 0);
	assert_int_equal(qos_vl_vlarb_wire(&t, 3, 4, 8, w), 8);
	assert_int_equal(w[0], 0);
	assert_int_equal(w[1], 4);
}

static void test_inherit_and_clip(void **state)
{
	struct qos_vl_keys k[QOS_PT_NUM];
	struct qos_vl_table t;
	uint8_t w[64];

	(void)state;
	no_keys(k);
	strcpy(k[QOS_PT_ALL].sl2vl, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
	strcpy(k[QOS_PT_SWE].sl2vl, "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,15");
	k[QOS_PT_ALL].high_limit = 9;
	k[QOS_PT_CA].high_limit = 0;       /* 0 is a value, not "unset" */
	strcpy(k[QOS_PT_CA].vlarb_low, "9:5, 3:7");
	qos_vl_build(&t, k, QOS_PT_RTR);    /* the general keys */
	assert_int_equal(t.high_limit, 9);
	assert_int_equal(t.sl2vl[15], 15);
	qos_vl_build(&t, k, QOS_PT_SWE);
	assert_int_equal(t.sl2vl[0], 1);
	/* VL 15 stays; one VL (OperationalVLs 1): everything else VL 0. */
	qos_vl_sl2vl_wire(&t, 1, w);
	assert_memory_equal(w, "\x00\x00\x00\x00\x00\x00\x00\x0f", 8);
	qos_vl_build(&t, k, QOS_PT_CA);
	assert_int_equal(t.high_limit, 0);
	/* VL 9 on a 4-VL port (OperationalVLs 3) is VL 1 (9 & 3). */
	assert_int_equal(qos_vl_vlarb_wire(&t, 1, 3, 2, w), 2);
	assert_int_equal(w[0], 1);
	assert_int_equal(w[1], 5);
	assert_int_equal(w[2], 3);
	assert_int_equal(w[3], 7);
	/* Cap 40: block 2 carries entries 33..40. */
	assert_int_equal(qos_vl_vlarb_wire(&t, 2, 5, 40, w), 8);
}

static void test_errors(void **state)
{
	uint8_t vl[16], e[QOS_VLARB_ENTRIES][2];
	char err[128];

	(void)state;
	assert_int_equal(qos_vl_parse_sl2vl("0,1,2", vl, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "3 VLs given, 16 expected"));
	assert_int_equal(qos_vl_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16", vl, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "SL 15"));
	assert_int_equal(qos_vl_parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0", vl, err, sizeof(err)), -1);
	assert_int_equal(qos_vl_parse_vlarb("0:4,15:1", e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "entry 2"));
	assert_int_equal(qos_vl_parse_vlarb("0:256", e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "weight 0..255"));
	assert_int_equal(qos_vl_parse_vlarb("0-4", e, err, sizeof(err)), -1);
	assert_int_equal(qos_vl_parse_vlarb("", e, err, sizeof(err)), -1);
	assert_int_equal(qos_vl_parse_vlarb("0x1:0x10", e, err, sizeof(err)), 0);
	assert_int_equal(e[0][1], 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_inherit_and_clip),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
