/* The SA's client state file (sa_persist.h). */
#include "sa_persist.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/log.h"

#define MAGIC "ibsm-sa-state 1"

static void put_hex(FILE *f, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static int get_hex(const char *s, uint8_t *b, size_t n)
{
	if (strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		b[i] = (uint8_t)v;
	}
	return 0;
}

static void write_all(FILE *f, const struct sa_persist_view *v, double mono_now)
{
	time_t wall = time(NULL);

	fprintf(f, "%s\nnext_mgid %" PRIu32 "\n", MAGIC, v->mcast->next_mgid);
	for (uint32_t i = 0; i < v->mcast->num_groups; i++) {
		const struct mcast_group *g = &v->mcast->groups[i];

		fputs("group ", f);
		put_hex(f, g->mgid, 16);
		fprintf(f, " 0x%04x 0x%04x 0x%08" PRIx32 " %u %u %u %u %u 0x%05" PRIx32 " %d 0x%016" PRIx64 "\n",
			g->mlid, g->pkey, g->qkey, g->mtu, g->rate, g->sl,
			g->tclass, g->hop_limit, g->flow_label, g->predefined ? 1 : 0,
			g->creator);
		for (uint32_t m = 0; m < g->num_members; m++)
			fprintf(f, "member 0x%016" PRIx64 " %u\n",
				g->members[m].port_guid, g->members[m].join_state);
	}
	for (uint32_t i = 0; i < v->services->n; i++) {
		const struct sa_service *s = &v->services->s[i];
		long long end = 0;

		if (s->expires) {
			end = (long long)wall + (long long)(s->expires - mono_now + 0.999);
			if (end <= 0)
				end = 1;
		}
		fputs("service ", f);
		put_hex(f, s->rec, SA_SERVICE_REC_LEN);
		fprintf(f, " %lld 0x%016" PRIx64 "\n", end, s->owner);
	}
	for (uint32_t i = 0; i < v->informs->n; i++) {
		const struct sa_subscription *s = &v->informs->s[i];

		fputs("inform ", f);
		put_hex(f, s->iir, SA_IIR_LEN);
		fprintf(f, " 0x%016" PRIx64 " %u %" PRIu32 " %u\n", s->port_guid,
			s->lid, s->qpn, s->trusted);
	}
}

int sa_persist_save(const char *path, const struct sa_persist_view *v,
		    double mono_now)
{
	char tmp[1100];
	FILE *f;
	int rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f) {
		rc = -errno;
		log_err("SA state: cannot write %s: %s", tmp, strerror(errno));
		return rc;
	}
	write_all(f, v, mono_now);
	/* Atomic: the old file stays whole until the new one is on disk. */
	if (fflush(f) || fsync(fileno(f)))
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		log_err("SA state: cannot write %s: %s", path, strerror(-rc));
		unlink(tmp);
	}
	return rc;
}

/* --- reading --------------------------------------------------------- */

struct pgroup {
	struct mcast_group g;       /* members: the range below */
	uint32_t first, n;
};

struct pmember {
	uint64_t guid;
	uint8_t js;
};

struct parsed {
	uint32_t next_mgid;
	struct pgroup *groups;
	uint32_t ngroups, capg;
	struct pmember *members;
	uint32_t nmembers, capm;
	struct sa_service *services;
	long long *lease_end;
	uint32_t nservices, caps;
	struct sa_subscription *informs;
	uint32_t ninforms, capi;
};

static void parsed_free(struct parsed *p)
{
	free(p->groups);
	free(p->members);
	free(p->services);
	free(p->lease_end);
	free(p->informs);
}

/* Room for one more of n items of size sz in *a (capacity *cap). */
static int room(void **a, uint32_t *cap, uint32_t n, size_t sz)
{
	void *na;
	uint32_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	na = realloc(*a, (size_t)nc * sz);
	if (!na)
		return -ENOMEM;
	*a = na;
	*cap = nc;
	return 0;
}

