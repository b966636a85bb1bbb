/* SA server: decode, dispatch, answer (IBA 15.2, 15.4; RMPP 13.6). */
#include "sa_server.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../core/grow.h"
#include "../core/log.h"
#include "../mad/gmp.h"
#include "../mad/smp.h"
#include "sa_handler.h"
#include "sa_registry.h"

/* An answer bigger than this is refused with ERR_NO_RESOURCES: a client
 * asking for every PathRecord of a large fabric in one GetTable gets an
 * error rather than the SM spending seconds and gigabytes on it. */
#define SA_MAX_ANSWER_BYTES (64u << 20)

struct sa_answer {
	uint8_t *buf;
	size_t len;
	uint32_t cap;                   /* bytes, at most SA_MAX_ANSWER_BYTES */
	size_t rec_len, padded;
	size_t count;
	int overflow;
	size_t max;                     /* 0 or a lower cap than the above */
	int (*yield)(void *arg);        /* called every SA_YIELD_RECORDS */
	void *yield_arg;
	int busy;                       /* the yield said stop: Busy */
};

/* A long answer (every PathRecord of a fabric: 0.4 s for 374,544) lets
 * the SM handle what arrived meanwhile (traps, SMInfo) this often. */
#define SA_YIELD_RECORDS 4096

int sa_answer_add(struct sa_answer *a, const uint8_t *rec)
{
	if (a->len + a->padded > SA_MAX_ANSWER_BYTES ||
	    (a->max && a->len + a->padded > a->max)) {
		a->overflow = 1;
		return -ENOMEM;
	}
	/* len + padded <= SA_MAX_ANSWER_BYTES here: 32 bits hold it */
	if (grow_array((void **)&a->buf, &a->cap, (uint32_t)(a->len + a->padded),
		       1, 4096)) {
		a->overflow = 1;
		return -ENOMEM;
	}
	memcpy(a->buf + a->len, rec, a->rec_len);
	memset(a->buf + a->len + a->rec_len, 0, a->padded - a->rec_len);
	a->len += a->padded;
	a->count++;
	if (a->yield && a->count % SA_YIELD_RECORDS == 0 &&
	    a->yield(a->yield_arg)) {
		/* Something more urgent (a sweep) is due: give up, the
		 * requester is told Busy and asks again (IBA 13.4.7). */
		a->busy = a->overflow = 1;
		return -EBUSY;
	}
	return 0;
}

size_t sa_answer_count(const struct sa_answer *a)
{
	return a->count;
}

/* Multi-MAD requests (mad/rmpp_recv.h): the largest request the SA takes
 * is a MultiPathRecord with 255 + 255 GIDs (24 + 510 x 16 bytes, 41
 * segments); 16 KB each, 4 at once per requester, 64 in all bound the
 * memory to 1 MB. A transfer silent for 5 s is aborted. */
static const struct rmpp_rx_opts sa_rx_opts = {
	.hdr_len = GMP_SA_DATA_OFFS, .window = 16, .max_xfers = 64,
	.max_per_src = 4, .max_bytes = 16384, .ttl_s = 5.0,
};

#define SA_RMPP_RESEND 1.0
#define SA_RMPP_RETRIES 3

void sa_server_init(struct sa_server *s, struct mad_transport *t)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->rmpp_resend_s = SA_RMPP_RESEND;
	s->rmpp_retries = SA_RMPP_RETRIES;
	sa_db_init(&s->ctx.db);
	sa_sl2vl_init(&s->ctx.sl2vl);
	sa_tbl_init(&s->ctx.vlarb, SA_TBL_VLARB);
	if (rmpp_rx_init(&s->rx, &sa_rx_opts) < 0)
		log_warn("SA: no memory for RMPP reassembly: multi-MAD requests will be stopped");
}

