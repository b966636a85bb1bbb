/* verify_routes: build the shared view (LID owners, terminals, switch
 * graph), run the passes, and give the verdict. The passes live in
 * verify_dest.c (per destination), verify_cdg.c (credit loops),
 * verify_load.c (bounds, shifts) and verify_lmc.c (path diversity). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/log.h"
#include "verify_internal.h"

void vx_err_add(struct vx_errors *e, const char *fmt, ...)
{
	if (e->count >= e->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg[e->count++], VERIFY_ERR_LEN, fmt, ap);
	va_end(ap);
}

const char *vx_sw_name(const struct vx *x, uint32_t s, char *buf, size_t len)
{
	const struct fab_node *n = &x->f->nodes[x->f->switches[s]];
	if (n->desc[0])
		snprintf(buf, len, "'%s'", n->desc);
	else
		snprintf(buf, len, "0x%016" PRIx64, n->guid);
	return buf;
}

enum vx_step vx_step(const struct vx *x, uint32_t s, uint32_t lid,
		     uint32_t *next, uint32_t *egress)
{
	uint8_t p = s < x->t->num_switches ? lft_get(x->t, s, lid) : LFT_NO_PATH;
	return vx_step_port(x, s, lid, p, next, egress);
}

static void vx_free(struct vx *x)
{
	free(x->owner);
	free(x->term);
	free(x->term_sw);
	free(x->term_of_port);
	free(x->sw_term_off);
	free(x->sw_term);
	free(x->adj_off);
	free(x->adj);
	free(x->chan_of_port);
	free(x->port_of_chan);
	free(x->bit_off);
	free(x->sw_first);
	free(x->sw_port_off);
	free(x->sw_port_to);
	free(x->sw_port_back);
}

/* LID owners; duplicates and LID-less endpoints are reported here. */
static int build_owners(struct vx *x, struct vx_errors *errs,
			struct verify_result *res)
{
	const struct fabric *f = x->f;
	uint32_t nep = fab_endpoint_ports(f, NULL);
	uint32_t *eps = malloc((nep ? nep : 1) * sizeof(*eps));
	if (!eps)
		return -ENOMEM;
	fab_endpoint_ports(f, eps);
	x->max_lid = fab_max_lid(f);
	if (x->max_lid > LFT_MAX_ANALYSIS_LID)
		x->max_lid = LFT_MAX_ANALYSIS_LID;
	x->owner = malloc(((size_t)x->max_lid + 1) * sizeof(*x->owner));
	if (!x->owner) {
		free(eps);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l <= x->max_lid; l++)
		x->owner[l] = FAB_NONE;
	for (uint32_t i = 0; i < nep; i++) {
		const struct fab_port *p = &f->ports[eps[i]];
		if (!p->lid) {
			res->endpoints_without_lid++;
			vx_err_add(errs, "node 0x%016" PRIx64 " port %u has no LID",
				   f->nodes[p->node].guid, p->num);
			continue;
		}
		for (uint32_t k = 0; k < (1u << p->lmc); k++) {
			uint32_t l = p->lid + k;
			if (l > x->max_lid)
				break;
			if (x->owner[l] != FAB_NONE) {
				res->duplicate_lids++;
				vx_err_add(errs, "LID %u is claimed by node 0x%016"
					   PRIx64 " port %u and node 0x%016" PRIx64
					   " port %u", l,
					   f->nodes[f->ports[x->owner[l]].node].guid,
					   f->ports[x->owner[l]].num,
					   f->nodes[p->node].guid, p->num);
				continue;
			}
			x->owner[l] = eps[i];
			res->lids_total++;
		}
	}
	free(eps);
	return 0;
}

/* Terminals (linked CA/router ports) and the switch each hangs off. */
static int build_terminals(struct vx *x)
{
	const struct fabric *f = x->f;
	x->term = malloc((f->num_ports ? f->num_ports : 1) * sizeof(uint32_t));
	x->term_sw = malloc((f->num_ports ? f->num_ports : 1) * sizeof(uint32_t));
	x->term_of_port = malloc((f->num_ports ? f->num_ports : 1) * sizeof(uint32_t));
	x->sw_term_off = calloc((size_t)x->nsw + 2, sizeof(uint32_t));
	if (!x->term || !x->term_sw || !x->term_of_port || !x->sw_term_off)
		return -ENOMEM;
	for (uint32_t p = 0; p < f->num_ports; p++)
		x->term_of_port[p] = FAB_NONE;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *node = &f->nodes[n];
		if (node->type == FAB_SWITCH)
			continue;
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t p = node->first_port + i, o = fab_peer_node(f, p);
			if (o == FAB_NONE)
				continue;
			x->term_of_port[p] = x->nterm;
			x->term[x->nterm] = p;
			x->term_sw[x->nterm] = fab_is_switch(f, o) ?
				f->nodes[o].sw_index : FAB_NONE;
			if (x->term_sw[x->nterm] != FAB_NONE)
				x->sw_term_off[x->term_sw[x->nterm] + 1]++;
			x->nterm++;
		}
	}
	for (uint32_t s = 0; s < x->nsw; s++)
		x->sw_term_off[s + 1] += x->sw_term_off[s];
	x->sw_term = malloc((x->nterm ? x->nterm : 1) * sizeof(uint32_t));
	uint32_t *fill = malloc(((size_t)x->nsw + 1) * sizeof(uint32_t));
	if (!x->sw_term || !fill) {
		free(fill);
		return -ENOMEM;
	}
	memcpy(fill, x->sw_term_off, ((size_t)x->nsw + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < x->nterm; i++)
		if (x->term_sw[i] != FAB_NONE)
			x->sw_term[fill[x->term_sw[i]]++] = i;
	free(fill);
	return 0;
}

