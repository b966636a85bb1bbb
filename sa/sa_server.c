/* SA server: decode, dispatch, answer (IBA 15.2, 15.4; RMPP 13.6). */
#include "sa_server.h"

#include <endian.h>
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
	/* The records: first in the response MAD's data (in_mad: an answer
	 * of one MAD, the common case, is sent from where it was built),
	 * moved to the server's spare buffer or the heap once they pass it. */
	uint8_t *buf;
	size_t len;
	size_t count;
	struct sa_server *s;            /* its spare buffer and yield */
	/* At most SA_MAX_ANSWER_BYTES, or the requester's lower cap
	 * (sa_server.rmpp_per_requester): one compare a record. */
	size_t limit;
	uint32_t cap;                   /* bytes, at most SA_MAX_ANSWER_BYTES */
	uint32_t rec_len, padded;
	uint8_t in_mad;
	uint8_t overflow;
	uint8_t busy;                   /* the yield said stop: Busy */
};

/* A long answer (every PathRecord of a fabric: 0.4 s for 374,544) lets
 * the SM handle what arrived meanwhile (traps, SMInfo) this often. */
#define SA_YIELD_RECORDS 4096

/* The records outgrow the response MAD's data (or a heap buffer): to the
 * spare buffer (sa_server.spare) if the MAD held them, grown to end. */
static int sa_answer_grow(struct sa_answer *a, size_t end)
{
	struct sa_server *s = a->s;

	if (a->in_mad) {
		uint8_t *mad_data = a->buf;

		a->buf = s->spare;
		a->cap = s->spare_cap;
		s->spare = NULL;
		s->spare_cap = 0;
		a->in_mad = 0;
		if (end > a->cap &&
		    grow_array((void **)&a->buf, &a->cap, (uint32_t)end, 1, 4096))
			return -ENOMEM;
		memcpy(a->buf, mad_data, a->len);
		return 0;
	}
	return grow_array((void **)&a->buf, &a->cap, (uint32_t)end, 1, 4096);
}

/* sa_answer_add when the record passes the buffer or the limit, or the
 * yield is due: out of line, so the common case keeps no registers. */
__attribute__((noinline))
static int answer_add_slow(struct sa_answer *a, const uint8_t *rec)
{
	size_t end = a->len + a->padded;

	if (end > a->limit) {
		a->overflow = 1;
		return -ENOMEM;
	}
	/* end <= SA_MAX_ANSWER_BYTES here: 32 bits hold it. */
	if (end > a->cap && sa_answer_grow(a, end)) {
		a->overflow = 1;
		return -ENOMEM;
	}
	memset(a->buf + end - 8, 0, 8);
	memcpy(a->buf + a->len, rec, a->rec_len);
	a->len = end;
	a->count++;
	if (a->count % SA_YIELD_RECORDS == 0 && a->s->yield &&
	    a->s->yield(a->s->yield_arg)) {
		/* Something more urgent (a sweep) is due: give up, the
		 * requester is told Busy and asks again (IBA 13.4.7). */
		a->busy = a->overflow = 1;
		return -EBUSY;
	}
	return 0;
}

