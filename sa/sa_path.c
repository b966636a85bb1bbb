/* PathRecord (IBA 15.2.5.16): the path between two endpoint LIDs as the
 * programmed LFTs route it, with the smallest MTU and rate of the links it
 * crosses. Sources and destinations come from SGID/SLID and DGID/DLID;
 * a GID stands for every LID of its port (base .. base + 2^LMC - 1), so
 * under LMC every LID pair is a path of its own. MTU, rate and packet
 * lifetime honour their selectors (Table 207: 0 greater than, 1 less
 * than, 2 exactly, 3 the largest available). The ends' own MTUCap (and a
 * switch port 0's rate) cap the path. With a QoS policy (sa/sa_qos.h,
 * docs/qos.md) the request's level gives the SL and caps MTU, rate and
 * packet lifetime, as OpenSM with -Q; without one, SL, TClass, FlowLabel,
 * HopLimit and QoSClass as OpenSM answers with QoS off (issue 25). */
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../mad/smp.h"
#include "sa_partition.h"
#include "sa_qos.h"
#include "../qos/qos_sl_space.h"
#include "sa_rec.h"

#define MAX_PATH_HOPS 64

#define rate_q smp_rate_q
#define NUM_RATES SMP_NUM_RATES
#define port_rate smp_portinfo_rate
#define port_mtu smp_portinfo_mtu

struct path_props {
	unsigned hops, mtu;
	uint8_t rate;
};

static void take_link(const struct sa_ctx *c, uint32_t p, struct path_props *pp)
{
	const struct fabric *f = sa_fab(c);
	uint32_t ends[2] = { p, f->ports[p].peer };

	for (int i = 0; i < 2; i++) {
		const uint8_t *pi = ends[i] == FAB_NONE ? NULL :
			sa_db_portinfo(&c->db, ends[i]);
		unsigned m;
		uint8_t r;

		if (!pi)
			continue;
		m = port_mtu(pi);
		r = port_rate(pi);
		if (m && (!pp->mtu || m < pp->mtu))
			pp->mtu = m;
		if (!pp->rate || rate_q[r] < rate_q[pp->rate])
			pp->rate = r;
	}
}

/* An end of the path caps it with its own port's MTUCap, and a switch's
 * port 0 (the end a switch LID names) with its own rate too: the links
 * around a switch may carry 2048 while its management port takes 1024
 * (OpenSM takes both ends' MTUCap and rate, IBA 15.2.5.16). */
static void take_end(const struct sa_ctx *c, uint32_t p, struct path_props *pp)
{
	const struct fabric *f = sa_fab(c);
	const uint8_t *pi = sa_db_portinfo(&c->db, p);
	unsigned cap;

	if (!pi)
		return;
	cap = (unsigned)mad_get_field((void *)(uintptr_t)pi, 0, IB_PORT_MTU_CAP_F);
	if (cap && (!pp->mtu || cap < pp->mtu))
		pp->mtu = cap;
	if (f->ports[p].num == 0 && fab_is_switch(f, f->ports[p].node) &&
	    mad_get_field((void *)(uintptr_t)pi, 0, IB_PORT_LINK_WIDTH_ACTIVE_F)) {
		uint8_t r = port_rate(pi);

		if (!pp->rate || rate_q[r] < rate_q[pp->rate])
			pp->rate = r;
	}
}

/* The links from port ps to LID dlid (owned by port pd) as the LFTs lead:
 * 0 with pp filled, or -1 when the tables do not lead there. */
static int trace_links(const struct sa_ctx *c, uint32_t ps, uint32_t pd,
		       uint32_t dlid, struct path_props *pp)
{
	const struct fabric *f = sa_fab(c);
	uint32_t node = f->ports[ps].node, dnode = f->ports[pd].node;

	memset(pp, 0, sizeof(*pp));
	if (node == dnode) {
		const uint8_t *pi = sa_db_portinfo(&c->db, ps);

		if (pi) {
			pp->mtu = port_mtu(pi);
			pp->rate = port_rate(pi);
		}
		return 0;
	}
	if (!fab_is_switch(f, node)) {
		take_link(c, ps, pp);
		if (f->ports[ps].peer == FAB_NONE)
			return -1;
		node = f->ports[f->ports[ps].peer].node;
	}
	for (unsigned h = 0; h < MAX_PATH_HOPS; h++) {
		uint8_t out;
		uint32_t p;

		if (node == dnode)
			return 0;
		if (!fab_is_switch(f, node))
			return -1;
		out = sa_db_lft(&c->db, node, dlid);
		if (out == LFT_NO_PATH || out == 0 || out > f->nodes[node].num_ports)
			return -1;
		p = fab_port_idx(f, node, out);
		if (f->ports[p].peer == FAB_NONE)
			return -1;
		take_link(c, p, pp);
		pp->hops++;
		node = f->ports[f->ports[p].peer].node;
	}
	return -1;
}

