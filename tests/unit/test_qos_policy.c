/* qos/qos_policy: OpenSM's qos-policy.conf read as it is, the level a
 * PathRecord request gets (match rules, then ULPs, then DEFAULT), and
 * every kind of error named with file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "qos/qos_policy.h"

static const char good[] =
	"# a policy with every section\n"
	"port-groups\n"
	"    port-group\n"
	"        name: Storage\n"
	"        use: SRP targets\n"
	"        port-guid: 0x10000000000001, 0x10000000000005-0x1000000000FFFA\n"
	"        port-guid: 0x1000000000FFFF\n"
	"    end-port-group\n"
	"    port-group\n"
	"        name: \"Virtual Servers\"\n"
	"        port-name: vs1 HCA-1/P1, \"vs2 HCA-1/P1\"\n"
	"    end-port-group\n"
	"    port-group\n"
	"        name: Part\n"
	"        pkey: 0x1234\n"
	"        partition: storage\n"
	"    end-port-group\n"
	"    port-group\n"
	"        name: switches\n"
	"        node-type: SWITCH, self\n"
	"    end-port-group\n"
	"end-port-groups\n"
	"qos-setup\n"
	"    vlarb-tables\n"
	"    end-vlarb-tables\n"
	"end-qos-setup\n"
	"qos-ulps\n"
	"    default : 0\n"
	"    sdp, port-num 30000 : 3\n"
	"    sdp : 1\n"
	"    rds : 2\n"
	"    iser : 3\n"
	"    ipoib, pkey 0x0001 : 5\n"
	"    ipoib : 4\n"
	"    any, service-id 0x6234 : 6\n"
	"    srp, target-port-guid 0x1234 : 5\n"
	"    any, source-port-guid 0x5678 : 7\n"
	"end-qos-ulps\n"
	"qos-levels\n"
	"    qos-level\n"
	"        name: DEFAULT\n"
	"        sl: 0\n"
	"    end-qos-level\n"
	"    qos-level\n"
	"        name: WholeSet\n"
	"        sl: 9\n"
	"        mtu-limit: 4\n"
	"        rate-limit: 5\n"
	"        pkey: 0x1234\n"
	"        packet-life: 8\n"
	"    end-qos-level\n"
	"end-qos-levels\n"
	"qos-match-rules\n"
	"    qos-match-rule\n"
	"        qos-class: 7-9,11\n"
	"        qos-level-name: wholeset\n"
	"    end-qos-match-rule\n"
	"    qos-match-rule\n"
	"        destination: Storage\n"
	"        service-id: 0x10000\n"
	"        qos-level-name: WholeSet\n"
	"    end-qos-match-rule\n"
	"end-qos-match-rules\n";

static int part_lookup(void *arg, const char *name)
{
	(void)arg;
	return !strcmp(name, "storage") ? 0x8002 : -1;
}

static uint16_t held_pkey;

static int has_pkey(void *arg, uint16_t pk)
{
	(void)arg;
	return (held_pkey & 0x7FFF) == pk;
}

static struct qos_port port(uint64_t guid)
{
	struct qos_port p = { .guid = guid, .node_type = QOS_NT_CA, .port_num = 1,
			      .node_desc = "host", .has_pkey = has_pkey };
	return p;
}

static uint8_t sl_of(const struct qos_policy *p, const struct qos_request *q,
		     uint64_t sguid, uint64_t dguid)
{
	struct qos_port s = port(sguid), d = port(dguid);
	const struct qos_level *l = qos_policy_level(p, q, &s, &d);

	assert_non_null(l);
	return l->sl;
}

static void test_good_file(void **state)
{
	char err[256] = "";
	struct qos_policy *p = qos_policy_parse("good.conf", good, err, sizeof(err));
	struct qos_request q = { 0 };
	const struct qos_level *l;

	(void)state;
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(qos_policy_resolve_partitions(p, part_lookup, NULL, err, sizeof(err)), 0);
	assert_int_equal(p->num_groups, 4 + 2);    /* two from the ULP GUIDs */
	assert_true(p->groups[2].pkeys.n == 2);
	assert_string_equal(p->groups[1].name, "Virtual Servers");
	/* No component: the default. */
	assert_int_equal(sl_of(p, &q, 1, 2), 0);
	/* Match rules come before the ULPs (qos-ulps is earlier in the file):
	 * service ID 0x10000 to a Storage port is WholeSet, elsewhere SDP. */
	q.has_sid = 1;
	q.service_id = 0x10000;
	assert_int_equal(sl_of(p, &q, 1, 0x10000000000001ull), 9);
	assert_int_equal(sl_of(p, &q, 1, 0x1000000000FFFFull), 9);
	assert_int_equal(sl_of(p, &q, 1, 0x10000000000004ull), 1);
	/* ULP order: sdp port 30000 before sdp. */
	q.service_id = 0x10000 + 30000;
	assert_int_equal(sl_of(p, &q, 1, 2), 3);
	q.service_id = 0x10648CA;
	assert_int_equal(sl_of(p, &q, 1, 2), 2);
	q.service_id = 0x1060CBC;
	assert_int_equal(sl_of(p, &q, 1, 2), 3);
	q.service_id = 0x6234;
	assert_int_equal(sl_of(p, &q, 1, 2), 6);
	/* A service ID without both halves asked is no service ID. */
	q.has_sid = 0;
	assert_int_equal(sl_of(p, &q, 1, 2), 0);
	/* IPoIB: by P_Key, without the membership bit. */
	q.has_pkey = 1;
	q.pkey = 0xFFFF;
	assert_int_equal(sl_of(p, &q, 1, 2), 4);
	q.pkey = 0x8001;
	assert_int_equal(sl_of(p, &q, 1, 2), 5);
	q.has_pkey = 0;
	/* Target and source port GUIDs. */
	assert_int_equal(sl_of(p, &q, 1, 0x1234), 5);
	assert_int_equal(sl_of(p, &q, 0x5678, 2), 7);
	/* QoS class needs the component. */
	q.qos_class = 8;
	assert_int_equal(sl_of(p, &q, 1, 2), 0);
	q.has_class = 1;
	assert_int_equal(sl_of(p, &q, 1, 2), 9);
	q.qos_class = 10;
	assert_int_equal(sl_of(p, &q, 1, 2), 0);
	/* The level's limits. */
	q.qos_class = 11;
	{
		struct qos_port s = port(1), d = port(2);

		l = qos_policy_level(p, &q, &s, &d);
		assert_true(l->mtu_set && l->mtu_limit == 4);
		assert_true(l->rate_set && l->rate_limit == 5);
		assert_true(l->pkt_life_set && l->pkt_life == 8);
		assert_true(qos_ranges_has(&l->pkeys, 0x1234));
	}
	qos_policy_free(p);
}

