/* Daemon configuration: defaults, a file with every key, each kind of error
 * reported with the right FILE:LINE, a file with errors changing nothing,
 * command-line style overrides, validation and a print/load round trip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "sm/config/config.h"
#include "tests/unit/support.h"

/* A temp file holding `text`, and a log sink the test can read back. */
struct fixture {
	char path[UT_PATH_MAX];
	FILE *log;
	char logbuf[8192];
};

static void capture_log(struct fixture *fx)
{
	fx->log = tmpfile();
	assert_non_null(fx->log);
	log_set_stream(fx->log);
}

/* Everything logged so far, as one string. */
static const char *logged(struct fixture *fx)
{
	fflush(fx->log);
	rewind(fx->log);
	size_t n = fread(fx->logbuf, 1, sizeof(fx->logbuf) - 1, fx->log);
	fx->logbuf[n] = 0;
	return fx->logbuf;
}

static void done(struct fixture *fx)
{
	log_set_stream(NULL);
	if (fx->log)
		fclose(fx->log);
	if (fx->path[0])
		unlink(fx->path);
}

/* Load `text`; returns the rc and leaves the log in fx. */
static int load_text(struct fixture *fx, struct ibsm_config *c, const char *text)
{
	ut_temp_file(fx->path, sizeof(fx->path), "config", text);
	capture_log(fx);
	return config_load_yaml(c, fx->path);
}

/* The log holds "<path>:<line>: <what>". */
static void assert_error_at(struct fixture *fx, unsigned line, const char *what)
{
	char want[512];
	snprintf(want, sizeof(want), "%s:%u: %s", fx->path, line, what);
	const char *log = logged(fx);
	if (!strstr(log, want))
		fail_msg("expected \"%s\" in log:\n%s", want, log);
}

