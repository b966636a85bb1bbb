/* The fabric graph's storage: growable arrays and a lazily built GUID index. */
#include "fabric.h"
#include "grow.h"

#include "log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fab_init(struct fabric *f)
{
	memset(f, 0, sizeof(*f));
}

void fab_free(struct fabric *f)
{
	free(f->guid_index);
	free(f->switches);
	free(f->ports);
	free(f->nodes);
	memset(f, 0, sizeof(*f));
}

static void drop_guid_index(struct fabric *f)
{
	free(f->guid_index);
	f->guid_index = NULL;
	f->guid_index_cap = 0;
}

void fab_guids_changed(struct fabric *f)
{
	drop_guid_index(f);
}

uint32_t fab_add_node(struct fabric *f, enum fab_node_type type,
		      uint8_t num_ports, uint64_t guid, const char *desc)
{
	if (num_ports == 0 || num_ports > FAB_MAX_PORTS)
		return FAB_NONE;
	if (type != FAB_CA && type != FAB_SWITCH && type != FAB_ROUTER)
		return FAB_NONE;
	uint32_t slots = (uint32_t)num_ports + 1;
	if (f->num_ports > UINT32_MAX - slots - 1)
		return FAB_NONE;
	if (grow_array((void **)&f->nodes, &f->cap_nodes, f->num_nodes + 1,
		       sizeof(*f->nodes), 64) ||
	    grow_array((void **)&f->ports, &f->cap_ports, f->num_ports + slots,
		       sizeof(*f->ports), 64))
		return FAB_NONE;
	if (type == FAB_SWITCH &&
	    grow_array((void **)&f->switches, &f->cap_switches,
		       f->num_switches + 1, sizeof(*f->switches), 64))
		return FAB_NONE;

	uint32_t n = f->num_nodes++;
	struct fab_node *node = &f->nodes[n];
	memset(node, 0, sizeof(*node));
	node->guid = guid;
	node->type = (uint8_t)type;
	node->num_ports = num_ports;
	node->first_port = f->num_ports;
	node->sw_index = FAB_NONE;
	if (desc) {
		strncpy(node->desc, desc, FAB_DESC_LEN);
		node->desc[FAB_DESC_LEN] = '\0';
	}
	for (uint32_t i = 0; i < slots; i++) {
		struct fab_port *p = &f->ports[f->num_ports + i];
		memset(p, 0, sizeof(*p));
		p->node = n;
		p->peer = FAB_NONE;
		p->num = (uint8_t)i;
		/* Switch ports all carry the switch's port GUID (port 0's). */
		p->guid = type == FAB_SWITCH ? guid : 0;
	}
	f->num_ports += slots;
	if (type == FAB_SWITCH) {
		node->sw_index = f->num_switches;
		f->switches[f->num_switches++] = n;
	} else if (type == FAB_CA) {
		f->num_cas++;
	} else {
		f->num_routers++;
	}
	drop_guid_index(f);
	return n;
}

int fab_link(struct fabric *f, uint32_t a, uint32_t b)
{
	if (a >= f->num_ports || b >= f->num_ports || a == b)
		return -EINVAL;
	if (f->ports[a].num == 0 || f->ports[b].num == 0)
		return -EINVAL;
	if (f->ports[a].peer == b && f->ports[b].peer == a)
		return 0;
	if (f->ports[a].peer != FAB_NONE || f->ports[b].peer != FAB_NONE)
		return -EEXIST;
	f->ports[a].peer = b;
	f->ports[b].peer = a;
	return 0;
}

void fab_unlink(struct fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;
	if (q != FAB_NONE)
		f->ports[q].peer = FAB_NONE;
	f->ports[p].peer = FAB_NONE;
}

static uint32_t guid_hash(uint64_t guid, uint32_t mask)
{
	guid ^= guid >> 33;
	guid *= 0xff51afd7ed558ccdULL;
	guid ^= guid >> 33;
	return (uint32_t)guid & mask;
}

static int build_guid_index(struct fabric *f)
{
	uint32_t cap = 16;
	while (cap < f->num_nodes * 2u)
		cap *= 2;
	uint32_t *idx = malloc(cap * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	memset(idx, 0xff, cap * sizeof(*idx));
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		uint32_t h = guid_hash(f->nodes[n].guid, cap - 1);
		while (idx[h] != FAB_NONE)
			h = (h + 1) & (cap - 1);
		idx[h] = n;
	}
	f->guid_index = idx;
	f->guid_index_cap = cap;
	return 0;
}

