/* ibsm-route --qos and --sl2vl (qos/qos_offline.h). */
#include "qos_offline.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../routing/path_sl.h"
#include "qos_policy.h"

/* The numbers of a line, at most 64. */
static unsigned line_numbers(const char *s, long *v)
{
	unsigned n = 0;

	while (*s && n < 64) {
		char *end;

		if (!isdigit((unsigned char)*s)) {
			s++;
			continue;
		}
		v[n++] = strtol(s, &end, 10);
		s = end;
	}
	return n;
}

int qos_sl2vl_read(const char *path, uint8_t map[QOS_SL_NUM], char *err,
		   size_t len)
{
	FILE *in = fopen(path, "r");
	char line[1024];
	unsigned ln = 0, first = 0;
	int rc = 0;

	if (!in) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		long v[64];
		uint8_t m[QOS_SL_NUM];
		unsigned n;

		ln++;
		if (line[strspn(line, " \t")] == '#')
			continue;
		n = line_numbers(line, v);
		if (n < QOS_SL_NUM)
			continue;
		for (unsigned i = 0; i < QOS_SL_NUM; i++) {
			long vl = v[n - QOS_SL_NUM + i];

			if (vl > 15) {
				snprintf(err, len, "%s:%u: VL %ld of SL %u is past 15",
					 path, ln, vl, i);
				rc = -1;
				goto out;
			}
			m[i] = (uint8_t)vl;
		}
		if (!first) {
			memcpy(map, m, QOS_SL_NUM);
			first = ln;
		} else if (memcmp(map, m, QOS_SL_NUM)) {
			snprintf(err, len, "%s:%u: this SL2VL map differs from line %u's; the check models one map for every port",
				 path, ln, first);
			rc = -1;
			goto out;
		}
	}
	if (!first) {
		snprintf(err, len, "%s: no line with 16 VLs", path);
		rc = -1;
	}
out:
	fclose(in);
	return rc;
}

void qos_default_sl2vl(unsigned vls, uint8_t map[QOS_SL_NUM])
{
	if (!vls)
		vls = 1;
	for (unsigned sl = 0; sl < QOS_SL_NUM; sl++)
		map[sl] = (uint8_t)((sl < 15 ? sl : 7) % vls);
}

static void print_map(FILE *out, const uint8_t *map)
{
	fprintf(out, "SL2VL:");
	for (unsigned sl = 0; sl < QOS_SL_NUM; sl++)
		fprintf(out, "%s%u", sl ? "," : " ", map[sl]);
	fprintf(out, "\n");
}

void qos_offline_print(FILE *out, const char *file, const struct qos_sl_space *s,
		       int layered, unsigned vls, const uint8_t *map)
{
	if (!layered) {
		fprintf(out, "# QoS classes of %s, no routing layers: %u class%s; SL2VL: OpenSM's default qos_sl2vl on ports of %u data VLs\n",
			file, s->num_classes, s->num_classes == 1 ? "" : "es", vls);
		fprintf(out, "class  policy-SL  SL  VL\n");
		for (unsigned i = 0; i < s->num_classes; i++)
			fprintf(out, "%-5u  %-9u  %-2u  %u\n", i, s->class_sl[i],
				s->class_sl[i], map[s->class_sl[i]]);
		print_map(out, map);
		return;
	}
	fprintf(out, "# QoS classes of %s with routing layers (budget %u data VLs): %u class%s x %u layer%s, %u VLs\n",
		file, vls, s->num_classes, s->num_classes == 1 ? "" : "es",
		s->layers, s->layers == 1 ? "" : "s", s->vls);
	if (s->why[0])
		fprintf(out, "# note: %s\n", s->why);
	fprintf(out, "class  policy-SL  SLs    VLs\n");
	for (unsigned i = 0; i < s->num_classes; i++) {
		unsigned b = s->class_base[i], e = b + s->layers - 1u;
		char sls[16], vl[16];

		snprintf(sls, sizeof(sls), b == e ? "%u" : "%u-%u", b, e);
		if (s->fit == QOS_SL_SHARED || s->layers == 1 ||
		    map[e] == map[b] + s->layers - 1u)
			snprintf(vl, sizeof(vl), b == e ? "%u" : "%u-%u", map[b], map[e]);
		else
			snprintf(vl, sizeof(vl), "%u..", map[b]);
		fprintf(out, "%-5u  %-9u  %-5s  %s\n", i, s->class_sl[i], sls, vl);
	}
	print_map(out, map);
}