/* Follow the LFTs from port ps to LID dlid (owned by port pd). Returns 0
 * with pp filled, or -1 when the tables do not lead there. */
static int trace(const struct sa_ctx *c, uint32_t ps, uint32_t pd,
		 uint32_t dlid, struct path_props *pp)
{
	if (trace_links(c, ps, pd, dlid, pp) < 0)
		return -1;
	take_end(c, ps, pp);
	take_end(c, pd, pp);
	return 0;
}

/* Apply a selector: the value to answer, or -1 if none satisfies it.
 * `better(a, b)` orders the values (a above b). */
static int select_value(int sel, int want, int have, const uint16_t *order)
{
	int hv = order ? order[have] : have, wv = order ? order[want] : want;

	switch (sel) {
	case 0:                         /* greater than */
		return hv > wv ? have : -1;
	case 1:                         /* less than */
		if (hv < wv)
			return have;
		if (!order)
			return want > 1 ? want - 1 : -1;
		{
			int best = -1;

			for (unsigned r = 2; r < NUM_RATES; r++)
				if (order[r] && order[r] < wv && order[r] <= hv &&
				    (best < 0 || order[r] > order[best]))
					best = (int)r;
			return best;
		}
	case 2:                         /* exactly */
		return wv <= hv ? want : -1;
	default:                        /* largest available */
		return have;
	}
}

static void gid_of(const struct sa_ctx *c, uint32_t p, uint8_t *gid)
{
	uint64_t pfx = c->db.subnet_prefix, g = sa_fab(c)->ports[p].guid;

	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(pfx >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(g >> (56 - 8 * i));
	}
}

/* A QoS level with P_Keys (OpenSM): a P_Key asked for must be one of
 * them; otherwise the first of them both ends share. -1: none. */
static int level_has_pkey(const struct qos_level *lvl, uint16_t pkey)
{
	for (unsigned i = 0; i < lvl->pkeys.n; i++)
		if ((pkey & 0x7FFF) >= (lvl->pkeys.r[i].lo & 0x7FFF) &&
		    (pkey & 0x7FFF) <= (lvl->pkeys.r[i].hi & 0x7FFF))
			return 1;
	return 0;
}

static int level_pkey(const struct sa_ctx *c, const struct qos_level *lvl,
		      uint32_t ps, uint32_t pd, int asked, uint16_t *pkey)
{
	if (level_has_pkey(lvl, *pkey))
		return 0;
	if (asked)
		return -1;
	for (unsigned i = 0; i < lvl->pkeys.n; i++)
		for (uint64_t k = lvl->pkeys.r[i].lo & 0x7FFF; k <= (lvl->pkeys.r[i].hi & 0x7FFF); k++)
			if (part_share_pkey(sa_parts(c), ps, pd, (uint16_t)k)) {
				uint16_t e = part_port_entry(sa_parts(c), ps, (uint16_t)k);

				*pkey = e ? e : (uint16_t)k;
				return 0;
			}
	return -1;
}

/* One path record for slid -> dlid, if the request's constraints allow.
 * Returns 1 appended, 0 not, <0 no room. */
static int one_path(const struct sa_ctx *c, const struct sa_query *q,
		    uint32_t ps, uint32_t slid, uint32_t pd, uint32_t dlid,
		    struct sa_answer *a)
{
	const struct sa_layout *L = &sa_path_rec;
	uint64_t m = q->comp_mask;
	struct path_props pp;
	uint8_t rec[REC_MAX], gid[16];
	int mtu, rate, plt;
	uint8_t sl;
	uint16_t pkey;
	uint32_t rq = sa_requester_port(c, q);
	const struct qos_level *lvl = sa_qos_level(c, q, ps, pd);

