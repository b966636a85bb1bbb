/* InformInfo Set and InformInfoRecord (sa/sa_inform.h).
 *
 * Rules (IBA 13.4.8.3, 15.2.5.12; where the spec leaves room, as OpenSM,
 * since clients are written against it):
 *  - the requester must be a port of this subnet (ERR_REQ_INVALID);
 *  - Subscribe other than 0 or 1: ERR_REQ_INVALID;
 *  - subscriptions to the security traps 256-259 need the SM_Key;
 *  - Subscribe 1: the subscription's QPN is the requester's QP; a GID
 *    names a port of this subnet, or with GID 0 the LID range starts at a
 *    LID in use or is 0xFFFF (all): else ERR_REQ_INVALID. The same
 *    subscription again (subscriber, GID, LID range, generic, type, trap,
 *    producer, QPN) is kept once;
 *  - Subscribe 0 removes the subscription with the QPN given in the
 *    request; none such: ERR_REQ_INVALID;
 *  - the answer echoes the request's InformInfo;
 *  - InformInfoRecords show the QPN only to trusted requesters (others
 *    see 0), and Enum is always 0. */
#include "sa_inform.h"

#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../core/log.h"
#include "../core/grow.h"
#include "../mad/gmp.h"
#include "sa_rec.h"

#define II (&sa_inform_rec)
#define IIR (&sa_iir_rec)
#define ALL16 0xFFFFu
#define ALL24 0xFFFFFFu

void sa_inform_db_free(struct sa_inform_db *db)
{
	free(db->s);
	memset(db, 0, sizeof(*db));
}

/* The InformInfo inside a stored InformInfoRecord. */
static const uint8_t *ii_of(const struct sa_subscription *s)
{
	return s->iir + sa_comp_offset(IIR, IIR_II) / 8;
}

static int is_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* The fields that make two subscriptions the same one. */
static int same_sub(const uint8_t *a, const uint8_t *b)
{
	static const unsigned comp[] = { II_LID_BEGIN, II_LID_END,
		II_IS_GENERIC, II_TYPE, II_TRAP, II_QPN, II_PRODUCER };

	if (memcmp(sa_comp_ptr(II, a, II_GID), sa_comp_ptr(II, b, II_GID), 16))
		return 0;
	for (size_t i = 0; i < sizeof(comp) / sizeof(comp[0]); i++)
		if (sa_get(II, a, comp[i]) != sa_get(II, b, comp[i]))
			return 0;
	return 1;
}

static int iis_set(struct sa_ctx *c, const struct sa_query *q,
		   struct sa_answer *a)
{
	struct sa_inform_db *db = &c->informs;
	uint8_t ii[REC_MAX] = { 0 };
	unsigned sub, trap;
	uint32_t i;

