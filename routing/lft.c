/* LFT tables: allocation, comparison, the entries every engine shares, and
 * the `dump_fts` text format (infiniband-diags 44), which is also what
 * OpenSM's `file` routing engine loads with `-R file -U FILE`. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/input_file.h"
#include "../core/log.h"
#include "lft.h"

int lft_alloc(struct lft_set *t, uint32_t num_switches, uint32_t max_lid)
{
	return lft_alloc_reuse(t, NULL, num_switches, max_lid);
}

int lft_take_spare(struct lft_set *t, struct lft_set *spare,
		   uint32_t num_switches, uint32_t max_lid)
{
	memset(t, 0, sizeof(*t));
	if (max_lid > LFT_MAX_ANALYSIS_LID)
		return -EINVAL;
	uint32_t stride = (max_lid + LFT_BLOCK) / LFT_BLOCK * LFT_BLOCK;
	size_t bytes = (size_t)num_switches * stride;
	int taken = spare && spare->port && bytes &&
		(size_t)spare->num_switches * spare->stride >= bytes;
	t->num_switches = num_switches;
	t->stride = stride;
	t->max_lid = max_lid;
	if (taken) {
		t->port = spare->port;
		t->clean = spare->clean;
		if (lft_same_layout(spare, t))
			t->copy_of = spare->copy_of;
		memset(spare, 0, sizeof(*spare));
	} else if (!(t->port = malloc(bytes ? bytes : 1))) {
		memset(t, 0, sizeof(*t));
		return -ENOMEM;
	}
	return taken;
}

void lft_clean(struct lft_set *t)
{
	if (t->port)
		memset(t->port, LFT_NO_PATH, (size_t)t->num_switches * t->stride);
	t->clean = 1;
	t->copy_of = t->copying = NULL;     /* a copy no more */
	t->copied = t->cleared = 0;
}

int lft_clean_step(struct lft_set *t, size_t max_bytes)
{
	if (t->clean)
		return 1;
	size_t bytes = t->port ? (size_t)t->num_switches * t->stride : 0;
	size_t n = bytes - t->cleared;
	if (max_bytes && n > max_bytes)
		n = max_bytes;
	t->copy_of = t->copying = NULL;     /* being overwritten */
	t->copied = 0;
	if (n)
		memset(t->port + t->cleared, LFT_NO_PATH, n);
	t->cleared += n;
	if (t->cleared < bytes)
		return 0;
	t->clean = 1;
	t->cleared = 0;
	return 1;
}

int lft_alloc_reuse(struct lft_set *t, struct lft_set *spare,
		    uint32_t num_switches, uint32_t max_lid)
{
	int r = lft_take_spare(t, spare, num_switches, max_lid);
	if (r < 0)
		return r;
	if (!t->clean)
		lft_clean(t);
	t->clean = 0;
	t->copy_of = NULL;
	return r;
}

int lft_copy_step(struct lft_set *dst, const struct lft_set *src,
		  size_t max_bytes)
{
	if (!dst->port || !src->port || !lft_same_layout(dst, src))
		return -EINVAL;
	if (dst->copy_of == src->port)
		return 1;
	size_t bytes = (size_t)src->num_switches * src->stride;
	if (dst->copying != src->port) {
		/* Nothing copied of these tables yet: whatever dst held is
		 * overwritten from the start. */
		dst->copying = src->port;
		dst->copied = dst->cleared = 0;
		dst->copy_of = NULL;
		dst->clean = 0;
	}
	size_t n = bytes - dst->copied;
	if (max_bytes && n > max_bytes)
		n = max_bytes;
	memcpy(dst->port + dst->copied, src->port + dst->copied, n);
	dst->copied += n;
	if (dst->copied < bytes)
		return 0;
	dst->copy_of = src->port;
	dst->copying = NULL;
	dst->copied = 0;
	return 1;
}

void lft_free(struct lft_set *t)
{
	free(t->port);
	memset(t, 0, sizeof(*t));
}

