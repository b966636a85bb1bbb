/* topo-diff: read two topology files and report how they differ.
 *
 *   topo-diff [options] A B
 *     -1 FMT, -2 FMT   format of A / B: auto (default), ibnd, net
 *     --lids           also compare LIDs and LMCs of endpoint ports
 *     --rates          also compare link width and speed
 *     --no-desc        do not compare node descriptions
 *     -q               print only the summary line
 *
 * Nodes are matched by node GUID, links by (GUID, port) at both ends.
 * Exit 0 if equal, 1 if different, 2 on bad usage or unreadable input. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/log.h"
#include "formats/topo_read.h"

struct diff_opts {
	int lids, rates, desc, quiet;
	unsigned long count;    /* differences found so far */
};

static void report(struct diff_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(struct diff_opts *o, const char *fmt, ...)
{
	o->count++;
	if (o->quiet || o->count > 200)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int parse_fmt(const char *s, enum topo_format *fmt)
{
	if (!strcmp(s, "auto"))
		*fmt = TOPO_AUTO;
	else if (!strcmp(s, "ibnd") || !strcmp(s, "ibnetdiscover"))
		*fmt = TOPO_IBNETDISCOVER;
	else if (!strcmp(s, "net") || !strcmp(s, "ibsim"))
		*fmt = TOPO_IBSIM_NET;
	else if (!strcmp(s, "subnet-lst") || !strcmp(s, "osm"))
		*fmt = TOPO_OSM_SUBNET;
	else
		return -1;
	return 0;
}

/* Compare node n of a with node m of b (same GUID). */
static void diff_node(struct diff_opts *o, struct fabric *a, uint32_t n,
		      struct fabric *b, uint32_t m)
{
	const struct fab_node *x = &a->nodes[n], *y = &b->nodes[m];
	uint64_t g = x->guid;
	if (x->type != y->type)
		report(o, "node 0x%016" PRIx64 ": type %s vs %s", g,
		       fab_type_str(x->type), fab_type_str(y->type));
	if (x->num_ports != y->num_ports)
		report(o, "node 0x%016" PRIx64 ": %u ports vs %u", g, x->num_ports,
		       y->num_ports);
	if (o->desc && strcmp(x->desc, y->desc))
		report(o, "node 0x%016" PRIx64 ": description \"%s\" vs \"%s\"", g,
		       x->desc, y->desc);
	/* A dump may lack sysimgguid; compare only when both files give one. */
	if (x->sys_guid && y->sys_guid && x->sys_guid != y->sys_guid)
		report(o, "node 0x%016" PRIx64 ": SystemImageGUID 0x%" PRIx64
		       " vs 0x%" PRIx64, g, x->sys_guid, y->sys_guid);
	if (x->vendor_id != y->vendor_id || x->device_id != y->device_id)
		report(o, "node 0x%016" PRIx64 ": vendor/device 0x%x/0x%x vs "
		       "0x%x/0x%x", g, x->vendor_id, x->device_id, y->vendor_id,
		       y->device_id);
	if (o->lids && x->type == FAB_SWITCH && y->type == FAB_SWITCH) {
		const struct fab_port *p = fab_port(a, n, 0), *q = fab_port(b, m, 0);
		if (p->lid != q->lid)
			report(o, "switch 0x%016" PRIx64 ": lid %u vs %u", g, p->lid,
			       q->lid);
	}
	unsigned np = x->num_ports < y->num_ports ? x->num_ports : y->num_ports;
	for (unsigned i = 1; i <= np; i++) {
		const struct fab_port *p = fab_port(a, n, i), *q = fab_port(b, m, i);
		uint32_t pn = fab_peer_node(a, fab_port_idx(a, n, i));
		uint32_t qn = fab_peer_node(b, fab_port_idx(b, m, i));
		if (pn == FAB_NONE && qn == FAB_NONE)
			continue;
		if (pn == FAB_NONE || qn == FAB_NONE) {
			const struct fabric *h = pn == FAB_NONE ? b : a;
			uint32_t hn = pn == FAB_NONE ? qn : pn;
			uint32_t hp = pn == FAB_NONE ? q->peer : p->peer;
			report(o, "link 0x%016" PRIx64 "[%u] -> 0x%016" PRIx64 "[%u] only in %s",
			       g, i, h->nodes[hn].guid, h->ports[hp].num,
			       pn == FAB_NONE ? "B" : "A");
			continue;
		}
		uint64_t pg = a->nodes[pn].guid, qg = b->nodes[qn].guid;
		unsigned pr = a->ports[p->peer].num, qr = b->ports[q->peer].num;
		if (pg != qg || pr != qr)
			report(o, "link 0x%016" PRIx64 "[%u]: -> 0x%016" PRIx64 "[%u] vs "
			       "-> 0x%016" PRIx64 "[%u]", g, i, pg, pr, qg, qr);
		if (x->type != FAB_SWITCH && p->guid != q->guid)
			report(o, "port 0x%016" PRIx64 "[%u]: GUID 0x%016" PRIx64
			       " vs 0x%016" PRIx64, g, i, p->guid, q->guid);
		if (o->lids && x->type != FAB_SWITCH &&
		    (p->lid != q->lid || p->lmc != q->lmc))
			report(o, "port 0x%016" PRIx64 "[%u]: lid %u lmc %u vs lid %u lmc %u",
			       g, i, p->lid, p->lmc, q->lid, q->lmc);
		if (o->rates && (p->width != q->width || p->speed != q->speed))
			report(o, "port 0x%016" PRIx64 "[%u]: width %u speed %u vs "
			       "width %u speed %u", g, i, p->width, p->speed, q->width,
			       q->speed);
	}
}

static unsigned long topo_diff(struct diff_opts *o, struct fabric *a,
			       struct fabric *b)
{
	for (uint32_t n = 0; n < a->num_nodes; n++) {
		uint32_t m = fab_find_node_guid(b, a->nodes[n].guid);
		if (m == FAB_NONE)
			report(o, "node 0x%016" PRIx64 " (%s \"%s\") only in A",
			       a->nodes[n].guid, fab_type_str(a->nodes[n].type),
			       a->nodes[n].desc);
		else
			diff_node(o, a, n, b, m);
	}
	for (uint32_t m = 0; m < b->num_nodes; m++)
		if (fab_find_node_guid(a, b->nodes[m].guid) == FAB_NONE)
			report(o, "node 0x%016" PRIx64 " (%s \"%s\") only in B",
			       b->nodes[m].guid, fab_type_str(b->nodes[m].type),
			       b->nodes[m].desc);
	return o->count;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: topo-diff [-1 FMT] [-2 FMT] [--lids] [--rates] "
		"[--no-desc] [-q] A B\n  FMT: auto, ibnd, net\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lids", no_argument, NULL, 'l' },
		{ "rates", no_argument, NULL, 'r' },
		{ "no-desc", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct diff_opts o = { .desc = 1 };
	enum topo_format fa = TOPO_AUTO, fb = TOPO_AUTO;
	int c;
	log_set_prog("topo-diff");
	while ((c = getopt_long(argc, argv, "1:2:qh", longopts, NULL)) != -1) {
		switch (c) {
		case '1':
		case '2':
			if (parse_fmt(optarg, c == '1' ? &fa : &fb)) {
				fprintf(stderr, "topo-diff: unknown format \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'l': o.lids = 1; break;
		case 'r': o.rates = 1; break;
		case 'D': o.desc = 0; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	struct fabric a, b;
	if (topo_read(&a, argv[optind], fa))
		return 2;
	if (topo_read(&b, argv[optind + 1], fb)) {
		fab_free(&a);
		return 2;
	}
	unsigned long d = topo_diff(&o, &a, &b);
	printf("%s: %u nodes, %s: %u nodes, %lu difference%s\n", argv[optind],
	       a.num_nodes, argv[optind + 1], b.num_nodes, d, d == 1 ? "" : "s");
	fab_free(&a);
	fab_free(&b);
	return d ? 1 : 0;
}
