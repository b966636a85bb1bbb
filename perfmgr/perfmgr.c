/* The PerfMgr's poll cycle over the MAD transport. */
#include "perfmgr.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../core/log.h"
#include "../mad/gmp.h"

/* Cookie: generation (so answers to an abandoned cycle are ignored),
 * step, item index. */
enum pm_step { STEP_CPI = 1, STEP_PC, STEP_CLEAR, STEP_EXT };

static uint64_t cookie_of(const struct perfmgr *pm, enum pm_step s, uint32_t i)
{
	return ((uint64_t)pm->gen << 40) | ((uint64_t)s << 32) | i;
}

void perfmgr_init(struct perfmgr *pm, struct mad_transport *t,
		  const struct pm_opts *o)
{
	memset(pm, 0, sizeof(*pm));
	pm->t = t;
	pm->o = *o;
	if (!pm->o.window)
		pm->o.window = 1;
}

static void free_ports(struct pm_port *ports, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(ports[i].hist);
	free(ports);
}

void perfmgr_free(struct perfmgr *pm)
{
	free_ports(pm->ports, pm->num_ports);
	free(pm->nodes);
	memset(pm, 0, sizeof(*pm));
}

static int key_cmp(uint64_t ga, uint8_t pa, uint64_t gb, uint8_t pb)
{
	if (ga != gb)
		return ga < gb ? -1 : 1;
	return pa < pb ? -1 : pa > pb;
}

static int port_cmp(const void *a, const void *b)
{
	const struct pm_port *x = a, *y = b;

	return key_cmp(x->node_guid, x->port, y->node_guid, y->port);
}

struct pm_port *perfmgr_find(struct perfmgr *pm, uint64_t guid, uint8_t port)
{
	struct pm_port key = { .node_guid = guid, .port = port };

	if (!pm->num_ports)
		return NULL;
	return bsearch(&key, pm->ports, pm->num_ports, sizeof(key), port_cmp);
}

static void copy_desc(char *dst, const char *src)
{
	snprintf(dst, FAB_DESC_LEN + 1, "%s", src);
}

int perfmgr_set_fabric(struct perfmgr *pm, const struct fabric *f)
{
	struct pm_node *nodes = calloc(f->num_nodes ? f->num_nodes : 1, sizeof(*nodes));
	struct pm_port *ports = calloc(f->num_ports ? f->num_ports : 1, sizeof(*ports));
	uint32_t nn = 0, np = 0;

	if (!nodes || !ports) {
		free(nodes);
		free(ports);
		return -ENOMEM;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *node = &f->nodes[n];
		struct pm_node *pn = &nodes[nn];

		pn->guid = node->guid;
		for (unsigned k = 1; k <= node->num_ports; k++) {
			uint32_t p = fab_port_idx(f, n, k), q = f->ports[p].peer;
			struct pm_port *pp = &ports[np];
			uint32_t lid = fab_port_lid(f, p);

			if (q == FAB_NONE || !lid || lid > FAB_MAX_UCAST_LID)
				continue;
			if (!pn->lid)
				pn->lid = (uint16_t)lid;
			pp->node_guid = node->guid;
			pp->port = (uint8_t)k;
			pp->is_switch = fab_is_switch(f, n);
			pp->lid = (uint16_t)lid;
			pp->node = nn;
			copy_desc(pp->desc, node->desc);
			pp->peer_guid = f->nodes[f->ports[q].node].guid;
			pp->peer_port = f->ports[q].num;
			pp->peer_is_switch = fab_is_switch(f, f->ports[q].node);
			copy_desc(pp->peer_desc, f->nodes[f->ports[q].node].desc);
			np++;
		}
		if (pn->lid)
			nn++;
	}
	qsort(ports, np, sizeof(*ports), port_cmp);
	/* Keep what we know of ports and nodes that stay. */
	for (uint32_t i = 0; i < np; i++) {
		struct pm_port *old = perfmgr_find(pm, ports[i].node_guid, ports[i].port);
		struct pm_port keep;

		if (!old)
			continue;
		keep = ports[i];
		ports[i] = *old;
		old->hist = NULL;
		ports[i].node = keep.node;
		ports[i].lid = keep.lid;
		ports[i].peer_guid = keep.peer_guid;
		ports[i].peer_port = keep.peer_port;
		ports[i].peer_is_switch = keep.peer_is_switch;
		copy_desc(ports[i].desc, keep.desc);
		copy_desc(ports[i].peer_desc, keep.peer_desc);
	}
	for (uint32_t i = 0; i < nn; i++)
		for (uint32_t j = 0; j < pm->num_nodes; j++)
			if (pm->nodes[j].guid == nodes[i].guid && pm->nodes[j].cpi >= 2) {
				nodes[i].cap = pm->nodes[j].cap;
				nodes[i].cpi = pm->nodes[j].cpi;
				nodes[i].no_ext = pm->nodes[j].no_ext;
				break;
			}
	free_ports(pm->ports, pm->num_ports);
	free(pm->nodes);
	pm->ports = ports;
	pm->nodes = nodes;
	pm->num_ports = np;
	pm->num_nodes = nn;
	pm->gen = (pm->gen + 1) & 0xffffff;
	if (pm->running)
		log_info("perfmgr: fabric changed: cycle abandoned, next one soon");
	pm->running = 0;
	pm->in_flight = 0;
	log_debug("perfmgr: polling %u ports on %u nodes", np, nn);
	return 0;
}