	/* Partitions (IBA 10.9, 15.2.5.16): the ends must share the P_Key
	 * asked for, or else one partition (the default one first); the
	 * requester must share one with each end, as OpenSM checks. */
	if (m >> PR_PKEY & 1) {
		pkey = (uint16_t)sa_get(L, q->record, PR_PKEY);
		if (!part_share_pkey(sa_parts(c), ps, pd, pkey))
			return 0;
	} else if (!(pkey = part_common_pkey(sa_parts(c), ps, pd))) {
		return 0;
	}
	if (lvl && lvl->pkeys.n && level_pkey(c, lvl, ps, pd, m >> PR_PKEY & 1, &pkey) < 0)
		return 0;
	if (!sa_ports_share(c, rq, ps) || !sa_ports_share(c, rq, pd))
		return 0;
	if (trace(c, ps, pd, dlid, &pp) < 0)
		return 0;
	if (!pp.mtu)
		pp.mtu = 1;                 /* 256: every port supports it */
	if (!pp.rate)
		pp.rate = 2;
	mtu = (int)pp.mtu;
	rate = pp.rate;
	plt = c->packet_life_time;
	/* The QoS level's limits bound the path before the request's
	 * selectors choose within them (OpenSM, osm_sa_path_record.c). */
	if (lvl) {
		if (lvl->mtu_set && mtu > lvl->mtu_limit)
			mtu = lvl->mtu_limit;
		if (lvl->rate_set && rate_q[lvl->rate_limit] < rate_q[rate])
			rate = lvl->rate_limit;
		if (lvl->pkt_life_set)
			plt = lvl->pkt_life;
	}
	if (m >> PR_MTU & 1) {
		int sel = m >> PR_MTUSEL & 1 ? (int)sa_get(L, q->record, PR_MTUSEL) : 2;

		mtu = select_value(sel, (int)sa_get(L, q->record, PR_MTU), mtu, NULL);
		if (mtu < 1)
			return 0;
	}
	if (m >> PR_RATE & 1) {
		int sel = m >> PR_RATESEL & 1 ? (int)sa_get(L, q->record, PR_RATESEL) : 2;
		int want = (int)sa_get(L, q->record, PR_RATE);

		if (want >= (int)NUM_RATES || !rate_q[want])
			return 0;
		rate = select_value(sel, want, rate, rate_q);
		if (rate < 0)
			return 0;
	}
	if (m >> PR_PLT & 1) {
		int sel = m >> PR_PLTSEL & 1 ? (int)sa_get(L, q->record, PR_PLTSEL) : 2;
		int want = (int)sa_get(L, q->record, PR_PLT);

		/* The lifetime we give is a floor: a larger one is fine
		 * (exactly: the client's, if not below ours). */
		if (sel == 0)
			plt = want >= plt ? want + 1 : plt;
		else if (sel == 1)
			plt = plt < want ? plt : -1;
		else if (sel == 2)
			plt = want >= plt ? want : -1;
		if (plt < 0 || plt > 63)
			return 0;
	}
	/* SL (IBA 15.2.5.16), as OpenSM with QoS off: an engine that
	 * layers paths over SLs (dfsp) fixes the SL, and a request for
	 * another one gets no record; otherwise the SL asked for is
	 * given, unless the source port maps it to VL 15 (dropped). */
	if (c->path_sl) {
		sl = c->path_sl(c->path_sl_arg, (uint16_t)slid, (uint16_t)dlid);
		/* With QoS the layer is within the class's run of SLs: class
		 * base + layer (qos/qos_sl_space.h); a level without sl is
		 * the class of SL 0. */
		if (c->sl_space)
			sl = qos_sl_space_sl(c->sl_space,
					     lvl && lvl->sl_set ? lvl->sl : 0, sl);
		if ((m >> PR_SL & 1) && sa_get(L, q->record, PR_SL) != sl)
			return 0;
	} else if (lvl && lvl->sl_set) {
		/* QoS (IBA 15.2.5.16, as OpenSM with -Q): the level's SL; a
		 * request for another SL gets no record (GetTable: none of
		 * this pair; Get: status NO_RECORDS), nor does an SL the
		 * source port drops. */
		sl = lvl->sl;
		if ((m >> PR_SL & 1) && sa_get(L, q->record, PR_SL) != sl)
			return 0;
		if (sa_sl2vl_drops(&c->sl2vl, sa_fab(c), ps, sl))
			return 0;
	} else {
		sl = m >> PR_SL & 1 ? (uint8_t)sa_get(L, q->record, PR_SL) : 0;
		if (sl && sa_sl2vl_drops(&c->sl2vl, sa_fab(c), ps, sl))
			return 0;
	}
	memset(rec, 0, REC_MAX);
	gid_of(c, pd, gid);
	sa_put_bytes(L, rec, PR_DGID, gid);
	gid_of(c, ps, gid);
	sa_put_bytes(L, rec, PR_SGID, gid);
	sa_put(L, rec, PR_DLID, dlid);
	sa_put(L, rec, PR_SLID, slid);
	sa_put(L, rec, PR_REVERSIBLE, 1);
	sa_put(L, rec, PR_PKEY, pkey);
	sa_put(L, rec, PR_SL, sl);
	sa_put(L, rec, PR_MTUSEL, 2);
	sa_put(L, rec, PR_MTU, (uint64_t)mtu);
	sa_put(L, rec, PR_RATESEL, 2);
	sa_put(L, rec, PR_RATE, (uint64_t)rate);
	sa_put(L, rec, PR_PLTSEL, 2);
	sa_put(L, rec, PR_PLT, (uint64_t)plt);
	/* TClass, FlowLabel, HopLimit and QoSClass are the client's to
	 * choose (rdma_cm puts a socket's ToS into QoSClass or TClass):
	 * echoed, so the record matches the request's components. (OpenSM
	 * 3.3.23 with QoS off answers too, with these fields 0.) */
	{
		static const unsigned echo[] = { PR_TCLASS, PR_FLOWLABEL,
						 PR_HOPLIMIT, PR_QOS };

		for (unsigned i = 0; i < sizeof(echo) / sizeof(echo[0]); i++)
			if (m >> echo[i] & 1)
				sa_put(L, rec, echo[i], sa_get(L, q->record, echo[i]));
	}
	/* Components the client fixed must match what we would give (the
	 * P_Key and SL were checked above; RawTraffic is never set). */
	{
		uint64_t must = m & (1ull << PR_RAW);

		if (!sa_comp_match(L, q->record, rec, must))
			return 0;
	}
	if (sa_answer_add(a, rec) < 0)
		return -1;
	return 1;
}

