/* ftree: chassis (director switches) above the leaves, from the graph.
 *
 * A director switch is a 2-level tree of ASICs in one box: line ASICs with
 * the front-panel ports, fabric ASICs linking the line ASICs, every line
 * ASIC to every fabric ASIC. In a tree built from directors, the switches
 * above the leaves fall apart into one connected piece per chassis once
 * the leaves are taken away: chassis meet only through the leaves. So a
 * chassis is a connected component of the switch graph restricted to
 * levels >= 1 that spans exactly levels 1 and 2 and links (nearly) every
 * level-1 member to every level-2 member: at least 3/4 of the pairs, so a
 * chassis with a few internal links down still counts. A pod fat-tree's
 * one such component (spines and cores) links each core to one spine per
 * pod, 1/u of the pairs; a 2-level tree's spines stand alone.
 *
 * What the engine takes from it is an order that the cabling alone
 * decides: inside a chassis a switch's position is the lowest port number
 * it is cabled to at the far end inside the chassis (fabric ASIC k sits on
 * port R/2+1+k of every line ASIC, line ASIC i on port i+1 of every fabric
 * ASIC), so every leaf sees the line ASICs and the fabric ASICs of a
 * chassis in the same relative order whatever order discovery numbered
 * the nodes in. That keeps d-mod-k's choices consistent across leaves
 * (measured in docs/ftree.md).
 *
 * Descriptions ("MF0;director-1:CS7500/L05/U1", ".../S01/U2", the shape
 * Mellanox/NVIDIA chassis report) only name a chassis in the log; nothing
 * depends on them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "ftree.h"

int ft_chassis_desc(const char *desc, char *name, size_t len, char *kind,
		    unsigned *card, unsigned *unit)
{
	const char *semi = strchr(desc, ';');
	const char *colon = semi ? strchr(semi + 1, ':') : NULL;
	const char *slash = colon ? strchr(colon + 1, '/') : NULL;
	unsigned c, u;
	char k, end;

	if (!slash || colon == semi + 1)
		return 0;
	/* "/L05/U1" or "/S01/U2" and nothing after it. */
	if (sscanf(slash, "/%c%u/U%u%c", &k, &c, &u, &end) != 3 ||
	    (k != 'L' && k != 'S'))
		return 0;
	snprintf(name, len, "%.*s", (int)(colon - semi - 1), semi + 1);
	*kind = k;
	*card = c;
	*unit = u;
	return 1;
}

/* Component ids over links between switches at levels >= 1. */
static uint32_t components(const struct ftree *t, uint32_t *comp,
			   uint32_t *size, uint32_t *queue)
{
	uint32_t n = 0;
	for (uint32_t s = 0; s < t->nsw; s++)
		comp[s] = FAB_NONE;
	for (uint32_t s0 = 0; s0 < t->nsw; s0++) {
		if (t->level[s0] == 0 || comp[s0] != FAB_NONE)
			continue;
		uint32_t head = 0, tail = 0;
		comp[s0] = n;
		queue[tail++] = s0;
		while (head < tail) {
			uint32_t s = queue[head++];
			for (int pass = 0; pass < 2; pass++) {
				const struct ft_link *L = pass ? t->dn : t->up;
				const uint32_t *off = pass ? t->dn_off : t->up_off;
				for (uint32_t k = off[s]; k < off[s + 1]; k++) {
					uint32_t o = L[k].peer;
					if (t->level[o] == 0 || comp[o] != FAB_NONE)
						continue;
					comp[o] = n;
					queue[tail++] = o;
				}
			}
		}
		size[n++] = tail;
	}
	return n;
}

/* id[c] = 1 for the components that are chassis (see the top), else 0.
 * scratch holds nsw entries. */
