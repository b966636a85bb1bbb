/* qos/qos_sl_space: QoS classes x routing layers in 16 SLs and the VL
 * budget; every row of the plan's table in qos_sl_space.h has a case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/lid_assign.h"
#include "qos/qos_policy.h"
#include "qos/qos_sl_space.h"
#include "routing/engine.h"
#include "routing/lft.h"
#include "routing/path_sl.h"
#include "topogen/topo_gen.h"

/* Every (class, layer) SL on a VL; two SLs share a VL only when they carry
 * the same layer (the only sharing that keeps the per-VL graph acyclic). */
static void assert_sound(const struct qos_sl_space *s)
{
	int owner[QOS_SL_DATA_VLS];

	for (unsigned v = 0; v < QOS_SL_DATA_VLS; v++)
		owner[v] = -1;
	for (unsigned i = 0; i < s->num_classes; i++)
		for (unsigned l = 0; l < s->layers; l++) {
			unsigned sl = qos_sl_space_sl(s, s->class_sl[i], (uint8_t)l);
			unsigned vl = s->sl2vl[sl];

			assert_true(sl < QOS_SL_NUM);
			assert_int_equal(sl, s->class_base[i] + l);
			assert_true(vl < s->vls);
			assert_true(s->vls <= QOS_SL_DATA_VLS);
			if (owner[vl] < 0)
				owner[vl] = (int)l;
			assert_int_equal(owner[vl], (int)l);
			/* no SL of two classes */
			for (unsigned j = 0; j < s->num_classes; j++)
				if (j != i)
					assert_false(sl >= s->class_base[j] &&
						     sl < s->class_base[j] + s->layers);
		}
}

/* The case: 3 classes (SLs 0, 2, 4), 2 layers, 8 VLs: the policy's
 * SLs stay the bases, six VLs, nothing said. */
static void fits_with_policy_bases(void **state)
{
	static const uint8_t cls[] = { 4, 0, 2 };
	struct qos_sl_space s;
	uint8_t sls[QOS_SL_NUM];
	char d[256];

	(void)state;
	assert_int_equal(qos_sl_space_plan(cls, 3, 2, 8, 0, &s), QOS_SL_FIT);
	assert_int_equal(s.layers, 2);
	assert_int_equal(s.vls, 6);
	assert_false(s.rebased);
	assert_string_equal(s.why, "");
	assert_int_equal(qos_sl_space_sl(&s, 2, 1), 3);
	assert_int_equal(qos_sl_space_sl(&s, 4, 0), 4);
	assert_int_equal(s.sl2vl[5], 5);
	assert_int_equal(s.sl2vl[9], 0);        /* no class: VL 0 */
	assert_int_equal(qos_sl_space_layer_sls(&s, 1, sls), 3);
	assert_int_equal(sls[0], 1);
	assert_int_equal(sls[2], 5);
	assert_int_equal(qos_sl_space_layer_sls(&s, 2, sls), 0);
	qos_sl_space_describe(&s, d, sizeof(d));
	assert_string_equal(d, "class SL 0: SLs 0-1 -> VLs 0-1; class SL 2: SLs 2-3 -> VLs 2-3; "
			    "class SL 4: SLs 4-5 -> VLs 4-5");
	assert_sound(&s);
}

/* SLs 0, 1, 2 with 2 layers collide: bases 0, 2, 4, said once. */
static void rebased(void **state)
{
	static const uint8_t cls[] = { 0, 1, 2 };
	struct qos_sl_space s;

	(void)state;
	assert_int_equal(qos_sl_space_plan(cls, 3, 2, 15, 0, &s), QOS_SL_FIT);
	assert_true(s.rebased);
	assert_non_null(strstr(s.why, "less than 2 apart"));
	assert_int_equal(qos_sl_space_sl(&s, 1, 1), 3);
	assert_int_equal(qos_sl_space_sl(&s, 2, 0), 4);
	assert_sound(&s);
	/* SL 15 cannot start a run of 2 either. */
	static const uint8_t top[] = { 0, 15 };
	assert_int_equal(qos_sl_space_plan(top, 2, 2, 15, 0, &s), QOS_SL_FIT);
	assert_true(s.rebased);
	assert_int_equal(qos_sl_space_sl(&s, 15, 1), 3);
	assert_sound(&s);
}