/* One block of one row, padded with LFT_NO_PATH past the table's end. */
static void block_of(const struct lft_set *t, uint32_t sw, uint32_t blk,
		     uint8_t out[LFT_BLOCK])
{
	uint32_t first = blk * LFT_BLOCK;
	if (!t || !t->port || sw >= t->num_switches || first >= t->stride) {
		memset(out, LFT_NO_PATH, LFT_BLOCK);
		return;
	}
	memcpy(out, lft_row(t, sw) + first, LFT_BLOCK);
}

uint32_t lft_blocks_differ(const struct lft_set *a, uint32_t sw_a,
			   const struct lft_set *b, uint32_t sw_b)
{
	uint32_t sa = a ? a->stride : 0, sb = b ? b->stride : 0;
	uint32_t nblk = (sa > sb ? sa : sb) / LFT_BLOCK, n = 0;
	uint8_t x[LFT_BLOCK], y[LFT_BLOCK];

	for (uint32_t blk = 0; blk < nblk; blk++) {
		block_of(a, sw_a, blk, x);
		block_of(b, sw_b, blk, y);
		n += memcmp(x, y, LFT_BLOCK) != 0;
	}
	return n;
}

static void set_range(struct lft_set *t, uint32_t sw, uint32_t lid,
		      uint8_t lmc, uint8_t port)
{
	for (uint32_t l = lid; l < lid + (1u << lmc) && l <= t->max_lid; l++)
		lft_set_port(t, sw, l, port);
}

void lft_fill_local(const struct fabric *f, struct lft_set *t)
{
	for (uint32_t s = 0; s < f->num_switches && s < t->num_switches; s++) {
		uint32_t n = f->switches[s];
		const struct fab_node *node = &f->nodes[n];
		const struct fab_port *p0 = &f->ports[node->first_port];
		if (p0->lid)
			set_range(t, s, p0->lid, p0->lmc, 0);
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t q = f->ports[node->first_port + i].peer;
			if (q == FAB_NONE || fab_is_switch(f, f->ports[q].node))
				continue;
			if (f->ports[q].lid)
				set_range(t, s, f->ports[q].lid, f->ports[q].lmc,
					  (uint8_t)i);
		}
	}
}

/* owner[lid] = fabric port index holding that LID (base or LMC alias). */
static uint32_t *lid_owners(const struct fabric *f, uint32_t max_lid)
{
	uint32_t *owner = malloc(((size_t)max_lid + 1) * sizeof(*owner));
	if (!owner)
		return NULL;
	for (uint32_t l = 0; l <= max_lid; l++)
		owner[l] = FAB_NONE;
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct fab_port *port = &f->ports[p];
		if (!port->lid)
			continue;
		if (!fab_is_switch(f, port->node) && port->peer == FAB_NONE)
			continue;
		if (fab_is_switch(f, port->node) && port->num != 0)
			continue;
		for (uint32_t l = port->lid;
		     l < port->lid + (1u << port->lmc) && l <= max_lid; l++)
			owner[l] = p;
	}
	return owner;
}

/* infiniband-diags names node types this way in dump_fts/ibroute. */
static const char *diag_type_str(uint8_t type)
{
	switch (type) {
	case FAB_SWITCH: return "Switch";
	case FAB_CA: return "Channel Adapter";
	case FAB_ROUTER: return "Router";
	default: return "???";
	}
}

static void write_dest(FILE *out, const struct fabric *f, uint32_t lid,
		       uint32_t p)
{
	if (p == FAB_NONE) {
		fputs("(unknown node and type)", out);
		return;
	}
	const struct fab_port *port = &f->ports[p];
	const struct fab_node *node = &f->nodes[port->node];
	if (port->lmc && lid != port->lid)
		fprintf(out, "(path #%u out of %u: portguid 0x%016" PRIx64 ")",
			lid - port->lid + 1, 1u << port->lmc, port->guid);
	else
		fprintf(out, "(%s portguid 0x%016" PRIx64 ": '%s')",
			diag_type_str(node->type), port->guid, node->desc);
}