static int is_chassis(const struct ftree *t, const uint32_t *comp,
		      uint32_t ncomp, uint32_t *id, uint32_t *scratch)
{
	uint64_t *n1 = calloc(ncomp, sizeof(uint64_t));
	uint64_t *n2 = calloc(ncomp, sizeof(uint64_t));
	uint64_t *pairs = calloc(ncomp, sizeof(uint64_t));
	uint8_t *other = calloc(ncomp, 1);
	int r = -ENOMEM;
	if (!n1 || !n2 || !pairs || !other)
		goto out;
	for (uint32_t s = 0; s < t->nsw; s++)
		scratch[s] = FAB_NONE;
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t c = comp[s];
		if (c == FAB_NONE)
			continue;
		if (t->level[s] == 2) {
			n2[c]++;
			continue;
		}
		if (t->level[s] != 1) {
			other[c] = 1;
			continue;
		}
		n1[c]++;
		/* distinct fabric ASICs above s (parallel links count once) */
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++) {
			uint32_t u = t->up[k].peer;
			if (scratch[u] != s) {
				scratch[u] = s;
				pairs[c]++;
			}
		}
	}
	for (uint32_t c = 0; c < ncomp; c++)
		id[c] = !other[c] && n1[c] && n2[c] && n1[c] + n2[c] > 2 &&
			4 * pairs[c] >= 3 * n1[c] * n2[c];
	r = 0;
out:
	free(n1);
	free(n2);
	free(pairs);
	free(other);
	return r;
}

/* Lowest port number at the far end of s's links inside its chassis:
 * up-links where there are (line ASICs), else down-links (fabric ASICs). */
static uint32_t chassis_pos(const struct ftree *t, uint32_t s)
{
	uint32_t pos = UINT32_MAX;
	for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++)
		if (t->up[k].rport < pos)
			pos = t->up[k].rport;
	if (pos != UINT32_MAX)
		return pos;
	for (uint32_t k = t->dn_off[s]; k < t->dn_off[s + 1]; k++)
		if (t->level[t->dn[k].peer] > 0 && t->dn[k].rport < pos)
			pos = t->dn[k].rport;
	return pos;
}

static void log_chassis(const struct ftree *t, uint32_t c, uint32_t size)
{
	const struct fabric *f = t->fab;
	char name[64] = "", other[64], kind;
	unsigned card, unit, lines = 0, fabs = 0, named = 0;
	int mixed = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		if (t->chassis[s] != c)
			continue;
		if (t->up_off[s] < t->up_off[s + 1])
			lines++;
		else
			fabs++;
		if (!ft_chassis_desc(f->nodes[f->switches[s]].desc, other,
				     sizeof(other), &kind, &card, &unit))
			continue;
		if (!named++)
			memcpy(name, other, sizeof(name));
		else if (strcmp(name, other))
			mixed = 1;
	}
	log_debug("ftree: chassis %u%s%s%s: %u switches (%u with up-links, %u "
		 "at its top)%s", c, named ? " \"" : "", named ? name : "",
		 named ? "\"" : "", size, lines, fabs,
		 mixed ? "; its descriptions name more than one chassis" :
		 named && named < size ? "; not every ASIC is described as "
		 "part of it" : "");
}

int ft_find_chassis(struct ftree *t)
{
	uint32_t *comp = malloc(t->nsw * sizeof(uint32_t));
	uint32_t *size = malloc(t->nsw * sizeof(uint32_t));
	uint32_t *queue = malloc(t->nsw * sizeof(uint32_t));
	uint32_t *id = malloc(t->nsw * sizeof(uint32_t));
	int r = -ENOMEM;
	t->nchassis = 0;
	if (!comp || !size || !queue || !id)
		goto out;
	r = 0;
	uint32_t ncomp = components(t, comp, size, queue);
	if (is_chassis(t, comp, ncomp, id, queue) < 0) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t c = 0; c < ncomp; c++)
		if (id[c])
			id[c] = t->nchassis++;
		else
			id[c] = FAB_NONE;
	if (!t->nchassis)
		goto out;
	t->chassis = malloc(t->nsw * sizeof(uint32_t));
	t->chassis_pos = malloc(t->nsw * sizeof(uint32_t));
	if (!t->chassis || !t->chassis_pos) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint32_t c = comp[s] == FAB_NONE ? FAB_NONE : id[comp[s]];
		t->chassis[s] = c;
		t->chassis_pos[s] = c == FAB_NONE ? 0 : chassis_pos(t, s);
	}
	for (uint32_t c = 0; c < ncomp; c++)
		if (id[c] != FAB_NONE)
			log_chassis(t, id[c], size[c]);
	log_info("ftree: %u complete 2-level blocks above the leaves (director "
		 "chassis, or the columns of a pod tree): ordered by cabling "
		 "inside each", t->nchassis);
out:
	free(comp);
	free(size);
	free(queue);
	free(id);
	return r;
}
