/* The deferral queue (mad/mt_defer.c): requests served in turns between
 * sources, each intact, the head served in place and the others copied
 * out (issue 27), and the queue's bookkeeping after either; a slice of
 * one (mt_serve_slice) and the deferred handler; the slice set once
 * (mt_set_slice, mt_serve_next) and the loop's round (mt_poll_turn). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/log.h"
#include "mad/mad_transport.h"
#include "mad/mt_internal.h"

static int w_send(void *w, const uint8_t *m, size_t l, uint16_t d, uint32_t q)
{
	(void)w; (void)m; (void)l; (void)d; (void)q;
	return 0;
}

static int w_recv(void *w, uint8_t *m, uint16_t *s, uint32_t *q, int *st)
{
	(void)w; (void)m; (void)s; (void)q; (void)st;
	return 0;
}

static unsigned waits;          /* w_wait calls, and the last one's ms */
static int wait_ms;

static int w_wait(void *w, int ms)
{
	(void)w;
	waits++;
	wait_ms = ms;
	return 0;
}

static const struct mt_wire_ops ops = { .send = w_send, .recv = w_recv,
					.wait = w_wait };

struct seen {
	unsigned n;
	uint16_t slid[16];
	uint8_t tag[16];
};

static void on_req(void *ctx, uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	struct seen *s = ctx;

	/* the whole MAD as queued: every byte holds the tag */
	for (unsigned i = 0; i < SMP_SIZE; i++)
		assert_int_equal(mad[i], mad[0]);
	assert_int_equal(sqp, slid + 1u);
	s->slid[s->n] = slid;
	s->tag[s->n++] = mad[0];
	mad[0] ^= 0xff;                 /* the handler may write it */
}

static void test_turns(void **state)
{
	struct mad_transport *t;
	struct mt_opts o = { .window = 4, .timeout_ms = 5, .retries = 1 };
	struct seen s = { 0 };
	uint8_t mad[SMP_SIZE];
	/* from LID 5: tags 1 2 3; from LID 7: tags 4 5 */
	const uint16_t from[] = { 5, 5, 7, 5, 7 };
	const uint8_t want_tag[] = { 1, 4, 2, 5, 3 };

	(void)state;
	assert_int_equal(mt_open_wire(&t, &ops, NULL, 1, &o), 0);
	assert_int_equal(mt_set_deferral(t, 8, 0), 0);
	mt_set_request_handler(t, on_req, &s);
	for (unsigned i = 0, a = 1, b = 4; i < 5; i++) {
		memset(mad, from[i] == 5 ? a++ : b++, sizeof(mad));
		mt_defer(t, mad, from[i], from[i] + 1u);
	}
	assert_int_equal(mt_deferred(t), 5);
	assert_int_equal(mt_serve_deferred(t, 100, now_seconds() + 60, NULL, NULL), 5);
	assert_int_equal(s.n, 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(s.tag[i], want_tag[i]);
		assert_int_equal(s.slid[i], want_tag[i] <= 3 ? 5 : 7);
	}
	assert_int_equal(mt_deferred(t), 0);
	/* per-source counts back to zero: a full share is taken again */
	for (unsigned i = 0; i < 8; i++) {
		memset(mad, 9, sizeof(mad));
		mt_defer(t, mad, 5, 6);
	}
	assert_int_equal(mt_deferred(t), 8);
	s.n = 0;
	assert_int_equal(mt_serve_deferred(t, 3, now_seconds() + 60, NULL, NULL), 3);
	assert_int_equal(mt_deferred(t), 5);
	assert_int_equal(mt_serve_deferred(t, 100, now_seconds() + 60, NULL, NULL), 5);
	assert_int_equal(s.n, 8);
	mt_close(t);
}

/* A deferred handler that, serving the first request, sees two more
 * arrive (a yield's poll would queue them so). */
struct slice_seen {
	struct mad_transport *t;
	unsigned n, on_request;
	uint8_t tag[8];
};

static void on_deferred(void *ctx, uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	struct slice_seen *s = ctx;
	uint8_t more[SMP_SIZE];

	(void)slid;
	(void)sqp;
	s->tag[s->n++] = mad[0];
	if (mad[0] == 1) {
		memset(more, 2, sizeof(more));
		mt_defer(s->t, more, 9, 10);
		memset(more, 3, sizeof(more));
		mt_defer(s->t, more, 9, 10);
	}
}

static void on_any(void *ctx, uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	(void)mad; (void)slid; (void)sqp;
	((struct slice_seen *)ctx)->on_request++;
}

/* mt_serve_slice (issue 27): a slice of one request goes to the deferred
 * handler (not the request handler), and what comes while it is served
 * is served in the same slice, up to max. */
