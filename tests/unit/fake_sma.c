/* The SMA model and its wire (fake_sma.h). Layouts through libibmad's
 * field accessors, as mad/smp.c does. Tests only: never in a program. */
#include "fake_sma.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/mad.h>

#include "../../mad/smp.h"
#include "../../mad/gmp.h"

#include "fake_sma_int.h"

static unsigned mft_positions(const struct fab_node *nd)
{
	return (nd->num_ports + 1u + 15) / 16;
}

int fake_is_sw(const struct fake_sma *s, uint32_t n)
{
	return s->f.nodes[n].type == FAB_SWITCH;
}

uint64_t fake_sma_port_guid(const struct fake_sma *s, uint32_t p)
{
	const struct fab_port *port = &s->f.ports[p];
	const struct fab_node *nd = &s->f.nodes[port->node];

	if (port->guid)
		return port->guid;
	return nd->type == FAB_SWITCH ? nd->guid : nd->guid + port->num;
}

uint8_t fake_pi_get(const struct fake_sma *s, uint32_t p, enum MAD_FIELDS fld)
{
	return (uint8_t)mad_get_field(RO(s->port[p].pi), 0, fld);
}

static void pi_put(struct fake_sma *s, uint32_t p, enum MAD_FIELDS fld,
		   uint32_t v)
{
	mad_set_field(s->port[p].pi, 0, fld, v);
}

/* A port's state moves; a switch notes a move to or from Down in
 * SwitchInfo.PortStateChange (IBA 14.2.5.4). */
void fake_set_state(struct fake_sma *s, uint32_t p, uint8_t state,
		      uint8_t phys)
{
	uint32_t n = s->f.ports[p].node;
	uint8_t old = fake_pi_get(s, p, IB_PORT_STATE_F);

	pi_put(s, p, IB_PORT_STATE_F, state);
	pi_put(s, p, IB_PORT_PHYS_STATE_F, phys);
	if (fake_is_sw(s, n) && (old == FAB_PORT_DOWN) != (state == FAB_PORT_DOWN))
		mad_set_field(s->node[n].sw_info, 0, IB_SW_STATE_CHANGE_F, 1);
}

static void init_port(struct fake_sma *s, uint32_t p)
{
	const struct fab_port *port = &s->f.ports[p];
	uint32_t n = port->node;
	int sw = fake_is_sw(s, n), up = port->peer != FAB_NONE;
	uint32_t cap = CAP_TRAP | CAP_SL_MAP;

	if (!sw)
		cap |= CAP_REREG;
	if (n == s->sm_node && port->num == s->sm_port)
		cap |= CAP_IS_SM;
	pi_put(s, p, IB_PORT_CAPMASK_F, cap);
	pi_put(s, p, IB_PORT_LOCAL_PORT_F, port->num);
	pi_put(s, p, IB_PORT_LINK_WIDTH_ENABLED_F, 3);
	pi_put(s, p, IB_PORT_LINK_WIDTH_SUPPORTED_F, 3);
	pi_put(s, p, IB_PORT_LINK_WIDTH_ACTIVE_F, port->width ? port->width : 2);
	pi_put(s, p, IB_PORT_LINK_SPEED_SUPPORTED_F, 7);
	pi_put(s, p, IB_PORT_LINK_SPEED_ENABLED_F, 7);
	pi_put(s, p, IB_PORT_LINK_SPEED_ACTIVE_F, port->speed ? port->speed : 4);
	pi_put(s, p, IB_PORT_LINK_DOWN_DEF_F, 2);
	pi_put(s, p, IB_PORT_MTU_CAP_F, 5);
	pi_put(s, p, IB_PORT_NEIGHBOR_MTU_F, 5);
	pi_put(s, p, IB_PORT_VL_CAP_F, 4);
	pi_put(s, p, IB_PORT_OPER_VLS_F, 1);
	pi_put(s, p, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 8);
	pi_put(s, p, IB_PORT_VL_ARBITRATION_LOW_CAP_F, 8);
	pi_put(s, p, IB_PORT_VL_STALL_COUNT_F, 7);
	pi_put(s, p, IB_PORT_HOQ_LIFE_F, 0x1f);
	pi_put(s, p, IB_PORT_GUID_CAP_F, sw ? 0 : 1);
	if (sw && port->num == 0) {
		pi_put(s, p, IB_PORT_STATE_F, FAB_PORT_ACTIVE);
		pi_put(s, p, IB_PORT_PHYS_STATE_F, 5);
	} else {
		pi_put(s, p, IB_PORT_STATE_F, up ? FAB_PORT_INIT : FAB_PORT_DOWN);
		pi_put(s, p, IB_PORT_PHYS_STATE_F, up ? 5 : 2);
	}
	/* The default partition, as a fresh HCA holds it. */
	s->port[p].pkey[0] = 0xFFFF;
}

