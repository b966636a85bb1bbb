/* The qos: section of the YAML configuration (sm/config/config_qos.h): the same
 * policy as OpenSM's qos-policy.conf text (the same levels for the same
 * requests), the table keys, and errors naming the YAML line and field. */
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
#include "qos/qos_policy.h"
#include "qos/qos_src.h"
#include "sm/config/config.h"
#include "tests/unit/support.h"

static char path[UT_PATH_MAX];
static FILE *log_sink;

static int load(struct ibsm_config *c, const char *text)
{
	ut_temp_file(path, sizeof(path), "qos", text);
	log_sink = tmpfile();
	log_set_stream(log_sink);
	config_defaults(c);
	return config_load_yaml(c, path);
}

static void logged_has(unsigned line, const char *what)
{
	char buf[4096], want[UT_PATH_MAX + 64];
	size_t n;

	fflush(log_sink);
	rewind(log_sink);
	n = fread(buf, 1, sizeof(buf) - 1, log_sink);
	buf[n] = 0;
	snprintf(want, sizeof(want), "%s:%u: %s", path, line, what);
	if (!strstr(buf, want))
		fail_msg("expected \"%s\" in log:\n%s", want, buf);
}

static void done(struct ibsm_config *c)
{
	log_set_stream(NULL);
	fclose(log_sink);
	unlink(path);
	config_free(c);
}

static const char yaml[] =
	"cache_dir: /tmp\n"
	"qos:\n"
	"  port-groups:\n"
	"    - name: Target\n"
	"      port-guid: 0x0002c9030000000b\n"
	"    - name: Pair\n"
	"      port-guid: [0x10, 0x20-0x2f]\n"
	"  qos-levels:\n"
	"    - {name: DEFAULT, sl: 0}\n"
	"    - name: ToTarget\n"
	"      sl: 4\n"
	"      mtu-limit: 4\n"
	"    - {name: Pairs, sl: 5, packet-life: 12}\n"
	"  qos-match-rules:\n"
	"    - destination: Target\n"
	"      qos-level-name: ToTarget\n"
	"    - source: Pair\n"
	"      destination: Pair\n"
	"      service-id: [0x500, 0x600-0x6ff]\n"
	"      qos-level-name: Pairs\n"
	"  qos-ulps:\n"
	"    - {ulp: default, sl: 0}\n"
	"    - {ulp: any, service-id: 0x1000-0x1fff, sl: 2}\n"
	"    - {ulp: sdp, port-num: 3000, sl: 3}\n"
	"  sl2vl: \"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\"\n"
	"  swe:\n"
	"    vlarb_low: \"0:8,1:16\"\n"
	"    high_limit: 2\n";

/* The same policy as OpenSM's file. */
static const char conf[] =
	"port-groups\n"
	"port-group\nname: Target\nport-guid: 0x0002c9030000000b\nend-port-group\n"
	"port-group\nname: Pair\nport-guid: 0x10, 0x20-0x2f\nend-port-group\n"
	"end-port-groups\n"
	"qos-levels\n"
	"qos-level\nname: DEFAULT\nsl: 0\nend-qos-level\n"
	"qos-level\nname: ToTarget\nsl: 4\nmtu-limit: 4\nend-qos-level\n"
	"qos-level\nname: Pairs\nsl: 5\npacket-life: 12\nend-qos-level\n"
	"end-qos-levels\n"
	"qos-match-rules\n"
	"qos-match-rule\ndestination: Target\nqos-level-name: ToTarget\nend-qos-match-rule\n"
	"qos-match-rule\nsource: Pair\ndestination: Pair\nservice-id: 0x500, 0x600-0x6ff\n"
	"qos-level-name: Pairs\nend-qos-match-rule\n"
	"end-qos-match-rules\n"
	"qos-ulps\ndefault : 0\nany, service-id 0x1000-0x1fff : 2\nsdp, port-num 3000 : 3\nend-qos-ulps\n";

static int no_pkey(void *arg, uint16_t pk)
{
	(void)arg;
	(void)pk;
	return 0;
}

static const struct qos_level *level(const struct qos_policy *p, uint64_t s,
				     uint64_t d, uint64_t sid)
{
	struct qos_port a = { .guid = s, .node_type = QOS_NT_CA, .port_num = 1,
			      .node_desc = "h", .has_pkey = no_pkey };
	struct qos_port b = a;
	struct qos_request q = { .service_id = sid, .has_sid = sid != 0 };

	b.guid = d;
	return qos_policy_level(p, &q, &a, &b);
}