/* Where each switch port leads (sw_port_to, see verify_internal.h). */
static int build_port_map(struct vx *x)
{
	const struct fabric *f = x->f;
	x->sw_first = malloc(((size_t)x->nsw + 1) * sizeof(uint32_t));
	x->sw_port_off = calloc((size_t)x->nsw + 1, sizeof(uint32_t));
	if (!x->sw_first || !x->sw_port_off)
		return -ENOMEM;
	for (uint32_t s = 0; s < x->nsw; s++)
		x->sw_port_off[s + 1] = x->sw_port_off[s] + 1 +
			f->nodes[f->switches[s]].num_ports;
	x->sw_port_to = malloc(((size_t)x->sw_port_off[x->nsw] + 1) *
			       sizeof(uint32_t));
	x->sw_port_back = calloc((size_t)x->sw_port_off[x->nsw] + 1, 1);
	if (!x->sw_port_to || !x->sw_port_back)
		return -ENOMEM;
	for (uint32_t s = 0; s < x->nsw; s++) {
		const struct fab_node *node = &f->nodes[f->switches[s]];
		uint32_t *to = x->sw_port_to + x->sw_port_off[s];
		uint8_t *back = x->sw_port_back + x->sw_port_off[s];
		x->sw_first[s] = node->first_port;
		to[0] = VX_TO_BAD;      /* port 0 is judged by the LID's owner */
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t q = f->ports[node->first_port + i].peer;
			if (q != FAB_NONE)
				back[i] = (uint8_t)f->ports[q].num;
			if (q == FAB_NONE)
				to[i] = VX_TO_BAD;
			else if (fab_is_switch(f, f->ports[q].node))
				to[i] = f->nodes[f->ports[q].node].sw_index;
			else
				to[i] = VX_TO_TERM | q;
		}
	}
	return 0;
}

/* Switch-to-switch adjacency, channel numbering and CDG bitmap layout. */
static int build_switch_graph(struct vx *x)
{
	const struct fabric *f = x->f;
	x->adj_off = calloc((size_t)x->nsw + 1, sizeof(uint32_t));
	x->bit_off = calloc((size_t)x->nsw + 1, sizeof(uint64_t));
	x->chan_of_port = malloc((f->num_ports ? f->num_ports : 1) * sizeof(uint32_t));
	if (!x->adj_off || !x->bit_off || !x->chan_of_port)
		return -ENOMEM;
	for (uint32_t p = 0; p < f->num_ports; p++)
		x->chan_of_port[p] = FAB_NONE;
	for (uint32_t s = 0; s < x->nsw; s++) {
		const struct fab_node *node = &f->nodes[f->switches[s]];
		uint64_t np = (uint64_t)node->num_ports + 1;
		x->bit_off[s + 1] = x->bit_off[s] + np * np;
		x->adj_off[s + 1] = x->adj_off[s];
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t p = node->first_port + i, o = fab_peer_node(f, p);
			if (o != FAB_NONE && fab_is_switch(f, o)) {
				x->adj_off[s + 1]++;
				x->chan_of_port[p] = x->nchan++;
			}
		}
	}
	x->adj = malloc((x->nchan ? x->nchan : 1) * sizeof(*x->adj));
	x->port_of_chan = malloc((x->nchan ? x->nchan : 1) * sizeof(uint32_t));
	if (!x->adj || !x->port_of_chan)
		return -ENOMEM;
	for (uint32_t s = 0, k = 0; s < x->nsw; s++) {
		const struct fab_node *node = &f->nodes[f->switches[s]];
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t p = node->first_port + i, o = fab_peer_node(f, p);
			if (o == FAB_NONE || !fab_is_switch(f, o))
				continue;
			x->adj[k].peer = f->nodes[o].sw_index;
			x->adj[k].port = p;
			x->port_of_chan[x->chan_of_port[p]] = p;
			k++;
		}
	}
	return build_port_map(x);
}

