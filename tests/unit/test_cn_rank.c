/* Compute-node rank order (core/cn_rank.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/cn_rank.h"
#include "core/fabric.h"
#include "tests/unit/support.h"

static void test_natcmp(void **state)
{
	(void)state;
	assert_true(natcmp("node-2", "node-10") < 0);
	assert_true(natcmp("node-10", "node-2") > 0);
	assert_true(natcmp("node-007", "node-7") == 0);
	assert_true(natcmp("a9b", "a10a") < 0);
	assert_true(natcmp("rack1-n2", "rack1-n12") < 0);
	assert_true(natcmp("rack2-n1", "rack10-n1") < 0);
	assert_true(natcmp("abc", "abd") < 0);
	assert_true(natcmp("ab", "abc") < 0);
	assert_int_equal(natcmp("", ""), 0);
}

static void test_host_name(void **state)
{
	char h[32];

	(void)state;
	cn_host_name("node-97 HCA-1", h, sizeof(h));
	assert_string_equal(h, "node-97");
	cn_host_name("  gpu12\tmlx5_0", h, sizeof(h));
	assert_string_equal(h, "gpu12");
	cn_host_name("verylonghostname", h, 5);
	assert_string_equal(h, "very");
}

/* One switch, CAs named in the given order on ports 1..n. */
static void build(struct fabric *f, const char *const *names, unsigned n)
{
	fab_init(f);
	uint32_t sw = fab_add_node(f, FAB_SWITCH, 8, 0x100, "leaf");
	for (unsigned i = 0; i < n; i++) {
		uint32_t ca = fab_add_node(f, FAB_CA, 1, 0x200 + i, names[i]);
		ut_link(f, sw, i + 1, ca, 1);
		f->ports[fab_port_idx(f, ca, 1)].guid = 0x300 + i;
	}
}

static uint32_t rank_of(const struct fabric *f, const uint32_t *r, uint32_t node)
{
	return r[f->nodes[node].first_port + 1];
}

static void test_rank(void **state)
{
	static const char *const named[] = { "n-10 HCA", "n-2 HCA", "n-1 HCA" };
	static const char *const plain[] = { "alpha", "beta", "gamma" };
	struct fabric f;
	uint32_t *r;
	char path[UT_PATH_MAX];

	(void)state;
	build(&f, named, 3);
	assert_int_equal(cn_rank_build(&f, NULL, &r), 0);
	assert_non_null(r);
	assert_int_equal(rank_of(&f, r, 1), 2);     /* n-10 */
	assert_int_equal(rank_of(&f, r, 2), 1);     /* n-2 */
	assert_int_equal(rank_of(&f, r, 3), 0);     /* n-1 */
	assert_int_equal(r[f.nodes[0].first_port + 1], CN_NO_RANK);
	free(r);
	/* A file: a port GUID first, then a host name; the rest after. */
	ut_temp_file(path, sizeof(path), "cn-rank", "# order\n0x300\n\nn-2   # comment\nnobody\n");
	assert_int_equal(cn_rank_build(&f, path, &r), 0);
	assert_int_equal(rank_of(&f, r, 1), 0);     /* 0x300: n-10 */
	assert_int_equal(rank_of(&f, r, 2), 1);     /* n-2 */
	assert_int_equal(rank_of(&f, r, 3), 2);     /* n-1, unlisted */
	free(r);
	unlink(path);
	assert_int_equal(cn_rank_build(&f, "/nonexistent/cn", &r), -2);
	fab_free(&f);
	/* No numbers in the names: no order (port order). */
	build(&f, plain, 3);
	assert_int_equal(cn_rank_build(&f, NULL, &r), 0);
	assert_null(r);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_natcmp),
		cmocka_unit_test(test_host_name),
		cmocka_unit_test(test_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
