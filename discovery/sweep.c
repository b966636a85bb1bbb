/* Breadth-first directed-route discovery (see sweep.h).
 *
 * Every request carries a cookie (what was asked, of which node and port);
 * answers arrive in any order and each may queue more requests:
 *   NodeInfo answer  -> new node: NodeDescription, SwitchInfo, PortInfo of
 *                       every port (CAs: the port we came in by);
 *                       known node: just record the link (a loop, or the
 *                       second port of a dual-port HCA);
 *   PortInfo answer  -> port up and not yet linked: NodeInfo one hop
 *                       further out of it.
 * The link we arrived by is recorded with the NodeInfo answer, so a switch
 * never probes back towards its parent. */
#include "sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/mad.h>

#include "../core/log.h"
#include "../core/grow.h"

enum sweep_kind { K_NODEINFO = 1, K_NODEDESC, K_SWITCHINFO, K_PORTINFO };
enum { PI_NONE = 0, PI_VALID = 1, PI_ASKED = 2 };

struct sweep {
	struct mad_transport *t;
	struct subnet *r;
	/* open-addressing GUID -> node index (the fabric's own index is
	 * dropped on every add, which would make discovery quadratic) */
	uint64_t *hkeys;
	uint32_t *hvals;
	uint32_t hcap, hcount;
	int nomem;
	uint8_t *dup_mark;      /* per node: duplicate GUID seen */
	struct smp_path *dup_other; /* per node: where the other one answered */
	uint32_t dup_cap;
	/* Requests that got no answer after every try of the transport,
	 * asked again in later rounds of this sweep (see sweep_discover). */
	struct redo *redo;
	uint32_t nredo, redo_cap;
	unsigned round;
	uint32_t answers;       /* answers received (any round) */
	const struct sweep_hook *hook;
};

struct redo {
	struct smp_path path;
	uint16_t attr;
	uint32_t mod;
	uint64_t cookie;
};

/* Rounds of asking again, and the pause before each (doubling, at most
 * SWEEP_REDO_PAUSE_MAX_S): at 50% loss each way a request fails every one
 * of 16 tries with p = 0.01, so a sweep of a few thousand MADs always has
 * some; a round costs only what failed, where sweeping again costs every
 * MAD. A round in which nothing answered ends them unless the sweep sees
 * heavy loss (a dead node, not loss), so on a clean fabric a node that is
 * gone costs one round. */
#define SWEEP_REDO_ROUNDS 8
#define SWEEP_REDO_PAUSE_S 0.05
#define SWEEP_REDO_PAUSE_MAX_S 0.4
/* Tries lost over the whole sweep above which a round that got nothing
 * back is bad luck, not a dead node: go on. */
#define SWEEP_REDO_LOSSY 0.1

static uint64_t cookie_make(enum sweep_kind k, uint32_t node, uint8_t port)
{
	return ((uint64_t)k << 48) | ((uint64_t)port << 32) | node;
}

static void cookie_split(uint64_t c, enum sweep_kind *k, uint32_t *node,
			 uint8_t *port)
{
	*k = (enum sweep_kind)(c >> 48);
	*port = (uint8_t)(c >> 32);
	*node = (uint32_t)c;
}

static uint32_t hslot(uint64_t guid, uint32_t cap)
{
	guid ^= guid >> 33;
	guid *= 0xff51afd7ed558ccdULL;
	guid ^= guid >> 33;
	return (uint32_t)guid & (cap - 1);
}

static uint32_t guid_lookup(const struct sweep *s, uint64_t guid)
{
	if (!s->hcap)
		return FAB_NONE;
	for (uint32_t i = hslot(guid, s->hcap);; i = (i + 1) & (s->hcap - 1)) {
		if (s->hvals[i] == FAB_NONE)
			return FAB_NONE;
		if (s->hkeys[i] == guid)
			return s->hvals[i];
	}
}

