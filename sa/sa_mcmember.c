/* MCMemberRecord (IBA 15.2.5.17, 15.4.3): join (Set), leave (Delete) and
 * queries (Get/GetTable) over the multicast groups (multicast/mcast_db.h).
 *
 * Join: PortGID and JoinState are required; a non-trusted requester joins
 * only its own port. An unknown MGID (or MGID 0, for an SM-assigned one)
 * creates a group if the requester is a full member and gives Q_Key,
 * P_Key, SL, FlowLabel and TClass (o15-0.1.3); its MTU and rate are the
 * port's, or what the selectors ask within the port's. Joining an existing
 * group checks Q_Key, P_Key, MTU and rate (with selectors) against the
 * group and the group's MTU and rate against the port's link. The
 * member port must hold the group's partition (P_Key, either membership;
 * ERR_REQ_INVALID otherwise, as OpenSM).
 * Quotas (sa/sa_quota.h), counted for the member port: creating a group
 * needs room under mcast_max_groups_per_port (groups it created and is
 * still in), joining a group it is not yet in room under
 * mcast_max_joins_per_port; ERR_NO_RESOURCES beyond either.
 * Queries: a trusted requester sees every member; anyone else sees each
 * group of a partition its port holds once (PortGID 0) and its own
 * memberships. */
#include <string.h>
#include <time.h>

#include "../core/log.h"
#include "../mad/smp.h"
#include "../multicast/mcast_db.h"
#include "sa_partition.h"
#include "sa_rec.h"

#define L (&sa_mcmember_rec)

/* Refuse a join or leave, saying why in the debug log. */
#define REFUSE(st, ...) do { log_debug("SA: MCMemberRecord: " __VA_ARGS__); \
		return (st); } while (0)
/* The same, at warning level: a join refused for the group's MTU or rate
 * leaves a host without IPoIB (osmtest ERR 02B3); the operator must see
 * which port, which group and what to change (issue 25). */
#define REFUSE_WARN(st, ...) do { log_warn("SA: MCMemberRecord: " __VA_ARGS__); \
		return (st); } while (0)