static void test_port_groups(void **state)
{
	static const char txt[] =
		"port-groups\n port-group\n name: vs\n port-name: vs1 HCA-1/P1\n end-port-group\n"
		" port-group\n name: part\n partition: storage\n end-port-group\n"
		" port-group\n name: sw\n node-type: SWITCH\n end-port-group\n"
		"end-port-groups\n"
		"qos-levels\n qos-level\n name: DEFAULT\n sl: 0\n end-qos-level\n"
		" qos-level\n name: L1\n sl: 1\n end-qos-level\n"
		" qos-level\n name: L2\n sl: 2\n end-qos-level\n"
		" qos-level\n name: L3\n sl: 3\n end-qos-level\nend-qos-levels\n"
		"qos-match-rules\n"
		" qos-match-rule\n source: vs\n destination: part\n qos-level-name: L1\n end-qos-match-rule\n"
		" qos-match-rule\n destination: sw\n qos-level-name: L2\n end-qos-match-rule\n"
		" qos-match-rule\n source: part\n qos-level-name: L3\n end-qos-match-rule\n"
		"end-qos-match-rules\n";
	char err[256];
	struct qos_policy *p = qos_policy_parse("g.conf", txt, err, sizeof(err));
	struct qos_request q = { 0 };
	struct qos_port vs = port(1), other = port(2), sw = port(3);

	(void)state;
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(qos_policy_resolve_partitions(p, part_lookup, NULL, err, sizeof(err)), 0);
	vs.node_desc = "vs1 HCA-1";
	sw.node_type = QOS_NT_SWITCH;
	held_pkey = 0x8002;
	assert_int_equal(qos_policy_level(p, &q, &vs, &other)->sl, 1);
	held_pkey = 0xFFFF;
	assert_int_equal(qos_policy_level(p, &q, &vs, &other)->sl, 0);
	assert_int_equal(qos_policy_level(p, &q, &other, &sw)->sl, 2);
	vs.port_num = 2;        /* vs1 HCA-1/P2 is not in the group */
	held_pkey = 0x8002;
	assert_int_equal(qos_policy_level(p, &q, &vs, &other)->sl, 3);
	held_pkey = 0;
	qos_policy_free(p);
	/* An unknown partition name. */
	p = qos_policy_parse("g.conf", txt, err, sizeof(err));
	assert_int_equal(qos_policy_resolve_partitions(p, NULL, NULL, err, sizeof(err)), -1);
	assert_string_equal(err, "g.conf: port-group 'part': unknown partition 'storage'");
	qos_policy_free(p);
}

