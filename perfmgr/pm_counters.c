/* Port counter layouts through libibmad's fields (IB_PC_*, IB_PC_EXT_*). */
#include "pm_counters.h"

#include <string.h>
#include <strings.h>
#include <infiniband/mad.h>

#include "../mad/gmp.h"

#define RO(m) ((void *)(uintptr_t)(m))

/* Order as enum pm_counter; select bits as IBA 16.1.3.5 CounterSelect. */
static const struct pm_counter_desc descs[PM_NUM_COUNTERS] = {
	{ "SymbolErrorCounter", "symbol_error", 16, 0, 1 },
	{ "LinkErrorRecoveryCounter", "link_error_recovery", 8, 1, 1 },
	{ "LinkDownedCounter", "link_downed", 8, 2, 1 },
	{ "PortRcvErrors", "port_rcv_errors", 16, 3, 1 },
	{ "PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors", 16, 4, 1 },
	{ "PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors", 16, 5, 1 },
	{ "PortXmitDiscards", "port_xmit_discards", 16, 6, 1 },
	{ "PortXmitConstraintErrors", "port_xmit_constraint_errors", 8, 7, 1 },
	{ "PortRcvConstraintErrors", "port_rcv_constraint_errors", 8, 8, 1 },
	{ "LocalLinkIntegrityErrors", "local_link_integrity_errors", 4, 9, 1 },
	{ "ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", 4, 10, 1 },
	{ "VL15Dropped", "vl15_dropped", 16, 11, 1 },
	{ "PortXmitWait", "port_xmit_wait", 32, 16, 0 },
	{ "PortXmitData", "port_xmit_data", 32, 12, 0 },
	{ "PortRcvData", "port_rcv_data", 32, 13, 0 },
	{ "PortXmitPkts", "port_xmit_pkts", 32, 14, 0 },
	{ "PortRcvPkts", "port_rcv_pkts", 32, 15, 0 },
};

static const enum MAD_FIELDS fields[PM_NUM_COUNTERS] = {
	IB_PC_ERR_SYM_F, IB_PC_LINK_RECOVERS_F, IB_PC_LINK_DOWNED_F,
	IB_PC_ERR_RCV_F, IB_PC_ERR_PHYSRCV_F, IB_PC_ERR_SWITCH_REL_F,
	IB_PC_XMT_DISCARDS_F, IB_PC_ERR_XMTCONSTR_F, IB_PC_ERR_RCVCONSTR_F,
	IB_PC_ERR_LOCALINTEG_F, IB_PC_ERR_EXCESS_OVR_F, IB_PC_VL15_DROPPED_F,
	IB_PC_XMT_WAIT_F, IB_PC_XMT_BYTES_F, IB_PC_RCV_BYTES_F,
	IB_PC_XMT_PKTS_F, IB_PC_RCV_PKTS_F,
};

const struct pm_counter_desc *pm_counter_desc(enum pm_counter c)
{
	return c < PM_NUM_COUNTERS ? &descs[c] : NULL;
}

int pm_counter_by_name(const char *name)
{
	for (int i = 0; i < PM_NUM_COUNTERS; i++)
		if (!strcasecmp(descs[i].name, name))
			return i;
	return -1;
}

static void pm_build(uint8_t *mad, uint8_t method, uint16_t attr,
		     uint8_t port_select)
{
	gmp_init_request(mad, GMP_CLASS_PERF, GMP_PERF_CLASS_VERSION, method,
			 attr, 0, 0);
	if (attr == PM_ATTR_PORT_COUNTERS)
		mad_set_field(mad, IB_PC_DATA_OFFS, IB_PC_PORT_SELECT_F, port_select);
	else if (attr == PM_ATTR_PORT_COUNTERS_EXT)
		mad_set_field(mad, IB_PC_DATA_OFFS, IB_PC_EXT_PORT_SELECT_F,
			      port_select);
}

void pm_build_get(uint8_t *mad, uint16_t attr, uint8_t port_select)
{
	pm_build(mad, IB_MAD_METHOD_GET, attr, port_select);
}

void pm_build_clear(uint8_t *mad, uint8_t port_select, unsigned clear_mask)
{
	unsigned sel = 0, sel2 = 0;

	pm_build(mad, IB_MAD_METHOD_SET, PM_ATTR_PORT_COUNTERS, port_select);
	for (int i = 0; i < PM_NUM_COUNTERS; i++) {
		if (!(clear_mask & (1u << i)))
			continue;
		if (descs[i].select_bit >= 16)
			sel2 |= 1u << (descs[i].select_bit - 16);
		else
			sel |= 1u << descs[i].select_bit;
	}
	mad_set_field(mad, IB_PC_DATA_OFFS, IB_PC_COUNTER_SELECT_F, sel);
	mad_set_field(mad, IB_PC_DATA_OFFS, IB_PC_COUNTER_SELECT2_F, sel2);
}

void pm_decode_counters(const uint8_t *mad, struct pm_values *v)
{
	for (int i = 0; i < PM_NUM_COUNTERS; i++)
		v->v[i] = mad_get_field(RO(mad), IB_PC_DATA_OFFS, fields[i]);
	v->wide_mask = 0;
}

void pm_decode_counters_ext(const uint8_t *mad, struct pm_values *v)
{
	static const struct { enum pm_counter c; enum MAD_FIELDS f; } ext[] = {
		{ PM_XMIT_DATA, IB_PC_EXT_XMT_BYTES_F },
		{ PM_RCV_DATA, IB_PC_EXT_RCV_BYTES_F },
		{ PM_XMIT_PKTS, IB_PC_EXT_XMT_PKTS_F },
		{ PM_RCV_PKTS, IB_PC_EXT_RCV_PKTS_F },
	};

	for (unsigned i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		v->v[ext[i].c] = mad_get_field64(RO(mad), IB_PC_DATA_OFFS, ext[i].f);
		v->wide_mask |= 1u << ext[i].c;
	}
}

uint16_t pm_decode_cap_mask(const uint8_t *mad)
{
	return (uint16_t)mad_get_field(RO(mad), IB_PC_DATA_OFFS, IB_CPI_CAPMASK_F);
}

uint8_t pm_port_select(const uint8_t *mad)
{
	return (uint8_t)mad_get_field(RO(mad), IB_PC_DATA_OFFS, IB_PC_PORT_SELECT_F);
}

static uint64_t max_of(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
}

unsigned pm_clear_mask(const struct pm_values *v)
{
	unsigned m = 0;

	for (int i = 0; i < PM_NUM_COUNTERS; i++) {
		if (v->wide_mask & (1u << i))
			continue;
		if (v->v[i] >= (max_of(descs[i].bits) + 1) / 2)
			m |= 1u << i;
	}
	return m;
}

uint64_t pm_delta(enum pm_counter c, uint64_t prev, uint64_t cur, int wide,
		  int *reset, int *saturated)
{
	uint64_t max = wide ? UINT64_MAX : max_of(descs[c].bits);

	if (!wide && cur == max && saturated)
		*saturated = 1;
	if (cur < prev) {
		if (reset)
			*reset = 1;
		return cur;
	}
	return cur - prev;
}
