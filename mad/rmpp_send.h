/* RMPP sender (IBA 13.6.3) for multi-MAD answers, where no kernel
 * segments them (ibsim; a real port's kernel does it for an agent
 * registered with RMPP version 1 and takes the whole answer at once).
 *
 * The caller sends segment 1 itself (rmpp_tx_segment) and hands the rest
 * to rmpp_tx_start; from then on, per transfer:
 *
 *   event                          action                      next
 *   start                          (segment 1 already out)     WAIT_ACK
 *                                  window = 1 segment
 *   ACK seg >= segs                done, forgotten             -
 *   ACK seg >= highest ACKed       window := NewWindowLast,
 *                                  send the unsent segments
 *                                  up to it, retries := 0      ACKED
 *   ACK seg < highest ACKed        send what the window allows  (same)
 *   STOP or ABORT from receiver    forgotten                   -
 *   WAIT_ACK, ttl_s since start    forgotten, nothing resent:  -
 *                                  a client that never ACKs
 *                                  does no RMPP (saquery under
 *                                  ibsim) and is done with
 *                                  segment 1, as OpenSM's look
 *   ACKED, silent resend_s x       go back: send the segments   ACKED
 *   (retries + 1)                  after the last ACKed up to
 *                                  the window again, retries++
 *   ACKED, all sent and resent     forgotten quietly: only the  -
 *   once, still silent             final ACK is missing and the
 *                                  reader is most likely gone
 *   ACKED, retries == max_retries  ABORT TMR (126), forgotten   -
 *
 * Memory is bounded: the caller gives the slots (at most that many
 * transfers; it may look at them to apply its own budget) and each
 * transfer holds its answer's bytes, taken from the caller. No clock and
 * no I/O: times come in as `now`, MADs go out through the send callback. */
#ifndef IBSM_MAD_RMPP_SEND_H
#define IBSM_MAD_RMPP_SEND_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>
#include <infiniband/mad.h>
#include "gmp.h"

#define RMPP_HDR_END 36             /* PayloadLength counts from here */

struct rmpp_tx_opts {
	size_t hdr_len;             /* class header in every segment: 56 (SA) */
	double resend_s;            /* silence after an ACK before a resend */
	unsigned max_retries;       /* resends before ABORT (TMR) */
	double ttl_s;               /* never ACKed: forgotten after this */
};

struct rmpp_tx_xfer {
	uint8_t hdr[GMP_SIZE];      /* first hdr_len bytes: every segment's */
	uint8_t *data;              /* the class data, all segments' */
	size_t total;               /* bytes of data */
	unsigned segs, sent;        /* segments in all, sent so far */
	unsigned acked;             /* highest segment ACKed, 0: none yet */
	unsigned wlast;             /* NewWindowLast of the last ACK */
	unsigned resends;           /* window resends since the last ACK */
	uint64_t tid;
	uint16_t dlid;
	uint32_t dqp;
	double started, last_ack;
	uint64_t seq;               /* order started in (oldest first) */
	int busy;
};

struct rmpp_tx_stats {
	uint64_t segments;          /* sent by the sender (segment 1 is not) */
	uint64_t resends;           /* windows sent again after silence */
	uint64_t timed_out;         /* ABORTed: too many retries */
	uint64_t expired;           /* forgotten unfinished: never ACKed */
};

/* How the caller sends a MAD (len bytes) to dlid/dqp: < 0 when it could
 * not. */
typedef int (*rmpp_tx_send_fn)(void *ctx, const uint8_t *mad, size_t len,
			       uint16_t dlid, uint32_t dqp);

struct rmpp_tx {
	struct rmpp_tx_opts o;
	struct rmpp_tx_xfer *x;     /* the caller's slots, max_xfers of them */
	unsigned max_xfers;
	unsigned num_busy;          /* of them in use (no scan when 0) */
	uint64_t seq;
	rmpp_tx_send_fn send;
	void *ctx;
	/* Called (if set) just before a transfer is ABORTed with TMR. */
	void (*gave_up)(void *ctx, const struct rmpp_tx_xfer *x);
	struct rmpp_tx_stats st;
};

/* What a control MAD did to a transfer of ours (rmpp_tx_control). */
enum rmpp_tx_event {
	RMPP_TX_NOT_OURS,           /* no transfer of that TID to that LID */
	RMPP_TX_ACKED,              /* an ACK; the window moved or not */
	RMPP_TX_DONE,               /* the ACK of the last segment: finished */
	RMPP_TX_CANCELLED,          /* STOP or ABORT from the receiver */
};

void rmpp_tx_init(struct rmpp_tx *t, const struct rmpp_tx_opts *o,
		  struct rmpp_tx_xfer *slots, unsigned max_xfers,
		  rmpp_tx_send_fn send, void *ctx);
