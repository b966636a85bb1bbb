/* Multicast group database. */
#include "mcast_db.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/grow.h"

void mcast_db_init(struct mcast_db *db)
{
	memset(db, 0, sizeof(*db));
}

void mcast_db_free(struct mcast_db *db)
{
	for (uint32_t i = 0; i < db->num_groups; i++)
		free(db->groups[i].members);
	free(db->groups);
	memset(db, 0, sizeof(*db));
}

struct mcast_group *mcast_find_mgid(struct mcast_db *db, const uint8_t *mgid)
{
	for (uint32_t i = 0; i < db->num_groups; i++)
		if (!memcmp(db->groups[i].mgid, mgid, 16))
			return &db->groups[i];
	return NULL;
}

struct mcast_group *mcast_find_mlid(struct mcast_db *db, uint16_t mlid)
{
	for (uint32_t i = 0; i < db->num_groups; i++)
		if (db->groups[i].mlid == mlid)
			return &db->groups[i];
	return NULL;
}

/* The lowest multicast LID no group uses. */
static uint16_t free_mlid(struct mcast_db *db)
{
	for (uint32_t l = MCAST_MLID_BASE; l <= MCAST_MLID_TOP; l++)
		if (!mcast_find_mlid(db, (uint16_t)l))
			return (uint16_t)l;
	return 0;
}

