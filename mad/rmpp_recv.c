/* RMPP receiver for multi-MAD requests (mad/rmpp_recv.h, IBA 13.6.4). */
#include "rmpp_recv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "gmp.h"
#include "smp.h"

#define RMPP_HDR_END 36             /* PayloadLength counts from here */
#define MAD_LEN 256

int rmpp_rx_init(struct rmpp_rx *r, const struct rmpp_rx_opts *o)
{
	memset(r, 0, sizeof(*r));
	if (o->hdr_len < RMPP_HDR_END || o->hdr_len >= MAD_LEN || !o->window ||
	    !o->max_xfers || !o->max_per_src)
		return -EINVAL;
	r->o = *o;
	r->x = calloc(o->max_xfers, sizeof(*r->x));
	return r->x ? 0 : -ENOMEM;
}

static void xfer_drop(struct rmpp_rx *r, struct rmpp_rx_xfer *x)
{
	if (x->busy)
		r->num_busy--;
	free(x->data);
	memset(x, 0, sizeof(*x));
}

void rmpp_rx_free(struct rmpp_rx *r)
{
	for (unsigned i = 0; r->x && i < r->o.max_xfers; i++)
		xfer_drop(r, &r->x[i]);
	free(r->x);
	free(r->msg);
	memset(r, 0, sizeof(*r));
}

double rmpp_rx_next_expiry(const struct rmpp_rx *r)
{
	double t = HUGE_VAL;

	for (unsigned i = 0; r->num_busy && i < r->o.max_xfers; i++)
		if (r->x[i].busy && r->x[i].last_seen + r->o.ttl_s < t)
			t = r->x[i].last_seen + r->o.ttl_s;
	return t;
}

/* Class data bytes per segment, and PayloadLength bytes per segment. */
static size_t seg_data(const struct rmpp_rx *r) { return MAD_LEN - r->o.hdr_len; }
static size_t seg_pay(void) { return MAD_LEN - RMPP_HDR_END; }

/* A control MAD answering `mad`: its header with the response bit turned
 * (IBA 13.6.2.1: ACKs of a request travel as responses and back), the
 * given RMPP type, status, and the two data words. */
static void make_ctl(struct rmpp_rx_out *out, const uint8_t *mad, uint8_t type,
		     uint8_t status, uint32_t seg, uint32_t nwl)
{
	uint8_t *c = out->ctl;

	memset(c, 0, MAD_LEN);
	memcpy(c, mad, RMPP_HDR_END);
	mad_set_field(c, 0, IB_MAD_RESPONSE_F,
		      !mad_get_field((void *)(uintptr_t)mad, 0, IB_MAD_RESPONSE_F));
	mad_set_field(c, 0, IB_MAD_STATUS_F, 0);
	rmpp_set(c, &(struct rmpp_hdr){ .version = 1, .type = type,
		 .flags = RMPP_FLAG_ACTIVE, .status = status,
		 .seg_num = seg, .len_or_window = nwl });
	out->ctl_len = MAD_LEN;
}

static void ack(struct rmpp_rx *r, struct rmpp_rx_out *out, const uint8_t *mad,
		const struct rmpp_rx_xfer *x)
{
	make_ctl(out, mad, RMPP_TYPE_ACK, 0, x->last_in_order, x->window_last);
	r->st.acks++;
}

static void abort_with(struct rmpp_rx *r, struct rmpp_rx_out *out,
		       const uint8_t *mad, struct rmpp_rx_xfer *x, uint8_t status)
{
	int stop = status == RMPP_ST_RESX;

	make_ctl(out, mad, stop ? RMPP_TYPE_STOP : RMPP_TYPE_ABORT, status, 0, 0);
	if (stop)
		r->st.stopped++;
	else
		r->st.aborted++;
	if (x)
		xfer_drop(r, x);
}

void rmpp_rx_abort_reply(struct rmpp_rx *r, const uint8_t *mad, uint8_t status,
			 struct rmpp_rx_out *out)
{
	memset(out, 0, sizeof(*out));
	abort_with(r, out, mad, NULL, status);
}

