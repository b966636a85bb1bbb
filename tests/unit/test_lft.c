/* LFT tables: allocation, the daemon's spare (copied or cleared in
 * slices, and no copy once the held tables change), block comparison,
 * local entries, and the dump_fts text format (write/read round trip, a
 * real capture from infiniband-diags 44 under ibsim, malformed input). */
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

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "routing/engine.h"
#include "routing/lft.h"
#include "sm/program/lft_program.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"

static void alloc_rounds_and_clears(void **state)
{
	(void)state;
	struct lft_set t;
	assert_int_equal(lft_alloc(&t, 3, 64), 0);
	assert_int_equal(t.stride, 128);   /* LIDs 0..64 need two blocks */
	assert_int_equal(t.max_lid, 64);
	for (size_t i = 0; i < (size_t)3 * t.stride; i++)
		assert_int_equal(t.port[i], LFT_NO_PATH);
	lft_set_port(&t, 2, 64, 7);
	assert_int_equal(lft_get(&t, 2, 64), 7);
	assert_int_equal(lft_get(&t, 1, 64), LFT_NO_PATH);
	assert_int_equal(lft_get(&t, 2, 65), LFT_NO_PATH); /* past max_lid */
	lft_free(&t);
	assert_null(t.port);
	assert_int_equal(lft_alloc(&t, 1, 63), 0);
	assert_int_equal(t.stride, 64);
	lft_free(&t);
	assert_int_equal(lft_alloc(&t, 0, 10), 0);   /* switchless fabric */
	lft_free(&t);
	assert_int_equal(lft_alloc(&t, 1, FAB_MAX_UCAST_LID), 0);
	assert_int_equal(t.stride, FAB_MAX_UCAST_LID + 1);
	lft_free(&t);
	/* Past the unicast range: analysis tables (ibsm-route --wide-lids). */
	assert_int_equal(lft_alloc(&t, 1, FAB_MAX_UCAST_LID + 1), 0);
	assert_int_equal(t.stride, FAB_MAX_UCAST_LID + 1 + LFT_BLOCK);
	lft_free(&t);
	assert_int_equal(lft_alloc(&t, 1, LFT_MAX_ANALYSIS_LID + 1), -EINVAL);
}

/* A spare set large enough gives its memory (cleared, spare emptied); one
 * too small is left to its owner and fresh memory is allocated. */
static void alloc_reuse_takes_large_spares_only(void **state)
{
	(void)state;
	struct lft_set spare, t;
	assert_int_equal(lft_alloc(&spare, 4, 200), 0);
	lft_set_port(&spare, 3, 200, 9);
	uint8_t *mem = spare.port;
	assert_int_equal(lft_alloc_reuse(&t, &spare, 2, 300), 1);
	assert_ptr_equal(t.port, mem);
	assert_null(spare.port);
	assert_int_equal(t.num_switches, 2);
	assert_int_equal(t.stride, 320);
	assert_int_equal(t.max_lid, 300);
	for (size_t i = 0; i < (size_t)2 * t.stride; i++)
		assert_int_equal(t.port[i], LFT_NO_PATH);
	/* t counts 2 x 320 entries; 4 x 320 do not fit */
	struct lft_set small = t, u;
	assert_int_equal(lft_alloc_reuse(&u, &small, 4, 300), 0);
	assert_ptr_equal(small.port, mem);
	assert_ptr_not_equal(u.port, mem);
	for (size_t i = 0; i < (size_t)4 * u.stride; i++)
		assert_int_equal(u.port[i], LFT_NO_PATH);
	lft_free(&u);
	assert_int_equal(lft_alloc_reuse(&u, NULL, 1, 10), 0);
	lft_free(&u);
	assert_int_equal(lft_alloc_reuse(&u, &small, 1, LFT_MAX_ANALYSIS_LID + 1), -EINVAL);
	assert_ptr_equal(small.port, mem);
	lft_free(&small);
}

