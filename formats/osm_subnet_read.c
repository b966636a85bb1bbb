/* Reader of OpenSM's subnet.lst (`opensm-subnet.lst` in dump_files_dir,
 * written when log_flags include ROUTING, e.g. `opensm -D 0x43`): one line
 * per link end, each link twice, as measured from OpenSM 3.3.23:
 *
 *   { SW-SM Ports:08 SystemGUID:0002c9... NodeGUID:0002c9... PortGUID:...
 *     VenID:0002C9 DevID:BD36 Rev:000000A1 {leaf A} LID:0001 PN:01 }
 *   { CA Ports:02 ... {host-1 HCA-1} LID:0003 PN:01 } PHY=4x LOG=ACT SPD=2.5
 *
 * (one line in the file). Types are SW, CA or Rt, "-SM" marks the SM's own
 * node; numbers are hexadecimal. OpenSM prints the two ends' VenID/DevID
 * with different widths, so those are taken from each node's own (left)
 * side only. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "topo_read.h"

struct lst_end {
	uint8_t type;
	unsigned ports;
	uint64_t sys_guid, node_guid, port_guid;
	uint32_t vendor_id, device_id;
	char desc[FAB_DESC_LEN + 1];
	unsigned lid, pn;
};

/* "Key:HEX" at *s; advances past it. */
static int field_hex(const char **s, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	char *e;

	while (**s == ' ')
		(*s)++;
	if (strncmp(*s, key, kl) || (*s)[kl] != ':')
		return -1;
	errno = 0;
	*v = strtoull(*s + kl + 1, &e, 16);
	if (errno || e == *s + kl + 1)
		return -1;
	*s = e;
	return 0;
}

/* One "{ ... }" at *s. Returns 0, or -1 with *why set. */
static int parse_end(const char **s, struct lst_end *x, const char **why)
{
	const char *p = *s, *d, *de;
	uint64_t v;
	size_t n;

	while (*p == ' ')
		p++;
	if (*p++ != '{') {
		*why = "expected '{'";
		return -1;
	}
	while (*p == ' ')
		p++;
	if (!strncmp(p, "SW", 2)) {
		x->type = FAB_SWITCH;
	} else if (!strncmp(p, "CA", 2)) {
		x->type = FAB_CA;
	} else if (!strncmp(p, "Rt", 2)) {
		x->type = FAB_ROUTER;
	} else {
		*why = "node type is not SW, CA or Rt";
		return -1;
	}
	while (*p && *p != ' ')
		p++;
	if (field_hex(&p, "Ports", &v) || !v || v > FAB_MAX_PORTS) {
		*why = "bad Ports:";
		return -1;
	}
	x->ports = (unsigned)v;
	if (field_hex(&p, "SystemGUID", &x->sys_guid) ||
	    field_hex(&p, "NodeGUID", &x->node_guid) ||
	    field_hex(&p, "PortGUID", &x->port_guid)) {
		*why = "bad SystemGUID:/NodeGUID:/PortGUID:";
		return -1;
	}
	if (field_hex(&p, "VenID", &v)) {
		*why = "bad VenID:";
		return -1;
	}
	x->vendor_id = (uint32_t)v;
	if (field_hex(&p, "DevID", &v)) {
		*why = "bad DevID:";
		return -1;
	}
	x->device_id = (uint32_t)v;
	if (field_hex(&p, "Rev", &v)) {
		*why = "bad Rev:";
		return -1;
	}
	while (*p == ' ')
		p++;
	/* The description may hold anything but "} LID:". */
	de = *p == '{' ? strstr(p, "} LID:") : NULL;
	if (!de) {
		*why = "bad {description}";
		return -1;
	}
	d = p + 1;
	n = (size_t)(de - d);
	if (n > FAB_DESC_LEN)
		n = FAB_DESC_LEN;
	memcpy(x->desc, d, n);
	x->desc[n] = 0;
	p = de + 1;
	if (field_hex(&p, "LID", &v) || v > 0xffff) {
		*why = "bad LID:";
		return -1;
	}
	x->lid = (unsigned)v;
	if (field_hex(&p, "PN", &v) || v > x->ports) {
		*why = "bad PN: (more than Ports:)";
		return -1;
	}
	x->pn = (unsigned)v;
	while (*p == ' ')
		p++;
	if (*p++ != '}') {
		*why = "expected '}'";
		return -1;
	}
	*s = p;
	return 0;
}

static uint8_t width_of(const char *s)
{
	/* LinkWidthActive encoding (IBA 14.2.5.6): 1x=1, 4x=2, 8x=4, 12x=8, 2x=16. */
	if (!strncmp(s, "12x", 3))
		return 8;
	if (!strncmp(s, "1x", 2))
		return 1;
	if (!strncmp(s, "4x", 2))
		return 2;
	if (!strncmp(s, "8x", 2))
		return 4;
	if (!strncmp(s, "2x", 2))
		return 16;
	return 0;
}

