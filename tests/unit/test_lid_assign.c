/* LID assignment: uniqueness, LMC alignment, switches at LMC 0, keeping
 * existing LIDs and the guid2lid map, collisions, reservations of absent
 * ports, exhaustion, the analysis range above 0xBFFF, and the guid2lid file
 * format (OpenSM's "0xGUID LID LID"). */
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

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "tests/unit/support.h"

/* 2 switches, 3 linked CAs (one with 2 linked ports) and one unlinked CA
 * port: endpoints are 2 switch port 0s + 4 CA ports. */
static void small_fabric(struct fabric *f)
{
	fab_init(f);
	uint32_t s0 = fab_add_node(f, FAB_SWITCH, 8, 0x100, "s0");
	uint32_t s1 = fab_add_node(f, FAB_SWITCH, 8, 0x101, "s1");
	uint32_t a = fab_add_node(f, FAB_CA, 2, 0x200, "a");
	uint32_t b = fab_add_node(f, FAB_CA, 2, 0x210, "b");
	uint32_t c = fab_add_node(f, FAB_CA, 1, 0x220, "c");
	for (uint32_t n = a; n <= c; n++)
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++)
			fab_port(f, n, p)->guid = f->nodes[n].guid + p;
	ut_link(f, s0, 1, s1, 1);
	ut_link(f, s0, 2, a, 1);
	ut_link(f, s0, 3, a, 2);
	ut_link(f, s1, 2, b, 1);
	ut_link(f, s1, 3, c, 1);
}

/* Every endpoint has a LID range inside 1..max, aligned, disjoint. */
static void check_valid(const struct fabric *f, uint8_t lmc, uint32_t max)
{
	uint32_t n = fab_endpoint_ports(f, NULL);
	uint32_t *eps = malloc(n * sizeof(*eps));
	fab_endpoint_ports(f, eps);
	uint8_t *used = calloc(max + 1, 1);
	for (uint32_t i = 0; i < n; i++) {
		const struct fab_port *p = &f->ports[eps[i]];
		uint8_t want = fab_is_switch(f, p->node) ? 0 : lmc;
		assert_int_equal(p->lmc, want);
		assert_true(p->lid >= 1);
		assert_int_equal(p->lid % (1u << want), 0);
		assert_true(p->lid + (1u << want) - 1 <= max);
		for (uint32_t l = p->lid; l < p->lid + (1u << want); l++) {
			assert_int_equal(used[l], 0);
			used[l] = 1;
		}
	}
	free(used);
	free(eps);
}

static void fresh_lmc0(void **state)
{
	(void)state;
	struct fabric f;
	small_fabric(&f);
	struct lid_assign_opts o = { 0 };
	assert_int_equal(lid_assign(&f, &o, NULL), 6);
	check_valid(&f, 0, FAB_MAX_UCAST_LID);
	assert_int_equal(fab_max_lid(&f), 6);   /* densely packed from 1 */
	/* Unlinked CA port and switch ports 1..n hold no LID. */
	assert_int_equal(fab_port(&f, 3, 2)->lid, 0);
	assert_int_equal(fab_port(&f, 0, 1)->lid, 0);
	/* Again, keeping them: nothing changes. */
	o.keep_existing = 1;
	assert_int_equal(lid_assign(&f, &o, NULL), 0);
	fab_free(&f);
}

static void lmc_alignment(void **state)
{
	(void)state;
	for (uint8_t lmc = 1; lmc <= 7; lmc++) {
		struct fabric f;
		small_fabric(&f);
		struct lid_assign_opts o = { .lmc = lmc };
		assert_int_equal(lid_assign(&f, &o, NULL), 6);
		check_valid(&f, lmc, FAB_MAX_UCAST_LID);
		/* Switches fill the holes below the first aligned range. */
		assert_true(fab_port(&f, 0, 0)->lid < (1u << lmc));
		fab_free(&f);
	}
	struct fabric f;
	small_fabric(&f);
	struct lid_assign_opts o = { .lmc = 8 };
	assert_int_equal(lid_assign(&f, &o, NULL), -EINVAL);
	fab_free(&f);
}