/* A spare marked clean (lft_clean) is taken as it is: the fill is what it
 * saves, so a byte written after the clean shows it was not repeated; the
 * tables returned are not marked clean. One not marked is filled. */
static void alloc_reuse_trusts_clean_spares(void **state)
{
	(void)state;
	struct lft_set spare, t;
	assert_int_equal(lft_alloc(&spare, 4, 200), 0);
	assert_int_equal(spare.clean, 0);
	lft_set_port(&spare, 0, 5, 7);
	lft_clean(&spare);
	assert_int_equal(spare.clean, 1);
	assert_int_equal(lft_get(&spare, 0, 5), LFT_NO_PATH);
	spare.port[1] = 3;              /* not LFT_NO_PATH: the flag is trusted */
	assert_int_equal(lft_alloc_reuse(&t, &spare, 2, 100), 1);
	assert_int_equal(t.port[1], 3);
	assert_int_equal(t.clean, 0);
	assert_int_equal(spare.clean, 0);
	t.port[1] = 4;                  /* not clean: filled */
	assert_int_equal(lft_alloc_reuse(&spare, &t, 2, 100), 1);
	assert_int_equal(spare.port[1], LFT_NO_PATH);
	lft_free(&spare);
}

static void fill_pattern(struct lft_set *t, unsigned seed)
{
	for (size_t i = 0; i < (size_t)t->num_switches * t->stride; i++)
		t->port[i] = (uint8_t)(i * 7 + seed);
}

/* The daemon's spare copy in slices (lft_copy_step): slices of 1000 bytes
 * over 5 x 1024 bytes, the last a short one; copy_of only once every
 * byte is in, and the copy then equals the tables byte for byte. Whatever
 * the spare held before (clean, other bytes) is overwritten. */
static void copy_step_slices_cover_every_byte(void **state)
{
	(void)state;
	struct lft_set src, dst;
	assert_int_equal(lft_alloc(&src, 5, 1000), 0);
	assert_int_equal(lft_alloc(&dst, 5, 1000), 0);
	size_t bytes = (size_t)5 * src.stride;
	assert_int_equal(bytes, 5120);
	fill_pattern(&src, 3);
	dst.clean = 1;
	unsigned slices = 0;
	int r;
	while ((r = lft_copy_step(&dst, &src, 1000)) == 0) {
		slices++;
		assert_null(dst.copy_of);       /* partial: never a copy */
		assert_ptr_equal(dst.copying, src.port);
		assert_int_equal(dst.copied, slices * 1000);
		assert_int_equal(dst.clean, 0);
		assert_true(slices < 10);
	}
	slices++;
	assert_int_equal(r, 1);
	assert_int_equal(slices, 6);            /* 5 x 1000 + 120 */
	assert_ptr_equal(dst.copy_of, src.port);
	assert_null(dst.copying);
	assert_memory_equal(dst.port, src.port, bytes);
	/* done: nothing more copied (a byte changed in dst stays) */
	dst.port[17] ^= 1;
	assert_int_equal(lft_copy_step(&dst, &src, 1000), 1);
	assert_int_not_equal(dst.port[17], src.port[17]);
	lft_free(&dst);
	/* 0: all at once */
	assert_int_equal(lft_alloc(&dst, 5, 1000), 0);
	assert_int_equal(lft_copy_step(&dst, &src, 0), 1);
	assert_memory_equal(dst.port, src.port, bytes);
	lft_free(&dst);
	/* another layout: refused, left as it was */
	assert_int_equal(lft_alloc(&dst, 5, 1100), 0);
	assert_int_equal(lft_copy_step(&dst, &src, 0), -EINVAL);
	assert_null(dst.copying);
	assert_null(dst.copy_of);
	assert_int_equal(dst.port[0], LFT_NO_PATH);
	lft_free(&dst);
	lft_free(&src);
}