	if (q->record_len < SA_INFORM_LEN || !q->requester_port_guid)
		return SA_STATUS_REQ_INVALID;
	memcpy(ii, q->record, SA_INFORM_LEN);
	sub = (unsigned)sa_get(II, ii, II_SUBSCRIBE);
	trap = (unsigned)sa_get(II, ii, II_TRAP);
	if (sub > 1)
		return SA_STATUS_REQ_INVALID;
	if (sa_get(II, ii, II_IS_GENERIC) && trap >= 256 && trap <= 259 &&
	    !q->trusted) {
		log_info("SA: InformInfo for security trap %u from LID %u without the SM_Key: refused",
			 trap, q->slid);
		return SA_STATUS_REQ_INVALID;
	}
	if (sub) {
		const uint8_t *gid = sa_comp_ptr(II, ii, II_GID);
		unsigned begin = (unsigned)sa_get(II, ii, II_LID_BEGIN);

		sa_put(II, ii, II_QPN, q->sqp);
		if (!is_zero(gid, 16)) {
			uint64_t guid = 0;

			for (int k = 8; k < 16; k++)
				guid = guid << 8 | gid[k];
			if (sa_db_port_of_guid(&c->db, guid) == FAB_NONE)
				return SA_STATUS_REQ_INVALID;
		} else if (begin != ALL16 && begin > c->db.max_lid) {
			return SA_STATUS_REQ_INVALID;
		}
	}
	for (i = 0; i < db->n; i++)
		if (db->s[i].port_guid == q->requester_port_guid &&
		    same_sub(ii_of(&db->s[i]), ii))
			break;
	if (!sub) {
		if (i == db->n)
			return SA_STATUS_REQ_INVALID;
		log_info("SA: LID %u unsubscribed (trap %u)", q->slid, trap);
		db->s[i] = db->s[--db->n];
		db->generation++;
	} else {
		struct sa_subscription *s;

		if (i == db->n) {
			if (db->n >= SA_INFORM_MAX)
				return SA_STATUS_NO_RESOURCES;
			if (grow_array((void **)&db->s, &db->cap, db->n + 1,
				       sizeof(*db->s), 16))
				return SA_STATUS_NO_RESOURCES;
			db->n++;
			log_info("SA: LID %u subscribed to %s %u (%u subscriptions)",
				 q->slid, sa_get(II, ii, II_IS_GENERIC) ? "trap" : "device",
				 trap, db->n);
		}
		s = &db->s[i];
		memset(s, 0, sizeof(*s));
		memcpy(s->iir, q->requester_gid, 16);
		memcpy(s->iir + sa_comp_offset(IIR, IIR_II) / 8, ii, SA_INFORM_LEN);
		s->port_guid = q->requester_port_guid;
		s->lid = q->slid;
		s->qpn = q->sqp;
		s->trusted = q->trusted;
		db->generation++;
	}
	/* The answer is the request's InformInfo (OpenSM's clients compare). */
	memcpy(ii, q->record, SA_INFORM_LEN);
	return sa_answer_add(a, ii) < 0 ? SA_STATUS_NO_RESOURCES : 0;
}

const struct sa_attr_ops sa_informinfo_ops = {
	.attr_id = 0x0003,
	.name = "InformInfo",
	.rec_len = SA_INFORM_LEN,
	.set = iis_set,
};

static int iir_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	const struct sa_inform_db *db = &c->informs;
	uint8_t rec[REC_MAX];

	for (uint32_t i = 0; i < db->n; i++) {
		memset(rec, 0, REC_MAX);
		memcpy(rec, db->s[i].iir, SA_IIR_LEN);
		if (!q->trusted)
			sa_put(IIR, rec, IIR_II + II_QPN, 0);
		if (sa_offer(IIR, q, q->comp_mask, rec, a) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return 0;
}

const struct sa_attr_ops sa_informinforecord_ops = {
	.attr_id = 0x00F3,
	.name = "InformInfoRecord",
	.rec_len = SA_IIR_LEN,
	.query = iir_query,
};

static int wild16(unsigned v, unsigned want)
{
	return v == ALL16 || v == want;
}

uint32_t sa_inform_match(const struct sa_inform_db *db,
			 const struct sa_notice *n, sa_inform_fn fn, void *ctx)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < db->n; i++) {
		const uint8_t *ii = ii_of(&db->s[i]);
		const uint8_t *gid = sa_comp_ptr(II, ii, II_GID);
		unsigned begin = (unsigned)sa_get(II, ii, II_LID_BEGIN);
		unsigned end = (unsigned)sa_get(II, ii, II_LID_END);
		unsigned prod = (unsigned)sa_get(II, ii, II_PRODUCER);

		if ((int)sa_get(II, ii, II_IS_GENERIC) != !!n->is_generic)
			continue;
		if (!is_zero(gid, 16)) {
			if (memcmp(gid, n->issuer_gid, 16))
				continue;
		} else if (begin != ALL16) {
			if (!end)
				end = begin;
			if (n->issuer_lid < begin || n->issuer_lid > end)
				continue;
		}
		if (!wild16((unsigned)sa_get(II, ii, II_TRAP), n->trap))
			continue;
		if (n->is_generic && !wild16((unsigned)sa_get(II, ii, II_TYPE), n->type))
			continue;
		if (prod != ALL24 && prod != n->producer)
			continue;
		if (n->is_generic && n->trap >= 256 && n->trap <= 259 &&
		    !db->s[i].trusted)
			continue;
		fn(ctx, &db->s[i]);
		k++;
	}
	return k;
}

