/* The SA answer-hash harness (tests/campaign/sa_answer_hashes.c, run by
 * tests/campaign/sa_hashes.sh) is fit to compare two builds: two runs
 * print the same lines, every attribute the registry serves has its five
 * groups on every fabric, and multi-segment answers were read to the end.
 * No hash is pinned here (they change with features; the baseline lives
 * outside the repository). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sa/sa_handler.h"
#include "sa/sa_registry.h"

#define MAX_OUT (1u << 20)

/* The harness beside this test (build/tests/). */
static void harness_path(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	assert_true(n > 0);
	self[n] = 0;
	slash = strrchr(self, '/');
	assert_non_null(slash);
	*slash = 0;
	snprintf(buf, len, "%s/sa_answer_hashes", self);
}

/* Its whole output into out (MAX_OUT bytes; static: a failed assert
 * leaves by longjmp and would leak a malloc'd one). */
static void run_harness(char *out)
{
	char path[PATH_MAX + 32];
	size_t n;
	FILE *p;

	harness_path(path, sizeof(path));
	assert_int_equal(access(path, X_OK), 0);
	p = popen(path, "r");
	assert_non_null(p);
	n = fread(out, 1, MAX_OUT - 1, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0);
	assert_true(n > 0 && n < MAX_OUT - 1);
}

/* Lines "FABRIC ATTR GROUP requests=N mads=M bytes=B HASH": how many
 * name attr with group, and how many tables were read past segment 1. */
static unsigned count_groups(const char *out, const char *attr,
			     const char *group, unsigned *multi)
{
	unsigned found = 0;

	for (const char *l = out; *l; ) {
		const char *nl = strchr(l, '\n');
		char fab[64], a[64], g[32], hash[80];
		unsigned req, mads;
		unsigned long long bytes;

		if (sscanf(l, "%63s %63s %31s requests=%u mads=%u bytes=%llu %79s",
			   fab, a, g, &req, &mads, &bytes, hash) == 7) {
			assert_int_equal(strlen(hash), 64);
			if (!strcmp(a, attr) && !strcmp(g, group)) {
				found++;
				if (mads > req)
					(*multi)++;
			}
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	return found;
}

static void test_runs_agree_and_cover(void **state)
{
	static char a[MAX_OUT], b[MAX_OUT];
	char want[128];
	static const char *const groups[] = { "get", "table", "table-kernel",
					      "comp", "methods" };
	const struct sa_attr_ops *ops;
	unsigned attrs = 0, multi = 0;

	(void)state;
	run_harness(a);
	run_harness(b);
	assert_string_equal(a, b);
	for (int i = 0; (ops = sa_registry_slot(i)); i++) {
		attrs++;
		for (size_t k = 0; k < sizeof(groups) / sizeof(groups[0]); k++)
			assert_int_equal(count_groups(a, ops->name, groups[k], &multi), 3);
	}
	assert_true(attrs >= 18);
	snprintf(want, sizeof(want), "# coverage fabrics=3 attributes=%u ", attrs);
	assert_non_null(strstr(a, want));
	/* Sets, deletes, GetMulti, malformed MADs on every fabric. */
	assert_int_equal(count_groups(a, "ServiceRecord", "set", &multi), 3);
	assert_int_equal(count_groups(a, "MCMemberRecord", "delete", &multi), 3);
	assert_int_equal(count_groups(a, "MultiPathRecord", "getmulti", &multi), 3);
	assert_int_equal(count_groups(a, "-", "malformed", &multi), 3);
	/* The PortInfoRecord tables were read to their last segment. */
	multi = 0;
	assert_int_equal(count_groups(a, "PortInfoRecord", "table", &multi), 3);
	assert_int_equal(multi, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_agree_and_cover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
