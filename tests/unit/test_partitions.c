/* Partitions: the YAML `partitions` list (every error names file and
 * line, a print/load round trip), member parsing, and the membership
 * rules of partition/part_table.h on a small fabric: default partition
 * with and without a 0x7FFF entry, later members overriding earlier ones,
 * keywords, table order, capacity, switch ports facing CAs, and the
 * sharing rules the SA applies (IBA 10.9.1.2). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <infiniband/mad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "partition/part_table.h"
#include "sm/config/config.h"
#include "tests/unit/support.h"

static char logbuf[8192];

/* PATH: UT_PATH_MAX bytes. */
static int load(struct ibsm_config *c, const char *text, char *path)
{
	FILE *lg;
	int rc;
	size_t n;

	ut_temp_file(path, UT_PATH_MAX, "part", text);
	lg = tmpfile();
	log_set_stream(lg);
	rc = config_load_yaml(c, path);
	log_set_stream(NULL);
	rewind(lg);
	n = fread(logbuf, 1, sizeof(logbuf) - 1, lg);
	logbuf[n] = 0;
	fclose(lg);
	unlink(path);
	return rc;
}

static void assert_logged(const char *path, unsigned line, const char *what)
{
	char want[512];

	snprintf(want, sizeof(want), "%s:%u: partitions: %s", path, line, what);
	if (!strstr(logbuf, want))
		fail_msg("expected \"%s\" in log:\n%s", want, logbuf);
}

static const char good[] =
	"lmc: 0\n"
	"partitions:\n"
	"  - name: Default\n"
	"    pkey: 0x7fff\n"
	"    members: [ALL=limited, SELF=full]\n"
	"  - name: blue\n"
	"    pkey: 1\n"
	"    defmember: full\n"
	"    ipoib: yes\n"
	"    mtu: 5\n"
	"    rate: 16\n"
	"    qkey: 0x1234\n"
	"    members:\n"
	"      - 0x0002c90300000003\n"
	"      - 0x0002c90300000005=limited\n"
	"      - ALL_SWITCHES=both\n";

static void test_yaml_good_and_round_trip(void **state)
{
	struct ibsm_config c, d;
	char path[UT_PATH_MAX], *printed = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	config_defaults(&c);
	assert_int_equal(load(&c, good, path), 0);
	assert_non_null(c.partitions);
	assert_int_equal(c.partitions->n, 2);
	assert_string_equal(c.partitions->p[1].name, "blue");
	assert_int_equal(c.partitions->p[1].pkey, 1);
	assert_int_equal(c.partitions->p[1].ipoib, 1);
	assert_int_equal(c.partitions->p[1].mtu, 5);
	assert_int_equal(c.partitions->p[1].rate, 16);
	assert_int_equal(c.partitions->p[1].qkey, 0x1234);
	assert_int_equal(c.partitions->p[1].n, 3);
	assert_int_equal(c.partitions->p[1].m[0].full, 1);      /* defmember */
	assert_int_equal(c.partitions->p[1].m[1].full, 0);
	assert_int_equal(c.partitions->p[1].m[2].kind, PM_ALL_SWITCHES);
	assert_int_equal(c.partitions->p[1].m[2].full, 1);      /* both = full */
	/* --dump-config loads back to the same partitions. */
	f = open_memstream(&printed, &len);
	config_print(&c, f);
	fclose(f);
	config_defaults(&d);
	assert_int_equal(load(&d, printed, path), 0);
	assert_int_equal(d.partitions->n, 2);
	for (uint32_t i = 0; i < 2; i++) {
		assert_string_equal(d.partitions->p[i].name, c.partitions->p[i].name);
		assert_int_equal(d.partitions->p[i].pkey, c.partitions->p[i].pkey);
		assert_int_equal(d.partitions->p[i].n, c.partitions->p[i].n);
		assert_memory_equal(d.partitions->p[i].m, c.partitions->p[i].m,
				    c.partitions->p[i].n * sizeof(struct part_member));
	}
	free(printed);
	config_free(&c);
	config_free(&d);
	assert_null(c.partitions);
}

