/* Compute-node rank order (issue 13): the order job launchers place ranks
 * in, so that ftree can make shift permutations in that order
 * congestion-free whatever the cabling, and the verifier can check them in
 * the same order.
 *
 * Default: a natural sort of host names (the first word of each CA's
 * NodeDescription; digit runs compare as numbers, so node-2 < node-10),
 * when any host name carries a digit; otherwise no order (the caller keeps
 * port order). An order file lists node or port GUIDs (0x...) or host
 * names, one per line ('#' comments, blank lines skipped), for example a
 * scheduler's host list; listed nodes come first in file order (a node's
 * ports in port-number order), the rest after them in the default order. */
#ifndef IBSM_CORE_CN_RANK_H
#define IBSM_CORE_CN_RANK_H

#include <stddef.h>
#include <stdint.h>
#include "fabric.h"

#define CN_NO_RANK UINT32_MAX

/* strcmp, but runs of digits compare by value. */
int natcmp(const char *a, const char *b);
/* The host part of a NodeDescription: its first word. */
void cn_host_name(const char *desc, char *out, size_t len);

/* *rank: per port index of f, the rank of each linked CA/router port with
 * a LID (0..), CN_NO_RANK elsewhere; NULL when there is no order to apply
 * (no file, and no host name carries a digit). Returns 0, -ENOMEM, or
 * -errno / -EINVAL for an unreadable or bad file (logged with file:line;
 * names that match no node are warnings). */
int cn_rank_build(const struct fabric *f, const char *order_file,
		  uint32_t **rank);

#endif