/* A copy under way starts over from its first byte when the tables to
 * copy are others (the daemon's held tables replaced), or when the spare
 * was cleared in between; a spare taken mid-copy (lft_take_spare, as
 * route_run takes it) is no copy of anything. */
static void copy_step_restarts_and_is_never_taken_partial(void **state)
{
	(void)state;
	struct lft_set a, b, dst, t;
	assert_int_equal(lft_alloc(&a, 4, 500), 0);
	assert_int_equal(lft_alloc(&b, 4, 500), 0);
	assert_int_equal(lft_alloc(&dst, 4, 500), 0);
	size_t bytes = (size_t)4 * a.stride;
	fill_pattern(&a, 1);
	fill_pattern(&b, 2);
	assert_int_equal(lft_copy_step(&dst, &a, 700), 0);
	assert_int_equal(lft_copy_step(&dst, &a, 700), 0);
	assert_int_equal(dst.copied, 1400);
	/* other tables: from the start (else bytes 0..1399 would be a's) */
	assert_int_equal(lft_copy_step(&dst, &b, 700), 0);
	assert_ptr_equal(dst.copying, b.port);
	assert_int_equal(dst.copied, 700);
	while (lft_copy_step(&dst, &b, 700) == 0)
		;
	assert_ptr_equal(dst.copy_of, b.port);
	assert_memory_equal(dst.port, b.port, bytes);
	/* cleared mid-copy: the copy starts over */
	assert_int_equal(lft_copy_step(&dst, &a, 700), 0);
	lft_clean(&dst);
	assert_null(dst.copying);
	assert_null(dst.copy_of);
	while (lft_copy_step(&dst, &a, 700) == 0)
		;
	assert_memory_equal(dst.port, a.port, bytes);
	/* taken mid-copy: no copy_of, nothing under way */
	dst.copy_of = NULL;
	dst.copying = NULL;
	assert_int_equal(lft_copy_step(&dst, &b, 700), 0);
	assert_int_equal(lft_take_spare(&t, &dst, 4, 500), 1);
	assert_null(t.copy_of);
	assert_null(t.copying);
	assert_int_equal(t.copied, 0);
	assert_null(dst.port);
	lft_free(&t);
	/* taken complete: a copy of b */
	assert_int_equal(lft_alloc(&dst, 4, 500), 0);
	assert_int_equal(lft_copy_step(&dst, &b, 0), 1);
	assert_int_equal(lft_take_spare(&t, &dst, 4, 500), 1);
	assert_ptr_equal(t.copy_of, b.port);
	lft_free(&t);
	lft_free(&a);
	lft_free(&b);
}

static void assert_all_no_path(const struct lft_set *t)
{
	for (size_t i = 0; i < (size_t)t->num_switches * t->stride; i++)
		assert_int_equal(t->port[i], LFT_NO_PATH);
}

/* The spare of another layout cleared in slices (lft_clean_step): clean
 * only once every byte is LFT_NO_PATH, no copy from the first slice on; a
 * copy started mid-clean, or the spare taken mid-clean, starts it over
 * or leaves it to the taker (lft_alloc_reuse fills what is not clean). */