static void test_defaults(void **state)
{
	(void)state;
	struct ibsm_config c;
	memset(&c, 0xAB, sizeof(c));
	config_defaults(&c);
	assert_string_equal(c.routing_engine, "ftree,updn,minhop");
	assert_int_equal(c.mad_window, 32);
	assert_int_equal(c.mad_timeout_ms, 200);
	assert_int_equal(c.mad_retries, 3);
	assert_int_equal(c.sweep_interval_s, 10);
	assert_string_equal(c.cache_dir, "/var/cache/ibsm");
	assert_int_equal(c.sm_priority, 0);
	assert_int_equal(c.lmc, 0);
	assert_true(c.subnet_prefix == 0xfe80000000000000ull);
	assert_int_equal(c.log_level, LOG_INFO);
	assert_int_equal(c.once, 0);
	assert_int_equal(c.port_num, 0);
	assert_true(c.port_guid == 0);
	assert_string_equal(c.ca_name, "");
	assert_string_equal(c.log_file, "");
	assert_int_equal(config_validate(&c), 0);

	char buf[600];
	assert_int_equal(config_guid2lid_path(&c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/var/cache/ibsm/guid2lid");
	assert_int_equal(config_dump_path(&c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/var/cache/ibsm/dump");
	assert_int_equal(config_guid2lid_path(&c, buf, 8), -ENAMETOOLONG);
}

static const char every_key[] =
	"# every key, with values that differ from the defaults\n"
	"---\n"
	"ca_name: mlx5_1\n"
	"port_num: 2\n"
	"port_guid: 0\n"
	"routing_engine: ftree,updn\n"
	"engine_paths: /opt/a.so:/opt/b.so\n"
	"root_guid_file: /etc/ibsm/roots\n"
	"cn_guid_file: '/etc/ibsm/cns'\n"
	"lmc: 2\n"
	"sm_priority: 15\n"
	"subnet_prefix: 0xfec0000000000001\n"
	"subnet_timeout: 31\n"
	"sweep_interval: 0\n"
	"once: yes\n"
	"mad_window: 256\n"
	"mad_timeout_ms: 1000\n"
	"mad_retries: 0\n"
	"cache_dir: \"/tmp/ibsm cache\"\n"
	"guid2lid_file: /tmp/g2l\n"
	"log_level: debug\n"
	"log_file: /var/log/ibsm.log   # trailing comment\n"
	"dump_dir: /tmp/dumps\n";

static void check_every_key(const struct ibsm_config *c)
{
	assert_string_equal(c->ca_name, "mlx5_1");
	assert_int_equal(c->port_num, 2);
	assert_true(c->port_guid == 0);
	assert_string_equal(c->routing_engine, "ftree,updn");
	assert_string_equal(c->engine_paths, "/opt/a.so:/opt/b.so");
	assert_string_equal(c->root_guid_file, "/etc/ibsm/roots");
	assert_string_equal(c->cn_guid_file, "/etc/ibsm/cns");
	assert_int_equal(c->lmc, 2);
	assert_int_equal(c->sm_priority, 15);
	assert_true(c->subnet_prefix == 0xfec0000000000001ull);
	assert_int_equal(c->subnet_timeout, 31);
	assert_int_equal(c->sweep_interval_s, 0);
	assert_int_equal(c->once, 1);
	assert_int_equal(c->mad_window, 256);
	assert_int_equal(c->mad_timeout_ms, 1000);
	assert_int_equal(c->mad_retries, 0);
	assert_string_equal(c->cache_dir, "/tmp/ibsm cache");
	assert_string_equal(c->guid2lid_file, "/tmp/g2l");
	assert_int_equal(c->log_level, LOG_DEBUG);
	assert_string_equal(c->log_file, "/var/log/ibsm.log");
	assert_string_equal(c->dump_dir, "/tmp/dumps");
}

static void test_every_key(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c, every_key), 0);
	assert_string_equal(logged(&fx), "");
	check_every_key(&c);
	assert_int_equal(config_validate(&c), 0);
	done(&fx);
}

/* A file only overrides the keys it names. */
static void test_partial_file_keeps_defaults(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c, d;
	config_defaults(&c);
	config_defaults(&d);
	assert_int_equal(load_text(&fx, &c, "lmc: 1\n"), 0);
	assert_int_equal(c.lmc, 1);
	c.lmc = 0;
	assert_memory_equal(&c, &d, sizeof(c));
	done(&fx);
}

static void test_empty_and_comment_only_files(void **state)
{
	(void)state;
	const char *texts[] = { "", "# nothing here\n\n", "---\n", "---\n...\n" };
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct fixture fx = { 0 };
		struct ibsm_config c, d;
		config_defaults(&c);
		config_defaults(&d);
		assert_int_equal(load_text(&fx, &c, texts[i]), 0);
		assert_memory_equal(&c, &d, sizeof(c));
		done(&fx);
	}
}

/* An alias stands for the scalar it names. */
static void test_alias_is_its_value(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c,
		"cache_dir: &dir /srv/ibsm\n"
		"dump_dir: *dir\n"), 0);
	assert_string_equal(c.dump_dir, "/srv/ibsm");
	done(&fx);
}

/* A syntax error is reported alone: no half-parsed line before it is
 * reported as a bad value. */
static void test_syntax_error_alone(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c, "lmc: 1\n  once: true\n"), -EINVAL);
	assert_error_at(&fx, 2, "YAML syntax error");
	assert_null(strstr(logged(&fx), "bad value"));
	done(&fx);
}

/* List keys also take YAML sequences. */
static void test_sequences_for_lists(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c,
		"routing_engine: [updn, minhop, ftree]\n"
		"engine_paths:\n"
		"  - /a/libibsm-engine-x.so\n"
		"  - /b/libibsm-engine-y.so\n"), 0);
	assert_string_equal(c.routing_engine, "updn,minhop,ftree");
	assert_string_equal(c.engine_paths,
			    "/a/libibsm-engine-x.so:/b/libibsm-engine-y.so");
	done(&fx);
}

static void test_null_values_clear_strings(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	snprintf(c.log_file, sizeof(c.log_file), "/x");
	snprintf(c.ca_name, sizeof(c.ca_name), "mlx4_0");
	assert_int_equal(load_text(&fx, &c, "log_file:\nca_name: ~\n"), 0);
	assert_string_equal(c.log_file, "");
	assert_string_equal(c.ca_name, "");
	done(&fx);
}