static int init_node(struct fake_sma *s, uint32_t n)
{
	const struct fab_node *nd = &s->f.nodes[n];
	struct fake_node *fn = &s->node[n];
	unsigned np = nd->num_ports + 1u;

	fn->sl2vl = calloc(fake_is_sw(s, n) ? np * np : np, sizeof(*fn->sl2vl));
	if (!fn->sl2vl)
		return -ENOMEM;
	if (!fake_is_sw(s, n))
		return 0;
	fn->lft = malloc(FAKE_LFT_CAP);
	fn->mft = calloc((size_t)FAKE_MFT_CAP * mft_positions(nd), sizeof(*fn->mft));
	if (!fn->lft || !fn->mft)
		return -ENOMEM;
	memset(fn->lft, 0xFF, FAKE_LFT_CAP);
	mad_set_field(fn->sw_info, 0, IB_SW_LINEAR_FDB_CAP_F, FAKE_LFT_CAP);
	mad_set_field(fn->sw_info, 0, IB_SW_MCAST_FDB_CAP_F, FAKE_MFT_CAP);
	mad_set_field(fn->sw_info, 0, IB_SW_DEF_PORT_F, 0xFF);
	mad_set_field(fn->sw_info, 0, IB_SW_LIFE_TIME_F, 0x1f);
	mad_set_field(fn->sw_info, 0, IB_SW_LIDS_PER_PORT_F, 1);
	mad_set_field(fn->sw_info, 0, IB_SW_PARTITION_ENFORCE_CAP_F, FAKE_PKEY_CAP);
	/* It can enforce partitions on its ports, both ways (capability
	 * bits, read-only; the switches ibsim models report 0). */
	mad_set_field(fn->sw_info, 0, IB_SW_PARTITION_ENF_INB_F, 1);
	mad_set_field(fn->sw_info, 0, IB_SW_PARTITION_ENF_OUTB_F, 1);
	mad_set_field(fn->sw_info, 0, IB_SW_ENHANCED_PORT0_F, nd->enhanced_sp0);
	return 0;
}

struct fake_sma *fake_sma_new(const struct fabric *f, uint32_t sm_node,
			      uint8_t sm_port)
{
	struct fake_sma *s;

	if (sm_node >= f->num_nodes || f->nodes[sm_node].type == FAB_SWITCH ||
	    !sm_port || sm_port > f->nodes[sm_node].num_ports)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->sm_node = sm_node;
	s->sm_port = sm_port;
	s->att[0] = (struct fake_att){ .s = s, .node = sm_node, .port = sm_port };
	s->num_att = 1;
	s->rng = 1;
	if (fab_clone(&s->f, f) < 0)
		goto fail;
	s->node = calloc(f->num_nodes, sizeof(*s->node));
	s->port = calloc(f->num_ports, sizeof(*s->port));
	if (!s->node || !s->port)
		goto fail;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (init_node(s, n) < 0)
			goto fail;
	for (uint32_t p = 0; p < f->num_ports; p++)
		init_port(s, p);
	return s;
fail:
	fake_sma_free(s);
	return NULL;
}

void fake_sma_free(struct fake_sma *s)
{
	if (!s)
		return;
	for (uint32_t n = 0; s->node && n < s->f.num_nodes; n++) {
		free(s->node[n].lft);
		free(s->node[n].mft);
		free(s->node[n].sl2vl);
	}
	free(s->node);
	free(s->port);
	for (unsigned i = 0; i < s->num_att; i++)
		free(s->att[i].rx);
	fab_free(&s->f);
	free(s);
}

/* --- attributes ---------------------------------------------------------- */

