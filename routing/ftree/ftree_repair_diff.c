/* ftree repair, part 1: how the new fabric differs from the one the
 * previous tables were computed on, and whether the difference is one the
 * minimal-change repair (ftree_repair.c) may handle: links and switches
 * lost, nothing added or recabled, every LID that still exists owned by
 * the same port, and every switch on the same tree level (so "up" and
 * "down", and with them the turns of the previous tables, mean what they
 * meant). Anything else is refused with a reason; the engine then routes
 * in full. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/grow.h"
#include "ftree_repair.h"

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* owner[lid] = GUID of the port that answers to lid (0: none). */
static void lid_owner_guids(const struct fabric *f, uint64_t *owner,
			    uint32_t max_lid)
{
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct fab_port *pt = &f->ports[p];
		int sw = fab_is_switch(f, pt->node);
		if (!pt->lid || (sw && pt->num) || (!sw && pt->peer == FAB_NONE))
			continue;
		for (uint32_t l = pt->lid; l < pt->lid + (1u << pt->lmc) &&
		     l <= max_lid; l++)
			owner[l] = pt->guid ? pt->guid : f->nodes[pt->node].guid;
	}
}

static const char *sw_desc(const struct fabric *f, uint32_t s)
{
	return f->nodes[f->switches[s]].desc;
}

/* Levels of the previous fabric by the rule ftree_levels.c applies (hop
 * distance from the leaves, or below the roots), mapped to new switch
 * ordinals; 0 if every surviving switch keeps its level. */
static int levels_differ(struct ft_repair *rp, const struct route_options *opt,
			 char *why, size_t len)
{
	const struct fabric *pf = rp->pf, *f = rp->t->fab;
	uint32_t n = pf->num_switches;
	uint32_t *dist = malloc((n ? n : 1) * sizeof(*dist));
	uint32_t *queue = malloc((n ? n : 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0, maxd = 0;
	int r = 0;
	if (!dist || !queue) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t s = 0; s < n; s++) {
		const struct fab_node *nd = &pf->nodes[pf->switches[s]];
		int seed = 0;
		if (opt && opt->num_root_guids) {
			for (uint32_t i = 0; i < opt->num_root_guids; i++)
				seed |= opt->root_guids[i] == nd->guid;
		} else {
			for (unsigned p = 1; p <= nd->num_ports && !seed; p++) {
				uint32_t o = fab_peer_node(pf, nd->first_port + p);
				seed = o != FAB_NONE && pf->nodes[o].type == FAB_CA;
			}
		}
		dist[s] = seed ? 0 : UINT32_MAX;
		if (seed)
			queue[tail++] = s;
	}
	while (head < tail) {
		uint32_t s = queue[head++];
		const struct fab_node *nd = &pf->nodes[pf->switches[s]];
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t o = fab_peer_node(pf, nd->first_port + p);
			if (o == FAB_NONE || !fab_is_switch(pf, o) ||
			    dist[pf->nodes[o].sw_index] != UINT32_MAX)
				continue;
			dist[pf->nodes[o].sw_index] = dist[s] + 1;
			maxd = max_u32(maxd, dist[s] + 1);
			queue[tail++] = pf->nodes[o].sw_index;
		}
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t d = dist[rp->prev_sw[s]];
		uint32_t lvl = d == UINT32_MAX ? UINT32_MAX :
			opt && opt->num_root_guids ? maxd - d : d;
		if (lvl != rp->t->level[s]) {
			snprintf(why, len, "switch \"%.24s\" moved from level %d to "
				 "level %u", sw_desc(f, s),
				 lvl == UINT32_MAX ? -1 : (int)lvl, rp->t->level[s]);
			r = 1;
			break;
		}
	}
	/* Kept for the old path shapes (ftree_repair.c), as levels. */
	for (uint32_t s = 0; s < n && !r; s++)
		if (dist[s] != UINT32_MAX && opt && opt->num_root_guids)
			dist[s] = maxd - dist[s];
	if (!r) {
		rp->prev_level = dist;
		dist = NULL;
	}
out:
	free(dist);
	free(queue);
	return r;
}

