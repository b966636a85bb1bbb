/* A QoS policy kept as qos-policy.conf text with a line map (qos/qos_src.h). */
#include "qos_src.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos_policy.h"

struct qos_src *qos_src_new(const char *origin)
{
	struct qos_src *s = calloc(1, sizeof(*s));

	if (!s || !(s->origin = strdup(origin))) {
		free(s);
		return NULL;
	}
	return s;
}

int qos_src_add(struct qos_src *s, unsigned at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (s->len + (size_t)n + 2 > s->size) {
		size_t size = (s->size ? s->size * 2 : 1024) + (size_t)n;
		char *t = realloc(s->text, size);

		if (!t)
			return -1;
		s->text = t;
		s->size = size;
	}
	if (s->nlines == s->cap) {
		unsigned cap = s->cap ? s->cap * 2 : 64;
		unsigned *l = realloc(s->line, cap * sizeof(*l));

		if (!l)
			return -1;
		s->line = l;
		s->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(s->text + s->len, s->size - s->len, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
	s->text[s->len++] = '\n';
	s->text[s->len] = 0;
	s->line[s->nlines++] = at;
	return 0;
}

struct qos_src *qos_src_dup(const struct qos_src *s)
{
	struct qos_src *d = qos_src_new(s->origin);

	if (!d)
		return NULL;
	d->text = malloc(s->size ? s->size : 1);
	d->line = malloc((s->cap ? s->cap : 1) * sizeof(*d->line));
	if (!d->text || !d->line) {
		qos_src_free(d);
		return NULL;
	}
	if (s->text)
		memcpy(d->text, s->text, s->len + 1);
	else
		d->text[0] = 0;
	memcpy(d->line, s->line, s->nlines * sizeof(*d->line));
	d->len = s->len;
	d->size = s->size ? s->size : 1;
	d->nlines = s->nlines;
	d->cap = s->cap ? s->cap : 1;
	return d;
}

void qos_src_free(struct qos_src *s)
{
	if (!s)
		return;
	free(s->origin);
	free(s->text);
	free(s->line);
	free(s);
}

int qos_src_same(const struct qos_src *a, const struct qos_src *b)
{
	if (!a || !b)
		return a == b;
	return a->len == b->len && (!a->len || !memcmp(a->text, b->text, a->len));
}

static unsigned map_line(const struct qos_src *s, unsigned long l)
{
	return l >= 1 && l <= s->nlines ? s->line[l - 1] : 0;
}

/* err says "origin:N: ... line M ...": N and every M are lines of the
 * text; write them as origin's. */
static void remap(const struct qos_src *s, char *err, size_t errlen)
{
	size_t olen = strlen(s->origin);
	char out[1024], *p = err;
	size_t o = 0;

	if (strncmp(err, s->origin, olen) || err[olen] != ':')
		return;
	o = (size_t)snprintf(out, sizeof(out), "%s", s->origin);
	p = err + olen;
	if (isdigit((unsigned char)p[1])) {
		char *end;
		unsigned long l = strtoul(p + 1, &end, 10);

		o += (size_t)snprintf(out + o, sizeof(out) - o, ":%u", map_line(s, l));
		p = end;
	}
	while (*p && o + 1 < sizeof(out)) {
		if (!strncmp(p, "line ", 5) && isdigit((unsigned char)p[5])) {
			char *end;
			unsigned long l = strtoul(p + 5, &end, 10);

			o += (size_t)snprintf(out + o, sizeof(out) - o, "line %u", map_line(s, l));
			p = end;
			continue;
		}
		out[o++] = *p++;
	}
	out[o < sizeof(out) ? o : sizeof(out) - 1] = 0;
	snprintf(err, errlen, "%s", out);
}

struct qos_policy *qos_src_parse(const struct qos_src *s, char *err, size_t errlen)
{
	struct qos_policy *p = qos_policy_parse(s->origin, s->text ? s->text : "",
						err, errlen);

	if (!p)
		remap(s, err, errlen);
	return p;
}
