/* Partitions as the configuration defines them (key `partitions`,
 * docs/partitions.md): a name, a 15-bit P_Key, members by port GUID or
 * by the OpenSM keywords ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF,
 * each a full or a limited member (IBA 10.9.1: the top bit of a P_Key
 * table entry is the membership, not part of the partition number), and
 * an optional IPoIB broadcast group. Pure data and parsing; which ports
 * hold which P_Keys is partition/part_table.h. */
#ifndef IBSM_PARTITION_PART_CONF_H
#define IBSM_PARTITION_PART_CONF_H

#include <stddef.h>
#include <stdint.h>

#define PART_DEFAULT_PKEY 0x7FFF        /* IBA 10.9.1.2: the default partition */
#define PART_FULL_BIT 0x8000

enum part_member_kind {
	PM_GUID,                /* one port, by port GUID */
	PM_ALL,                 /* every end port */
	PM_ALL_CAS,             /* every CA port */
	PM_ALL_SWITCHES,        /* every switch port 0 */
	PM_ALL_ROUTERS,         /* every router port */
	PM_SELF,                /* the SM's own port */
};

struct part_member {
	uint64_t guid;          /* PM_GUID */
	uint8_t kind;           /* enum part_member_kind */
	uint8_t full;           /* 1 full, 0 limited member */
};

struct part_def {
	char name[64];
	uint16_t pkey;          /* 15-bit partition number, 1..0x7FFF */
	uint8_t defmember_full; /* membership of members named without one */
	uint8_t ipoib;          /* create the IPoIB broadcast group */
	uint8_t mtu, rate;      /* of that group (IBA codes; default 4, 3) */
	uint32_t qkey;          /* of that group (default 0x0B1B) */
	struct part_member *m;
	uint32_t n, cap;
	unsigned line;          /* where the config defined it (messages) */
};

struct part_conf {
	struct part_def *p;
	uint32_t n, cap;
};

/* One member "GUID[=full|limited|both]" or "KEYWORD[=...]"; without a
 * membership the partition's defmember applies ("both" is full, as in
 * OpenSM without allow_both_pkeys). 0, or -EINVAL with why. */
int part_member_parse(const char *text, int defmember_full,
		      struct part_member *out, char *why, size_t whylen);
/* "full", "limited" or "both": 1, 0, 1; anything else -1. */
int part_membership_parse(const char *text);

/* A new partition with the defaults (defmember limited, no IPoIB, MTU 4,
 * rate 3, Q_Key 0x0B1B); NULL on ENOMEM. */
struct part_def *part_conf_add(struct part_conf *c);
int part_def_add_member(struct part_def *d, const struct part_member *m);
/* Cross-entry checks: duplicate P_Keys or names. 0, or -EINVAL with why
 * naming the line. */
int part_conf_check(const struct part_conf *c, char *why, size_t whylen);
/* The entry for the default partition 0x7FFF, or NULL. */
const struct part_def *part_conf_default(const struct part_conf *c);
void part_conf_free(struct part_conf *c);
/* A deep copy (NULL src: NULL). NULL also on ENOMEM (errno set). */
struct part_conf *part_conf_dup(const struct part_conf *src);
/* Text of a member as the config writes it ("0x...=full", "ALL=limited"). */
void part_member_format(const struct part_member *m, char *buf, size_t len);

#endif
