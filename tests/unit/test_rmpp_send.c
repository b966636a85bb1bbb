/* The RMPP sender (mad/rmpp_send.c): segments and their PayloadLength,
 * the window the receiver's ACKs open, resends after silence and the
 * ABORT (TMR) after too many, STOP/ABORT from the receiver, expiry of a
 * transfer never ACKed, bounded slots. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "mad/gmp.h"
#include "mad/rmpp_send.h"

static const struct rmpp_tx_opts opts = {
	.hdr_len = 56, .resend_s = 1, .max_retries = 2, .ttl_s = 5,
};

/* What the sender sent. */
struct sent {
	unsigned n;
	uint8_t mad[16][256];
	size_t len[16];
	uint16_t dlid[16];
	unsigned gave_up;
	int fail;                       /* the next sends fail */
};

static int capture(void *ctx, const uint8_t *mad, size_t len, uint16_t dlid,
		   uint32_t dqp)
{
	struct sent *s = ctx;

	(void)dqp;
	if (s->fail)
		return -1;
	assert_true(s->n < 16);
	memcpy(s->mad[s->n], mad, 256);
	s->len[s->n] = len;
	s->dlid[s->n++] = dlid;
	return 0;
}

static void gave_up(void *ctx, const struct rmpp_tx_xfer *x)
{
	(void)x;
	((struct sent *)ctx)->gave_up++;
}

/* The response header all segments share: a GetTableResp, TID tid. */
static void hdr_init(uint8_t *hdr, uint64_t tid)
{
	memset(hdr, 0, 256);
	mad_set_field(hdr, 0, IB_MAD_MGMTCLASS_F, GMP_CLASS_SA);
	mad_set_field(hdr, 0, IB_MAD_CLASSVER_F, 2);
	mad_set_field(hdr, 0, IB_MAD_METHOD_F, 0x12);
	mad_set_field(hdr, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field64(hdr, 0, IB_MAD_TRID_F, tid);
	mad_set_field(hdr, 0, IB_SA_ATTROFFS_F, 3);
}

/* len bytes of data, byte i being (uint8_t)(i * 7 + 1). */
static uint8_t *data_of(size_t len)
{
	uint8_t *d = malloc(len ? len : 1);

	assert_non_null(d);
	for (size_t i = 0; i < len; i++)
		d[i] = (uint8_t)(i * 7 + 1);
	return d;
}

/* A control MAD from the receiver: type, segment, NewWindowLast. */
static void ctl(uint8_t *mad, uint64_t tid, uint8_t type, uint32_t seg,
		uint32_t nwl)
{
	hdr_init(mad, tid);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 0);
	rmpp_set(mad, &(struct rmpp_hdr){ .version = 1, .type = type,
		 .flags = RMPP_FLAG_ACTIVE, .seg_num = seg, .len_or_window = nwl });
}

static void seg_is(const struct sent *s, unsigned k, uint32_t seg,
		   uint8_t flags, uint32_t plen)
{
	struct rmpp_hdr h;

	rmpp_get(s->mad[k], &h);
	assert_int_equal(h.type, RMPP_TYPE_DATA);
	assert_int_equal(h.seg_num, seg);
	assert_int_equal(h.flags, RMPP_FLAG_ACTIVE | flags);
	if (flags)
		assert_int_equal(h.len_or_window, plen);
	/* The class header of every segment is the caller's. */
	assert_int_equal(mad_get_field((void *)(uintptr_t)s->mad[k], 0,
				       IB_SA_ATTROFFS_F), 3);
	for (size_t i = 0; i < 200 && (seg - 1) * 200 + i < 650; i++)
		assert_int_equal(s->mad[k][56 + i],
				 (uint8_t)(((seg - 1) * 200 + i) * 7 + 1));
}

/* A sender with two slots and what it sent. */
struct fx {
	struct rmpp_tx t;
	struct rmpp_tx_xfer slots[2];
	struct sent s;
};

