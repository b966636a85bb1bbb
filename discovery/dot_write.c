/* Graphviz DOT of a topology: switches as boxes, CAs as ellipses, routers
 * as diamonds. Nodes are ranked by kind and distance: CAs and routers on the
 * bottom rank, each switch on the rank of its hop distance from the nearest
 * end node (leaf switches 1, spines 2, ...), so trees draw as trees.
 * Each link is one edge labelled with its two port numbers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "topo_read.h"

static void put_escaped(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, fp);
	}
}

/* Hop distance of every node from the nearest CA/router (BFS), FAB_NONE
 * where none is reachable. */
static uint32_t *end_node_distance(const struct fabric *f)
{
	uint32_t *dist = malloc(((size_t)f->num_nodes + 1) * sizeof(*dist));
	uint32_t *queue = malloc(((size_t)f->num_nodes + 1) * sizeof(*queue));
	if (!dist || !queue) {
		free(dist);
		free(queue);
		return NULL;
	}
	uint32_t head = 0, tail = 0;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		dist[n] = FAB_NONE;
		if (!fab_is_switch(f, n)) {
			dist[n] = 0;
			queue[tail++] = n;
		}
	}
	while (head < tail) {
		uint32_t n = queue[head++];
		const struct fab_node *node = &f->nodes[n];
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t m = fab_peer_node(f, node->first_port + i);
			if (m != FAB_NONE && dist[m] == FAB_NONE) {
				dist[m] = dist[n] + 1;
				queue[tail++] = m;
			}
		}
	}
	free(queue);
	return dist;
}

int topo_write_dot(const struct fabric *f, const char *path)
{
	uint32_t *dist = end_node_distance(f);
	if (!dist)
		return -ENOMEM;
	FILE *fp = fopen(path, "w");
	if (!fp) {
		int e = errno;
		log_err("%s: %s", path, strerror(e));
		free(dist);
		return -e;
	}
	fprintf(fp, "graph fabric {\n\trankdir=BT;\n\tnode [fontsize=10];\n"
		"\tedge [fontsize=8];\n");
	uint32_t max_rank = 0;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *node = &f->nodes[n];
		const char *shape = node->type == FAB_SWITCH ? "box" :
			node->type == FAB_CA ? "ellipse" : "diamond";
		fprintf(fp, "\tn%u [shape=%s, label=\"", n, shape);
		put_escaped(fp, node->desc[0] ? node->desc : node->name);
		fprintf(fp, "\\n0x%llx", (unsigned long long)node->guid);
		uint32_t lid = node->type == FAB_SWITCH ?
			f->ports[node->first_port].lid : 0;
		if (lid)
			fprintf(fp, " lid %u", lid);
		fprintf(fp, "\"];\n");
		if (dist[n] != FAB_NONE && dist[n] > max_rank)
			max_rank = dist[n];
	}
	for (uint32_t r = 0; r <= max_rank; r++) {
		int any = 0;
		for (uint32_t n = 0; n < f->num_nodes; n++) {
			if (dist[n] != r)
				continue;
			if (!any)
				fprintf(fp, "\t{ rank=same;");
			fprintf(fp, " n%u;", n);
			any = 1;
		}
		if (any)
			fprintf(fp, " }\n");
	}
	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint32_t q = f->ports[p].peer;
		if (q == FAB_NONE || q < p)
			continue;
		fprintf(fp, "\tn%u -- n%u [taillabel=\"%u\", headlabel=\"%u\"];\n",
			f->ports[p].node, f->ports[q].node, f->ports[p].num,
			f->ports[q].num);
	}
	fprintf(fp, "}\n");
	free(dist);
	int r = ferror(fp) ? -EIO : 0;
	if (fclose(fp) && !r)
		r = -errno;
	if (r)
		log_err("%s: write failed: %s", path, strerror(-r));
	return r;
}
