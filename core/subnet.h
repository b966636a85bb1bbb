/* The subnet model: what a sweep learnt of the live subnet, read by
 * everyone above discovery (SA, multicast, partitions, the SM's
 * programming and health phases). The fabric graph (core/fabric.h) plus
 * what the graph does not hold: the raw NodeInfo/PortInfo/SwitchInfo as
 * read (Sets start from them, the SA answers records from them), the
 * directed route to every node and port, and what went unanswered.
 * discovery/sweep.c fills it; nothing here does I/O. */
#ifndef IBSM_CORE_SUBNET_H
#define IBSM_CORE_SUBNET_H

#include <stdint.h>
#include "fabric.h"
#include "dr_path.h"

/* A request discovery gave up on after every try and every round: the
 * node it asked (an attribute) or the node a NodeInfo probe went out of,
 * and by which port; with the DR path it was sent on. The same key lost
 * sweep after sweep is a silent node, not loss (sm/health/sweep_guard.h). */
struct sweep_lost {
	uint64_t guid;          /* node asked, or node the probe left */
	uint16_t attr;          /* IB_ATTR_NODE_INFO for a probe */
	uint8_t port;           /* port probed out of, or attribute's port */
	struct smp_path path;
};

struct subnet {
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

void subnet_init(struct subnet *r);
void subnet_free(struct subnet *r);
/* Grow the side arrays to the fabric's node and port counts (after nodes
 * were added). Returns 0 or -ENOMEM. */
int subnet_grow(struct subnet *r);

#endif
