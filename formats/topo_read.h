/* Readers and writers of dumped topologies. Every reader reports errors as
 * "FILE:LINE: reason" through the log and returns -EINVAL; none aborts. */
#ifndef IBSM_FORMATS_TOPO_READ_H
#define IBSM_FORMATS_TOPO_READ_H

#include "../core/fabric.h"

enum topo_format { TOPO_AUTO = 0, TOPO_IBNETDISCOVER, TOPO_IBSIM_NET, TOPO_OSM_SUBNET };

/* ibnetdiscover output (plain, with or without "# lid N" comments). LIDs and
 * LMCs found in the comments are stored on the ports. */
int topo_read_ibnetdiscover(struct fabric *f, const char *path);

/* ibsim net file, with the GUIDs ibsim 0.10 gives: ids (even "S-<hex>") are
 * only names; GUIDs come from per-type counters (switches 0x200000, CAs
 * 0x100000, routers 0) reset by "switchguid=/caguid=/rtguid=" lines; CA
 * port p = node GUID + p. See docs/formats.md. */
int topo_read_ibsim_net(struct fabric *f, const char *path);

/* OpenSM's subnet.lst (opensm-subnet.lst in its dump_files_dir): one line
 * per link end, "{ SW Ports:.. NodeGUID:.. PortGUID:.. {desc} LID:.. PN:.. }
 * { ... } PHY=4x LOG=ACT SPD=2.5". LIDs, widths and states are stored on
 * the ports. See docs/formats.md. */
int topo_read_osm_subnet(struct fabric *f, const char *path);

/* Sniff the format and read. */
int topo_read(struct fabric *f, const char *path, enum topo_format fmt);

/* Write an ibsim net file that ibsim loads to the same fabric (same GUIDs).
 * Returns 0 or -errno. */
int topo_write_ibsim_net(const struct fabric *f, const char *path);

/* Write ibnetdiscover-style text (with lid comments). */
int topo_write_ibnetdiscover(const struct fabric *f, const char *path);

/* Write a Graphviz DOT file of the topology. */
int topo_write_dot(const struct fabric *f, const char *path);

/* A link-load heat map over the DOT drawing: per port index (the load
 * leaving through that port: routes from an all-to-all, or a measured
 * rate), and links held out of routing. */
struct dot_heat {
	const double *load;         /* f->num_ports entries, NULL: none */
	const char *unit;           /* "routes", "MB/s", ... */
	const uint8_t *held;        /* per port index, 1 = avoided; NULL */
};
/* The same drawing with each link coloured from blue (idle) to red (the
 * busiest link), its width growing with the load, both directions'
 * loads in its label, and held links dashed grey, labelled "avoided". */
int topo_write_dot_heat(const struct fabric *f, const char *path,
			const struct dot_heat *heat);

#endif