int sa_answer_add(struct sa_answer *a, const uint8_t *rec)
{
	size_t len = a->len, end = len + a->padded;

	if (end > a->cap || end > a->limit ||
	    (a->count + 1) % SA_YIELD_RECORDS == 0)
		return answer_add_slow(a, rec);
	/* The padding (under 8 bytes, rec_len >= 1) is zeroed by one 8-byte
	 * store the record then overwrites up to rec_len. */
	memset(a->buf + end - 8, 0, 8);
	a->len = end;
	a->count++;
	memcpy(a->buf + len, rec, a->rec_len);
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

/* Multi-MAD answers (mad/rmpp_send.h): a reader that has ACKed and falls
 * silent for 1 s gets the window again, 3 times, then an ABORT (the
 * daemon sets both from sa_rmpp_timeout_ms and sa_rmpp_retries); one that
 * never ACKs (saquery and osmtest under ibsim, where no kernel
 * reassembles) got segment 1, as OpenSM's answers look there, and is
 * forgotten after 5 s with nothing resent. */
static const struct rmpp_tx_opts sa_tx_opts = {
	.hdr_len = GMP_SA_DATA_OFFS, .resend_s = 1.0, .max_retries = 3,
	.ttl_s = 5.0,
};

static int send_mad(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
		    uint32_t dqp);
static void tx_gave_up(void *arg, const struct rmpp_tx_xfer *x);

void sa_server_init(struct sa_server *s, struct mad_transport *t)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	rmpp_tx_init(&s->tx, &sa_tx_opts, s->xfer, SA_MAX_XFERS, send_mad, s);
	s->tx.gave_up = tx_gave_up;
	rmpp_tx_first_base(s->seg1_base, GMP_SA_DATA_OFFS);
	rmpp_tx_only_base(s->only_base, GMP_SA_DATA_OFFS);
	sa_db_init(&s->ctx.db);
	sa_sl2vl_init(&s->ctx.sl2vl);
	sa_tbl_init(&s->ctx.vlarb, SA_TBL_VLARB);
	if (rmpp_rx_init(&s->rx, &sa_rx_opts) < 0)
		log_warn("SA: no memory for RMPP reassembly: multi-MAD requests will be stopped");
}

void sa_server_free(struct sa_server *s)
{
	rmpp_tx_free(&s->tx);
	free(s->spare);
	rmpp_rx_free(&s->rx);
	sa_db_free(&s->ctx.db);
	sa_service_db_free(&s->ctx.services);
	sa_inform_db_free(&s->ctx.informs);
	sa_sl2vl_free(&s->ctx.sl2vl);
	sa_sl2vl_free(&s->ctx.vlarb);
	memset(s, 0, sizeof(*s));
}

void sa_server_rmpp_timers(struct sa_server *s, double resend_s,
			   unsigned retries)
{
	s->tx.o.resend_s = resend_s;
	s->tx.o.max_retries = retries;
}

/* The statistics' column of a method (sa_stats.by_attr) plus one, 0 for
 * a method not counted there: a load, not a switch, a request. */
static const uint8_t method_col1[128] = {
	[SA_METHOD_GET] = 1, [SA_METHOD_GET_TABLE] = 2,
	[SA_METHOD_SET] = 3, [SA_METHOD_DELETE] = 4,
};

/* Requester's GID: the subnet prefix and the port GUID of its LID, both
 * big endian (a GID's wire order; sa_query's own bytes, no MAD field). */
static void requester(const struct sa_ctx *c, uint16_t slid, struct sa_query *q)
{
	uint32_t p = sa_db_port_of_lid(&c->db, slid);
	uint64_t pfx = htobe64(c->db.subnet_prefix), guid;

	q->requester_port_guid = p == FAB_NONE ? 0 : c->db.r->fab.ports[p].guid;
	guid = htobe64(q->requester_port_guid);
	memcpy(q->requester_gid, &pfx, 8);
	memcpy(q->requester_gid + 8, &guid, 8);
}

/* Run the request (h: its headers, req: its bytes); fills a, returns the
 * MAD status. */