static void test_yaml_errors_name_lines(void **state)
{
	struct ibsm_config c, d;
	char path[UT_PATH_MAX];

	(void)state;
	config_defaults(&c);
	config_defaults(&d);
	assert_int_equal(load(&c,
		"partitions:\n"                         /* 1 */
		"  - name: a\n"                         /* 2 */
		"    pkey: 0x8001\n"                    /* 3 */
		"  - name: b\n"                         /* 4 */
		"    pkey: 2\n"                         /* 5 */
		"    members: [ALL=half, 0xzz, ALL]\n"  /* 6 */
		"    colour: red\n"                     /* 7 */
		"  - name: c\n"                         /* 8 */
		"    mtu: 9\n"                          /* 9 */
		"  - just a string\n",                  /* 10 */
		path), -EINVAL);
	assert_logged(path, 3, "pkey '0x8001': a partition number is 15 bits");
	assert_logged(path, 6, "member 'ALL=half': membership 'half'");
	assert_logged(path, 6, "member '0xzz': not a port GUID");
	assert_logged(path, 7, "unknown key 'colour'");
	assert_logged(path, 9, "bad mtu '9'");
	assert_logged(path, 8, "partition 'c' has no pkey");
	assert_logged(path, 10, "each partition is a mapping");
	/* Nothing applied. */
	assert_null(c.partitions);
	assert_memory_equal(&c, &d, sizeof(c));
	/* Duplicate P_Keys: refused, naming both lines. */
	assert_int_equal(load(&c,
		"partitions:\n  - name: a\n    pkey: 5\n  - name: b\n    pkey: 0x0005\n",
		path), -EINVAL);
	if (!strstr(logbuf, ":4: partition 'b': P_Key 0x0005 already used by 'a' (line 2)"))
		fail_msg("log: %s", logbuf);
	/* Not a list; --set cannot give it. */
	assert_int_equal(load(&c, "partitions: 7\n", path), -EINVAL);
	assert_logged(path, 1, "must be a list of partitions");
	assert_int_equal(config_set(&c, "partitions", "x", "--set"), -EINVAL);
	/* Empty list: the default (no partitions object). */
	assert_int_equal(load(&c, "partitions: []\n", path), 0);
	assert_null(c.partitions);
}

/* --- membership rules on a fabric: SM CA, CA a, CA b, CA c, one switch -- */

struct fx {
	struct subnet r;
	uint32_t sm, a, b, c, sw0, swa;    /* port indexes */
};

static uint32_t add_ca(struct fx *x, uint64_t guid, uint32_t sw, unsigned swport)
{
	uint32_t n = fab_add_node(&x->r.fab, FAB_CA, 1, guid, "ca");
	uint32_t p = fab_port_idx(&x->r.fab, n, 1);

	x->r.fab.ports[p].guid = guid + 1;
	assert_int_equal(fab_link(&x->r.fab, p, fab_port_idx(&x->r.fab, sw, swport)), 0);
	return p;
}

static void make_fabric(struct fx *x, unsigned ca_cap, unsigned sw_enf_cap)
{
	struct fabric *f = &x->r.fab;
	uint32_t sw;

	memset(x, 0, sizeof(*x));
	subnet_init(&x->r);
	sw = fab_add_node(f, FAB_SWITCH, 8, 0x100, "sw");
	f->ports[fab_port_idx(f, sw, 0)].guid = 0x100;
	x->sm = add_ca(x, 0x10, sw, 1);
	x->a = add_ca(x, 0x20, sw, 2);
	x->b = add_ca(x, 0x30, sw, 3);
	x->c = add_ca(x, 0x40, sw, 4);
	ut_subnet_arrays(&x->r);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		mad_set_field(x->r.node_info[n], 0, IB_NODE_PARTITION_CAP_F,
			      f->nodes[n].type == FAB_SWITCH ? 32 : ca_cap);
	mad_set_field(x->r.sw_info[sw], 0, IB_SW_PARTITION_ENFORCE_CAP_F, sw_enf_cap);
	mad_set_field(x->r.sw_info[sw], 0, IB_SW_PARTITION_ENF_INB_F, 1);
	mad_set_field(x->r.sw_info[sw], 0, IB_SW_PARTITION_ENF_OUTB_F, 1);
	x->r.sm_port = x->sm;
	x->sw0 = fab_port_idx(f, sw, 0);
	x->swa = fab_port_idx(f, sw, 2);
}