static void clean_step_slices_cover_every_byte(void **state)
{
	(void)state;
	struct lft_set src, t, u;
	assert_int_equal(lft_alloc(&src, 3, 1000), 0);
	assert_int_equal(lft_alloc(&t, 3, 1000), 0);
	size_t bytes = (size_t)3 * t.stride;        /* 3072 */
	fill_pattern(&src, 5);
	assert_int_equal(lft_copy_step(&t, &src, 0), 1);
	assert_ptr_equal(t.copy_of, src.port);
	unsigned slices = 0;
	int r;
	while ((r = lft_clean_step(&t, 1000)) == 0) {
		slices++;
		assert_int_equal(t.clean, 0);
		assert_null(t.copy_of);
		assert_int_equal(t.cleared, slices * 1000);
		assert_true(slices < 10);
	}
	assert_int_equal(slices + 1, 4);            /* 3 x 1000 + 72 */
	assert_int_equal(t.clean, 1);
	assert_int_equal(t.cleared, 0);
	assert_all_no_path(&t);
	assert_int_equal(lft_clean_step(&t, 1000), 1);      /* nothing to do */
	/* a copy mid-clean: the clean starts over from byte 0 afterwards */
	t.clean = 0;
	t.port[0] = 1;
	assert_int_equal(lft_clean_step(&t, 1000), 0);
	assert_int_equal(lft_copy_step(&t, &src, 1000), 0);
	assert_int_equal(t.cleared, 0);
	while (lft_clean_step(&t, 1000) == 0)
		;
	assert_all_no_path(&t);
	/* taken mid-clean: not clean, so filled by lft_alloc_reuse */
	fill_pattern(&t, 9);
	t.clean = 0;
	assert_int_equal(lft_clean_step(&t, 1000), 0);
	assert_int_equal(lft_alloc_reuse(&u, &t, 3, 1000), 1);
	assert_int_equal(u.cleared, 0);
	assert_all_no_path(&u);
	assert_int_equal(bytes, 3072);
	lft_free(&u);
	lft_free(&src);
}

/* The daemon's held tables replaced (lft_held_take) while its spare is
 * a copy of them, complete or under way in slices: the spare is a copy
 * of nothing and a copy under way starts over, so the next copy (of the
 * new tables, which may land where the old ones were) never keeps bytes
 * of the old ones; an empty spare takes the old tables as memory only. */
static void held_take_restarts_the_spare_copy(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_held h;
	struct lft_set t, sp;
	uint8_t ok[4] = { 1, 1, 1, 1 };
	fab_init(&f);
	lft_held_init(&h);
	assert_int_equal(lft_alloc(&sp, 4, 500), 0);
	size_t bytes = (size_t)4 * sp.stride;
	assert_int_equal(lft_alloc(&t, 4, 500), 0);
	fill_pattern(&t, 1);
	assert_int_equal(lft_held_take(&h, &f, &t, NULL, ok, &sp), 0);
	assert_null(t.port);
	/* a complete copy, then new tables held: no copy any more */
	assert_int_equal(lft_copy_step(&sp, &h.lft, 0), 1);
	assert_ptr_equal(sp.copy_of, h.lft.port);
	assert_int_equal(lft_alloc(&t, 4, 500), 0);
	fill_pattern(&t, 2);
	assert_int_equal(lft_held_take(&h, &f, &t, NULL, ok, &sp), 0);
	assert_null(sp.copy_of);
	assert_null(sp.copying);
	/* a copy under way, then new tables held: it starts over */
	assert_int_equal(lft_copy_step(&sp, &h.lft, 700), 0);
	assert_int_equal(lft_copy_step(&sp, &h.lft, 700), 0);
	assert_ptr_equal(sp.copying, h.lft.port);
	assert_int_equal(lft_alloc(&t, 4, 500), 0);
	fill_pattern(&t, 3);
	assert_int_equal(lft_held_take(&h, &f, &t, NULL, ok, &sp), 0);
	assert_null(sp.copy_of);
	assert_null(sp.copying);
	assert_int_equal(sp.copied, 0);
	assert_int_equal(lft_copy_step(&sp, &h.lft, 700), 0);
	assert_int_equal(sp.copied, 700);
	while (lft_copy_step(&sp, &h.lft, 700) == 0)
		;
	assert_ptr_equal(sp.copy_of, h.lft.port);
	assert_memory_equal(sp.port, h.lft.port, bytes);
	/* the spare taken (a route): the tables held go to it, a copy of
	 * nothing, nothing under way */
	uint8_t *old = h.lft.port;
	assert_int_equal(lft_take_spare(&t, &sp, 4, 500), 1);
	assert_null(sp.port);
	fill_pattern(&t, 4);
	t.copy_of = NULL;
	assert_int_equal(lft_held_take(&h, &f, &t, NULL, ok, &sp), 0);
	assert_ptr_equal(sp.port, old);
	assert_null(sp.copy_of);
	assert_null(sp.copying);
	assert_int_equal(sp.copied, 0);
	lft_held_free(&h);
	lft_free(&sp);
	fab_free(&f);
}

