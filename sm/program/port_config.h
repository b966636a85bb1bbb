/* PortInfo programming (IBA 14.2.5.6, 14.2.5.6.1 and the port state machine
 * of 7.2): every port that holds a LID gets LID, LMC, MasterSMLID, GID
 * prefix and SubnetTimeOut; every linked port gets NeighborMTU and
 * OperationalVLs agreed by both ends; then INIT -> ARMED, and once the
 * forwarding tables are in, ARMED -> ACTIVE. A port already configured and
 * ACTIVE is left alone (no MAD). */
#ifndef IBSM_SM_PORT_CONFIG_H
#define IBSM_SM_PORT_CONFIG_H

#include <stdint.h>
#include "../../core/subnet.h"
#include "../../mad/mad_transport.h"
#include "../health/link_hold.h"

struct portcfg_opts {
	uint64_t gid_prefix;
	uint16_t sm_lid;
	uint8_t subnet_timeout;
	/* M_Key (IBA 14.2.4): written to CA ports and switch port 0 when
	 * m_key is not 0, with its protect bits and lease period. */
	uint64_t m_key;
	uint8_t mkey_prot;
	uint16_t mkey_lease;
	/* Set when a port answered our M_Key Set with M_Key 0: its SMA does
	 * not keep M_Key (ibsim), so M_Key is not compared from then on
	 * (else every sweep would write every port). Kept by the caller. */
	int *mkey_not_kept;
	/* The `disable` action (sm_perf.h): ends in `down` are set to
	 * PortState Down and PortPhysicalState Disabled, and neither end of
	 * their links is armed; ends in `wake` are set to PortPhysicalState
	 * Polling (the link trains again; ibsim keeps it in INIT), then
	 * dropped from `wake`. NULL: none. */
	const struct link_hold *down;
	struct link_hold *wake;
	/* ClientReregister (IBA 14.4.11): set on every end port (CA ports,
	 * switch port 0) in the sweep that makes us master; the port's
	 * clients then re-join their groups and re-register services and
	 * subscriptions. */
	int client_rereg;
	/* Switch external ports: HOQLife and VLStallCount, the leaf_ values
	 * on ports facing a CA or router (OpenSM's defaults: 0x12/0x10, 7/7). */
	int set_timers;
	uint8_t hoq_life, leaf_hoq_life, vl_stall, leaf_vl_stall;
	/* QoS on: VLHighLimit of each port type (qos_*_high_limit, indexed
	 * by enum qos_port_type), as OpenSM's `qos TRUE` writes it on CA,
	 * router and switch external ports and an enhanced port 0 (0 on a
	 * port with one data VL). NULL: left as it is. */
	const uint8_t *vl_high_limit;
	/* Set when a port answered our VLHighLimit Set with another value:
	 * its SMA does not keep it (ibsim), so it is written but no longer
	 * compared (else every sweep would write every port). */
	int *vl_high_limit_not_kept;
};

struct portcfg_stats {
	uint32_t sets;              /* PortInfo Sets answered */
	uint32_t unchanged;         /* ports that needed nothing */
	uint32_t failed;            /* Sets refused or unanswered */
	uint32_t active;            /* linked ports ACTIVE at the end */
	uint32_t not_active;        /* linked ports that are not */
	uint32_t disabled;          /* link ends taken down this sweep */
	uint32_t woken;             /* ends set to Polling this sweep */
	uint32_t rereg;             /* Sets carrying ClientReregister */
	uint32_t rereg_capable;     /* of them, to ports advertising it */
	uint32_t timer_ports;       /* switch ports whose timers were changed */
};

/* Pass 1: configuration, and INIT ports to ARMED. The raw PortInfo in r is
 * updated from the answers. */
int portcfg_configure(struct mad_transport *t, struct subnet *r,
		      const struct portcfg_opts *o, struct portcfg_stats *st);
/* Last, once the tables route around them: the link ends in o->down
 * that are still up go Down / Disabled (counted in st->disabled). */
int portcfg_disable(struct mad_transport *t, struct subnet *r,
		    const struct portcfg_opts *o, struct portcfg_stats *st);
/* Pass 2: ARMED ports to ACTIVE; counts active / not_active (the ends
 * in o->down are neither armed nor counted). */
int portcfg_activate(struct mad_transport *t, struct subnet *r,
		     const struct portcfg_opts *o, struct portcfg_stats *st);

#endif