struct ends {
	uint32_t port[1];           /* set when one port */
	uint32_t lid_lo, lid_hi;    /* LIDs to use of that port */
	int all;                    /* every endpoint */
};

/* Resolve one end from a GID or LID component. Returns 0, or a status. */
static int resolve(const struct sa_ctx *c, const struct sa_query *q,
		   unsigned gid_comp, unsigned lid_comp, struct ends *e)
{
	const struct sa_layout *L = &sa_path_rec;
	uint64_t m = q->comp_mask;
	uint32_t p = FAB_NONE;

	memset(e, 0, sizeof(*e));
	if (m >> lid_comp & 1) {
		uint32_t lid = (uint32_t)sa_get(L, q->record, lid_comp);

		p = sa_db_port_of_lid(&c->db, lid);
		if (p == FAB_NONE)
			return SA_STATUS_NO_RECORDS;
		e->lid_lo = e->lid_hi = lid;
	}
	if (m >> gid_comp & 1) {
		const uint8_t *g = sa_comp_ptr(L, q->record, gid_comp);
		uint64_t pfx = 0, guid = 0;
		uint32_t pg;

		for (int i = 0; i < 8; i++) {
			pfx = pfx << 8 | g[i];
			guid = guid << 8 | g[8 + i];
		}
		pg = sa_db_port_of_guid(&c->db, guid);
		/* A GID of another subnet, or of no port here (IBA 15.2.5.16;
		 * router paths are not supported). */
		if (pfx != c->db.subnet_prefix || pg == FAB_NONE)
			return SA_STATUS_REQ_INVALID_GID;
		if (p != FAB_NONE && p != pg)
			return SA_STATUS_NO_RECORDS;
		if (p == FAB_NONE) {
			const struct fab_port *fp = &sa_fab(c)->ports[pg];

			p = pg;
			e->lid_lo = sa_lid_of_port(c, pg);
			e->lid_hi = e->lid_lo + (1u << fp->lmc) - 1;
		}
	}
	if (p == FAB_NONE)
		e->all = 1;
	e->port[0] = p;
	return 0;
}

static int pr_query(struct sa_ctx *c, const struct sa_query *q,
		    struct sa_answer *a)
{
	const struct fabric *f;
	struct ends src, dst;
	uint32_t *eps = NULL, n_ep = 0;
	unsigned numb = 0;
	int rc;

