/* Which P_Keys each port holds (IBA 10.9): computed from the partition
 * configuration and a swept fabric, after every heavy sweep. The SM
 * programs these tables (sm/program/pkey_program.c) and the SA answers from them
 * (P_KeyTableRecord, and the partition checks of PathRecord,
 * ServiceRecord, MCMemberRecord).
 *
 * Rules (docs/partitions.md), as OpenSM's partition manager:
 *  - Every end port (CA and router ports, switch port 0) is in the default
 *    partition 0x7FFF. Without a 0x7FFF entry in the config every port is
 *    a full member; with one, every port starts limited and the SM's own
 *    port full, then the entry's members apply. The SM's port stays full.
 *  - Members apply in order; a later one overrides an earlier one for the
 *    same port ("both" is full: one entry per partition and port).
 *  - Table order: 0x7FFF (full 0xFFFF or limited 0x7FFF) at index 0, then
 *    the configured partitions in file order; at most NodeInfo.PartitionCap
 *    entries (the rest are dropped and counted).
 *  - A switch external port linked to an end port gets that end port's
 *    table when the switch has PartitionEnforcementCap (SwitchInfo) for
 *    it and can enforce in at least one direction (Inbound/Outbound-
 *    EnforcementCap), and enforcement on; when the table does not fit,
 *    the switch cannot enforce, or on switch-to-switch links, enforcement
 *    is off and the port has no table. */
#ifndef IBSM_PARTITION_PART_TABLE_H
#define IBSM_PARTITION_PART_TABLE_H

#include <stdint.h>

#include "../core/subnet.h"
#include "part_conf.h"

struct part_tables {
	uint32_t num_ports;         /* the fabric's; 0 = not built */
	uint32_t *first;            /* num_ports + 1: keys[first[p] .. first[p+1]) */
	uint16_t *keys;             /* P_Key entries, membership bit included */
	uint8_t *enforce;           /* switch external ports: 1 enforce, 0 off,
	                             * 2 not ours to touch (unlinked) */
	uint16_t *cap;              /* entries the port can hold */
};

struct part_build_stats {
	uint32_t ports;             /* ports given a table */
	uint32_t dropped;           /* entries past a port's capacity */
	uint32_t enforce_off_full;  /* switch ports whose peer's table did not fit */
	uint32_t enforce_no_cap;    /* switch ports facing an end port on a switch
	                             * that can enforce in no direction */
	uint32_t unknown_guids;     /* configured GUIDs no port has */
};

void part_tables_init(struct part_tables *t);
void part_tables_free(struct part_tables *t);
/* Build for r (c NULL: the default partition only, every port full).
 * 0 or -ENOMEM (t left empty). */
int part_tables_build(struct part_tables *t, const struct part_conf *c,
		      const struct subnet *r, struct part_build_stats *st);

static inline uint32_t part_num_keys(const struct part_tables *t, uint32_t p)
{
	return t->num_ports && p < t->num_ports ? t->first[p + 1] - t->first[p] : 0;
}
static inline const uint16_t *part_keys(const struct part_tables *t, uint32_t p)
{
	return t->keys + t->first[p];
}
/* Whether switch node n can enforce partitions in some direction
 * (SwitchInfo Inbound/OutboundEnforcementCap, IBA 14.2.5.4). One that
 * cannot never looks at its external ports' tables: none is kept there,
 * nor read or written. */
int part_switch_enforces(const struct subnet *r, uint32_t n);

/* P_KeyTable blocks of 32 entries the port's table fills (0: no table). */
unsigned part_blocks(const struct part_tables *t, uint32_t p);
/* Block `block` of port p's table, zero-padded. */
void part_block(const struct part_tables *t, uint32_t p, unsigned block,
		uint16_t out[32]);
/* The entry (membership bit included) port p holds for the 15-bit
 * partition `pkey`, or 0. A port without a table holds 0xFFFF only. */
uint16_t part_port_entry(const struct part_tables *t, uint32_t p, uint16_t pkey);
/* May ports a and b talk in partition `pkey` (15 bits)? They must both
 * hold it and at least one be a full member (IBA 10.9.1.2). */
int part_share_pkey(const struct part_tables *t, uint32_t a, uint32_t b,
		    uint16_t pkey);
/* A partition a and b share: the default one when they share it, else
 * the lowest-numbered one; a's entry (its membership bit), or 0 if none.
 * a == b shares everything a holds. */
uint16_t part_common_pkey(const struct part_tables *t, uint32_t a, uint32_t b);

#endif
