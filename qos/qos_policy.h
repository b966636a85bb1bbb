/* QoS policy: OpenSM's qos-policy.conf as it is (port-groups, qos-levels,
 * qos-ulps, qos-match-rules; qos-setup is skipped, as OpenSM skips it) and
 * the choice of a QoS level for a PathRecord/MultiPathRecord request.
 *
 * How a request finds its level (OpenSM's order, docs/qos.md):
 *   1. the first rule of qos-match-rules whose every criterion matches;
 *   2. else the first rule of qos-ulps (they are rules with one criterion);
 *   3. else the level named DEFAULT, else the SL of "default" in qos-ulps.
 * A rule criterion on service ID, P_Key or QoS class matches only when the
 * request has that component (a rule on service IDs never matches a
 * request without one); a P_Key compares without its membership bit.
 *
 * No I/O beyond reading the file, no logging: errors come back as
 * "file:line: message" in the caller's buffer. */
#ifndef IBSM_QOS_QOS_POLICY_H
#define IBSM_QOS_QOS_POLICY_H

#include <stddef.h>
#include <stdint.h>

struct qos_range {
	uint64_t lo, hi;
};

struct qos_ranges {
	struct qos_range *r;
	unsigned n;
};

enum qos_node_type_bit {
	QOS_NT_CA = 1, QOS_NT_SWITCH = 2, QOS_NT_ROUTER = 4, QOS_NT_SELF = 8,
	QOS_NT_ALL = 7,
};

struct qos_port_group {
	char *name, *use;
	struct qos_ranges guids;    /* port GUIDs */
	struct qos_ranges pkeys;    /* members of these partitions (15 bits) */
	char **port_names;          /* "NodeDescription/Pnum" */
	unsigned num_port_names;
	char **partitions;          /* partition names, resolved to pkeys */
	unsigned num_partitions;
	unsigned node_types;        /* enum qos_node_type_bit */
};

struct qos_level {
	char *name, *use;
	uint8_t sl, mtu_limit, rate_limit, pkt_life;
	unsigned sl_set : 1, mtu_set : 1, rate_set : 1, pkt_life_set : 1;
	struct qos_ranges pkeys;
	unsigned line;
};

struct qos_rule {
	char *use;
	unsigned *src, *dst;        /* port group indexes */
	unsigned num_src, num_dst;
	struct qos_ranges service_ids, pkeys, qos_classes;
	unsigned level;             /* index into levels */
	unsigned line;
	int from_ulps;              /* a qos-ulps entry: tried after qos-match-rules */
};

struct qos_policy {
	char *file;
	struct qos_port_group *groups;
	unsigned num_groups;
	struct qos_level *levels;
	unsigned num_levels;
	struct qos_rule *rules;     /* in file order, both sections */
	unsigned num_rules, num_match_rules;
	int default_level;          /* index, or -1 */
};

/* Read and check a policy file. Returns a new policy, or NULL with
 * "file:line: why" in err. */
struct qos_policy *qos_policy_read(const char *file, char *err, size_t errlen);
/* The same from text in memory; name stands for the file in messages. */
struct qos_policy *qos_policy_parse(const char *name, const char *text,
				    char *err, size_t errlen);
void qos_policy_free(struct qos_policy *p);

/* Partition names of port groups become P_Key ranges: lookup returns the
 * P_Key of a name or -1. Returns 0, or -1 with "file: port group G:
 * unknown partition N" in err. */
int qos_policy_resolve_partitions(struct qos_policy *p,
				  int (*lookup)(void *arg, const char *name),
				  void *arg, char *err, size_t errlen);

/* What the matcher needs to know of a port. */
struct qos_port {
	uint64_t guid;
	unsigned node_type;         /* one QOS_NT_ bit, | QOS_NT_SELF for ours */
	uint8_t port_num;
	const char *node_desc;
	int (*has_pkey)(void *arg, uint16_t pkey15);
	void *arg;
};

struct qos_request {
	uint64_t service_id;
	uint16_t pkey;
	uint16_t qos_class;         /* 12 bits */
	unsigned has_sid : 1, has_pkey : 1, has_class : 1;
};

/* The level for a request from src to dst; NULL: the policy has none
 * (no DEFAULT level and no rule matched). */
const struct qos_level *qos_policy_level(const struct qos_policy *p,
					 const struct qos_request *q,
					 const struct qos_port *src,
					 const struct qos_port *dst);

int qos_ranges_has(const struct qos_ranges *r, uint64_t v);

#endif