static void keeps_valid_existing(void **state)
{
	(void)state;
	struct fabric f;
	small_fabric(&f);
	fab_port(&f, 0, 0)->lid = 40;           /* kept */
	fab_port(&f, 2, 1)->lid = 20;           /* aligned to 4: kept */
	fab_port(&f, 2, 2)->lid = 21;           /* misaligned: replaced */
	fab_port(&f, 3, 1)->lid = 20;           /* collides with a[1]: replaced */
	fab_port(&f, 4, 1)->lid = 0xC000;       /* beyond unicast: replaced */
	fab_port(&f, 0, 3)->lid = 77;           /* switch port 3: cleared */
	struct lid_assign_opts o = { .lmc = 2, .keep_existing = 1 };
	int changed = lid_assign(&f, &o, NULL);
	check_valid(&f, 2, FAB_MAX_UCAST_LID);
	assert_int_equal(fab_port(&f, 0, 0)->lid, 40);
	assert_int_equal(fab_port(&f, 2, 1)->lid, 20);
	assert_int_not_equal(fab_port(&f, 2, 2)->lid, 21);
	assert_int_not_equal(fab_port(&f, 3, 1)->lid, 20);
	assert_int_not_equal(fab_port(&f, 4, 1)->lid, 0xC000);
	assert_int_equal(fab_port(&f, 0, 3)->lid, 0);
	/* s1 fresh, a[1] lmc 0->2, a[2], b[1], c[1] new: 5 of 6 changed. */
	assert_int_equal(changed, 5);
	fab_free(&f);

	/* Without keep_existing, the LIDs found are ignored. */
	small_fabric(&f);
	fab_port(&f, 0, 0)->lid = 40;
	o.keep_existing = 0;
	assert_int_equal(lid_assign(&f, &o, NULL), 6);
	assert_int_not_equal(fab_port(&f, 0, 0)->lid, 40);
	fab_free(&f);
}

static void analysis_range(void **state)
{
	(void)state;
	struct fabric f;
	small_fabric(&f);
	fab_port(&f, 4, 1)->lid = 0xC000;
	struct lid_assign_opts o = { .keep_existing = 1, .max_lid = 0x10000 };
	assert_true(lid_assign(&f, &o, NULL) >= 0);
	assert_int_equal(fab_port(&f, 4, 1)->lid, 0xC000);
	check_valid(&f, 0, 0x10000);
	o.max_lid = 0x1000000;                  /* beyond what we support */
	assert_int_equal(lid_assign(&f, &o, NULL), -EINVAL);
	fab_free(&f);
}

static void exhaustion(void **state)
{
	(void)state;
	struct fabric f;
	small_fabric(&f);
	/* In node order: switches take 1 and 2, then CAs the aligned pairs
	 * 4-5, 6-7, 8-9, 10-11 (3 stays free): 11 is needed. */
	struct lid_assign_opts o = { .lmc = 1, .max_lid = 11 };
	assert_int_equal(lid_assign(&f, &o, NULL), 6);
	check_valid(&f, 1, 11);
	assert_int_equal(fab_port(&f, 4, 1)->lid, 10);
	o.max_lid = 10;
	assert_int_equal(lid_assign(&f, &o, NULL), -ENOSPC);
	/* A failed assignment leaves the previous LIDs in place. */
	assert_int_equal(fab_port(&f, 4, 1)->lid, 10);
	assert_int_equal(fab_port(&f, 4, 1)->lmc, 1);
	check_valid(&f, 1, 11);
	o.lmc = 0;
	o.max_lid = 5;
	assert_int_equal(lid_assign(&f, &o, NULL), -ENOSPC);
	o.max_lid = 6;
	/* Switches keep 1 and 2; the four CA ports move to 3..6. */
	assert_int_equal(lid_assign(&f, &o, NULL), 4);
	check_valid(&f, 0, 6);
	fab_free(&f);
}