static int guid_insert(struct sweep *s, uint64_t guid, uint32_t node)
{
	if ((s->hcount + 1) * 2 > s->hcap) {
		uint32_t ncap = s->hcap ? s->hcap * 2 : 1024;
		uint64_t *nk = malloc(ncap * sizeof(*nk));
		uint32_t *nv = malloc(ncap * sizeof(*nv));

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -ENOMEM;
		}
		memset(nv, 0xff, ncap * sizeof(*nv));
		for (uint32_t i = 0; i < s->hcap; i++) {
			if (s->hvals[i] == FAB_NONE)
				continue;
			uint32_t j = hslot(s->hkeys[i], ncap);
			while (nv[j] != FAB_NONE)
				j = (j + 1) & (ncap - 1);
			nk[j] = s->hkeys[i];
			nv[j] = s->hvals[i];
		}
		free(s->hkeys);
		free(s->hvals);
		s->hkeys = nk;
		s->hvals = nv;
		s->hcap = ncap;
	}
	uint32_t i = hslot(guid, s->hcap);
	while (s->hvals[i] != FAB_NONE)
		i = (i + 1) & (s->hcap - 1);
	s->hkeys[i] = guid;
	s->hvals[i] = node;
	s->hcount++;
	return 0;
}

static void on_answer(void *ctx, uint64_t cookie, const uint8_t *req,
		      const uint8_t *resp);

static void submit(struct sweep *s, const struct smp_path *path,
		   uint16_t attr, uint32_t mod, enum sweep_kind k,
		   uint32_t node, uint8_t port)
{
	if (mt_submit_dr(s->t, path, IB_MAD_METHOD_GET, attr, mod, NULL,
			 on_answer, s, cookie_make(k, node, port)) < 0)
		s->nomem = 1;
}

/* The DR path a request was sent on, from the request itself. */
static void req_path(const uint8_t *req, struct smp_path *p)
{
	uint8_t initial[64];

	p->hops = (uint8_t)mad_get_field((void *)(uintptr_t)req, 0,
					 IB_DRSMP_HOPCNT_F);
	mad_get_array((void *)(uintptr_t)req, 0, IB_DRSMP_PATH_F, initial);
	memcpy(p->port, initial, sizeof(p->port));
}

/* Two nodes answered with node n's GUID: remember it once per GUID, with
 * the path where the other one answered; reported at the end of the
 * sweep, when the first one's NodeDescription is known. */
static void report_dup(struct sweep *s, uint32_t n, const struct smp_path *other)
{
	struct subnet *r = s->r;

	if (n >= s->dup_cap) {
		uint32_t c, was = s->dup_cap;

		if (grow_array_shared((void **)&s->dup_mark, was, &c, n + 1, 1,
				      r->fab.num_nodes + 64) ||
		    grow_array_shared((void **)&s->dup_other, was, &c, n + 1,
				      sizeof(*s->dup_other), r->fab.num_nodes + 64)) {
			s->nomem = 1;
			return;
		}
		memset(s->dup_mark + was, 0, c - was);
		s->dup_cap = c;
	}
	if (s->dup_mark[n])
		return;
	s->dup_mark[n] = 1;
	s->dup_other[n] = *other;
	r->dup_guids++;
}

/* Record the link from_node[from_port] <-> node[port]. from_node is
 * certain (the probe went out through it); node is whoever answered with
 * that GUID at path. */
static void link_ports(struct sweep *s, uint32_t from_node, uint8_t from_port,
		       uint32_t node, uint8_t port, const struct smp_path *path)
{
	struct subnet *r = s->r;
	struct fabric *f = &r->fab;
	uint32_t a, b, old;

	if (from_node == FAB_NONE)
		return;
	a = fab_port_idx(f, from_node, from_port);
	b = fab_port_idx(f, node, port);
	if (a == FAB_NONE || b == FAB_NONE || port == 0) {
		log_warn("sweep: node 0x%016llx reports local port %u out of range",
			 (unsigned long long)f->nodes[node].guid, port);
		return;
	}
	old = f->ports[a].peer;
	if (old != FAB_NONE && old != b && !r->link_own[a]) {
		/* a was linked from its far side, and its own probe finds
		 * someone else: the far side had reached another node with
		 * from_node's GUID. */
		struct smp_path other;

		if (smp_path_extend(&other, &r->node_path[f->ports[old].node],
				    f->ports[old].num) < 0)
			other = r->node_path[f->ports[old].node];
		report_dup(s, from_node, &other);
		fab_unlink(f, a);
	}
	if (fab_link(f, a, b) == 0) {
		r->link_own[a] = 1;
		if (from_node == node)
			r->link_own[b] = 1;
		return;
	}
	if (f->ports[b].peer != FAB_NONE && f->ports[b].peer != a &&
	    f->nodes[node].guid != f->nodes[from_node].guid) {
		/* b is linked elsewhere: what answered here is not the node
		 * we know by that GUID (or the cabling moved mid-sweep). */
		report_dup(s, node, path);
		return;
	}
	log_warn("sweep: inconsistent link 0x%016llx[%u] <-> 0x%016llx[%u]: a port is already linked elsewhere",
		 (unsigned long long)f->nodes[from_node].guid, from_port,
		 (unsigned long long)f->nodes[node].guid, port);
}