void sa_server_free(struct sa_server *s)
{
	for (unsigned i = 0; i < SA_MAX_XFERS; i++)
		free(s->xfer[i].data);
	rmpp_rx_free(&s->rx);
	sa_db_free(&s->ctx.db);
	sa_service_db_free(&s->ctx.services);
	sa_inform_db_free(&s->ctx.informs);
	sa_sl2vl_free(&s->ctx.sl2vl);
	sa_sl2vl_free(&s->ctx.vlarb);
	memset(s, 0, sizeof(*s));
}

static int method_slot(uint8_t method)
{
	switch (method) {
	case SA_METHOD_GET: return 0;
	case SA_METHOD_GET_TABLE: return 1;
	case SA_METHOD_SET: return 2;
	case SA_METHOD_DELETE: return 3;
	default: return -1;
	}
}

/* Requester's GID: the subnet prefix and the port GUID of its LID. */
static void requester(const struct sa_ctx *c, uint16_t slid, struct sa_query *q)
{
	uint32_t p = sa_db_port_of_lid(&c->db, slid);
	uint64_t pfx = c->db.subnet_prefix;

	q->requester_port_guid = p == FAB_NONE ? 0 : c->db.r->fab.ports[p].guid;
	for (int i = 0; i < 8; i++) {
		q->requester_gid[i] = (uint8_t)(pfx >> (56 - 8 * i));
		q->requester_gid[8 + i] =
			(uint8_t)(q->requester_port_guid >> (56 - 8 * i));
	}
}

/* Run the request; fills a, returns the MAD status. */
static uint16_t run(struct sa_server *s, const uint8_t *req, size_t req_len,
		    uint16_t slid, uint32_t sqp, struct sa_answer *a, int *slot)
{
	struct sa_query q = { 0 };
	const struct sa_attr_ops *ops;
	int (*fn)(struct sa_ctx *, const struct sa_query *, struct sa_answer *);
	int rc;

	q.method = (uint8_t)mad_get_field((void *)(uintptr_t)req, 0, IB_MAD_METHOD_F);
	q.attr_id = smp_attr(req);
	q.attr_mod = smp_mod(req);
	q.comp_mask = sa_hdr_comp_mask(req);
	q.record = req + GMP_SA_DATA_OFFS;
	/* A reassembled multi-MAD request carries more than one MAD's
	 * worth (a MultiPathRecord's GIDs). */
	q.record_len = req_len > GMP_SA_DATA_OFFS ? req_len - GMP_SA_DATA_OFFS
						  : GMP_SA_DATA_SIZE;
	q.slid = slid;
	q.sqp = sqp;
	q.trusted = sa_hdr_sm_key(req) == s->ctx.sm.sm_key;
	*slot = -1;
	if (gmp_class_version(req) != GMP_SA_CLASS_VERSION)
		return GMP_STATUS_BAD_CLASS;
	ops = sa_registry_find(q.attr_id, slot);
	/* An attribute we do not serve is an unsupported method/attribute
	 * combination (IBA 13.4.7 Table 111: 0x000C), as OpenSM answers;
	 * 0x001C means a field of a supported attribute is invalid. */
	if (!ops)
		return GMP_STATUS_METHOD_ATTR_UNSUPP;
	a->rec_len = ops->rec_len;
	a->padded = (ops->rec_len + 7) & ~(size_t)7;
	switch (q.method) {
	case SA_METHOD_GET:
	case SA_METHOD_GET_TABLE:
		fn = ops->query;
		break;
	case SA_METHOD_SET:
		fn = ops->set;
		break;
	case SA_METHOD_DELETE:
		fn = ops->del;
		break;
	case SA_METHOD_GET_MULTI:
		fn = ops->get_multi;
		break;
	default:
		return GMP_STATUS_METHOD_UNSUPP;
	}
	if (!fn)
		return GMP_STATUS_METHOD_ATTR_UNSUPP;
	requester(&s->ctx, slid, &q);
	rc = fn(&s->ctx, &q, a);
	if (a->busy) {
		s->st.busy++;
		return SA_STATUS_BUSY;
	}
	if (a->overflow)
		return SA_STATUS_NO_RESOURCES;
	if (rc)
		return (uint16_t)rc;
	if (q.method == SA_METHOD_GET || q.method == SA_METHOD_SET ||
	    q.method == SA_METHOD_DELETE) {
		/* One record answers these (IBA 15.4.1, 15.4.2). */
		if (a->count == 0)
			return SA_STATUS_NO_RECORDS;
		if (a->count > 1 && q.method == SA_METHOD_GET)
			return SA_STATUS_TOO_MANY_RECORDS;
	}
	return 0;
}

