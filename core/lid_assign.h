/* LID assignment as a subnet manager does it (IBA 14.2.5.6, OpenSM's
 * lid manager behaviour): keep valid LIDs found in the input, honour the
 * guid2lid file, assign the rest from the lowest free aligned range. */
#ifndef IBSM_CORE_LID_ASSIGN_H
#define IBSM_CORE_LID_ASSIGN_H

#include "fabric.h"

struct lid_map_entry {
	uint64_t port_guid;
	uint32_t min_lid, max_lid;
};

/* A guid2lid map: the format of OpenSM's guid2lid file, one line each
 * "0xGUID MINLID MAXLID", '#' comments allowed. */
struct lid_map {
	struct lid_map_entry *entries;
	uint32_t count, cap;
};

void lid_map_init(struct lid_map *m);
void lid_map_free(struct lid_map *m);
/* Returns 0, -ENOENT if the file does not exist (an empty map is still
 * valid), -EISDIR / -EINVAL for a directory or a device, or -EINVAL after
 * logging "FILE:LINE: reason" for the first bad line: a malformed line, a
 * line over 256 characters, LIDs outside 1..0xBFFF, a GUID listed twice,
 * or LIDs another GUID already holds. */
int lid_map_load(struct lid_map *m, const char *path);
/* The same for a cache the SM keeps for itself, where the file is a hint:
 * every bad line is warned about with FILE:LINE and skipped, and only an
 * unreadable file (or a directory, a device) fails. */
int lid_map_load_hints(struct lid_map *m, const char *path);
/* Writes atomically (temp file + rename). Returns 0 or -errno. */
int lid_map_save(const struct lid_map *m, const char *path);
/* Entry for a port GUID, or NULL. */
const struct lid_map_entry *lid_map_find(const struct lid_map *m, uint64_t guid);

struct lid_assign_opts {
	uint8_t lmc;                 /* 0..7; switches keep LMC 0 (base port 0) */
	const struct lid_map *map;   /* optional guid2lid to honour */
	int keep_existing;           /* keep valid LIDs already on ports */
	uint32_t max_lid;            /* highest LID allowed; 0 = FAB_MAX_UCAST_LID */
};

/* Assign LIDs to every endpoint port (see fab_endpoint_ports). A LID from
 * the input (keep_existing) or from the map is kept when it is aligned to
 * the LMC, inside the range and not used by another port; otherwise the port
 * gets a fresh one. Fills `out_map` (if non-NULL) with the final LIDs.
 * Returns the number of ports that got new LIDs, or -ENOSPC when the LID
 * space is exhausted. */
int lid_assign(struct fabric *f, const struct lid_assign_opts *opts,
	       struct lid_map *out_map);

#endif