static void blocks_differ_counts_blocks(void **state)
{
	(void)state;
	struct lft_set a, b;
	assert_int_equal(lft_alloc(&a, 2, 200), 0);
	assert_int_equal(lft_alloc(&b, 2, 100), 0);
	assert_int_equal(lft_blocks_differ(&a, 0, &b, 0), 0);
	lft_set_port(&a, 0, 5, 1);
	lft_set_port(&a, 0, 6, 1);
	assert_int_equal(lft_blocks_differ(&a, 0, &b, 0), 1);
	lft_set_port(&a, 0, 150, 2);        /* beyond b: padded NO_PATH */
	assert_int_equal(lft_blocks_differ(&a, 0, &b, 0), 2);
	assert_int_equal(lft_blocks_differ(&b, 0, &a, 0), 2);
	lft_set_port(&b, 1, 5, 1);
	lft_set_port(&b, 1, 6, 1);
	assert_int_equal(lft_blocks_differ(&a, 0, &b, 1), 1); /* other rows */
	assert_int_equal(lft_blocks_differ(&a, 1, &b, 0), 0);
	lft_free(&a);
	lft_free(&b);
}

/* sw0 [1]-ca0, [2]-ca1 (LMC 1), [3]-sw1[3]; sw1 [1]-ca2 */
static void small_fabric(struct fabric *f, uint8_t lmc)
{
	fab_init(f);
	uint32_t s0 = fab_add_node(f, FAB_SWITCH, 8, 0x200000, "Switch1");
	uint32_t s1 = fab_add_node(f, FAB_SWITCH, 8, 0x200001, "Switch2");
	uint32_t c[3];
	for (int i = 0; i < 3; i++) {
		char d[16];
		snprintf(d, sizeof(d), "Hca%d", i + 1);
		c[i] = fab_add_node(f, FAB_CA, 2, 0x100000 + 3 * i + 1, d);
	}
	ut_link(f, s0, 1, c[0], 1);
	ut_link(f, s0, 2, c[1], 1);
	ut_link(f, s0, 3, s1, 3);
	ut_link(f, s1, 1, c[2], 1);
	struct lid_assign_opts o = { .lmc = lmc };
	assert_true(lid_assign(f, &o, NULL) >= 0);
}

static void fill_local_sets_own_and_attached(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	small_fabric(&f, 1);
	assert_int_equal(lft_alloc(&t, f.num_switches, fab_max_lid(&f)), 0);
	lft_fill_local(&f, &t);
	uint32_t s0 = f.switches[0], s1 = f.switches[1];
	uint32_t own0 = fab_port(&f, s0, 0)->lid, own1 = fab_port(&f, s1, 0)->lid;
	assert_int_equal(lft_get(&t, 0, own0), 0);
	assert_int_equal(lft_get(&t, 1, own1), 0);
	assert_int_equal(lft_get(&t, 0, own1), LFT_NO_PATH); /* not local */
	const struct fab_port *ca1 = &f.ports[fab_port(&f, s0, 2)->peer];
	assert_int_equal(ca1->lmc, 1);
	assert_int_equal(lft_get(&t, 0, ca1->lid), 2);
	assert_int_equal(lft_get(&t, 0, ca1->lid + 1), 2);   /* LMC alias */
	assert_int_equal(lft_get(&t, 1, ca1->lid), LFT_NO_PATH);
	const struct fab_port *ca2 = &f.ports[fab_port(&f, s1, 1)->peer];
	assert_int_equal(lft_get(&t, 1, ca2->lid), 1);
	lft_free(&t);
	fab_free(&f);
}

