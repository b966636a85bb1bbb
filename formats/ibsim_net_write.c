/* Writer of ibsim net files that ibsim 0.10 loads to the same fabric: same
 * node GUIDs, SystemImageGUIDs, vendor/device ids, descriptions, links and
 * link rates. What ibsim does with a record (ibsim/sim_net.c, measured with
 * ibnetdiscover under ibsim, see docs/topologies.md):
 *
 * - GUIDs come from per-type counters, not from node ids; a "switchguid=",
 *   "caguid=" or "rtguid=" line restarts the counter, so one such line goes
 *   before every record. A CA/router port p gets node GUID + p; a switch's
 *   ports share its GUID. Port GUIDs written in the file are ignored, so CA
 *   port GUIDs survive only when they follow that rule (we warn otherwise).
 * - NodeDescription is the quoted text after '#' on the header line, else the
 *   node id. We write the description there, and use it as the id too when it
 *   is a safe unique word, so ibsim console commands ("Unlink \"leaf-1\" 3")
 *   and SIM_HOST=node-5 can name nodes as people do. Other nodes get
 *   ibnetdiscover's "S-/H-/R-<16 hex>" ids.
 * - "vendid=" and "sysimgguid=" apply to the next node only; "devid=" stays in
 *   force, so it is written whenever it changes.
 * - Each port line ends with "lid N WxS" after the last double quote: ibsim
 *   takes the enabled rate from it (and warns about every port line without
 *   one). Unknown rates are written as ibsim's default, 4xSDR. A CA port
 *   line starts its comment with its own "lid N lmc M"; the remote id in
 *   quotes separates the two "lid" fields.
 * - Clients attach to the first node in the file, so the first CA goes first.
 * - ibsim reads lines of at most 255 bytes and treats any '=' after the remote
 *   id as a port option: comments carry ids and numbers only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "topo_read.h"
#include "topo_text.h"

#define NET_ID_LEN 64           /* ibsim NODEIDLEN - 1 */

