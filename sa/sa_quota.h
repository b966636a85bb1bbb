/* Per-requester quotas on what the SA keeps for hosts (issue 26 finding
 * 4): without them one host fills every ServiceRecord slot and every
 * multicast LID and the others get ERR_NO_RESOURCES for good.
 *
 *   kind            counts, per port GUID                  config key
 *   services        ServiceRecords it registered           sa_max_services_per_port
 *   mcast_groups    groups it created and is still in      mcast_max_groups_per_port
 *   mcast_joins     groups it is a member of               mcast_max_joins_per_port
 *
 * A request that would go beyond its port's quota is refused with
 * ERR_NO_RESOURCES (0x0100), as the global caps are; renewing what the
 * port already holds never is. 0 means no limit. Refusals are counted
 * (/metrics) and logged at most once per SA_QUOTA_LOG_S per kind, with the
 * refusals held back since. Owners: a ServiceRecord is its registering
 * port's and goes when a heavy sweep no longer sees that port; a group is
 * its members' (multicast/mcast_db.h) and goes with its last full member. */
#ifndef IBSM_SA_SA_QUOTA_H
#define IBSM_SA_SA_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

#define SA_QUOTA_LOG_S 10.0

enum sa_quota_kind {
	SA_QUOTA_SERVICES,
	SA_QUOTA_MCAST_GROUPS,
	SA_QUOTA_MCAST_JOINS,
	SA_QUOTA_KINDS
};

struct sa_quota {
	uint32_t max[SA_QUOTA_KINDS];       /* per port; 0 = no limit */
	uint64_t refused[SA_QUOTA_KINDS];   /* requests refused */
	uint64_t unlogged[SA_QUOTA_KINDS];  /* refused since the last log line */
	double last_log[SA_QUOTA_KINDS];    /* monotonic s; 0 = never */
	uint64_t services_owner_gone;       /* dropped: owner left the fabric */
};

/* The metric label / log word of a kind ("services", ...). */
const char *sa_quota_name(enum sa_quota_kind k);
/* May a port that holds `held` of kind k get one more? A refusal is
 * counted and, rate-limited, logged naming the port. */
bool sa_quota_allow(struct sa_quota *q, enum sa_quota_kind k, uint32_t held,
		    uint64_t port_guid, double now);

#endif
