/* Routing engines: the registry, fallback lists, dlopen'ed engines, and
 * every engine on degenerate fabrics (the properties minhop and updn
 * promise are checked in test_engine_props.c; the checks themselves are
 * in engine_check.c). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "routing/engine.h"
#include "routing/engine_internal.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/engine_check.h"
#include "tests/unit/support.h"

/* ---- tests ----------------------------------------------------------- */

static void registry_lists_and_finds(void **state)
{
	(void)state;
	const struct route_engine *const *b = route_builtin_engines();
	int have_minhop = 0, have_updn = 0;
	for (; *b; b++) {
		assert_non_null((*b)->route);
		assert_ptr_equal(route_engine_find((*b)->name), *b);
		have_minhop |= !strcmp((*b)->name, "minhop");
		have_updn |= !strcmp((*b)->name, "updn");
	}
	assert_true(have_minhop && have_updn);
	assert_null(route_engine_find("no-such-engine"));
	assert_null(route_engine_find(NULL));
}

static int refuse_route(struct route_ctx *ctx, struct lft_set *t)
{
	(void)t;
	snprintf(ctx->why, sizeof(ctx->why), "not my kind of fabric");
	return -ENOTSUP;
}

static const struct route_engine refuser = {
	.name = "test-refuser",
	.route = refuse_route,
};

static void fallback_list_logs_each_refusal(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	ut_ring(&f, 4, 1, 7);
	ec_assign(&f, 0);
	assert_int_equal(route_engine_register(&refuser, NULL), 0);
	assert_int_equal(route_engine_register(&refuser, NULL), 0); /* same */
	static const struct route_engine other = { .name = "minhop" };
	assert_int_equal(route_engine_register(&other, NULL), -EEXIST);

	char *buf = NULL;
	size_t len = 0;
	FILE *log = open_memstream(&buf, &len);
	log_set_stream(log);
	const struct route_engine *used = NULL;
	int r = route_run_list("nosuch, test-refuser,minhop", &f, NULL, &t, &used);
	log_set_stream(NULL);
	fclose(log);
	assert_int_equal(r, 0);
	assert_non_null(used);
	assert_string_equal(used->name, "minhop");
	assert_non_null(strstr(buf, "'nosuch' is not known"));
	assert_non_null(strstr(buf, "'test-refuser' refused the fabric: not my kind of fabric"));
	assert_non_null(strstr(buf, "falling back to routing engine 'minhop'"));
	free(buf);
	lft_free(&t);

	/* Every engine refuses: error, tables not allocated. */
	log_set_level(LOG_ERR + 0);
	buf = NULL;
	log = open_memstream(&buf, &len);
	log_set_stream(log);
	r = route_run_list("test-refuser", &f, NULL, &t, &used);
	log_set_stream(NULL);
	fclose(log);
	log_set_level(LOG_INFO);
	assert_int_equal(r, -ENOTSUP);
	assert_null(used);
	assert_null(t.port);
	assert_non_null(strstr(buf, "every routing engine"));
	free(buf);
	fab_free(&f);
}

/* rel from BUILD/tests, where this test runs from: "../lib/libibsm-
 * engine-sssp.so" (installed engines), "libibsm-engine-abi1.so" (test
 * engines). */
static void engine_so_path(char *buf, size_t n, const char *rel)
{
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(k > 0);
	exe[k] = 0;
	snprintf(buf, n, "%s/%s", dirname(exe), rel);
}

