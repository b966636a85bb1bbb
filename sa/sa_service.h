/* The ServiceRecords registered with the SA (IBA 15.2.5.14): kept across
 * sweeps, each with its lease. A record is identified by ServiceID,
 * ServiceGID and ServiceP_Key (its RID); a Set with the same RID replaces
 * it. Leases count from the last Set; 0xFFFFFFFF never expires.
 * Each record is owned by the port that registered it (sa/sa_quota.h):
 * it counts against that port's quota and goes when the port leaves the
 * fabric, whatever its lease. */
#ifndef IBSM_SA_SA_SERVICE_H
#define IBSM_SA_SA_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

#define SA_SERVICE_REC_LEN 176
#define SA_SERVICE_MAX 4096         /* registrations kept at most */

struct sa_service {
	uint8_t rec[SA_SERVICE_REC_LEN];    /* wire format, as registered */
	double expires;                     /* monotonic s; 0 = never */
	uint64_t owner;                     /* registering port GUID; 0 = not
					     * known (a requester no sweep saw,
					     * or a state file without owners) */
};

struct sa_service_db {
	struct sa_service *s;
	uint32_t n, cap;
	uint64_t expired;                   /* leases that ran out */
	uint32_t generation;                /* bumped on every change */
};

void sa_service_db_free(struct sa_service_db *db);
/* Drop the records whose lease ran out by now; returns how many. */
uint32_t sa_service_expire(struct sa_service_db *db, double now);
/* Records owned by port GUID owner. */
uint32_t sa_service_count_owned(const struct sa_service_db *db, uint64_t owner);
/* Drop the records whose owner is known and no longer present (present()
 * says whether a port GUID is in the fabric); returns how many. */
uint32_t sa_service_drop_orphans(struct sa_service_db *db,
				 bool (*present)(void *arg, uint64_t guid),
				 void *arg);

#endif