static void write_read_round_trip(void **state)
{
	(void)state;
	struct fabric f;
	char err[256], path[256];
	struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };
	ut_fattree(&f, &p, 1);
	struct lft_set t, u;
	struct route_options ro = { .lmc = 1 };
	assert_int_equal(route_run(route_engine_find("minhop"), &f, &ro, &t, err), 0);
	ut_tmp_path(path, sizeof(path), "lft-rt");
	assert_int_equal(lft_write_dump_fts(&f, &t, path), 0);

	char *text = ut_slurp(path);
	/* The exact shape infiniband-diags prints (and OpenSM's file engine
	 * parses): header, two column lines, entries, count. */
	assert_non_null(strstr(text, "Unicast lids [0x0-0x"));
	assert_non_null(strstr(text, " of switch Lid "));
	assert_non_null(strstr(text, "\n  Lid  Out   Destination\n       Port     Info \n0x"));
	assert_non_null(strstr(text, " : (Channel Adapter portguid 0x"));
	assert_non_null(strstr(text, " : (Switch portguid 0x"));
	assert_non_null(strstr(text, " : (path #2 out of 2: portguid 0x"));
	assert_non_null(strstr(text, " valid lids dumped \n"));
	free(text);

	assert_int_equal(lft_alloc(&u, f.num_switches, t.max_lid), 0);
	assert_int_equal(lft_read_dump_fts(&f, &u, path, 0), 0);
	for (uint32_t s = 0; s < f.num_switches; s++)
		assert_int_equal(lft_blocks_differ(&t, s, &u, s), 0);
	unlink(path);
	lft_free(&t);
	lft_free(&u);
	fab_free(&f);
}

/* tests/data/dump_fts_2sw.txt: `dump_fts` under ibsim on ibsim's
 * net.2sw2path4hca after OpenSM 3.3.23 (minhop) brought it up. */
static void read_real_capture(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	small_fabric(&f, 0);
	assert_int_equal(lft_alloc(&t, f.num_switches, 6), 0);
	assert_int_equal(lft_read_dump_fts(&f, &t, "tests/data/dump_fts_2sw.txt", 0), 0);
	/* Switch1 (GUID 0x200000, ordinal 0) and Switch2 as captured. */
	static const uint8_t sw1[7] = { 0xff, 0, 1, 3, 3, 2, 5 };
	static const uint8_t sw2[7] = { 0xff, 3, 3, 0, 1, 5, 2 };
	for (uint32_t lid = 0; lid <= 6; lid++) {
		assert_int_equal(lft_get(&t, 0, lid), sw1[lid]);
		assert_int_equal(lft_get(&t, 1, lid), sw2[lid]);
	}
	lft_free(&t);
	fab_free(&f);
}

/* Reads body into tables covering LIDs 0..max_lid; true when the read
 * fails and the log holds "FILE:needle". */
static int read_error_in(const char *body, const char *needle,
			 uint32_t max_lid, int wide_lids)
{
	struct fabric f;
	struct lft_set t;
	char path[256], logp[256];
	small_fabric(&f, 0);
	ut_tmp_path(path, sizeof(path), "lft-bad");
	ut_tmp_path(logp, sizeof(logp), "lft-log");
	ut_write_file(path, body, strlen(body));
	FILE *log = fopen(logp, "w+");
	log_set_stream(log);
	assert_int_equal(lft_alloc(&t, f.num_switches, max_lid), 0);
	int r = lft_read_dump_fts(&f, &t, path, wide_lids);
	log_set_stream(NULL);
	fclose(log);
	char *text = ut_slurp(logp);
	char want[512];
	snprintf(want, sizeof(want), "%s:%s", path, needle);
	int found = strstr(text, want) != NULL;
	if (!found)
		fprintf(stderr, "log was: %s (wanted %s)\n", text, want);
	free(text);
	unlink(path);
	unlink(logp);
	lft_free(&t);
	fab_free(&f);
	return r == -EINVAL && found;
}

