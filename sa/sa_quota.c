/* Per-requester quotas (sa_quota.h). */
#include "sa_quota.h"

#include <inttypes.h>

#include "../core/log.h"

static const char *const names[SA_QUOTA_KINDS] = {
	[SA_QUOTA_SERVICES] = "services",
	[SA_QUOTA_MCAST_GROUPS] = "mcast_groups",
	[SA_QUOTA_MCAST_JOINS] = "mcast_joins",
};

static const char *const keys[SA_QUOTA_KINDS] = {
	[SA_QUOTA_SERVICES] = "sa_max_services_per_port",
	[SA_QUOTA_MCAST_GROUPS] = "mcast_max_groups_per_port",
	[SA_QUOTA_MCAST_JOINS] = "mcast_max_joins_per_port",
};

const char *sa_quota_name(enum sa_quota_kind k)
{
	return k < SA_QUOTA_KINDS ? names[k] : "?";
}

bool sa_quota_allow(struct sa_quota *q, enum sa_quota_kind k, uint32_t held,
		    uint64_t port_guid, double now)
{
	if (!q->max[k] || held < q->max[k])
		return true;
	q->refused[k]++;
	q->unlogged[k]++;
	/* A flooding host sends thousands a second: one line per period. */
	if (!q->last_log[k] || now - q->last_log[k] >= SA_QUOTA_LOG_S) {
		log_warn("SA: port 0x%016" PRIx64 " holds %u %s, its quota (%s %u): refused (%" PRIu64 " refusals of %s since the last such line)",
			 port_guid, held, names[k], keys[k], q->max[k],
			 q->unlogged[k], names[k]);
		q->unlogged[k] = 0;
		q->last_log[k] = now;
	}
	return false;
}