/* Segment i (0-based) of an answer of `segs` segments: the request's
 * header turned into the response, the SA header, the RMPP header for
 * table methods, and that segment's share of the records. Returns the
 * bytes that carry data (what ibsim hands the client). */
static size_t build_segment(const uint8_t *req, uint16_t status,
			    const uint8_t *data, size_t total, size_t padded,
			    size_t rec_len, unsigned i, unsigned segs,
			    uint8_t *mad)
{
	uint8_t method = smp_method(req);
	int multi = method == SA_METHOD_GET_TABLE || method == SA_METHOD_GET_MULTI;
	size_t off = (size_t)i * GMP_SA_DATA_SIZE;
	size_t n = total > off ? total - off : 0;

	if (n > GMP_SA_DATA_SIZE)
		n = GMP_SA_DATA_SIZE;
	memset(mad, 0, GMP_SIZE);
	memcpy(mad, req, 24);                   /* common header: TID, attr */
	gmp_make_response(mad, status);
	sa_hdr_set(mad, (uint16_t)(padded / 8), sa_hdr_comp_mask(req));
	if (!multi) {
		/* Get/Set/Delete: the one record, or the request's record
		 * echoed with the error (IBA 15.4). */
		if (!status && total)
			memcpy(mad + GMP_SA_DATA_OFFS, data, rec_len);
		else
			memcpy(mad + GMP_SA_DATA_OFFS, req + GMP_SA_DATA_OFFS,
			       GMP_SA_DATA_SIZE);
		return GMP_SIZE;
	}
	{
		struct rmpp_hdr h = {
			.version = 1,
			.type = RMPP_TYPE_DATA,
			.flags = RMPP_FLAG_ACTIVE,
			.seg_num = i + 1,
		};
		/* PayloadLength counts the SA header of every segment: the
		 * whole in the first, the segment's own in the last (IBA
		 * 13.6.2.3). */
		if (i == 0) {
			h.flags |= RMPP_FLAG_FIRST;
			h.len_or_window = (uint32_t)(total + 20u * segs);
		}
		if (i == segs - 1) {
			h.flags |= RMPP_FLAG_LAST;
			h.len_or_window = (uint32_t)(n + 20);
		}
		rmpp_set(mad, &h);
	}
	if (n)
		memcpy(mad + GMP_SA_DATA_OFFS, data + off, n);
	return GMP_SA_DATA_OFFS + n;
}

static int send_mad(struct sa_server *s, const uint8_t *mad, size_t len,
		    uint16_t dlid, uint32_t dqp)
{
	if (s->send)
		return s->send(s->send_arg, mad, len, dlid, dqp);
	return mt_respond_len(s->t, mad, len, dlid, dqp);
}

static unsigned segments(size_t total)
{
	unsigned n = (unsigned)((total + GMP_SA_DATA_SIZE - 1) / GMP_SA_DATA_SIZE);

	return n ? n : 1;
}

/* --- RMPP sender for ports without kernel RMPP (ibsim) ---------------------
 * IBA 13.6.3: the sender starts with a window of one segment and sends
 * more as the receiver's ACKs open it (NewWindowLast). A client that does
 * no RMPP (saquery and osmtest under ibsim, where no kernel reassembles)
 * never ACKs and so gets exactly the first segment, as OpenSM's answers
 * look there; such a transfer is dropped after SA_XFER_TTL seconds and
 * nothing is resent, so no stray segment reaches a client that is done.
 * A client that has ACKed is an RMPP receiver: when it falls silent for
 * SA_RMPP_RESEND seconds (an ACK or a segment was lost), the window after
 * its last ACK is sent again, up to SA_RMPP_RETRIES times; then the
 * transfer is aborted with status 126 (too many retries, IBA 13.6.3.3).
 * The daemon sets both from sa_rmpp_timeout_ms and sa_rmpp_retries. */
