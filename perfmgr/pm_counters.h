/* Port counters as the PerfMgr reads them (IBA 16.1.3.5 PortCounters,
 * 16.1.4.11 PortCountersExtended): one table names every counter, its
 * width and its CounterSelect bit, so decoding, clearing and rates cannot
 * disagree; and the arithmetic of successive readings (deltas across a
 * clear we did, a reset someone else did, or a saturated counter). */
#ifndef IBSM_PERFMGR_PM_COUNTERS_H
#define IBSM_PERFMGR_PM_COUNTERS_H

#include <stdint.h>

#define PM_ATTR_CLASS_PORT_INFO 0x0001
#define PM_ATTR_PORT_COUNTERS 0x0012
#define PM_ATTR_PORT_COUNTERS_EXT 0x001D

/* ClassPortInfo.CapabilityMask bits (IBA 16.1.2 Table 204). */
#define PM_CAP_ALL_PORT_SELECT (1u << 8)
#define PM_CAP_EXT_WIDTH (1u << 9)
#define PM_CAP_EXT_WIDTH_NOIETF (1u << 10)
#define PM_CAP_XMIT_WAIT (1u << 12)

enum pm_counter {
	/* error counters, PortCounters */
	PM_SYMBOL_ERR,
	PM_LINK_ERR_RECOVERY,
	PM_LINK_DOWNED,
	PM_RCV_ERR,
	PM_RCV_REMOTE_PHYS_ERR,
	PM_RCV_SWITCH_RELAY_ERR,
	PM_XMIT_DISCARDS,
	PM_XMIT_CONSTRAINT_ERR,
	PM_RCV_CONSTRAINT_ERR,
	PM_LOCAL_LINK_INTEGRITY_ERR,
	PM_EXCESSIVE_BUF_OVERRUN_ERR,
	PM_VL15_DROPPED,
	PM_XMIT_WAIT,
	/* traffic: PortCountersExtended (64 bits) when the port has it,
	 * else the 32-bit PortCounters fields */
	PM_XMIT_DATA,
	PM_RCV_DATA,
	PM_XMIT_PKTS,
	PM_RCV_PKTS,
	PM_NUM_COUNTERS
};

struct pm_counter_desc {
	const char *name;           /* IBA / perfquery name */
	const char *metric;         /* snake_case, for metrics and JSON */
	unsigned bits;              /* width in PortCounters */
	unsigned select_bit;        /* CounterSelect bit (XmitWait: 16 =
	                             * CounterSelect2 bit 0) */
	int is_error;               /* an error counter (not traffic) */
};

const struct pm_counter_desc *pm_counter_desc(enum pm_counter c);
/* By IBA name ("SymbolErrorCounter"), -1 if none. */
int pm_counter_by_name(const char *name);

struct pm_values {
	uint64_t v[PM_NUM_COUNTERS];
	unsigned wide_mask;         /* counters read from PortCountersExtended */
};

/* Build a PerfMgt request (class 0x04, version 1) in mad[256]. */
void pm_build_get(uint8_t *mad, uint16_t attr, uint8_t port_select);
/* Set(PortCounters) clearing the counters in clear_mask (1 << enum). */
void pm_build_clear(uint8_t *mad, uint8_t port_select, unsigned clear_mask);

/* Decode a PortCounters / PortCountersExtended response into v. The
 * extended one overwrites the four traffic counters with 64-bit values. */
void pm_decode_counters(const uint8_t *mad, struct pm_values *v);
void pm_decode_counters_ext(const uint8_t *mad, struct pm_values *v);
uint16_t pm_decode_cap_mask(const uint8_t *mad);
uint8_t pm_port_select(const uint8_t *mad);

/* Counters (narrow ones only) at or above half their range: cleared by
 * the PerfMgr after reading, so they never saturate unseen. */
unsigned pm_clear_mask(const struct pm_values *v);

/* Delta between two readings of counter c. `prev` is what the counter
 * held after the last reading (0 after our own clear). A value below prev
 * means someone else reset it: the new value is all that counted since
 * (*reset set to 1). A narrow counter at its maximum has saturated: the
 * delta is a lower bound (*saturated set). */
uint64_t pm_delta(enum pm_counter c, uint64_t prev, uint64_t cur, int wide,
		  int *reset, int *saturated);

#endif
