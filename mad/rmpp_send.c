/* RMPP sender for multi-MAD answers (mad/rmpp_send.h, IBA 13.6.3). */
#include "rmpp_send.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "smp.h"


void rmpp_tx_init(struct rmpp_tx *t, const struct rmpp_tx_opts *o,
		  struct rmpp_tx_xfer *slots, unsigned max_xfers,
		  rmpp_tx_send_fn send, void *ctx)
{
	memset(t, 0, sizeof(*t));
	memset(slots, 0, max_xfers * sizeof(*slots));
	t->o = *o;
	t->x = slots;
	t->max_xfers = max_xfers;
	t->send = send;
	t->ctx = ctx;
}

void rmpp_tx_drop(struct rmpp_tx *t, struct rmpp_tx_xfer *x)
{
	if (x->busy)
		t->num_busy--;
	free(x->data);
	memset(x, 0, sizeof(*x));
}

void rmpp_tx_free(struct rmpp_tx *t)
{
	for (unsigned i = 0; t->x && i < t->max_xfers; i++)
		rmpp_tx_drop(t, &t->x[i]);
}

/* Segment i's share of data after its header, zeros after it; returns
 * how many bytes of data it carries. */
static size_t seg_data(size_t hdr_len, const uint8_t *data, size_t total,
		       unsigned i, uint8_t *mad)
{
	size_t per = GMP_SIZE - hdr_len, off = (size_t)i * per;
	size_t n = total > off ? total - off : 0;

	if (n > per)
		n = per;
	if (n)
		memcpy(mad + hdr_len, data + off, n);
	memset(mad + hdr_len + n, 0, per - n);
	return n;
}

/* PayloadLength counts each segment's class header past the RMPP one:
 * the whole transfer's in the FIRST, its own in the LAST (IBA 13.6.2.3). */
static uint32_t payload_len(size_t hdr_len, size_t total, size_t n,
			    unsigned i, unsigned segs)
{
	size_t extra = hdr_len - RMPP_HDR_END;

	if (i == segs - 1)
		return (uint32_t)(n + extra);
	return i == 0 ? (uint32_t)(total + extra * segs) : 0;
}

static uint8_t data_flags(unsigned i, unsigned segs)
{
	return (uint8_t)(RMPP_FLAG_ACTIVE | (i == 0 ? RMPP_FLAG_FIRST : 0) |
			 (i == segs - 1 ? RMPP_FLAG_LAST : 0));
}

size_t rmpp_tx_fill(size_t hdr_len, const uint8_t *data, size_t total,
		    unsigned i, unsigned segs, uint8_t *mad)
{
	size_t n = seg_data(hdr_len, data, total, i, mad);

	/* RMPPStatus: 0 already (the caller's header) */
	mad_set_field(mad, 0, IB_SA_RMPP_VERS_F, 1);
	mad_set_field(mad, 0, IB_SA_RMPP_TYPE_F, RMPP_TYPE_DATA);
	/* RRespTime 0x1F: no time value given (IBA 13.6.2.1). */
	mad_set_field(mad, 0, IB_SA_RMPP_RESP_F, 0x1f);
	mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, data_flags(i, segs));
	mad_set_field(mad, 0, IB_SA_RMPP_D1_F, i + 1);
	mad_set_field(mad, 0, IB_SA_RMPP_D2_F,
		      payload_len(hdr_len, total, n, i, segs));
	return hdr_len + n;
}

void rmpp_tx_first_base(uint8_t *base, size_t hdr_len)
{
	memset(base, 0, hdr_len);
	mad_set_field(base, 0, IB_SA_RMPP_VERS_F, 1);
	mad_set_field(base, 0, IB_SA_RMPP_TYPE_F, RMPP_TYPE_DATA);
	mad_set_field(base, 0, IB_SA_RMPP_RESP_F, 0x1f);
	mad_set_field(base, 0, IB_SA_RMPP_D1_F, 1);
}