static struct rmpp_rx_xfer *find(struct rmpp_rx *r, uint16_t slid, uint64_t tid)
{
	/* The low 32 TID bits: a kernel or ibsim owns the high half and
	 * may rewrite it between segments' copies (mad_transport.c). */
	for (unsigned i = 0; i < r->o.max_xfers; i++) {
		struct rmpp_rx_xfer *x = &r->x[i];

		if (x->busy && x->slid == slid && (uint32_t)x->tid == (uint32_t)tid)
			return x;
	}
	return NULL;
}

/* A slot for a new transfer from slid: a free one, else the oldest done
 * one; NULL when the requester or the table is full of live transfers. */
static struct rmpp_rx_xfer *slot_for(struct rmpp_rx *r, uint16_t slid)
{
	struct rmpp_rx_xfer *free_x = NULL, *old_done = NULL;
	unsigned of_src = 0;

	for (unsigned i = 0; i < r->o.max_xfers; i++) {
		struct rmpp_rx_xfer *x = &r->x[i];

		if (!x->busy) {
			if (!free_x)
				free_x = x;
			continue;
		}
		if (x->done) {
			if (!old_done || x->last_seen < old_done->last_seen)
				old_done = x;
			continue;
		}
		of_src += x->slid == slid;
	}
	if (of_src >= r->o.max_per_src)
		return NULL;
	if (free_x)
		return free_x;
	if (old_done)
		xfer_drop(r, old_done);
	return old_done;
}

static int append(struct rmpp_rx *r, struct rmpp_rx_xfer *x, const uint8_t *p,
		  size_t n)
{
	uint8_t *d;

	if (x->len + n > r->o.max_bytes)
		return -ENOSPC;
	d = realloc(x->data, x->len + n ? x->len + n : 1);
	if (!d)
		return -ENOMEM;
	x->data = d;
	memcpy(x->data + x->len, p, n);
	x->len += n;
	return 0;
}

/* The whole request: header of segment 1, then the data; at least one
 * MAD long so callers may read a full first MAD. The transfer stays in
 * time-wait with its header only. */
static void deliver(struct rmpp_rx *r, struct rmpp_rx_xfer *x,
		    struct rmpp_rx_out *out)
{
	size_t n = r->o.hdr_len + x->len;
	size_t cap = n < MAD_LEN ? MAD_LEN : n;
	uint8_t *m = calloc(1, cap);

	if (m) {
		memcpy(m, x->hdr, r->o.hdr_len);
		memcpy(m + r->o.hdr_len, x->data, x->len);
		r->msg = m;
		out->msg = m;
		out->msg_len = n;
		r->st.completed++;
	}
	free(x->data);
	x->data = NULL;
	x->len = 0;
}

/* A FIRST segment: a new transfer (ACKed), or a repeat of one we have
 * (ACKed again). Returns the new transfer when the segment is also LAST
 * (one segment: the caller finishes it), else NULL. */
static struct rmpp_rx_xfer *first(struct rmpp_rx *r, const uint8_t *mad,
				  const struct rmpp_hdr *h, uint16_t slid,
				  uint32_t sqp, double now, struct rmpp_rx_out *out)
{
	struct rmpp_rx_xfer *x = find(r, slid, smp_tid(mad));

	if (x) {                        /* a FIRST again: our ACK was lost */
		x->last_seen = now;
		ack(r, out, mad, x);
		return NULL;
	}
	if (h->len_or_window > r->o.max_bytes +
	    (r->o.max_bytes / seg_data(r) + 1) * (seg_pay() - seg_data(r)) ||
	    !(x = slot_for(r, slid))) {
		abort_with(r, out, mad, NULL, RMPP_ST_RESX);
		return NULL;
	}
	memset(x, 0, sizeof(*x));
	x->busy = 1;
	r->num_busy++;
	x->tid = smp_tid(mad);
	x->slid = slid;
	x->sqp = sqp;
	memcpy(x->hdr, mad, MAD_LEN);
	x->total = h->len_or_window;
	x->last_seen = now;
	if (h->flags & RMPP_FLAG_LAST)
		return x;
	if (append(r, x, mad + r->o.hdr_len, seg_data(r)) < 0) {
		abort_with(r, out, mad, x, RMPP_ST_RESX);
		return NULL;
	}
	x->last_in_order = 1;
	x->window_last = 1 + r->o.window;
	ack(r, out, mad, x);
	return NULL;
}

