/* LIDs for a discovered fabric: keep what the ports hold, honour the
 * persistent guid2lid file, assign the rest, and save the file again, so a
 * restart of the SM never renumbers the fabric (core/lid_assign.h). */
#ifndef IBSM_SM_LID_MANAGER_H
#define IBSM_SM_LID_MANAGER_H

#include "../../core/fabric.h"

/* Assign LIDs on f (ports' current LIDs are kept when valid). guid2lid may
 * be NULL or "" (no persistence). Returns the number of ports whose LID
 * changed (>= 0), -ENOSPC when LIDs ran out, -EINVAL for a bad guid2lid
 * file (logged with file:line). A file that cannot be saved is logged and
 * *save_failed set (cleared when it is saved; untouched without a file). */
int lidmgr_assign(struct fabric *f, uint8_t lmc, const char *guid2lid,
		  int *save_failed);

#endif
