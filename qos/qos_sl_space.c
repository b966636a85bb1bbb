/* The SL space of QoS classes and routing layers (qos/qos_sl_space.h). */
#include "qos_sl_space.h"

#include <stdio.h>
#include <string.h>

#include "qos_policy.h"

/* A level without sl leaves the SL to the request: 0 if it asks none. */
static unsigned level_bit(const struct qos_level *l)
{
	return 1u << (l->sl_set ? l->sl & 15 : 0);
}

unsigned qos_sl_classes(const struct qos_policy *p, uint8_t sl[QOS_SL_NUM])
{
	unsigned seen = 0, n = 0;

	/* The levels a request can get: those of the rules (qos-ulps
	 * entries are rules with levels of their own) and the default. */
	for (unsigned i = 0; p && i < p->num_rules; i++)
		seen |= level_bit(&p->levels[p->rules[i].level]);
	if (p && p->default_level >= 0)
		seen |= level_bit(&p->levels[p->default_level]);
	/* A policy with nothing still routes on SL 0. */
	if (!seen)
		seen = 1;
	for (unsigned s = 0; s < QOS_SL_NUM; s++)
		if (seen >> s & 1)
			sl[n++] = (uint8_t)s;
	return n;
}

static void sort_u8(uint8_t *a, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j && a[j - 1] > a[j]; j--) {
			uint8_t t = a[j];

			a[j] = a[j - 1];
			a[j - 1] = t;
		}
}

/* Can every class start at its own SL and hold `layers` SLs? */
static int policy_bases_fit(const struct qos_sl_space *s)
{
	for (unsigned i = 0; i < s->num_classes; i++) {
		unsigned end = s->class_sl[i] + (unsigned)s->layers;

		if (end > QOS_SL_NUM)
			return 0;
		if (i + 1 < s->num_classes && end > s->class_sl[i + 1])
			return 0;
	}
	return 1;
}

static void sl_list(const uint8_t *sl, unsigned n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < n && used < len; i++) {
		int k = snprintf(buf + used, len - used, "%s%u", i ? "," : "", sl[i]);

		if (k < 0)
			break;
		used += (size_t)k;
	}
}

enum qos_sl_fit qos_sl_space_plan(const uint8_t *class_sl, unsigned n,
				  unsigned layers, unsigned vls, int allow_share,
				  struct qos_sl_space *s)
{
	char list[64];
	unsigned used = 0;

