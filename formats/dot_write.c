/* Graphviz DOT of a topology: switches as boxes, CAs as ellipses, routers
 * as diamonds. Nodes are ranked by kind and distance: CAs and routers on the
 * bottom rank, each switch on the rank of its hop distance from the nearest
 * end node (leaf switches 1, spines 2, ...), so trees draw as trees.
 * Each link is one edge labelled with its two port numbers; with a heat map
 * (topo_write_dot_heat) also coloured and sized by its load. */
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

/* Blue (hue 0.667) at no load to red (hue 0) at the maximum, in
 * Graphviz's "H S V" notation. */
static void heat_edge(FILE *fp, const struct dot_heat *h, uint32_t p,
		      uint32_t q, double max)
{
	double a = h->load ? h->load[p] : 0, b = h->load ? h->load[q] : 0;
	double top = a > b ? a : b, x = max > 0 ? top / max : 0;

	if (h->held && (h->held[p] || h->held[q])) {
		fprintf(fp, ", style=dashed, color=\"0.000 0.000 0.500\", label=\"avoided\"");
		return;
	}
	if (!h->load)
		return;
	fprintf(fp, ", color=\"%.3f 1.000 %.3f\", penwidth=%.2f, label=\"%.4g / %.4g%s%s\"",
		0.667 * (1.0 - x), 0.55 + 0.45 * x, 1.0 + 5.0 * x, a, b,
		h->unit ? " " : "", h->unit ? h->unit : "");
}

int topo_write_dot(const struct fabric *f, const char *path)
{
	return topo_write_dot_heat(f, path, NULL);
}

int topo_write_dot_heat(const struct fabric *f, const char *path,
			const struct dot_heat *heat)
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
	double max = 0;
	if (heat && heat->load)
		for (uint32_t p = 0; p < f->num_ports; p++)
			if (f->ports[p].peer != FAB_NONE && heat->load[p] > max &&
			    !(heat->held && heat->held[p]))
				max = heat->load[p];
	if (heat && heat->load)
		fprintf(fp, "\tlabel=\"link load, busiest %.4g%s%s (red); label: tail->head / head->tail\";\n",
			max, heat->unit ? " " : "", heat->unit ? heat->unit : "");
	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint32_t q = f->ports[p].peer;
		if (q == FAB_NONE || q < p)
			continue;
		fprintf(fp, "\tn%u -- n%u [taillabel=\"%u\", headlabel=\"%u\"",
			f->ports[p].node, f->ports[q].node, f->ports[p].num,
			f->ports[q].num);
		if (heat)
			heat_edge(fp, heat, p, q, max);
		fprintf(fp, "];\n");
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