static void dlopen_engine_loads_routes_and_checks_abi(void **state)
{
	(void)state;
	char so[PATH_MAX + 64];
	engine_so_path(so, sizeof(so), "../lib/libibsm-engine-sssp.so");
	if (access(so, R_OK)) {
		fprintf(stderr, "%s not built\n", so);
		fail();
	}
	log_set_level(LOG_ERR + 0);
	/* Wrong ABI: the object refuses and so does the loader, which says
	 * which ABI the object was built for. */
	char *msg = NULL;
	size_t msg_len = 0;
	FILE *ms = open_memstream(&msg, &msg_len);
	assert_non_null(ms);
	log_set_stream(ms);
	assert_null(route_engine_load_abi(so, ROUTE_ENGINE_ABI + 1));
	assert_null(route_engine_find("sssp"));
	/* An object built for ABI 1 (its flags were a symbol of their own):
	 * refused, naming the file and both ABIs. */
	char old[PATH_MAX + 64];
	engine_so_path(old, sizeof(old), "libibsm-engine-abi1.so");
	assert_int_equal(access(old, R_OK), 0);
	assert_null(route_engine_load(old));
	assert_null(route_engine_find("abi1"));
	log_set_stream(NULL);
	fclose(ms);
	char want[PATH_MAX + 128];
	snprintf(want, sizeof(want), "routing engine %s: built for engine ABI %u, "
		 "this ibsm needs ABI %u", so, ROUTE_ENGINE_ABI, ROUTE_ENGINE_ABI + 1);
	assert_non_null(strstr(msg, want));
	snprintf(want, sizeof(want), "routing engine %s: built for engine ABI 1, "
		 "this ibsm needs ABI %u", old, ROUTE_ENGINE_ABI);
	assert_non_null(strstr(msg, want));
	free(msg);
	/* Not an engine / not there. */
	assert_null(route_engine_load("libm.so.6"));
	assert_null(route_engine_load("/nonexistent/libibsm-engine-x.so"));
	log_set_level(LOG_INFO);

	const struct route_engine *e = route_engine_load(so);
	assert_non_null(e);
	assert_string_equal(e->name, "sssp");
	assert_ptr_equal(route_engine_find("sssp"), e);
	assert_ptr_equal(route_engine_load(so), e);   /* idempotent */

	struct fabric f;
	struct lft_set t;
	char err[256];
	struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	ec_assign(&f, 0);
	ec_route_ok("sssp", &f, &t, 0);
	uint32_t longp;
	uint32_t *d = ec_switch_dists(&f);
	assert_int_equal(ec_check_reach(&f, &t, d, &longp), 0);
	assert_int_equal(longp, 0);
	free(d);
	lft_free(&t);
	fab_free(&f);

	struct random_params rp = { .switches = 30, .degree = 4,
				    .hcas_per_switch = 2, .seed = 5 };
	assert_int_equal(gen_random(&f, &rp, err), 0);
	ec_assign(&f, 0);
	const struct route_engine *used = NULL;
	assert_int_equal(route_run_list("sssp", &f, NULL, &t, &used), 0);
	assert_ptr_equal(used, e);
	assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
	lft_free(&t);
	fab_free(&f);
}

/* Degenerate fabrics (issue: a lone CA used to overflow updn's BFS):
 * every built-in engine either routes them or refuses cleanly, and the
 * verifier judges what they produce, all under ASan. */
static void degenerate(struct fabric *f, int kind)
{
	uint32_t a, b, s1, s2;

	fab_init(f);
	switch (kind) {
	case 0:                         /* one CA, no link */
		fab_add_node(f, FAB_CA, 1, 0x10, "lone");
		break;
	case 1:                         /* two CAs back to back */
		a = fab_add_node(f, FAB_CA, 1, 0x10, "a");
		b = fab_add_node(f, FAB_CA, 1, 0x20, "b");
		ut_link(f, a, 1, b, 1);
		break;
	case 2:                         /* one switch, nothing on it */
		fab_add_node(f, FAB_SWITCH, 8, 0x30, "sw");
		break;
	case 3:                         /* two islands: switch + CA each */
		s1 = fab_add_node(f, FAB_SWITCH, 8, 0x30, "sw1");
		s2 = fab_add_node(f, FAB_SWITCH, 8, 0x40, "sw2");
		a = fab_add_node(f, FAB_CA, 1, 0x10, "a");
		b = fab_add_node(f, FAB_CA, 1, 0x20, "b");
		ut_link(f, s1, 1, a, 1);
		ut_link(f, s2, 1, b, 1);
		break;
	}
}

static void degenerate_fabrics_every_engine(void **state)
{
	(void)state;
	for (int kind = 0; kind < 4; kind++) {
		for (const struct route_engine *const *e = route_builtin_engines(); *e; e++) {
			struct fabric f;
			struct lft_set t = { 0 };
			struct route_options o = { 0 };
			struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
			struct verify_result vr;
			char why[256];
			int r;

			degenerate(&f, kind);
			ec_assign(&f, 0);
			r = route_run(*e, &f, &o, &t, why);
			/* No switches: no tables, nothing to refuse. */
			if (f.num_switches == 0) {
				assert_int_equal(r, 0);
				assert_int_equal(t.num_switches, 0);
			}
			if (r == 0) {
				assert_true(verify_routes(&f, &t, &vo, &vr) >= 0);
				if (kind != 3)
					assert_int_equal(vr.pairs_unreachable, 0);
				assert_int_equal(vr.pairs_looping, 0);
				lft_free(&t);
			}
			fab_free(&f);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_lists_and_finds),
		cmocka_unit_test(fallback_list_logs_each_refusal),
		cmocka_unit_test(dlopen_engine_loads_routes_and_checks_abi),
		cmocka_unit_test(degenerate_fabrics_every_engine),
	};
	log_set_level(LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
