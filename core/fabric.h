/* The fabric graph: nodes, ports and links as compact arrays indexed by
 * integers. Everything else in ibsm (readers, the live sweep, engines, the
 * verifier, the SM) speaks in these indices.
 *
 * Layout: node n owns ports[n.first_port .. n.first_port + n.num_ports],
 * i.e. num_ports + 1 slots; slot 0 is port 0 (the switch management port;
 * unused for CAs and routers). A link is a pair of ports whose `peer` fields
 * point at each other. */
#ifndef IBSM_CORE_FABRIC_H
#define IBSM_CORE_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#define FAB_NONE UINT32_MAX     /* no node / no port */
#define FAB_DESC_LEN 64         /* NodeDescription is 64 bytes (IBA 14.2.5.2) */
#define FAB_MAX_PORTS 254       /* physical ports per node, port 0 excluded */
#define FAB_MAX_UCAST_LID 0xBFFF /* top of the unicast LID range (IBA 4.1.3) */

enum fab_node_type {
	FAB_CA = 1,             /* values match NodeInfo.NodeType */
	FAB_SWITCH = 2,
	FAB_ROUTER = 3,
};

/* PortInfo.PortState values (IBA 14.2.5.6). */
enum fab_port_state {
	FAB_PORT_NOCHANGE = 0,
	FAB_PORT_DOWN = 1,
	FAB_PORT_INIT = 2,
	FAB_PORT_ARMED = 3,
	FAB_PORT_ACTIVE = 4,
};

struct fab_node {
	uint64_t guid;          /* NodeGUID */
	uint64_t sys_guid;      /* SystemImageGUID, 0 if unknown */
	uint32_t first_port;    /* index of this node's port 0 in fabric.ports */
	uint32_t sw_index;      /* dense switch ordinal, FAB_NONE for non-switches */
	uint32_t vendor_id;
	uint16_t device_id;
	uint8_t type;           /* enum fab_node_type */
	uint8_t num_ports;      /* physical ports, port 0 not counted */
	uint8_t enhanced_sp0;   /* switch: enhanced port 0 (has its own PortInfo) */
	char desc[FAB_DESC_LEN + 1];
	char name[FAB_DESC_LEN + 1]; /* id in the source file ("S-..." / "Switch1") */
};

struct fab_port {
	uint64_t guid;          /* PortGUID (a switch's ports share port 0's) */
	uint32_t node;          /* owning node index */
	uint32_t peer;          /* linked port index, FAB_NONE if unlinked */
	uint32_t lid;           /* base LID, 0 = none. Switches: port 0 only */
	uint8_t num;            /* port number on its node */
	uint8_t lmc;
	uint8_t state;          /* enum fab_port_state, 0 if unknown */
	uint8_t phys_state;
	uint8_t width;          /* LinkWidthActive, IBA encoding (1,2,4,8,16), 0 if unknown */
	uint8_t speed;          /* LinkSpeedActive, IBA encoding, 0 if unknown */
	uint8_t mtu;            /* NeighborMTU / MTUCap, IBA encoding, 0 if unknown */
	uint8_t vls;            /* OperationalVLs, IBA encoding, 0 if unknown */
};

struct fabric {
	struct fab_node *nodes;
	struct fab_port *ports;
	uint32_t *switches;     /* switches[i] = node index of switch ordinal i */
	uint32_t num_nodes, cap_nodes;
	uint32_t num_ports, cap_ports;
	uint32_t num_switches, cap_switches;
	uint32_t num_cas;       /* CA nodes (routers are counted separately) */
	uint32_t num_routers;
	uint32_t *guid_index;   /* open-addressing hash of node GUIDs, lazily built */
	uint32_t guid_index_cap;
};

/* Lifecycle. fab_init zeroes; fab_free releases and zeroes. */
void fab_init(struct fabric *f);
void fab_free(struct fabric *f);

/* Add a node with num_ports physical ports (0 < num_ports <= FAB_MAX_PORTS).
 * Returns the node index, or FAB_NONE on allocation failure or bad count.
 * Pointers into nodes/ports are invalidated by fab_add_node. */
uint32_t fab_add_node(struct fabric *f, enum fab_node_type type,
		      uint8_t num_ports, uint64_t guid, const char *desc);

/* Index of port `num` of node n, or FAB_NONE if num > num_ports. */
static inline uint32_t fab_port_idx(const struct fabric *f, uint32_t n,
				    unsigned num)
{
	if (num > f->nodes[n].num_ports)
		return FAB_NONE;
	return f->nodes[n].first_port + num;
}

static inline struct fab_port *fab_port(const struct fabric *f, uint32_t n,
					unsigned num)
{
	return &f->ports[f->nodes[n].first_port + num];
}

/* Link two ports (by port index). Returns 0, -EINVAL if either is port 0 or
 * the same port, -EEXIST if either is linked to a different port already.
 * Linking an already-linked pair again is a no-op returning 0. */
int fab_link(struct fabric *f, uint32_t port_a, uint32_t port_b);
void fab_unlink(struct fabric *f, uint32_t port);

/* Call after changing node GUIDs in place: the lookup index is rebuilt. */
void fab_guids_changed(struct fabric *f);

/* Node at the far end of port p, or FAB_NONE. */
static inline uint32_t fab_peer_node(const struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;
	return q == FAB_NONE ? FAB_NONE : f->ports[q].node;
}

static inline int fab_is_switch(const struct fabric *f, uint32_t n)
{
	return f->nodes[n].type == FAB_SWITCH;
}

/* The LID that addresses port p: a switch's ports share the LID of its
 * port 0; a CA or router port has its own. */
static inline uint32_t fab_port_lid(const struct fabric *f, uint32_t p)
{
	uint32_t n = f->ports[p].node;
	return fab_is_switch(f, n) ? f->ports[f->nodes[n].first_port].lid :
		f->ports[p].lid;
}

/* Lookup by GUID (linear scan is avoided: a hash index is built lazily and
 * dropped whenever a node is added). Returns FAB_NONE if absent. */
uint32_t fab_find_node_guid(struct fabric *f, uint64_t guid);

/* Highest base LID + (1 << lmc) - 1 over all endpoint ports. */
uint32_t fab_max_lid(const struct fabric *f);

/* Endpoint ports: the ports that own LIDs (switch port 0, CA/router ports
 * that are linked). Fills out[] (may be NULL to count) in node order and
 * returns the count. */
uint32_t fab_endpoint_ports(const struct fabric *f, uint32_t *out);

/* Links between two ports of one node (a cable looped back into the same
 * switch) carry no route anywhere: unlink them, each logged as
 * "ORIGIN: ...". Returns how many. */
uint32_t fab_unlink_self_loops(struct fabric *f, const char *origin);
int fab_has_self_loops(const struct fabric *f);

/* Deep copy. Returns 0 or -ENOMEM. */
int fab_clone(struct fabric *dst, const struct fabric *src);

/* Short text for a node type: "Switch", "Ca", "Router". */
const char *fab_type_str(uint8_t type);

#endif
