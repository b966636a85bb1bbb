/* LID manager: guid2lid in, lid_assign, guid2lid out. */
#include "lid_manager.h"

#include <errno.h>
#include <string.h>

#include "../../core/lid_assign.h"
#include "../../core/log.h"

int lidmgr_assign(struct fabric *f, uint8_t lmc, const char *guid2lid,
		  int *save_failed)
{
	struct lid_map in, out;
	struct lid_assign_opts o = { .lmc = lmc, .keep_existing = 1 };
	int use_file = guid2lid && *guid2lid;
	int rc, changed;

	lid_map_init(&in);
	lid_map_init(&out);
	if (use_file) {
		/* The cache is a hint: bad lines are skipped (warned), an
		 * unreadable file is ignored; LIDs found on the ports are
		 * kept either way, so the SM never stops over its cache. */
		rc = lid_map_load_hints(&in, guid2lid);
		if (rc == 0)
			o.map = &in;
		else if (rc != -ENOENT)
			log_warn("%s: not used (%s); keeping the LIDs found on the ports",
				 guid2lid, strerror(-rc));
	}
	changed = lid_assign(f, &o, &out);
	if (changed >= 0 && use_file) {
		rc = lid_map_save(&out, guid2lid);
		if (rc < 0)
			log_err("cannot save %s: %s (LIDs may change on restart)",
				guid2lid, strerror(-rc));
		if (save_failed)
			*save_failed = rc < 0;
	}
	if (changed == -ENOSPC)
		log_err("out of LIDs: the fabric needs more than the unicast range holds");
	lid_map_free(&in);
	lid_map_free(&out);
	return changed;
}