static void honours_map(void **state)
{
	(void)state;
	struct fabric f;
	small_fabric(&f);
	struct lid_map map, out;
	lid_map_init(&map);
	lid_map_init(&out);
	struct lid_map_entry e[] = {
		{ 0x101, 100, 100 },    /* switch s1 */
		{ 0x201, 64, 67 },      /* a[1], LMC 2 range */
		{ 0x211, 66, 69 },      /* b[1]: misaligned for LMC 2 -> fresh */
		{ 0x999, 8, 11 },       /* absent port: reserved, carried over */
	};
	map.entries = e;
	map.count = map.cap = 4;
	fab_port(&f, 4, 1)->lid = 64;           /* c[1] found with a mapped LID */
	struct lid_assign_opts o = { .lmc = 2, .map = &map, .keep_existing = 1 };
	assert_true(lid_assign(&f, &o, &out) >= 0);
	check_valid(&f, 2, FAB_MAX_UCAST_LID);
	assert_int_equal(fab_port(&f, 1, 0)->lid, 100);
	assert_int_equal(fab_port(&f, 2, 1)->lid, 64);
	assert_int_not_equal(fab_port(&f, 3, 1)->lid, 66);
	assert_int_not_equal(fab_port(&f, 4, 1)->lid, 64);   /* map wins */
	for (uint32_t p = 0; p < f.num_ports; p++)
		assert_false(f.ports[p].lid >= 8 && f.ports[p].lid <= 11);
	assert_int_equal(out.count, 7);         /* 6 endpoints + the absent one */
	const struct lid_map_entry *x = lid_map_find(&out, 0x201);
	assert_non_null(x);
	assert_int_equal(x->min_lid, 64);
	assert_int_equal(x->max_lid, 67);
	x = lid_map_find(&out, 0x999);
	assert_non_null(x);
	assert_int_equal(x->min_lid, 8);
	assert_null(lid_map_find(&out, 0x12345));
	/* A second run from the produced map changes nothing. */
	o.map = &out;
	o.keep_existing = 0;
	assert_int_equal(lid_assign(&f, &o, NULL), 0);
	lid_map_free(&out);
	fab_free(&f);
}

static void map_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/ibsm-test-g2l.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/guid2lid", dir);
	struct lid_map m;
	assert_int_equal(lid_map_load(&m, path), -ENOENT);
	assert_int_equal(m.count, 0);

	FILE *fp = fopen(path, "w");
	fputs("# OpenSM guid2lid\n0x0002c90000001000 1 1\n\n"
	      "0x0002c90000002001 4 7  # host\n", fp);
	fclose(fp);
	assert_int_equal(lid_map_load(&m, path), 0);
	assert_int_equal(m.count, 2);
	assert_int_equal(lid_map_find(&m, 0x0002c90000002001)->max_lid, 7);

	char path2[80];
	snprintf(path2, sizeof(path2), "%s/saved", dir);
	assert_int_equal(lid_map_save(&m, path2), 0);
	fp = fopen(path2, "r");
	char line[128];
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_string_equal(line, "0x0002c90000001000 1 1\n");
	fclose(fp);
	struct lid_map m2;
	assert_int_equal(lid_map_load(&m2, path2), 0);
	assert_int_equal(m2.count, 2);
	assert_memory_equal(m.entries, m2.entries, 2 * sizeof(*m.entries));
	lid_map_free(&m2);
	lid_map_free(&m);

	static const char *const bad[] = {
		"0x10 1\n", "10 1 1\n", "0x10 a 1\n", "0x10 5 4\n", "0x10 0 0\n",
		"0x10 1 1 junk\n", "0x10 1 1\n0x10 2 2\n", "0xzz 1 1\n",
		"0x10 1 99999999999\n", "0x10 49152 49152\n", "0x10 1 1\n0x20 1 1\n",
	};
	FILE *log = tmpfile();
	log_set_stream(log);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ut_write_file(path, bad[i], strlen(bad[i]));
		if (lid_map_load(&m, path) != -EINVAL)
			fail_msg("guid2lid \"%s\" was accepted", bad[i]);
		assert_int_equal(m.count, 0);
	}
	log_set_stream(NULL);
	fflush(log);
	rewind(log);
	char buf[256];
	assert_non_null(fgets(buf, sizeof(buf), log));
	assert_non_null(strstr(buf, "guid2lid:1:"));
	fclose(log);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Many endpoints: a 16k-port fabric at LMC 0 and 2 stays valid and fast. */