static void on_done(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp);

static int submit(struct perfmgr *pm, uint16_t lid, const uint8_t *mad,
		  enum pm_step s, uint32_t i)
{
	int rc = mt_submit_gmp(pm->t, lid, mad, on_done, pm, cookie_of(pm, s, i));

	if (rc == 0) {
		pm->st.mads++;
		pm->cyc_mads++;
	}
	return rc;
}

static void item_done(struct perfmgr *pm)
{
	if (pm->in_flight)
		pm->in_flight--;
}

static int ext_wanted(const struct perfmgr *pm, const struct pm_port *p)
{
	const struct pm_node *n = &pm->nodes[p->node];

	if (n->no_ext)
		return 0;
	/* Unknown capabilities: try, a refusal marks the node. */
	return n->cpi != 2 || (n->cap & (PM_CAP_EXT_WIDTH | PM_CAP_EXT_WIDTH_NOIETF));
}

static void push_hist(struct perfmgr *pm, struct pm_port *p)
{
	struct pm_hist *h;

	if (!pm->o.history)
		return;
	if (!p->hist) {
		p->hist = calloc(pm->o.history, sizeof(*p->hist));
		if (!p->hist)
			return;
	}
	h = &p->hist[p->hist_next];
	h->at = p->cur_at;
	for (int c = 0; c < PM_NUM_COUNTERS; c++)
		h->rate[c] = (float)p->rate[c];
	p->hist_next = (p->hist_next + 1) % pm->o.history;
	if (p->hist_len < pm->o.history)
		p->hist_len++;
}

/* A whole reading of port i: deltas, rates, history, the callback. */
static void finish_port(struct perfmgr *pm, uint32_t i)
{
	struct pm_port *p = &pm->ports[i];
	int reset = 0, saturated = 0;

	pm->cyc_ok++;
	pm->st.samples++;
	if (p->have_last) {
		double dt = p->cur_at - p->last_at;

		for (int c = 0; c < PM_NUM_COUNTERS; c++) {
			unsigned bit = 1u << c;
			int wide = !!(p->cur.wide_mask & bit);

			if (wide != !!(p->last.wide_mask & bit)) {
				p->delta[c] = 0;        /* source changed */
				p->rate[c] = 0;
				continue;
			}
			p->delta[c] = pm_delta((enum pm_counter)c, p->last.v[c],
					       p->cur.v[c], wide, &reset,
					       &saturated);
			p->total[c] += p->delta[c];
			p->rate[c] = dt > 0 ? p->delta[c] / dt : 0;
		}
		if (reset) {
			p->resets++;
			pm->st.resets++;
			log_info("perfmgr: counters of 0x%016llx \"%s\" port %u went down: reset by someone else (counted from 0)",
				 (unsigned long long)p->node_guid, p->desc, p->port);
		}
		if (saturated)
			log_info("perfmgr: a counter of 0x%016llx \"%s\" port %u saturated (rates are lower bounds)",
				 (unsigned long long)p->node_guid, p->desc, p->port);
		push_hist(pm, p);
	}
	p->last = p->cur;
	for (int c = 0; c < PM_NUM_COUNTERS; c++)
		if (p->cleared & (1u << c))
			p->last.v[c] = 0;
	p->last_at = p->cur_at;
	p->have_last = 1;
	if (pm->on_sample)
		pm->on_sample(pm->cb_ctx, pm, p);
}