size_t rmpp_tx_fill_first(size_t hdr_len, const uint8_t *data, size_t total,
			  unsigned segs, uint8_t *mad)
{
	size_t n = seg_data(hdr_len, data, total, 0, mad);

	mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, data_flags(0, segs));
	mad_set_field(mad, 0, IB_SA_RMPP_D2_F,
		      payload_len(hdr_len, total, n, 0, segs));
	return hdr_len + n;
}

void rmpp_tx_only_base(uint8_t *base, size_t hdr_len)
{
	rmpp_tx_first_base(base, hdr_len);
	mad_set_field(base, 0, IB_SA_RMPP_FLAGS_F, data_flags(0, 1));
}

size_t rmpp_tx_segment(size_t hdr_len, const uint8_t *hdr, const uint8_t *data,
		       size_t total, unsigned i, unsigned segs, uint8_t *mad)
{
	memcpy(mad, hdr, hdr_len);
	/* hdr's RMPP header may hold anything: all of it is rewritten */
	mad_set_field(mad, 0, IB_SA_RMPP_STATUS_F, RMPP_ST_OK);
	return rmpp_tx_fill(hdr_len, data, total, i, segs, mad);
}

struct rmpp_tx_xfer *rmpp_tx_start(struct rmpp_tx *t, const uint8_t *hdr,
				   uint8_t *data, size_t total, uint64_t tid,
				   uint16_t dlid, uint32_t dqp, double now)
{
	struct rmpp_tx_xfer *x = NULL;

	for (unsigned i = 0; i < t->max_xfers && !x; i++)
		if (!t->x[i].busy)
			x = &t->x[i];
	if (!x)
		return NULL;
	memset(x, 0, sizeof(*x));
	memcpy(x->hdr, hdr, t->o.hdr_len);
	x->data = data;
	x->total = total;
	x->segs = rmpp_tx_segments(t->o.hdr_len, total);
	x->sent = 1;                    /* segment 1: the caller's */
	x->wlast = 1;                   /* IBA 13.6.3: a window of one first */
	x->tid = tid;
	x->dlid = dlid;
	x->dqp = dqp;
	x->started = now;
	x->seq = ++t->seq;
	x->busy = 1;
	t->num_busy++;
	return x;
}

/* Send segments from..to-1 (0-based) of x; returns how many went out. */
static unsigned send_window(struct rmpp_tx *t, struct rmpp_tx_xfer *x,
			    unsigned from, unsigned to)
{
	unsigned n = 0;

	for (unsigned i = from; i < x->segs && i < to; i++) {
		uint8_t seg[GMP_SIZE];
		size_t len = rmpp_tx_segment(t->o.hdr_len, x->hdr, x->data,
					     x->total, i, x->segs, seg);

		if (t->send(t->ctx, seg, len, x->dlid, x->dqp) < 0)
			break;
		n++;
		t->st.segments++;
	}
	return n;
}

/* ABORT with status: segment 1's headers, the RMPP type ABORT, no data
 * (the length segment 1 had, as the receiver saw it). */
static void send_abort(struct rmpp_tx *t, struct rmpp_tx_xfer *x,
		       uint8_t status)
{
	uint8_t mad[GMP_SIZE];
	size_t len = rmpp_tx_segment(t->o.hdr_len, x->hdr, x->data, x->total,
				     0, x->segs, mad);
	struct rmpp_hdr h = { .version = 1, .type = RMPP_TYPE_ABORT,
			      .flags = RMPP_FLAG_ACTIVE, .status = status };

	rmpp_set(mad, &h);
	memset(mad + t->o.hdr_len, 0, len - t->o.hdr_len);
	(void)t->send(t->ctx, mad, len, x->dlid, x->dqp);
}

static struct rmpp_tx_xfer *find(struct rmpp_tx *t, uint16_t slid, uint64_t tid)
{
	/* The low 32 TID bits: the high half is the kernel's or ibsim's
	 * (mad_transport.c). */
	for (unsigned i = 0; t->num_busy && i < t->max_xfers; i++) {
		struct rmpp_tx_xfer *x = &t->x[i];

		if (x->busy && x->dlid == slid && (uint32_t)x->tid == (uint32_t)tid)
			return x;
	}
	return NULL;
}