/* 3 classes x 4 layers on 8 VLs: 2 layers each, own VLs, said why. */
static void shrunk(void **state)
{
	static const uint8_t cls[] = { 0, 4, 8 };
	struct qos_sl_space s;

	(void)state;
	assert_int_equal(qos_sl_space_plan(cls, 3, 4, 8, 0, &s), QOS_SL_SHRUNK);
	assert_int_equal(s.layers, 2);
	assert_false(s.rebased);
	assert_non_null(strstr(s.why, "3 QoS classes (SLs 0,4,8) in 8 data VLs: at most 2 layers per class (not 4)"));
	assert_sound(&s);
	/* 5 classes on 8 VLs: one layer each. */
	static const uint8_t five[] = { 0, 1, 2, 3, 4 };
	assert_int_equal(qos_sl_space_plan(five, 5, 3, 8, 0, &s), QOS_SL_SHRUNK);
	assert_int_equal(s.layers, 1);
	assert_false(s.rebased);
	assert_int_equal(s.vls, 5);
	assert_sound(&s);
}

/* More classes than VLs: refused, or (allowed) sharing the layers' VLs. */
static void nofit_and_shared(void **state)
{
	static const uint8_t cls[] = { 0, 1, 2, 3, 4 };
	struct qos_sl_space s;

	(void)state;
	assert_int_equal(qos_sl_space_plan(cls, 5, 2, 4, 0, &s), QOS_SL_NOFIT);
	assert_non_null(strstr(s.why, "5 classes (SLs 0,1,2,3,4) but there are only 4 data VLs"));
	assert_int_equal(qos_sl_space_plan(cls, 5, 4, 4, 1, &s), QOS_SL_SHARED);
	assert_int_equal(s.layers, 3);          /* 16 / 5 */
	assert_int_equal(s.vls, 3);
	assert_true(s.rebased);
	assert_int_equal(qos_sl_space_sl(&s, 4, 2), 14);
	assert_int_equal(s.sl2vl[14], 2);
	assert_sound(&s);
	/* 16 classes, 15 VLs at most: never their own VLs. */
	uint8_t all[16];
	for (unsigned i = 0; i < 16; i++)
		all[i] = (uint8_t)i;
	assert_int_equal(qos_sl_space_plan(all, 16, 2, 99, 0, &s), QOS_SL_NOFIT);
	assert_int_equal(qos_sl_space_plan(all, 16, 2, 15, 1, &s), QOS_SL_SHARED);
	assert_int_equal(s.layers, 1);
	assert_sound(&s);
}

/* One layer (an engine that did not layer) is the policy's own SLs. */
static void one_layer_is_policy(void **state)
{
	static const uint8_t cls[] = { 0, 2, 4 };
	struct qos_sl_space s;

	(void)state;
	assert_int_equal(qos_sl_space_plan(cls, 3, 1, 4, 0, &s), QOS_SL_FIT);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(qos_sl_space_sl(&s, cls[i], 0), cls[i]);
	assert_int_equal(s.sl2vl[4], 2);
	assert_sound(&s);
	/* Duplicates and no classes. */
	static const uint8_t dup[] = { 3, 3 };
	assert_int_equal(qos_sl_space_plan(dup, 2, 2, 8, 0, &s), QOS_SL_FIT);
	assert_int_equal(s.num_classes, 1);
	assert_int_equal(qos_sl_space_plan(NULL, 0, 2, 8, 0, &s), QOS_SL_FIT);
	assert_int_equal(s.num_classes, 1);
	assert_int_equal(s.class_sl[0], 0);
}

/* The classes of a policy file: distinct SLs of the levels its rules and
 * default give (an unused level is none); no sl counts as 0. */