struct net_ids {
	char (*id)[NET_ID_LEN + 1]; /* per node */
	uint32_t *slot;             /* open-addressing set of node indices */
	uint32_t cap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;    /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* A description usable as an ibsim node id: non-empty, no quote, '#' or '@'
 * (ibsim reserves them), no space or '=', and not shaped like an
 * ibnetdiscover id (those are kept for GUID-named nodes). */
static int desc_is_safe_id(const char *d)
{
	if (!*d)
		return 0;
	for (const char *c = d; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if (u <= 0x20 || u >= 0x7f || u == '"' || u == '#' || u == '@' ||
		    u == '=' || u == '[' || u == ']' || u == '(' || u == ')' ||
		    u == '\\')
			return 0;
	}
	if ((d[0] == 'S' || d[0] == 'H' || d[0] == 'R') && d[1] == '-')
		return 0;
	return 1;
}

static void hex_id(const struct fab_node *n, char *out)
{
	char kind = n->type == FAB_SWITCH ? 'S' : n->type == FAB_CA ? 'H' : 'R';
	snprintf(out, NET_ID_LEN + 1, "%c-%016llx", kind,
		 (unsigned long long)n->guid);
}

/* Insert node n's id; return the node already holding it, or FAB_NONE. */
static uint32_t ids_insert(struct net_ids *ids, uint32_t n)
{
	uint32_t mask = ids->cap - 1;
	for (uint32_t i = (uint32_t)hash_str(ids->id[n]) & mask;; i = (i + 1) & mask) {
		if (ids->slot[i] == FAB_NONE) {
			ids->slot[i] = n;
			return FAB_NONE;
		}
		if (!strcmp(ids->id[ids->slot[i]], ids->id[n]))
			return ids->slot[i];
	}
}

/* Choose ids: the description where it is safe and unique, else the hex
 * id. Hex ids are unique because node GUIDs are (checked before). */
static int ids_build(struct net_ids *ids, const struct fabric *f)
{
	ids->cap = 16;
	while (ids->cap < 2 * (uint64_t)f->num_nodes + 2)
		ids->cap <<= 1;
	ids->id = calloc(f->num_nodes ? f->num_nodes : 1, sizeof(*ids->id));
	ids->slot = malloc(ids->cap * sizeof(*ids->slot));
	uint8_t *dup = calloc(f->num_nodes ? f->num_nodes : 1, 1);
	if (!ids->id || !ids->slot || !dup) {
		free(dup);
		return -ENOMEM;
	}
	memset(ids->slot, 0xff, ids->cap * sizeof(*ids->slot));
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const char *d = f->nodes[n].desc;
		if (!desc_is_safe_id(d) || strlen(d) > NET_ID_LEN) {
			dup[n] = 1;
			continue;
		}
		snprintf(ids->id[n], NET_ID_LEN + 1, "%s", d);
		uint32_t other = ids_insert(ids, n);
		if (other != FAB_NONE)
			dup[n] = dup[other] = 1;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (dup[n])
			hex_id(&f->nodes[n], ids->id[n]);
	free(dup);
	return 0;
}

static void ids_free(struct net_ids *ids)
{
	free(ids->id);
	free(ids->slot);
}

/* ibsim cannot give two nodes one GUID, nor a node GUID 0. */
static int check_guids(const struct fabric *f, const char *path)
{
	uint32_t cap = 16;
	while (cap < 2 * (uint64_t)f->num_nodes + 2)
		cap <<= 1;
	uint64_t *set = calloc(cap, sizeof(*set));
	if (!set)
		return -ENOMEM;
	int r = 0;
	for (uint32_t n = 0; n < f->num_nodes && !r; n++) {
		uint64_t g = f->nodes[n].guid;
		if (!g) {
			log_err("%s: node %u (\"%s\") has GUID 0; ibsim needs a nonzero "
				"GUID", path, n, f->nodes[n].desc);
			r = -EINVAL;
			break;
		}
		uint32_t mask = cap - 1;
		uint32_t i = (uint32_t)((g * 0x9e3779b97f4a7c15ull) >> 32) & mask;
		for (;; i = (i + 1) & mask) {
			if (!set[i]) {
				set[i] = g;
				break;
			}
			if (set[i] == g) {
				log_err("%s: GUID 0x%016llx is on two nodes (\"%s\" and "
					"another); ibsim refuses duplicate GUIDs", path,
					(unsigned long long)g, f->nodes[n].desc);
				r = -EINVAL;
				break;
			}
		}
	}
	free(set);
	return r;
}

/* Descriptions go between double quotes, which the format cannot escape. */
static void clean_desc(const char *d, char *out)
{
	size_t i;
	for (i = 0; d[i] && i < FAB_DESC_LEN; i++) {
		unsigned char c = (unsigned char)d[i];
		out[i] = c == '"' || c < 0x20 || c == 0x7f ? '\'' : (char)c;
	}
	out[i] = '\0';
}

static void write_rate(FILE *fp, const struct fab_port *p)
{
	const char *w = topo_width_str(p->width), *s = topo_speed_str(p->speed);
	if (!w || !s) {
		w = "4x";
		s = "SDR";
	}
	fprintf(fp, " %s%s\n", w, s);
}

struct net_writer {
	FILE *fp;
	const struct fabric *f;
	const struct net_ids *ids;
	uint32_t devid;             /* devid in force in ibsim's parser */
	uint32_t bad_port_guids;
};

static void write_node(struct net_writer *w, uint32_t n)
{
	FILE *fp = w->fp;
	const struct fabric *f = w->f;
	const struct fab_node *node = &f->nodes[n];
	char desc[FAB_DESC_LEN + 1];
	const char *kw = node->type == FAB_SWITCH ? "Switch" :
		node->type == FAB_CA ? "Ca" : "Rt";
	const char *gkey = node->type == FAB_SWITCH ? "switchguid" :
		node->type == FAB_CA ? "caguid" : "rtguid";

	if (node->vendor_id)
		fprintf(fp, "vendid=0x%x\n", node->vendor_id);
	if (node->device_id != w->devid) {
		fprintf(fp, "devid=0x%x\n", node->device_id);
		w->devid = node->device_id;
	}
	if (node->sys_guid && node->sys_guid != node->guid)
		fprintf(fp, "sysimgguid=0x%llx\n", (unsigned long long)node->sys_guid);
	fprintf(fp, "%s=0x%llx\n", gkey, (unsigned long long)node->guid);
	clean_desc(node->desc, desc);
	fprintf(fp, "%s\t%u \"%s\"\t# \"%s\"", kw, node->num_ports, w->ids->id[n],
		desc);
	if (node->type == FAB_SWITCH) {
		const struct fab_port *p0 = fab_port(f, n, 0);
		if (node->enhanced_sp0)
			fputs(" enhanced port 0", fp);
		if (p0->lid)
			fprintf(fp, " lid %u lmc %u", p0->lid, p0->lmc);
	}
	fputc('\n', fp);

	for (unsigned i = 1; i <= node->num_ports; i++) {
		const struct fab_port *p = fab_port(f, n, i);
		if (node->type != FAB_SWITCH && p->guid && p->guid != node->guid + i)
			w->bad_port_guids++;
		if (p->peer == FAB_NONE)
			continue;
		const struct fab_port *q = &f->ports[p->peer];
		const char *rid = w->ids->id[q->node];
		fprintf(fp, "[%u]\t\"%s\"[%u]\t# ", i, rid, q->num);
		if (node->type == FAB_CA)
			fprintf(fp, "lid %u lmc %u ", p->lid, p->lmc);
		fprintf(fp, "\"%s\" lid %u", rid, fab_port_lid(f, p->peer));
		write_rate(fp, p);
	}
	fputc('\n', fp);    /* a record ends at a blank line */
}

int topo_write_ibsim_net(const struct fabric *f, const char *path)
{
	int r = check_guids(f, path);
	if (r)
		return r;
	struct net_ids ids;
	memset(&ids, 0, sizeof(ids));
	r = ids_build(&ids, f);
	if (r) {
		ids_free(&ids);
		log_err("%s: out of memory", path);
		return r;
	}
	int to_stdout = !strcmp(path, "-");
	FILE *fp = to_stdout ? stdout : fopen(path, "w");
	if (!fp) {
		r = -errno;
		log_err("%s: %s", path, strerror(-r));
		ids_free(&ids);
		return r;
	}

	/* ibsim attaches every client to the first node: make it a CA. */
	uint32_t first = FAB_NONE;
	for (uint32_t n = 0; n < f->num_nodes && first == FAB_NONE; n++)
		if (f->nodes[n].type == FAB_CA)
			first = n;
	if (first == FAB_NONE && f->num_nodes)
		log_warn("%s: no CA in the fabric; ibsim clients will attach to "
			 "a switch", path);

	fprintf(fp, "# ibsim net file written by ibsm: %u switches, %u CAs, "
		"%u routers.\n# Node GUIDs come from the *guid= line before each "
		"record; CA port p\n# has GUID node + p. Load with: ibsim -s FILE\n\n",
		f->num_switches, f->num_cas, f->num_routers);
	struct net_writer w = { .fp = fp, .f = f, .ids = &ids };
	if (first != FAB_NONE)
		write_node(&w, first);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (n != first)
			write_node(&w, n);
	if (w.bad_port_guids)
		log_warn("%s: %u CA/router port GUIDs are not node GUID + port "
			 "number; ibsim will give them that value", path,
			 w.bad_port_guids);

	if (ferror(fp))
		r = -EIO;
	if (to_stdout) {
		if (fflush(fp) && !r)
			r = -errno;
	} else if (fclose(fp) && !r) {
		r = -errno;
	}
	if (r)
		log_err("%s: write failed: %s", path, strerror(-r));
	ids_free(&ids);
	return r;
}