static void test_unknown_key(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c, d;
	config_defaults(&c);
	config_defaults(&d);
	assert_int_equal(load_text(&fx, &c,
		"# comment\n"
		"lmc: 1\n"
		"\n"
		"routing_engin: updn\n"), -EINVAL);
	assert_error_at(&fx, 4, "unknown key 'routing_engin'");
	/* A file with errors changes nothing, not even its good lines. */
	assert_memory_equal(&c, &d, sizeof(c));
	done(&fx);
}

/* Each bad value names the key, the value and what is allowed. */
static void test_bad_values(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		unsigned line;
		const char *msg;
	} cases[] = {
		{ "lmc: 9\n", 1, "bad value for 'lmc': '9' (0..7)" },
		{ "once: true\n\nlmc: -1\n", 3, "bad value for 'lmc': '-1' (0..7)" },
		{ "sm_priority: 16\n", 1, "bad value for 'sm_priority': '16' (0..15)" },
		{ "subnet_timeout: 32\n", 1, "bad value for 'subnet_timeout': '32' (0..31)" },
		{ "port_num: 255\n", 1, "bad value for 'port_num': '255' (0..254)" },
		{ "mad_window: 0\n", 1, "bad value for 'mad_window': '0' (1..4096)" },
		{ "mad_timeout_ms: 10ms\n", 1,
		  "bad value for 'mad_timeout_ms': '10ms' (1..60000)" },
		{ "mad_retries: lots\n", 1, "bad value for 'mad_retries': 'lots'" },
		{ "sweep_interval: ''\n", 1, "bad value for 'sweep_interval': ''" },
		{ "log_file: \n\nonce: maybe\n", 3, "bad value for 'once': 'maybe' (true or false)" },
		{ "log_level: loud\n", 1, "bad value for 'log_level': 'loud'" },
		{ "port_guid: 0xZZ\n", 1, "bad value for 'port_guid': '0xZZ'" },
		{ "subnet_prefix: 0x1ffffffffffffffff\n", 1,
		  "bad value for 'subnet_prefix'" },
		{ "routing_engine: updn,,minhop\n", 1,
		  "bad value for 'routing_engine': 'updn,,minhop'" },
		{ "routing_engine: ''\n", 1, "bad value for 'routing_engine': ''" },
		{ "routing_engine: [updn, 'mi nhop']\n", 1,
		  "bad value for 'routing_engine': 'updn,mi nhop'" },
		/* the value's own line when it sits below its key */
		{ "lmc:\n  8\n", 2, "bad value for 'lmc': '8' (0..7)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture fx = { 0 };
		struct ibsm_config c;
		config_defaults(&c);
		assert_int_equal(load_text(&fx, &c, cases[i].text), -EINVAL);
		assert_error_at(&fx, cases[i].line, cases[i].msg);
		done(&fx);
	}
}

static void test_string_too_long(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	char text[256];
	snprintf(text, sizeof(text), "ca_name: %0100d\n", 7);
	assert_int_equal(load_text(&fx, &c, text), -EINVAL);
	assert_error_at(&fx, 1, "bad value for 'ca_name'");
	assert_non_null(strstr(logged(&fx), "at most 63 characters"));
	done(&fx);
}

/* Every bad line is reported, not only the first. */
static void test_all_errors_reported(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c,
		"lmc: 8\n"
		"colour: blue\n"
		"mad_window: 64\n"
		"sm_priority: 99\n"), -EINVAL);
	assert_error_at(&fx, 1, "bad value for 'lmc'");
	assert_error_at(&fx, 2, "unknown key 'colour'");
	assert_error_at(&fx, 4, "bad value for 'sm_priority'");
	assert_null(strstr(logged(&fx), ":3:"));
	done(&fx);
}