/* Keep the subscriptions keep(ctx, s) accepts, in order; returns how many
 * went (a change bumps the generation). */
static uint32_t keep_where(struct sa_inform_db *db,
			   int (*keep)(void *ctx, const struct sa_subscription *s),
			   void *ctx)
{
	uint32_t k = 0, gone;

	for (uint32_t i = 0; i < db->n; i++)
		if (keep(ctx, &db->s[i]))
			db->s[k++] = db->s[i];
	gone = db->n - k;
	db->n = k;
	if (gone)
		db->generation++;
	return gone;
}

struct known_ctx {
	int (*known)(void *ctx, uint64_t guid);
	void *ctx;
};

static int port_known(void *ctx, const struct sa_subscription *s)
{
	const struct known_ctx *k = ctx;

	return k->known(k->ctx, s->port_guid);
}

uint32_t sa_inform_prune(struct sa_inform_db *db,
			 int (*known)(void *ctx, uint64_t guid), void *ctx)
{
	struct known_ctx k = { known, ctx };

	return keep_where(db, port_known, &k);
}

static int lid_other(void *ctx, const struct sa_subscription *s)
{
	return s->lid != *(const uint16_t *)ctx;
}

uint32_t sa_inform_drop_lid(struct sa_inform_db *db, uint16_t lid)
{
	return keep_where(db, lid_other, &lid);
}

/* --- notices and Reports ------------------------------------------- */

static void notice_fields(struct sa_notice *n)
{
	uint8_t *r = n->raw;

	n->is_generic = (int)mad_get_field(r, 0, IB_NOTICE_IS_GENERIC_F);
	n->type = (uint8_t)mad_get_field(r, 0, IB_NOTICE_TYPE_F);
	n->producer = mad_get_field(r, 0, IB_NOTICE_PRODUCER_F);
	n->trap = (uint16_t)mad_get_field(r, 0, IB_NOTICE_TRAP_NUMBER_F);
	n->issuer_lid = (uint16_t)mad_get_field(r, 0, IB_NOTICE_ISSUER_LID_F);
	memcpy(n->issuer_gid, r + 64, 16);
}

void sa_notice_from_trap(struct sa_notice *n, const uint8_t *smp_data,
			 const uint8_t issuer_gid[16])
{
	memset(n, 0, sizeof(*n));
	memcpy(n->raw, smp_data, 64);
	memcpy(n->raw + 64, issuer_gid, 16);
	notice_fields(n);
}

void sa_notice_sm_trap(struct sa_notice *n, uint16_t trap, uint16_t sm_lid,
		       const uint8_t sm_gid[16], const uint8_t gid[16])
{
	uint8_t *r = n->raw;

	memset(n, 0, sizeof(*n));
	mad_set_field(r, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(r, 0, IB_NOTICE_TYPE_F, SA_NOTICE_TYPE_SUBN_MGMT);
	mad_set_field(r, 0, IB_NOTICE_PRODUCER_F, SA_NOTICE_PRODUCER_SM);
	mad_set_field(r, 0, IB_NOTICE_TRAP_NUMBER_F, trap);
	mad_set_field(r, 0, IB_NOTICE_ISSUER_LID_F, sm_lid);
	/* DataDetails (bytes 10..63) of traps 64-67: 6 reserved bytes, then
	 * the GID. */
	memcpy(r + 16, gid, 16);
	memcpy(r + 64, sm_gid, 16);
	notice_fields(n);
}

void sa_report_build(uint8_t mad[256], const struct sa_notice *n)
{
	gmp_init_request(mad, GMP_CLASS_SA, GMP_SA_CLASS_VERSION,
			 IB_MAD_METHOD_REPORT, IB_SA_ATTR_NOTICE, 0, 0);
	memcpy(mad + GMP_SA_DATA_OFFS, n->raw, SA_NOTICE_LEN);
}
