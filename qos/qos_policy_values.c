/* Values of qos-policy.conf fields (qos_policy.c reads the file): numbers,
 * lists and ranges, names; every error names the file and line. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos_policy_parser.h"

int qp_fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = ps->line ? snprintf(ps->err, ps->errlen, "%s:%u: ", ps->file, ps->line) :
		snprintf(ps->err, ps->errlen, "%s: ", ps->file);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Grow an array by one zeroed element; NULL when out of memory. */
void *qp_grow(void *arr, unsigned *n, size_t size)
{
	char *a = realloc(arr, (*n + 1) * size);

	if (!a)
		return NULL;
	memset(a + *n * size, 0, size);
	(*n)++;
	return a;
}

int qp_parse_u64(struct parser *ps, const char *s, uint64_t *v)
{
	char *end;
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (!*s || !(hex ? isxdigit((unsigned char)s[2]) : isdigit((unsigned char)*s)))
		return qp_fail(ps, "bad number '%s'", s);
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	if (errno || *end)
		return qp_fail(ps, "bad number '%s'", s);
	return 0;
}

int qp_parse_small(struct parser *ps, const char *key, char *s,
		   unsigned lo, unsigned hi, uint8_t *out)
{
	uint64_t v;

	if (qp_parse_u64(ps, input_trim(s), &v) < 0)
		return -1;
	if (v < lo || v > hi)
		return qp_fail(ps, "%s %llu out of range %u-%u", key,
			    (unsigned long long)v, lo, hi);
	*out = (uint8_t)v;
	return 0;
}

/* "a, b-c, ..." appended to r; max bounds every value. */
int qp_parse_ranges(struct parser *ps, const char *key, char *s,
		    uint64_t max, struct qos_ranges *r)
{
	char *save = NULL, *tok;

	if (!*input_trim(s))
		return qp_fail(ps, "%s: empty list", key);
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash, *a = input_trim(tok);
		uint64_t lo, hi;
		struct qos_range *nr;

		dash = strchr(a, '-');
		if (dash)
			*dash = 0;
		if (qp_parse_u64(ps, input_trim(a), &lo) < 0 ||
		    qp_parse_u64(ps, dash ? input_trim(dash + 1) : input_trim(a), &hi) < 0)
			return -1;
		if (lo > hi)
			return qp_fail(ps, "%s: range 0x%llx-0x%llx: low end above high end",
				    key, (unsigned long long)lo, (unsigned long long)hi);
		if (hi > max)
			return qp_fail(ps, "%s: 0x%llx above 0x%llx", key,
				    (unsigned long long)hi, (unsigned long long)max);
		if (!(nr = qp_grow(r->r, &r->n, sizeof(*r->r))))
			return qp_fail(ps, "out of memory");
		r->r = nr;
		nr[r->n - 1].lo = lo;
		nr[r->n - 1].hi = hi;
	}
	return 0;
}

/* A comma separated list of names (quotes allowed) appended to *v. */
int qp_parse_names(struct parser *ps, const char *key, char *s,
		   char ***v, unsigned *n)
{
	char *save = NULL, *tok;

	if (!*input_trim(s))
		return qp_fail(ps, "%s: empty list", key);
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *a = input_trim(tok), **nv;
		size_t l = strlen(a);

		if (l >= 2 && a[0] == '"' && a[l - 1] == '"') {
			a[l - 1] = 0;
			a++;
		}
		if (!*a)
			return qp_fail(ps, "%s: empty name in list", key);
		if (!(nv = qp_grow(*v, n, sizeof(**v))) || !(nv[*n - 1] = strdup(a))) {
			if (nv)
				*v = nv;
			return qp_fail(ps, "out of memory");
		}
		*v = nv;
	}
	return 0;
}

/* A name or description; double quotes around it are not part of it. */
int qp_set_str(struct parser *ps, char **dst, const char *v)
{
	size_t l = strlen(v);

	free(*dst);
	if (l >= 2 && v[0] == '"' && v[l - 1] == '"')
		*dst = strndup(v + 1, l - 2);
	else
		*dst = strdup(v);
	if (!*dst)
		return qp_fail(ps, "out of memory");
	return 0;
}