static void test_yaml_syntax_error(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c, d;
	config_defaults(&c);
	config_defaults(&d);
	/* An unterminated quoted string that runs to the end of the file. */
	assert_int_equal(load_text(&fx, &c,
		"lmc: 1\n"
		"mad_window: 64\n"
		"log_file: \"/var/log/ibsm.log\n"), -EINVAL);
	assert_error_at(&fx, 4, "YAML syntax error");
	assert_memory_equal(&c, &d, sizeof(c));
	done(&fx);

	/* A mapping value on the same line as another key. */
	struct fixture fx2 = { 0 };
	assert_int_equal(load_text(&fx2, &c,
		"lmc: 1\n"
		"mad_window: 64\n"
		"once: true\n"
		"sweep_interval: 5 mad_retries: 2\n"), -EINVAL);
	assert_error_at(&fx2, 4, "YAML syntax error");
	done(&fx2);

	/* Bad indentation. */
	struct fixture fx3 = { 0 };
	assert_int_equal(load_text(&fx3, &c, "lmc: 1\n  once: true\nmad_window: 3\n"),
			 -EINVAL);
	assert_error_at(&fx3, 2, "YAML syntax error");
	done(&fx3);
}

static void test_non_scalar_value(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c,
		"lmc: 1\n"
		"mad_window: [1, 2]\n"
		"log_file:\n"
		"  path: /tmp/x\n"
		"  level: debug\n"
		"mad_retries: 2\n"), -EINVAL);
	assert_error_at(&fx, 2, "value of 'mad_window' must be a single value, not a list");
	assert_error_at(&fx, 3, "value of 'log_file' must be a single value, not a mapping");
	/* nested lists in a list key */
	struct fixture fx2 = { 0 };
	assert_int_equal(load_text(&fx2, &c, "\nrouting_engine: [updn, [minhop]]\n"),
			 -EINVAL);
	assert_error_at(&fx2, 2, "'routing_engine' must be a list of plain values");
	done(&fx2);
	done(&fx);
}

static void test_top_level_not_a_mapping(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c, "# hi\n- lmc\n- once\n"), -EINVAL);
	assert_error_at(&fx, 2, "expected 'key: value' lines");
	done(&fx);

	struct fixture fx2 = { 0 };
	assert_int_equal(load_text(&fx2, &c, "lmc: 1\n---\nlmc: 2\n"), -EINVAL);
	assert_error_at(&fx2, 2, "only one YAML document is allowed");
	done(&fx2);

	struct fixture fx3 = { 0 };
	assert_int_equal(load_text(&fx3, &c, "? [a, b]\n: 1\n"), -EINVAL);
	assert_error_at(&fx3, 1, "keys must be plain names");
	done(&fx3);
}

static void test_duplicate_key(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c,
		"lmc: 1\n"
		"once: true\n"
		"# again\n"
		"lmc: 2\n"), -EINVAL);
	assert_error_at(&fx, 4, "duplicate key 'lmc' (first set at line 1)");
	done(&fx);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	capture_log(&fx);
	assert_int_equal(config_load_yaml(&c, "/nonexistent/ibsm.yaml"), -ENOENT);
	assert_string_equal(logged(&fx), "");
	/* A directory cannot be read as a file: reported, not a crash. */
	assert_true(config_load_yaml(&c, "/") < 0);
	done(&fx);
}

/* Command-line overrides go through config_set after the file. */
static void test_overrides_via_config_set(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c, every_key), 0);
	assert_int_equal(config_set(&c, "lmc", "3", "--lmc"), 0);
	assert_int_equal(config_set(&c, "routing_engine", "minhop", "-R"), 0);
	assert_int_equal(config_set(&c, "port_guid", "0x0002c90300000001", "-g"), 0);
	assert_int_equal(config_set(&c, "once", "1", "--once"), 0);
	assert_int_equal(c.lmc, 3);
	assert_string_equal(c.routing_engine, "minhop");
	assert_true(c.port_guid == 0x0002c90300000001ull);
	assert_int_equal(c.mad_window, 256);        /* from the file */

	/* A bad override names its origin and leaves the field alone. */
	assert_int_equal(config_set(&c, "lmc", "8", "--lmc"), -EINVAL);
	assert_int_equal(config_set(&c, "nope", "1", "--set"), -EINVAL);
	const char *log = logged(&fx);
	assert_non_null(strstr(log, "--lmc: bad value for 'lmc': '8' (0..7)"));
	assert_non_null(strstr(log, "--set: unknown key 'nope'"));
	assert_int_equal(c.lmc, 3);
	done(&fx);
}