static void got_nodeinfo(struct sweep *s, uint32_t from_node,
			 uint8_t from_port, const struct smp_path *path,
			 const uint8_t *data)
{
	struct subnet *r = s->r;
	struct smp_nodeinfo ni;
	uint32_t n;

	smp_get_nodeinfo(data, &ni);
	if (ni.type < FAB_CA || ni.type > FAB_ROUTER || !ni.num_ports ||
	    ni.local_port > ni.num_ports) {
		log_warn("sweep: bad NodeInfo (type %u, %u ports, local port %u) at path %s: left out",
			 ni.type, ni.num_ports, ni.local_port,
			 smp_path_str(path, (char[200]){0}, 200));
		return;
	}
	n = guid_lookup(s, ni.node_guid);
	if (n != FAB_NONE) {
		struct fab_node *node = &r->fab.nodes[n];

		if (node->type != ni.type || node->num_ports != ni.num_ports) {
			log_warn("sweep: node 0x%016llx answers differently at path %s: ignored",
				 (unsigned long long)ni.node_guid,
				 smp_path_str(path, (char[200]){0}, 200));
			return;
		}
		link_ports(s, from_node, from_port, n, ni.local_port, path);
		if (node->type != FAB_SWITCH) {
			uint32_t p = fab_port_idx(&r->fab, n, ni.local_port);

			if (r->port_info_ok[p] == PI_NONE) {
				/* second port of a CA, reached another way */
				r->port_info_ok[p] = PI_ASKED;
				r->port_path[p] = *path;
				r->fab.ports[p].guid = ni.port_guid;
				submit(s, path, IB_ATTR_PORT_INFO, ni.local_port,
				       K_PORTINFO, n, ni.local_port);
			}
		}
		return;
	}
	n = fab_add_node(&r->fab, (enum fab_node_type)ni.type, ni.num_ports,
			 ni.node_guid, NULL);
	if (n == FAB_NONE || subnet_grow(r) < 0 ||
	    guid_insert(s, ni.node_guid, n) < 0) {
		s->nomem = 1;
		return;
	}
	r->fab.nodes[n].sys_guid = ni.sys_guid;
	r->fab.nodes[n].vendor_id = ni.vendor_id;
	r->fab.nodes[n].device_id = ni.device_id;
	r->node_path[n] = *path;
	memset(r->sw_info[n], 0, 64);
	memcpy(r->node_info[n], data, 64);
	for (unsigned i = 0; i <= ni.num_ports; i++) {
		uint32_t p = fab_port_idx(&r->fab, n, i);

		r->port_path[p] = *path;
		r->port_info_ok[p] = 0;
	}
	if (path->hops == 0) {
		r->sm_node = n;
		r->sm_port = fab_port_idx(&r->fab, n, ni.local_port);
	}
	link_ports(s, from_node, from_port, n, ni.local_port, path);
	submit(s, path, IB_ATTR_NODE_DESC, 0, K_NODEDESC, n, 0);
	if (ni.type == FAB_SWITCH) {
		submit(s, path, IB_ATTR_SWITCH_INFO, 0, K_SWITCHINFO, n, 0);
		for (unsigned i = 0; i <= ni.num_ports; i++) {
			r->port_info_ok[fab_port_idx(&r->fab, n, i)] = PI_ASKED;
			submit(s, path, IB_ATTR_PORT_INFO, i, K_PORTINFO, n,
			       (uint8_t)i);
		}
	} else {
		fab_port(&r->fab, n, ni.local_port)->guid = ni.port_guid;
		r->port_info_ok[fab_port_idx(&r->fab, n, ni.local_port)] = PI_ASKED;
		submit(s, path, IB_ATTR_PORT_INFO, ni.local_port, K_PORTINFO, n,
		       ni.local_port);
	}
}

