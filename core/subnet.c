/* The subnet model's side arrays: allocated with the graph, freed with it
 * (core/subnet.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "subnet.h"
#include "grow.h"

void subnet_init(struct subnet *r)
{
	memset(r, 0, sizeof(*r));
	fab_init(&r->fab);
	r->sm_node = FAB_NONE;
	r->sm_port = FAB_NONE;
}

void subnet_free(struct subnet *r)
{
	fab_free(&r->fab);
	free(r->node_path);
	free(r->sw_info);
	free(r->node_info);
	free(r->port_path);
	free(r->port_info);
	free(r->port_info_ok);
	free(r->link_own);
	free(r->lost);
	subnet_init(r);
}

/* Keep the side arrays as large as the fabric's (the arrays of a kind
 * share cap_nodes or cap_ports). */
int subnet_grow(struct subnet *r)
{
	uint32_t c, nn = r->fab.num_nodes, np = r->fab.num_ports;

	if (nn > r->cap_nodes) {
		uint32_t was = r->cap_nodes;
		if (grow_array_shared((void **)&r->node_path, was, &c, nn,
				      sizeof(*r->node_path), 256) ||
		    grow_array_shared((void **)&r->sw_info, was, &c, nn,
				      sizeof(*r->sw_info), 256) ||
		    grow_array_shared((void **)&r->node_info, was, &c, nn,
				      sizeof(*r->node_info), 256))
			return -ENOMEM;
		r->cap_nodes = c;
	}
	if (np > r->cap_ports) {
		uint32_t was = r->cap_ports;
		if (grow_array_shared((void **)&r->port_path, was, &c, np,
				      sizeof(*r->port_path), 1024) ||
		    grow_array_shared((void **)&r->port_info, was, &c, np,
				      sizeof(*r->port_info), 1024) ||
		    grow_array_shared((void **)&r->port_info_ok, was, &c, np, 1, 1024) ||
		    grow_array_shared((void **)&r->link_own, was, &c, np, 1, 1024))
			return -ENOMEM;
		memset(r->port_info_ok + was, 0, c - was);
		memset(r->link_own + was, 0, c - was);
		r->cap_ports = c;
	}
	return 0;
}
