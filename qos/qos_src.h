/* A QoS policy written elsewhere than in a qos-policy.conf file (the
 * YAML configuration's `qos:` section, sm/config/config_qos.c): kept as the
 * qos-policy.conf text it stands for, with the line of the other file
 * each text line came from. One reader (qos_policy_parse) and one
 * meaning for both forms; errors name the other file's line. */
#ifndef IBSM_QOS_QOS_SRC_H
#define IBSM_QOS_QOS_SRC_H

#include <stddef.h>

struct qos_policy;

struct qos_src {
	char *origin;               /* the file the policy was written in */
	char *text;                 /* qos-policy.conf text */
	size_t len, size;
	unsigned *line;             /* line[i]: origin's line of text line i + 1 */
	unsigned nlines, cap;
};

/* A new, empty source for origin; NULL when out of memory. */
struct qos_src *qos_src_new(const char *origin);
/* Append one line of policy text that came from origin's line `at`.
 * 0, or -1 when out of memory. */
int qos_src_add(struct qos_src *s, unsigned at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct qos_src *qos_src_dup(const struct qos_src *s);
void qos_src_free(struct qos_src *s);
/* 1 when both hold the same policy text (or both are NULL). */
int qos_src_same(const struct qos_src *a, const struct qos_src *b);

/* The policy, or NULL with "origin:line: why" in err (the line being
 * origin's, as are line numbers within the message). */
struct qos_policy *qos_src_parse(const struct qos_src *s, char *err, size_t errlen);

#endif
