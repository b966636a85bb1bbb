/* GUID list files (root and compute-node GUIDs of ibsm, ibsm-route and
 * the OpenSM plugin): one GUID per line, 0x-hex (or decimal, as OpenSM's
 * own GUID files are read: strtoull base 0), '#' starts a comment. One reader
 * for the daemon, ibsm-route and the OpenSM plugin, so the three accept
 * the same files and reject bad ones with the same message. */
#ifndef IBSM_CORE_GUID_LIST_H
#define IBSM_CORE_GUID_LIST_H

#include <stddef.h>
#include <stdint.h>

/* Read `path` into *out (malloc'd; NULL when empty). Returns the number
 * of GUIDs, or a negative errno with "PATH: reason" or "PATH:LINE: not a
 * GUID: TEXT" (or "line too long") in err, *out NULL. Nothing is logged:
 * the caller says it in its own log. */
int guid_list_load(const char *path, uint64_t **out, char *err,
		   size_t errlen);

/* guid_list_load for the programs that log their errors (ibsm,
 * ibsm-route): 0 with *out and *count, or a negative errno with the
 * message logged and *out NULL, *count 0. */
int guid_list_read(const char *path, uint64_t **out, uint32_t *count);

#endif