static void setup(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	rmpp_tx_init(&f->t, &opts, f->slots, 2, capture, &f->s);
	f->t.gave_up = gave_up;
}

/* An answer of len bytes to dlid, TID tid, its segment 1 sent at now. */
static struct rmpp_tx_xfer *start(struct fx *f, uint64_t tid, size_t len,
				  uint16_t dlid, double now)
{
	uint8_t hdr[256];

	hdr_init(hdr, tid);
	return rmpp_tx_start(&f->t, hdr, data_of(len), len, tid, dlid, 1, now);
}

/* A control MAD from slid at now. */
static enum rmpp_tx_event from(struct fx *f, uint64_t tid, uint8_t type,
			       uint32_t seg, uint32_t nwl, uint16_t slid,
			       double now)
{
	uint8_t m[256];

	ctl(m, tid, type, seg, nwl);
	return rmpp_tx_control(&f->t, m, slid, now);
}

static void test_segments(void **state)
{
	uint8_t hdr[256], m[256];
	uint8_t *d = data_of(450);

	(void)state;
	hdr_init(hdr, 1);
	assert_int_equal(rmpp_tx_segments(56, 0), 1);
	assert_int_equal(rmpp_tx_segments(56, 200), 1);
	assert_int_equal(rmpp_tx_segments(56, 450), 3);
	/* PayloadLength: the whole (with each segment's 20-byte SA header)
	 * in the FIRST, the segment's own in the LAST (IBA 13.6.2.3). */
	assert_int_equal(rmpp_tx_segment(56, hdr, d, 450, 0, 3, m), 256);
	assert_int_equal(mad_get_field(m, 0, IB_SA_RMPP_D2_F), 450 + 60);
	assert_int_equal(mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F),
			 RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST);
	assert_int_equal(rmpp_tx_segment(56, hdr, d, 450, 1, 3, m), 256);
	assert_int_equal(mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F), RMPP_FLAG_ACTIVE);
	assert_int_equal(rmpp_tx_segment(56, hdr, d, 450, 2, 3, m), 56 + 50);
	assert_int_equal(mad_get_field(m, 0, IB_SA_RMPP_D2_F), 50 + 20);
	assert_int_equal(m[56 + 49], (uint8_t)(449 * 7 + 1));
	assert_int_equal(m[56 + 50], 0);
	/* An empty answer: one segment, FIRST and LAST. */
	assert_int_equal(rmpp_tx_segment(56, hdr, d, 0, 0, 1, m), 56);
	assert_int_equal(mad_get_field(m, 0, IB_SA_RMPP_D2_F), 20);
	assert_int_equal(mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F),
			 RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST | RMPP_FLAG_LAST);
	free(d);
}

/* The SA's in-place answer header (sa_req_decode, sa_resp_hdr) and
 * segment 1 (rmpp_tx_fill) are byte for byte what the request copied,
 * gmp_make_response, sa_hdr_set and rmpp_tx_segment make, for every
 * method, with and without an error and another attribute. */