	memset(s, 0, sizeof(*s));
	memset(s->class_of_sl, QOS_SL_NONE, sizeof(s->class_of_sl));
	if (n > QOS_SL_NUM)
		n = QOS_SL_NUM;
	if (!n) {
		static const uint8_t zero = 0;

		class_sl = &zero;
		n = 1;
	}
	for (unsigned i = 0; i < n; i++)
		used |= 1u << (class_sl[i] & 15);
	for (unsigned sl = 0; sl < QOS_SL_NUM; sl++)
		if (used >> sl & 1)
			s->class_sl[s->num_classes++] = (uint8_t)sl;
	sort_u8(s->class_sl, s->num_classes);
	n = s->num_classes;
	sl_list(s->class_sl, n, list, sizeof(list));
	if (vls > QOS_SL_DATA_VLS)
		vls = QOS_SL_DATA_VLS;
	if (!vls)
		vls = 1;
	if (!layers)
		layers = 1;
	if (layers > QOS_SL_DATA_VLS)
		layers = QOS_SL_DATA_VLS;
	s->fit = QOS_SL_FIT;
	if (n > vls && !allow_share) {
		s->fit = QOS_SL_NOFIT;
		snprintf(s->why, sizeof(s->why),
			 "the QoS policy has %u classes (SLs %s) but there are only %u data VLs: with layered routing each class needs a VL of its own",
			 n, list, vls);
		return s->fit;
	}
	if (n > vls) {
		unsigned l = layers;

		if (l > vls)
			l = vls;
		if (l > QOS_SL_NUM / n)
			l = QOS_SL_NUM / n;
		s->fit = QOS_SL_SHARED;
		snprintf(s->why, sizeof(s->why),
			 "%u QoS classes (SLs %s) but only %u data VLs: the classes share the VLs of %u layer%s (VL = layer), each class on its own SLs",
			 n, list, vls, l, l == 1 ? "" : "s");
		layers = l;
	} else if (n * layers > vls) {
		unsigned l = vls / n;

		s->fit = QOS_SL_SHRUNK;
		snprintf(s->why, sizeof(s->why),
			 "%u QoS classes (SLs %s) in %u data VLs: at most %u layer%s per class (not %u), each (class, layer) on a VL of its own",
			 n, list, vls, l, l == 1 ? "" : "s", layers);
		layers = l;
	}
	s->layers = (uint8_t)layers;
	s->rebased = !policy_bases_fit(s);
	for (unsigned i = 0; i < n; i++) {
		s->class_base[i] = s->rebased ? (uint8_t)(i * layers) : s->class_sl[i];
		s->class_of_sl[s->class_sl[i]] = (uint8_t)i;
		for (unsigned l = 0; l < layers; l++) {
			unsigned vl = s->fit == QOS_SL_SHARED ? l : i * layers + l;

			s->sl2vl[s->class_base[i] + l] = (uint8_t)vl;
			if (vl + 1 > s->vls)
				s->vls = (uint8_t)(vl + 1);
		}
	}
	if (s->rebased && layers > 1) {
		size_t k = strlen(s->why);

		snprintf(s->why + k, sizeof(s->why) - k,
			 "%sthe policy's SLs %s are less than %u apart: class i starts at SL i x %u",
			 k ? "; " : "", list, layers, layers);
	}
	return s->fit;
}

uint8_t qos_sl_space_sl(const struct qos_sl_space *s, uint8_t policy_sl,
			uint8_t layer)
{
	uint8_t c = s->class_of_sl[policy_sl & 15];

	if (c == QOS_SL_NONE || layer >= s->layers)
		return layer;
	return (uint8_t)(s->class_base[c] + layer);
}

unsigned qos_sl_space_layer_sls(const struct qos_sl_space *s, uint8_t layer,
				uint8_t sls[QOS_SL_NUM])
{
	unsigned n = 0;

	if (layer >= s->layers)
		return 0;
	for (unsigned i = 0; i < s->num_classes; i++)
		sls[n++] = (uint8_t)(s->class_base[i] + layer);
	return n;
}

void qos_sl_space_describe(const struct qos_sl_space *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < s->num_classes && used < len; i++) {
		unsigned b = s->class_base[i], e = b + s->layers - 1u;
		int k;

		if (s->layers == 1)
			k = snprintf(buf + used, len - used, "%sclass SL %u: SL %u -> VL %u",
				     i ? "; " : "", s->class_sl[i], b, s->sl2vl[b]);
		else
			k = snprintf(buf + used, len - used, "%sclass SL %u: SLs %u-%u -> VLs %u-%u",
				     i ? "; " : "", s->class_sl[i], b, e, s->sl2vl[b],
				     s->sl2vl[e]);
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

void qos_sl_space_vl_masks(const struct qos_sl_space *s, const uint8_t *sl2vl,
			   uint16_t vl_mask[QOS_SL_NUM],
			   uint16_t sls_of_vl[QOS_SL_NUM])
{
	memset(vl_mask, 0, QOS_SL_NUM * sizeof(*vl_mask));
	memset(sls_of_vl, 0, QOS_SL_NUM * sizeof(*sls_of_vl));
	if (!sl2vl)
		sl2vl = s->sl2vl;
	for (unsigned l = 0; l < s->layers; l++)
		for (unsigned i = 0; i < s->num_classes; i++) {
			unsigned sl = s->class_base[i] + l, vl = sl2vl[sl] & 15;

			/* VL 15 drops data packets: they hold no credits. */
			if (vl != 15)
				vl_mask[l] |= (uint16_t)(1u << vl);
			sls_of_vl[vl] |= (uint16_t)(1u << sl);
		}
}