static void port_failed(struct perfmgr *pm, uint32_t i, const char *what,
			const uint8_t *resp)
{
	struct pm_port *p = &pm->ports[i];

	p->failures++;
	pm->cyc_failed++;
	log_debug("perfmgr: %s of 0x%016llx port %u (LID %u): %s", what,
		  (unsigned long long)p->node_guid, p->port, p->lid,
		  resp ? "refused" : "no answer");
}

/* After PortCounters (and its clear): the extended counters, or done. */
static void next_after_pc(struct perfmgr *pm, uint32_t i)
{
	struct pm_port *p = &pm->ports[i];
	uint8_t mad[GMP_SIZE];

	if (ext_wanted(pm, p)) {
		pm_build_get(mad, PM_ATTR_PORT_COUNTERS_EXT, p->port);
		if (submit(pm, p->lid, mad, STEP_EXT, i) == 0)
			return;
	}
	finish_port(pm, i);
	item_done(pm);
}

static void on_done(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp)
{
	struct perfmgr *pm = ctx;
	enum pm_step s = (enum pm_step)((cookie >> 32) & 0xff);
	uint32_t i = (uint32_t)cookie;
	int ok = resp && smp_status(resp) == 0;
	struct pm_port *p;
	uint8_t mad[GMP_SIZE];

	(void)req;
	if ((cookie >> 40) != pm->gen)
		return;                 /* an abandoned cycle's */
	if (!ok)
		pm->st.mads_failed++;
	if (s == STEP_CPI) {
		struct pm_node *n = &pm->nodes[i];

		n->cpi = ok ? 2 : 3;
		if (ok)
			n->cap = pm_decode_cap_mask(resp);
		item_done(pm);
		return;
	}
	p = &pm->ports[i];
	switch (s) {
	case STEP_PC:
		if (!ok) {
			port_failed(pm, i, "PortCounters", resp);
			item_done(pm);
			return;
		}
		p->cur_at = now_seconds();
		pm_decode_counters(resp, &p->cur);
		p->cleared = pm_clear_mask(&p->cur);
		/* Traffic counters come 64 bits wide from the extended
		 * attribute when there is one: no need to clear them. */
		if (ext_wanted(pm, p))
			p->cleared &= ~((1u << PM_XMIT_DATA) | (1u << PM_RCV_DATA) |
					(1u << PM_XMIT_PKTS) | (1u << PM_RCV_PKTS));
		if (p->cleared) {
			pm_build_clear(mad, p->port, p->cleared);
			if (submit(pm, p->lid, mad, STEP_CLEAR, i) == 0)
				return;
			p->cleared = 0;
		}
		next_after_pc(pm, i);
		return;
	case STEP_CLEAR:
		if (ok) {
			p->clears++;
			pm->st.clears++;
		} else {
			/* Not cleared: the next reading continues from it. */
			port_failed(pm, i, "clearing PortCounters", resp);
			pm->cyc_failed--;
			p->cleared = 0;
		}
		next_after_pc(pm, i);
		return;
	case STEP_EXT:
		if (ok) {
			pm_decode_counters_ext(resp, &p->cur);
		} else if (resp) {
			pm->nodes[p->node].no_ext = 1;
			log_info("perfmgr: 0x%016llx \"%s\" refuses PortCountersExtended: 32-bit traffic counters",
				 (unsigned long long)p->node_guid, p->desc);
		}
		finish_port(pm, i);
		item_done(pm);
		return;
	default:
		item_done(pm);
		return;
	}
}