/* One line; returns 0, -ENOMEM, or -EINVAL with *field naming the bad one. */
static int parse_line(struct parsed *p, char *line, const char **field)
{
	char kw[16], hex[400];
	int used = 0;

	if (sscanf(line, "%15s %399s%n", kw, hex, &used) < 1)
		return *field = "keyword", -EINVAL;
	if (!strcmp(kw, "next_mgid")) {
		*field = "next_mgid";
		return sscanf(line, "next_mgid %" SCNu32, &p->next_mgid) == 1 ? 0 : -EINVAL;
	}
	if (!strcmp(kw, "group")) {
		struct pgroup *g;
		unsigned mlid, pkey, mtu, rate, sl, tc, hop, pre;
		uint32_t qkey, flow;
		uint64_t creator = 0;
		int nf;

		if (room((void **)&p->groups, &p->capg, p->ngroups, sizeof(*p->groups)))
			return -ENOMEM;
		g = &p->groups[p->ngroups];
		memset(g, 0, sizeof(*g));
		*field = "group MGID";
		if (get_hex(hex, g->g.mgid, 16) || g->g.mgid[0] != 0xff)
			return -EINVAL;
		*field = "group fields (MLID PKEY QKEY MTU RATE SL TCLASS HOPLIMIT FLOWLABEL PREDEFINED)";
		/* CREATOR is new: files written before it have 10 fields. */
		nf = sscanf(line + used, "%x %x %" SCNx32 " %u %u %u %u %u %" SCNx32 " %u %" SCNx64,
			    &mlid, &pkey, &qkey, &mtu, &rate, &sl, &tc, &hop, &flow,
			    &pre, &creator);
		if (nf != 10 && nf != 11)
			return -EINVAL;
		*field = "group MLID";
		if (mlid < MCAST_MLID_BASE || mlid > MCAST_MLID_TOP)
			return -EINVAL;
		*field = "group PKEY/MTU/RATE/SL/TCLASS/HOPLIMIT/FLOWLABEL range";
		if (pkey > 0xffff || mtu > 63 || rate > 63 || sl > 15 || tc > 255 ||
		    hop > 255 || flow > 0xfffff || pre > 1)
			return -EINVAL;
		g->g.mlid = (uint16_t)mlid;
		g->g.pkey = (uint16_t)pkey;
		g->g.qkey = qkey;
		g->g.mtu = (uint8_t)mtu;
		g->g.rate = (uint8_t)rate;
		g->g.sl = (uint8_t)sl;
		g->g.tclass = (uint8_t)tc;
		g->g.hop_limit = (uint8_t)hop;
		g->g.flow_label = flow;
		g->g.predefined = pre;
		g->g.creator = creator;
		g->first = p->nmembers;
		p->ngroups++;
		return 0;
	}
	if (!strcmp(kw, "member")) {
		uint64_t guid;
		unsigned js;

		*field = "member (before any group)";
		if (!p->ngroups)
			return -EINVAL;
		*field = "member PORTGUID JOINSTATE";
		if (sscanf(line, "member %" SCNx64 " %u", &guid, &js) != 2 || !guid ||
		    !js || js > 7)
			return -EINVAL;
		if (room((void **)&p->members, &p->capm, p->nmembers, sizeof(*p->members)))
			return -ENOMEM;
		p->members[p->nmembers].guid = guid;
		p->members[p->nmembers].js = (uint8_t)js;
		p->nmembers++;
		p->groups[p->ngroups - 1].n++;
		return 0;
	}
	if (!strcmp(kw, "service")) {
		long long end;
		uint64_t owner = 0;
		uint32_t cap = p->caps;

		if (room((void **)&p->services, &p->caps, p->nservices, sizeof(*p->services)))
			return -ENOMEM;
		if (p->caps != cap || !p->lease_end) {
			long long *le = realloc(p->lease_end, (size_t)p->caps * sizeof(*le));

			if (!le)
				return -ENOMEM;
			p->lease_end = le;
		}
		*field = "service RECORD";
		if (get_hex(hex, p->services[p->nservices].rec, SA_SERVICE_REC_LEN))
			return -EINVAL;
		*field = "service LEASE_END [OWNER]";
		/* OWNER is new: files written before it have none (0). */
		if (sscanf(line + used, "%lld %" SCNx64, &end, &owner) < 1 || end < 0)
			return -EINVAL;
		p->services[p->nservices].owner = owner;
		p->lease_end[p->nservices++] = end;
		return 0;
	}
	if (!strcmp(kw, "inform")) {
		struct sa_subscription *s;
		unsigned lid, trusted;

		if (room((void **)&p->informs, &p->capi, p->ninforms, sizeof(*p->informs)))
			return -ENOMEM;
		s = &p->informs[p->ninforms];
		memset(s, 0, sizeof(*s));
		*field = "inform IIR";
		if (get_hex(hex, s->iir, SA_IIR_LEN))
			return -EINVAL;
		*field = "inform PORTGUID LID QPN TRUSTED";
		if (sscanf(line + used, "%" SCNx64 " %u %" SCNu32 " %u", &s->port_guid,
			   &lid, &s->qpn, &trusted) != 4 || lid > 0xffff || trusted > 1 ||
		    s->qpn > 0xffffff)
			return -EINVAL;
		s->lid = (uint16_t)lid;
		s->trusted = (uint8_t)trusted;
		p->ninforms++;
		return 0;
	}
	*field = "keyword (group, member, service, inform, next_mgid)";
	return -EINVAL;
}

