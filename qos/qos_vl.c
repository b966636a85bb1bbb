/* SL2VL and VL arbitration tables from the QoS options (qos/qos_vl.h). */
#include "qos_vl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenSM's defaults (its OSM_DEFAULT_QOS_*): VL 0 high priority, the
 * other 14 data VLs low priority with equal weights, SL n on VL n and
 * SL 15 on VL 7. */
#define DEFAULT_MAX_VLS 15
#define DEFAULT_HIGH_LIMIT 0
#define DEFAULT_VLARB_HIGH "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0"
#define DEFAULT_VLARB_LOW "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"
#define DEFAULT_SL2VL "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

static const char *const prefixes[QOS_PT_NUM] = {
	"qos", "qos_ca", "qos_sw0", "qos_swe", "qos_rtr",
};

const char *qos_port_type_prefix(enum qos_port_type t)
{
	return t < QOS_PT_NUM ? prefixes[t] : "?";
}

void qos_vl_defaults(struct qos_vl_keys *k)
{
	k->max_vls = DEFAULT_MAX_VLS;
	k->high_limit = DEFAULT_HIGH_LIMIT;
	snprintf(k->vlarb_high, sizeof(k->vlarb_high), "%s", DEFAULT_VLARB_HIGH);
	snprintf(k->vlarb_low, sizeof(k->vlarb_low), "%s", DEFAULT_VLARB_LOW);
	snprintf(k->sl2vl, sizeof(k->sl2vl), "%s", DEFAULT_SL2VL);
}

/* One number at *s, at most max; *s moves past it and its blanks. */
static int number(const char **s, unsigned long max, unsigned long *v)
{
	char *end;

	while (isspace((unsigned char)**s))
		(*s)++;
	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	*v = strtoul(*s, &end, 0);
	if (errno || *v > max)
		return -1;
	*s = end;
	while (isspace((unsigned char)**s))
		(*s)++;
	return 0;
}

int qos_vl_parse_sl2vl(const char *s, uint8_t vl[16], char *err, size_t errlen)
{
	unsigned n = 0;

	while (*s) {
		unsigned long v;

		if (n == 16) {
			snprintf(err, errlen, "more than 16 VLs (one per SL)");
			return -1;
		}
		if (number(&s, 15, &v)) {
			snprintf(err, errlen, "VL of SL %u: a number 0..15 expected", n);
			return -1;
		}
		vl[n++] = (uint8_t)v;
		if (*s == ',')
			s++;
		else if (*s) {
			snprintf(err, errlen, "',' expected after the VL of SL %u", n - 1);
			return -1;
		}
	}
	if (n != 16) {
		snprintf(err, errlen, "%u VLs given, 16 expected (one per SL, SL 0 first)", n);
		return -1;
	}
	return 0;
}

int qos_vl_parse_vlarb(const char *s, uint8_t e[QOS_VLARB_ENTRIES][2],
		       char *err, size_t errlen)
{
	unsigned n = 0;

	memset(e, 0, QOS_VLARB_ENTRIES * 2);
	while (*s) {
		unsigned long vl, w;

		if (n == QOS_VLARB_ENTRIES) {
			snprintf(err, errlen, "more than %u entries", QOS_VLARB_ENTRIES);
			return -1;
		}
		if (number(&s, 14, &vl)) {
			snprintf(err, errlen, "entry %u: VL:weight expected, VL 0..14", n + 1);
			return -1;
		}
		if (*s++ != ':' || number(&s, 255, &w)) {
			snprintf(err, errlen, "entry %u: VL:weight expected, weight 0..255", n + 1);
			return -1;
		}
		e[n][0] = (uint8_t)vl;
		e[n][1] = (uint8_t)w;
		n++;
		if (*s == ',')
			s++;
		else if (*s) {
			snprintf(err, errlen, "entry %u: ',' expected after it", n);
			return -1;
		}
	}
	if (!n) {
		snprintf(err, errlen, "no entries (VL:weight, ...)");
		return -1;
	}
	return 0;
}

/* The text of a key: the port type's, else the general one, else the
 * default. */
static const char *pick(const char *own, const char *all, const char *dflt)
{
	return own[0] ? own : all[0] ? all : dflt;
}

void qos_vl_build(struct qos_vl_table *t, const struct qos_vl_keys *keys,
		  enum qos_port_type type)
{
	const struct qos_vl_keys *own = &keys[type], *all = &keys[QOS_PT_ALL];
	char err[128];

	memset(t, 0, sizeof(*t));
	t->max_vls = (uint8_t)(own->max_vls ? own->max_vls :
			       all->max_vls ? all->max_vls : DEFAULT_MAX_VLS);
	t->high_limit = (uint8_t)(own->high_limit >= 0 ? own->high_limit :
				  all->high_limit >= 0 ? all->high_limit :
				  DEFAULT_HIGH_LIMIT);
	if (qos_vl_parse_sl2vl(pick(own->sl2vl, all->sl2vl, DEFAULT_SL2VL),
			       t->sl2vl, err, sizeof(err)))
		qos_vl_parse_sl2vl(DEFAULT_SL2VL, t->sl2vl, err, sizeof(err));
	if (qos_vl_parse_vlarb(pick(own->vlarb_high, all->vlarb_high, DEFAULT_VLARB_HIGH),
			       t->high, err, sizeof(err)))
		qos_vl_parse_vlarb(DEFAULT_VLARB_HIGH, t->high, err, sizeof(err));
	if (qos_vl_parse_vlarb(pick(own->vlarb_low, all->vlarb_low, DEFAULT_VLARB_LOW),
			       t->low, err, sizeof(err)))
		qos_vl_parse_vlarb(DEFAULT_VLARB_LOW, t->low, err, sizeof(err));
}

/* The VLs a port runs as a mask: OperationalVLs 1..5 -> 0, 1, 3, 7, 15
 * (0, a non-compliant port, counts as 1 as OpenSM counts it). */
static unsigned vl_mask(unsigned oper_vls)
{
	if (oper_vls < 1)
		oper_vls = 1;
	if (oper_vls > 5)
		oper_vls = 5;
	return (1u << (oper_vls - 1)) - 1;
}

void qos_vl_sl2vl_wire(const struct qos_vl_table *t, unsigned oper_vls,
		       uint8_t out[8])
{
	unsigned mask = vl_mask(oper_vls);

	memset(out, 0, 8);
	for (unsigned sl = 0; sl < 16; sl++) {
		unsigned vl = t->sl2vl[sl];

		/* VL 15 drops the SL's packets (IBA 7.6.6): kept as asked. */
		if (vl != 15)
			vl &= mask;
		out[sl / 2] |= (uint8_t)(sl % 2 ? vl : vl << 4);
	}
}

unsigned qos_vl_vlarb_wire(const struct qos_vl_table *t, unsigned block,
			   unsigned oper_vls, unsigned cap, uint8_t out[64])
{
	const uint8_t (*e)[2] = block <= 2 ? t->low : t->high;
	unsigned first = block == 2 || block == 4 ? 32 : 0;
	unsigned mask = vl_mask(oper_vls), len;

	memset(out, 0, 64);
	if (block < 1 || block > 4 || cap <= first)
		return 0;
	len = cap - first < 32 ? cap - first : 32;
	for (unsigned i = 0; i < len; i++) {
		out[2 * i] = (uint8_t)(e[first + i][0] & mask);   /* reserved:4, VL:4 */
		out[2 * i + 1] = e[first + i][1];
	}
	return len;
}