#define SA_XFER_TTL 5.0

static void xfer_free(struct sa_server *s, struct sa_xfer *x)
{
	if (x->busy)
		s->num_xfers--;
	free(x->data);
	memset(x, 0, sizeof(*x));
}

/* Send segments from..to-1 (0-based) of x; returns how many went out. */
static unsigned xfer_send(struct sa_server *s, struct sa_xfer *x,
			  unsigned from, unsigned to)
{
	unsigned n = 0;
	for (unsigned i = from; i < x->segs && i < to; i++) {
		uint8_t seg[GMP_SIZE];
		size_t len = build_segment(x->req, 0, x->data, x->total, x->padded,
					   x->rec_len, i, x->segs, seg);

		if (send_mad(s, seg, len, x->dlid, x->dqp) < 0)
			break;
		n++;
		s->st.rmpp_segments++;
	}
	return n;
}

static void xfer_abort(struct sa_server *s, struct sa_xfer *x, uint8_t status)
{
	uint8_t mad[GMP_SIZE];
	size_t len = build_segment(x->req, 0, x->data, x->total, x->padded,
				   x->rec_len, 0, x->segs, mad);
	struct rmpp_hdr h = { .version = 1, .type = RMPP_TYPE_ABORT,
			      .flags = RMPP_FLAG_ACTIVE, .status = status };

	rmpp_set(mad, &h);
	memset(mad + GMP_SA_DATA_OFFS, 0, len > GMP_SA_DATA_OFFS ? len - GMP_SA_DATA_OFFS : 0);
	if (send_mad(s, mad, len, x->dlid, x->dqp) < 0)
		log_warn("SA: cannot send an RMPP ABORT to LID %u", x->dlid);
}

static void xfer_expire(struct sa_server *s, double now)
{
	for (unsigned i = 0; s->num_xfers && i < SA_MAX_XFERS; i++) {
		struct sa_xfer *x = &s->xfer[i];

		if (!x->busy)
			continue;
		if (!x->acked) {
			if (now - x->started > SA_XFER_TTL) {
				xfer_free(s, x);
				s->st.rmpp_expired++;
			}
			continue;
		}
		if (now - x->last_ack < s->rmpp_resend_s * (x->resends + 1))
			continue;
		/* Everything went out and the window was sent again: only the
		 * final ACK is missing, and the reader is most likely done and
		 * gone (under ibsim a client that exits right after its final
		 * ACK often loses it). Drop the transfer quietly. */
		if (x->sent >= x->segs && x->resends >= 1) {
			xfer_free(s, x);
			s->st.rmpp_expired++;
			continue;
		}
		if (x->resends >= s->rmpp_retries) {
			log_info("SA: RMPP answer to LID %u (TID 0x%llx): no ACK "
				 "after %u resends of segments %u..%u of %u, aborted",
				 x->dlid, (unsigned long long)x->tid, x->resends,
				 x->acked + 1, x->sent, x->segs);
			xfer_abort(s, x, RMPP_ST_TMR);
			xfer_free(s, x);
			s->st.rmpp_aborted++;
			continue;
		}
		/* Go back to the segment after the last one ACKed. */
		x->resends++;
		s->st.rmpp_resends++;
		x->sent = x->acked + xfer_send(s, x, x->acked, x->wlast);
	}
}

size_t sa_server_kept_bytes(const struct sa_server *s)
{
	size_t n = 0;

	for (unsigned i = 0; i < SA_MAX_XFERS; i++)
		if (s->xfer[i].busy)
			n += s->xfer[i].total;
	return n;
}

static size_t kept_for(const struct sa_server *s, uint16_t dlid)
{
	size_t n = 0;

	for (unsigned i = 0; i < SA_MAX_XFERS; i++)
		if (s->xfer[i].busy && s->xfer[i].dlid == dlid)
			n += s->xfer[i].total;
	return n;
}

