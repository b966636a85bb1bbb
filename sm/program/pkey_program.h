/* P_KeyTable programming (IBA 14.2.5.7, 10.9): every end port's table
 * (CA and router ports, switch port 0) and, where the switch enforces
 * partitions, the table of the switch port facing each end port, with
 * PortInfo.PartitionEnforcementInbound/Outbound on in the directions
 * the switch can enforce (SwitchInfo Inbound/OutboundEnforcementCap;
 * OpenSM sets both regardless); switch-to-switch ports get enforcement
 * off. The tables come
 * from partition/part_table.h.
 *
 * Diff-only: what was written (or read) is kept per port, by node GUID
 * and port number, across sweeps. A port is read (every block its
 * capacity allows) only when it is new, was missing in the last sweep,
 * or is not ACTIVE (its link trained again, so its SMA may have been
 * reset); then only the blocks that differ are written. Those reads are
 * made in the discovery window (sm/program/pkey_prefetch.h, armed by
 * pkeyprog_discovery_hook); what they missed is read here. A failed MAD
 * forgets the port, so the next sweep reads it again. */
#ifndef IBSM_SM_PKEY_PROGRAM_H
#define IBSM_SM_PKEY_PROGRAM_H

#include <stdint.h>

#include "../../discovery/sweep.h"
#include "../../mad/mad_transport.h"
#include "../../partition/part_table.h"
#include "pkey_prefetch.h"

struct pkeyprog_entry;

/* What each port's table holds as far as we know (owned by the SM). */
struct pkeyprog_cache {
	struct pkeyprog_entry *e;   /* sorted by key */
	uint32_t n;
	/* Set when a switch answered an enforcement Set with the bits
	 * clear: its SMA does not keep them (ibsim does not), so they are
	 * no longer compared (else every sweep would write them). */
	int enforce_not_kept;
	struct pkey_reads reads;    /* made during the last discovery */
};

struct pkeyprog_stats {
	uint64_t read, written, unchanged;  /* P_KeyTable blocks */
	uint64_t read_early;                /* of read: in the discovery window */
	uint32_t failed;                    /* MADs refused or unanswered */
	uint32_t ports;                     /* ports with a table */
	uint32_t enforce_set;               /* PortInfo enforcement Sets */
};

void pkeyprog_cache_init(struct pkeyprog_cache *c);
void pkeyprog_cache_free(struct pkeyprog_cache *c);
/* Arm h (for sweep_discover_hooked) to read, during discovery, the tables
 * of the ports the cache does not vouch for; pkeyprog_program uses them. */
void pkeyprog_discovery_hook(struct pkeyprog_cache *c, struct sweep_hook *h);
/* Program t on the fabric r. 0, or a negative errno (transport, memory). */
int pkeyprog_program(struct mad_transport *t, struct subnet *r,
		     const struct part_tables *pt, struct pkeyprog_cache *c,
		     struct pkeyprog_stats *st);

#endif
