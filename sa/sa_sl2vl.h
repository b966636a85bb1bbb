/* What the SA knows of every port's SL2VL tables (SLtoVLMappingTable, IBA
 * 14.2.5.8), to answer SL2VLTableRecord (IBA 15.2.5.4). Nothing is read in
 * the sweep: reading every input/output pair costs ports^2 MADs a switch
 * (21,888 Gets at 324 nodes, 2.1 M at 11,664 CAs). What the SM programs
 * itself (sm/program/vl_program.c) is stored as it is read and written; the rest
 * is read on demand (sm/program/sl2vl_read.c): a query that meets a table not read
 * yet marks its node "asked", and the reader reads the asked nodes' tables
 * (that one first), at a bounded rate; the SA answers Busy meanwhile.
 * `sl2vl_read_all` restores the background read of every table after each
 * heavy sweep.
 *
 * Keyed by node GUID, so it survives sweeps (the SA database does not):
 *   switch  one table per (in, out): out a linked port, in 0 or a linked
 *           port (in == out included, as the spec defines it); and (0, 0)
 *   CA      one table per linked port with a LID (in = out = 0 in records)
 * Each heavy sweep reconciles it with the fabric seen (sa_sl2vl_sweep):
 * nodes gone are dropped; a port whose link now leads elsewhere, or is
 * down, loses every table it is the input or output of; tables not read
 * yet are WANTED. States:
 *   NONE    not a table we keep (a port down)   -> no record
 *   WANTED  to be read                          -> not answered yet
 *   READ    read from the port                  -> answered
 *   SET     written by the SM (read back equal, or Set answered)
 *   FAILED  the Get failed; WANTED again after the next heavy sweep, or
 *           when a query asks for it
 *   READING a Get is under way (counted as wanted; WANTED again in a
 *           new generation, whose reader drops the old answer)
 *
 * The same cache, reader and states serve VLArbitrationTableRecord (IBA
 * 15.2.5.9): a cache of kind SA_TBL_VLARB keeps the four 32-entry blocks
 * of VLArbitrationTable (IBA 14.2.5.9; 1, 2 low priority, 3, 4 high) of
 * every port: a switch's linked ports and port 0, a CA's linked ports
 * with a LID (sa_vlarb_index). Only the table layout differs by kind. */
#ifndef IBSM_SA_SA_SL2VL_H
#define IBSM_SA_SA_SL2VL_H

#include <stdint.h>
#include "../core/subnet.h"

enum sa_tbl_kind { SA_TBL_SL2VL, SA_TBL_VLARB };
#define SA_VLARB_BLOCKS 4
#define SA_VLARB_BLOCK_LEN 64       /* 32 entries of VL (4 bits) and weight */

enum sl2vl_state { SL2VL_NONE, SL2VL_WANTED, SL2VL_READ, SL2VL_SET,
		   SL2VL_FAILED, SL2VL_READING };

struct sa_sl2vl_node {
	uint64_t guid;
	uint8_t num_ports, is_switch;
	uint8_t asked;              /* an SA query wanted its tables: read them */
	uint64_t *sig;              /* per port 0..num_ports: who its link leads to */
	uint8_t *state;             /* per table (sa_sl2vl_index, sa_vlarb_index) */
	uint8_t *tbl;               /* tables of sa_tbl_len() bytes, as on the wire */
};

#define SL2VL_WANT_RING 64

struct sa_sl2vl_cache {
	enum sa_tbl_kind kind;
	struct sa_sl2vl_node *nodes;    /* sorted by GUID */
	uint32_t num_nodes;
	unsigned gen;                   /* +1 at every reconcile */
	uint64_t wanted, known;         /* tables to read / read or set */
	int partial_logged;             /* "answered from what is known" once a gen */
	/* Tables an SA query asked for before they were read: the reader
	 * takes these first (node index, table index, for gen). */
	struct { uint32_t node, idx; unsigned gen; } want[SL2VL_WANT_RING];
	unsigned want_head, want_len;
	unsigned asks;                  /* +1 each time a node becomes asked */
};

void sa_sl2vl_init(struct sa_sl2vl_cache *c);
/* An empty cache of the given kind (sa_sl2vl_init: SA_TBL_SL2VL). */
void sa_tbl_init(struct sa_sl2vl_cache *c, enum sa_tbl_kind kind);
/* Bytes of one table: 8 (16 SLs, 4 bits each) or a VLArb block's 64. */
unsigned sa_tbl_len(const struct sa_sl2vl_cache *c);
/* Tables node n keeps, and table idx of node n. */
unsigned sa_tbl_count(const struct sa_sl2vl_cache *c, const struct sa_sl2vl_node *n);
static inline uint8_t *sa_tbl_at(const struct sa_sl2vl_cache *c,
				 const struct sa_sl2vl_node *n, unsigned idx)
{
	return n->tbl + (size_t)idx * sa_tbl_len(c);
}
/* "SL2VL" or "VLArb", for logs. */
const char *sa_tbl_name(const struct sa_sl2vl_cache *c);
void sa_sl2vl_free(struct sa_sl2vl_cache *c);
/* Reconcile with a fabric just swept. Returns the number of tables
 * dropped because their ports changed, or -ENOMEM (cache emptied). */
int sa_sl2vl_sweep(struct sa_sl2vl_cache *c, const struct subnet *r);
/* Node with this GUID and its position, NULL if none. */
struct sa_sl2vl_node *sa_sl2vl_find(const struct sa_sl2vl_cache *c,
				    uint64_t guid, uint32_t *pos);
/* Table index of (in, out) on a switch, or of port `out` on a CA; -1 if
 * out of range. */
int sa_sl2vl_index(const struct sa_sl2vl_node *n, unsigned in, unsigned out);
/* Table index of VLArb block (1..4) of a port (switch: 0..num_ports, CA:
 * 1..num_ports); -1 if out of range. */
int sa_vlarb_index(const struct sa_sl2vl_node *n, unsigned port, unsigned block);
/* Store a table read (SL2VL_READ) or written (SL2VL_SET), or a failure
 * (SL2VL_FAILED, tbl NULL). Ignored for tables the cache does not keep. */
void sa_sl2vl_store(struct sa_sl2vl_cache *c, uint64_t guid, unsigned in,
		    unsigned out, const uint8_t *tbl, enum sl2vl_state st);
void sa_vlarb_store(struct sa_sl2vl_cache *c, uint64_t guid, unsigned port,
		    unsigned block, const uint8_t *tbl, enum sl2vl_state st);
void sa_sl2vl_store_at(struct sa_sl2vl_cache *c, uint32_t node, uint32_t idx,
		       const uint8_t *tbl, enum sl2vl_state st);
/* A Get of a WANTED table is under way: READING, so that it is not
 * asked for twice. */
void sa_sl2vl_reading(struct sa_sl2vl_cache *c, uint32_t node, uint32_t idx);
/* 1 when CA port p (fabric f) is known to map SL sl to VL 15, which
 * drops every packet on it (IBA 7.6.6): no path on that SL. 0 when it
 * does not or the table is not known (switch ports: 0). */
int sa_sl2vl_drops(const struct sa_sl2vl_cache *c, const struct fabric *f,
		   uint32_t p, unsigned sl);
/* Ask the reader for a table first, and for every table of its node
 * (from an SA query). */
void sa_sl2vl_want(struct sa_sl2vl_cache *c, uint32_t node, uint32_t idx);

#endif
