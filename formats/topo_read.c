/* Format sniffing and dispatch for topology files.
 *
 * ibnetdiscover output and ibsim net files share one syntax. A file is read
 * as ibnetdiscover output when it carries ibnetdiscover's banner
 * ("# Topology file: generated ...") or when its first node header is
 * preceded by a GUID line of the node's type and has an "S-/H-/R-<hex>" id;
 * otherwise as an ibsim net file (GUIDs from ibsim's counters). A file whose
 * first line starts with "{ " and names a NodeGUID is OpenSM's subnet.lst. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/input_file.h"
#include "../core/log.h"
#include "topo_read.h"

static enum topo_format sniff(const char *path, int *err)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		*err = -errno;
		log_err("%s: %s", path, strerror(errno));
		return TOPO_AUTO;
	}
	char line[512];
	enum topo_format fmt = TOPO_IBSIM_NET;
	char guid_kind = 0;     /* 'S', 'H', 'R' of the last GUID line */
	for (int n = 0; n < 1000 && fgets(line, sizeof(line), fp); n++) {
		if (line[0] == '{' && strstr(line, "NodeGUID:")) {
			fmt = TOPO_OSM_SUBNET;
			break;
		}
		if (!strncmp(line, "# Topology file:", 16)) {
			fmt = TOPO_IBNETDISCOVER;
			break;
		}
		if (!strncmp(line, "switchguid=", 11))
			guid_kind = 'S';
		else if (!strncmp(line, "caguid=", 7))
			guid_kind = 'H';
		else if (!strncmp(line, "rtguid=", 7))
			guid_kind = 'R';
		const char *q = strchr(line, '"');
		int header = !strncmp(line, "Switch", 6) || !strncmp(line, "Ca", 2) ||
			!strncmp(line, "Hca", 3) || !strncmp(line, "Rt", 2);
		if (header) {
			if (guid_kind && q && q[1] == guid_kind && q[2] == '-')
				fmt = TOPO_IBNETDISCOVER;
			break;
		}
	}
	fclose(fp);
	return fmt;
}

static int topo_read_any(struct fabric *f, const char *path, enum topo_format fmt);

struct guid_at {
	uint64_t guid;
	uint32_t port;
};

static int cmp_guid_at(const void *a, const void *b)
{
	const struct guid_at *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* Two CA/router ports with one port GUID (a copy-paste in a dump, or two
 * HCAs flashed alike) cannot both get a LID or routes: the later one is
 * unlinked, so it is left out of routing rather than merged, and both are
 * named. Returns how many were left out. */
static uint32_t exclude_duplicate_ports(struct fabric *f, const char *path)
{
	struct guid_at *g = malloc((f->num_ports + 1) * sizeof(*g));
	uint32_t n = 0, dropped = 0;

	if (!g)
		return 0;
	for (uint32_t p = 0; p < f->num_ports; p++)
		if (!fab_is_switch(f, f->ports[p].node) && f->ports[p].num &&
		    f->ports[p].guid && f->ports[p].peer != FAB_NONE)
			g[n++] = (struct guid_at){ f->ports[p].guid, p };
	qsort(g, n, sizeof(*g), cmp_guid_at);
	for (uint32_t i = 1; i < n; i++) {
		const struct fab_port *a, *b;

		if (g[i].guid != g[i - 1].guid)
			continue;
		a = &f->ports[g[i - 1].port];
		b = &f->ports[g[i].port];
		log_err("%s: port GUID 0x%016llx is both \"%s\"[%u] and \"%s\"[%u]: the second is left out of routing",
			path, (unsigned long long)g[i].guid, f->nodes[a->node].name,
			a->num, f->nodes[b->node].name, b->num);
		fab_unlink(f, g[i].port);
		dropped++;
	}
	free(g);
	return dropped;
}

int topo_read(struct fabric *f, const char *path, enum topo_format fmt)
{
	int rc = topo_read_any(f, path, fmt);

	if (rc == 0) {
		exclude_duplicate_ports(f, path);
		fab_unlink_self_loops(f, path);
	}
	return rc;
}

static int topo_read_any(struct fabric *f, const char *path, enum topo_format fmt)
{
	int err;

	if (fmt != TOPO_AUTO && fmt != TOPO_IBNETDISCOVER && fmt != TOPO_IBSIM_NET &&
	    fmt != TOPO_OSM_SUBNET) {
		fab_init(f);
		log_err("%s: unknown topology format %d", path, (int)fmt);
		return -EINVAL;
	}
	err = input_file_check(path);
	if (err) {
		if (err == -ENOENT)
			log_err("%s: %s", path, strerror(ENOENT));
		fab_init(f);
		return err;
	}
	if (fmt == TOPO_AUTO) {
		fmt = sniff(path, &err);
		if (err) {
			fab_init(f);
			return err;
		}
		log_debug("%s: reading as %s", path, fmt == TOPO_IBNETDISCOVER ?
			  "ibnetdiscover output" : fmt == TOPO_OSM_SUBNET ?
			  "OpenSM subnet.lst" : "ibsim net file");
	}
	switch (fmt) {
	case TOPO_IBNETDISCOVER:
		return topo_read_ibnetdiscover(f, path);
	case TOPO_IBSIM_NET:
		return topo_read_ibsim_net(f, path);
	case TOPO_OSM_SUBNET:
		return topo_read_osm_subnet(f, path);
	default:
		fab_init(f);
		log_err("%s: unknown topology format %d", path, (int)fmt);
		return -EINVAL;
	}
}
