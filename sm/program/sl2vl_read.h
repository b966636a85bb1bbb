/* Reads of SL2VL tables for the SA (sa/sa_sl2vl.h), with a directed-route
 * SubnGet(SLtoVLMappingTable) (IBA 14.2.5.8; modifier in << 8 | out on a
 * switch, 0 on a CA port), or of VLArb blocks for a cache of kind
 * SA_TBL_VLARB (SubnGet(VLArbitrationTable), IBA 14.2.5.9; one reader per
 * cache, each with its own rate), outside the sweep: from the daemon's idle loop,
 * at most `rate` a second (a token bucket) and SL2VL_READ_INFLIGHT at
 * once, tables an SA query asked for first. On demand (the default) only
 * the nodes an SA query asked for are read: no flood of Gets after every
 * heavy sweep. With `all` every table the cache wants is read after each
 * heavy sweep. A reconcile of the cache (its generation changes) restarts
 * the walk; answers to reads of an older generation are dropped. */
#ifndef IBSM_SM_SL2VL_READ_H
#define IBSM_SM_SL2VL_READ_H

#include <stdint.h>
#include "../../core/subnet.h"
#include "../../mad/mad_transport.h"
#include "../../sa/sa_sl2vl.h"

#define SL2VL_READ_INFLIGHT 16

struct sl2vl_reader {
	double rate;                /* tables per second; 0 = off */
	int all;                    /* every table, not only asked nodes' */
	unsigned asks;              /* cache asks seen (walk restarts on more) */
	uint64_t logged_read;       /* reads counted in the last on-demand log */
	struct sa_sl2vl_cache *c;
	unsigned gen;               /* cache generation being walked */
	uint32_t node, idx;         /* walk cursor */
	uint32_t *fnode;            /* cache node -> node of the swept fabric */
	unsigned in_flight;
	double tokens, last, started;
	uint64_t read, failed;      /* this generation */
	int walking, done_logged;
};

void sl2vl_reader_init(struct sl2vl_reader *rd, struct sa_sl2vl_cache *c,
		       double rate, int all);
void sl2vl_reader_free(struct sl2vl_reader *rd);
/* Submit what the rate allows. r: the sweep result the cache was last
 * reconciled with (the daemon's current one). 0 or a negative errno. */
int sl2vl_reader_tick(struct sl2vl_reader *rd, struct mad_transport *t,
		      struct subnet *r, double now);
/* When sl2vl_reader_tick next has work: the fabric changed, tokens for a
 * queued read, a progress line to log (HUGE_VAL: none). */
double sl2vl_reader_next_deadline(const struct sl2vl_reader *rd, double now);

#endif