static void test_slice(void **state)
{
	struct mad_transport *t;
	struct mt_opts o = { .window = 4, .timeout_ms = 5, .retries = 1 };
	struct slice_seen s = { 0 };
	uint8_t mad[SMP_SIZE];

	(void)state;
	assert_int_equal(mt_open_wire(&t, &ops, NULL, 1, &o), 0);
	s.t = t;
	assert_int_equal(mt_set_deferral(t, 8, 0), 0);
	mt_set_request_handler(t, on_any, &s);
	mt_set_deferred_handler(t, on_deferred, &s);
	assert_int_equal(mt_serve_slice(t, 10, 1.0, NULL, NULL), 0);
	memset(mad, 1, sizeof(mad));
	mt_defer(t, mad, 5, 6);
	assert_int_equal(mt_serve_slice(t, 10, 60.0, NULL, NULL), 3);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.tag[0], 1);
	assert_int_equal(s.tag[1], 2);
	assert_int_equal(s.tag[2], 3);
	assert_int_equal(s.on_request, 0);
	assert_int_equal(mt_deferred(t), 0);
	/* max 1: the one, the two that came meanwhile wait */
	s.n = 0;
	mt_defer(t, mad, 5, 6);
	assert_int_equal(mt_serve_slice(t, 1, 60.0, NULL, NULL), 1);
	assert_int_equal(mt_deferred(t), 2);
	/* without a deferred handler, the request handler */
	mt_set_deferred_handler(t, NULL, NULL);
	assert_int_equal(mt_serve_slice(t, 10, 60.0, NULL, NULL), 2);
	assert_int_equal(s.on_request, 2);
	mt_close(t);
}

static int stop_now(void *arg)
{
	(*(unsigned *)arg)++;
	return 1;
}

/* mt_set_slice / mt_serve_next (issue 27): the slice set once is the one
 * served, as mt_serve_slice with the same arguments; none set serves
 * nothing; the stop test ends the slice after the one request. */
static void test_slice_set(void **state)
{
	struct mad_transport *t;
	struct mt_opts o = { .window = 4, .timeout_ms = 5, .retries = 1 };
	struct slice_seen s = { 0 };
	struct mt_slice sl = { 10, 60.0, NULL, NULL };
	uint8_t mad[SMP_SIZE];
	unsigned stops = 0;

	(void)state;
	assert_int_equal(mt_open_wire(&t, &ops, NULL, 1, &o), 0);
	s.t = t;
	assert_int_equal(mt_set_deferral(t, 8, 0), 0);
	mt_set_request_handler(t, on_any, &s);
	mt_set_deferred_handler(t, on_deferred, &s);
	memset(mad, 1, sizeof(mad));
	mt_defer(t, mad, 5, 6);
	assert_int_equal(mt_serve_next(t), 0);          /* no slice set */
	assert_int_equal(mt_deferred(t), 1);
	mt_set_slice(t, &sl);
	assert_int_equal(mt_serve_next(t), 3);
	assert_int_equal(s.n, 3);
	assert_int_equal(mt_deferred(t), 0);
	/* a stop test that says stop: the one, the two that came wait */
	s.n = 0;
	sl.stop = stop_now;
	sl.arg = &stops;
	mt_set_slice(t, &sl);
	mt_defer(t, mad, 5, 6);
	assert_int_equal(mt_serve_next(t), 1);
	assert_int_equal(stops, 1);
	assert_int_equal(mt_deferred(t), 2);
	/* max 1 with two waiting */
	sl.max = 1;
	sl.stop = NULL;
	mt_set_slice(t, &sl);
	assert_int_equal(mt_serve_next(t), 1);
	assert_int_equal(mt_deferred(t), 1);
	assert_int_equal(s.on_request, 0);
	mt_close(t);
}

/* mt_poll_turn (issue 27): no sleep while a deferred request waits, a
 * sleep of wait_ms when none does, and the watched descriptors' bits
 * returned once (as mt_watch_ready). */
static void test_poll_turn(void **state)
{
	struct mad_transport *t;
	struct mt_opts o = { .window = 4, .timeout_ms = 5, .retries = 1 };
	uint8_t mad[SMP_SIZE];

	(void)state;
	assert_int_equal(mt_open_wire(&t, &ops, NULL, 1, &o), 0);
	assert_int_equal(mt_set_deferral(t, 8, 0), 0);
	memset(mad, 1, sizeof(mad));
	mt_defer(t, mad, 5, 6);
	waits = 0;
	assert_int_equal(mt_poll_turn(t, 500), 0);
	assert_int_equal(waits, 0);
	assert_int_equal(mt_serve_slice(t, 10, 1.0, NULL, NULL), 1);
	assert_int_equal(mt_poll_turn(t, 500), 0);
	assert_int_equal(waits, 1);
	assert_int_equal(wait_ms, 500);
	t->watch_ready = 2;     /* as a sleep on the port sets them */
	assert_int_equal(mt_poll_turn(t, 0), 2);
	assert_int_equal(mt_poll_turn(t, 0), 0);
	assert_int_equal(mt_watch_ready(t), 0);
	mt_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turns),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_slice_set),
		cmocka_unit_test(test_poll_turn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