static void get_nodeinfo(struct fake_sma *s, uint32_t n, uint8_t in,
			 uint8_t *d)
{
	const struct fab_node *nd = &s->f.nodes[n];

	mad_set_field(d, 0, IB_NODE_BASE_VERS_F, 1);
	mad_set_field(d, 0, IB_NODE_CLASS_VERS_F, 1);
	mad_set_field(d, 0, IB_NODE_TYPE_F, nd->type);
	mad_set_field(d, 0, IB_NODE_NPORTS_F, nd->num_ports);
	mad_set_field64(d, 0, IB_NODE_SYSTEM_GUID_F, nd->sys_guid ? nd->sys_guid : nd->guid);
	mad_set_field64(d, 0, IB_NODE_GUID_F, nd->guid);
	mad_set_field64(d, 0, IB_NODE_PORT_GUID_F,
			fake_sma_port_guid(s, nd->first_port + (nd->type == FAB_SWITCH ? 0 : in)));
	mad_set_field(d, 0, IB_NODE_PARTITION_CAP_F, FAKE_PKEY_CAP);
	mad_set_field(d, 0, IB_NODE_DEVID_F, nd->device_id);
	mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, in);
	mad_set_field(d, 0, IB_NODE_VENDORID_F, nd->vendor_id);
}

/* PortInfo fields an SMA never takes from a Set (IBA 14.2.5.6: RO). */
static const enum MAD_FIELDS pi_read_only[] = {
	IB_PORT_CAPMASK_F, IB_PORT_DIAG_F, IB_PORT_LOCAL_PORT_F,
	IB_PORT_LINK_WIDTH_SUPPORTED_F, IB_PORT_LINK_WIDTH_ACTIVE_F,
	IB_PORT_LINK_SPEED_SUPPORTED_F, IB_PORT_LINK_SPEED_ACTIVE_F,
	IB_PORT_VL_CAP_F, IB_PORT_VL_ARBITRATION_HIGH_CAP_F,
	IB_PORT_VL_ARBITRATION_LOW_CAP_F, IB_PORT_INIT_TYPE_REPLY_F,
	IB_PORT_MTU_CAP_F, IB_PORT_GUID_CAP_F, IB_PORT_MAX_CREDIT_HINT_F,
	IB_PORT_LINK_ROUND_TRIP_F,
};
/* ... and those where 0 means "no change". */
static const enum MAD_FIELDS pi_zero_keeps[] = {
	IB_PORT_LINK_WIDTH_ENABLED_F, IB_PORT_LINK_SPEED_ENABLED_F,
	IB_PORT_LINK_DOWN_DEF_F, IB_PORT_OPER_VLS_F, IB_PORT_NEIGHBOR_MTU_F,
};

/* The link of port p retrains: both ends INIT / LinkUp when both are
 * alive and neither is Disabled. */
static void link_retrain(struct fake_sma *s, uint32_t p)
{
	uint32_t q = s->f.ports[p].peer;

	if (q == FAB_NONE || s->node[s->f.ports[q].node].dead ||
	    fake_pi_get(s, p, IB_PORT_PHYS_STATE_F) == 3 ||
	    fake_pi_get(s, q, IB_PORT_PHYS_STATE_F) == 3)
		return;
	fake_set_state(s, p, FAB_PORT_INIT, 5);
	fake_set_state(s, q, FAB_PORT_INIT, 5);
}

/* The port state machine of IBA 7.2 as far as an SM drives it: 0 when the
 * Set's PortState / PortPhysicalState are a legal move from now. */
static int state_move_ok(uint8_t now, uint8_t want)
{
	switch (want) {
	case FAB_PORT_NOCHANGE:
	case FAB_PORT_DOWN:
		return 1;
	case FAB_PORT_ARMED:
		return now == FAB_PORT_INIT || now == FAB_PORT_ARMED;
	case FAB_PORT_ACTIVE:
		return now == FAB_PORT_ARMED || now == FAB_PORT_ACTIVE;
	default:
		return 0;
	}
}

