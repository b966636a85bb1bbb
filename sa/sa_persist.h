/* The SA's client state on disk, so a restarted SM keeps what hosts
 * registered: multicast groups (MGID, MLID, parameters) and their members,
 * ServiceRecords with the wall-clock end of their lease, and InformInfo
 * subscriptions. Clients told to re-register (ClientReregister, IBA
 * 14.4.11) would rebuild it, but a group that comes back with another
 * MLID costs every member a re-join, and hosts that miss the event stay
 * cut off; OpenSM loses all of it on a restart.
 *
 * One text file, a line per item, versioned:
 *   ibsm-sa-state 1
 *   next_mgid N
 *   group MGID(32 hex) MLID PKEY QKEY MTU RATE SL TCLASS HOPLIMIT FLOWLABEL PREDEFINED [CREATOR]
 *   member PORTGUID JOINSTATE              (of the group above)
 *   service RECORD(352 hex) LEASE_END [OWNER]  (Unix time, 0 = never)
 * CREATOR and OWNER are port GUIDs (sa/sa_quota.h); lines written before
 * they were kept lack them and read as 0 (no owner: the record stays
 * until its lease ends or it is deleted, and counts against no quota).
 *   inform IIR(120 hex) PORTGUID LID QPN TRUSTED
 * Written atomically (a temporary file, fsync, rename). Read whole before
 * anything is applied: a bad line is reported as FILE:LINE: field and the
 * file is ignored. */
#ifndef IBSM_SA_SA_PERSIST_H
#define IBSM_SA_SA_PERSIST_H

#include <stdint.h>
#include "sa_service.h"
#include "sa_inform.h"
#include "../multicast/mcast_db.h"

struct sa_persist_view {
	struct mcast_db *mcast;
	struct sa_service_db *services;
	struct sa_inform_db *informs;
};

/* Write the state to path (via path.tmp). mono_now: the monotonic clock the
 * service leases count on. 0 or a negative errno (logged). */
int sa_persist_save(const char *path, const struct sa_persist_view *v,
		    double mono_now);

struct sa_persist_stats {
	uint32_t groups, members, services, informs;
	uint32_t services_expired;  /* leases that ended while we were away */
	uint32_t mlids_moved;       /* MLID taken here: the group got another */
};

/* Read path into v (groups merged by MGID: a predefined group takes its
 * saved MLID when free). 0 (st filled), -ENOENT (no file, not logged),
 * -EINVAL (bad file, logged, v unchanged) or -ENOMEM. */
int sa_persist_load(const char *path, struct sa_persist_view *v,
		    double mono_now, struct sa_persist_stats *st);

#endif