	if (!c->db.r)
		return SA_STATUS_NO_RECORDS;
	f = sa_fab(c);
	if (q->method == SA_METHOD_GET &&
	    !((q->comp_mask >> PR_SLID & 1) || (q->comp_mask >> PR_SGID & 1)) &&
	    !((q->comp_mask >> PR_DLID & 1) || (q->comp_mask >> PR_DGID & 1)))
		return SA_STATUS_REQ_INSUFFICIENT_COMPONENTS;
	if ((rc = resolve(c, q, PR_SGID, PR_SLID, &src)) ||
	    (rc = resolve(c, q, PR_DGID, PR_DLID, &dst)))
		return rc == SA_STATUS_NO_RECORDS ? 0 : rc;
	if (q->comp_mask >> PR_NUMBPATH & 1)
		numb = (unsigned)sa_get(&sa_path_rec, q->record, PR_NUMBPATH);
	if (src.all || dst.all) {
		n_ep = fab_endpoint_ports(f, NULL);
		eps = malloc((n_ep + 1) * sizeof(*eps));
		if (!eps)
			return SA_STATUS_NO_RESOURCES;
		fab_endpoint_ports(f, eps);
	}
	for (uint32_t i = 0; i < (src.all ? n_ep : 1); i++) {
		uint32_t ps = src.all ? eps[i] : src.port[0];
		uint32_t s_lo = src.all ? sa_lid_of_port(c, ps) : src.lid_lo;
		uint32_t s_hi = src.all ? s_lo + (1u << f->ports[ps].lmc) - 1 : src.lid_hi;

		for (uint32_t j = 0; j < (dst.all ? n_ep : 1); j++) {
			uint32_t pd = dst.all ? eps[j] : dst.port[0];
			uint32_t d_lo = dst.all ? sa_lid_of_port(c, pd) : dst.lid_lo;
			uint32_t d_hi = dst.all ? d_lo + (1u << f->ports[pd].lmc) - 1 : dst.lid_hi;
			unsigned got = 0;

			/* Under LMC, pair the k-th LIDs first so that the
			 * first NumbPath paths of a port pair use distinct
			 * LIDs at both ends (the disjoint paths engines
			 * build for LMC). */
			for (uint32_t k = 0; k <= d_hi - d_lo; k++) {
				for (uint32_t sl = s_lo; sl <= s_hi; sl++) {
					uint32_t dl = d_lo + ((sl - s_lo) + k) % (d_hi - d_lo + 1);
					int r;

					if (numb && got >= numb)
						break;
					r = one_path(c, q, ps, sl, pd, dl, a);
					if (r < 0) {
						free(eps);
						return SA_STATUS_NO_RESOURCES;
					}
					got += (unsigned)r;
					if (q->method == SA_METHOD_GET && got)
						goto done;
				}
			}
		}
	}
done:
	free(eps);
	return 0;
}

const struct sa_attr_ops sa_pathrecord_ops = {
	.attr_id = 0x0035,
	.name = "PathRecord",
	.rec_len = 64,
	.query = pr_query,
};

/* --- MultiPathRecord (IBA 15.2.5.17) ---------------------------------------
 * GetMulti with SGIDCount source and DGIDCount destination GIDs after the
 * record (up to 11 in one MAD, up to MPR_MAX_GIDS in a multi-MAD request
 * reassembled by mad/rmpp_recv.c; OpenSM takes 11 and ignores the rest).
 * The answer is
 * the PathRecords of every source x destination pair, LID pairs under LMC
 * as for PathRecord (k-th LIDs first), the record's PathRecord components
 * (MTU, Rate, PacketLifeTime with selectors, SL, P_Key, ...) applied the
 * same way, at most NumbPath records in all (127 without it). The 2x2
 * "most independent pair" choice OpenSM makes for dual-ported hosts is not
 * made: every pair is answered in order. */