static void keys_are(const struct part_tables *t, uint32_t p, const uint16_t *want, unsigned n)
{
	assert_int_equal(part_num_keys(t, p), n);
	for (unsigned i = 0; i < n; i++)
		if (part_keys(t, p)[i] != want[i])
			fail_msg("port %u entry %u: 0x%04x, want 0x%04x", p, i,
				 part_keys(t, p)[i], want[i]);
}

static struct part_conf *conf(const char *yaml)
{
	struct ibsm_config c;
	char path[UT_PATH_MAX];

	config_defaults(&c);
	assert_int_equal(load(&c, yaml, path), 0);
	return c.partitions;
}

static void conf_free(struct part_conf *pc)
{
	part_conf_free(pc);
	free(pc);
}

static void test_default_only(void **state)
{
	struct fx x;
	struct part_tables t;
	struct part_build_stats bs;
	const uint16_t full[] = { 0xFFFF };

	(void)state;
	make_fabric(&x, 64, 64);
	part_tables_init(&t);
	assert_int_equal(part_tables_build(&t, NULL, &x.r, &bs), 0);
	keys_are(&t, x.a, full, 1);
	keys_are(&t, x.sw0, full, 1);
	keys_are(&t, x.swa, full, 1);           /* the switch port facing a */
	assert_int_equal(t.enforce[x.swa], 1);
	assert_int_equal(part_common_pkey(&t, x.a, x.b), 0xFFFF);
	part_tables_free(&t);
	subnet_free(&x.r);
}

/* A switch that reports a P_Key table per port but can enforce in no
 * direction (ibsim's do) never uses the table: none is kept for its
 * ports; one direction is enough to keep it. */
static void test_switch_cannot_enforce(void **state)
{
	struct fx x;
	struct part_tables t;
	struct part_build_stats bs;
	const uint16_t full[] = { 0xFFFF };
	uint32_t sw;

	(void)state;
	make_fabric(&x, 64, 64);
	sw = x.r.fab.ports[x.swa].node;
	mad_set_field(x.r.sw_info[sw], 0, IB_SW_PARTITION_ENF_INB_F, 0);
	mad_set_field(x.r.sw_info[sw], 0, IB_SW_PARTITION_ENF_OUTB_F, 0);
	part_tables_init(&t);
	assert_int_equal(part_tables_build(&t, NULL, &x.r, &bs), 0);
	keys_are(&t, x.a, full, 1);
	keys_are(&t, x.sw0, full, 1);           /* port 0 is an end port */
	assert_int_equal(part_num_keys(&t, x.swa), 0);
	assert_int_equal(t.enforce[x.swa], 0);
	assert_int_equal(bs.enforce_no_cap, 4); /* the ports facing 4 CAs */
	assert_int_equal(bs.ports, 5);          /* 4 CA ports and port 0 */
	mad_set_field(x.r.sw_info[sw], 0, IB_SW_PARTITION_ENF_OUTB_F, 1);
	assert_int_equal(part_tables_build(&t, NULL, &x.r, &bs), 0);
	keys_are(&t, x.swa, full, 1);
	assert_int_equal(t.enforce[x.swa], 1);
	assert_int_equal(bs.enforce_no_cap, 0);
	part_tables_free(&t);
	subnet_free(&x.r);
}