static void end_cycle(struct perfmgr *pm, double now)
{
	pm->running = 0;
	pm->st.cycles++;
	pm->st.last_cycle_s = now - pm->cycle_start;
	pm->st.last_ports_ok = pm->cyc_ok;
	pm->st.last_ports_failed = pm->cyc_failed;
	log_info("perfmgr: cycle %llu: %u ports read, %u failed, %u MADs in %.3f s",
		 (unsigned long long)pm->st.cycles, pm->cyc_ok, pm->cyc_failed,
		 pm->cyc_mads, pm->st.last_cycle_s);
	pm->next_cycle_at = pm->cycle_start + pm->o.interval_s;
	if (pm->next_cycle_at < now)
		pm->next_cycle_at = now;
}

double perfmgr_next_deadline(const struct perfmgr *pm, double now)
{
	uint32_t end = pm->num_nodes + pm->num_ports;

	if (!pm->o.interval_s || !pm->num_ports || !mt_has_class(pm->t, GMP_CLASS_PERF))
		return HUGE_VAL;
	if (!pm->running)
		return pm->next_cycle_at;
	/* Under way: more to send while the window has room, or the cycle's
	 * end to note; otherwise the answers wake the loop. */
	if ((pm->in_flight < pm->o.window && pm->next_item < end) ||
	    (pm->next_item >= end && pm->in_flight == 0))
		return now;
	return HUGE_VAL;
}

void perfmgr_tick(struct perfmgr *pm, double now)
{
	uint32_t end = pm->num_nodes + pm->num_ports;
	uint8_t mad[GMP_SIZE];

	if (!pm->o.interval_s || !pm->num_ports || !mt_has_class(pm->t, GMP_CLASS_PERF))
		return;
	if (!pm->running) {
		if (now < pm->next_cycle_at)
			return;
		pm->running = 1;
		pm->next_item = 0;
		pm->in_flight = 0;
		pm->cycle_start = now;
		pm->cyc_ok = pm->cyc_failed = pm->cyc_mads = 0;
		log_debug("perfmgr: cycle %llu starts: %u ports",
			  (unsigned long long)pm->st.cycles + 1, pm->num_ports);
	}
	while (pm->in_flight < pm->o.window && pm->next_item < end) {
		uint32_t it = pm->next_item++;

		if (it < pm->num_nodes) {
			struct pm_node *n = &pm->nodes[it];

			if (n->cpi)
				continue;
			n->cpi = 1;
			pm_build_get(mad, PM_ATTR_CLASS_PORT_INFO, 0);
			if (submit(pm, n->lid, mad, STEP_CPI, it) == 0)
				pm->in_flight++;
			else
				n->cpi = 3;
			continue;
		}
		it -= pm->num_nodes;
		pm_build_get(mad, PM_ATTR_PORT_COUNTERS, pm->ports[it].port);
		if (submit(pm, pm->ports[it].lid, mad, STEP_PC, it) == 0)
			pm->in_flight++;
		else
			port_failed(pm, it, "PortCounters", NULL);
	}
	if (pm->next_item >= end && pm->in_flight == 0)
		end_cycle(pm, now);
}

int perfmgr_write(const struct perfmgr *pm, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		log_err("cannot write %s: %m", path);
		return -1;
	}
	fprintf(f, "# ibsm PerfMgr: %u ports, %llu cycles, last %.3f s (%u read, %u failed)\n",
		pm->num_ports, (unsigned long long)pm->st.cycles,
		pm->st.last_cycle_s, pm->st.last_ports_ok, pm->st.last_ports_failed);
	fprintf(f, "# port GUID NUM lid LID desc \"DESC\" resets N clears N failures N\n"
		"#   COUNTER value V total T rate R/s   (value: as the port holds it)\n");
	for (uint32_t i = 0; i < pm->num_ports; i++) {
		const struct pm_port *p = &pm->ports[i];

		fprintf(f, "port 0x%016llx %u lid %u desc \"%s\" resets %u clears %u failures %u\n",
			(unsigned long long)p->node_guid, p->port, p->lid, p->desc,
			p->resets, p->clears, p->failures);
		if (!p->have_last)
			continue;
		for (int c = 0; c < PM_NUM_COUNTERS; c++)
			fprintf(f, "  %s value %llu total %llu rate %.3f\n",
				pm_counter_desc((enum pm_counter)c)->name,
				(unsigned long long)p->last.v[c],
				(unsigned long long)p->total[c], p->rate[c]);
	}
	if (fclose(f) != 0) {
		log_err("cannot write %s: %m", path);
		return -1;
	}
	return 0;
}
