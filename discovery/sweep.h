/* Live discovery: a breadth-first sweep of the subnet with directed-route
 * SMPs (IBA 14.2.2: NodeInfo, NodeDescription, SwitchInfo, PortInfo of
 * every port), building the same fabric graph the offline readers build,
 * plus what the SM needs to program the fabric afterwards (the route to
 * every node and port, and the raw PortInfo/SwitchInfo as read, so Sets
 * can start from them).
 *
 * Nodes are deduplicated by NodeGUID, so loops in the cabling and
 * dual-port HCAs reached twice end up as one node. A link reached only
 * from its far side is probed from its own side too, so two nodes that
 * answer with one GUID show as a port linked two ways: the GUID is
 * reported with both paths and the second node left out (dup_guids).
 * A node that never answers is logged and left out; nothing here is
 * fatal but memory. */
#ifndef IBSM_DISCOVERY_SWEEP_H
#define IBSM_DISCOVERY_SWEEP_H

#include <stdint.h>
#include "../core/fabric.h"
#include "../mad/smp.h"
#include "../mad/mad_transport.h"

/* A request discovery gave up on after every try and every round: the
 * node it asked (an attribute) or the node a NodeInfo probe went out of,
 * and by which port; with the DR path it was sent on. The same key lost
 * sweep after sweep is a silent node, not loss (sm/sweep_guard.h). */
struct sweep_lost {
	uint64_t guid;          /* node asked, or node the probe left */
	uint16_t attr;          /* IB_ATTR_NODE_INFO for a probe */
	uint8_t port;           /* port probed out of, or attribute's port */
	struct smp_path path;
};

struct sweep_result {
	struct fabric fab;
	/* Indexed like fab.nodes: the DR path that reached each node. */
	struct smp_path *node_path;
	uint8_t (*sw_info)[64];         /* raw SwitchInfo (switches only) */
	uint8_t (*node_info)[64];       /* raw NodeInfo as first read (the SA
	                                 * answers NodeRecords from it) */
	/* Indexed like fab.ports: the path whose SMA answers for that port
	 * (a CA port is set through the path that enters by it) and the raw
	 * PortInfo as read (valid when port_info_ok[p] == 1). */
	struct smp_path *port_path;
	uint8_t (*port_info)[64];
	uint8_t *port_info_ok;
	uint32_t cap_nodes, cap_ports;  /* sizes of the side arrays */
	uint32_t sm_node;               /* our node, FAB_NONE if unknown */
	uint32_t sm_port;               /* our port (index into fab.ports) */
	uint32_t lost_probes;           /* NodeInfo probes that never answered */
	uint32_t lost_attrs;            /* other attributes that never answered */
	struct sweep_lost *lost;        /* what lost_probes and lost_attrs
	                                 * count (num_lost of them; fewer
	                                 * only when memory ran out) */
	uint32_t num_lost, cap_lost;
	uint32_t redo_rounds;           /* rounds of asking failures again */
	uint32_t redone;                /* requests asked again, all rounds */
	/* NodeGUIDs answered by two different nodes (IBA 14.2.5.3 makes them
	 * unique; a cloned or misprogrammed device breaks that). The node
	 * reached first keeps the GUID; the other one is left out, with the
	 * links to it, so it is never merged into the first. */
	uint32_t dup_guids;
	/* Indexed like fab.ports, during the sweep only: 1 when the port's
	 * link was seen from the port's own side (a probe sent out of it),
	 * which proves the link belongs to the node on our path, not to
	 * another node answering with the same GUID. */
	uint8_t *link_own;
};

void sweep_result_init(struct sweep_result *r);
void sweep_result_free(struct sweep_result *r);

/* Sweep from the local port of t. Returns 0 (even if parts of the fabric
 * did not answer; see lost_*), -EIO if even the local node did not answer,
 * or -ENOMEM. */
int sweep_discover(struct mad_transport *t, struct sweep_result *r);

/* A caller's reads that belong in the discovery window (the SM reads the
 * P_Key tables it may program there, so they overlap the sweep instead of
 * making a phase of their own). port_seen runs after each PortInfo answer
 * is recorded in r; it may submit Gets on t, drained with the sweep's own.
 * Indices into r are the sweep's working ones, renumbered before
 * sweep_discover returns: keep GUIDs and port numbers, not indices. */
struct sweep_hook {
	void (*port_seen)(void *ctx, struct mad_transport *t,
			  const struct sweep_result *r, uint32_t port);
	void *ctx;
};

int sweep_discover_hooked(struct mad_transport *t, struct sweep_result *r,
			  const struct sweep_hook *hook);

#endif