static int expect_read_error(const char *body, const char *needle)
{
	return read_error_in(body, needle, 70, 0);
}

#define HDR "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 (Switch1):\n" \
	    "  Lid  Out   Destination\n       Port     Info \n"

static void malformed_input_rejected(void **state)
{
	(void)state;
	assert_true(expect_read_error(HDR "0x0001 000 : ok\nbogus line\n", "5:"));
	assert_true(expect_read_error(HDR "0x0001 abc : (x)\n", "4:"));
	assert_true(expect_read_error(HDR "0x0002 009 : (x)\n", "4:")); /* 8 ports */
	assert_true(expect_read_error(HDR "0xc000 001 : (x)\n", "4:")); /* past LIDs */
	assert_true(expect_read_error("0x0001 001 : (x)\n", "1:"));     /* no header */
	assert_true(expect_read_error("Unicast lids [0x0-0x6] of switch x:\n", "1:"));
	assert_true(expect_read_error("Unicast lids [0x0-0x6] of switch guid 0xzz (a):\n", "1:"));
	assert_true(expect_read_error("", "0:"));                       /* empty */
	assert_true(expect_read_error("Multicast mlids [0xc000-0xc3ff] of switch\n", "1:"));
}

/* A live fabric's dump can hold entries for unicast LIDs above every LID
 * of the topology it is judged against (an SM holding a smaller view for
 * its grace keeps the routes of the nodes it cannot see; the campaign
 * found one). They are skipped with one warning, not refused; the LIDs of
 * the topology are read as usual. */
static void entries_past_the_topology_skipped(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	char path[256], logp[256];
	small_fabric(&f, 0);
	ut_tmp_path(path, sizeof(path), "lft-past");
	ut_tmp_path(logp, sizeof(logp), "lft-log");
	static const char body[] =
		HDR "0x0001 000 : (x)\n0x0005 002 : (x)\n0x0050 003 : (gone)\n0x0051 003 : (gone)\n";
	ut_write_file(path, body, sizeof(body) - 1);
	FILE *log = fopen(logp, "w+");
	log_set_stream(log);
	assert_int_equal(lft_alloc(&t, f.num_switches, 0x10), 0);
	assert_int_equal(lft_read_dump_fts(&f, &t, path, 0), 0);
	log_set_stream(NULL);
	fclose(log);
	char *text = ut_slurp(logp);
	assert_non_null(strstr(text, "2 entries for LIDs above the topology's top LID 0x10"));
	free(text);
	assert_int_equal(lft_get(&t, 0, 1), 0);
	assert_int_equal(lft_get(&t, 0, 5), 2);
	unlink(path);
	unlink(logp);
	lft_free(&t);
	fab_free(&f);
	/* Past the unicast range it is still an error (wide-LID tables). */
	assert_true(expect_read_error(HDR "0xc000 001 : (x)\n", "4:"));
}

/* Tables `ibsm-route --wide-lids` wrote (LIDs past 0xBFFF) read back only
 * when the caller asks for the wide LID space; otherwise the message says
 * what such LIDs are. */