static uint16_t run(struct sa_server *s, const struct sa_req_hdr *h,
		    const uint8_t *req, size_t req_len, uint16_t slid,
		    uint32_t sqp, struct sa_answer *a, int *slot,
		    const struct sa_attr_ops **opsp)
{
	/* Each field stored once; the requester's stay zero unless
	 * requester() fills them. */
	struct sa_query q = {
		.method = h->method, .attr_id = h->attr_id,
		.attr_mod = h->attr_mod, .comp_mask = h->comp_mask,
		.record = req + GMP_SA_DATA_OFFS,
		/* A reassembled multi-MAD request carries more than one
		 * MAD's worth (a MultiPathRecord's GIDs). */
		.record_len = req_len > GMP_SA_DATA_OFFS ?
			req_len - GMP_SA_DATA_OFFS : GMP_SA_DATA_SIZE,
		.slid = slid, .sqp = sqp,
		.trusted = h->sm_key == s->ctx.sm.sm_key,
	};
	const struct sa_attr_ops *ops;
	int (*fn)(struct sa_ctx *, const struct sa_query *, struct sa_answer *);
	int rc;

	*slot = -1;
	*opsp = NULL;
	if (h->class_version != GMP_SA_CLASS_VERSION)
		return GMP_STATUS_BAD_CLASS;
	if (s->last_ops && s->last_ops->attr_id == q.attr_id) {
		ops = s->last_ops;
		*slot = s->last_slot;
	} else if ((ops = sa_registry_find(q.attr_id, slot))) {
		s->last_ops = ops;
		s->last_slot = *slot;
	}
	*opsp = ops;
	/* An attribute we do not serve is an unsupported method/attribute
	 * combination (IBA 13.4.7 Table 111: 0x000C), as OpenSM answers;
	 * 0x001C means a field of a supported attribute is invalid. */
	if (!ops)
		return GMP_STATUS_METHOD_ATTR_UNSUPP;
	a->rec_len = (uint32_t)ops->rec_len;
	a->padded = (uint32_t)((ops->rec_len + 7) & ~(size_t)7);
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
	if (!ops->no_requester)
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

static int is_table(uint8_t method)
{
	return method == SA_METHOD_GET_TABLE || method == SA_METHOD_GET_MULTI;
}

/* The first MAD of an answer of `segs` segments, built in mad: the
 * response's headers from the request's (attr_id instead of its
 * attribute unless 0), the RMPP header for table methods (multi;
 * mad/rmpp_send.h sends the rest), and the records that fit. Returns the bytes that carry
 * data (what ibsim hands the client). */
static size_t first_segment(struct sa_server *s,
			    const struct sa_req_hdr *h, const uint8_t *req,
			    uint16_t attr_id, uint16_t status,
			    const struct sa_answer *a, int multi,
			    unsigned segs, uint8_t *mad)
{
	uint16_t offs = (uint16_t)(a->padded / 8);

	if (multi) {
		/* Records in mad already: one segment (segs is 1). */
		if (a->in_mad) {
			if (offs != s->only_offs || h->comp_mask != s->only_mask) {
				sa_hdr_set(s->only_base, offs, h->comp_mask);
				s->only_offs = offs;
				s->only_mask = h->comp_mask;
			}
			sa_resp_hdr_sa(h, s->only_base, attr_id, status, mad);
			return rmpp_tx_fill_only(GMP_SA_DATA_OFFS,
						 status ? 0 : a->len, mad);
		}
		sa_resp_hdr(h, s->seg1_base, attr_id, status, offs, mad);
		return rmpp_tx_fill_first(GMP_SA_DATA_OFFS, a->buf,
					  status ? 0 : a->len, segs, mad);
	}
	sa_resp_hdr(h, NULL, attr_id, status, offs, mad);
	/* Get/Set/Delete: the one record, or the request's record echoed
	 * with the error (IBA 15.4). In mad already, its padding zero
	 * (sa_answer_add): zeros after it. */
	if (!status && a->len && a->in_mad) {
		memset(mad + GMP_SA_DATA_OFFS + a->len, 0,
		       GMP_SA_DATA_SIZE - a->len);
	} else if (!status && a->len) {
		memcpy(mad + GMP_SA_DATA_OFFS, a->buf, a->rec_len);
		memset(mad + GMP_SA_DATA_OFFS + a->rec_len, 0,
		       GMP_SA_DATA_SIZE - a->rec_len);
	} else {
		memcpy(mad + GMP_SA_DATA_OFFS, req + GMP_SA_DATA_OFFS,
		       GMP_SA_DATA_SIZE);
	}
	return GMP_SIZE;
}

static int send_mad(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
		    uint32_t dqp)
{
	struct sa_server *s = arg;

	if (s->send)
		return s->send(s->send_arg, mad, len, dlid, dqp);
	return mt_respond_class(s->t, GMP_CLASS_SA, mad, len, dlid, dqp);
}

static unsigned segments(size_t total)
{
	return rmpp_tx_segments(GMP_SA_DATA_OFFS, total);
}

static void tx_gave_up(void *arg, const struct rmpp_tx_xfer *x)
{
	(void)arg;
	log_info("SA: RMPP answer to LID %u (TID 0x%llx): no ACK after %u "
		 "resends of segments %u..%u of %u, aborted", x->dlid,
		 (unsigned long long)x->tid, x->resends, x->acked + 1, x->sent,
		 x->segs);
}

size_t sa_server_kept_bytes(const struct sa_server *s)
{
	return rmpp_tx_kept(&s->tx, 0);
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
static void xfer_start(struct sa_server *s, const struct sa_req_hdr *h,
		       uint16_t attr_id, struct sa_answer *a, uint16_t dlid,
		       uint32_t dqp)
{
	struct rmpp_tx_xfer *x;
	size_t len = a->len;
	uint8_t hdr[GMP_SIZE];
	uint8_t *data;

	if ((s->rmpp_budget && len > s->rmpp_budget) ||
	    (s->rmpp_per_requester && len > s->rmpp_per_requester)) {
		/* Its first segment went out; the rest cannot be kept. */
		budget_drop(s, "an answer larger than the budget", dlid, len);
		return;
	}
	while (s->rmpp_per_requester &&
	       rmpp_tx_kept(&s->tx, dlid) + len > s->rmpp_per_requester) {
		x = rmpp_tx_oldest(&s->tx, dlid);
		budget_drop(s, "the oldest answer", dlid, x->total);
		rmpp_tx_drop(&s->tx, x);
	}
	while (s->rmpp_budget && rmpp_tx_kept(&s->tx, 0) + len > s->rmpp_budget) {
		x = rmpp_tx_oldest(&s->tx, 0);
		budget_drop(s, "the oldest answer", x->dlid, x->total);
		rmpp_tx_drop(&s->tx, x);
	}
	if (rmpp_tx_active(&s->tx) == SA_MAX_XFERS) {
		rmpp_tx_drop(&s->tx, rmpp_tx_oldest(&s->tx, 0));
		s->st.rmpp_expired++;
	}
	/* The answer grew by doubling: keep only its bytes. */
	data = realloc(a->buf, len ? len : 1);
	if (!data)
		return;         /* a->buf is still the caller's to free */
	a->buf = NULL;
	sa_resp_hdr(h, NULL, attr_id, 0, (uint16_t)(a->padded / 8), hdr);
	rmpp_tx_start(&s->tx, hdr, data, len, smp_tid(h->common), dlid, dqp,
		      now_seconds());
}

/* An RMPP ACK, STOP or ABORT from a client reading one of our answers,
 * or a STOP/ABORT from a client sending us a multi-MAD request. */
static void rmpp_control(struct sa_server *s, const uint8_t *mad, uint16_t slid)
{
	struct rmpp_hdr h;

	switch (rmpp_tx_control(&s->tx, mad, slid, now_seconds())) {
	case RMPP_TX_DONE:
		s->st.rmpp_transfers++;
		/* fall through */
	case RMPP_TX_ACKED:
		s->st.rmpp_acks++;
		return;
	case RMPP_TX_CANCELLED:
		s->st.rmpp_aborted++;
		return;
	case RMPP_TX_NOT_OURS:
		break;
	}
	rmpp_get(mad, &h);
	if (h.type != RMPP_TYPE_ACK && rmpp_rx_cancel(&s->rx, mad, slid))
		s->st.rmpp_aborted++;
	else
		s->st.ignored++;
}

static void count(struct sa_server *s, uint8_t method, int slot,
		  uint16_t status, const struct sa_answer *a)
{
	unsigned m = method_col1[method & 0x7f];

	s->st.requests++;
	if (status)
		s->st.errors++;
	else
		s->st.records += a->count;
	if ((unsigned)slot < 32 && m)
		s->st.by_attr[slot][m - 1]++;
}

/* A table answer as one transfer the kernel segments (a real port):
 * the SA header once, all records after it, RMPP Active (IBA 13.6.2). */
static int respond_kernel_rmpp(struct sa_server *s, const struct sa_req_hdr *rh,
			       uint16_t attr_id, const struct sa_answer *a,
			       uint16_t dlid, uint32_t dqp)
{
	size_t len = GMP_SA_DATA_OFFS + a->len;
	uint8_t *buf = calloc(1, len < GMP_SIZE ? GMP_SIZE : len);
	struct rmpp_hdr h = { .version = 1, .type = RMPP_TYPE_DATA,
			      .flags = RMPP_FLAG_ACTIVE };
	int rc;

	if (!buf)
		return -ENOMEM;
	sa_resp_hdr(rh, NULL, attr_id, 0, (uint16_t)(a->padded / 8), buf);
	rmpp_set(buf, &h);
	if (a->len)
		memcpy(buf + GMP_SA_DATA_OFFS, a->buf, a->len);
	rc = send_mad(s, buf, len, dlid, dqp);
	free(buf);
	return rc;
}

/* A buffer up to this size outlives its answer (sa_server.spare). */
#define SA_SPARE_MAX (64u << 10)

/* What is left of the answer's buffer once it left the MAD (an RMPP
 * transfer may have taken it) is kept if small, freed if not. */
static void spare_keep(struct sa_server *s, struct sa_answer *a)
{
	if (a->in_mad)
		return;
	if (a->buf && a->cap <= SA_SPARE_MAX && !s->spare) {
		s->spare = a->buf;
		s->spare_cap = a->cap;
	} else {
		free(a->buf);
	}
	a->buf = NULL;
}

/* Answer one request (h: its headers decoded, req: its len bytes): run
 * it, send the response (the first segment of a table, the rest on
 * ACKs). */
static void answer(struct sa_server *s, const struct sa_req_hdr *h,
		   const uint8_t *req, size_t req_len, uint16_t slid,
		   uint32_t sqp)
{
	uint8_t mad[GMP_SIZE];
	/* Built where it is sent from while it fits one MAD. An answer one
	 * requester may not hold is refused before it costs more than that
	 * (sa_rmpp_requester_mb; ERR_NO_RESOURCES). */
	struct sa_answer a = {
		.buf = mad + GMP_SA_DATA_OFFS, .cap = GMP_SA_DATA_SIZE,
		.in_mad = 1, .s = s,
		.limit = s->rmpp_per_requester &&
			 s->rmpp_per_requester < SA_MAX_ANSWER_BYTES ?
			 s->rmpp_per_requester : SA_MAX_ANSWER_BYTES,
	};
	const struct sa_attr_ops *ops;
	uint16_t status, attr_id = 0;
	unsigned segs;
	size_t len;
	int slot, multi = is_table(h->method);

	status = run(s, h, req, req_len, slid, sqp, &a, &slot, &ops);
	/* Answers of another attribute (MultiPathRecord's are PathRecords):
	 * the header the segments are built from says so. (ops: run's, the
	 * request's attribute) */
	if (ops && ops->resp_attr_id && !status)
		attr_id = ops->resp_attr_id;
	segs = segments(status ? 0 : a.len);
	if (!status && multi && s->t && mt_kernel_rmpp(s->t)) {
		if (respond_kernel_rmpp(s, h, attr_id, &a, slid, sqp) < 0)
			log_warn("SA: cannot answer LID %u (attr 0x%04x)", slid,
				 attr_id ? attr_id : h->attr_id);
		if (segs > 1)
			s->st.rmpp_transfers++;
	} else {
		len = first_segment(s, h, req, attr_id, status, &a, multi, segs,
				    mad);
		if (send_mad(s, mad, len, slid, sqp) < 0)
			log_warn("SA: cannot answer LID %u (attr 0x%04x)", slid,
				 attr_id ? attr_id : h->attr_id);
		s->st.rmpp_segments += multi;
		if (multi && segs > 1)
			xfer_start(s, h, attr_id, &a, slid, sqp);
	}
	if (status)
		log_debug("SA: attr 0x%04x method 0x%02x from LID %u: status 0x%04x",
			  h->attr_id, h->method, slid, status);
	count(s, h->method, slot, status, &a);
	spare_keep(s, &a);
}

static void send_ctl(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
		     uint32_t dqp)
{
	if (send_mad(arg, mad, len, dlid, dqp) < 0)
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
		struct sa_req_hdr h;

		s->st.rmpp_requests++;
		log_debug("SA: multi-MAD request from LID %u reassembled: %zu bytes",
			  slid, out.msg_len);
		sa_req_decode(out.msg, &h);
		answer(s, &h, out.msg, out.msg_len, slid, sqp);
	}
}

double sa_server_next_deadline(const struct sa_server *s)
{
	double t = s->rx.x ? rmpp_rx_next_expiry(&s->rx) : HUGE_VAL;
	double tx = rmpp_tx_next_deadline(&s->tx);

	return tx < t ? tx : t;
}

void sa_server_tick(struct sa_server *s, double now)
{
	rmpp_tx_expire(&s->tx, now);
	if (s->rx.x)
		rmpp_rx_expire(&s->rx, now, send_ctl, s);
}

void sa_server_handle(struct sa_server *s, uint8_t *mad, uint16_t slid,
		      uint32_t sqp)
{
	struct sa_req_hdr h;

	/* Transfers that ran out of time free their slots first (no clock
	 * read and no scan while none is under way). */
	if (rmpp_tx_active(&s->tx) || rmpp_rx_active(&s->rx))
		sa_server_tick(s, now_seconds());
	sa_req_decode(mad, &h);
	if ((h.rmpp_flags & RMPP_FLAG_ACTIVE) && h.rmpp_type != RMPP_TYPE_DATA) {
		if (h.rmpp_type >= RMPP_TYPE_ACK && h.rmpp_type <= RMPP_TYPE_ABORT) {
			rmpp_control(s, mad, slid);
		} else if (!h.response && s->rx.x) {
			struct rmpp_rx_out out;

			/* No such RMPPType (IBA 13.6.2.1): ABORT, BADT. */
			rmpp_rx_abort_reply(&s->rx, mad, RMPP_ST_BADT, &out);
			send_ctl(s, out.ctl, (size_t)out.ctl_len, slid, sqp);
		} else {
			s->st.ignored++;
		}
		return;
	}
	if (h.response) {
		s->st.ignored++;                /* a stray response */
		return;
	}
	if ((h.rmpp_flags & RMPP_FLAG_ACTIVE) &&
	    (h.rmpp_flags & (RMPP_FLAG_FIRST | RMPP_FLAG_LAST)) !=
	    (RMPP_FLAG_FIRST | RMPP_FLAG_LAST)) {
		request_segment(s, mad, slid, sqp);
		return;
	}
	/* A plain request, or one whole RMPP segment (FIRST and LAST: a
	 * GetMulti that fits one MAD), answered at once; the answer
	 * acknowledges it (as OpenSM's under ibsim). */
	answer(s, &h, mad, GMP_SIZE, slid, sqp);
}

void sa_server_handle_long(struct sa_server *s, uint8_t *msg, size_t len,
			   uint16_t slid, uint32_t sqp)
{
	struct sa_req_hdr h;

	sa_server_tick(s, now_seconds());
	if (len < GMP_SIZE) {
		s->st.ignored++;
		return;
	}
	sa_req_decode(msg, &h);
	if (h.response) {
		s->st.ignored++;
		return;
	}
	s->st.rmpp_requests++;
	answer(s, &h, msg, len, slid, sqp);
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
		(unsigned long long)(s->st.rmpp_segments + s->tx.st.segments),
		(unsigned long long)s->st.rmpp_acks,
		(unsigned long long)s->tx.st.resends,
		(unsigned long long)(s->st.rmpp_aborted + s->tx.st.timed_out),
		(unsigned long long)(s->st.rmpp_expired + s->tx.st.expired),
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