static unsigned pick_threads(const struct verify_opts *o, const struct vx *x)
{
	unsigned n = o->threads;
	if (!n) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 ? (unsigned)c : 1;
		if (n > 8)
			n = 8;
		/* Threads only pay once the walks take milliseconds. */
		if ((uint64_t)x->nsw * (x->max_lid + 1) < 200000)
			n = 1;
	}
	if (n > 64)
		n = 64;
	if (x->nsw && n > x->nsw)
		n = x->nsw;
	return n ? n : 1;
}

static int run_passes(struct vx *x, struct vx_errors *errs,
		      struct verify_result *res)
{
	const struct verify_opts *o = x->o;
	unsigned threads = pick_threads(o, x);
	uint64_t *bits = NULL, *load = NULL, min_total = 0;
	int rc = -ENOMEM;

	res->threads = threads;
	if (o->check_credit_loops &&
	    !(bits = calloc(x->bit_off[x->nsw] / 64 + 1, sizeof(uint64_t))))
		goto out;
	if (o->link_load && !(load = calloc(x->f->num_ports + 1, sizeof(uint64_t))))
		goto out;
	rc = vx_dest_pass(x, threads, bits, load, &min_total, errs, res);
	if (rc)
		goto out;
	if (bits) {
		rc = vx_cdg_cycle(x, bits, &res->cdg_edges, res->cdg_cycle,
				  sizeof(res->cdg_cycle));
		if (rc < 0)
			goto out;
		res->credit_loop = rc;
		res->cdg_channels = x->nchan;
		if (rc)
			vx_err_add(errs, "credit loop: %.130s", res->cdg_cycle);
	}
	if (load && o->a2a_load_out)
		memcpy(o->a2a_load_out, load, x->f->num_ports * sizeof(*load));
	if (load) {
		for (uint32_t p = 0; p < x->f->num_ports; p++) {
			if (load[p] > res->a2a_max_link_load)
				res->a2a_max_link_load = load[p];
			if (x->chan_of_port[p] != FAB_NONE &&
			    load[p] > res->a2a_max_switch_link_load)
				res->a2a_max_switch_link_load = load[p];
		}
		res->a2a_lower_bound = vx_a2a_bound(x, min_total,
						    &res->a2a_switch_bound);
		res->a2a_ratio = res->a2a_lower_bound > 0 ?
			(double)res->a2a_max_link_load / res->a2a_lower_bound : 0;
		res->a2a_switch_ratio = res->a2a_switch_bound > 0 ?
			(double)res->a2a_max_switch_link_load / res->a2a_switch_bound : 0;
		rc = vx_shifts(x, threads, res);
		if (rc)
			goto out;
	}
	if (o->path_diversity)
		rc = vx_diversity(x, res);
out:
	free(bits);
	free(load);
	return rc;
}

int verify_routes(const struct fabric *f, const struct lft_set *t,
		  const struct verify_opts *opts, struct verify_result *res)
{
	static const struct verify_opts defaults;
	struct vx x = { .f = f, .t = t, .o = opts ? opts : &defaults,
			.nsw = f->num_switches };
	struct vx_errors errs = { 0 };
	double t0 = now_seconds();
	int rc;

	memset(res, 0, sizeof(*res));
	res->num_switches = f->num_switches;
	errs.cap = x.o->max_errors ? x.o->max_errors : VERIFY_MAX_ERRORS;
	if (errs.cap > VERIFY_MAX_ERRORS)
		errs.cap = VERIFY_MAX_ERRORS;
	errs.msg = res->errors;

	if (t->num_switches < f->num_switches)
		vx_err_add(&errs, "tables cover %u switches, the fabric has %u "
			   "(the rest count as missing)", t->num_switches,
			   f->num_switches);
	rc = build_owners(&x, &errs, res);
	if (!rc)
		rc = build_terminals(&x);
	if (!rc)
		rc = build_switch_graph(&x);
	res->num_terminals = x.nterm;
	if (!rc)
		rc = run_passes(&x, &errs, res);
	vx_free(&x);
	if (rc)
		return rc;

	res->num_errors = errs.count;
	if (errs.count)
		snprintf(res->first_error, sizeof(res->first_error), "%s",
			 res->errors[0]);
	res->ok = verify_usable(res) && !res->credit_loop &&
		  t->num_switches >= f->num_switches;
	if (!res->ok && !res->first_error[0])
		snprintf(res->first_error, sizeof(res->first_error),
			 "verification failed");
	res->seconds = now_seconds() - t0;
	return 0;
}

int verify_usable(const struct verify_result *r)
{
	return !r->missing_entries && !r->bad_port_entries &&
	       !r->misdelivered_entries && !r->pairs_unreachable &&
	       !r->pairs_looping && !r->forwarding_loops &&
	       !r->duplicate_lids &&
	       !r->endpoints_without_lid;
}
