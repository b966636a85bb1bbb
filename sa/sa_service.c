/* ServiceRecord (IBA 15.2.5.14): Set registers or renews, Delete removes,
 * Get/GetTable query, over sa_service_db (sa/sa_service.h).
 *
 * Rules, as the spec and OpenSM (the reference clients expect them):
 *  - Set and Delete need ServiceID and ServiceGID in the ComponentMask
 *    (ERR_REQ_INVALID otherwise); a ServiceP_Key not given means the
 *    default partition 0xFFFF; no ServiceLease means an infinite lease.
 *  - A ServiceP_Key must be a partition the requester's port holds, as a
 *    full or limited member (the tables the SM programmed,
 *    partition/part_table.h), and the ServiceGID a port of this subnet
 *    (ERR_REQ_INVALID).
 *  - Delete of a RID not registered: ERR_NO_RECORDS.
 *  - Queries show only services in a partition the requester holds, and
 *    the ServiceKey is zeroed unless the request carries our SM_Key
 *    (IBA 15.2.5.14: ServiceKey is visible to trusted requesters only).
 *  - The ServiceLease is answered as registered (OpenSM does the same).
 *  - A new record counts against its registering port's quota
 *    (sa_max_services_per_port, sa/sa_quota.h; ERR_NO_RESOURCES beyond);
 *    the record is that port's from then on, also when another port had
 *    registered the same RID before. */
#include "sa_service.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/log.h"
#include "../core/grow.h"
#include "sa_partition.h"
#include "sa_rec.h"

#define L (&sa_service_rec)
#define LEASE_INFINITE 0xFFFFFFFFu
#define DEFAULT_PKEY 0xFFFF

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void sa_service_db_free(struct sa_service_db *db)
{
	free(db->s);
	memset(db, 0, sizeof(*db));
}

uint32_t sa_service_expire(struct sa_service_db *db, double now)
{
	uint32_t k = 0, gone;

	for (uint32_t i = 0; i < db->n; i++) {
		if (db->s[i].expires && db->s[i].expires <= now) {
			char name[65];

			memcpy(name, sa_comp_ptr(L, db->s[i].rec, SR_NAME), 64);
			name[64] = 0;
			log_info("SA: ServiceRecord 0x%016llx \"%s\": lease expired",
				 (unsigned long long)sa_get(L, db->s[i].rec, SR_ID), name);
			continue;
		}
		db->s[k++] = db->s[i];
	}
	gone = db->n - k;
	db->n = k;
	db->expired += gone;
	if (gone)
		db->generation++;
	return gone;
}

uint32_t sa_service_count_owned(const struct sa_service_db *db, uint64_t owner)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < db->n; i++)
		n += db->s[i].owner == owner;
	return n;
}

uint32_t sa_service_drop_orphans(struct sa_service_db *db,
				 bool (*present)(void *arg, uint64_t guid),
				 void *arg)
{
	uint32_t k = 0, gone;

	for (uint32_t i = 0; i < db->n; i++) {
		if (db->s[i].owner && !present(arg, db->s[i].owner)) {
			log_debug("SA: ServiceRecord 0x%016llx dropped: port 0x%016llx that registered it left the fabric",
				  (unsigned long long)sa_get(L, db->s[i].rec, SR_ID),
				  (unsigned long long)db->s[i].owner);
			continue;
		}
		db->s[k++] = db->s[i];
	}
	gone = db->n - k;
	db->n = k;
	if (gone)
		db->generation++;
	return gone;
}

/* The requester's port holds partition pkey (a requester the last sweep
 * did not see: the default partition only). */
static int pkey_held(const struct sa_ctx *c, const struct sa_query *q,
		     uint16_t pkey)
{
	uint32_t rq = sa_requester_port(c, q);

	if (rq == FAB_NONE)
		return (pkey & 0x7FFF) == 0x7FFF;
	return sa_port_has_pkey(c, rq, pkey);
}

static uint16_t rec_pkey(const uint8_t *rec)
{
	return (uint16_t)sa_get(L, rec, SR_PKEY);
}

static int same_rid(const uint8_t *a, const uint8_t *b)
{
	return sa_get(L, a, SR_ID) == sa_get(L, b, SR_ID) &&
	       !memcmp(sa_comp_ptr(L, a, SR_GID), sa_comp_ptr(L, b, SR_GID), 16) &&
	       rec_pkey(a) == rec_pkey(b);
}

