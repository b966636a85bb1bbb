/* ftree: a topological order of the checked channel graph, kept up to
 * date as down->up turns are added, and the search it bounds.
 *
 * Why: a new turn d -> u closes a cycle only if u reaches d, and u can
 * reach d only if u comes before d in a topological order. So a turn
 * that agrees with the order needs no search, and one that does not
 * needs one only among the channels ordered between u and d (Pearce and
 * Kelly, "A dynamic topological sort algorithm for directed acyclic
 * graphs", JEA 2006). Inside that window two searches run in step, one
 * forward from u, one backward from d; u reaches d exactly when they
 * meet, and no path is proven as soon as either runs out, so the cost is
 * about twice the smaller side. Both go breadth first: when a path exists
 * it is usually short (through a turn or two), and two balls meet sooner
 * than a depth-first dive finds it (a third fewer channels expanded on a
 * 5% degraded radix-36 tree). When the turn is then taken, the window
 * is reordered: the channels that reach d (if the backward side ran
 * out) move, in their order, to just before u, or those u reaches (if the
 * forward side did) to just after d. Edges into or out of the moved set
 * still go forward, and d now precedes u (the partition step of
 * Marchetti-Spaccamela et al.'s algorithm, driven by the smaller search).
 * The order is a linked list with sparse 64-bit labels, so a move costs
 * the moved set only, not the window (about 18,000 channels a turn on the
 * 5% degraded 65k tree); where a gap runs out of labels, all channels are
 * relabelled.
 *
 * The graph starts as the up*-down* dependencies, whose order is known:
 * up channels by level, then down channels from the top level down. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftree.h"

/* Labels 1, 2, ... times the spacing along the list. */
static void relabel(struct ft_turns *tu)
{
	uint64_t l = 0;
	for (uint32_t e = tu->ord_head; e != FAB_NONE; e = tu->ord_next[e])
		tu->ord[e] = l += 1ULL << tu->t->tune->order_gap_bits;
}

int ft_order_init(struct ft_turns *tu)
{
	const struct ftree *t = tu->t;
	size_t np = (size_t)t->fab->num_ports + 1;
	tu->ord = calloc(np, sizeof(uint64_t));
	tu->ord_next = malloc(np * sizeof(uint32_t));
	tu->ord_prev = malloc(np * sizeof(uint32_t));
	tu->bstack = malloc(np * sizeof(uint32_t));
	tu->tmp = malloc(np * sizeof(uint32_t));
	tu->bk_up_seen = calloc(t->nsw, sizeof(uint32_t));
	tu->bk_dn_seen = calloc(t->nsw, sizeof(uint32_t));
	tu->bk_dn_all = calloc(t->nsw, sizeof(uint32_t));
	tu->bk_dn_from = calloc(t->nsw, sizeof(uint32_t));
	tu->nfwd = tu->nbwd = 0;
	if (!tu->ord || !tu->ord_next || !tu->ord_prev || !tu->bstack ||
	    !tu->tmp || !tu->bk_up_seen || !tu->bk_dn_seen || !tu->bk_dn_all ||
	    !tu->bk_dn_from)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nsw; i++) {
		uint32_t s = t->by_level[i];
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++)
			tu->tmp[n++] = t->up[k].egress;
	}
	for (uint32_t i = t->nsw; i-- > 0;) {
		uint32_t s = t->by_level[i];
		for (uint32_t k = t->dn_off[s]; k < t->dn_off[s + 1]; k++)
			tu->tmp[n++] = t->dn[k].egress;
	}
	tu->ord_head = n ? tu->tmp[0] : FAB_NONE;
	for (uint32_t i = 0; i < n; i++) {
		tu->ord_prev[tu->tmp[i]] = i ? tu->tmp[i - 1] : FAB_NONE;
		tu->ord_next[tu->tmp[i]] = i + 1 < n ? tu->tmp[i + 1] : FAB_NONE;
	}
	relabel(tu);
	return 0;
}

void ft_order_free(struct ft_turns *tu)
{
	free(tu->ord);
	free(tu->ord_next);
	free(tu->ord_prev);
	free(tu->bstack);
	free(tu->tmp);
	free(tu->bk_up_seen);
	free(tu->bk_dn_seen);
	free(tu->bk_dn_all);
	free(tu->bk_dn_from);
	tu->ord = NULL;
	tu->ord_next = tu->ord_prev = tu->bstack = tu->tmp = NULL;
	tu->bk_up_seen = tu->bk_dn_seen = tu->bk_dn_all = tu->bk_dn_from = NULL;
}

/* Channels ordered before u cannot be reached from it; one the forward
 * search saw (seen == epoch) is reached from u, so the searches met. */
static void push_back(struct ft_turns *tu, uint32_t *top, uint32_t e)
{
	if (tu->seen[e] == tu->epoch + 1 || tu->ord[e] < tu->lb)
		return;
	if (tu->seen[e] == tu->epoch)
		tu->met = 1;
	tu->seen[e] = tu->epoch + 1;
	tu->bstack[(*top)++] = e;
}

/* Push the channels that may precede channel e (a -> b): the mirror of
 * ft_turn_successors. Up arrivals into a from below precede every
 * channel out of a except the U-turn; down arrivals precede a's down
 * channels, and its up channels only through taken turns. As forward,
 * each switch's links are pushed once per kind of departure. */