static void gid_of_port(const struct sa_ctx *c, uint64_t guid, uint8_t *gid)
{
	uint64_t pfx = c->db.subnet_prefix;

	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(pfx >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

static void build(const struct sa_ctx *c, const struct mcast_group *g,
		  uint64_t port_guid, uint8_t join_state, uint8_t *rec)
{
	uint8_t gid[16] = { 0 };

	memset(rec, 0, REC_MAX);
	sa_put_bytes(L, rec, MCR_MGID, g->mgid);
	if (port_guid)
		gid_of_port(c, port_guid, gid);
	sa_put_bytes(L, rec, MCR_PORTGID, gid);
	sa_put(L, rec, MCR_QKEY, g->qkey);
	sa_put(L, rec, MCR_MLID, g->mlid);
	sa_put(L, rec, MCR_MTUSEL, 2);
	sa_put(L, rec, MCR_MTU, g->mtu);
	sa_put(L, rec, MCR_TCLASS, g->tclass);
	sa_put(L, rec, MCR_PKEY, g->pkey);
	sa_put(L, rec, MCR_RATESEL, 2);
	sa_put(L, rec, MCR_RATE, g->rate);
	sa_put(L, rec, MCR_PLTSEL, 2);
	sa_put(L, rec, MCR_PLT, c->packet_life_time);
	sa_put(L, rec, MCR_SL, g->sl);
	sa_put(L, rec, MCR_FLOWLABEL, g->flow_label);
	sa_put(L, rec, MCR_HOPLIMIT, g->hop_limit);
	sa_put(L, rec, MCR_SCOPE, g->mgid[1] & 0xf);
	sa_put(L, rec, MCR_JOINSTATE, join_state);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Room for one more group membership of port guid (its quota). */
static bool join_quota_ok(struct sa_ctx *c, const struct mcast_db *db,
			  uint64_t guid)
{
	return sa_quota_allow(&c->quota, SA_QUOTA_MCAST_JOINS,
			      mcast_count_joined(db, guid), guid, mono_now());
}

/* Does `have` satisfy selector sel against `want`? Values are ordered by
 * ord[] when given (rates), numerically otherwise (MTU enums). */
static int selector_ok(unsigned sel, unsigned want, unsigned have,
		       const uint16_t *ord)
{
	unsigned h = ord ? ord[have] : have, w = ord ? ord[want] : want;

	switch (sel) {
	case 0: return h > w;
	case 1: return h < w;
	case 2: return h == w;
	default: return 1;
	}
}

/* The member port of a join or leave: from PortGID, which must be of this
 * subnet and, unless trusted, the requester's own. */
static int member_port(const struct sa_ctx *c, const struct sa_query *q,
		       uint64_t *guid, uint32_t *port)
{
	const uint8_t *g = sa_comp_ptr(L, q->record, MCR_PORTGID);
	uint64_t pfx = 0, id = 0;

	for (int i = 0; i < 8; i++) {
		pfx = pfx << 8 | g[i];
		id = id << 8 | g[8 + i];
	}
	*port = sa_db_port_of_guid(&c->db, id);
	if (pfx != c->db.subnet_prefix || *port == FAB_NONE)
		return SA_STATUS_REQ_INVALID_GID;
	if (!q->trusted && id != q->requester_port_guid)
		return SA_STATUS_REQ_INVALID;
	*guid = id;
	return 0;
}

/* The MGID a request names: its MGID with the scope nibble taken from
 * the Scope component when that is given (as OpenSM applies it). */
static void request_mgid(const struct sa_query *q, uint8_t *mgid)
{
	memcpy(mgid, sa_comp_ptr(L, q->record, MCR_MGID), 16);
	if ((q->comp_mask >> MCR_SCOPE & 1) && mgid[0] == 0xff)
		mgid[1] = (uint8_t)((mgid[1] & 0xf0) | sa_get(L, q->record, MCR_SCOPE));
}

/* An MGID a client may create (IBA 4.1.1): all zero (the SM assigns
 * one), or a multicast GID (0xFF first) with a known scope, no flags but
 * T, and not the signature the SM uses for the MGIDs it assigns. */
static int mgid_ok(const uint8_t *mgid)
{
	static const uint8_t zero[16];
	unsigned scope = mgid[1] & 0xf;

	if (!memcmp(mgid, zero, 16))
		return 1;
	if (mgid[0] != 0xff || (mgid[1] >> 4) > 1)
		return 0;
	if (scope != 0x2 && scope != 0x5 && scope != 0x8 && scope != 0xe)
		return 0;
	return !(mgid[2] == 0xa0 && mgid[3] == 0x1b);
}

static int mcr_set(struct sa_ctx *c, const struct sa_query *q,
		   struct sa_answer *a)
{
	struct mcast_db *db = c->mcast;
	uint64_t m = q->comp_mask, guid;
	const uint8_t *pi;
	struct mcast_group *g;
	uint8_t js, rec[REC_MAX], port_mtu, port_rate, mgid[16];
	uint32_t port;
	int rc;

	if (!db || !c->db.r)
		return SA_STATUS_NO_RESOURCES;
	if (!(m >> MCR_PORTGID & 1) || !(m >> MCR_JOINSTATE & 1))
		REFUSE(SA_STATUS_REQ_INSUFFICIENT_COMPONENTS, "join without PortGID or JoinState");
	if ((rc = member_port(c, q, &guid, &port)))
		REFUSE(rc, "join: PortGID not this subnet's, or not the requester's");
	js = (uint8_t)(sa_get(L, q->record, MCR_JOINSTATE) & 0x7);
	if (!js)
		REFUSE(SA_STATUS_REQ_INVALID, "join with JoinState 0");
	pi = sa_db_portinfo(&c->db, port);
	port_mtu = pi ? smp_portinfo_mtu(pi) : 1;
	port_rate = pi ? smp_portinfo_rate(pi) : 2;
	request_mgid(q, mgid);
	g = mcast_find_mgid(db, mgid);
	if (!g) {
		uint8_t mtu = port_mtu, rate = port_rate;

		/* Creating: a full member with the group's keys. */
		if (!(js & MCAST_FULL))
			REFUSE(SA_STATUS_REQ_INVALID, "create by a port that is not a full member");
		/* o15-0.1.3: creating needs MGID, Q_Key, P_Key, SL, FlowLabel
		 * and TClass (PortGID and JoinState checked above). */
		const uint64_t need = 1ull << MCR_MGID | 1ull << MCR_QKEY | 1ull << MCR_PKEY |
			1ull << MCR_SL | 1ull << MCR_FLOWLABEL | 1ull << MCR_TCLASS;

		if ((m & need) != need)
			REFUSE(SA_STATUS_REQ_INSUFFICIENT_COMPONENTS, "create without MGID, Q_Key, P_Key, SL, FlowLabel and TClass");
		if (m >> MCR_MTU & 1) {
			unsigned sel = m >> MCR_MTUSEL & 1 ? (unsigned)sa_get(L, q->record, MCR_MTUSEL) : 2;
			unsigned want = (unsigned)sa_get(L, q->record, MCR_MTU);

			if (sel == 2 || (sel == 1 && want - 1 < mtu))
				mtu = (uint8_t)(sel == 2 ? want : want - 1);
			if (!mtu || mtu > port_mtu || !selector_ok(sel, want, mtu, NULL))
				REFUSE(SA_STATUS_REQ_INVALID, "create: MTU selector %u value %u, port MTU %u", sel, want, port_mtu);
		}
		if (m >> MCR_RATE & 1) {
			unsigned sel = m >> MCR_RATESEL & 1 ? (unsigned)sa_get(L, q->record, MCR_RATESEL) : 2;
			unsigned want = (unsigned)sa_get(L, q->record, MCR_RATE);

			if (want >= SMP_NUM_RATES || !smp_rate_q[want])
				REFUSE(SA_STATUS_REQ_INVALID, "create: no such rate %u", want);
			if (sel == 2)
				rate = (uint8_t)want;
			if (smp_rate_q[rate] > smp_rate_q[port_rate] ||
			    !selector_ok(sel, want, rate, smp_rate_q))
				REFUSE(SA_STATUS_REQ_INVALID, "create: rate selector %u value %u, port rate %u", sel, want, port_rate);
		}
		if (!mgid_ok(mgid))
			REFUSE(SA_STATUS_REQ_INVALID, "create: not a valid MGID (%02x%02x:%02x%02x:...)",
			       mgid[0], mgid[1], mgid[2], mgid[3]);
		if (!sa_port_has_pkey(c, port, (uint16_t)sa_get(L, q->record, MCR_PKEY)))
			REFUSE(SA_STATUS_REQ_INVALID, "create: port not in partition 0x%04x",
			       (unsigned)sa_get(L, q->record, MCR_PKEY));
		if (!sa_quota_allow(&c->quota, SA_QUOTA_MCAST_GROUPS,
				    mcast_count_created(db, guid), guid, mono_now()))
			return SA_STATUS_NO_RESOURCES;
		if (!join_quota_ok(c, db, guid))
			return SA_STATUS_NO_RESOURCES;
		g = mcast_create(db, mgid,
				 (uint16_t)sa_get(L, q->record, MCR_PKEY),
				 (uint32_t)sa_get(L, q->record, MCR_QKEY), mtu, rate,
				 false);
		if (!g)
			return SA_STATUS_NO_RESOURCES;
		log_debug("SA: MCMemberRecord: group MLID 0x%04x created", g->mlid);
		g->creator = guid;
		if (m >> MCR_SL & 1)
			g->sl = (uint8_t)sa_get(L, q->record, MCR_SL);
		if (m >> MCR_TCLASS & 1)
			g->tclass = (uint8_t)sa_get(L, q->record, MCR_TCLASS);
		if (m >> MCR_FLOWLABEL & 1)
			g->flow_label = (uint32_t)sa_get(L, q->record, MCR_FLOWLABEL);
		if (m >> MCR_HOPLIMIT & 1)
			g->hop_limit = (uint8_t)sa_get(L, q->record, MCR_HOPLIMIT);
	} else {
		if ((m >> MCR_QKEY & 1) && sa_get(L, q->record, MCR_QKEY) != g->qkey)
			REFUSE(SA_STATUS_REQ_INVALID, "join: Q_Key differs from the group's");
		if ((m >> MCR_PKEY & 1) &&
		    (sa_get(L, q->record, MCR_PKEY) & 0x7fff) != (g->pkey & 0x7fffu))
			REFUSE(SA_STATUS_REQ_INVALID, "join: P_Key differs from the group's");
		if ((m >> MCR_MTU & 1) &&
		    !selector_ok(m >> MCR_MTUSEL & 1 ? (unsigned)sa_get(L, q->record, MCR_MTUSEL) : 2,
				 (unsigned)sa_get(L, q->record, MCR_MTU), g->mtu, NULL))
			REFUSE_WARN(SA_STATUS_REQ_INVALID, "join of port 0x%016llx to MLID 0x%04x refused: the group's MTU code %u does not meet the request's (selector %u, MTU code %u); set the partition's mtu",
				    (unsigned long long)guid, g->mlid, g->mtu,
				    m >> MCR_MTUSEL & 1 ? (unsigned)sa_get(L, q->record, MCR_MTUSEL) : 2,
				    (unsigned)sa_get(L, q->record, MCR_MTU));
		if (m >> MCR_RATE & 1) {
			unsigned want = (unsigned)sa_get(L, q->record, MCR_RATE);

			if (want >= SMP_NUM_RATES ||
			    !selector_ok(m >> MCR_RATESEL & 1 ? (unsigned)sa_get(L, q->record, MCR_RATESEL) : 2,
					 want, g->rate, smp_rate_q))
				REFUSE_WARN(SA_STATUS_REQ_INVALID, "join of port 0x%016llx to MLID 0x%04x refused: the group's rate code %u does not meet the request's (rate code %u); set the partition's rate",
					    (unsigned long long)guid, g->mlid, g->rate, want);
		}
		if (!sa_port_has_pkey(c, port, g->pkey))
			REFUSE(SA_STATUS_REQ_INVALID, "join: port not in the group's partition 0x%04x", g->pkey);
		/* The port's link must carry the group's MTU and rate. */
		if (port_mtu < g->mtu || smp_rate_q[port_rate] < smp_rate_q[g->rate])
			REFUSE_WARN(SA_STATUS_REQ_INVALID, "join of port 0x%016llx to MLID 0x%04x refused: its link carries MTU code %u rate code %u, below the group's MTU code %u rate code %u; lower the partition's mtu/rate",
				    (unsigned long long)guid, g->mlid, port_mtu, port_rate, g->mtu, g->rate);
		if (!mcast_member_find(g, guid) && !join_quota_ok(c, db, guid))
			return SA_STATUS_NO_RESOURCES;
	}
	if (mcast_join(db, g, guid, js) < 0)
		return SA_STATUS_NO_RESOURCES;
	log_debug("SA: MCMemberRecord: port 0x%016llx joins MLID 0x%04x as 0x%x (mask 0x%llx)",
		  (unsigned long long)guid, g->mlid, js, (unsigned long long)m);
	build(c, g, guid, mcast_member_find(g, guid)->join_state, rec);
	return sa_answer_add(a, rec) < 0 ? SA_STATUS_NO_RESOURCES : 0;
}

static int mcr_del(struct sa_ctx *c, const struct sa_query *q,
		   struct sa_answer *a)
{
	struct mcast_db *db = c->mcast;
	struct mcast_group *g;
	uint64_t m = q->comp_mask, guid;
	uint8_t js, rec[REC_MAX], mgid[16];
	uint32_t port;
	int rc;

	if (!db || !c->db.r)
		return SA_STATUS_NO_RECORDS;
	if (!(m >> MCR_MGID & 1) || !(m >> MCR_PORTGID & 1) ||
	    !(m >> MCR_JOINSTATE & 1))
		REFUSE(SA_STATUS_REQ_INSUFFICIENT_COMPONENTS, "leave without MGID, PortGID or JoinState (mask 0x%llx)",
		       (unsigned long long)m);
	if ((rc = member_port(c, q, &guid, &port)))
		REFUSE(rc, "leave: PortGID not this subnet's, or not the requester's");
	request_mgid(q, mgid);
	g = mcast_find_mgid(db, mgid);
	if (!g || !mcast_member_find(g, guid))
		REFUSE(SA_STATUS_REQ_INVALID, "leave: %s", g ? "not a member" : "no such group");
	js = (uint8_t)(sa_get(L, q->record, MCR_JOINSTATE) & 0x7);
	/* o15-0.1.14: only states the member holds can be left. */
	if (!js || (js & ~mcast_member_find(g, guid)->join_state))
		REFUSE(SA_STATUS_REQ_INVALID, "leave: JoinState 0x%x, member holds 0x%x",
		       js, mcast_member_find(g, guid)->join_state);
	/* The answer shows what the member still holds (o15-0.1.14). */
	build(c, g, guid, mcast_member_find(g, guid)->join_state & (uint8_t)~js, rec);
	log_debug("SA: MCMemberRecord: port 0x%016llx leaves MLID 0x%04x as 0x%x",
		  (unsigned long long)guid, g->mlid, js);
	if (!mcast_leave(db, g, guid, js))
		return SA_STATUS_REQ_INVALID;
	return sa_answer_add(a, rec) < 0 ? SA_STATUS_NO_RESOURCES : 0;
}

static int mcr_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	struct mcast_db *db = c->mcast;
	uint8_t rec[REC_MAX];
	uint32_t rq = sa_requester_port(c, q);

	if (!db)
		return 0;
	for (uint32_t i = 0; i < db->num_groups; i++) {
		struct mcast_group *g = &db->groups[i];
		int shown = 0;

		if (!q->trusted && rq != FAB_NONE && !sa_port_has_pkey(c, rq, g->pkey))
			continue;

		for (uint32_t k = 0; k < g->num_members; k++) {
			const struct mcast_member *mb = &g->members[k];

			if (!q->trusted && mb->port_guid != q->requester_port_guid)
				continue;
			build(c, g, mb->port_guid, mb->join_state, rec);
			shown = 1;
			if (sa_offer(L, q, q->comp_mask, rec, a) < 0)
				return SA_STATUS_NO_RESOURCES;
		}
		if (!shown) {
			build(c, g, 0, 0, rec);
			if (sa_offer(L, q, q->comp_mask, rec, a) < 0)
				return SA_STATUS_NO_RESOURCES;
		}
	}
	return 0;
}

const struct sa_attr_ops sa_mcmember_ops = {
	.attr_id = 0x0038,
	.name = "MCMemberRecord",
	.rec_len = 52,
	.query = mcr_query,
	.set = mcr_set,
	.del = mcr_del,
};
