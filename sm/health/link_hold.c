/* The set of held-out links and its application to a fabric copy. */
#include "link_hold.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../../core/grow.h"

void link_hold_init(struct link_hold *h)
{
	memset(h, 0, sizeof(*h));
}

void link_hold_free(struct link_hold *h)
{
	free(h->e);
	memset(h, 0, sizeof(*h));
}

static struct link_hold_entry *find(const struct link_hold *h, uint64_t guid,
				    uint8_t port)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].guid == guid && h->e[i].port == port)
			return &h->e[i];
	return NULL;
}

int link_hold_add(struct link_hold *h, uint64_t guid, uint8_t port,
		  const char *reason, double now)
{
	struct link_hold_entry *e;

	if (find(h, guid, port))
		return 0;
	if (grow_array((void **)&h->e, &h->cap, h->n + 1, sizeof(*h->e), 8))
		return -ENOMEM;
	e = &h->e[h->n++];
	e->guid = guid;
	e->port = port;
	e->since = now;
	snprintf(e->reason, sizeof(e->reason), "%s", reason ? reason : "");
	return 1;
}

int link_hold_remove(struct link_hold *h, uint64_t guid, uint8_t port)
{
	struct link_hold_entry *e = find(h, guid, port);

	if (!e)
		return 0;
	*e = h->e[--h->n];
	return 1;
}

const struct link_hold_entry *link_hold_contains(const struct link_hold *h,
						 uint64_t guid, uint8_t port)
{
	return find(h, guid, port);
}

/* Connected components of f (nodes joined by links). */
static uint32_t components(const struct fabric *f, uint32_t *mark,
			   uint32_t *stack)
{
	uint32_t comps = 0;

	memset(mark, 0, f->num_nodes * sizeof(*mark));
	for (uint32_t s = 0; s < f->num_nodes; s++) {
		uint32_t top = 0;

		if (mark[s])
			continue;
		comps++;
		mark[s] = comps;
		stack[top++] = s;
		while (top) {
			const struct fab_node *n = &f->nodes[stack[--top]];

			for (unsigned k = 1; k <= n->num_ports; k++) {
				uint32_t q = f->ports[n->first_port + k].peer, m;

				if (q == FAB_NONE)
					continue;
				m = f->ports[q].node;
				if (!mark[m]) {
					mark[m] = comps;
					stack[top++] = m;
				}
			}
		}
	}
	return comps;
}

/* Unlink end (guid, port) of f: 1 done, 0 not there or not linked. */
static int unlink_end(struct fabric *f, uint64_t guid, uint8_t port)
{
	uint32_t n = fab_find_node_guid(f, guid), p;

	if (n == FAB_NONE || port == 0 || port > f->nodes[n].num_ports)
		return 0;
	p = fab_port_idx(f, n, port);
	if (f->ports[p].peer == FAB_NONE)
		return 0;
	fab_unlink(f, p);
	return 1;
}

int link_hold_would_split(const struct fabric *f,
			  const struct link_hold *const *sets, unsigned nsets,
			  uint64_t guid, uint8_t port)
{
	struct fabric copy;
	uint32_t *mark = NULL, *stack = NULL, before, n, p, q;
	uint64_t qguid;
	uint8_t qport;
	int rc = -ENOMEM;

	if (!f || !f->num_nodes)
		return 0;
	if (fab_clone(&copy, f) < 0)
		return -ENOMEM;
	n = fab_find_node_guid(&copy, guid);
	p = n == FAB_NONE || port == 0 || port > copy.nodes[n].num_ports ?
	    FAB_NONE : fab_port_idx(&copy, n, port);
	q = p == FAB_NONE ? FAB_NONE : copy.ports[p].peer;
	if (q == FAB_NONE) {
		fab_free(&copy);
		return 0;
	}
	qguid = copy.nodes[copy.ports[q].node].guid;
	qport = copy.ports[q].num;
	mark = malloc(copy.num_nodes * sizeof(*mark));
	stack = malloc(copy.num_nodes * sizeof(*stack));
	if (!mark || !stack)
		goto out;
	/* Every other held or disabled link out (this one may be held
	 * already: avoided first, now disabled). */
	for (unsigned s = 0; s < nsets; s++)
		for (uint32_t i = 0; sets[s] && i < sets[s]->n; i++) {
			const struct link_hold_entry *e = &sets[s]->e[i];

			if ((e->guid == guid && e->port == port) ||
			    (e->guid == qguid && e->port == qport))
				continue;
			unlink_end(&copy, e->guid, e->port);
		}
	before = components(&copy, mark, stack);
	rc = unlink_end(&copy, guid, port) &&
	     components(&copy, mark, stack) > before;
out:
	free(mark);
	free(stack);
	fab_free(&copy);
	return rc;
}

uint32_t link_hold_apply(const struct link_hold *h, struct fabric *f)
{
	uint32_t *mark, *stack, base, removed = 0;

	if (!h->n || !f->num_nodes)
		return 0;
	mark = malloc(f->num_nodes * sizeof(*mark));
	stack = malloc(f->num_nodes * sizeof(*stack));
	if (!mark || !stack) {
		free(mark);
		free(stack);
		log_err("link hold: out of memory: routing over held links");
		return 0;
	}
	base = components(f, mark, stack);
	for (uint32_t i = 0; i < h->n; i++) {
		const struct link_hold_entry *e = &h->e[i];
		uint32_t n = fab_find_node_guid(f, e->guid), p, q;

		if (n == FAB_NONE || e->port == 0 || e->port > f->nodes[n].num_ports)
			continue;
		p = fab_port_idx(f, n, e->port);
		q = f->ports[p].peer;
		if (q == FAB_NONE)
			continue;
		fab_unlink(f, p);
		if (components(f, mark, stack) > base) {
			fab_link(f, p, q);
			log_warn("link hold: 0x%016llx \"%s\" port %u is the only path to part of the fabric: routed over despite the hold (%s)",
				 (unsigned long long)e->guid, f->nodes[n].desc,
				 e->port, e->reason);
			continue;
		}
		removed++;
		log_info("link hold: routing around 0x%016llx \"%s\" port %u (%s)",
			 (unsigned long long)e->guid, f->nodes[n].desc, e->port,
			 e->reason);
	}
	free(mark);
	free(stack);
	return removed;
}