static int mpr_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	const struct sa_layout *M = &sa_mpr_rec;
	const struct fabric *f;
	uint64_t m = q->comp_mask, pm = 0;
	unsigned nsrc, ndst, max = 127, got = 0;
	uint32_t port[MPR_MAX_GIDS];
	uint8_t pr[REC_MAX] = { 0 };
	struct sa_query q2;

	if (!c->db.r)
		return SA_STATUS_NO_RECORDS;
	f = sa_fab(c);
	nsrc = (unsigned)sa_get(M, q->record, MPR_SGIDCOUNT);
	ndst = (unsigned)sa_get(M, q->record, MPR_DGIDCOUNT);
	/* Statuses as OpenSM's: the counts must be components and nonzero,
	 * both halves of the ServiceID or neither, a fixed MTU or rate must
	 * be a valid one. */
	if (!(m >> MPR_SGIDCOUNT & 1) || !(m >> MPR_DGIDCOUNT & 1) ||
	    (m >> MPR_SID_MSB & 1) != (m >> MPR_SID_LSB & 1))
		return SA_STATUS_REQ_INSUFFICIENT_COMPONENTS;
	if ((m >> MPR_MTUSEL & 1) && (m >> MPR_MTU & 1)) {
		unsigned mtu = (unsigned)sa_get(M, q->record, MPR_MTU);

		if (mtu < 1 || mtu > 5)
			return SA_STATUS_REQ_INVALID;
	}
	if ((m >> MPR_RATESEL & 1) && (m >> MPR_RATE & 1)) {
		unsigned rate = (unsigned)sa_get(M, q->record, MPR_RATE);

		if (rate >= NUM_RATES || !rate_q[rate])
			return SA_STATUS_REQ_INVALID;
	}
	if (!nsrc || !ndst || nsrc + ndst > MPR_MAX_GIDS ||
	    24 + 16 * (size_t)(nsrc + ndst) > q->record_len)
		return SA_STATUS_REQ_INVALID;
	for (unsigned i = 0; i < nsrc + ndst; i++) {
		const uint8_t *g = q->record + 24 + 16 * i;
		uint64_t prefix = 0, guid = 0;

		for (int k = 0; k < 8; k++) {
			prefix = prefix << 8 | g[k];
			guid = guid << 8 | g[8 + k];
		}
		port[i] = prefix == c->db.subnet_prefix ?
			sa_db_port_of_guid(&c->db, guid) : FAB_NONE;
		if (port[i] == FAB_NONE)
			return SA_STATUS_REQ_INVALID_GID;
	}
	/* The PathRecord components the request fixed, as a PathRecord
	 * query one_path() understands. */
	for (unsigned i = MPR_RAW; i <= MPR_PLT; i++) {
		if (!(m >> i & 1) || i == MPR_NUMBPATH)
			continue;
		sa_put(&sa_path_rec, pr, MPR_TO_PR(i), sa_get(M, q->record, i));
		pm |= 1ull << MPR_TO_PR(i);
	}
	/* ServiceID (8 MSB + 56 LSB) as PathRecord's two halves, for the
	 * QoS policy's service-id rules. */
	if ((m >> MPR_SID_MSB & 1) && (m >> MPR_SID_LSB & 1)) {
		uint64_t sid = sa_get(M, q->record, MPR_SID_MSB) << 56 |
			sa_get(M, q->record, MPR_SID_LSB);

		sa_put(&sa_path_rec, pr, PR_SERVICEID0, sid >> 32);
		sa_put(&sa_path_rec, pr, PR_SERVICEID0 + 1, sid & 0xFFFFFFFFu);
		pm |= 3ull << PR_SERVICEID0;
	}
	if (m >> MPR_NUMBPATH & 1)
		max = (unsigned)sa_get(M, q->record, MPR_NUMBPATH) & 0x7f;
	q2 = *q;
	q2.record = pr;
	q2.record_len = sa_path_rec.rec_len;
	q2.comp_mask = pm;
	for (unsigned i = 0; i < nsrc; i++) {
		uint32_t ps = port[i];
		uint32_t s_lo = sa_lid_of_port(c, ps);
		uint32_t s_hi = s_lo + (1u << f->ports[ps].lmc) - 1;

		for (unsigned j = 0; j < ndst; j++) {
			uint32_t pd = port[nsrc + j];
			uint32_t d_lo = sa_lid_of_port(c, pd);
			uint32_t d_hi = d_lo + (1u << f->ports[pd].lmc) - 1;

			if (!s_lo || !d_lo)
				continue;
			for (uint32_t k = 0; k <= d_hi - d_lo; k++)
				for (uint32_t sl = s_lo; sl <= s_hi; sl++) {
					uint32_t dl = d_lo + ((sl - s_lo) + k) % (d_hi - d_lo + 1);
					int r;

					if (got >= max)
						return 0;
					r = one_path(c, &q2, ps, sl, pd, dl, a);
					if (r < 0)
						return SA_STATUS_NO_RESOURCES;
					got += (unsigned)r;
				}
		}
	}
	return 0;
}

const struct sa_attr_ops sa_multipathrecord_ops = {
	.attr_id = 0x003A,
	.name = "MultiPathRecord",
	.rec_len = 64,                  /* the answer's PathRecords */
	.get_multi = mpr_query,
	.resp_attr_id = 0x0035,
};