static void test_same_policy_as_the_file(void **state)
{
	struct ibsm_config c;
	char err[512];
	struct qos_policy *y, *f;
	static const uint64_t guids[] = { 0x1, 0x10, 0x25, 0x2c9030000000bull };
	static const uint64_t sids[] = { 0, 0x500, 0x650, 0x1234, 0x10000 + 3000, 0x9999 };

	(void)state;
	assert_int_equal(load(&c, yaml), 0);
	assert_int_equal(c.qos, 1);                 /* a section means on */
	assert_non_null(c.qos_src);
	y = qos_src_parse(c.qos_src, err, sizeof(err));
	assert_non_null(y);
	f = qos_policy_parse("f.conf", conf, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(y->num_groups, f->num_groups);
	assert_int_equal(y->num_levels, f->num_levels);
	assert_int_equal(y->num_rules, f->num_rules);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 4; j++)
			for (unsigned k = 0; k < 6; k++) {
				const struct qos_level *a = level(y, guids[i], guids[j], sids[k]);
				const struct qos_level *b = level(f, guids[i], guids[j], sids[k]);

				assert_non_null(a);
				assert_non_null(b);
				assert_int_equal(a->sl, b->sl);
				assert_int_equal(a->mtu_limit, b->mtu_limit);
				assert_int_equal(a->pkt_life, b->pkt_life);
			}
	assert_int_equal(level(y, 0x10, 0x25, 0x650)->sl, 5);
	assert_int_equal(level(y, 0x1, 0x2c9030000000bull, 0x1234)->sl, 4);
	assert_int_equal(level(y, 0x1, 0x10, 0x1234)->sl, 2);
	assert_int_equal(level(y, 0x1, 0x10, 0x10000 + 3000)->sl, 3);
	/* The table keys. */
	assert_string_equal(c.qos_vl[QOS_PT_ALL].sl2vl, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
	assert_string_equal(c.qos_vl[QOS_PT_SWE].vlarb_low, "0:8,1:16");
	assert_int_equal(c.qos_vl[QOS_PT_SWE].high_limit, 2);
	assert_int_equal(c.qos_vl[QOS_PT_CA].high_limit, -1);
	qos_policy_free(y);
	qos_policy_free(f);
	done(&c);
}

static void test_disabled_and_tables_only(void **state)
{
	struct ibsm_config c;

	(void)state;
	assert_int_equal(load(&c, "cache_dir: /tmp\nqos:\n  enabled: false\n  ca: {sl2vl: \"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,15\"}\n"), 0);
	assert_int_equal(c.qos, 0);
	assert_null(c.qos_src);                     /* no policy: qos_policy_file's */
	assert_string_equal(c.qos_vl[QOS_PT_CA].sl2vl, "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,15");
	done(&c);
}

static void test_errors_name_line_and_field(void **state)
{
	struct ibsm_config c;
	static const struct { const char *text; unsigned line; const char *what; } bad[] = {
		{ "qos:\n  qos-levels:\n    - {name: DEFAULT, sl: 0}\n    - name: X\n      sl: 17\n",
		  5, "sl 17 out of range 0-15" },
		{ "qos:\n  qos-levels:\n    - name: DEFAULT\n      colour: red\n",
		  4, "unknown keyword 'colour' in qos-level" },
		{ "qos:\n  qos-levels:\n    - {name: DEFAULT, sl: 0}\n  qos-match-rules:\n    - source: nowhere\n      qos-level-name: DEFAULT\n",
		  5, "source 'nowhere': no such port-group" },
		{ "qos:\n  qos-ulps:\n    - {ulp: default, sl: 0}\n    - {ulp: nfs, sl: 1}\n",
		  4, "qos-ulps: unknown ULP 'nfs'" },
		{ "qos:\n  qos-ulps:\n    - {ulp: any, sl: 1, colour: 2}\n",
		  3, "qos: qos-ulps: unknown field 'colour'" },
		{ "qos:\n  qos-ulps:\n    - {ulp: any, service-id: 1, pkey: 2, sl: 1}\n",
		  3, "qos: qos-ulps: 'service-id' and 'pkey': one criterion per entry" },
		{ "qos:\n  rtr:\n    sl2vl: \"1,2\"\n",
		  3, "bad value for 'qos_rtr_sl2vl': '1,2' (2 VLs given" },
		{ "qos_sw0_high_limit: 1\nqos:\n  sw0: {high_limit: 2}\n",
		  3, "duplicate key 'qos_sw0_high_limit' (first set at line 1)" },
		{ "qos:\n  bandwidth: 3\n", 2, "qos: unknown key 'bandwidth'" },
		{ "qos: true\nqos:\n  enabled: true\n", 2, "duplicate key 'qos'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load(&c, bad[i].text), -EINVAL);
		logged_has(bad[i].line, bad[i].what);
		assert_null(c.qos_src);             /* a file with errors changes nothing */
		done(&c);
	}
}

static void test_print_shows_the_policy(void **state)
{
	struct ibsm_config c;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(load(&c, yaml), 0);
	f = open_memstream(&out, &len);
	config_print(&c, f);
	fclose(f);
	assert_non_null(strstr(out, "\nqos: true\n# qos: the policy of the qos: section of "));
	assert_non_null(strstr(out, "\n#   any, service-id 0x1000-0x1fff : 2\n"));
	free(out);
	done(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_policy_as_the_file),
		cmocka_unit_test(test_disabled_and_tables_only),
		cmocka_unit_test(test_errors_name_line_and_field),
		cmocka_unit_test(test_print_shows_the_policy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