/* The oldest transfer kept (for dlid only, unless dlid is 0). */
static struct sa_xfer *oldest_xfer(struct sa_server *s, uint16_t dlid)
{
	struct sa_xfer *o = NULL;

	for (unsigned i = 0; i < SA_MAX_XFERS; i++) {
		struct sa_xfer *x = &s->xfer[i];

		if (x->busy && (!dlid || x->dlid == dlid) &&
		    (!o || x->seq < o->seq))
			o = x;
	}
	return o;
}

static void budget_drop(struct sa_server *s, const char *what, uint16_t dlid,
			size_t bytes)
{
	double now = now_seconds();

	s->st.rmpp_budget_dropped++;
	/* A flood drops many: one line a second says it goes on. */
	if (now - s->budget_logged < 1.0)
		return;
	s->budget_logged = now;
	log_info("SA: RMPP memory budget (%zu bytes, %zu per requester): %s of %zu bytes for LID %u dropped (%llu so far)",
		 s->rmpp_budget, s->rmpp_per_requester, what, bytes, dlid,
		 (unsigned long long)s->st.rmpp_budget_dropped);
}

/* Keep the rest of a table answer for its reader: the answer's buffer is
 * taken (a->buf NULL after), within the memory budget. */
static void xfer_start(struct sa_server *s, const uint8_t *req,
		       struct sa_answer *a, unsigned segs, uint16_t dlid,
		       uint32_t dqp)
{
	struct sa_xfer *x = NULL;
	size_t len = a->len;

	if ((s->rmpp_budget && len > s->rmpp_budget) ||
	    (s->rmpp_per_requester && len > s->rmpp_per_requester)) {
		/* Its first segment went out; the rest cannot be kept. */
		budget_drop(s, "an answer larger than the budget", dlid, len);
		return;
	}
	while (s->rmpp_per_requester &&
	       kept_for(s, dlid) + len > s->rmpp_per_requester) {
		x = oldest_xfer(s, dlid);
		budget_drop(s, "the oldest answer", dlid, x->total);
		xfer_free(s, x);
	}
	while (s->rmpp_budget && sa_server_kept_bytes(s) + len > s->rmpp_budget) {
		x = oldest_xfer(s, 0);
		budget_drop(s, "the oldest answer", x->dlid, x->total);
		xfer_free(s, x);
	}
	x = NULL;
	for (unsigned i = 0; i < SA_MAX_XFERS && !x; i++)
		if (!s->xfer[i].busy)
			x = &s->xfer[i];
	if (!x) {
		x = oldest_xfer(s, 0);
		xfer_free(s, x);
		s->st.rmpp_expired++;
	}
	/* The answer grew by doubling: keep only its bytes. */
	x->data = realloc(a->buf, len ? len : 1);
	if (!x->data)
		return;         /* a->buf is still the caller's to free */
	a->buf = NULL;
	memcpy(x->req, req, GMP_SIZE);
	x->total = a->len;
	x->padded = a->padded;
	x->rec_len = a->rec_len;
	x->segs = segs;
	x->sent = 1;
	x->acked = x->resends = 0;
	x->wlast = 1;
	x->tid = smp_tid(req);
	x->dlid = dlid;
	x->dqp = dqp;
	x->started = now_seconds();
	x->seq = ++s->xfer_seq;
	x->busy = 1;
	s->num_xfers++;
}

/* An RMPP ACK, STOP or ABORT from a client reading one of our answers,
 * or a STOP/ABORT from a client sending us a multi-MAD request. */
