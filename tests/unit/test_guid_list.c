/* The one GUID list reader of ibsm, ibsm-route and the OpenSM plugin. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/guid_list.h"
#include "core/log.h"
#include "tests/unit/support.h"

static char path[UT_PATH_MAX];

static void write_file(const char *text)
{
	ut_write_file(path, text, strlen(text));
}

static int setup(void **state)
{
	(void)state;
	ut_temp_file(path, sizeof(path), "guids", NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Hex with 0x, decimal (as OpenSM reads its GUID files), comments and
 * blank lines, CRLF endings. */
static void reads_good_lines(void **state)
{
	(void)state;
	uint64_t *g;
	char err[256] = "";
	write_file("# roots\n"
		   "0x0002c90300000001\n"
		   "\n"
		   "   0x0002C90300000002   # spine 2\r\n"
		   "255\n");
	assert_int_equal(guid_list_load(path, &g, err, sizeof(err)), 3);
	assert_true(g[0] == 0x0002c90300000001ull);
	assert_true(g[1] == 0x0002c90300000002ull);
	assert_true(g[2] == 255);
	free(g);
	uint32_t n = 7;
	assert_int_equal(guid_list_read(path, &g, &n), 0);
	assert_int_equal(n, 3);
	assert_true(g[1] == 0x0002c90300000002ull);
	free(g);
	write_file("0x1\nbad\n");
	FILE *log = tmpfile();
	log_set_stream(log);
	assert_int_equal(guid_list_read(path, &g, &n), -EINVAL);
	log_set_stream(NULL);
	assert_null(g);
	assert_int_equal(n, 0);
	char line[256] = "";
	rewind(log);
	assert_non_null(fgets(line, sizeof(line), log));
	assert_non_null(strstr(line, ":2: not a GUID: bad"));
	fclose(log);
	write_file("# nothing\n\n");
	assert_int_equal(guid_list_load(path, &g, err, sizeof(err)), 0);
	assert_null(g);
}

/* Bad lines name the file and line; nothing is returned. */
static void rejects_bad_lines(void **state)
{
	(void)state;
	uint64_t *g = (uint64_t *)1;
	char err[256] = "", want[UT_PATH_MAX + 32];
	static const char *const bad[] = {
		"0x1\nnot-a-guid\n", "0x1\n-5\n", "0x1\n0x12 0x13\n",
		"0x1\n0x1ffffffffffffffff\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(bad[i]);
		assert_int_equal(guid_list_load(path, &g, err, sizeof(err)),
				 -EINVAL);
		assert_null(g);
		snprintf(want, sizeof(want), "%s:2: not a GUID", path);
		assert_non_null(strstr(err, want));
	}
	FILE *fp = fopen(path, "w");
	for (int i = 0; i < 300; i++)
		fputc('1', fp);
	fputs("\n", fp);
	fclose(fp);
	assert_int_equal(guid_list_load(path, &g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: line too long"));
	assert_true(guid_list_load("/nonexistent/guids", &g, err,
				   sizeof(err)) == -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/guids: "));
	assert_true(guid_list_load("/tmp", &g, err, sizeof(err)) < 0);
	assert_null(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(reads_good_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(rejects_bad_lines, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
