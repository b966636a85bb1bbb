/* The RMPP receiver (mad/rmpp_recv.c): in-order reassembly with window
 * ACKs, duplicates and out-of-order segments, every ABORT/STOP status it
 * gives for broken transfers, bounded memory and expiry. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "mad/gmp.h"
#include "mad/rmpp_recv.h"

static const struct rmpp_rx_opts opts = {
	.hdr_len = 56, .window = 2, .max_xfers = 4, .max_per_src = 2,
	.max_bytes = 1000, .ttl_s = 5,
};

/* Segment seg of a transfer of `len` class bytes (200 per segment), byte
 * i of the whole being (uint8_t)(i * 7 + 1). */
static void seg(uint8_t *mad, uint64_t tid, uint32_t s, size_t len)
{
	unsigned segs = (unsigned)((len + 199) / 200);
	struct rmpp_hdr h = { .version = 1, .type = RMPP_TYPE_DATA,
			      .flags = RMPP_FLAG_ACTIVE, .seg_num = s };

	memset(mad, 0, 256);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, GMP_CLASS_SA);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 2);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, 0x14);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
	if (s == 1) {
		h.flags |= RMPP_FLAG_FIRST;
		h.len_or_window = (uint32_t)(len + 20 * segs);
	}
	if (s == segs) {
		h.flags |= RMPP_FLAG_LAST;
		h.len_or_window = (uint32_t)(len - 200 * (segs - 1) + 20);
	}
	rmpp_set(mad, &h);
	for (size_t i = 0; i < 200 && (s - 1) * 200 + i < len; i++)
		mad[56 + i] = (uint8_t)(((s - 1) * 200 + i) * 7 + 1);
}

static void ctl_is(const struct rmpp_rx_out *o, uint8_t type, uint8_t status,
		   uint32_t s, uint32_t nwl)
{
	struct rmpp_hdr h;

	assert_int_equal(o->ctl_len, 256);
	rmpp_get(o->ctl, &h);
	assert_int_equal(h.type, type);
	assert_int_equal(h.status, status);
	assert_int_equal(h.seg_num, s);
	assert_int_equal(h.len_or_window, nwl);
	/* Control MADs of a request travel back as responses. */
	assert_int_equal(mad_get_field((void *)(uintptr_t)o->ctl, 0, IB_MAD_RESPONSE_F), 1);
	assert_int_equal(mad_get_field((void *)(uintptr_t)o->ctl, 0, IB_MAD_METHOD_F), 0x14);
}

static void test_in_order_windows(void **state)
{
	struct rmpp_rx r;
	struct rmpp_rx_out o;
	uint8_t m[256];

	(void)state;
	assert_int_equal(rmpp_rx_init(&r, &opts), 0);
	seg(m, 9, 1, 650);                  /* 4 segments, window 2 */
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 1, 3);
	seg(m, 9, 2, 650);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	assert_int_equal(o.ctl_len, 0);     /* mid-window: no ACK */
	seg(m, 9, 3, 650);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 3, 5);
	seg(m, 9, 4, 650);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 4, 4);
	assert_non_null(o.msg);
	assert_int_equal(o.msg_len, 56 + 650);
	assert_int_equal(mad_get_field64((void *)(uintptr_t)o.msg, 0, IB_MAD_TRID_F), 9);
	for (size_t i = 0; i < 650; i++)
		assert_int_equal(o.msg[56 + i], (uint8_t)(i * 7 + 1));
	/* Time-wait: the LAST again is ACKed again, not delivered again. */
	rmpp_rx_data(&r, m, 5, 1, 1, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 4, 4);
	assert_null(o.msg);
	assert_int_equal(r.st.completed, 1);
	rmpp_rx_free(&r);
}

static void test_duplicates_and_out_of_order(void **state)
{
	struct rmpp_rx r;
	struct rmpp_rx_out o;
	uint8_t m[256];

	(void)state;
	assert_int_equal(rmpp_rx_init(&r, &opts), 0);
	seg(m, 1, 1, 500);                  /* 3 segments */
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);   /* FIRST again: ACK again */
	ctl_is(&o, RMPP_TYPE_ACK, 0, 1, 3);
	seg(m, 1, 3, 500);                  /* 3 before 2: dropped, ACK 1 */
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 1, 3);
	assert_null(o.msg);
	seg(m, 1, 2, 500);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	assert_int_equal(o.ctl_len, 0);
	seg(m, 1, 2, 500);                  /* duplicate */
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 2, 3);
	seg(m, 1, 3, 500);                  /* the sender went back */
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 3, 3);
	assert_int_equal(o.msg_len, 56 + 500);
	for (size_t i = 0; i < 500; i++)
		assert_int_equal(o.msg[56 + i], (uint8_t)(i * 7 + 1));
	/* Another requester with the same TID is another transfer; a
	 * segment whose FIRST never came is dropped without an answer. */
	seg(m, 1, 2, 500);
	rmpp_rx_data(&r, m, 6, 1, 0, &o);
	assert_int_equal(o.ctl_len, 0);
	assert_null(o.msg);
	/* Beyond the window: dropped. */
	seg(m, 2, 1, 900);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	seg(m, 2, 4, 900);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	assert_int_equal(o.ctl_len, 0);
	rmpp_rx_free(&r);
}