static uint16_t set_portinfo(struct fake_sma *s, uint32_t p, uint8_t *d)
{
	struct fake_port *fp = &s->port[p];
	const struct fab_port *port = &s->f.ports[p];
	uint8_t old[64], want, phys, now = fake_pi_get(s, p, IB_PORT_STATE_F);

	want = (uint8_t)mad_get_field(d, 0, IB_PORT_STATE_F);
	phys = (uint8_t)mad_get_field(d, 0, IB_PORT_PHYS_STATE_F);
	if (port->num == 0 && fake_is_sw(s, port->node))
		want = phys = 0;        /* port 0 has no link */
	if (!state_move_ok(now, want) || (phys && phys != 2 && phys != 3))
		return STS_INVALID;
	memcpy(old, fp->pi, 64);
	memcpy(fp->pi, d, 64);
	for (size_t i = 0; i < sizeof(pi_read_only) / sizeof(pi_read_only[0]); i++)
		mad_set_field(fp->pi, 0, pi_read_only[i],
			      mad_get_field(old, 0, pi_read_only[i]));
	for (size_t i = 0; i < sizeof(pi_zero_keeps) / sizeof(pi_zero_keeps[0]); i++)
		if (!mad_get_field(d, 0, pi_zero_keeps[i]))
			mad_set_field(fp->pi, 0, pi_zero_keeps[i],
				      mad_get_field(old, 0, pi_zero_keeps[i]));
	/* ClientReregister reads 0 (IBA 14.4.11); the state fields move
	 * below, from the old ones. */
	mad_set_field(fp->pi, 0, IB_PORT_CLIENT_REREG_F, 0);
	mad_set_field(fp->pi, 0, IB_PORT_STATE_F, now);
	mad_set_field(fp->pi, 0, IB_PORT_PHYS_STATE_F,
		      mad_get_field(old, 0, IB_PORT_PHYS_STATE_F));
	if (phys == 3) {
		uint32_t q = port->peer;

		fake_set_state(s, p, FAB_PORT_DOWN, 3);
		if (q != FAB_NONE && !s->node[s->f.ports[q].node].dead)
			fake_set_state(s, q, FAB_PORT_DOWN, 2);
	} else if (phys == 2 && fake_pi_get(s, p, IB_PORT_PHYS_STATE_F) == 3) {
		fake_set_state(s, p, FAB_PORT_DOWN, 2);
		link_retrain(s, p);
	} else if (want == FAB_PORT_DOWN) {
		link_retrain(s, p);
	} else if (want && now != FAB_PORT_DOWN) {
		fake_set_state(s, p, want, fake_pi_get(s, p, IB_PORT_PHYS_STATE_F));
	}
	memcpy(d, fp->pi, 64);
	return 0;
}

static void set_switchinfo(struct fake_sma *s, uint32_t n, uint8_t *d)
{
	static const enum MAD_FIELDS rw[] = {
		IB_SW_LINEAR_FDB_TOP_F, IB_SW_DEF_PORT_F, IB_SW_DEF_MCAST_PRIM_F,
		IB_SW_DEF_MCAST_NOT_PRIM_F, IB_SW_LIFE_TIME_F,
		IB_SW_MCAST_FDB_TOP_F,
	};
	uint8_t *si = s->node[n].sw_info;

	for (size_t i = 0; i < sizeof(rw) / sizeof(rw[0]); i++)
		mad_set_field(si, 0, rw[i], mad_get_field(d, 0, rw[i]));
	if (mad_get_field(d, 0, IB_SW_STATE_CHANGE_F))
		mad_set_field(si, 0, IB_SW_STATE_CHANGE_F, 0);
	memcpy(d, si, 64);
}

/* The port a per-port attribute means: a switch's from the modifier, a
 * CA's is the one the SMP entered by (FAB_NONE: no such port). */
static uint32_t port_of(const struct fake_sma *s, uint32_t n, uint8_t in,
			uint32_t num)
{
	if (!fake_is_sw(s, n))
		num = in;
	return fab_port_idx(&s->f, n, num);
}

static uint16_t table_attr(struct fake_sma *s, uint32_t n, uint8_t in,
			   int set, uint16_t attr, uint32_t mod, uint8_t *d)
{
	struct fake_node *fn = &s->node[n];
	const struct fab_node *nd = &s->f.nodes[n];
	uint32_t p;

	switch (attr) {
	case IB_ATTR_PKEY_TBL: {
		uint32_t b = mod & 0xffff;

		p = port_of(s, n, in, mod >> 16);
		if (p == FAB_NONE || b >= FAKE_PKEY_CAP / 32)
			return STS_INVALID;
		for (unsigned i = 0; i < 32; i++) {
			uint16_t *e = &s->port[p].pkey[b * 32 + i];

			if (set)
				*e = (uint16_t)(d[2 * i] << 8 | d[2 * i + 1]);
			d[2 * i] = (uint8_t)(*e >> 8);
			d[2 * i + 1] = (uint8_t)*e;
		}
		return 0;
	}
	case IB_ATTR_SLVL_TABLE: {
		uint32_t idx;

		if (fake_is_sw(s, n)) {
			uint32_t pin = mod >> 8 & 0xff, pout = mod & 0xff;

			if (pin > nd->num_ports || pout > nd->num_ports)
				return STS_INVALID;
			idx = pin * (nd->num_ports + 1u) + pout;
		} else {
			idx = in;
		}
		if (set)
			memcpy(fn->sl2vl[idx], d, 8);
		memcpy(d, fn->sl2vl[idx], 8);
		return 0;
	}
	case IB_ATTR_VL_ARBITRATION: {
		uint32_t b = mod >> 16;

		p = port_of(s, n, in, mod & 0xffff);
		if (p == FAB_NONE || b < 1 || b > 4)
			return STS_INVALID;
		if (set)
			memcpy(s->port[p].vlarb[b - 1], d, 64);
		memcpy(d, s->port[p].vlarb[b - 1], 64);
		return 0;
	}
	case IB_ATTR_LINEARFORWTBL:
		if (!fn->lft || mod >= FAKE_LFT_CAP / 64)
			return fn->lft ? STS_INVALID : STS_UNSUPPORTED;
		if (set)
			memcpy(fn->lft + mod * 64, d, 64);
		memcpy(d, fn->lft + mod * 64, 64);
		return 0;
	case IB_ATTR_MULTICASTFORWTBL: {
		uint32_t b = mod & 0x1ff, pos = mod >> 28, np = mft_positions(nd);

		if (!fn->mft)
			return STS_UNSUPPORTED;
		if (b >= FAKE_MFT_CAP / 32 || pos >= np)
			return STS_INVALID;
		for (unsigned i = 0; i < 32; i++) {
			uint16_t *e = &fn->mft[(b * 32 + i) * np + pos];

			if (set)
				*e = (uint16_t)(d[2 * i] << 8 | d[2 * i + 1]);
			d[2 * i] = (uint8_t)(*e >> 8);
			d[2 * i + 1] = (uint8_t)*e;
		}
		return 0;
	}
	}
	return STS_UNSUPPORTED;
}