/* The request's record with the defaults the spec gives missing parts. */
static int request_record(const struct sa_ctx *c, const struct sa_query *q,
			  uint8_t *rec)
{
	const uint64_t need = 1ull << SR_ID | 1ull << SR_GID;

	if ((q->comp_mask & need) != need)
		return SA_STATUS_REQ_INVALID;
	if (q->record_len < SA_SERVICE_REC_LEN)
		return SA_STATUS_REQ_INVALID;
	memcpy(rec, q->record, SA_SERVICE_REC_LEN);
	if (!(q->comp_mask >> SR_PKEY & 1))
		sa_put(L, rec, SR_PKEY, DEFAULT_PKEY);
	if (!(q->comp_mask >> SR_LEASE & 1))
		sa_put(L, rec, SR_LEASE, LEASE_INFINITE);
	if (q->comp_mask >> SR_PKEY & 1) {
		const uint8_t *gid = sa_comp_ptr(L, rec, SR_GID);
		uint64_t guid = 0;

		for (int i = 8; i < 16; i++)
			guid = guid << 8 | gid[i];
		if (!q->requester_port_guid || !pkey_held(c, q, rec_pkey(rec)) ||
		    sa_db_port_of_guid(&c->db, guid) == FAB_NONE)
			return SA_STATUS_REQ_INVALID;
	}
	return 0;
}

static void answer_copy(const struct sa_query *q, const uint8_t *stored,
			uint8_t *out)
{
	memcpy(out, stored, SA_SERVICE_REC_LEN);
	if (!q->trusted)
		memset(out + sa_comp_offset(L, SR_KEY) / 8, 0, 16);
}

static int sr_set(struct sa_ctx *c, const struct sa_query *q,
		  struct sa_answer *a)
{
	struct sa_service_db *db = &c->services;
	uint8_t rec[REC_MAX] = { 0 };
	uint32_t lease, i;
	double now = mono_now();
	int rc = request_record(c, q, rec);

	if (rc) {
		log_debug("SA: ServiceRecord Set refused: ServiceID/ServiceGID missing, or a P_Key or GID not in this subnet");
		return rc;
	}
	sa_service_expire(db, now);
	for (i = 0; i < db->n; i++)
		if (same_rid(db->s[i].rec, rec))
			break;
	/* A renewal by its owner is free; anything else is one more for
	 * the requester. */
	if ((i == db->n || db->s[i].owner != q->requester_port_guid) &&
	    !sa_quota_allow(&c->quota, SA_QUOTA_SERVICES,
			    sa_service_count_owned(db, q->requester_port_guid),
			    q->requester_port_guid, now))
		return SA_STATUS_NO_RESOURCES;
	if (i == db->n) {
		if (db->n >= SA_SERVICE_MAX)
			return SA_STATUS_NO_RESOURCES;
		if (grow_array((void **)&db->s, &db->cap, db->n + 1,
			       sizeof(*db->s), 16))
			return SA_STATUS_NO_RESOURCES;
		db->n++;
	}
	memcpy(db->s[i].rec, rec, SA_SERVICE_REC_LEN);
	db->s[i].owner = q->requester_port_guid;
	db->generation++;
	lease = (uint32_t)sa_get(L, rec, SR_LEASE);
	db->s[i].expires = lease == LEASE_INFINITE ? 0 : now + (lease ? lease : 1);
	log_debug("SA: ServiceRecord 0x%016llx registered, lease %u s, trusted %d",
		  (unsigned long long)sa_get(L, rec, SR_ID), lease, q->trusted);
	answer_copy(q, rec, rec);
	return sa_answer_add(a, rec) < 0 ? SA_STATUS_NO_RESOURCES : 0;
}

static int sr_del(struct sa_ctx *c, const struct sa_query *q,
		  struct sa_answer *a)
{
	struct sa_service_db *db = &c->services;
	uint8_t rec[REC_MAX] = { 0 }, out[REC_MAX] = { 0 };
	int rc = request_record(c, q, rec);

	if (rc)
		return rc;
	sa_service_expire(db, mono_now());
	for (uint32_t i = 0; i < db->n; i++) {
		if (!same_rid(db->s[i].rec, rec))
			continue;
		answer_copy(q, db->s[i].rec, out);
		db->s[i] = db->s[--db->n];
		db->generation++;
		return sa_answer_add(a, out) < 0 ? SA_STATUS_NO_RESOURCES : 0;
	}
	return SA_STATUS_NO_RECORDS;
}

static int sr_query(struct sa_ctx *c, const struct sa_query *q,
		    struct sa_answer *a)
{
	struct sa_service_db *db = &c->services;
	uint8_t out[REC_MAX] = { 0 };

	sa_service_expire(db, mono_now());
	for (uint32_t i = 0; i < db->n; i++) {
		if (!pkey_held(c, q, rec_pkey(db->s[i].rec)))
			continue;
		if (!sa_comp_match(L, q->record, db->s[i].rec, q->comp_mask))
			continue;
		answer_copy(q, db->s[i].rec, out);
		if (sa_answer_add(a, out) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return 0;
}

const struct sa_attr_ops sa_servicerecord_ops = {
	.attr_id = 0x0031,
	.name = "ServiceRecord",
	.rec_len = SA_SERVICE_REC_LEN,
	.query = sr_query,
	.set = sr_set,
	.del = sr_del,
};
