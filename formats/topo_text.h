/* Shared machinery of the two text topology formats. ibnetdiscover output and
 * ibsim net files have the same record syntax (ibsim loads ibnetdiscover
 * dumps); they differ in where GUIDs and link rates come from. The parser
 * here collects records; each format's reader assigns GUIDs through hooks,
 * and topo_text_build() turns the records into a fabric with checked links.
 * Private to formats/. */
#ifndef IBSM_FORMATS_TOPO_TEXT_H
#define IBSM_FORMATS_TOPO_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "../core/fabric.h"

#define TOPO_MAX_LID 0xFFFFFFu /* LIDs above 0xFFFF only in analysis dumps */

/* Link speed as stored in fab_port.speed: LinkSpeedActive (IBA 14.2.5.6)
 * for SDR/DDR/QDR; speeds carried elsewhere in PortInfo are folded into the
 * unused high bits: FDR10 (Mellanox ExtPortInfo) = 8, and
 * LinkSpeedExtActive << 4 for FDR (16), EDR (32), HDR (64), NDR (128). */
enum topo_speed {
	TOPO_SPEED_SDR = 1, TOPO_SPEED_DDR = 2, TOPO_SPEED_QDR = 4,
	TOPO_SPEED_FDR10 = 8, TOPO_SPEED_FDR = 16, TOPO_SPEED_EDR = 32,
	TOPO_SPEED_HDR = 64, TOPO_SPEED_NDR = 128,
};

/* "4xQDR" style text. Return 0 and fill width/speed (IBA encodings above),
 * or -EINVAL. */
int topo_rate_parse(const char *s, uint8_t *width, uint8_t *speed);
/* Width / speed names ("4x", "QDR"); NULL if the code is not known. */
const char *topo_width_str(uint8_t width);
const char *topo_speed_str(uint8_t speed);

struct text_port {
	uint32_t node;          /* index into text_topo.nodes */
	uint32_t line;
	uint64_t guid;          /* "(guid)" after [p] on CA lines, 0 if absent */
	uint64_t rguid;         /* "(guid)" after the remote [p], 0 if absent */
	uint32_t lid;           /* "# lid N" of this port (CA lines) */
	uint8_t lmc, has_lid;
	uint8_t num, rport;
	uint8_t width, speed;   /* "4xSDR" suffix, 0 if absent */
	/* ibsim's enabled sets (LinkWidthEnabled, LinkSpeedEnabled, ext, FDR10) */
	uint8_t width_ena, speed_ena, ext_ena, fdr10_ena;
	char rname[FAB_DESC_LEN + 1];
};

struct text_node {
	uint32_t line;
	uint32_t first_port;    /* its declared ports: ports[first_port ..] */
	uint32_t num_decl;
	uint64_t guid, sys_guid;
	uint32_t vendor_id;
	uint16_t device_id;
	uint8_t type, num_ports, esp0, lmc;
	uint32_t lid;           /* switch header "lid N" (port 0) */
	uint8_t width_ena, speed_ena, ext_ena; /* ibsim: net-wide defaults */
	char name[FAB_DESC_LEN + 1];
	char desc[FAB_DESC_LEN + 1];
};

struct text_topo {
	const char *path;
	struct text_node *nodes;
	struct text_port *ports;
	uint32_t num_nodes, cap_nodes, num_ports, cap_ports;
};

/* Per-format behaviour. */
struct text_rules {
	int ibsim;              /* ibsim's rules: remote port defaults to 1,
				   records must end with a blank line */
	void *state;
	/* A "key=value" (or "key+value") line outside a record. Return 0 if
	 * handled, 1 if not a known directive, -EINVAL after logging. */
	int (*directive)(void *state, const char *path, uint32_t line,
			 const char *text);
	/* A node header was read: assign guid/sys_guid/ids/defaults. */
	int (*node)(void *state, const char *path, struct text_node *n);
};

/* Parse the file into records. Logs "FILE:LINE: reason" and returns
 * -EINVAL on bad input, -errno if the file cannot be read. */
int topo_text_parse(struct text_topo *t, const char *path,
		    const struct text_rules *rules);
void topo_text_free(struct text_topo *t);

/* Build the fabric: nodes in file order, port GUIDs (explicit, else
 * node GUID + port number for CAs/routers), LIDs, and links, each of which
 * must be declared identically on both sides. With `ibsim`, written port
 * GUIDs are ignored (ibsim uses node GUID + port) and link rates are the
 * best common enabled width/speed (ibsim's link_ports); otherwise port GUIDs
 * and the "4xSDR" rate of each port line are taken as written.
 * Returns 0 or -EINVAL / -ENOMEM. */
int topo_text_build(struct fabric *f, const struct text_topo *t, int ibsim);

/* Strict number parsing used by both readers: whole string (up to the
 * first char in `stop`, NULL = end) must be a number. */
int topo_parse_u64(const char *s, const char **end, uint64_t *out);

#endif
