/* SA server: decode, dispatch, answer (IBA 15.2, 15.4; RMPP 13.6). */
#include "sa_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

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
	size_t len, cap;
	size_t rec_len, padded;
	size_t count;
	int overflow;
};

int sa_answer_add(struct sa_answer *a, const uint8_t *rec)
{
	if (a->len + a->padded > SA_MAX_ANSWER_BYTES) {
		a->overflow = 1;
		return -ENOMEM;
	}
	if (a->len + a->padded > a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 4096;
		uint8_t *nb = realloc(a->buf, ncap);

		if (!nb) {
			a->overflow = 1;
			return -ENOMEM;
		}
		a->buf = nb;
		a->cap = ncap;
	}
	memcpy(a->buf + a->len, rec, a->rec_len);
	memset(a->buf + a->len + a->rec_len, 0, a->padded - a->rec_len);
	a->len += a->padded;
	a->count++;
	return 0;
}

size_t sa_answer_count(const struct sa_answer *a)
{
	return a->count;
}

void sa_server_init(struct sa_server *s, struct mad_transport *t)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	sa_db_init(&s->ctx.db);
}

void sa_server_free(struct sa_server *s)
{
	sa_db_free(&s->ctx.db);
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
static uint16_t run(struct sa_server *s, const uint8_t *req, uint16_t slid,
		    struct sa_answer *a, int *slot)
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
	q.record_len = GMP_SA_DATA_SIZE;
	q.slid = slid;
	q.trusted = sa_hdr_sm_key(req) == s->ctx.sm.sm_key;
	*slot = -1;
	if (gmp_class_version(req) != GMP_SA_CLASS_VERSION)
		return GMP_STATUS_BAD_CLASS;
	ops = sa_registry_find(q.attr_id, slot);
	if (!ops)
		return GMP_STATUS_INVALID_FIELD;
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

typedef int (*emit_fn)(void *arg, const uint8_t *mad, size_t len);

/* Build the response MAD(s) for req and hand each to emit. Returns the
 * number of MADs or a negative errno. */
static int respond(const uint8_t *req, uint16_t status,
		   const struct sa_answer *a, emit_fn emit, void *arg)
{
	uint8_t mad[GMP_SIZE];
	uint8_t method = (uint8_t)mad_get_field((void *)(uintptr_t)req, 0,
						IB_MAD_METHOD_F);
	int multi = method == SA_METHOD_GET_TABLE ||
		    method == SA_METHOD_GET_MULTI;
	size_t total = status ? 0 : a->len;
	unsigned segs = multi ? (unsigned)((total + GMP_SA_DATA_SIZE - 1) /
					    GMP_SA_DATA_SIZE) : 1;
	uint16_t words = (uint16_t)(a->padded / 8);

	if (segs == 0)
		segs = 1;
	for (unsigned i = 0; i < segs; i++) {
		size_t off = (size_t)i * GMP_SA_DATA_SIZE;
		size_t n = total > off ? total - off : 0;

		if (n > GMP_SA_DATA_SIZE)
			n = GMP_SA_DATA_SIZE;
		memset(mad, 0, sizeof(mad));
		memcpy(mad, req, 24);           /* common header: TID, attr */
		gmp_make_response(mad, status);
		sa_hdr_set(mad, words, sa_hdr_comp_mask(req));
		if (!multi) {
			/* Get/Set/Delete: the one record, or the request's
			 * record echoed with the error (IBA 15.4). */
			if (!status && a->count)
				memcpy(mad + GMP_SA_DATA_OFFS, a->buf, a->rec_len);
			else
				memcpy(mad + GMP_SA_DATA_OFFS,
				       req + GMP_SA_DATA_OFFS, GMP_SA_DATA_SIZE);
		} else {
			struct rmpp_hdr h = {
				.version = 1,
				.type = RMPP_TYPE_DATA,
				.flags = RMPP_FLAG_ACTIVE,
				.seg_num = i + 1,
			};
			/* PayloadLength counts the SA header of every
			 * segment: the whole in the first, the segment's own
			 * in the last (IBA 13.6.2.3). */
			if (i == 0) {
				h.flags |= RMPP_FLAG_FIRST;
				h.len_or_window = (uint32_t)(total + 20u * segs);
			}
			if (i == segs - 1) {
				h.flags |= RMPP_FLAG_LAST;
				h.len_or_window = (uint32_t)(n + 20);
			}
			rmpp_set(mad, &h);
			memcpy(mad + GMP_SA_DATA_OFFS, a->buf + off, n);
		}
		if (emit(arg, mad, multi ? GMP_SA_DATA_OFFS + n : GMP_SIZE) < 0)
			return -EIO;
	}
	return (int)segs;
}

struct send_arg {
	struct mad_transport *t;
	uint16_t dlid;
	uint32_t dqp;
};

static int emit_send(void *arg, const uint8_t *mad, size_t len)
{
	struct send_arg *sa = arg;

	return mt_respond_len(sa->t, mad, len, sa->dlid, sa->dqp);
}

struct copy_arg {
	uint8_t *out;
	unsigned n, max;
};

static int emit_copy(void *arg, const uint8_t *mad, size_t len)
{
	(void)len;
	struct copy_arg *ca = arg;

	if (ca->n >= ca->max)
		return -1;
	memcpy(ca->out + (size_t)ca->n++ * GMP_SIZE, mad, GMP_SIZE);
	return 0;
}

static void count(struct sa_server *s, const uint8_t *req, int slot,
		  uint16_t status, const struct sa_answer *a, int segs)
{
	int m = method_slot((uint8_t)mad_get_field((void *)(uintptr_t)req, 0,
						   IB_MAD_METHOD_F));

	s->st.requests++;
	if (status)
		s->st.errors++;
	else
		s->st.records += a->count;
	if (segs > 1) {
		s->st.rmpp_transfers++;
		s->st.rmpp_segments += (uint64_t)segs;
	}
	if (slot >= 0 && slot < 32 && m >= 0)
		s->st.by_attr[slot][m]++;
}

static int is_request(const uint8_t *mad)
{
	struct rmpp_hdr h;

	if (smp_is_response(mad))
		return 0;
	rmpp_get(mad, &h);
	/* RMPP ACK/STOP/ABORT from a client reading our answer: our
	 * segments are sent whole (see sa_server.h), nothing to do. */
	return !(h.flags & RMPP_FLAG_ACTIVE) || h.type == RMPP_TYPE_DATA;
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
	rc = mt_respond_len(s->t, buf, len, dlid, dqp);
	free(buf);
	return rc < 0 ? rc : 1;
}

void sa_server_handle(struct sa_server *s, uint8_t *mad, uint16_t slid,
		      uint32_t sqp)
{
	struct sa_answer a = { 0 };
	struct send_arg arg = { s->t, slid, sqp };
	uint16_t status;
	int slot, segs;

	if (!is_request(mad)) {
		s->st.ignored++;
		return;
	}
	status = run(s, mad, slid, &a, &slot);
	if (!status && mt_kernel_rmpp(s->t) &&
	    (smp_method(mad) == SA_METHOD_GET_TABLE ||
	     smp_method(mad) == SA_METHOD_GET_MULTI))
		segs = respond_kernel_rmpp(s, mad, &a, slid, sqp);
	else
		segs = respond(mad, status, &a, emit_send, &arg);
	if (segs < 0)
		log_warn("SA: cannot answer LID %u (attr 0x%04x)", slid, smp_attr(mad));
	if (status)
		log_debug("SA: attr 0x%04x method 0x%02x from LID %u: status 0x%04x",
			  smp_attr(mad), smp_method(mad), slid, status);
	count(s, mad, slot, status, &a, segs);
	free(a.buf);
}

int sa_server_answer(struct sa_server *s, const uint8_t *req, uint16_t slid,
		     uint8_t *out, unsigned max_mads)
{
	struct sa_answer a = { 0 };
	struct copy_arg arg = { out, 0, max_mads };
	uint16_t status;
	int slot, segs;

	status = run(s, req, slid, &a, &slot);
	segs = respond(req, status, &a, emit_copy, &arg);
	count(s, req, slot, status, &a, segs);
	free(a.buf);
	return segs;
}

void sa_server_log_stats(const struct sa_server *s)
{
	log_info("SA: %llu requests, %llu errors, %llu records sent, %llu RMPP transfers (%llu segments), %llu ignored",
		 (unsigned long long)s->st.requests,
		 (unsigned long long)s->st.errors,
		 (unsigned long long)s->st.records,
		 (unsigned long long)s->st.rmpp_transfers,
		 (unsigned long long)s->st.rmpp_segments,
		 (unsigned long long)s->st.ignored);
	for (int i = 0; i < 32; i++) {
		const uint64_t *c = s->st.by_attr[i];
		const struct sa_attr_ops *ops = sa_registry_slot(i);

		if (!ops || !(c[0] | c[1] | c[2] | c[3]))
			continue;
		log_info("SA: %s: Get %llu, GetTable %llu, Set %llu, Delete %llu",
			 ops->name, (unsigned long long)c[0],
			 (unsigned long long)c[1], (unsigned long long)c[2],
			 (unsigned long long)c[3]);
	}
}

int sa_server_write_stats(const struct sa_server *s, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "requests %llu\nerrors %llu\nrecords %llu\nrmpp_transfers %llu\nrmpp_segments %llu\nignored %llu\n",
		(unsigned long long)s->st.requests,
		(unsigned long long)s->st.errors,
		(unsigned long long)s->st.records,
		(unsigned long long)s->st.rmpp_transfers,
		(unsigned long long)s->st.rmpp_segments,
		(unsigned long long)s->st.ignored);
	fprintf(f, "# attribute Get GetTable Set Delete\n");
	for (int i = 0; i < 32; i++) {
		const uint64_t *c = s->st.by_attr[i];
		const struct sa_attr_ops *ops = sa_registry_slot(i);

		if (ops)
			fprintf(f, "%s %llu %llu %llu %llu\n", ops->name,
				(unsigned long long)c[0], (unsigned long long)c[1],
				(unsigned long long)c[2], (unsigned long long)c[3]);
	}
	return fclose(f) ? -errno : 0;
}
