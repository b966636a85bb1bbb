/* Reports to InformInfo subscribers (sm/sm_report.h). */
#include "sm_report.h"

#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../mad/gmp.h"
#include "../multicast/mcast_db.h"
#include "../sa/sa_inform.h"
#include "sm_state.h"

void sm_report_free(struct sm_report *r)
{
	free(r->guids);
	free(r->groups);
	free(r->misses);
	memset(r, 0, sizeof(*r));
}

static void make_gid(uint8_t gid[16], uint64_t prefix, uint64_t guid)
{
	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(prefix >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

/* A subscriber port that ignored report_max_misses Reports in a row:
 * its subscriptions go, and its Reports not sent yet with them. */
static void drop_silent(struct sm *sm, uint16_t lid)
{
	uint32_t subs = sa_inform_drop_lid(&sm->sa.ctx.informs, lid);
	size_t queued = mt_cancel_low(sm->t, lid);

	sm->report.dropped_ports++;
	sm->report.misses[lid] = 0;
	log_warn("SA: LID %u left %u Reports in a row unanswered: its %u subscription%s dropped (%zu queued Reports with them)",
		 lid, sm->cfg->report_max_misses, subs, subs == 1 ? "" : "s",
		 queued);
}

/* cookie: trap number << 16 | subscriber LID, for the log. */
static void report_done(void *ctx, uint64_t cookie, const uint8_t *req,
			const uint8_t *resp)
{
	struct sm *sm = ctx;
	struct sm_report *r = &sm->report;
	uint16_t lid = (uint16_t)(cookie & 0xFFFF);

	(void)req;
	if (resp) {
		r->answered++;
		if (r->misses)
			r->misses[lid] = 0;
		return;
	}
	r->failed++;
	/* The first of a run is logged, not each of thousands. */
	if (!r->misses || !r->misses[lid])
		log_warn("SA: no ReportResponse for trap %u from LID %u (after retries)",
			 (unsigned)(cookie >> 16), lid);
	if (!sm->cfg->report_max_misses || !r->misses)
		return;
	if (r->misses[lid] < UINT16_MAX)
		r->misses[lid]++;
	if (r->misses[lid] >= sm->cfg->report_max_misses)
		drop_silent(sm, lid);
}

static void send_one(void *ctx, const struct sa_subscription *s)
{
	struct sm *sm = ((void **)ctx)[0];
	const struct sa_notice *n = ((void **)ctx)[1];
	uint8_t mad[GMP_SIZE];
	int rc;

	if (!sm->report.misses)
		sm->report.misses = calloc(65536, sizeof(*sm->report.misses));
	sa_report_build(mad, n);
	rc = mt_submit_low(sm->t, s->lid, s->qpn, mad, report_done, sm,
			   (uint64_t)n->trap << 16 | s->lid);
	if (rc < 0) {
		/* One line per notice would be thousands in a flood. */
		if (sm->report.failed++ % 1000 == 0)
			log_warn("SA: cannot send report of trap %u to LID %u QP %u: %s (%llu Reports failed so far)",
				 n->trap, s->lid, s->qpn, strerror(-rc),
				 (unsigned long long)sm->report.failed);
		return;
	}
	sm->report.sent++;
	log_info("SA: report trap %u (issuer LID %u) to LID %u", n->trap,
		  n->issuer_lid, s->lid);
}

static void report(struct sm *sm, const struct sa_notice *n)
{
	void *ctx[2] = { sm, (void *)n };

	if (sm->sa.ctx.informs.n)
		sa_inform_match(&sm->sa.ctx.informs, n, send_one, ctx);
}

void sm_report_trap(struct sm *sm, const uint8_t *smp_data)
{
	const struct sa_db *db = &sm->sa.ctx.db;
	struct sa_notice n;
	uint8_t gid[16] = { 0 };
	uint32_t p;

	if (!sm->sa.ctx.informs.n || !db->r)
		return;
	/* The issuer's GID, from its LID (IBA 13.4.8.2: a forwarded trap
	 * names the port that sent it). */
	p = sa_db_port_of_lid(db, smp_notice_issuer_lid(smp_data));
	if (p != FAB_NONE)
		make_gid(gid, db->subnet_prefix, db->r->fab.ports[p].guid);
	sa_notice_from_trap(&n, smp_data, gid);
	report(sm, &n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int in_set(const uint64_t *v, uint32_t n, uint64_t g)
{
	return bsearch(&g, v, n, sizeof(*v), cmp_u64) != NULL;
}

static int port_known(void *ctx, uint64_t guid)
{
	const struct sa_db *db = ctx;

	return sa_db_port_of_guid(db, guid) != FAB_NONE;
}

void sm_report_sweep(struct sm *sm)
{
	struct sm_report *r = &sm->report;
	const struct sa_db *db = &sm->sa.ctx.db;
	uint64_t *now;
	uint32_t n = 0, in = 0, out = 0, pruned;
	uint8_t sm_gid[16], gid[16];
	struct sa_notice ntc;

	if (!db->r)
		return;
	now = malloc((db->num_guids + 1) * sizeof(*now));
	if (!now) {
		log_warn("SA: out of memory: no trap 64/65 reports this sweep");
		return;
	}
	for (uint32_t i = 0; i < db->num_guids; i++)
		if (db->r->fab.ports[db->by_guid[i].port].lid)
			now[n++] = db->by_guid[i].guid;
	qsort(now, n, sizeof(*now), cmp_u64);
	/* Subscriptions of ports that left go first: nobody to report to. */
	pruned = sa_inform_prune(&sm->sa.ctx.informs, port_known, (void *)db);
	if (pruned)
		log_info("SA: %u subscription%s of ports gone from the fabric dropped",
			 pruned, pruned == 1 ? "" : "s");
	if (r->have && sm->sa.ctx.informs.n) {
		make_gid(sm_gid, db->subnet_prefix, sm->guid);
		for (uint32_t i = 0; i < n; i++) {
			if (in_set(r->guids, r->n, now[i]))
				continue;
			make_gid(gid, db->subnet_prefix, now[i]);
			sa_notice_sm_trap(&ntc, SA_TRAP_GID_IN_SERVICE, sm->lid, sm_gid, gid);
			report(sm, &ntc);
			in++;
		}
		for (uint32_t i = 0; i < r->n; i++) {
			if (in_set(now, n, r->guids[i]))
				continue;
			make_gid(gid, db->subnet_prefix, r->guids[i]);
			sa_notice_sm_trap(&ntc, SA_TRAP_GID_OUT_OF_SERVICE, sm->lid, sm_gid, gid);
			report(sm, &ntc);
			out++;
		}
		if (in || out)
			log_info("SA: %u port%s in service, %u out of service since the last sweep: reported to subscribers",
				 in, in == 1 ? "" : "s", out);
	}
	free(r->guids);
	r->guids = now;
	r->n = n;
	r->have = 1;
}

static int cmp_gid(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

int sm_report_groups_due(const struct sm *sm)
{
	const struct sm_report *r = &sm->report;
	const struct mcast_db *db = &sm->mcast.db;

	return !r->have_groups || r->groups_gen != db->generation ||
	       r->ngroups != db->num_groups;
}

void sm_report_groups(struct sm *sm)
{
	struct sm_report *r = &sm->report;
	const struct mcast_db *db = &sm->mcast.db;
	uint8_t (*now)[16], sm_gid[16];
	uint32_t n = db->num_groups, made = 0, gone = 0;
	struct sa_notice ntc;

	if (!sm_report_groups_due(sm))
		return;
	now = malloc((n + 1) * sizeof(*now));
	if (!now) {
		log_warn("SA: out of memory: no trap 66/67 reports");
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		memcpy(now[i], db->groups[i].mgid, 16);
	qsort(now, n, sizeof(*now), cmp_gid);
	if (r->have_groups && sm->sa.ctx.informs.n && sm->sa.ctx.db.r) {
		make_gid(sm_gid, sm->sa.ctx.db.subnet_prefix, sm->guid);
		for (uint32_t i = 0; i < n; i++)
			if (!bsearch(now[i], r->groups, r->ngroups, 16, cmp_gid)) {
				sa_notice_sm_trap(&ntc, SA_TRAP_MCG_CREATED, sm->lid,
						  sm_gid, now[i]);
				report(sm, &ntc);
				made++;
			}
		for (uint32_t i = 0; i < r->ngroups; i++)
			if (!bsearch(r->groups[i], now, n, 16, cmp_gid)) {
				sa_notice_sm_trap(&ntc, SA_TRAP_MCG_DELETED, sm->lid,
						  sm_gid, r->groups[i]);
				report(sm, &ntc);
				gone++;
			}
		if (made || gone)
			log_info("SA: %u multicast group%s created, %u deleted: reported to subscribers",
				 made, made == 1 ? "" : "s", gone);
	}
	free(r->groups);
	r->groups = now;
	r->ngroups = n;
	r->groups_gen = db->generation;
	r->have_groups = 1;
}