void mcast_ipoib_broadcast_mgid(uint8_t *mgid, uint16_t pkey)
{
	static const uint8_t bc[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

	memcpy(mgid, bc, 16);
	mgid[4] = (uint8_t)(pkey >> 8);
	mgid[5] = (uint8_t)pkey;
}

struct mcast_group *mcast_create(struct mcast_db *db, const uint8_t *mgid,
				 uint16_t pkey, uint32_t qkey, uint8_t mtu,
				 uint8_t rate, bool predefined)
{
	static const uint8_t zero[16];
	struct mcast_group *g;
	uint16_t mlid = free_mlid(db);

	if (!mlid || (memcmp(mgid, zero, 16) && mcast_find_mgid(db, mgid)))
		return NULL;                    /* no MLID left, or MGID taken */
	if (grow_array((void **)&db->groups, &db->cap_groups,
		       db->num_groups + 1, sizeof(*db->groups), 16))
		return NULL;
	g = &db->groups[db->num_groups++];
	memset(g, 0, sizeof(*g));
	if (memcmp(mgid, zero, 16)) {
		memcpy(g->mgid, mgid, 16);
	} else {
		/* SM-assigned (IBA 15.4.3): link-local scope, a signature
		 * no IPoIB or other ULP mapping uses, the P_Key, a number. */
		uint32_t n = ++db->next_mgid;

		g->mgid[0] = 0xff;
		g->mgid[1] = 0x12;
		g->mgid[2] = 0xa0;
		g->mgid[3] = 0x1b;
		g->mgid[4] = (uint8_t)(pkey >> 8);
		g->mgid[5] = (uint8_t)pkey;
		g->mgid[12] = (uint8_t)(n >> 24);
		g->mgid[13] = (uint8_t)(n >> 16);
		g->mgid[14] = (uint8_t)(n >> 8);
		g->mgid[15] = (uint8_t)n;
	}
	g->mlid = mlid;
	g->pkey = pkey;
	g->qkey = qkey;
	g->mtu = mtu;
	g->rate = rate;
	g->predefined = predefined;
	db->generation++;
	return g;
}

struct mcast_group *mcast_restore(struct mcast_db *db, const struct mcast_group *g)
{
	struct mcast_group *n = mcast_find_mgid(db, g->mgid);
	int mlid_free = g->mlid >= MCAST_MLID_BASE && g->mlid <= MCAST_MLID_TOP &&
			!mcast_find_mlid(db, g->mlid);

	if (!n) {
		/* Predefined are only the groups configured now (made
		 * before this): one dropped from the configuration goes
		 * with its last full member. */
		n = mcast_create(db, g->mgid, g->pkey, g->qkey, g->mtu, g->rate,
				 false);
		if (!n)
			return NULL;
		n->sl = g->sl;
		n->tclass = g->tclass;
		n->hop_limit = g->hop_limit;
		n->flow_label = g->flow_label;
	}
	if (mlid_free && n->mlid != g->mlid) {
		n->mlid = g->mlid;
		db->generation++;
	}
	return n;
}

struct mcast_member *mcast_member_find(struct mcast_group *g, uint64_t port_guid)
{
	for (uint32_t i = 0; i < g->num_members; i++)
		if (g->members[i].port_guid == port_guid)
			return &g->members[i];
	return NULL;
}

int mcast_join(struct mcast_db *db, struct mcast_group *g, uint64_t port_guid,
	       uint8_t join_state)
{
	struct mcast_member *m = mcast_member_find(g, port_guid);

	if (!m) {
		if (grow_array((void **)&g->members, &g->cap_members,
			       g->num_members + 1, sizeof(*g->members), 8))
			return -ENOMEM;
		m = &g->members[g->num_members++];
		m->port_guid = port_guid;
		m->join_state = 0;
	}
	if ((m->join_state | join_state) != m->join_state)
		db->generation++;
	m->join_state |= join_state;
	return 0;
}

static void remove_group(struct mcast_db *db, struct mcast_group *g)
{
	uint32_t i = (uint32_t)(g - db->groups);

	free(g->members);
	memmove(&db->groups[i], &db->groups[i + 1],
		(db->num_groups - i - 1) * sizeof(*g));
	db->num_groups--;
	db->generation++;
}

static bool has_full_member(const struct mcast_group *g)
{
	for (uint32_t i = 0; i < g->num_members; i++)
		if (g->members[i].join_state & MCAST_FULL)
			return true;
	return false;
}

uint8_t mcast_leave(struct mcast_db *db, struct mcast_group *g,
		    uint64_t port_guid, uint8_t join_state)
{
	struct mcast_member *m = mcast_member_find(g, port_guid);
	uint8_t removed;

	if (!m)
		return 0;
	removed = m->join_state & join_state;
	m->join_state &= (uint8_t)~join_state;
	if (removed)
		db->generation++;
	if (!m->join_state) {
		if (g->creator == port_guid)
			g->creator = 0;
		*m = g->members[--g->num_members];
	}
	/* IBA 15.4.3 (o15-0.1.13): the group is deleted when its last full
	 * member leaves, whoever else is still in it. */
	if (!g->predefined && !has_full_member(g))
		remove_group(db, g);
	return removed;
}

uint32_t mcast_prune(struct mcast_db *db, bool (*alive)(void *arg, uint64_t guid),
		     void *arg)
{
	uint32_t dropped = 0;

	for (uint32_t i = 0; i < db->num_groups;) {
		struct mcast_group *g = &db->groups[i];

		for (uint32_t k = 0; k < g->num_members;) {
			if (alive(arg, g->members[k].port_guid)) {
				k++;
				continue;
			}
			if (g->creator == g->members[k].port_guid)
				g->creator = 0;
			g->members[k] = g->members[--g->num_members];
			dropped++;
			db->generation++;
		}
		if (!g->predefined && !has_full_member(g))
			remove_group(db, g);
		else
			i++;
	}
	return dropped;
}

uint32_t mcast_count_created(const struct mcast_db *db, uint64_t port_guid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < db->num_groups; i++)
		n += db->groups[i].creator == port_guid;
	return n;
}

uint32_t mcast_count_joined(const struct mcast_db *db, uint64_t port_guid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < db->num_groups; i++)
		for (uint32_t k = 0; k < db->groups[i].num_members; k++)
			if (db->groups[i].members[k].port_guid == port_guid) {
				n++;
				break;
			}
	return n;
}
