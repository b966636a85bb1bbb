/* topo_text_build(): the records of topo_text.c into a fabric, every
 * node id and node GUID unique, every link checked from both ends (ibsim
 * net files: the active rate as ibsim computes it). */
#include "topo_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

/* Node-id lookup: open addressing over text_topo.nodes. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;       /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

struct name_index {
	uint32_t *slot;
	uint32_t mask;
};

static uint32_t name_find(const struct name_index *ix,
			  const struct text_topo *t, const char *name)
{
	for (uint32_t h = name_hash(name) & ix->mask;; h = (h + 1) & ix->mask) {
		uint32_t n = ix->slot[h];
		if (n == FAB_NONE || !strcmp(t->nodes[n].name, name))
			return n;
	}
}

static int name_index_build(struct name_index *ix, const struct text_topo *t)
{
	uint32_t cap = 16;
	while (cap < t->num_nodes * 2u)
		cap *= 2;
	ix->slot = malloc(cap * sizeof(*ix->slot));
	if (!ix->slot)
		return -ENOMEM;
	memset(ix->slot, 0xff, cap * sizeof(*ix->slot));
	ix->mask = cap - 1;
	for (uint32_t n = 0; n < t->num_nodes; n++) {
		uint32_t prev = name_find(ix, t, t->nodes[n].name);
		if (prev != FAB_NONE) {
			log_err("%s:%u: node id \"%s\" already used at line %u",
				t->path, t->nodes[n].line, t->nodes[n].name,
				t->nodes[prev].line);
			free(ix->slot);
			return -EINVAL;
		}
		uint32_t h = name_hash(t->nodes[n].name) & ix->mask;
		while (ix->slot[h] != FAB_NONE)
			h = (h + 1) & ix->mask;
		ix->slot[h] = n;
	}
	return 0;
}

/* Best common rate of two ports' enabled sets (ibsim link_ports). */
static int ibsim_active_rate(const struct text_port *a,
			     const struct text_port *b, uint8_t *width,
			     uint8_t *speed)
{
	static const uint8_t wpref[] = { 8, 4, 2, 16, 1 };
	unsigned w = a->width_ena & b->width_ena;
	unsigned sp = a->speed_ena & b->speed_ena;
	unsigned ext = a->ext_ena & b->ext_ena;
	*width = 0;
	for (size_t i = 0; i < sizeof(wpref); i++)
		if (w & wpref[i]) {
			*width = wpref[i];
			break;
		}
	if (!*width || !(sp & 7))
		return -EINVAL;
	if (ext & 4)
		*speed = TOPO_SPEED_HDR;
	else if (ext & 2)
		*speed = TOPO_SPEED_EDR;
	else if (ext & 1)
		*speed = TOPO_SPEED_FDR;
	else if (a->fdr10_ena & b->fdr10_ena)
		*speed = TOPO_SPEED_FDR10;
	else
		*speed = sp & 4 ? TOPO_SPEED_QDR : sp & 2 ? TOPO_SPEED_DDR :
			TOPO_SPEED_SDR;
	return 0;
}

static int cmp_guid_node(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Node GUIDs must be unique (ibsim refuses duplicates as well). */
static int check_unique_guids(const struct text_topo *t)
{
	uint64_t *pairs = malloc((size_t)t->num_nodes * 2 * sizeof(*pairs));
	if (!pairs)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->num_nodes; i++) {
		pairs[2 * i] = t->nodes[i].guid;
		pairs[2 * i + 1] = i;
	}
	qsort(pairs, t->num_nodes, 2 * sizeof(*pairs), cmp_guid_node);
	int r = 0;
	for (uint32_t i = 1; i < t->num_nodes && !r; i++) {
		if (pairs[2 * i] != pairs[2 * i - 2])
			continue;
		const struct text_node *a = &t->nodes[pairs[2 * i - 1]];
		const struct text_node *b = &t->nodes[pairs[2 * i + 1]];
		log_err("%s:%u: node GUID 0x%016llx of \"%s\" already used by "
			"\"%s\" (line %u)", t->path, b->line,
			(unsigned long long)b->guid, b->name, a->name, a->line);
		r = -EINVAL;
	}
	free(pairs);
	return r;
}

static int add_nodes(struct fabric *f, const struct text_topo *t)
{
	for (uint32_t i = 0; i < t->num_nodes; i++) {
		const struct text_node *tn = &t->nodes[i];
		uint32_t n = fab_add_node(f, tn->type, tn->num_ports, tn->guid,
					  tn->desc);
		if (n == FAB_NONE)
			return -ENOMEM;
		struct fab_node *node = &f->nodes[n];
		node->sys_guid = tn->sys_guid;
		node->vendor_id = tn->vendor_id;
		node->device_id = tn->device_id;
		node->enhanced_sp0 = tn->esp0;
		snprintf(node->name, sizeof(node->name), "%s", tn->name);
		if (tn->type == FAB_SWITCH) {
			fab_port(f, n, 0)->lid = tn->lid;
			fab_port(f, n, 0)->lmc = tn->lmc;
		} else {
			for (unsigned p = 1; p <= tn->num_ports; p++)
				fab_port(f, n, p)->guid = tn->guid + p;
		}
	}
	return 0;
}