static void got_portinfo(struct sweep *s, uint32_t n, uint8_t num,
			 const uint8_t *data)
{
	struct subnet *r = s->r;
	struct fabric *f = &r->fab;
	uint32_t p = fab_port_idx(f, n, num);
	struct fab_port *port = &f->ports[p];
	struct smp_portinfo pi;
	int sw = fab_is_switch(f, n);

	smp_get_portinfo(data, &pi);
	memcpy(r->port_info[p], data, 64);
	r->port_info_ok[p] = PI_VALID;
	/* Switch external ports have no LID of their own (IBA 14.2.5.6). */
	port->lid = (!sw || num == 0) ? pi.lid : 0;
	port->lmc = (!sw || num == 0) ? pi.lmc : 0;
	port->state = pi.state;
	port->phys_state = pi.phys_state;
	port->width = pi.width_active;
	port->speed = pi.speed_active;
	port->mtu = pi.neighbor_mtu ? pi.neighbor_mtu : pi.mtu_cap;
	port->vls = pi.oper_vls;
	if (s->hook && s->hook->port_seen)
		s->hook->port_seen(s->hook->ctx, s->t, r, p);
	/* A link seen only from its far side is probed from here too: that
	 * is how a second node answering with a known GUID shows up. */
	/* Not out of a port whose physical link is not up (Disabled, or
	 * Polling after it was enabled again): nothing answers behind it.
	 * On hardware such a port is also DOWN; ibsim keeps it INIT. */
	if (num == 0 || pi.state < FAB_PORT_INIT ||
	    (pi.phys_state && pi.phys_state != 5) ||
	    (port->peer != FAB_NONE && r->link_own[p]))
		return;
	/* Probe one hop further: out of any switch port, and out of our own
	 * CA port (the only place a DR path may start at a CA). */
	if (sw || (n == r->sm_node && r->node_path[n].hops == 0)) {
		struct smp_path next;

		if (smp_path_extend(&next, &r->node_path[n], num) < 0) {
			log_warn("sweep: path too long beyond node 0x%016llx port %u",
				 (unsigned long long)f->nodes[n].guid, num);
			return;
		}
		submit(s, &next, IB_ATTR_NODE_INFO, 0, K_NODEINFO, n, num);
	}
}

/* Keep what was lost by GUID and port (node indices are renumbered
 * before the sweep returns). A probe out of the root has no node. */
static void note_lost(struct subnet *r, uint32_t node, uint8_t port,
		      uint16_t attr, const struct smp_path *path)
{
	struct sweep_lost *l;

	if (grow_array((void **)&r->lost, &r->cap_lost, r->num_lost + 1,
		       sizeof(*r->lost), 16))
		return;  /* counted all the same: the guard then holds */
	l = &r->lost[r->num_lost++];
	l->guid = node < r->fab.num_nodes ? r->fab.nodes[node].guid : 0;
	l->attr = attr;
	l->port = port;
	l->path = *path;
}

static void on_answer(void *ctx, uint64_t cookie, const uint8_t *req,
		      const uint8_t *resp)
{
	struct sweep *s = ctx;
	struct subnet *r = s->r;
	enum sweep_kind k;
	uint32_t node;
	uint8_t port;
	struct smp_path path;
	char buf[200];

	cookie_split(cookie, &k, &node, &port);
	if (!resp && s->round < SWEEP_REDO_ROUNDS) {
		if (grow_array((void **)&s->redo, &s->redo_cap, s->nredo + 1,
			       sizeof(*s->redo), 64)) {
			s->nomem = 1;
			return;
		}
		struct redo *d = &s->redo[s->nredo++];

		req_path(req, &d->path);
		d->attr = smp_attr(req);
		d->mod = smp_mod(req);
		d->cookie = cookie;
		return;
	}
	if (!resp || smp_status(resp)) {
		req_path(req, &path);
		note_lost(r, node, port, smp_attr(req), &path);
		if (k == K_NODEINFO) {
			r->lost_probes++;
			log_warn("sweep: no NodeInfo at path %s%s: left out",
				 smp_path_str(&path, buf, sizeof(buf)),
				 resp ? " (error status)" : "");
		} else {
			r->lost_attrs++;
			log_warn("sweep: no answer for attribute 0x%x mod %u at path %s",
				 smp_attr(req), smp_mod(req),
				 smp_path_str(&path, buf, sizeof(buf)));
		}
		return;
	}
	s->answers++;
	/* Node indices stay valid; pointers into the fabric may not. */
	const uint8_t *data = resp + 64;
	switch (k) {
	case K_NODEINFO:
		req_path(req, &path);
		got_nodeinfo(s, path.hops ? node : FAB_NONE, port, &path, data);
		break;
	case K_NODEDESC:
		smp_get_nodedesc(data, r->fab.nodes[node].desc);
		break;
	case K_SWITCHINFO: {
		struct smp_switchinfo si;

		memcpy(r->sw_info[node], data, 64);
		smp_get_switchinfo(data, &si);
		r->fab.nodes[node].enhanced_sp0 = si.enhanced_port0;
		break;
	}
	case K_PORTINFO:
		got_portinfo(s, node, port, data);
		break;
	}
}

