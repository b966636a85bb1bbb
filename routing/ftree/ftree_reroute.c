/* ftree adaptive re-routing: given the tables computed on a previous
 * fabric, keep every entry that is still valid under the new graph and
 * re-decide only the others.
 *
 * "Valid" is checked where each entry is decided (ftree_route.c): a chain
 * switch whose previous entry already led down to the chain is kept, an
 * ancestor keeps a previous down-link to another ancestor, a good switch
 * keeps a previous up-link to a good switch, others keep a link that
 * brings them closer to the good set. So destinations whose routes did not
 * cross a lost link keep all entries, the others change only where their
 * old path broke, and new choices fall to the least-loaded links, which is
 * the local rebalancing. Switches are matched by node GUID; LIDs are
 * assumed stable (the SM keeps them across sweeps, IBA 14.2.5.6 / guid2lid). */
#include <errno.h>
#include <stdlib.h>

#include "../../core/log.h"
#include "ftree.h"

struct guid_ord {
	uint64_t guid;
	uint32_t ord;
};

static int cmp_guid(const void *a, const void *b)
{
	const struct guid_ord *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

int ft_reroute_init(struct ft_work *w, const struct route_options *opt,
		    const struct fabric *f)
{
	w->prev = NULL;
	w->prev_sw = NULL;
	if (!opt || !opt->prev || !opt->prev_fab)
		return 0;
	const struct fabric *pf = opt->prev_fab;
	if (opt->prev->num_switches != pf->num_switches) {
		log_warn("ftree: previous tables have %u switches, their fabric %u;"
			 " routing from scratch", opt->prev->num_switches,
			 pf->num_switches);
		return 0;
	}
	struct guid_ord *v = malloc((pf->num_switches ? pf->num_switches : 1) * sizeof(*v));
	w->prev_sw = malloc((f->num_switches ? f->num_switches : 1) * sizeof(uint32_t));
	if (!v || !w->prev_sw) {
		free(v);
		free(w->prev_sw);
		w->prev_sw = NULL;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < pf->num_switches; i++)
		v[i] = (struct guid_ord){ pf->nodes[pf->switches[i]].guid, i };
	qsort(v, pf->num_switches, sizeof(*v), cmp_guid);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		struct guid_ord key = { f->nodes[f->switches[s]].guid, 0 };
		struct guid_ord *hit = pf->num_switches ?
			bsearch(&key, v, pf->num_switches, sizeof(*v), cmp_guid) : NULL;
		w->prev_sw[s] = hit ? hit->ord : FAB_NONE;
	}
	free(v);
	w->prev = opt->prev;
	return 0;
}

void ft_reroute_free(struct ft_work *w)
{
	free(w->prev_sw);
	w->prev_sw = NULL;
	w->prev = NULL;
}

uint8_t ft_prev_port(const struct ft_work *w, uint32_t sw, uint32_t lid)
{
	uint32_t ps = w->prev_sw[sw];
	return ps == FAB_NONE ? LFT_NO_PATH : lft_get(w->prev, ps, lid);
}

void ft_reroute_report(const struct ft_work *w, const struct fabric *f,
		       const struct lft_set *now)
{
	uint64_t blocks = 0, total = 0, entries = 0;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t ps = w->prev_sw[s];
		uint32_t nb = (now->max_lid + LFT_BLOCK) / LFT_BLOCK;
		total += nb;
		if (ps == FAB_NONE) {
			blocks += nb;
			entries += now->max_lid + 1;
			continue;
		}
		blocks += lft_blocks_differ(w->prev, ps, now, s);
		for (uint32_t lid = 0; lid <= now->max_lid; lid++)
			entries += lft_get(w->prev, ps, lid) != lft_get(now, s, lid);
	}
	log_info("ftree: re-route changed %llu entries in %llu of %llu "
		 "64-entry LFT blocks", (unsigned long long)entries,
		 (unsigned long long)blocks, (unsigned long long)total);
}
