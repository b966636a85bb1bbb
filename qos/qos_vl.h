/* SL2VL and VL arbitration tables from the QoS options (issue 28), as
 * OpenSM's qos_* options give them (its osm_qos.c is the reference for
 * the behaviour; docs/qos.md has the mapping):
 *
 *   option          default (OpenSM's)
 *   max_vls         15     (accepted; like OpenSM, the tables do not use it)
 *   high_limit      0      (PortInfo.VLHighLimit, IBA 14.2.5.6)
 *   vlarb_high      0:4,1:0,2:0,...,14:0   (VL:weight, up to 64 entries)
 *   vlarb_low       0:0,1:4,2:4,...,14:4
 *   sl2vl           0,1,2,...,14,7         (16 VLs, SL 0 first)
 *
 * Five sets of keys: the general qos_* and one per port type, qos_ca_*
 * (channel adapters), qos_swe_* (switch external ports), qos_sw0_*
 * (switch port 0, enhanced port 0 only) and qos_rtr_* (routers). A key of
 * a port type that is not set takes the general key's value, and that
 * one OpenSM's default.
 *
 * On a port the tables are clipped to what it runs, as OpenSM does: every
 * VL is ANDed with (2^(OperationalVLs-1) - 1) (OperationalVLs the PortInfo
 * code: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14), except
 * that an SL mapped to VL 15 stays on VL 15; a VLArb block carries as many
 * entries as the port's VLArbitrationLow/HighCap (the rest zero), and a
 * port with one data VL (VLCap 1) gets no VLArb table at all. */
#ifndef IBSM_QOS_QOS_VL_H
#define IBSM_QOS_QOS_VL_H

#include <stddef.h>
#include <stdint.h>

enum qos_port_type { QOS_PT_ALL, QOS_PT_CA, QOS_PT_SW0, QOS_PT_SWE,
		     QOS_PT_RTR, QOS_PT_NUM };

/* One set of keys as configured: "" and -1 / 0 mean "not set". */
struct qos_vl_keys {
	unsigned max_vls;           /* 1..15, 0 = not set */
	int high_limit;             /* 0..255, -1 = not set */
	char vlarb_high[512], vlarb_low[512];
	char sl2vl[64];
};

#define QOS_VLARB_ENTRIES 64    /* two 32-entry blocks of each priority */

/* One port type's tables, resolved. */
struct qos_vl_table {
	uint8_t max_vls, high_limit;
	uint8_t sl2vl[16];                          /* VL of each SL */
	uint8_t high[QOS_VLARB_ENTRIES][2];         /* VL, weight */
	uint8_t low[QOS_VLARB_ENTRIES][2];
};

/* The general keys' defaults (OpenSM's) in k. */
void qos_vl_defaults(struct qos_vl_keys *k);

/* "prefix" of a port type's keys: "qos", "qos_ca", ... */
const char *qos_port_type_prefix(enum qos_port_type t);

/* Check an option's text: 0, or -1 with why in err. Entries are
 * separated by commas; an sl2vl list has 16 VLs 0..15, a vlarb list
 * 1..64 entries VL:weight with VL 0..14 and weight 0..255. */
int qos_vl_parse_sl2vl(const char *s, uint8_t vl[16], char *err, size_t errlen);
int qos_vl_parse_vlarb(const char *s, uint8_t e[QOS_VLARB_ENTRIES][2],
		       char *err, size_t errlen);

/* The tables of port type t from keys[QOS_PT_NUM] (keys[QOS_PT_ALL] the
 * general ones). Texts that do not parse count as not set (the config
 * checks them when they are set). */
void qos_vl_build(struct qos_vl_table *t, const struct qos_vl_keys *keys,
		  enum qos_port_type type);

/* The SL2VLMappingTable (IBA 14.2.5.8, 8 bytes as on the wire) of a port
 * whose OperationalVLs code is oper_vls. */
void qos_vl_sl2vl_wire(const struct qos_vl_table *t, unsigned oper_vls,
		       uint8_t out[8]);
/* VLArbitrationTable block (1, 2: low priority; 3, 4: high; IBA
 * 14.2.5.9) of a port with that OperationalVLs and cap (entries of that
 * priority), as on the wire (64 bytes). Returns the entries it carries
 * (0: the port has none in this block). */
unsigned qos_vl_vlarb_wire(const struct qos_vl_table *t, unsigned block,
			   unsigned oper_vls, unsigned cap, uint8_t out[64]);

#endif
