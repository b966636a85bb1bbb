/* What each port gets from the qos_* keys (sm/program/vl_program.h: the
 * hook vlprog_qos_sl2vl and vlprog_qos_vlarb): the port type's table,
 * clipped to the OperationalVLs port_config sets (the smaller VLCap of
 * the link), an enhanced port 0's inputs, a one-VL port without VLArb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "core/subnet.h"
#include "sm/program/vl_program.h"

/* Switch (enhanced port 0) with a CA (8 VLs) on port 1, a CA with 4 VLs
 * on port 2, a router on port 3 and a one-VL CA on port 4. */
static void build(struct subnet *r, uint32_t *sw)
{
	static const unsigned cap[] = { 0, 4, 3, 4, 1 };  /* VLCap of port k's CA */
	struct fabric *f = &r->fab;

	memset(r, 0, sizeof(*r));
	subnet_init(r);
	*sw = fab_add_node(f, FAB_SWITCH, 4, 0x100, "sw");
	f->nodes[*sw].enhanced_sp0 = 1;
	for (unsigned k = 1; k <= 4; k++) {
		uint32_t n = fab_add_node(f, k == 3 ? FAB_ROUTER : FAB_CA, 1, 0x200 + k, "end");

		fab_link(f, fab_port_idx(f, *sw, k), fab_port_idx(f, n, 1));
	}
	r->port_info = calloc(f->num_ports, 64);
	r->port_info_ok = calloc(f->num_ports, 1);
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct fab_port *fp = &f->ports[p];
		unsigned vl_cap;

		if (!fab_is_switch(f, fp->node) && fp->num == 0)
			continue;
		vl_cap = fab_is_switch(f, fp->node) ? 4 : cap[f->ports[fp->peer].num];
		mad_set_field(r->port_info[p], 0, IB_PORT_VL_CAP_F, vl_cap);
		mad_set_field(r->port_info[p], 0, IB_PORT_OPER_VLS_F, 1);  /* before the Set */
		mad_set_field(r->port_info[p], 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, 8);
		mad_set_field(r->port_info[p], 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 8);
		r->port_info_ok[p] = 1;
	}
	/* Port 0 runs what it reads: 8 VLs. */
	mad_set_field(r->port_info[fab_port_idx(f, *sw, 0)], 0, IB_PORT_OPER_VLS_F, 4);
}

/* The node on switch port k. */
static uint32_t end_node(const struct subnet *r, uint32_t sw, unsigned k)
{
	return r->fab.ports[r->fab.ports[fab_port_idx(&r->fab, sw, k)].peer].node;
}

static void keys(struct qos_vl_keys k[QOS_PT_NUM])
{
	memset(k, 0, sizeof(struct qos_vl_keys) * QOS_PT_NUM);
	for (unsigned t = 0; t < QOS_PT_NUM; t++)
		k[t].high_limit = -1;
	qos_vl_defaults(&k[QOS_PT_ALL]);
	strcpy(k[QOS_PT_CA].sl2vl, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
	strcpy(k[QOS_PT_SWE].sl2vl, "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1");
	strcpy(k[QOS_PT_SW0].sl2vl, "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2");
	strcpy(k[QOS_PT_RTR].sl2vl, "3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3");
	strcpy(k[QOS_PT_SW0].vlarb_low, "5:50");
}

static void test_ports(void **state)
{
	struct subnet r;
	struct qos_vl_keys k[QOS_PT_NUM];
	struct vlprog_qos q;
	uint32_t sw, ca;
	uint8_t w[64];

	(void)state;
	build(&r, &sw);
	keys(k);
	vlprog_qos_init(&q, k);
	/* CA on port 1 (8 VLs): SL 8..14 on VL 0..6, SL 15 on VL 15. */
	ca = end_node(&r, sw, 1);
	vlprog_qos_sl2vl(&q, &r, ca, 0, 1, w);
	assert_memory_equal(w, "\x01\x23\x45\x67\x01\x23\x45\x6f", 8);
	/* CA on port 2: VLCap 3 (4 VLs) against the switch's 8: VL & 3, 15 stays. */
	ca = end_node(&r, sw, 2);
	vlprog_qos_sl2vl(&q, &r, ca, 0, 1, w);
	assert_memory_equal(w, "\x01\x23\x01\x23\x01\x23\x01\x2f", 8);
	/* Router ports take rtr's table. */
	ca = end_node(&r, sw, 3);
	vlprog_qos_sl2vl(&q, &r, ca, 0, 1, w);
	assert_int_equal(w[0], 0x33);
	/* Switch: external output swe's; port 0 as output: (0,0) sw0's,
	 * inputs 1..4 swe's. Output 2 runs 4 VLs: 1 stays 1. */
	vlprog_qos_sl2vl(&q, &r, sw, 3, 2, w);
	assert_int_equal(w[0], 0x11);
	vlprog_qos_sl2vl(&q, &r, sw, 0, 0, w);
	assert_int_equal(w[0], 0x22);
	vlprog_qos_sl2vl(&q, &r, sw, 1, 0, w);
	assert_int_equal(w[0], 0x11);
	/* VLArb: port 0 takes sw0's; the one-VL link (port 4) none; a CA
	 * on 4 VLs gets the default low table clipped (VL 5 -> 1). */
	assert_int_equal(vlprog_qos_vlarb(&q, &r, fab_port_idx(&r.fab, sw, 0), 1, w), 8);
	assert_int_equal(w[0], 5);
	assert_int_equal(w[1], 50);
	assert_int_equal(vlprog_qos_vlarb(&q, &r, fab_port_idx(&r.fab, sw, 4), 1, w), 8);
	ca = r.fab.ports[fab_port_idx(&r.fab, sw, 4)].peer;
	assert_int_equal(vlprog_qos_vlarb(&q, &r, ca, 1, w), 0);
	ca = r.fab.ports[fab_port_idx(&r.fab, sw, 2)].peer;
	assert_int_equal(vlprog_qos_vlarb(&q, &r, ca, 1, w), 8);
	assert_int_equal(w[2 * 5], 5 & 3);
	assert_int_equal(w[2 * 5 + 1], 4);
	assert_int_equal(vlprog_qos_vlarb(&q, &r, ca, 2, w), 0);    /* cap 8 */
	subnet_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