/* Ports that lost their link: switch-switch ones into rp->lost. */
static int compare_ports(struct ft_repair *rp, char *why, size_t len)
{
	const struct fabric *pf = rp->pf, *f = rp->t->fab;
	uint32_t cap = 0;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct fab_node *nd = &f->nodes[f->switches[s]];
		const struct fab_node *pn = &pf->nodes[pf->switches[rp->prev_sw[s]]];
		if (nd->num_ports != pn->num_ports) {
			snprintf(why, len, "switch \"%.24s\" has %u ports, had %u",
				 nd->desc, nd->num_ports, pn->num_ports);
			return 1;
		}
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t q = f->ports[nd->first_port + p].peer;
			uint32_t pq = pf->ports[pn->first_port + p].peer;
			if (q == FAB_NONE && pq == FAB_NONE)
				continue;
			if (q != FAB_NONE && (pq == FAB_NONE ||
			    f->nodes[f->ports[q].node].guid !=
			    pf->nodes[pf->ports[pq].node].guid ||
			    f->ports[q].num != pf->ports[pq].num)) {
				snprintf(why, len, "port %u of switch \"%.24s\" "
					 "has a new link", p, nd->desc);
				return 1;
			}
			if (q != FAB_NONE || !fab_is_switch(pf, pf->ports[pq].node))
				continue;       /* same link, or a CA lost (by LID) */
			if (grow_array((void **)&rp->lost, &cap, rp->nlost + 1,
				       sizeof(*rp->lost), 64))
				return -ENOMEM;
			rp->lost[rp->nlost++] = (struct ft_lost){ s, (uint8_t)p };
		}
	}
	return 0;
}

/* LIDs: each LID of the new fabric owned by the same port GUID as before;
 * LIDs whose owner is gone are listed in rp->gone (their columns are
 * cleared). */
static int compare_lids(struct ft_repair *rp, char *why, size_t len)
{
	const struct fabric *pf = rp->pf, *f = rp->t->fab;
	uint32_t top = max_u32(rp->lft->max_lid, rp->prev->max_lid);
	uint64_t *now = calloc((size_t)top + 1, sizeof(*now));
	uint64_t *was = calloc((size_t)top + 1, sizeof(*was));
	int r = 0;
	if (!now || !was) {
		r = -ENOMEM;
		goto out;
	}
	lid_owner_guids(f, now, top);
	lid_owner_guids(pf, was, top);
	rp->ngone = 0;
	for (uint32_t l = 1; l <= top; l++) {
		if (now[l] && now[l] != was[l]) {
			snprintf(why, len, "LID %u %s", l, was[l] ?
				 "changed hands" : "is new");
			r = 1;
			goto out;
		}
		if (!now[l] && was[l])
			rp->ngone++;
	}
	rp->gone = malloc((rp->ngone ? rp->ngone : 1) * sizeof(uint32_t));
	if (!rp->gone) {
		r = -ENOMEM;
		goto out;
	}
	rp->ngone = 0;
	for (uint32_t l = 1; l <= top; l++)
		if (!now[l] && was[l] && l <= rp->lft->max_lid)
			rp->gone[rp->ngone++] = l;
out:
	free(now);
	free(was);
	return r;
}

int ft_repair_diff(struct ft_repair *rp, const struct route_options *opt,
		   char *why, size_t len)
{
	const struct fabric *f = rp->t->fab;
	if (!rp->prev_sw) {
		snprintf(why, len, "previous tables do not match their fabric");
		return 1;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (rp->prev_sw[s] == FAB_NONE) {
			snprintf(why, len, "switch \"%.24s\" is new", sw_desc(f, s));
			return 1;
		}
	if (rp->lft->max_lid > rp->prev->max_lid) {
		snprintf(why, len, "LIDs up to %u, previous tables end at %u",
			 rp->lft->max_lid, rp->prev->max_lid);
		return 1;
	}
	int r = compare_ports(rp, why, len);
	if (!r)
		r = compare_lids(rp, why, len);
	if (!r)
		r = levels_differ(rp, opt, why, len);
	if (!r && rp->nlost > FT_REPAIR_MAX_LINKS) {
		snprintf(why, len, "%u links lost (the repair takes at most %u)",
			 rp->nlost, FT_REPAIR_MAX_LINKS);
		r = 1;
	}
	return r;
}