static void predecessors(struct ft_turns *tu, uint32_t e, uint32_t *top)
{
	const struct ftree *t = tu->t;
	const struct fabric *f = t->fab;
	uint32_t a = f->nodes[f->ports[e].node].sw_index, b = t->peer_sw[e];
	uint32_t ep = tu->epoch, skip = FAB_NONE;
	if (t->level[b] < t->level[a]) {
		if (tu->bk_dn_seen[a] != ep) {
			tu->bk_dn_seen[a] = ep;
			tu->bk_dn_from[a] = b;
			skip = b;
			for (uint32_t k = t->up_off[a]; k < t->up_off[a + 1]; k++)
				push_back(tu, top, t->up[k].rev_egress);
		} else if (tu->bk_dn_all[a] != ep && tu->bk_dn_from[a] != b) {
			tu->bk_dn_all[a] = ep;  /* now the arrivals from b too */
		} else {
			return;
		}
		for (uint32_t k = t->dn_off[a]; k < t->dn_off[a + 1]; k++)
			if (t->dn[k].peer != skip)
				push_back(tu, top, t->dn[k].rev_egress);
		return;
	}
	if (tu->bk_up_seen[a] != ep) {
		tu->bk_up_seen[a] = ep;
		for (uint32_t k = t->dn_off[a]; k < t->dn_off[a + 1]; k++)
			push_back(tu, top, t->dn[k].rev_egress);
	}
	if (!tu->into_of[e])
		return;         /* no turn taken onto this channel */
	uint8_t out = f->ports[e].num;
	for (uint32_t k = t->up_off[a]; k < t->up_off[a + 1]; k++)
		if (ft_turn_is_taken(tu, a, t->up[k].port, out))
			push_back(tu, top, t->up[k].rev_egress);
}

int ft_order_reaches(struct ft_turns *tu, uint32_t u, uint32_t d)
{
	uint32_t ftop = 0, btop = 0, fhead = 0, bhead = 0, n = 0;
	tu->epoch += 2;
	tu->searches++;
	tu->lb = tu->ord[u];
	tu->ub = tu->ord[d];
	tu->ord_at_lb = u;
	tu->ord_at_ub = d;
	tu->met = 0;
	tu->seen[u] = tu->epoch;
	tu->stack[ftop++] = u;
	push_back(tu, &btop, d);
	while (fhead < ftop && bhead < btop && !tu->met) {
		ft_turn_successors(tu, tu->stack[fhead++], &ftop);
		if (!tu->met)
			predecessors(tu, tu->bstack[bhead++], &btop);
		n += 2;
	}
	tu->visited += n;
	tu->whole_fwd = fhead == ftop;
	tu->nfwd = ftop;
	tu->nbwd = btop;
	return tu->met;
}

static int by_label(const void *a, const void *b, void *arg)
{
	const uint64_t *ord = arg;
	uint64_t x = ord[*(const uint32_t *)a], y = ord[*(const uint32_t *)b];
	return (x > y) - (x < y);
}

static void unlink_channel(struct ft_turns *tu, uint32_t e)
{
	uint32_t p = tu->ord_prev[e], n = tu->ord_next[e];
	if (p != FAB_NONE)
		tu->ord_next[p] = n;
	else
		tu->ord_head = n;
	if (n != FAB_NONE)
		tu->ord_prev[n] = p;
}

void ft_order_add(struct ft_turns *tu)
{
	/* The side that ran out holds the channels to move: those u
	 * reaches (u first in the order) or those reaching d (d last). */
	int fwd = tu->whole_fwd;
	uint32_t n = fwd ? tu->nfwd : tu->nbwd;
	memcpy(tu->tmp, fwd ? tu->stack : tu->bstack, n * sizeof(uint32_t));
	qsort_r(tu->tmp, n, sizeof(uint32_t), by_label, tu->ord);
	uint32_t anchor = fwd ? tu->ord_at_ub : tu->ord_at_lb;   /* d or u */
	for (uint32_t i = 0; i < n; i++)
		unlink_channel(tu, tu->tmp[i]);
	/* Splice them in order after d (forward) or before u (backward). */
	uint32_t prev = fwd ? anchor : tu->ord_prev[anchor];
	uint32_t next = fwd ? tu->ord_next[anchor] : anchor;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = tu->tmp[i];
		tu->ord_prev[e] = i ? tu->tmp[i - 1] : prev;
		tu->ord_next[e] = i + 1 < n ? tu->tmp[i + 1] : next;
	}
	if (n) {
		if (prev != FAB_NONE)
			tu->ord_next[prev] = tu->tmp[0];
		else
			tu->ord_head = tu->tmp[0];
		if (next != FAB_NONE)
			tu->ord_prev[next] = tu->tmp[n - 1];
	}
	uint64_t lo = prev != FAB_NONE ? tu->ord[prev] : 0;
	uint64_t hi = next != FAB_NONE ? tu->ord[next] :
		      lo + (((uint64_t)n + 1) << tu->t->tune->order_gap_bits);
	uint64_t step = (hi - lo) / (n + 1);
	if (!step) {
		relabel(tu);
	} else {
		for (uint32_t i = 0; i < n; i++)
			tu->ord[tu->tmp[i]] = lo + (i + 1) * step;
	}
	tu->moved += n;
}
