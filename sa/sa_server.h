/* The SA server (IBA 15): takes SubnAdm requests from the MAD transport's
 * request callback, so a query is answered at once even while a sweep is
 * running (the sweep drives the same poll loop), dispatches them to the
 * attribute handlers (sa/sa_handler.h) and sends the answer: one MAD for
 * Get, an RMPP-segmented GetTableResp otherwise (IBA 13.6), each segment
 * its own 256-byte MAD. */
#ifndef IBSM_SA_SA_SERVER_H
#define IBSM_SA_SA_SERVER_H

#include <stdint.h>
#include "../mad/mad_transport.h"
#include "../mad/rmpp_recv.h"
#include "../mad/rmpp_send.h"
#include "sa_ctx.h"

struct sa_stats {
	uint64_t requests;
	uint64_t errors;                /* answered with a nonzero status */
	uint64_t records;               /* records sent */
	uint64_t rmpp_transfers;        /* multi-segment answers completed */
	/* The RMPP sender counts the rest of these (tx.st); the stats
	 * text gives the sums. */
	uint64_t rmpp_segments;         /* table segments 1 sent (ibsim) */
	uint64_t rmpp_acks;             /* ACKs received */
	uint64_t rmpp_aborted;          /* STOP/ABORT from a receiver */
	uint64_t rmpp_expired;          /* evicted when every slot was busy */
	uint64_t ignored;               /* stray responses and RMPP segments */
	uint64_t rmpp_requests;         /* multi-MAD requests reassembled */
	uint64_t rmpp_budget_dropped;   /* answers dropped or not kept: budget */
	uint64_t busy;                  /* answers cut for a sweep: Busy */
	uint64_t by_attr[32][4];        /* registry slot x Get/GetTable/Set/Delete */
};

/* Table answers being sent segment by segment (no kernel RMPP): the
 * slots of the RMPP sender (mad/rmpp_send.h), here so the budget can
 * look at them. */
#define SA_MAX_XFERS 64

struct sa_server {
	struct mad_transport *t;
	/* Bytes of RMPP answers kept for their readers (ibsim's path, where
	 * the SA segments): at most budget in all and per_requester for one
	 * LID; a new answer evicts the oldest (logged, counted). 0: no limit. */
	size_t rmpp_budget, rmpp_per_requester;
	double budget_logged;           /* last budget log line */
	/* Called now and then while a long answer is built (NULL: never):
	 * the SM handles SMPs there (mt_yield), never SA requests; nonzero
	 * stops the answer, which is then Busy (status 0x0001). */
	int (*yield)(void *arg);
	void *yield_arg;
	/* Where answers go: mt_respond_len on t unless set (tests). */
	int (*send)(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
		    uint32_t dqp);
	void *send_arg;
	struct sa_ctx ctx;
	struct sa_stats st;
	struct rmpp_tx_xfer xfer[SA_MAX_XFERS];
	struct rmpp_tx tx;              /* multi-MAD answers (no kernel RMPP) */
	struct rmpp_rx rx;              /* multi-MAD requests (no kernel RMPP) */
	/* The last answer's buffer, kept for the next (no malloc per
	 * query); at most SA_SPARE_MAX bytes. */
	uint8_t *spare;
	uint32_t spare_cap;
	/* The last attribute's registry entry: a client asks the same one
	 * over and over (osmtest, a job's PathRecords), no table walk. */
	const struct sa_attr_ops *last_ops;
	int last_slot;
	/* Segment 1's headers but for what each answer sets (RMPP version,
	 * type, RRespTime, segment 1: rmpp_tx_first_base). */
	uint8_t seg1_base[GMP_SA_DATA_OFFS];
	/* The same for an answer of one segment (FIRST and LAST:
	 * rmpp_tx_only_base), with the last such answer's AttributeOffset
	 * and ComponentMask (only_offs, only_mask; written again when
	 * they change): a client repeating a query gets them from here. */
	uint8_t only_base[GMP_SA_DATA_OFFS];
	uint16_t only_offs;
	uint64_t only_mask;
};

void sa_server_init(struct sa_server *s, struct mad_transport *t);
void sa_server_free(struct sa_server *s);
/* RMPP answers (ibsim): silence after an ACK before the window is sent
 * again, and resends before an ABORT (sa_rmpp_timeout_ms, sa_rmpp_retries). */
void sa_server_rmpp_timers(struct sa_server *s, double resend_s,
			   unsigned retries);
/* A SubnAdm MAD received (class 0x03): a request, or an RMPP ACK/STOP/
 * ABORT for one of our answers. mad is writable scratch. */
void sa_server_handle(struct sa_server *s, uint8_t *mad, uint16_t slid,
		      uint32_t sqp);
/* A whole request longer than one MAD (len bytes: the headers, then the
 * record and what follows it), as a kernel that reassembles RMPP hands it
 * up on a real port. */
void sa_server_handle_long(struct sa_server *s, uint8_t *msg, size_t len,
			   uint16_t slid, uint32_t sqp);
/* Timers: unACKed answers and silent incoming transfers expire (the
 * latter with an RMPP ABORT, T2L). Call from the idle loop. */
void sa_server_tick(struct sa_server *s, double now);
/* When sa_server_tick next has work (RMPP timers; HUGE_VAL: none). */
double sa_server_next_deadline(const struct sa_server *s);
/* Bytes of RMPP answers kept now. */
size_t sa_server_kept_bytes(const struct sa_server *s);
/* Statistics to the log, one line per attribute with traffic. */
void sa_server_log_stats(const struct sa_server *s);
/* The same as text ("requests N", then one line per attribute). */
int sa_server_write_stats(const struct sa_server *s, const char *path);

#endif
