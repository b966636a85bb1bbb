/* Silent nodes left out of the programmed view: see unreachable.h. */
#include "unreachable.h"
#include "../../mad/smp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../../core/grow.h"
#include "../../core/log.h"

void unreach_init(struct unreach *u)
{
	memset(u, 0, sizeof(*u));
}

void unreach_free(struct unreach *u)
{
	free(u->e);
	unreach_init(u);
}

static const struct unreach_entry *find(const struct unreach *u,
					const struct unreach_entry *k)
{
	for (uint32_t i = 0; i < u->n; i++)
		if (u->e[i].at_guid == k->at_guid && u->e[i].at_port == k->at_port &&
		    u->e[i].attr == k->attr)
			return &u->e[i];
	return NULL;
}

/* Node and port of GUID g, port num in r, or FAB_NONE. */
static uint32_t port_of(const struct subnet *r, uint64_t g, uint8_t num)
{
	struct fabric *f = (struct fabric *)(uintptr_t)&r->fab;
	uint32_t n = g ? fab_find_node_guid(f, g) : FAB_NONE;

	return n == FAB_NONE || num > f->nodes[n].num_ports ?
	       FAB_NONE : fab_port_idx(f, n, num);
}

static const char *attr_name(uint16_t a)
{
	return a == IB_ATTR_NODE_INFO ? "NodeInfo" :
	       a == IB_ATTR_PORT_INFO ? "PortInfo" :
	       a == IB_ATTR_NODE_DESC ? "NodeDescription" :
	       a == IB_ATTR_SWITCH_INFO ? "SwitchInfo" : "attribute";
}

static void fill(struct unreach_entry *e, const struct sweep_lost *l,
		 struct subnet *r, const struct subnet *prev,
		 const struct unreach *old)
{
	const struct fabric *f = &r->fab;
	uint32_t p = port_of(r, l->guid, l->port), q;
	const struct unreach_entry *was;

	memset(e, 0, sizeof(*e));
	e->at_guid = l->guid;
	e->at_port = l->port;
	e->attr = l->attr;
	e->path = l->path;
	if (p != FAB_NONE)
		snprintf(e->at_desc, sizeof(e->at_desc), "%s", f->nodes[f->ports[p].node].desc);
	if (l->attr != IB_ATTR_NODE_INFO) {
		/* The node answered NodeInfo: it is the silent one; name the
		 * port it hangs off instead, and cut that link. */
		e->guid = l->guid;
		memcpy(e->desc, e->at_desc, sizeof(e->desc));
		e->at_guid = 0;
		e->at_desc[0] = 0;
		if (p != FAB_NONE && l->attr == IB_ATTR_PORT_INFO && l->port &&
		    (q = f->ports[p].peer) != FAB_NONE) {
			e->at_guid = f->nodes[f->ports[q].node].guid;
			e->at_port = (uint8_t)f->ports[q].num;
			snprintf(e->at_desc, sizeof(e->at_desc), "%s",
				 f->nodes[f->ports[q].node].desc);
			fab_unlink(&r->fab, p);
		}
		return;
	}
	/* Nothing answers behind at_guid[at_port]: who was there before? */
	p = prev ? port_of(prev, l->guid, l->port) : FAB_NONE;
	if (p != FAB_NONE && (q = prev->fab.ports[p].peer) != FAB_NONE) {
		const struct fab_node *n = &prev->fab.nodes[prev->fab.ports[q].node];

		e->guid = n->guid;
		snprintf(e->desc, sizeof(e->desc), "%s", n->desc);
	} else if ((was = find(old, e)) != NULL) {
		e->guid = was->guid;
		memcpy(e->desc, was->desc, sizeof(e->desc));
	}
}

/* Entry e is not lost in view r: say who answers there now (the port
 * behind at_guid[at_port], for a node never seen). */
static void log_back(const struct unreach_entry *e, const struct subnet *r)
{
	uint64_t guid = e->guid;
	const char *desc = e->desc;
	uint32_t p = port_of(r, e->at_guid, e->at_port), q;

	if (p != FAB_NONE && (q = r->fab.ports[p].peer) != FAB_NONE) {
		const struct fab_node *n = &r->fab.nodes[r->fab.ports[q].node];

		guid = n->guid;
		desc = n->desc;
	}
	log_info("unreachable: node 0x%016llx \"%s\" behind 0x%016llx[%u] \"%s\" answers again, after %.1f s silent",
		 (unsigned long long)guid, desc,
		 (unsigned long long)e->at_guid, e->at_port, e->at_desc,
		 e->since ? now_seconds() - e->since : 0.0);
}

int unreach_update(struct unreach *u, struct subnet *r,
		   const struct subnet *prev, const struct sweep_guard *g)
{
	struct unreach next = { 0 };

	for (uint32_t i = 0; i < r->num_lost; i++) {
		const struct sweep_lost *l = &r->lost[i];
		const struct sweep_silent *s = sweep_guard_silent(g, l);
		struct unreach_entry e;

		fill(&e, l, r, prev, u);
		e.since = s ? s->since : 0;
		if (find(&next, &e))
			continue;
		if (grow_array((void **)&next.e, &next.cap, next.n + 1,
			       sizeof(*next.e), 8)) {
			free(next.e);
			return -ENOMEM;
		}
		next.e[next.n++] = e;
	}
	for (uint32_t i = 0; i < next.n; i++) {
		const struct unreach_entry *e = &next.e[i];
		char path[200], who[120];

		if (find(u, e))
			continue;
		if (e->guid)
			snprintf(who, sizeof(who), "node 0x%016llx \"%s\"",
				 (unsigned long long)e->guid, e->desc);
		else
			snprintf(who, sizeof(who), "the node (never seen)");
		log_warn("unreachable: %s behind 0x%016llx[%u] \"%s\" (DR path %s) has not answered %s for %.1f s, in every sweep: left out of routing, its LID kept reserved; swept for again",
			 who, (unsigned long long)e->at_guid, e->at_port,
			 e->at_desc, smp_path_str(&e->path, path, sizeof(path)),
			 attr_name(e->attr), e->since ? now_seconds() - e->since : 0.0);
	}
	for (uint32_t i = 0; i < u->n; i++)
		if (!find(&next, &u->e[i]))
			log_back(&u->e[i], r);
	free(u->e);
	*u = next;
	return (int)u->n;
}

void unreach_clear(struct unreach *u, const struct subnet *r)
{
	for (uint32_t i = 0; i < u->n; i++)
		log_back(&u->e[i], r);
	u->n = 0;
}
