/* The SA unit tests' small fabric and request helpers (see sa_mini.h):
 * shared by test_sa.c and test_sa_records.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "mad/gmp.h"
#include "tests/unit/sa_mini.h"
#include "tests/unit/support.h"

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

void mini_build(struct mini *m)
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

void mini_free(struct mini *m)
{
	sa_server_free(&m->s);
	lft_free(&m->lft);
	subnet_free(&m->r);
}

int mini_capture(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
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

int mini_answer(struct sa_server *s, const uint8_t *req,
		     uint16_t slid, uint8_t *out, unsigned max)
{
	struct cap c = { .n = 0 };
	uint8_t buf[GMP_SIZE];

	s->send = mini_capture;
	s->send_arg = &c;
	memcpy(buf, req, GMP_SIZE);
	sa_server_handle(s, buf, slid, 1);
	for (unsigned i = 0; i < c.n && i < max; i++)
		memcpy(out + (size_t)i * GMP_SIZE, c.mad[i], GMP_SIZE);
	return (int)c.n;
}

void mini_req_init(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask)
{
	gmp_init_request(mad, GMP_CLASS_SA, 2, method, attr, 0, 0x77);
	mad_set_field64(mad, 0, IB_SA_COMPMASK_F, mask);
}

unsigned mini_status_of(const uint8_t *mad)
{
	return mad_get_field((void *)(uintptr_t)mad, 0, IB_MAD_STATUS_F);
}