static void test_aborts(void **state)
{
	struct rmpp_rx r;
	struct rmpp_rx_out o;
	uint8_t m[256];
	struct rmpp_hdr h;

	(void)state;
	assert_int_equal(rmpp_rx_init(&r, &opts), 0);
	/* Bad PayloadLength in the LAST. */
	seg(m, 3, 1, 300);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	seg(m, 3, 2, 300);
	rmpp_get(m, &h);
	h.len_or_window = 250;              /* more than a segment holds */
	rmpp_set(m, &h);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_BAD_LEN, 0, 0);
	assert_int_equal(rmpp_rx_active(&r), 0);
	/* LAST disagreeing with the FIRST's total. */
	seg(m, 4, 1, 300);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	seg(m, 4, 2, 300);
	rmpp_get(m, &h);
	h.len_or_window = 60;
	rmpp_set(m, &h);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_BAD_LEN, 0, 0);
	/* A segment past the total, not flagged LAST. */
	seg(m, 5, 1, 300);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	seg(m, 5, 2, 600);                  /* a middle segment of a longer one */
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_BAD_LEN, 0, 0);
	/* FIRST on segment 2, segment 1 without FIRST, segment 0. */
	seg(m, 6, 2, 600);
	rmpp_get(m, &h);
	h.flags |= RMPP_FLAG_FIRST;
	rmpp_set(m, &h);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_BAD_SEG, 0, 0);
	seg(m, 6, 1, 600);
	rmpp_get(m, &h);
	h.flags &= (uint8_t)~RMPP_FLAG_FIRST;
	rmpp_set(m, &h);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_BAD_SEG, 0, 0);
	seg(m, 6, 1, 600);
	rmpp_get(m, &h);
	h.seg_num = 0;
	rmpp_set(m, &h);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_BAD_SEG, 0, 0);
	/* Version 2, and a status in a DATA segment. */
	seg(m, 7, 1, 600);
	rmpp_get(m, &h);
	h.version = 2;
	rmpp_set(m, &h);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_UNV, 0, 0);
	seg(m, 7, 1, 600);
	rmpp_get(m, &h);
	h.status = 9;
	rmpp_set(m, &h);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_ABORT, RMPP_ST_BAD_STATUS, 0, 0);
	/* Bigger than max_bytes: STOP, resources exhausted. */
	seg(m, 8, 1, 1400);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	ctl_is(&o, RMPP_TYPE_STOP, RMPP_ST_RESX, 0, 0);
	assert_int_equal(rmpp_rx_active(&r), 0);
	assert_int_equal(r.st.aborted, 8);
	assert_int_equal(r.st.stopped, 1);
	rmpp_rx_free(&r);
}

struct sent {
	unsigned n;
	uint8_t status;
	uint16_t slid;
};

static void on_expire(void *ctx, const uint8_t *mad, size_t len, uint16_t slid,
		      uint32_t sqp)
{
	struct sent *s = ctx;
	struct rmpp_hdr h;

	(void)len;
	(void)sqp;
	rmpp_get(mad, &h);
	assert_int_equal(h.type, RMPP_TYPE_ABORT);
	s->status = h.status;
	s->slid = slid;
	s->n++;
}

static void test_bounds_and_expiry(void **state)
{
	struct rmpp_rx r;
	struct rmpp_rx_out o;
	uint8_t m[256];
	struct sent s = { 0 };

	(void)state;
	assert_int_equal(rmpp_rx_init(&r, &opts), 0);
	/* Two live transfers per requester; a third is STOPped. */
	seg(m, 1, 1, 600);
	rmpp_rx_data(&r, m, 5, 1, 0, &o);
	seg(m, 2, 1, 600);
	rmpp_rx_data(&r, m, 5, 1, 1, &o);
	seg(m, 3, 1, 600);
	rmpp_rx_data(&r, m, 5, 1, 1, &o);
	ctl_is(&o, RMPP_TYPE_STOP, RMPP_ST_RESX, 0, 0);
	/* Others still fit, up to max_xfers. */
	seg(m, 3, 1, 600);
	rmpp_rx_data(&r, m, 6, 1, 1, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 1, 3);
	seg(m, 4, 1, 600);
	rmpp_rx_data(&r, m, 7, 1, 1, &o);
	seg(m, 5, 1, 600);
	rmpp_rx_data(&r, m, 8, 1, 1, &o);
	ctl_is(&o, RMPP_TYPE_STOP, RMPP_ST_RESX, 0, 0);
	assert_int_equal(rmpp_rx_active(&r), 4);
	/* The first one (silent since t=0) expires at t=5.5 with T2L. */
	rmpp_rx_expire(&r, 5.5, on_expire, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.status, RMPP_ST_T2L);
	assert_int_equal(s.slid, 5);
	assert_int_equal(rmpp_rx_active(&r), 3);
	/* A sender's ABORT ends its transfer. */
	seg(m, 2, 1, 600);
	assert_int_equal(rmpp_rx_cancel(&r, m, 5), 1);
	assert_int_equal(rmpp_rx_cancel(&r, m, 5), 0);
	rmpp_rx_expire(&r, 100, on_expire, &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(rmpp_rx_active(&r), 0);
	/* A one-segment transfer (FIRST and LAST) is delivered at once. */
	seg(m, 9, 1, 150);
	rmpp_rx_data(&r, m, 5, 1, 200, &o);
	ctl_is(&o, RMPP_TYPE_ACK, 0, 1, 1);
	assert_int_equal(o.msg_len, 56 + 150);
	rmpp_rx_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_windows),
		cmocka_unit_test(test_duplicates_and_out_of_order),
		cmocka_unit_test(test_aborts),
		cmocka_unit_test(test_bounds_and_expiry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