/* Frees every transfer's data; the slots stay the caller's. */
void rmpp_tx_free(struct rmpp_tx *t);

/* Segment i (0-based) of `segs` carrying `total` bytes of data: hdr's
 * first hdr_len bytes, the RMPP DATA header (FIRST with the whole
 * PayloadLength on segment 0, LAST with its own on the last; PayloadLength
 * counts each segment's class header past the RMPP one, IBA 13.6.2.3),
 * that segment's share of data, zeros after. Returns the bytes that carry
 * data (what ibsim hands the client). */
size_t rmpp_tx_segment(size_t hdr_len, const uint8_t *hdr, const uint8_t *data,
		       size_t total, unsigned i, unsigned segs, uint8_t *mad);
/* The same in place, for a mad whose first hdr_len bytes already hold
 * the header with RMPPStatus 0 (sa_resp_hdr's): the RMPP DATA header, the
 * data, zeros after. No header copied, no 256-byte memset. */
size_t rmpp_tx_fill(size_t hdr_len, const uint8_t *data, size_t total,
		    unsigned i, unsigned segs, uint8_t *mad);
/* Segment 1's RMPP header has the same version (1), type (DATA),
 * RRespTime (0x1F) and SegmentNumber (1) in every answer:
 * rmpp_tx_first_base writes them once into base (hdr_len bytes, zeros
 * elsewhere; the header each answer starts from, sa_resp_hdr), and
 * rmpp_tx_fill_first then sets only the flags and PayloadLength, and
 * the data. Same bytes as rmpp_tx_fill(..., 0, segs, mad), two field
 * writes instead of six. */
void rmpp_tx_first_base(uint8_t *base, size_t hdr_len);
size_t rmpp_tx_fill_first(size_t hdr_len, const uint8_t *data, size_t total,
			  unsigned segs, uint8_t *mad);
/* An answer of one segment whose data (total bytes, at most GMP_SIZE -
 * hdr_len) is in the mad already: rmpp_tx_only_base's header has the
 * flags too (ACTIVE, FIRST, LAST), rmpp_tx_fill_only sets PayloadLength
 * and zeroes what follows the data. Same bytes as rmpp_tx_fill(..., 0, 1,
 * mad) with that data; one field write and no copy. */
void rmpp_tx_only_base(uint8_t *base, size_t hdr_len);
static inline size_t rmpp_tx_fill_only(size_t hdr_len, size_t total,
				       uint8_t *mad)
{
	/* inline: once for nearly every SA answer */
	memset(mad + hdr_len + total, 0, GMP_SIZE - hdr_len - total);
	mad_set_field(mad, 0, IB_SA_RMPP_D2_F,
		      (uint32_t)(total + hdr_len - RMPP_HDR_END));
	return hdr_len + total;
}
/* Segments needed for total bytes (at least one). */
static inline unsigned rmpp_tx_segments(size_t hdr_len, size_t total)
{
	size_t per = GMP_SIZE - hdr_len;
	unsigned n = (unsigned)((total + per - 1) / per);

	return n ? n : 1;
}

/* Keep an answer whose segment 1 went out: data (total bytes, malloc'd)
 * is taken. NULL when every slot is busy (the caller frees one, e.g. the
 * oldest, and asks again); the data is then still the caller's. */
struct rmpp_tx_xfer *rmpp_tx_start(struct rmpp_tx *t, const uint8_t *hdr,
				   uint8_t *data, size_t total, uint64_t tid,
				   uint16_t dlid, uint32_t dqp, double now);
/* An ACK, STOP or ABORT (mad) from slid: applied to its transfer. */
enum rmpp_tx_event rmpp_tx_control(struct rmpp_tx *t, const uint8_t *mad,
				   uint16_t slid, double now);
/* Timers (the table in the header): resends, ABORTs, forgetting. */
void rmpp_tx_expire(struct rmpp_tx *t, double now);
/* When rmpp_tx_expire next has work (HUGE_VAL: no transfer). */
double rmpp_tx_next_deadline(const struct rmpp_tx *t);
/* Forget one transfer (the caller's budget evicts it). */
void rmpp_tx_drop(struct rmpp_tx *t, struct rmpp_tx_xfer *x);
/* Transfers under way. */
static inline unsigned rmpp_tx_active(const struct rmpp_tx *t)
{
	return t->num_busy;     /* inline: asked on every SA request */
}
/* Bytes of data kept, for dlid only unless dlid is 0. */
size_t rmpp_tx_kept(const struct rmpp_tx *t, uint16_t dlid);
/* The oldest transfer (for dlid only unless dlid is 0); NULL: none. */
struct rmpp_tx_xfer *rmpp_tx_oldest(struct rmpp_tx *t, uint16_t dlid);

#endif