int lft_write_dump_fts(const struct fabric *f, const struct lft_set *t,
		       const char *path)
{
	FILE *out = fopen(path, "w");
	if (!out)
		return -errno;
	uint32_t *owner = lid_owners(f, t->max_lid);
	if (!owner) {
		fclose(out);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < f->num_switches && s < t->num_switches; s++) {
		const struct fab_node *node = &f->nodes[f->switches[s]];
		const struct fab_port *p0 = &f->ports[node->first_port];
		const uint8_t *row = lft_row(t, s);
		uint32_t valid = 0;

		fprintf(out, "Unicast lids [0x0-0x%x] of switch Lid %u guid "
			"0x%016" PRIx64 " (%s):\n", t->max_lid, p0->lid,
			node->guid, node->desc);
		fputs("  Lid  Out   Destination\n", out);
		fputs("       Port     Info \n", out);
		for (uint32_t lid = 0; lid <= t->max_lid; lid++) {
			if (row[lid] == LFT_NO_PATH || row[lid] > node->num_ports)
				continue;
			fprintf(out, "0x%04x %03u : ", lid, row[lid]);
			write_dest(out, f, lid, owner[lid]);
			fputc('\n', out);
			valid++;
		}
		fprintf(out, "%u valid lids dumped \n", valid);
	}
	free(owner);
	int bad = ferror(out);
	if (fclose(out) || bad)
		return -EIO;
	return 0;
}

/* Reader. Accepted lines: "Unicast lids [...] of switch ... guid 0xG (...):"
 * starts a switch; "0xLID PORT ..." is an entry of it; the two column
 * headers, "N valid lids dumped", "N lids dumped", blank lines, '#'
 * comments and tool chatter ("ibwarn: ...") are skipped. A switch GUID not
 * in f is skipped with a warning (as OpenSM does). dump_fts leaves out the
 * last LID when the top LID is a multiple of 64 (IBSIM-NOTES): missing
 * entries simply stay LFT_NO_PATH. */
static int parse_entry(const char *p, uint32_t *lid, unsigned *port)
{
	char *q;
	if (strncmp(p, "0x", 2))
		return -1;
	unsigned long l = strtoul(p + 2, &q, 16);
	if (q == p + 2 || !isspace((unsigned char)*q))
		return -1;
	p = q;
	while (isspace((unsigned char)*p))
		p++;
	unsigned long v = strtoul(p, &q, 10);
	if (q == p || (*q && !isspace((unsigned char)*q)))
		return -1;
	*lid = l > LFT_MAX_ANALYSIS_LID ? UINT32_MAX : (uint32_t)l;
	*port = v > 255 ? 256 : (unsigned)v;
	return 0;
}

static int skip_line(const char *p)
{
	static const char *const skip[] = {
		"Lid  Out", "Lid Out", "Port     Info", "ibwarn:", "#",
	};
	if (!*p)
		return 1;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(p, skip[i], strlen(skip[i])))
			return 1;
	const char *q = p;
	while (isdigit((unsigned char)*q))
		q++;
	return q != p && (!strncmp(q, " valid lids dumped", 18) ||
			  !strncmp(q, " lids dumped", 12));
}