enum rmpp_tx_event rmpp_tx_control(struct rmpp_tx *t, const uint8_t *mad,
				   uint16_t slid, double now)
{
	struct rmpp_hdr h;
	struct rmpp_tx_xfer *x = find(t, slid, smp_tid(mad));

	if (!x)
		return RMPP_TX_NOT_OURS;
	rmpp_get(mad, &h);
	if (h.type != RMPP_TYPE_ACK) {          /* STOP / ABORT */
		rmpp_tx_drop(t, x);
		return RMPP_TX_CANCELLED;
	}
	if (h.seg_num >= x->segs) {             /* all received */
		rmpp_tx_drop(t, x);
		return RMPP_TX_DONE;
	}
	if (h.seg_num >= x->acked) {
		x->acked = h.seg_num;
		x->wlast = h.len_or_window;
		x->resends = 0;
		x->last_ack = now;
	}
	/* Send what the new window allows and was not sent yet. */
	if (x->sent < x->wlast)
		x->sent += send_window(t, x, x->sent, x->wlast);
	return RMPP_TX_ACKED;
}

/* When x's timer runs out: its TTL until the first ACK, then the resend
 * time after the last one. */
static double due(const struct rmpp_tx *t, const struct rmpp_tx_xfer *x)
{
	return x->acked ? x->last_ack + t->o.resend_s * (x->resends + 1)
			: x->started + t->o.ttl_s;
}

static void expire_one(struct rmpp_tx *t, struct rmpp_tx_xfer *x, double now)
{
	if (!x->acked) {
		if (now - x->started > t->o.ttl_s) {
			rmpp_tx_drop(t, x);
			t->st.expired++;
		}
		return;
	}
	if (now - x->last_ack < t->o.resend_s * (x->resends + 1))
		return;
	/* Everything went out and the window was sent again: only the final
	 * ACK is missing, and the reader is most likely done and gone (under
	 * ibsim a client that exits right after its final ACK often loses
	 * it). Drop the transfer quietly. */
	if (x->sent >= x->segs && x->resends >= 1) {
		rmpp_tx_drop(t, x);
		t->st.expired++;
		return;
	}
	if (x->resends >= t->o.max_retries) {
		if (t->gave_up)
			t->gave_up(t->ctx, x);
		send_abort(t, x, RMPP_ST_TMR);  /* IBA 13.6.3.3 */
		rmpp_tx_drop(t, x);
		t->st.timed_out++;
		return;
	}
	/* Go back to the segment after the last one ACKed. */
	x->resends++;
	t->st.resends++;
	x->sent = x->acked + send_window(t, x, x->acked, x->wlast);
}

void rmpp_tx_expire(struct rmpp_tx *t, double now)
{
	for (unsigned i = 0; t->num_busy && i < t->max_xfers; i++)
		if (t->x[i].busy)
			expire_one(t, &t->x[i], now);
}

double rmpp_tx_next_deadline(const struct rmpp_tx *t)
{
	double at = HUGE_VAL;

	for (unsigned i = 0; t->num_busy && i < t->max_xfers; i++)
		if (t->x[i].busy && due(t, &t->x[i]) < at)
			at = due(t, &t->x[i]);
	return at;
}

size_t rmpp_tx_kept(const struct rmpp_tx *t, uint16_t dlid)
{
	size_t n = 0;

	for (unsigned i = 0; t->num_busy && i < t->max_xfers; i++)
		if (t->x[i].busy && (!dlid || t->x[i].dlid == dlid))
			n += t->x[i].total;
	return n;
}

struct rmpp_tx_xfer *rmpp_tx_oldest(struct rmpp_tx *t, uint16_t dlid)
{
	struct rmpp_tx_xfer *o = NULL;

	for (unsigned i = 0; t->num_busy && i < t->max_xfers; i++) {
		struct rmpp_tx_xfer *x = &t->x[i];

		if (x->busy && (!dlid || x->dlid == dlid) &&
		    (!o || x->seq < o->seq))
			o = x;
	}
	return o;
}