static void xfer_control(struct sa_server *s, const uint8_t *mad, uint16_t slid)
{
	struct rmpp_hdr h;
	struct sa_xfer *x = NULL;
	uint64_t tid = smp_tid(mad);

	rmpp_get(mad, &h);
	for (unsigned i = 0; i < SA_MAX_XFERS && !x; i++)
		if (s->xfer[i].busy && s->xfer[i].dlid == slid &&
		    (uint32_t)s->xfer[i].tid == (uint32_t)tid)
			x = &s->xfer[i];
	if (!x) {
		if (h.type != RMPP_TYPE_ACK && rmpp_rx_cancel(&s->rx, mad, slid))
			s->st.rmpp_aborted++;
		else
			s->st.ignored++;
		return;
	}
	if (h.type != RMPP_TYPE_ACK) {          /* STOP / ABORT */
		s->st.rmpp_aborted++;
		xfer_free(s, x);
		return;
	}
	s->st.rmpp_acks++;
	if (h.seg_num >= x->segs) {             /* all received */
		s->st.rmpp_transfers++;
		xfer_free(s, x);
		return;
	}
	if (h.seg_num >= x->acked) {
		x->acked = h.seg_num;
		x->wlast = h.len_or_window;
		x->resends = 0;
		x->last_ack = now_seconds();
	}
	/* Send what the new window allows and was not sent yet. */
	if (x->sent < x->wlast)
		x->sent += xfer_send(s, x, x->sent, x->wlast);
}

static void count(struct sa_server *s, const uint8_t *req, int slot,
		  uint16_t status, const struct sa_answer *a)
{
	int m = method_slot(smp_method(req));

	s->st.requests++;
	if (status)
		s->st.errors++;
	else
		s->st.records += a->count;
	if (slot >= 0 && slot < 32 && m >= 0)
		s->st.by_attr[slot][m]++;
}

/* A table answer as one transfer the kernel segments (a real port):
 * the SA header once, all records after it, RMPP Active (IBA 13.6.2). */
static int respond_kernel_rmpp(struct sa_server *s, const uint8_t *req,
			       const struct sa_answer *a, uint16_t dlid,
			       uint32_t dqp)
{
	size_t len = GMP_SA_DATA_OFFS + a->len;
	uint8_t *buf = calloc(1, len < GMP_SIZE ? GMP_SIZE : len);
	struct rmpp_hdr h = { .version = 1, .type = RMPP_TYPE_DATA,
			      .flags = RMPP_FLAG_ACTIVE };
	int rc;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, req, 24);
	gmp_make_response(buf, 0);
	sa_hdr_set(buf, (uint16_t)(a->padded / 8), sa_hdr_comp_mask(req));
	rmpp_set(buf, &h);
	if (a->len)
		memcpy(buf + GMP_SA_DATA_OFFS, a->buf, a->len);
	rc = send_mad(s, buf, len, dlid, dqp);
	free(buf);
	return rc;
}

/* Answer one request: run it, send the response (the first segment of a
 * table, the rest on ACKs). */
static void answer(struct sa_server *s, const uint8_t *req, size_t req_len,
		   uint16_t slid, uint32_t sqp)
{
	struct sa_answer a = { 0 };
	uint8_t mad[GMP_SIZE], resp_hdr[GMP_SIZE];
	uint16_t status;
	unsigned segs;
	size_t len;
	int slot, multi;

	/* An answer one requester may not hold is refused before it costs
	 * more than that (sa_rmpp_requester_mb; ERR_NO_RESOURCES). */
	a.max = s->rmpp_per_requester;
	a.yield = s->yield;
	a.yield_arg = s->yield_arg;
	status = run(s, req, req_len, slid, sqp, &a, &slot);
	multi = smp_method(req) == SA_METHOD_GET_TABLE ||
		smp_method(req) == SA_METHOD_GET_MULTI;
	{
		/* Answers of another attribute (MultiPathRecord's are
		 * PathRecords): the header the segments are built from
		 * says so. */
		const struct sa_attr_ops *ops = sa_registry_find(smp_attr(req), NULL);

		if (ops && ops->resp_attr_id && !status) {
			memcpy(resp_hdr, req, GMP_SIZE);
			mad_set_field(resp_hdr, 0, IB_MAD_ATTRID_F, ops->resp_attr_id);
			req = resp_hdr;
		}
	}
	segs = segments(status ? 0 : a.len);
	if (!status && multi && s->t && mt_kernel_rmpp(s->t)) {
		if (respond_kernel_rmpp(s, req, &a, slid, sqp) < 0)
			log_warn("SA: cannot answer LID %u (attr 0x%04x)", slid,
				 smp_attr(req));
		if (segs > 1)
			s->st.rmpp_transfers++;
	} else {
		len = build_segment(req, status, a.buf, status ? 0 : a.len,
				    a.padded, a.rec_len, 0, segs, mad);
		if (send_mad(s, mad, len, slid, sqp) < 0)
			log_warn("SA: cannot answer LID %u (attr 0x%04x)", slid,
				 smp_attr(req));
		s->st.rmpp_segments += multi;
		if (multi && segs > 1)
			xfer_start(s, req, &a, segs, slid, sqp);
	}
	if (status)
		log_debug("SA: attr 0x%04x method 0x%02x from LID %u: status 0x%04x",
			  smp_attr(req), smp_method(req), slid, status);
	count(s, req, slot, status, &a);
	free(a.buf);
}