static void test_rules(void **state)
{
	struct fx x;
	struct part_tables t;
	struct part_build_stats bs;
	struct part_conf *pc = conf(
		"partitions:\n"
		"  - pkey: 0x7fff\n"
		"    members: [ALL=limited, 0x41=full]\n"
		"  - name: p1\n"
		"    pkey: 0x0001\n"
		"    members: [0x21=full, 0x31=full, 0x21=limited, 0x999=full]\n"
		"  - name: p2\n"
		"    pkey: 0x0002\n"
		"    members: [ALL_CAS=limited, 0x41=full]\n"
		"  - name: sw\n"
		"    pkey: 0x0003\n"
		"    members: [ALL_SWITCHES=full, SELF]\n");

	(void)state;
	make_fabric(&x, 64, 64);
	part_tables_init(&t);
	assert_int_equal(part_tables_build(&t, pc, &x.r, &bs), 0);
	assert_int_equal(bs.unknown_guids, 1);
	{
		/* Later members override earlier ones (0x21 ends limited). */
		const uint16_t a[] = { 0x7FFF, 0x0001, 0x0002 };
		const uint16_t b[] = { 0x7FFF, 0x8001, 0x0002 };
		const uint16_t c[] = { 0xFFFF, 0x8002 };
		const uint16_t sm[] = { 0xFFFF, 0x0002, 0x0003 };
		const uint16_t sw0[] = { 0x7FFF, 0x8003 };

		keys_are(&t, x.a, a, 3);
		keys_are(&t, x.b, b, 3);
		keys_are(&t, x.c, c, 2);
		keys_are(&t, x.sm, sm, 3);      /* SELF full in the default, always */
		keys_are(&t, x.sw0, sw0, 2);
		keys_are(&t, x.swa, a, 3);      /* switch port facing a: a's table */
	}
	/* Sharing (IBA 10.9.1.2): one full member needed. */
	assert_int_equal(part_common_pkey(&t, x.a, x.b), 0x0001);      /* a's entry */
	assert_int_equal(part_common_pkey(&t, x.b, x.a), 0x8001);
	assert_int_equal(part_common_pkey(&t, x.a, x.c), 0x7FFF);      /* default first */
	assert_int_equal(part_share_pkey(&t, x.a, x.b, 0x0002), 0);    /* both limited */
	assert_int_equal(part_share_pkey(&t, x.a, x.c, 0x0002), 1);
	assert_int_equal(part_share_pkey(&t, x.a, x.sm, 0x8001), 0);   /* sm not in p1 */
	assert_int_equal(part_port_entry(&t, x.sm, 0x0003), 0x0003);
	assert_int_equal(part_port_entry(&t, x.c, 0x0001), 0);
	/* Blocks: one, zero-padded. */
	{
		uint16_t blk[32];

		assert_int_equal(part_blocks(&t, x.a), 1);
		part_block(&t, x.a, 0, blk);
		assert_int_equal(blk[2], 0x0002);
		assert_int_equal(blk[3], 0);
	}
	part_tables_free(&t);
	conf_free(pc);
	subnet_free(&x.r);
}

static void test_capacity(void **state)
{
	struct fx x;
	struct part_tables t;
	struct part_build_stats bs;
	struct part_conf *pc = conf(
		"partitions:\n"
		"  - {pkey: 1, members: [ALL_CAS=full]}\n"
		"  - {pkey: 2, members: [ALL_CAS=full]}\n");

	(void)state;
	/* CAs hold 2 entries, switch ports enforce 1: the last partition is
	 * dropped on CAs, and the switch ports facing them turn enforcement
	 * off (the table does not fit), as OpenSM. */
	make_fabric(&x, 2, 1);
	part_tables_init(&t);
	assert_int_equal(part_tables_build(&t, pc, &x.r, &bs), 0);
	assert_int_equal(part_num_keys(&t, x.a), 2);
	assert_int_equal(bs.dropped, 4);            /* 0x8002 on 4 CAs */
	assert_int_equal(bs.enforce_off_full, 4);
	assert_int_equal(t.enforce[x.swa], 0);
	assert_int_equal(part_num_keys(&t, x.swa), 0);
	part_tables_free(&t);
	conf_free(pc);
	subnet_free(&x.r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml_good_and_round_trip),
		cmocka_unit_test(test_yaml_errors_name_lines),
		cmocka_unit_test(test_default_only),
		cmocka_unit_test(test_switch_cannot_enforce),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_capacity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