struct guid_idx {
	uint64_t guid;
	uint32_t idx;
};

static int cmp_node_guid(const void *a, const void *b)
{
	uint64_t ga = ((const struct guid_idx *)a)->guid;
	uint64_t gb = ((const struct guid_idx *)b)->guid;

	return ga < gb ? -1 : ga > gb;
}

/* Renumber nodes in GUID order. Answers arrive in any order (retries,
 * several MADs in flight), and node order feeds the routing engines'
 * tie-breaks: a canonical order makes the routes, and so a restart's
 * "nothing to write", independent of timing. */
static int canonicalize(struct subnet *r)
{
	struct subnet c;
	const struct fabric *f = &r->fab;
	struct guid_idx *gi = malloc((f->num_nodes + 1) * sizeof(*gi));
	uint32_t *order = malloc((f->num_nodes + 1) * sizeof(*order));
	uint32_t *new_of = malloc((f->num_nodes + 1) * sizeof(*new_of));
	uint32_t *port_map = malloc((f->num_ports + 1) * sizeof(*port_map));
	int rc = -ENOMEM;

	subnet_init(&c);
	if (!gi || !order || !new_of || !port_map)
		goto out;
	for (uint32_t i = 0; i < f->num_nodes; i++)
		gi[i] = (struct guid_idx){ f->nodes[i].guid, i };
	qsort(gi, f->num_nodes, sizeof(*gi), cmp_node_guid);
	for (uint32_t i = 0; i < f->num_nodes; i++)
		order[i] = gi[i].idx;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct fab_node *o = &f->nodes[order[i]];
		uint32_t n = fab_add_node(&c.fab, (enum fab_node_type)o->type,
					  o->num_ports, o->guid, NULL);

		if (n == FAB_NONE || subnet_grow(&c) < 0)
			goto out;
		new_of[order[i]] = n;
		{
			uint32_t first = c.fab.nodes[n].first_port;
			uint32_t sw_index = c.fab.nodes[n].sw_index;

			c.fab.nodes[n] = *o;
			c.fab.nodes[n].first_port = first;
			c.fab.nodes[n].sw_index = sw_index;
		}
		c.node_path[n] = r->node_path[order[i]];
		memcpy(c.sw_info[n], r->sw_info[order[i]], 64);
		memcpy(c.node_info[n], r->node_info[order[i]], 64);
		for (unsigned k = 0; k <= o->num_ports; k++)
			port_map[o->first_port + k] = c.fab.nodes[n].first_port + k;
	}
	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint32_t q = port_map[p];
		struct fab_port *np = &c.fab.ports[q];

		*np = f->ports[p];
		np->node = new_of[f->ports[p].node];
		np->peer = f->ports[p].peer == FAB_NONE ? FAB_NONE : port_map[f->ports[p].peer];
		c.port_path[q] = r->port_path[p];
		memcpy(c.port_info[q], r->port_info[p], 64);
		c.port_info_ok[q] = r->port_info_ok[p];
	}
	c.sm_node = new_of[r->sm_node];
	c.sm_port = port_map[r->sm_port];
	c.lost_probes = r->lost_probes;
	c.lost_attrs = r->lost_attrs;
	c.lost = r->lost;
	c.num_lost = r->num_lost;
	c.cap_lost = r->cap_lost;
	r->lost = NULL;
	c.redo_rounds = r->redo_rounds;
	c.redone = r->redone;
	c.dup_guids = r->dup_guids;
	subnet_free(r);
	*r = c;
	subnet_init(&c);
	rc = 0;
out:
	subnet_free(&c);
	free(gi);
	free(order);
	free(new_of);
	free(port_map);
	return rc;
}

/* A switch whose GUID another node also answered with keeps only the
 * links its own probes confirmed; the rest may be the other node's (a CA
 * sends no probes, so the first port linked stays its own). */