static void test_in_place(void **state)
{
	static const uint8_t methods[] = { 0x01, 0x02, 0x12, 0x14, 0x15 };
	static const uint16_t statuses[] = { 0, 0x000c };
	static const uint16_t attrs[] = { 0, 0x0035 };
	static const size_t totals[] = { 0, 72, 200, 450 };
	uint8_t *d = data_of(450);

	(void)state;
	for (size_t mi = 0; mi < sizeof(methods); mi++)
	for (size_t si = 0; si < 2; si++)
	for (size_t ai = 0; ai < 2; ai++) {
		uint8_t req[256], ref[256], m[256], seg[256];
		struct sa_req_hdr h;

		memset(req, 0x5a, sizeof(req));
		gmp_init_request(req, GMP_CLASS_SA, GMP_SA_CLASS_VERSION,
				 methods[mi], 0x0011, 0x1234, 0x0102030405060708ull);
		mad_set_field(req, 0, IB_MAD_STATUS_F, 0x1c);   /* ignored */
		memset(req + 24, 0x77, 232);    /* RMPP, SA header, record */
		sa_hdr_set(req, 3, 0x8000000000000003ull);
		sa_req_decode(req, &h);
		assert_int_equal(h.method, methods[mi]);
		assert_int_equal(h.response, 0);
		assert_int_equal(h.class_version, GMP_SA_CLASS_VERSION);
		assert_int_equal(h.attr_id, 0x0011);
		assert_int_equal(h.attr_mod, 0x1234);
		assert_true(h.comp_mask == 0x8000000000000003ull);
		assert_true(h.sm_key == mad_get_field64(req, 0, IB_SA_MKEY_F));
		assert_int_equal(h.rmpp_type, 0x77);
		assert_int_equal(h.rmpp_flags, 0x77 & 7);

		memset(ref, 0, sizeof(ref));
		memcpy(ref, req, 24);
		if (attrs[ai])
			mad_set_field(ref, 0, IB_MAD_ATTRID_F, attrs[ai]);
		gmp_make_response(ref, statuses[si]);
		sa_hdr_set(ref, 9, mad_get_field64(req, 0, IB_SA_COMPMASK_F));
		memset(m, 0xee, sizeof(m));
		sa_resp_hdr(&h, NULL, attrs[ai], statuses[si], 9, m);
		assert_memory_equal(m, ref, 56);
		req[26] = 0x76;                 /* RMPP inactive: no type */
		sa_req_decode(req, &h);
		assert_int_equal(h.rmpp_flags, 0x76 & 7);
		assert_int_equal(h.rmpp_type, 0);

		for (size_t ti = 0; ti < 4; ti++) {
			unsigned segs = rmpp_tx_segments(56, totals[ti]);
			size_t n = rmpp_tx_segment(56, ref, d, totals[ti], 0,
						   segs, seg);

			uint8_t base[56];

			memset(m + 56, 0xee, 200);
			assert_int_equal(rmpp_tx_fill(56, d, totals[ti], 0, segs, m), n);
			assert_memory_equal(m, seg, 256);
			/* from the shared base: the same bytes */
			rmpp_tx_first_base(base, 56);
			memset(m, 0xee, sizeof(m));
			sa_resp_hdr(&h, base, attrs[ai], statuses[si], 9, m);
			assert_int_equal(rmpp_tx_fill_first(56, d, totals[ti],
							    segs, m), n);
			assert_memory_equal(m, seg, 256);
		}
	}
	free(d);
}

/* Segment 1 went out with the answer; ACKs open the window. */
static void test_window(void **state)
{
	struct fx f;

	(void)state;
	setup(&f);
	assert_non_null(start(&f, 0x1234, 650, 7, 0));
	assert_int_equal(rmpp_tx_active(&f.t), 1);
	assert_int_equal(rmpp_tx_kept(&f.t, 0), 650);
	assert_int_equal(rmpp_tx_kept(&f.t, 7), 650);
	assert_int_equal(rmpp_tx_kept(&f.t, 8), 0);
	assert_int_equal(from(&f, 0x1234, RMPP_TYPE_ACK, 1, 3, 7, 0.1), RMPP_TX_ACKED);
	assert_int_equal(f.s.n, 2);
	seg_is(&f.s, 0, 2, 0, 0);
	seg_is(&f.s, 1, 3, 0, 0);
	assert_int_equal(f.s.dlid[1], 7);
	/* An old ACK again: nothing new to send. */
	assert_int_equal(from(&f, 0x1234, RMPP_TYPE_ACK, 1, 3, 7, 0.2), RMPP_TX_ACKED);
	assert_int_equal(f.s.n, 2);
	assert_int_equal(from(&f, 0x1234, RMPP_TYPE_ACK, 3, 5, 7, 0.3), RMPP_TX_ACKED);
	assert_int_equal(f.s.n, 3);
	seg_is(&f.s, 2, 4, RMPP_FLAG_LAST, 50 + 20);
	assert_int_equal(f.s.len[2], 56 + 50);
	/* Only the low 32 TID bits count (the high half is the kernel's). */
	assert_int_equal(from(&f, 0xabcd00001234ull, RMPP_TYPE_ACK, 4, 5, 8, 0.4),
			 RMPP_TX_NOT_OURS);
	assert_int_equal(from(&f, 0xabcd00001234ull, RMPP_TYPE_ACK, 4, 5, 7, 0.4),
			 RMPP_TX_DONE);
	assert_int_equal(rmpp_tx_active(&f.t), 0);
	assert_true(rmpp_tx_next_deadline(&f.t) == HUGE_VAL);
	assert_int_equal(f.t.st.segments, 3);
	rmpp_tx_free(&f.t);
}

