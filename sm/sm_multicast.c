/* Multicast in the SM (see sm_multicast.h). */
#include "sm_multicast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../mad/smp.h"
#include "../multicast/mcast_spec.h"
#include "../multicast/mcast_tree.h"
#include "../partition/part_conf.h"

static int create_predefined(void *ctx, const struct mcast_spec *s)
{
	struct sm_mcast *m = ctx;
	struct mcast_group *g;
	char gid[64];

	g = mcast_create(&m->db, s->mgid, s->pkey, s->qkey, s->mtu, s->rate, true);
	if (!g)
		return -1;
	log_info("multicast: predefined group %s MLID 0x%04x P_Key 0x%04x Q_Key 0x%08x MTU %u rate %u",
		 inet_ntop(AF_INET6, s->mgid, gid, sizeof(gid)), g->mlid, s->pkey,
		 s->qkey, s->mtu, s->rate);
	return 0;
}

/* IPoIB broadcast groups (RFC 4391) of the partitions that ask for one
 * (docs/partitions.md), as OpenSM's partitions.conf "ipoib" flag. */
static int create_partition_groups(struct sm_mcast *m, const struct part_conf *pc)
{
	for (uint32_t i = 0; pc && i < pc->n; i++) {
		const struct part_def *d = &pc->p[i];
		uint16_t pkey = (uint16_t)(d->pkey | PART_FULL_BIT);
		uint8_t mgid[16];
		struct mcast_group *g;
		char gid[64];

		if (!d->ipoib || d->pkey == PART_DEFAULT_PKEY)
			continue;
		mcast_ipoib_broadcast_mgid(mgid, pkey);
		g = mcast_create(&m->db, mgid, pkey, d->qkey, d->mtu, d->rate, true);
		if (!g)
			return -ENOMEM;
		log_info("multicast: IPoIB broadcast group %s of partition '%s' MLID 0x%04x P_Key 0x%04x Q_Key 0x%08x MTU %u rate %u",
			 inet_ntop(AF_INET6, mgid, gid, sizeof(gid)), d->name, g->mlid,
			 pkey, d->qkey, d->mtu, d->rate);
	}
	return 0;
}

int sm_mcast_init(struct sm_mcast *m, const char *groups,
		  const struct part_conf *parts)
{
	const struct part_def *def = part_conf_default(parts);
	uint8_t mgid[16];
	struct mcast_group *g;
	char why[300];

	memset(m, 0, sizeof(*m));
	mcast_db_init(&m->db);
	mft_held_init(&m->held);
	/* IPoIB (RFC 4391): the broadcast group of the default partition,
	 * Q_Key 0x0B1B, created by the SM as OpenSM does, at OpenSM's
	 * default MTU 2048 (code 4) and rate 10 Gb/s (code 3), or the
	 * default partition's `mtu`/`rate`. Not fitted to the links: a
	 * group at the fastest rate every CA carries today refuses a host
	 * whose link trains slower tomorrow (osmtest ERR 02B3, issue 25).
	 * A configured default partition has it only with `ipoib: true`
	 * (OpenSM: "ipoib" flag). */
	if (!def || def->ipoib) {
		uint8_t mtu = def ? def->mtu : 4, rate = def ? def->rate : 3;

		mcast_ipoib_broadcast_mgid(mgid, 0xffff);
		g = mcast_create(&m->db, mgid, 0xffff, def ? def->qkey : 0x0B1B,
				 mtu, rate, true);
		if (!g)
			return -ENOMEM;
		log_info("multicast: IPoIB broadcast group of the default partition MLID 0x%04x MTU code %u rate code %u",
			 g->mlid, mtu, rate);
	}
	if (create_partition_groups(m, parts) < 0)
		return -ENOMEM;
	/* Groups the configuration predefines stay without members, as
	 * the broadcast group does (their MTU and rate as configured). */
	if (groups && mcast_spec_list(groups, create_predefined, m, why, sizeof(why)) < 0) {
		log_err("config: mcast_groups %s", why);
		return -EINVAL;
	}
	m->topo_gen = 1;
	return 0;
}

void sm_mcast_free(struct sm_mcast *m)
{
	mcast_db_free(&m->db);
	mft_held_free(&m->held);
	memset(m, 0, sizeof(*m));
}

int sm_mcast_dirty(const struct sm_mcast *m)
{
	return m->db.generation != m->programmed_gen ||
	       m->topo_gen != m->programmed_topo;
}

struct live_ports {
	uint64_t *guid;
	uint32_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool alive(void *arg, uint64_t guid)
{
	struct live_ports *l = arg;

	return bsearch(&guid, l->guid, l->n, sizeof(guid), cmp_u64) != NULL;
}

int sm_mcast_update(struct sm_mcast *m, struct mad_transport *t,
		    const struct subnet *r)
{
	const struct fabric *f = &r->fab;
	struct live_ports live = { 0 };
	struct mft_set want;
	struct mftprog_stats st = { 0 };
	double t0 = now_seconds();
	uint32_t dropped, members = 0;
	int rc;

	live.guid = malloc((f->num_ports + 1) * sizeof(uint64_t));
	if (!live.guid)
		return -ENOMEM;
	/* Members stay while their port is linked (a port that went down is
	 * unlinked in the sweep). */
	for (uint32_t p = 0; p < f->num_ports; p++)
		if (!fab_is_switch(f, f->ports[p].node) && f->ports[p].num &&
		    f->ports[p].peer != FAB_NONE)
			live.guid[live.n++] = f->ports[p].guid;
	qsort(live.guid, live.n, sizeof(uint64_t), cmp_u64);
	dropped = mcast_prune(&m->db, alive, &live);
	free(live.guid);
	if (dropped)
		log_info("multicast: %u members dropped (their ports are gone or down)", dropped);
	rc = mcast_compute_mfts(f, &m->db, &want);
	if (rc < 0)
		return rc;
	rc = mftprog_program(t, r, &want, &m->held, &st);
	mft_free(&want);
	for (uint32_t i = 0; i < m->db.num_groups; i++)
		members += m->db.groups[i].num_members;
	log_info("multicast: %u groups, %u members; MFT blocks %llu written, %llu unchanged, %u failed (%.3f s)",
		 m->db.num_groups, members, (unsigned long long)st.blocks_written,
		 (unsigned long long)st.blocks_unchanged, st.failed,
		 now_seconds() - t0);
	if (rc == 0 && !st.failed) {
		m->programmed_gen = m->db.generation;
		m->programmed_topo = m->topo_gen;
	}
	return rc;
}