int lft_read_dump_fts(const struct fabric *fab, struct lft_set *t,
		      const char *path, int wide_lids)
{
	struct fabric *f = (struct fabric *)fab; /* GUID index is a cache */
	int ck = input_file_check(path);
	if (ck) {
		if (ck == -ENOENT)
			log_err("%s: %s", path, strerror(ENOENT));
		return -EINVAL;
	}
	FILE *in = fopen(path, "r");
	if (!in) {
		log_err("%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	char line[1024];
	unsigned lineno = 0;
	uint32_t sw = FAB_NONE;
	int skipping = 0, rc = 0, seen = 0;
	uint32_t beyond = 0;        /* entries for LIDs past the topology's top */

	while (fgets(line, sizeof(line), in)) {
		lineno++;
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		p[strcspn(p, "\r\n")] = 0;
		if (skip_line(p))
			continue;
		if (!strncmp(p, "Unicast lids", 12)) {
			char *g = strstr(p, " guid 0x"), *q;
			if (!g) {
				log_err("%s:%u: switch header without \"guid 0x\"", path, lineno);
				rc = -EINVAL;
				break;
			}
			uint64_t guid = strtoull(g + 8, &q, 16);
			if (q == g + 8 || (*q && !isspace((unsigned char)*q))) {
				log_err("%s:%u: bad switch GUID", path, lineno);
				rc = -EINVAL;
				break;
			}
			uint32_t n = fab_find_node_guid(f, guid);
			if (n == FAB_NONE || !fab_is_switch(f, n) ||
			    f->nodes[n].sw_index >= t->num_switches) {
				log_warn("%s:%u: switch 0x%016" PRIx64 " is not in "
					 "the fabric, its table is skipped",
					 path, lineno, guid);
				skipping = 1;
				sw = FAB_NONE;
				continue;
			}
			sw = f->nodes[n].sw_index;
			skipping = 0;
			seen++;
			memset(lft_row(t, sw), LFT_NO_PATH, t->stride);
			continue;
		}
		if (!strncmp(p, "Multicast mlids", 15)) {
			log_err("%s:%u: a multicast dump, not unicast", path, lineno);
			rc = -EINVAL;
			break;
		}
		uint32_t lid;
		unsigned port;
		if (parse_entry(p, &lid, &port)) {
			log_err("%s:%u: expected \"0xLID PORT ...\", got \"%.40s\"",
				path, lineno, p);
			rc = -EINVAL;
			break;
		}
		if (skipping)
			continue;
		if (sw == FAB_NONE) {
			log_err("%s:%u: entry before any \"Unicast lids\" header",
				path, lineno);
			rc = -EINVAL;
			break;
		}
		const struct fab_node *node = &f->nodes[f->switches[sw]];
		if (lid > FAB_MAX_UCAST_LID && !wide_lids) {
			log_err("%s:%u: LID %s%x is past the unicast range "
				"(0x%x): only wide-LID analysis tables have such "
				"LIDs (ibsm-route --wide-lids reads them)", path,
				lineno, lid == UINT32_MAX ? ">0x" : "0x",
				lid == UINT32_MAX ? LFT_MAX_ANALYSIS_LID : lid,
				FAB_MAX_UCAST_LID);
			rc = -EINVAL;
			break;
		}
		if (lid > t->max_lid && lid <= FAB_MAX_UCAST_LID && !wide_lids) {
			/* A unicast LID above every LID of the topology: a
			 * live fabric's switches keep entries for nodes the
			 * topology no longer shows (an SM holding a smaller
			 * view for its grace, a dump taken mid-change). They
			 * route to no endpoint here, so there is nothing to
			 * judge: skip them, and say so once. */
			beyond++;
			continue;
		}
		if (lid > t->max_lid) {
			log_err("%s:%u: LID %s%x beyond the tables (max 0x%x)",
				path, lineno, lid == UINT32_MAX ? ">0x" : "0x",
				lid == UINT32_MAX ? LFT_MAX_ANALYSIS_LID : lid,
				t->max_lid);
			rc = -EINVAL;
			break;
		}
		if (port > node->num_ports && port != LFT_NO_PATH) {
			log_err("%s:%u: port %u but switch 0x%016" PRIx64
				" has %u ports", path, lineno, port, node->guid,
				node->num_ports);
			rc = -EINVAL;
			break;
		}
		lft_set_port(t, sw, lid, (uint8_t)port);
	}
	if (!rc && ferror(in)) {
		log_err("%s: read error", path);
		rc = -EINVAL;
	}
	if (!rc && beyond)
		log_warn("%s: %u entries for LIDs above the topology's top LID 0x%x (nodes it does not show) skipped, not judged",
			 path, beyond, t->max_lid);
	if (!rc && !seen) {
		log_err("%s:%u: no switch table of this fabric in the file",
			path, lineno);
		rc = -EINVAL;
	}
	fclose(in);
	return rc;
}