static void test_ulps_only(void **state)
{
	char err[256];
	struct qos_policy *p = qos_policy_parse("u.conf",
		"qos-ulps\n  default : 3 # the default\nend-qos-ulps\n", err, sizeof(err));
	struct qos_request q = { 0 };

	(void)state;
	if (!p)
		fail_msg("%s", err);
	assert_int_equal(sl_of(p, &q, 1, 2), 3);
	qos_policy_free(p);
}

/* Each kind of error: the message with file:line. */
static void test_errors(void **state)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "qos-levels\n qos-level\n name: DEFAULT\n sl: 16\n end-qos-level\nend-qos-levels\n",
		  "e.conf:4: sl 16 out of range 0-15" },
		{ "qos-levels\n qos-level\n name: DEFAULT\n colour: red\n end-qos-level\nend-qos-levels\n",
		  "e.conf:4: unknown keyword 'colour' in qos-level" },
		{ "qos-levels\n qos-level\n name: DEFAULT\n sl: 0\n",
		  "e.conf:4: 'qos-level' opened at line 2 has no end" },
		{ "qos-ulps\n default : 0\n any, service-id 0x10-0x1 : 2\nend-qos-ulps\n",
		  "e.conf:3: service-id: range 0x10-0x1: low end above high end" },
		{ "qos-ulps\n default : 0\n any, service-id 0xZZ : 2\nend-qos-ulps\n",
		  "e.conf:3: bad number '0xZZ'" },
		{ "qos-ulps\n default : 0\n nfs : 2\nend-qos-ulps\n",
		  "e.conf:3: qos-ulps: unknown ULP 'nfs' (default, any, sdp, rds, iser, ipoib, srp)" },
		{ "qos-ulps\n default : 0\n sdp 2\nend-qos-ulps\n",
		  "e.conf:3: qos-ulps entry 'sdp 2' has no ': SL'" },
		{ "qos-ulps\n default : 0\nend-qos-ulps\n"
		  "qos-match-rules\n qos-match-rule\n qos-level-name: Fast\n end-qos-match-rule\nend-qos-match-rules\n",
		  "e.conf:6: qos-level-name 'Fast': no such qos-level" },
		{ "qos-ulps\n default : 0\nend-qos-ulps\n"
		  "qos-match-rules\n qos-match-rule\n source: nowhere\n qos-level-name: DEFAULT\n end-qos-match-rule\nend-qos-match-rules\n",
		  "e.conf:6: source 'nowhere': no such port-group" },
		{ "qos-ulps\n default : 0\nend-qos-ulps\n"
		  "qos-match-rules\n qos-match-rule\n service-id: 1\n end-qos-match-rule\nend-qos-match-rules\n",
		  "e.conf:7: qos-match-rule (line 5) has no qos-level-name" },
		{ "qos-levels\n qos-level\n sl: 1\n end-qos-level\nend-qos-levels\n",
		  "e.conf:4: qos-level (line 2) has no name" },
		{ "qos-levels\n qos-level\n name: A\n sl: 1\n end-qos-level\nend-qos-levels\n",
		  "e.conf: no qos-level named DEFAULT and no 'default' in qos-ulps" },
		{ "qos-levels\n qos-level\n name: DEFAULT\n end-qos-level\n qos-level\n name: default\n end-qos-level\nend-qos-levels\n",
		  "e.conf:5: qos-level 'default' defined twice" },
		{ "port-group\n",
		  "e.conf:1: 'port-group' inside top level" },
		{ "end-qos-ulps\n",
		  "e.conf:1: 'end-qos-ulps' without 'qos-ulps'" },
		{ "port-groups\n port-group\n name: x\n node-type: HOST\n end-port-group\nend-port-groups\n",
		  "e.conf:4: node-type 'HOST': not CA, SWITCH, ROUTER, ALL or SELF" },
		{ "qos-levels\n qos-level\n name: DEFAULT\n mtu-limit: 6\n end-qos-level\nend-qos-levels\n",
		  "e.conf:4: mtu-limit 6 out of range 1-5" },
		{ "qos-ulps\n default : 0\n default : 1\nend-qos-ulps\n",
		  "e.conf:3: qos-ulps: 'default' given twice (first at line 2)" },
		{ "qos-ulps\n default : 0\n srp : 1\nend-qos-ulps\n",
		  "e.conf:3: qos-ulps: 'srp' needs target-port-guid" },
	};
	char err[256];

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct qos_policy *p = qos_policy_parse("e.conf", cases[i].text, err, sizeof(err));

		if (p)
			fail_msg("case %u parsed: %s", i, cases[i].text);
		assert_string_equal(err, cases[i].msg);
	}
	assert_null(qos_policy_read("/nonexistent/qos.conf", err, sizeof(err)));
	assert_string_equal(err, "/nonexistent/qos.conf: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_port_groups),
		cmocka_unit_test(test_ulps_only),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
