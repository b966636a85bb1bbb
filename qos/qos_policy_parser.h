/* The qos-policy.conf reader's state, internal to qos/qos_policy*.c:
 * qos_policy.c reads the sections, qos_policy_values.c the values of
 * their fields, qos_policy_ulps.c the qos-ulps lines. Every function
 * that fails has put "file:line: what" into ps->err and returns -1. */
#ifndef IBSM_QOS_QOS_POLICY_PARSER_H
#define IBSM_QOS_QOS_POLICY_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "qos_policy.h"
#include "../core/input_file.h"

enum section { S_TOP, S_GROUPS, S_GROUP, S_SETUP, S_LEVELS, S_LEVEL,
	       S_RULES, S_RULE, S_ULPS };

struct ref {                    /* a name to resolve at the end */
	char *name;
	unsigned line, rule;
	int kind;                   /* 0 level, 1 source, 2 destination */
};

struct parser {
	struct qos_policy *p;
	const char *file;
	unsigned line, open_line;
	enum section sec;
	struct ref *refs;
	unsigned num_refs;
	int ulp_default_sl;         /* -1: none */
	unsigned ulp_default_line;
	int have_level_name;        /* the open rule named its level */
	char *err;
	size_t errlen;
};

/* qos_policy_values.c */
int qp_fail(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* One more zeroed element at the end of arr (n counts it), or NULL. */
void *qp_grow(void *arr, unsigned *n, size_t size);
int qp_parse_u64(struct parser *ps, const char *s, uint64_t *v);
int qp_parse_small(struct parser *ps, const char *key, char *s,
		   unsigned lo, unsigned hi, uint8_t *out);
int qp_parse_ranges(struct parser *ps, const char *key, char *s,
		    uint64_t max, struct qos_ranges *r);
int qp_parse_names(struct parser *ps, const char *key, char *s,
		   char ***v, unsigned *n);
int qp_set_str(struct parser *ps, char **dst, const char *v);

/* qos_policy_ulps.c: one line of the qos-ulps section; a level of its
 * own for a ULP rule (only an SL); a port group added to a rule's
 * sources (src) or destinations. */
int qp_ulp_line(struct parser *ps, char *s);
int qp_ulp_level(struct parser *ps, uint8_t sl, unsigned *idx);
int qp_add_group_ref(struct parser *ps, struct qos_rule *r, int src,
		     unsigned g);

#endif
