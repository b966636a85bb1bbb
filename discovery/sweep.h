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
#include "../core/subnet.h"
#include "../mad/smp.h"
#include "../mad/mad_transport.h"

/* Sweep from the local port of t. Returns 0 (even if parts of the fabric
 * did not answer; see lost_*), -EIO if even the local node did not answer,
 * or -ENOMEM. */
int sweep_discover(struct mad_transport *t, struct subnet *r);

/* A caller's reads that belong in the discovery window (the SM reads the
 * P_Key tables it may program there, so they overlap the sweep instead of
 * making a phase of their own). port_seen runs after each PortInfo answer
 * is recorded in r; it may submit Gets on t, drained with the sweep's own.
 * Indices into r are the sweep's working ones, renumbered before
 * sweep_discover returns: keep GUIDs and port numbers, not indices. */
struct sweep_hook {
	void (*port_seen)(void *ctx, struct mad_transport *t,
			  const struct subnet *r, uint32_t port);
	void *ctx;
};

int sweep_discover_hooked(struct mad_transport *t, struct subnet *r,
			  const struct sweep_hook *hook);

#endif