static void test_validate(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	capture_log(&fx);
	struct ibsm_config c;
	config_defaults(&c);
	c.lmc = 8;
	assert_int_equal(config_validate(&c), -EINVAL);
	config_defaults(&c);
	c.mad_window = 0;
	assert_int_equal(config_validate(&c), -EINVAL);
	config_defaults(&c);
	c.port_guid = 0x1234;
	c.port_num = 1;
	assert_int_equal(config_validate(&c), -EINVAL);
	config_defaults(&c);
	c.cache_dir[0] = 0;
	assert_int_equal(config_validate(&c), -EINVAL);
	snprintf(c.guid2lid_file, sizeof(c.guid2lid_file), "/tmp/g");
	assert_int_equal(config_validate(&c), 0);
	config_defaults(&c);
	c.routing_engine[0] = 0;
	assert_int_equal(config_validate(&c), -EINVAL);
	config_defaults(&c);
	c.log_level = 7;
	assert_int_equal(config_validate(&c), -EINVAL);
	const char *log = logged(&fx);
	assert_non_null(strstr(log, "lmc 8 out of range"));
	assert_non_null(strstr(log, "port_guid excludes"));
	done(&fx);
}

/* What config_print writes, config_load_yaml reads back identically. */
static void test_print_round_trip(void **state)
{
	(void)state;
	struct fixture fx = { 0 };
	struct ibsm_config c, back;
	config_defaults(&c);
	assert_int_equal(load_text(&fx, &c, every_key), 0);
	snprintf(c.ca_name, sizeof(c.ca_name), "we\"ird\\name");
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	assert_non_null(mem);
	config_print(&c, mem);
	fclose(mem);
	assert_non_null(strstr(text, "lmc: 2\n"));
	assert_non_null(strstr(text, "log_level: debug\n"));
	assert_non_null(strstr(text, "subnet_prefix: 0xfec0000000000001\n"));
	done(&fx);

	struct fixture fx2 = { 0 };
	config_defaults(&back);
	assert_int_equal(load_text(&fx2, &back, text), 0);
	assert_memory_equal(&c, &back, sizeof(c));
	done(&fx2);
	free(text);
}

/* The shipped sample must load cleanly and name every key. */
static void test_contrib_sample(void **state)
{
	(void)state;
	struct ibsm_config c;
	config_defaults(&c);
	const char *path = "contrib/ibsm.yaml";
	if (access(path, R_OK)) {
		skip();
		return;
	}
	assert_int_equal(config_load_yaml(&c, path), 0);
	assert_int_equal(config_validate(&c), 0);
	/* It shows the defaults ... */
	struct ibsm_config d;
	config_defaults(&d);
	assert_memory_equal(&c, &d, sizeof(c));
	/* ... for every key config_print knows. */
	char *sample = NULL, *printed = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&sample, &len, 0, f) > 0);
	fclose(f);
	f = open_memstream(&printed, &len);
	config_print(&d, f);
	fclose(f);
	for (char *line = strtok(printed, "\n"); line; line = strtok(NULL, "\n")) {
		char want[80];
		snprintf(want, sizeof(want), "\n%.*s:", (int)strcspn(line, ":"), line);
		if (!strstr(sample, want))
			fail_msg("contrib/ibsm.yaml lacks key%s", want);
	}
	free(sample);
	free(printed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_partial_file_keeps_defaults),
		cmocka_unit_test(test_empty_and_comment_only_files),
		cmocka_unit_test(test_sequences_for_lists),
		cmocka_unit_test(test_alias_is_its_value),
		cmocka_unit_test(test_syntax_error_alone),
		cmocka_unit_test(test_null_values_clear_strings),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_string_too_long),
		cmocka_unit_test(test_all_errors_reported),
		cmocka_unit_test(test_yaml_syntax_error),
		cmocka_unit_test(test_non_scalar_value),
		cmocka_unit_test(test_top_level_not_a_mapping),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_overrides_via_config_set),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_print_round_trip),
		cmocka_unit_test(test_contrib_sample),
	};
	log_set_level(LOG_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