static void send_ctl(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
		     uint32_t dqp)
{
	struct sa_server *s = arg;

	if (send_mad(s, mad, len, dlid, dqp) < 0)
		log_warn("SA: cannot send an RMPP ACK/ABORT to LID %u", dlid);
}

/* A segment of a multi-MAD request (RMPP DATA from a client; under ibsim,
 * where no kernel reassembles): ACK or ABORT it, and answer the request
 * once its LAST segment is in. */
static void request_segment(struct sa_server *s, const uint8_t *mad,
			    uint16_t slid, uint32_t sqp)
{
	struct rmpp_rx_out out;
	uint64_t stopped = s->rx.st.aborted + s->rx.st.stopped;

	if (!s->rx.x) {
		s->st.ignored++;
		return;
	}
	rmpp_rx_data(&s->rx, mad, slid, sqp, now_seconds(), &out);
	if (s->rx.st.aborted + s->rx.st.stopped != stopped)
		log_info("SA: multi-MAD request from LID %u (TID 0x%llx) refused: RMPP %s status %u",
			 slid, (unsigned long long)smp_tid(mad),
			 out.ctl[25] == RMPP_TYPE_STOP ? "STOP" : "ABORT",
			 out.ctl[27]);
	if (out.ctl_len)
		send_ctl(s, out.ctl, (size_t)out.ctl_len, slid, sqp);
	if (out.msg) {
		s->st.rmpp_requests++;
		log_debug("SA: multi-MAD request from LID %u reassembled: %zu bytes",
			  slid, out.msg_len);
		answer(s, out.msg, out.msg_len, slid, sqp);
	}
}

double sa_server_next_deadline(const struct sa_server *s)
{
	double t = s->rx.x ? rmpp_rx_next_expiry(&s->rx) : HUGE_VAL;

	for (unsigned i = 0; s->num_xfers && i < SA_MAX_XFERS; i++) {
		const struct sa_xfer *x = &s->xfer[i];
		double at;

		if (!x->busy)
			continue;
		at = x->acked ? x->last_ack + s->rmpp_resend_s * (x->resends + 1)
			      : x->started + SA_XFER_TTL;
		if (at < t)
			t = at;
	}
	return t;
}

void sa_server_tick(struct sa_server *s, double now)
{
	xfer_expire(s, now);
	if (s->rx.x)
		rmpp_rx_expire(&s->rx, now, send_ctl, s);
}

