/* Multicast groups (IBA 15.2.5.17, 15.4.3): groups by MGID and MLID, their
 * members by port GUID with JoinState bits, and the join and leave rules
 * the SA applies to MCMemberRecord Set and Delete. Pure data: no MADs here
 * (multicast/mft_program.c programs the switches, sa/sa_mcmember.c speaks
 * the record). */
#ifndef IBSM_MULTICAST_MCAST_DB_H
#define IBSM_MULTICAST_MCAST_DB_H

#include <stdbool.h>
#include <stdint.h>

#define MCAST_MLID_BASE 0xC000          /* IBA 4.1.3: multicast LIDs */
#define MCAST_MLID_TOP 0xFFFE           /* 0xFFFF is the permissive LID */

/* JoinState bits (IBA Table 220). */
#define MCAST_FULL 0x1
#define MCAST_NON 0x2
#define MCAST_SENDONLY 0x4

struct mcast_member {
	uint64_t port_guid;
	uint8_t join_state;
};

struct mcast_group {
	uint8_t mgid[16];
	uint16_t mlid;
	uint16_t pkey;
	uint32_t qkey;
	uint8_t mtu, rate;              /* IBA encodings */
	uint8_t sl, tclass, hop_limit;
	uint32_t flow_label;
	bool predefined;                /* stays without members */
	uint64_t creator;               /* port GUID that created it while
					 * that port is still a member (its
					 * quota, sa/sa_quota.h); 0 after */
	struct mcast_member *members;
	uint32_t num_members, cap_members;
};

struct mcast_db {
	struct mcast_group *groups;
	uint32_t num_groups, cap_groups;
	uint32_t next_mgid;             /* for SM-assigned MGIDs */
	uint32_t generation;            /* bumped on every membership change */
};

void mcast_db_init(struct mcast_db *db);
void mcast_db_free(struct mcast_db *db);

struct mcast_group *mcast_find_mgid(struct mcast_db *db, const uint8_t *mgid);
struct mcast_group *mcast_find_mlid(struct mcast_db *db, uint16_t mlid);
/* A new group (predefined ones: the IPoIB broadcast group, config).
 * mgid all zero: the SM assigns one (ff12:a01b:<pkey>::<n>). Returns the
 * group, or NULL when out of MLIDs or memory. */
struct mcast_group *mcast_create(struct mcast_db *db, const uint8_t *mgid,
				 uint16_t pkey, uint32_t qkey, uint8_t mtu,
				 uint8_t rate, bool predefined);
/* A group as a previous run of the SM kept it (sa/sa_persist.h): merged
 * into the group with its MGID if there is one (a predefined group keeps
 * its parameters), else created with g's parameters, not predefined
 * (whatever g says: the configuration says what is); either takes g's
 * MLID when no other group holds it. Members are not copied. Returns the
 * group, or NULL when out of MLIDs or memory. */
struct mcast_group *mcast_restore(struct mcast_db *db, const struct mcast_group *g);
struct mcast_member *mcast_member_find(struct mcast_group *g, uint64_t port_guid);
/* Add join-state bits for a port (created if new). 0 or -ENOMEM. */
int mcast_join(struct mcast_db *db, struct mcast_group *g, uint64_t port_guid,
	       uint8_t join_state);
/* Remove join-state bits; a member with none left goes; a group with no
 * full member left goes (with its other members) unless predefined.
 * Returns the bits that were removed. g is invalid afterwards. */
uint8_t mcast_leave(struct mcast_db *db, struct mcast_group *g,
		    uint64_t port_guid, uint8_t join_state);
/* Drop every member whose port is not in the live set (sorted GUIDs). */
uint32_t mcast_prune(struct mcast_db *db, bool (*alive)(void *arg, uint64_t guid),
		     void *arg);

/* Groups port_guid created and is still in; groups it is a member of. */
uint32_t mcast_count_created(const struct mcast_db *db, uint64_t port_guid);
uint32_t mcast_count_joined(const struct mcast_db *db, uint64_t port_guid);

/* The IPoIB broadcast group of the default partition (RFC 4391):
 * ff12:401b:ffff::ffff:ffff. */
void mcast_ipoib_broadcast_mgid(uint8_t *mgid, uint16_t pkey);

#endif