static void large(void **state)
{
	(void)state;
	struct fabric f;
	fab_init(&f);
	for (uint32_t s = 0; s < 512; s++) {
		uint32_t sw = fab_add_node(&f, FAB_SWITCH, 36, 0x10000 + s, NULL);
		for (unsigned p = 1; p <= 32; p++) {
			uint32_t ca = fab_add_node(&f, FAB_CA, 1, 0x1000000 + (s * 64 + p) * 2, NULL);
			fab_port(&f, ca, 1)->guid = f.nodes[ca].guid + 1;
			ut_link(&f, sw, p, ca, 1);
		}
	}
	struct lid_assign_opts o = { .lmc = 0 };
	assert_int_equal(lid_assign(&f, &o, NULL), 512 + 512 * 32);
	check_valid(&f, 0, FAB_MAX_UCAST_LID);
	o.lmc = 2;
	assert_int_equal(lid_assign(&f, &o, NULL), -ENOSPC);   /* 65k LIDs > 0xBFFF */
	o.max_lid = 0x20000;
	assert_true(lid_assign(&f, &o, NULL) > 0);
	check_valid(&f, 2, 0x20000);
	fab_free(&f);
}

/* The SM's own cache is a hint: bad lines are skipped with FILE:LINE
 * warnings, good ones kept; a directory or a device fails at once. */
static void map_hints(void **state)
{
	(void)state;
	char dir[] = "/tmp/ibsm-test-g2lh.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/guid2lid", dir);
	FILE *fp = fopen(path, "w");
	fputs("0x0000000000000010 1 1\n"
	      "garbage\n"
	      "0x0000000000000010 2 2\n"        /* GUID twice */
	      "0x0000000000000020 1 1\n"        /* LID 1 taken */
	      "0x0000000000000030 49152 49152\n" /* multicast range */
	      "0x0000000000000040 4 4\n", fp);
	for (int i = 0; i < 300; i++)
		fputc('x', fp);                     /* a line too long */
	fputs("\n0x0000000000000050 5 5\n", fp);
	fclose(fp);
	FILE *log = tmpfile();
	log_set_stream(log);
	struct lid_map m;
	assert_int_equal(lid_map_load(&m, path), -EINVAL);   /* strict */
	assert_int_equal(lid_map_load_hints(&m, path), 0);
	log_set_stream(NULL);
	assert_int_equal(m.count, 3);
	assert_non_null(lid_map_find(&m, 0x10));
	assert_int_equal(lid_map_find(&m, 0x10)->min_lid, 1);
	assert_null(lid_map_find(&m, 0x20));
	assert_null(lid_map_find(&m, 0x30));
	assert_non_null(lid_map_find(&m, 0x40));
	assert_non_null(lid_map_find(&m, 0x50));
	lid_map_free(&m);
	fflush(log);
	rewind(log);
	char buf[256];
	unsigned warned = 0;
	while (fgets(buf, sizeof(buf), log))
		warned += strstr(buf, "guid2lid:") != NULL;
	fclose(log);
	assert_true(warned >= 6);   /* one per bad line, strict run's first too */
	log_set_stream(tmpfile());
	assert_int_equal(lid_map_load_hints(&m, dir), -EISDIR);
	assert_int_equal(lid_map_load_hints(&m, "/dev/zero"), -EINVAL);
	assert_int_equal(lid_map_load(&m, "/dev/zero"), -EINVAL);
	/* Never saved over a device or a directory (a rename would replace
	 * it: /dev/zero became a regular file once). */
	assert_int_equal(lid_map_save(&m, "/dev/null"), -EINVAL);
	assert_int_equal(lid_map_save(&m, dir), -EISDIR);
	log_set_stream(NULL);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fresh_lmc0),
		cmocka_unit_test(lmc_alignment),
		cmocka_unit_test(keeps_valid_existing),
		cmocka_unit_test(analysis_range),
		cmocka_unit_test(exhaustion),
		cmocka_unit_test(honours_map),
		cmocka_unit_test(map_file),
		cmocka_unit_test(map_hints),
		cmocka_unit_test(large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