static void wide_lids_read_only_when_asked(void **state)
{
	(void)state;
	static const char body[] =
		"Unicast lids [0x0-0x10000] of switch Lid 1 guid 0x0000000000200000 (Switch1):\n"
		"  Lid  Out   Destination\n       Port     Info \n"
		"0x0001 000 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
		"0xc000 002 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')\n"
		"0x10000 003 : (Channel Adapter portguid 0x0000000000100007: 'Hca3')\n"
		"3 valid lids dumped \n";
	struct fabric f;
	struct lft_set t;
	char path[256];
	small_fabric(&f, 0);
	ut_tmp_path(path, sizeof(path), "lft-wide");
	ut_write_file(path, body, strlen(body));
	assert_int_equal(lft_alloc(&t, f.num_switches, 0x10000), 0);
	assert_int_equal(lft_read_dump_fts(&f, &t, path, 1), 0);
	assert_int_equal(lft_get(&t, 0, 1), 0);
	assert_int_equal(lft_get(&t, 0, 0xc000), 2);
	assert_int_equal(lft_get(&t, 0, 0x10000), 3);
	assert_int_equal(lft_get(&t, 0, 0xbfff), LFT_NO_PATH);
	assert_int_equal(lft_get(&t, 1, 0xc000), LFT_NO_PATH); /* not in the file */
	unlink(path);
	lft_free(&t);
	fab_free(&f);

	/* Not asked: the first wide LID is refused, naming the range. */
	assert_true(read_error_in(body, "5: LID 0xc000 is past the unicast range",
				  0x10000, 0));
	/* Asked, but past the tables or past the analysis range. */
	assert_true(read_error_in(body, "6: LID 0x10000 beyond the tables (max 0xc000)",
				  0xc000, 1));
	assert_true(read_error_in(HDR "0x100000 001 : (x)\n",
				  "4: LID >0xfffff beyond the tables", 0x10000, 1));
}

static void unknown_switch_skipped_and_short_dump_tolerated(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	char path[256];
	small_fabric(&f, 0);
	ut_tmp_path(path, sizeof(path), "lft-short");
	FILE *o = fopen(path, "w");
	/* A switch we do not have, then ours with the top LID (64) left out,
	 * as dump_fts does when the top LID is a multiple of 64. */
	fputs("Unicast lids [0x0-0x40] of switch Lid 9 guid 0x00000000deadbeef (x):\n"
	      "  Lid  Out   Destination\n       Port     Info \n"
	      "0x0001 004 : (Switch portguid 0x00000000deadbeef: 'x')\n"
	      "1 valid lids dumped \n"
	      "Unicast lids [0x0-0x40] of switch Lid 1 guid 0x0000000000200001 (Switch2):\n"
	      "  Lid  Out   Destination\n       Port     Info \n"
	      "0x0001 003 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
	      "0x003f 001 : (unknown node and type)\n"
	      "2 valid lids dumped \n", o);
	fclose(o);
	assert_int_equal(lft_alloc(&t, f.num_switches, 64), 0);
	log_set_level(LOG_ERR);
	assert_int_equal(lft_read_dump_fts(&f, &t, path, 0), 0);
	log_set_level(LOG_INFO);
	assert_int_equal(lft_get(&t, 1, 1), 3);
	assert_int_equal(lft_get(&t, 1, 63), 1);
	assert_int_equal(lft_get(&t, 1, 64), LFT_NO_PATH);
	assert_int_equal(lft_get(&t, 0, 1), LFT_NO_PATH); /* not in the file */
	unlink(path);
	lft_free(&t);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alloc_rounds_and_clears),
		cmocka_unit_test(alloc_reuse_takes_large_spares_only),
		cmocka_unit_test(alloc_reuse_trusts_clean_spares),
		cmocka_unit_test(copy_step_slices_cover_every_byte),
		cmocka_unit_test(copy_step_restarts_and_is_never_taken_partial),
		cmocka_unit_test(clean_step_slices_cover_every_byte),
		cmocka_unit_test(held_take_restarts_the_spare_copy),
		cmocka_unit_test(blocks_differ_counts_blocks),
		cmocka_unit_test(fill_local_sets_own_and_attached),
		cmocka_unit_test(write_read_round_trip),
		cmocka_unit_test(read_real_capture),
		cmocka_unit_test(malformed_input_rejected),
		cmocka_unit_test(wide_lids_read_only_when_asked),
		cmocka_unit_test(entries_past_the_topology_skipped),
		cmocka_unit_test(unknown_switch_skipped_and_short_dump_tolerated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