void rmpp_rx_data(struct rmpp_rx *r, const uint8_t *mad, uint16_t slid,
		  uint32_t sqp, double now, struct rmpp_rx_out *out)
{
	struct rmpp_hdr h;
	struct rmpp_rx_xfer *x;
	size_t n;

	memset(out, 0, sizeof(*out));
	free(r->msg);                   /* the last delivered request */
	r->msg = NULL;
	r->st.segments++;
	rmpp_get(mad, &h);
	x = find(r, slid, smp_tid(mad));
	if (h.version != 1) {
		abort_with(r, out, mad, x, RMPP_ST_UNV);
		return;
	}
	if (h.status) {
		abort_with(r, out, mad, x, RMPP_ST_BAD_STATUS);
		return;
	}
	if (h.seg_num == 0 || ((h.flags & RMPP_FLAG_FIRST) != 0) != (h.seg_num == 1)) {
		abort_with(r, out, mad, x, RMPP_ST_BAD_SEG);
		return;
	}
	if (h.flags & RMPP_FLAG_FIRST) {
		x = first(r, mad, &h, slid, sqp, now, out);
		if (!x)
			return;
		/* FIRST and LAST: one segment, finished below. */
	} else {
		if (!x) {
			r->st.dropped++;        /* its FIRST never came */
			return;
		}
		x->last_seen = now;
		if (x->done || h.seg_num <= x->last_in_order) {
			ack(r, out, mad, x);    /* duplicate: say it again */
			return;
		}
		if (h.seg_num > x->window_last) {
			r->st.dropped++;        /* beyond the window we opened */
			return;
		}
		if (h.seg_num != x->last_in_order + 1) {
			r->st.dropped++;        /* out of order: go back */
			ack(r, out, mad, x);
			return;
		}
	}
	/* Segment last_in_order + 1 (or a one-segment transfer). */
	n = seg_data(r);
	if (h.flags & RMPP_FLAG_LAST) {
		size_t hdr_extra = r->o.hdr_len - RMPP_HDR_END;
		uint64_t whole = (uint64_t)(h.seg_num - 1) * seg_pay() + h.len_or_window;

		if (h.len_or_window < hdr_extra || h.len_or_window > seg_pay() ||
		    (x->total && x->total != whole)) {
			abort_with(r, out, mad, x, RMPP_ST_BAD_LEN);
			return;
		}
		n = h.len_or_window - hdr_extra;
	} else if (x->total && (uint64_t)h.seg_num * seg_pay() +
		   (r->o.hdr_len - RMPP_HDR_END) > x->total) {
		/* No room left for a LAST in the FIRST's PayloadLength. */
		abort_with(r, out, mad, x, RMPP_ST_BAD_LEN);
		return;
	}
	if (append(r, x, mad + r->o.hdr_len, n) < 0) {
		abort_with(r, out, mad, x, RMPP_ST_RESX);
		return;
	}
	x->last_in_order = h.seg_num;
	if (h.flags & RMPP_FLAG_LAST) {
		x->window_last = h.seg_num;
		x->done = 1;
		ack(r, out, mad, x);
		deliver(r, x, out);
		return;
	}
	if (h.seg_num == x->window_last) {
		x->window_last += r->o.window;
		ack(r, out, mad, x);
	}
}

int rmpp_rx_cancel(struct rmpp_rx *r, const uint8_t *mad, uint16_t slid)
{
	struct rmpp_rx_xfer *x = find(r, slid, smp_tid(mad));

	if (!x)
		return 0;
	xfer_drop(r, x);
	return 1;
}

void rmpp_rx_expire(struct rmpp_rx *r, double now,
		    void (*fn)(void *ctx, const uint8_t *mad, size_t len,
			       uint16_t slid, uint32_t sqp),
		    void *ctx)
{
	for (unsigned i = 0; r->num_busy && i < r->o.max_xfers; i++) {
		struct rmpp_rx_xfer *x = &r->x[i];
		struct rmpp_rx_out out;

		if (!x->busy || now - x->last_seen <= r->o.ttl_s)
			continue;
		if (!x->done) {
			/* IBA 13.6.4: the receiver gives up with T2L. */
			make_ctl(&out, x->hdr, RMPP_TYPE_ABORT, RMPP_ST_T2L, 0, 0);
			r->st.expired++;
			if (fn)
				fn(ctx, out.ctl, (size_t)out.ctl_len, x->slid, x->sqp);
		}
		xfer_drop(r, x);
	}
}