int topo_text_build(struct fabric *f, const struct text_topo *t, int ibsim)
{
	struct name_index ix;
	fab_init(f);
	int r = check_unique_guids(t);
	if (r)
		return r;
	r = name_index_build(&ix, t);
	if (r)
		return r;
	r = add_nodes(f, t);
	/* Port attributes first, so remote "(guid)" hints can be checked. */
	for (uint32_t i = 0; !r && i < t->num_ports; i++) {
		const struct text_port *tp = &t->ports[i];
		struct fab_port *fp = fab_port(f, tp->node, tp->num);
		if (t->nodes[tp->node].type == FAB_SWITCH)
			continue;
		if (tp->guid && !ibsim)   /* ibsim ignores written port GUIDs */
			fp->guid = tp->guid;
		if (tp->has_lid) {
			fp->lid = tp->lid;
			fp->lmc = tp->lmc;
		}
	}
	for (uint32_t i = 0; !r && i < t->num_ports; i++) {
		const struct text_port *tp = &t->ports[i];
		const struct text_node *tn = &t->nodes[tp->node];
		uint32_t rn = name_find(&ix, t, tp->rname);
		r = -EINVAL;
		if (rn == FAB_NONE) {
			log_err("%s:%u: port %u of \"%s\" links to unknown node \"%s\"",
				t->path, tp->line, tp->num, tn->name, tp->rname);
			break;
		}
		const struct text_node *rtn = &t->nodes[rn];
		if (tp->rport > rtn->num_ports) {
			log_err("%s:%u: remote port %u > number of ports %u of \"%s\"",
				t->path, tp->line, tp->rport, rtn->num_ports,
				rtn->name);
			break;
		}
		if (rn == tp->node && tp->rport == tp->num) {
			log_err("%s:%u: port %u of \"%s\" links to itself",
				t->path, tp->line, tp->num, tn->name);
			break;
		}
		/* The far side must declare this same link. */
		const struct text_port *back = NULL;
		for (uint32_t j = rtn->first_port; j < rtn->first_port + rtn->num_decl; j++)
			if (t->ports[j].num == tp->rport)
				back = &t->ports[j];
		if (!back) {
			log_err("%s:%u: \"%s\"[%u] -> \"%s\"[%u], but \"%s\" (line %u) "
				"does not declare port %u", t->path, tp->line,
				tn->name, tp->num, rtn->name, tp->rport,
				rtn->name, rtn->line, tp->rport);
			break;
		}
		if (strcmp(back->rname, tn->name) || back->rport != tp->num) {
			log_err("%s:%u: \"%s\"[%u] -> \"%s\"[%u], but line %u says "
				"\"%s\"[%u] -> \"%s\"[%u]", t->path, tp->line,
				tn->name, tp->num, rtn->name, tp->rport,
				back->line, rtn->name, back->num, back->rname,
				back->rport);
			break;
		}
		uint32_t a = fab_port_idx(f, tp->node, tp->num);
		uint32_t b = fab_port_idx(f, rn, tp->rport);
		/* A CA port's GUID may be given on its own line or only on
		 * the switch's line ("[p](guid)"): they must agree. */
		if (!ibsim && tp->rguid && rtn->type != FAB_SWITCH) {
			if (!back->guid) {
				f->ports[b].guid = tp->rguid;
			} else if (back->guid != tp->rguid) {
				log_err("%s:%u: remote port GUID %llx differs from %llx "
					"declared at line %u", t->path, tp->line,
					(unsigned long long)tp->rguid,
					(unsigned long long)back->guid, back->line);
				break;
			}
		}
		if (fab_link(f, a, b)) {
			log_err("%s:%u: cannot link \"%s\"[%u] to \"%s\"[%u]",
				t->path, tp->line, tn->name, tp->num, rtn->name,
				tp->rport);
			break;
		}
		struct fab_port *fp = &f->ports[a];
		if (ibsim) {
			if (ibsim_active_rate(tp, back, &fp->width, &fp->speed)) {
				log_err("%s:%u: no common enabled width/speed between "
					"\"%s\"[%u] and \"%s\"[%u]", t->path,
					tp->line, tn->name, tp->num, rtn->name,
					tp->rport);
				break;
			}
		} else {
			fp->width = tp->width;
			fp->speed = tp->speed;
		}
		r = 0;
	}
	free(ix.slot);
	if (r)
		fab_free(f);
	return r;
}