static uint8_t state_of(const char *s)
{
	if (!strncmp(s, "ACT", 3))
		return FAB_PORT_ACTIVE;
	if (!strncmp(s, "ARM", 3))
		return FAB_PORT_ARMED;
	if (!strncmp(s, "INI", 3))
		return FAB_PORT_INIT;
	if (!strncmp(s, "DWN", 3) || !strncmp(s, "DOWN", 4))
		return FAB_PORT_DOWN;
	return 0;
}

/* The node of an end, added on first sight; a later sight must agree. */
static uint32_t node_of(struct fabric *f, const struct lst_end *x, const char *path,
			unsigned line)
{
	uint32_t n = fab_find_node_guid(f, x->node_guid);
	struct fab_node *nd;

	if (n != FAB_NONE) {
		if (f->nodes[n].type != x->type || f->nodes[n].num_ports != x->ports) {
			log_err("%s:%u: node 0x%016llx: type or port count differs from an earlier line",
				path, line, (unsigned long long)x->node_guid);
			return FAB_NONE;
		}
		return n;
	}
	n = fab_add_node(f, (enum fab_node_type)x->type, (uint8_t)x->ports, x->node_guid, x->desc);
	if (n == FAB_NONE) {
		log_err("%s:%u: out of memory", path, line);
		return FAB_NONE;
	}
	nd = &f->nodes[n];
	nd->sys_guid = x->sys_guid;
	snprintf(nd->name, sizeof(nd->name), "%c-%016llx",
		 x->type == FAB_SWITCH ? 'S' : x->type == FAB_CA ? 'H' : 'R',
		 (unsigned long long)x->node_guid);
	return n;
}

/* Fill the left end's own facts: port GUID, LID, IDs. */
static void own_facts(struct fabric *f, uint32_t n, const struct lst_end *x,
		      uint8_t width, uint8_t state)
{
	struct fab_port *p = fab_port(f, n, x->pn);

	f->nodes[n].vendor_id = x->vendor_id;
	f->nodes[n].device_id = (uint16_t)x->device_id;
	if (x->type == FAB_SWITCH) {
		if (x->lid)
			fab_port(f, n, 0)->lid = x->lid;
	} else {
		p->guid = x->port_guid;
		p->lid = x->lid;
	}
	p->width = width;
	p->state = state;
}

int topo_read_osm_subnet(struct fabric *f, const char *path)
{
	FILE *in = fopen(path, "r");
	char buf[2048];
	unsigned line = 0, links = 0;
	int bad = 0;

	fab_init(f);
	if (!in) {
		log_err("%s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(buf, sizeof(buf), in)) {
		struct lst_end a = { 0 }, b = { 0 };
		const char *s = buf, *why = NULL, *t;
		uint32_t na, nb, pa, pb;
		uint8_t width = 0, state = 0;

		line++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n' || *s == '#')
			continue;
		if (parse_end(&s, &a, &why) || parse_end(&s, &b, &why)) {
			log_err("%s:%u: %s", path, line, why);
			bad = 1;
			break;
		}
		if ((t = strstr(s, "PHY=")))
			width = width_of(t + 4);
		if ((t = strstr(s, "LOG=")))
			state = state_of(t + 4);
		if (!a.pn || !b.pn) {
			log_err("%s:%u: a link at port 0", path, line);
			bad = 1;
			break;
		}
		na = node_of(f, &a, path, line);
		nb = na == FAB_NONE ? FAB_NONE : node_of(f, &b, path, line);
		if (na == FAB_NONE || nb == FAB_NONE) {
			bad = 1;
			break;
		}
		own_facts(f, na, &a, width, state);
		/* The far end's line says the same; until it comes (or if the
		 * file holds one direction only), take its port GUID and LID. */
		if (b.type != FAB_SWITCH && !fab_port(f, nb, b.pn)->guid) {
			fab_port(f, nb, b.pn)->guid = b.port_guid;
			fab_port(f, nb, b.pn)->lid = b.lid;
		} else if (b.type == FAB_SWITCH && !fab_port(f, nb, 0)->lid) {
			fab_port(f, nb, 0)->lid = b.lid;
		}
		pa = fab_port_idx(f, na, a.pn);
		pb = fab_port_idx(f, nb, b.pn);
		if (fab_link(f, pa, pb) < 0) {
			log_err("%s:%u: \"%s\"[%u] - \"%s\"[%u]: a port linked twice", path, line,
				a.desc, a.pn, b.desc, b.pn);
			bad = 1;
			break;
		}
		links++;
	}
	fclose(in);
	if (!bad && !f->num_nodes) {
		log_err("%s: no links in file", path);
		bad = 1;
	}
	if (bad) {
		fab_free(f);
		return -EINVAL;
	}
	log_debug("%s: OpenSM subnet.lst: %u nodes, %u link lines", path, f->num_nodes, links);
	return 0;
}
