/* Linear forwarding tables for every switch of a fabric: one flat byte array,
 * row per switch ordinal (fabric.switches), column per LID. */
#ifndef IBSM_ROUTING_LFT_H
#define IBSM_ROUTING_LFT_H

#include <stdint.h>
#include "../core/fabric.h"

#define LFT_NO_PATH 0xFF        /* entry with no route (as OpenSM's OSM_NO_PATH) */
#define LFT_BLOCK 64            /* LinearForwardingTable block size (IBA 14.2.5.10) */
/* Tables may cover LIDs past the unicast range (FAB_MAX_UCAST_LID) only
 * for offline analysis of fabrics larger than one subnet's LID space
 * (`ibsm-route --wide-lids`): no switch can hold such a table, and the SM
 * never assigns such LIDs. */
#define LFT_MAX_ANALYSIS_LID 0xFFFFF

struct lft_set {
	uint8_t *port;          /* port[sw * stride + lid] = egress port */
	uint32_t num_switches;
	uint32_t stride;        /* entries per switch = max_lid + 1, rounded to 64 */
	uint32_t max_lid;       /* highest LID the tables cover */
	/* Every byte of port[] is LFT_NO_PATH: a spare prepared so (lft_clean)
	 * is taken by lft_alloc_reuse without filling it again. Tables it
	 * returns have it 0 (engines write them). */
	int clean;
	/* port[] is a copy of the tables whose port[] this is (same switches
	 * in the same order, same stride and max_lid), made beforehand for a
	 * spare by whoever holds those tables; route_run tells an engine
	 * that takes its tables as they come (route_ctx.tables_prev). Never
	 * dereferenced. */
	const uint8_t *copy_of;
	/* A copy of the tables at `copying` under way in slices (lft_copy_step):
	 * its first `copied` bytes are done. Not copy_of until complete, so
	 * nobody takes a partial copy for one. */
	const uint8_t *copying;
	size_t copied;
	/* A clean under way in slices (lft_clean_step): its first `cleared`
	 * bytes are LFT_NO_PATH. Not clean until complete. */
	size_t cleared;
};

/* Allocate tables for num_switches switches covering LIDs 0..max_lid, all
 * entries LFT_NO_PATH. Returns 0, -EINVAL past LFT_MAX_ANALYSIS_LID, or
 * -ENOMEM. */
int lft_alloc(struct lft_set *t, uint32_t num_switches, uint32_t max_lid);
void lft_free(struct lft_set *t);
/* Every entry LFT_NO_PATH, and t->clean set (a copy, done or under way, is
 * one no more). */
void lft_clean(struct lft_set *t);
/* lft_clean in slices of up to max_bytes (0: the rest at once), resuming
 * where the last call stopped; t->clean is set only once every byte is
 * LFT_NO_PATH, and t is no copy from the first slice on (a copy started
 * meanwhile, lft_copy_step, starts it over). Returns 1 when t is clean, 0
 * while bytes remain. The daemon's spare of another layout than the
 * tables held (a switch lost at 65,536 CAs: 345 MB) is cleared so. */
int lft_clean_step(struct lft_set *t, size_t max_bytes);
/* lft_alloc, taking spare's memory when it is large enough (spare is then
 * left empty; otherwise it is left as it was). A re-route at 65,536 CAs
 * writes 345 MB of tables: fresh pages cost 0.2-0.3 s of page faults and
 * zeroing, more than a minimal-change repair itself; a warm buffer from
 * an earlier run is filled in about 15 ms, or not at all when it is
 * clean (lft_clean beforehand, off the route's path). spare may be NULL.
 * Returns 1 when spare's memory was taken, else as lft_alloc. */
int lft_alloc_reuse(struct lft_set *t, struct lft_set *spare,
		    uint32_t num_switches, uint32_t max_lid);
/* lft_alloc_reuse without the fill: t keeps what the memory holds, and
 * spare's clean and copy_of (copy_of only with the same layout). */
int lft_take_spare(struct lft_set *t, struct lft_set *spare,
		   uint32_t num_switches, uint32_t max_lid);

/* Copy up to max_bytes more of src's tables into dst (same layout: the
 * same num_switches, stride and max_lid), resuming where the last call
 * stopped; max_bytes 0 copies the rest at once. A copy of other tables
 * under way (dst->copying != src->port) starts over. dst->copy_of is set
 * only once every byte is copied. Returns 1 when dst is a complete copy
 * of src, 0 while bytes remain, -EINVAL for another layout (dst is left
 * as it was). Lets the daemon copy 345 MB (65,536 CAs) between turns of
 * its event loop instead of making SA queries wait 30-50 ms. */
int lft_copy_step(struct lft_set *dst, const struct lft_set *src,
		  size_t max_bytes);

/* Do a and b lay their tables out alike (switches, row stride, LIDs)?
 * Then one can be a copy of the other, byte for byte. */
static inline int lft_same_layout(const struct lft_set *a,
				  const struct lft_set *b)
{
	return a->num_switches == b->num_switches && a->stride == b->stride &&
	       a->max_lid == b->max_lid;
}

static inline uint8_t *lft_row(const struct lft_set *t, uint32_t sw)
{
	return t->port + (size_t)sw * t->stride;
}

static inline uint8_t lft_get(const struct lft_set *t, uint32_t sw, uint32_t lid)
{
	return lid > t->max_lid ? LFT_NO_PATH : t->port[(size_t)sw * t->stride + lid];
}

static inline void lft_set_port(struct lft_set *t, uint32_t sw, uint32_t lid,
				uint8_t port)
{
	t->port[(size_t)sw * t->stride + lid] = port;
}

/* Number of 64-entry blocks of switch sw that differ between a and b
 * (tables of different sizes compare as if padded with LFT_NO_PATH). */
uint32_t lft_blocks_differ(const struct lft_set *a, uint32_t sw_a,
			   const struct lft_set *b, uint32_t sw_b);

/* Fill the entries every engine must agree on: a switch's own LIDs go to
 * port 0, a directly attached CA/router's LIDs to the port it hangs off. */
void lft_fill_local(const struct fabric *f, struct lft_set *t);

/* Write in the text format `dump_fts` / `ibroute` print (and OpenSM's
 * `file` routing engine loads with -U). Returns 0 or -errno. */
int lft_write_dump_fts(const struct fabric *f, const struct lft_set *t,
		       const char *path);

/* Read a dump_fts / ibroute dump into tables for fabric f (switches matched
 * by GUID). LIDs past FAB_MAX_UCAST_LID (up to LFT_MAX_ANALYSIS_LID, and
 * within t) are accepted only with wide_lids: tables `ibsm-route
 * --wide-lids` wrote for analysis; no switch dump has them. Entries for
 * unicast LIDs above t's max LID (nodes the topology does not show, whose
 * routes a live fabric still holds) are skipped with one warning. Errors are
 * logged as "FILE:LINE: reason". Returns 0 or -EINVAL. */
int lft_read_dump_fts(const struct fabric *f, struct lft_set *t,
		      const char *path, int wide_lids);

#endif