static void drop_dup_links(struct sweep *s)
{
	struct fabric *f = &s->r->fab;

	for (uint32_t n = 0; n < s->dup_cap && n < f->num_nodes; n++) {
		char p1[200], p2[200];

		if (!s->dup_mark[n])
			continue;
		log_err("sweep: duplicate GUID 0x%016llx: node \"%s\" at path %s and another node at path %s answer with it; the second is left out of routing",
			(unsigned long long)f->nodes[n].guid, f->nodes[n].desc,
			smp_path_str(&s->r->node_path[n], p1, sizeof(p1)),
			smp_path_str(&s->dup_other[n], p2, sizeof(p2)));
		if (!fab_is_switch(f, n))
			continue;
		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t p = fab_port_idx(f, n, i);
			uint32_t q = f->ports[p].peer;

			if (q == FAB_NONE || s->r->link_own[p])
				continue;
			log_warn("sweep: duplicate GUID 0x%016llx: port %u link to 0x%016llx[%u] left out (not confirmed from the node itself)",
				 (unsigned long long)f->nodes[n].guid, i,
				 (unsigned long long)f->nodes[f->ports[q].node].guid,
				 f->ports[q].num);
			fab_unlink(f, p);
		}
	}
}

int sweep_discover(struct mad_transport *t, struct subnet *r)
{
	return sweep_discover_hooked(t, r, NULL);
}

int sweep_discover_hooked(struct mad_transport *t, struct subnet *r,
			  const struct sweep_hook *hook)
{
	struct sweep s = { .t = t, .r = r, .hook = hook };
	struct smp_path root = { 0 };
	const struct mt_stats st0 = *mt_get_stats(t);
	int rc;

	subnet_free(r);
	submit(&s, &root, IB_ATTR_NODE_INFO, 0, K_NODEINFO, FAB_NONE, 0);
	rc = mt_drain(t);
	/* What failed every try is asked again, after a pause, instead of
	 * the caller throwing the view away and sweeping again: under heavy
	 * loss a whole sweep never comes back clean, each round of the
	 * failures alone soon does. Answers in a round may queue new
	 * requests (a NodeInfo found a switch); they go in the same drain. */
	uint32_t seen = s.answers;

	while (rc == 0 && s.nredo && !s.nomem && s.round < SWEEP_REDO_ROUNDS) {
		uint32_t n = s.nredo;
		struct redo *list = s.redo;
		double pause = SWEEP_REDO_PAUSE_S * (1u << s.round);
		struct timespec ts;

		double loss = mt_stats_loss(&st0, mt_get_stats(t));

		if (s.round && s.answers == seen && loss < SWEEP_REDO_LOSSY) {
			log_info("sweep: %u request%s unanswered again, nothing answered in round %u and %.0f%% of all tries lost: giving up on them",
				 n, n == 1 ? "" : "s", s.round, loss * 100);
			break;
		}
		seen = s.answers;
		if (pause > SWEEP_REDO_PAUSE_MAX_S)
			pause = SWEEP_REDO_PAUSE_MAX_S;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(pause * 1e9);

		s.round++;
		r->redo_rounds = s.round;
		r->redone += n;
		log_info("sweep: %u request%s unanswered after every try: asking again (round %u of %u, after %.2f s)",
			 n, n == 1 ? "" : "s", s.round, SWEEP_REDO_ROUNDS, pause);
		s.redo = NULL;
		s.nredo = s.redo_cap = 0;
		nanosleep(&ts, NULL);
		for (uint32_t i = 0; i < n; i++)
			if (mt_submit_dr(t, &list[i].path, IB_MAD_METHOD_GET,
					 list[i].attr, list[i].mod, NULL, on_answer,
					 &s, list[i].cookie) < 0)
				s.nomem = 1;
		free(list);
		rc = mt_drain(t);
	}
	/* What is still unanswered is lost: count and name it as the
	 * completion would have. */
	s.round = SWEEP_REDO_ROUNDS;
	for (uint32_t i = 0; i < s.nredo; i++) {
		uint8_t req[256];

		smp_init_dr(req, &s.redo[i].path, IB_MAD_METHOD_GET,
			    s.redo[i].attr, s.redo[i].mod, 0);
		on_answer(&s, s.redo[i].cookie, req, NULL);
	}
	free(s.redo);
	drop_dup_links(&s);
	free(s.hkeys);
	free(s.hvals);
	free(s.dup_mark);
	free(s.dup_other);
	if (rc < 0)
		return rc;
	if (s.nomem)
		return -ENOMEM;
	if (r->sm_node == FAB_NONE) {
		log_err("sweep: the local port does not answer NodeInfo");
		return -EIO;
	}
	return canonicalize(r);
}