static uint16_t sminfo(struct fake_sma *s, uint32_t n, uint8_t in, int set,
		       uint8_t *d)
{
	for (unsigned i = 0; i < s->num_sms; i++) {
		struct fake_peer_sm *m = &s->sms[i];
		struct smp_sminfo asked, si = {
			.guid = m->guid, .act_count = ++m->act_count,
			.priority = m->priority, .state = m->state,
		};

		if (m->node != n || m->port != in)
			continue;
		(void)set;      /* controls (HANDOVER, ...) are not modelled */
		/* IBA 14.4.1: SM_Key only to a requester that gave it. */
		smp_get_sminfo(d, &asked);
		si.sm_key = asked.sm_key == m->sm_key ? m->sm_key : 0;
		memset(d, 0, 64);
		smp_set_sminfo(d, &si);
		return 0;
	}
	return STS_UNSUPPORTED;
}

uint16_t fake_sma_answer(struct fake_sma *s, uint32_t n, uint8_t in,
			   uint8_t *mad)
{
	uint8_t method = smp_method(mad), *d = smp_data(mad);
	uint16_t attr = smp_attr(mad);
	uint32_t mod = smp_mod(mad), p;
	int set = method == IB_MAD_METHOD_SET;

	if (method != IB_MAD_METHOD_GET && !set)
		return IB_MAD_STS_METHOD_NOT_SUPPORTED;
	s->count[method][attr & 63]++;
	s->all++;
	switch (attr) {
	case IB_ATTR_NODE_INFO:
		if (set)
			return STS_UNSUPPORTED;
		get_nodeinfo(s, n, in, d);
		return 0;
	case IB_ATTR_NODE_DESC:
		if (set)
			return STS_UNSUPPORTED;
		memset(d, 0, 64);
		memcpy(d, s->f.nodes[n].desc, strnlen(s->f.nodes[n].desc, 64));
		return 0;
	case IB_ATTR_SWITCH_INFO:
		if (!fake_is_sw(s, n))
			return STS_UNSUPPORTED;
		if (set)
			set_switchinfo(s, n, d);
		else
			memcpy(d, s->node[n].sw_info, 64);
		return 0;
	case IB_ATTR_PORT_INFO:
		/* A CA's modifier may name the port; 0 is the one entered. */
		p = fake_is_sw(s, n) || mod ? fab_port_idx(&s->f, n, mod) :
			fab_port_idx(&s->f, n, in);
		if (p == FAB_NONE || (!fake_is_sw(s, n) && mod == 0 && !in))
			return STS_INVALID;
		if (set) {
			uint16_t st = set_portinfo(s, p, d);

			if (st)
				memcpy(d, s->port[p].pi, 64);
			return st;
		}
		memcpy(d, s->port[p].pi, 64);
		/* LocalPortNum: the port this SMP came in by. */
		mad_set_field(d, 0, IB_PORT_LOCAL_PORT_F, in);
		return 0;
	case IB_ATTR_SMINFO:
		return sminfo(s, n, in, set, d);
	}
	return table_attr(s, n, in, set, attr, mod, d);
}