int qos_offline_begin(struct qos_offline *q, const char *qos_file,
		      qos_policy_loader *load, const char *sl2vl_file,
		      unsigned vls, int layered, char *err, size_t len)
{
	memset(q, 0, sizeof(*q));
	q->file = qos_file;
	q->vls = vls ? vls : 8;
	q->layered = layered;
	if (sl2vl_file) {
		if (qos_sl2vl_read(sl2vl_file, q->map, err, len) < 0)
			return -1;
		q->have_map = 1;
	}
	if (!qos_file)
		return 0;
	q->policy = (load ? load : qos_policy_read)(qos_file, err, len);
	if (!q->policy)
		return -1;
	q->num_classes = qos_sl_classes(q->policy, q->class_sl);
	if (qos_sl_space_plan(q->class_sl, q->num_classes, layered ? q->vls : 1,
			      q->vls, !layered, &q->space) == QOS_SL_NOFIT) {
		snprintf(err, len, "%s: %s", qos_file, q->space.why);
		return -1;
	}
	if (!q->have_map) {
		if (layered)
			memcpy(q->map, q->space.sl2vl, QOS_SL_NUM);
		else
			qos_default_sl2vl(q->vls, q->map);
	}
	return 0;
}

void qos_offline_layers(struct qos_offline *q, unsigned layers)
{
	if (!q->policy || !q->layered)
		return;
	qos_sl_space_plan(q->class_sl, q->num_classes, layers, q->vls, 0, &q->space);
	if (!q->have_map)
		memcpy(q->map, q->space.sl2vl, QOS_SL_NUM);
}

void qos_offline_vl_masks(const struct qos_offline *q, unsigned layers,
			  uint16_t vl_mask[QOS_SL_NUM],
			  uint16_t sls_of_vl[QOS_SL_NUM])
{
	if (q->policy) {
		qos_sl_space_vl_masks(&q->space, q->map, vl_mask, sls_of_vl);
		return;
	}
	memset(vl_mask, 0, QOS_SL_NUM * sizeof(*vl_mask));
	memset(sls_of_vl, 0, QOS_SL_NUM * sizeof(*sls_of_vl));
	for (unsigned l = 0; l < layers && l < QOS_SL_NUM; l++) {
		unsigned vl = q->map[l] & 15;

		if (vl != 15)
			vl_mask[l] = (uint16_t)(1u << vl);
		sls_of_vl[vl] |= (uint16_t)(1u << l);
	}
}

void qos_offline_free(struct qos_offline *q)
{
	qos_policy_free(q->policy);
	q->policy = NULL;
}

int qos_offline_setup(struct qos_offline *q, const char *qos_file,
		      qos_policy_loader *load, const char *sl2vl_file,
		      unsigned vls, int layered, unsigned *layers)
{
	char err[512];

	*layers = 0;
	if (qos_offline_begin(q, qos_file, load, sl2vl_file, vls, layered,
			      err, sizeof(err)) < 0) {
		log_err("%s", err);
		return -1;
	}
	if (qos_file && layered) {
		if (q->space.why[0])
			log_warn("%s: %s", qos_file, q->space.why);
		*layers = q->space.layers;
	}
	return 0;
}

int qos_offline_report(struct qos_offline *q, FILE *out, int check,
		       const struct fabric *f, const struct lft_set *t,
		       const struct path_sl *sl, char *why, size_t len)
{
	unsigned layers = sl->sl ? sl->vls_used : 1;
	struct path_sl_vls v;
	uint32_t used = 0;
	int loop;

	why[0] = 0;
	qos_offline_layers(q, layers);
	if (q->file && out)
		qos_offline_print(out, q->file, &q->space, q->layered, q->vls, q->map);
	if (!check || !sl->sl)
		return 0;
	qos_offline_vl_masks(q, layers, v.vl_mask, v.sls_of_vl);
	loop = path_sl_check_vls(f, t, sl, &v, &used, why, len);
	if (loop >= 0 && out)
		fprintf(out, "{\"vl_check\":{\"layers\":%u,\"credit_loop\":%d,"
			"\"first_error\":\"%s\"}}\n", used, loop, why);
	return loop;
}
