/* Predefined multicast groups from the configuration (mcast_spec.h). */
#include "mcast_spec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = 0;
	return s;
}

static int number(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(v, &end, 0);
	return errno || end == v || *end || *out > max ? -1 : 0;
}

int mcast_spec_parse(const char *text, struct mcast_spec *out, char *err,
		     size_t errlen)
{
	char buf[512], *save = NULL, *tok;
	int first = 1;

	memset(out, 0, sizeof(*out));
	out->pkey = 0xFFFF;
	out->qkey = 0x0B1B;
	out->mtu = 4;
	out->rate = 3;
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *t = trim(tok), *eq;
		unsigned long v;

		if (first) {
			first = 0;
			if (inet_pton(AF_INET6, t, out->mgid) != 1) {
				snprintf(err, errlen, "'%s' is not a GID (want e.g. ff12:601b:ffff::1)", t);
				return -EINVAL;
			}
			/* IBA 4.1.1: multicast GIDs start with 0xFF. */
			if (out->mgid[0] != 0xFF) {
				snprintf(err, errlen, "%s is not a multicast GID (first byte must be ff)", t);
				return -EINVAL;
			}
			continue;
		}
		eq = strchr(t, '=');
		if (!eq) {
			snprintf(err, errlen, "'%s': want key=value (pkey, qkey, mtu, rate)", t);
			return -EINVAL;
		}
		*eq = 0;
		{
			char *k = trim(t), *val = trim(eq + 1);

			if (!strcasecmp(k, "pkey")) {
				/* The full member bit is set by members, not groups. */
				if (number(val, 0xFFFF, &v) || !(v & 0x7FFF)) {
					snprintf(err, errlen, "pkey '%s': want 0x0001..0xFFFF", val);
					return -EINVAL;
				}
				out->pkey = (uint16_t)(v | 0x8000);
			} else if (!strcasecmp(k, "qkey")) {
				if (number(val, 0xFFFFFFFFul, &v)) {
					snprintf(err, errlen, "qkey '%s': want a 32-bit number", val);
					return -EINVAL;
				}
				out->qkey = (uint32_t)v;
			} else if (!strcasecmp(k, "mtu")) {
				if (number(val, 5, &v) || v < 1) {
					snprintf(err, errlen, "mtu '%s': want 1..5 (256..4096 bytes)", val);
					return -EINVAL;
				}
				out->mtu = (uint8_t)v;
			} else if (!strcasecmp(k, "rate")) {
				if (number(val, 18, &v) || v < 2) {
					snprintf(err, errlen, "rate '%s': want an IBA rate code 2..18", val);
					return -EINVAL;
				}
				out->rate = (uint8_t)v;
			} else {
				snprintf(err, errlen, "unknown key '%s' (pkey, qkey, mtu, rate)", k);
				return -EINVAL;
			}
		}
	}
	if (first) {
		snprintf(err, errlen, "empty entry (want MGID[, key=value]...)");
		return -EINVAL;
	}
	return 0;
}

int mcast_spec_list(const char *list,
		    int (*fn)(void *ctx, const struct mcast_spec *s), void *ctx,
		    char *err, size_t errlen)
{
	const char *p = list;
	int n = 0;

	while (p && *p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char entry[512], why[256];
		struct mcast_spec s;

		if (len >= sizeof(entry)) {
			snprintf(err, errlen, "entry %d: longer than %zu characters", n + 1,
				 sizeof(entry) - 1);
			return -EINVAL;
		}
		memcpy(entry, p, len);
		entry[len] = 0;
		n++;
		if (mcast_spec_parse(entry, &s, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "entry %d: %s", n, why);
			return -EINVAL;
		}
		if (fn && fn(ctx, &s) < 0) {
			snprintf(err, errlen, "entry %d: cannot create the group (MGID twice, or no MLID left)", n);
			return -EINVAL;
		}
		p = end ? end + 1 : NULL;
	}
	return n;
}
