/* RMPP receiver (IBA 13.6.4) for multi-MAD requests, where no kernel
 * reassembles them (ibsim; a real port's kernel does it for an agent
 * registered with RMPP version 1 and hands up the whole request).
 *
 *   DATA seg 1 (FIRST)         new transfer; ACK 1, window opens to W
 *   DATA seg == expected       appended; ACK at the window's end (window
 *                              moves W on) and at LAST, which completes
 *   DATA seg < expected        duplicate: ACK again what we have
 *   DATA expected < seg <= WL  out of order: dropped, ACK again, so the
 *                              sender goes back (in-order only, as 13.6.4)
 *   DATA seg > window          dropped (the sender broke the window)
 *   done transfer, any DATA    ACK of the last segment again (time-wait)
 *   nothing for ttl seconds    ABORT T2L if unfinished, then forgotten
 * Bad input is answered with ABORT (or STOP) and the transfer dropped:
 * version != 1 (UNV 125), nonzero status in DATA (BAD_STATUS 124),
 * segment 0, FIRST on a segment other than 1 or segment 1 without FIRST
 * (BAD_SEG 120), a LAST PayloadLength outside what one segment holds or
 * disagreeing with the FIRST's total, data past that total (BAD_LEN 119),
 * a transfer bigger than max_bytes or no room for another (STOP, RESX 1).
 * A DATA segment of no transfer we know (its FIRST never came) is dropped.
 *
 * Memory is bounded: at most max_xfers transfers at once, at most
 * max_per_src of one requester LID, max_bytes each. The caller sends the
 * control MADs this produces and owns nothing else. */
#ifndef IBSM_MAD_RMPP_RECV_H
#define IBSM_MAD_RMPP_RECV_H

#include <stddef.h>
#include <stdint.h>

#include "gmp.h"

struct rmpp_rx_opts {
	size_t hdr_len;             /* class header kept once: 56 for SubnAdm */
	unsigned window;            /* segments per ACK window */
	unsigned max_xfers, max_per_src;
	size_t max_bytes;           /* class data per transfer */
	double ttl_s;               /* silence that ends a transfer */
};

struct rmpp_rx_xfer {
	uint64_t tid;
	uint16_t slid;
	uint32_t sqp;
	uint8_t hdr[256];           /* segment 1: its first hdr_len bytes matter */
	uint8_t *data;
	size_t len;                 /* class data received in order */
	uint32_t total;             /* FIRST's PayloadLength (0: not given) */
	uint32_t last_in_order;     /* highest segment received in sequence */
	uint32_t window_last;       /* NewWindowLast we last sent */
	double last_seen;
	int busy, done;
};

struct rmpp_rx_stats {
	uint64_t segments, acks, completed, aborted, stopped, expired, dropped;
};

struct rmpp_rx {
	struct rmpp_rx_opts o;
	struct rmpp_rx_xfer *x;     /* o.max_xfers of them */
	unsigned num_busy;          /* of them in use (no scan when 0) */
	uint8_t *msg;               /* the request last delivered */
	struct rmpp_rx_stats st;
};

/* What one segment produced: a control MAD to send back (ACK, ABORT or
 * STOP: ctl, ctl_len bytes, to the segment's sender), and/or the whole
 * request (msg: the first segment's hdr_len header bytes, then every
 * segment's class data in order; valid until the next call). */
struct rmpp_rx_out {
	int ctl_len;                /* 0: nothing to send */
	uint8_t ctl[256];
	const uint8_t *msg;
	size_t msg_len;
};

int rmpp_rx_init(struct rmpp_rx *r, const struct rmpp_rx_opts *o);
void rmpp_rx_free(struct rmpp_rx *r);
/* A received RMPP DATA MAD (256 bytes) from slid/sqp. */
void rmpp_rx_data(struct rmpp_rx *r, const uint8_t *mad, uint16_t slid,
		  uint32_t sqp, double now, struct rmpp_rx_out *out);
/* A STOP or ABORT from the sender of a transfer: forget it. 1 if it was
 * ours. */
int rmpp_rx_cancel(struct rmpp_rx *r, const uint8_t *mad, uint16_t slid);
/* Transfers silent for ttl_s: fn(ctx, abort_mad, len, slid, sqp) is
 * called with an ABORT (T2L) for each unfinished one; all are forgotten. */
void rmpp_rx_expire(struct rmpp_rx *r, double now,
		    void (*fn)(void *ctx, const uint8_t *mad, size_t len,
			       uint16_t slid, uint32_t sqp),
		    void *ctx);
/* An ABORT with `status` answering mad (e.g. BADT for an RMPPType that
 * does not exist), for the caller to send. */
void rmpp_rx_abort_reply(struct rmpp_rx *r, const uint8_t *mad, uint8_t status,
			 struct rmpp_rx_out *out);
/* Transfers held (unfinished or in time-wait). */
static inline unsigned rmpp_rx_active(const struct rmpp_rx *r)
{
	return r->num_busy;     /* inline: asked on every SA request */
}
/* When the next transfer falls silent for ttl_s (HUGE_VAL: none busy):
 * the time rmpp_rx_expire next has work. */
double rmpp_rx_next_expiry(const struct rmpp_rx *r);

#endif