/* Silence after an ACK: the window again, max_retries times, then ABORT
 * with status TMR. */
static void test_resend_then_abort(void **state)
{
	struct fx f;
	struct rmpp_hdr h;

	(void)state;
	setup(&f);
	start(&f, 5, 650, 7, 0);
	from(&f, 5, RMPP_TYPE_ACK, 1, 3, 7, 10);
	assert_int_equal(f.s.n, 2);
	assert_true(rmpp_tx_next_deadline(&f.t) == 11);
	rmpp_tx_expire(&f.t, 10.5);
	assert_int_equal(f.s.n, 2);
	rmpp_tx_expire(&f.t, 11);           /* 1 s: segments 2 and 3 again */
	assert_int_equal(f.s.n, 4);
	seg_is(&f.s, 2, 2, 0, 0);
	seg_is(&f.s, 3, 3, 0, 0);
	assert_true(rmpp_tx_next_deadline(&f.t) == 12);
	rmpp_tx_expire(&f.t, 11.5);
	assert_int_equal(f.s.n, 4);
	rmpp_tx_expire(&f.t, 12);           /* 2 s: again */
	assert_int_equal(f.s.n, 6);
	assert_int_equal(f.t.st.resends, 2);
	rmpp_tx_expire(&f.t, 13);           /* 3 s: retries spent, ABORT */
	assert_int_equal(f.s.n, 7);
	assert_int_equal(f.s.gave_up, 1);
	rmpp_get(f.s.mad[6], &h);
	assert_int_equal(h.type, RMPP_TYPE_ABORT);
	assert_int_equal(h.status, RMPP_ST_TMR);
	assert_int_equal(f.s.len[6], 256);
	assert_int_equal(f.s.mad[6][56], 0);        /* no data in an ABORT */
	assert_int_equal(mad_get_field64(f.s.mad[6], 0, IB_MAD_TRID_F), 5);
	assert_int_equal(rmpp_tx_active(&f.t), 0);
	assert_int_equal(f.t.st.timed_out, 1);
	rmpp_tx_free(&f.t);
}

/* A new ACK resets the retries; everything sent and resent once with
 * only the final ACK missing: dropped quietly, no ABORT. */
static void test_final_ack_lost(void **state)
{
	struct fx f;

	(void)state;
	setup(&f);
	start(&f, 6, 650, 7, 0);
	from(&f, 6, RMPP_TYPE_ACK, 1, 3, 7, 0);
	rmpp_tx_expire(&f.t, 1);            /* resend 2, 3 */
	assert_int_equal(f.s.n, 4);
	from(&f, 6, RMPP_TYPE_ACK, 3, 4, 7, 1.5);   /* segment 4: all sent */
	assert_int_equal(f.s.n, 5);
	rmpp_tx_expire(&f.t, 2.5);          /* resend 4 once */
	assert_int_equal(f.s.n, 6);
	seg_is(&f.s, 5, 4, RMPP_FLAG_LAST, 70);
	rmpp_tx_expire(&f.t, 3.5);          /* then forgotten, quietly */
	assert_int_equal(f.s.n, 6);
	assert_int_equal(f.s.gave_up, 0);
	assert_int_equal(rmpp_tx_active(&f.t), 0);
	assert_int_equal(f.t.st.expired, 1);
	rmpp_tx_free(&f.t);
}