void sa_server_handle(struct sa_server *s, uint8_t *mad, uint16_t slid,
		      uint32_t sqp)
{
	struct rmpp_hdr h;

	/* Transfers that ran out of time free their slots first (no clock
	 * read and no scan while none is under way). */
	if (s->num_xfers || rmpp_rx_active(&s->rx))
		sa_server_tick(s, now_seconds());
	rmpp_get(mad, &h);
	if ((h.flags & RMPP_FLAG_ACTIVE) && h.type != RMPP_TYPE_DATA) {
		if (h.type >= RMPP_TYPE_ACK && h.type <= RMPP_TYPE_ABORT) {
			xfer_control(s, mad, slid);
		} else if (!smp_is_response(mad) && s->rx.x) {
			struct rmpp_rx_out out;

			/* No such RMPPType (IBA 13.6.2.1): ABORT, BADT. */
			rmpp_rx_abort_reply(&s->rx, mad, RMPP_ST_BADT, &out);
			send_ctl(s, out.ctl, (size_t)out.ctl_len, slid, sqp);
		} else {
			s->st.ignored++;
		}
		return;
	}
	if (smp_is_response(mad)) {
		s->st.ignored++;                /* a stray response */
		return;
	}
	if ((h.flags & RMPP_FLAG_ACTIVE) &&
	    (h.flags & (RMPP_FLAG_FIRST | RMPP_FLAG_LAST)) !=
	    (RMPP_FLAG_FIRST | RMPP_FLAG_LAST)) {
		request_segment(s, mad, slid, sqp);
		return;
	}
	/* A plain request, or one whole RMPP segment (FIRST and LAST: a
	 * GetMulti that fits one MAD), answered at once; the answer
	 * acknowledges it (as OpenSM's under ibsim). */
	answer(s, mad, GMP_SIZE, slid, sqp);
}

void sa_server_handle_long(struct sa_server *s, uint8_t *msg, size_t len,
			   uint16_t slid, uint32_t sqp)
{
	sa_server_tick(s, now_seconds());
	if (len < GMP_SIZE || smp_is_response(msg)) {
		s->st.ignored++;
		return;
	}
	s->st.rmpp_requests++;
	answer(s, msg, len, slid, sqp);
}

/* The statistics as text: "key value" lines, then one line per attribute
 * with its Get, GetTable, Set and Delete counts. */
static void stats_text(const struct sa_server *s, FILE *f)
{
	fprintf(f, "requests %llu\nerrors %llu\nrecords %llu\nrmpp_transfers %llu\nrmpp_segments %llu\nrmpp_acks %llu\nrmpp_resends %llu\nrmpp_aborted %llu\nrmpp_expired %llu\nignored %llu\nrmpp_requests %llu\nrmpp_request_segments %llu\nrmpp_request_aborted %llu\nrmpp_request_expired %llu\n",
		(unsigned long long)s->st.requests,
		(unsigned long long)s->st.errors,
		(unsigned long long)s->st.records,
		(unsigned long long)s->st.rmpp_transfers,
		(unsigned long long)s->st.rmpp_segments,
		(unsigned long long)s->st.rmpp_acks,
		(unsigned long long)s->st.rmpp_resends,
		(unsigned long long)s->st.rmpp_aborted,
		(unsigned long long)s->st.rmpp_expired,
		(unsigned long long)s->st.ignored,
		(unsigned long long)s->st.rmpp_requests,
		(unsigned long long)s->rx.st.segments,
		(unsigned long long)(s->rx.st.aborted + s->rx.st.stopped),
		(unsigned long long)s->rx.st.expired);
	fprintf(f, "busy %llu\nrmpp_budget_dropped %llu\nrmpp_kept_bytes %zu\n",
		(unsigned long long)s->st.busy,
		(unsigned long long)s->st.rmpp_budget_dropped,
		sa_server_kept_bytes(s));
	fprintf(f, "# attribute Get GetTable Set Delete\n");
	for (int i = 0; i < 32; i++) {
		const uint64_t *c = s->st.by_attr[i];
		const struct sa_attr_ops *ops = sa_registry_slot(i);

		if (ops)
			fprintf(f, "%s %llu %llu %llu %llu\n", ops->name,
				(unsigned long long)c[0], (unsigned long long)c[1],
				(unsigned long long)c[2], (unsigned long long)c[3]);
	}
}

void sa_server_log_stats(const struct sa_server *s)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	stats_text(s, f);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_info("SA stats: %s", line);
	free(text);
}

int sa_server_write_stats(const struct sa_server *s, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	stats_text(s, f);
	return fclose(f) ? -errno : 0;
}