uint32_t fab_find_node_guid(struct fabric *f, uint64_t guid)
{
	if (!f->num_nodes)
		return FAB_NONE;
	if (!f->guid_index && build_guid_index(f)) {
		for (uint32_t n = 0; n < f->num_nodes; n++)
			if (f->nodes[n].guid == guid)
				return n;
		return FAB_NONE;
	}
	uint32_t mask = f->guid_index_cap - 1;
	for (uint32_t h = guid_hash(guid, mask);; h = (h + 1) & mask) {
		uint32_t n = f->guid_index[h];
		if (n == FAB_NONE || f->nodes[n].guid == guid)
			return n;
	}
}

uint32_t fab_endpoint_ports(const struct fabric *f, uint32_t *out)
{
	uint32_t count = 0;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *node = &f->nodes[n];
		if (node->type == FAB_SWITCH) {
			if (out)
				out[count] = node->first_port;
			count++;
			continue;
		}
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t p = node->first_port + i;
			if (f->ports[p].peer == FAB_NONE)
				continue;
			if (out)
				out[count] = p;
			count++;
		}
	}
	return count;
}

uint32_t fab_max_lid(const struct fabric *f)
{
	uint32_t max = 0;
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct fab_port *port = &f->ports[p];
		if (!port->lid)
			continue;
		uint32_t top = port->lid + (1u << port->lmc) - 1;
		if (top > max)
			max = top;
	}
	return max;
}

int fab_clone(struct fabric *dst, const struct fabric *src)
{
	fab_init(dst);
	dst->nodes = malloc((size_t)(src->num_nodes ? src->num_nodes : 1) * sizeof(*dst->nodes));
	dst->ports = malloc((size_t)(src->num_ports ? src->num_ports : 1) * sizeof(*dst->ports));
	dst->switches = malloc((size_t)(src->num_switches ? src->num_switches : 1) * sizeof(*dst->switches));
	if (!dst->nodes || !dst->ports || !dst->switches) {
		fab_free(dst);
		return -ENOMEM;
	}
	/* memcpy from NULL is undefined even for 0 bytes (empty or switchless). */
	if (src->num_nodes)
		memcpy(dst->nodes, src->nodes, (size_t)src->num_nodes * sizeof(*dst->nodes));
	if (src->num_ports)
		memcpy(dst->ports, src->ports, (size_t)src->num_ports * sizeof(*dst->ports));
	if (src->num_switches)
		memcpy(dst->switches, src->switches, (size_t)src->num_switches * sizeof(*dst->switches));
	dst->num_nodes = dst->cap_nodes = src->num_nodes;
	dst->num_ports = dst->cap_ports = src->num_ports;
	dst->num_switches = dst->cap_switches = src->num_switches;
	dst->num_cas = src->num_cas;
	dst->num_routers = src->num_routers;
	return 0;
}

const char *fab_type_str(uint8_t type)
{
	switch (type) {
	case FAB_CA: return "Ca";
	case FAB_SWITCH: return "Switch";
	case FAB_ROUTER: return "Router";
	}
	return "Unknown";
}

uint32_t fab_unlink_self_loops(struct fabric *f, const char *origin)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint32_t q = f->ports[p].peer;

		if (q == FAB_NONE || q < p || f->ports[q].node != f->ports[p].node)
			continue;
		log_warn("%s: \"%s\" (0x%016llx) ports %u and %u are cabled to each other: left out of routing",
			 origin, f->nodes[f->ports[p].node].desc[0] ?
			 f->nodes[f->ports[p].node].desc : f->nodes[f->ports[p].node].name,
			 (unsigned long long)f->nodes[f->ports[p].node].guid,
			 f->ports[p].num, f->ports[q].num);
		fab_unlink(f, p);
		n++;
	}
	return n;
}

int fab_has_self_loops(const struct fabric *f)
{
	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint32_t q = f->ports[p].peer;

		if (q != FAB_NONE && f->ports[q].node == f->ports[p].node)
			return 1;
	}
	return 0;
}