/* A reader that never ACKs does no RMPP: nothing more is sent, and the
 * transfer is forgotten after ttl_s. */
static void test_never_acked(void **state)
{
	struct fx f;

	(void)state;
	setup(&f);
	start(&f, 7, 650, 7, 100);
	assert_true(rmpp_tx_next_deadline(&f.t) == 105);
	rmpp_tx_expire(&f.t, 105);
	assert_int_equal(rmpp_tx_active(&f.t), 1);
	rmpp_tx_expire(&f.t, 105.1);
	assert_int_equal(rmpp_tx_active(&f.t), 0);
	assert_int_equal(f.s.n, 0);
	assert_int_equal(f.t.st.expired, 1);
	rmpp_tx_free(&f.t);
}

/* STOP and ABORT from the receiver end the transfer. */
static void test_stop_abort(void **state)
{
	struct fx f;

	(void)state;
	setup(&f);
	start(&f, 8, 650, 7, 0);
	start(&f, 9, 650, 7, 0);
	assert_int_equal(from(&f, 8, RMPP_TYPE_STOP, 0, 0, 7, 1), RMPP_TX_CANCELLED);
	assert_int_equal(from(&f, 9, RMPP_TYPE_ABORT, 0, 0, 7, 1), RMPP_TX_CANCELLED);
	assert_int_equal(from(&f, 9, RMPP_TYPE_ABORT, 0, 0, 7, 1), RMPP_TX_NOT_OURS);
	assert_int_equal(rmpp_tx_active(&f.t), 0);
	assert_int_equal(f.s.n, 0);
	rmpp_tx_free(&f.t);
}

/* Bounded: no slot, no transfer (the data stays the caller's); the
 * oldest is found for the caller's budget; a failing send stops a window. */
static void test_slots(void **state)
{
	struct fx f;
	uint8_t hdr[256];
	uint8_t *d = data_of(650);

	(void)state;
	setup(&f);
	hdr_init(hdr, 3);
	start(&f, 1, 650, 7, 0);
	start(&f, 2, 300, 8, 0);
	assert_null(rmpp_tx_start(&f.t, hdr, d, 650, 3, 7, 1, 0));
	assert_int_equal(rmpp_tx_kept(&f.t, 0), 950);
	assert_int_equal(rmpp_tx_oldest(&f.t, 0)->tid, 1);
	assert_int_equal(rmpp_tx_oldest(&f.t, 8)->tid, 2);
	assert_null(rmpp_tx_oldest(&f.t, 9));
	rmpp_tx_drop(&f.t, rmpp_tx_oldest(&f.t, 0));
	assert_non_null(rmpp_tx_start(&f.t, hdr, d, 650, 3, 7, 1, 0));
	f.s.fail = 1;
	assert_int_equal(from(&f, 3, RMPP_TYPE_ACK, 1, 4, 7, 0), RMPP_TX_ACKED);
	assert_int_equal(f.t.st.segments, 0);
	f.s.fail = 0;
	from(&f, 3, RMPP_TYPE_ACK, 1, 4, 7, 0);     /* the same ACK: now they go */
	assert_int_equal(f.s.n, 3);
	rmpp_tx_free(&f.t);
	assert_int_equal(rmpp_tx_active(&f.t), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_resend_then_abort),
		cmocka_unit_test(test_final_ack_lost),
		cmocka_unit_test(test_never_acked),
		cmocka_unit_test(test_stop_abort),
		cmocka_unit_test(test_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