static void classes_of_policy(void **state)
{
	static const char text[] =
		"qos-levels\n"
		"  qos-level\n    name: DEFAULT\n    sl: 4\n  end-qos-level\n"
		"  qos-level\n    name: fast\n    sl: 2\n  end-qos-level\n"
		"  qos-level\n    name: free\n    mtu-limit: 4\n  end-qos-level\n"
		"  qos-level\n    name: unused\n    sl: 9\n  end-qos-level\n"
		"end-qos-levels\n"
		"qos-match-rules\n  qos-match-rule\n    pkey: 0x10\n    qos-level-name: free\n  end-qos-match-rule\nend-qos-match-rules\n"
		"qos-ulps\n  default : 4\n  any, service-id 0x10-0x20 : 2\nend-qos-ulps\n";
	char err[256];
	struct qos_policy *p = qos_policy_parse("q.conf", text, err, sizeof(err));
	uint8_t sl[QOS_SL_NUM];

	(void)state;
	assert_non_null(p);
	assert_int_equal(qos_sl_classes(p, sl), 3);
	assert_int_equal(sl[0], 0);
	assert_int_equal(sl[1], 2);
	assert_int_equal(sl[2], 4);
	qos_policy_free(p);
}

/* The per-VL check on real layers, a 4x4 torus. dfsp within 2 layers for
 * 3 classes: the plan's map is clean (a VL carries one layer), and so is
 * per SL (v NULL, path_sl_check). dfsp with 8 (minimal paths, first fit:
 * a route on layer 1 closed a cycle in layer 0's graph): layers 0 and 1
 * on one VL must show that cycle, named by VL and SLs; a layer no VL
 * carries (its SLs dropped on VL 15) is an error. */
static void per_vl_check_on_torus(void **state)
{
	static const uint8_t cls[] = { 0, 2, 4 };
	struct torus_params tp = { .dims = 2, .size = { 4, 4 }, .wrap = 1,
				   .hcas_per_switch = 2 };
	struct lid_assign_opts lo = { 0 };
	struct qos_sl_space s;
	struct path_sl_vls v;
	struct fabric f;
	struct lft_set t;
	struct path_sl p;
	uint8_t dropped[QOS_SL_NUM] = { 0, 15, 2, 15, 4, 15 };
	char why[256];
	uint32_t used;

	(void)state;
	fab_init(&f);
	assert_int_equal(gen_torus(&f, &tp, why), 0);
	assert_true(lid_assign(&f, &lo, NULL) >= 0);
	assert_int_equal(qos_sl_space_plan(cls, 3, 8, 8, 0, &s), QOS_SL_SHRUNK);
	struct route_options o = { .max_vls = s.layers, .sl_out = &p };
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why), 0);
	assert_int_equal(p.vls_used, 2);
	assert_int_equal(qos_sl_space_plan(cls, 3, p.vls_used, 8, 0, &s), QOS_SL_FIT);
	qos_sl_space_vl_masks(&s, NULL, v.vl_mask, v.sls_of_vl);
	assert_int_equal(v.vl_mask[0], 1u << 0 | 1u << 2 | 1u << 4);
	assert_int_equal(v.sls_of_vl[3], 1u << 3);
	assert_int_equal(path_sl_check_vls(&f, &t, &p, &v, &used, why, sizeof(why)), 0);
	assert_int_equal(used, 2);
	assert_int_equal(path_sl_check_vls(&f, &t, &p, NULL, &used, why, sizeof(why)), 0);
	qos_sl_space_vl_masks(&s, dropped, v.vl_mask, v.sls_of_vl);
	assert_int_equal(path_sl_check_vls(&f, &t, &p, &v, &used, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "layer 1: no VL carries it"));
	path_sl_free(&p);
	lft_free(&t);

	o.max_vls = 8;
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why), 0);
	assert_true(p.vls_used >= 2);
	memset(&v, 0, sizeof(v));
	for (unsigned l = 0; l < p.vls_used; l++) {
		unsigned vl = l < 2 ? 0 : l;

		v.vl_mask[l] = (uint16_t)(1u << vl);
		v.sls_of_vl[vl] |= (uint16_t)(1u << l);
	}
	assert_int_equal(path_sl_check_vls(&f, &t, &p, &v, &used, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "VL 0 (SLs 0, 1): channel dependency graph has a cycle"));
	path_sl_free(&p);
	lft_free(&t);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fits_with_policy_bases),
		cmocka_unit_test(rebased),
		cmocka_unit_test(shrunk),
		cmocka_unit_test(nofit_and_shared),
		cmocka_unit_test(one_layer_is_policy),
		cmocka_unit_test(classes_of_policy),
		cmocka_unit_test(per_vl_check_on_torus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