static int parse_file(const char *path, FILE *f, struct parsed *p)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = 0;

	while (getline(&line, &cap, f) >= 0) {
		const char *field = "";

		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (lineno == 1) {
			if (strcmp(line, MAGIC)) {
				log_err("SA state: %s:1: not an ibsm SA state file (want \"%s\"): ignored",
					path, MAGIC);
				rc = -EINVAL;
				break;
			}
			continue;
		}
		if (!line[0] || line[0] == '#')
			continue;
		rc = parse_line(p, line, &field);
		if (rc == -EINVAL)
			log_err("SA state: %s:%u: bad %s: file ignored (groups, services and subscriptions start empty)",
				path, lineno, field);
		if (rc)
			break;
	}
	if (!rc && lineno == 0) {
		log_err("SA state: %s: empty file: ignored", path);
		rc = -EINVAL;
	}
	free(line);
	return rc;
}

static int apply(struct parsed *p, struct sa_persist_view *v, double mono_now,
		 struct sa_persist_stats *st)
{
	time_t wall = time(NULL);

	if (p->next_mgid > v->mcast->next_mgid)
		v->mcast->next_mgid = p->next_mgid;
	for (uint32_t i = 0; i < p->ngroups; i++) {
		struct pgroup *pg = &p->groups[i];
		struct mcast_group *g;
		uint16_t mlid;

		/* a group no one is in and no one configured: gone */
		if (!pg->n && !mcast_find_mgid(v->mcast, pg->g.mgid))
			continue;
		g = mcast_restore(v->mcast, &pg->g);
		if (!g)
			return -ENOMEM;
		mlid = g->mlid;
		st->groups++;
		if (mlid != pg->g.mlid)
			st->mlids_moved++;
		for (uint32_t m = 0; m < pg->n; m++) {
			const struct pmember *pm = &p->members[pg->first + m];

			/* g may move as the member array grows: find it again */
			g = mcast_find_mlid(v->mcast, mlid);
			if (!g || mcast_join(v->mcast, g, pm->guid, pm->js) < 0)
				return -ENOMEM;
			st->members++;
		}
		/* The creator's quota holds the group while it is a member. */
		g = mcast_find_mlid(v->mcast, mlid);
		if (g && !g->creator && pg->g.creator &&
		    mcast_member_find(g, pg->g.creator))
			g->creator = pg->g.creator;
	}
	for (uint32_t i = 0; i < p->nservices; i++) {
		struct sa_service_db *db = v->services;
		double expires = 0;

		if (p->lease_end[i]) {
			if (p->lease_end[i] <= (long long)wall) {
				st->services_expired++;
				continue;
			}
			expires = mono_now + (double)(p->lease_end[i] - (long long)wall);
		}
		if (db->n >= SA_SERVICE_MAX ||
		    room((void **)&db->s, &db->cap, db->n, sizeof(*db->s)))
			return -ENOMEM;
		memcpy(db->s[db->n].rec, p->services[i].rec, SA_SERVICE_REC_LEN);
		db->s[db->n].expires = expires;
		db->s[db->n].owner = p->services[i].owner;
		db->n++;
		db->generation++;
		st->services++;
	}
	for (uint32_t i = 0; i < p->ninforms; i++) {
		struct sa_inform_db *db = v->informs;

		if (db->n >= SA_INFORM_MAX ||
		    room((void **)&db->s, &db->cap, db->n, sizeof(*db->s)))
			return -ENOMEM;
		db->s[db->n++] = p->informs[i];
		db->generation++;
		st->informs++;
	}
	return 0;
}

int sa_persist_load(const char *path, struct sa_persist_view *v,
		    double mono_now, struct sa_persist_stats *st)
{
	struct parsed p;
	FILE *f = fopen(path, "r");
	int rc;

	memset(st, 0, sizeof(*st));
	if (!f) {
		if (errno == ENOENT)
			return -ENOENT;
		rc = -errno;
		log_err("SA state: cannot read %s: %s: ignored", path, strerror(errno));
		return rc;
	}
	memset(&p, 0, sizeof(p));
	rc = parse_file(path, f, &p);
	fclose(f);
	if (!rc)
		rc = apply(&p, v, mono_now, st);
	parsed_free(&p);
	return rc;
}
