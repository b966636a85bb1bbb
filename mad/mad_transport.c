/* MAD transport (mad/mad_transport.h): a transport over a test's wire,
 * closing, accessors and statistics, and what arrives: responses matched
 * to the window (mt_window.c), unsolicited requests to the handler or the
 * deferral queue (mt_defer.c), classes we do not serve answered. The port
 * itself, and sending, are mt_umad.c's. */
#include "mad_transport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../core/log.h"
#include "gmp.h"
#include "mt_internal.h"

int mt_open_wire(struct mad_transport **out, const struct mt_wire_ops *ops,
		  void *wire, uint64_t port_guid, const struct mt_opts *opts)
{
	struct mad_transport *t;

	*out = NULL;
	if (opts->window < 1 || opts->window > MAX_WINDOW)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->wire_ops = ops;
	t->wire = wire;
	t->portid = -1;
	t->issm_fd = -1;
	for (unsigned w = 0; w < MT_WATCH_MAX; w++)
		t->watch_fd[w] = -1;
	snprintf(t->ca, sizeof(t->ca), "wire");
	t->port_num = 1;
	t->port_guid = port_guid;
	t->opt = *opts;
	/* The classes a umad port registers; the numbers only have to be
	 * distinct and not negative (mt_agent_of). */
	t->agent_lid = 0;
	t->agent_dr = 1;
	t->agent_sa = 2;
	t->agent_perf = 3;
	mt_index_agents(t);
	t->slots = calloc(t->opt.window, sizeof(*t->slots));
	t->free_slots = calloc(t->opt.window, sizeof(*t->free_slots));
	if (!t->slots || !t->free_slots) {
		mt_close(t);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t->opt.window; i++)
		t->free_slots[i] = t->opt.window - 1 - i;
	t->num_free = t->opt.window;
	/* Two SMs on one test fabric send distinct TIDs (mt_open: the pid). */
	t->seq = (uint32_t)port_guid;
	*out = t;
	return 0;
}

void mt_close(struct mad_transport *t)
{
	if (!t)
		return;
	if (t->wire_ops && t->wire_ops->close)
		t->wire_ops->close(t->wire);
	mt_umad_release(t);
	free(t->queue);
	free(t->slots);
	free(t->free_slots);
	free(t->dq);
	free(t->dq_of_lid);
	free(t->lq);
	free(t);
}

const char *mt_ca_name(const struct mad_transport *t) { return t->ca; }
int mt_port_num(const struct mad_transport *t) { return t->port_num; }
uint64_t mt_port_guid(const struct mad_transport *t) { return t->port_guid; }
unsigned mt_window(const struct mad_transport *t) { return t->opt.window; }

const struct mt_stats *mt_get_stats(const struct mad_transport *t)
{
	return &t->st;
}

double mt_stats_loss(const struct mt_stats *a, const struct mt_stats *b)
{
	uint64_t tries = b->sent - a->sent;

	return tries ? (double)(b->timed_out - a->timed_out) / tries : 0;
}

void mt_stats_diff(struct mt_stats *out, const struct mt_stats *a,
		    const struct mt_stats *b)
{
	out->sent = b->sent - a->sent;
	out->received = b->received - a->received;
	out->timed_out = b->timed_out - a->timed_out;
	out->retried = b->retried - a->retried;
	out->failed = b->failed - a->failed;
	out->unsolicited = b->unsolicited - a->unsolicited;
	out->stray = b->stray - a->stray;
	out->deferred = b->deferred - a->deferred;
	out->deferred_dropped = b->deferred_dropped - a->deferred_dropped;
	out->low_dropped = b->low_dropped - a->low_dropped;
}

/* The handler mt_serve_deferred calls, resolved once here. */
static void resolve_serve(struct mad_transport *t)
{
	t->serve_fn = t->on_deferred ? t->on_deferred : t->on_request;
	t->serve_ctx = t->on_deferred ? t->on_deferred_ctx : t->on_request_ctx;
}

void mt_set_request_handler(struct mad_transport *t, mt_request_fn fn,
			     void *ctx)
{
	t->on_request = fn;
	t->on_request_ctx = ctx;
	resolve_serve(t);
}

void mt_set_deferred_handler(struct mad_transport *t, mt_request_fn fn,
			     void *ctx)
{
	t->on_deferred = fn;
	t->on_deferred_ctx = ctx;
	resolve_serve(t);
}

void mt_set_long_request_handler(struct mad_transport *t,
				  mt_long_request_fn fn, void *ctx)
{
	t->on_long = fn;
	t->on_long_ctx = ctx;
}

int mt_has_class(const struct mad_transport *t, uint8_t mclass)
{
	return mt_agent_of(t, mclass) >= 0;
}

/* mt_agent_of's table, from the agents registered: the lookup every send
 * makes is then one load (issue 27: a call and a scan of the sink classes
 * per MAD before). */
void mt_index_agents(struct mad_transport *t)
{
	memset(t->agent_by_class, 0, sizeof(t->agent_by_class));
	for (unsigned i = 0; i < t->num_sink; i++)
		if (t->agent_sink[i] >= 0)
			t->agent_by_class[t->sink_class[i]] = (int16_t)(t->agent_sink[i] + 1);
	t->agent_by_class[GMP_CLASS_PERF] = (int16_t)(t->agent_perf + 1);
	t->agent_by_class[GMP_CLASS_SA] = (int16_t)(t->agent_sa + 1);
	t->agent_by_class[SMP_CLASS_LID] = (int16_t)(t->agent_lid + 1);
	t->agent_by_class[SMP_CLASS_DR] = (int16_t)(t->agent_dr + 1);
}

static int mt_is_sink_class(const struct mad_transport *t, uint8_t mclass)
{
	/* We are a PerfMgt client only: our own port has no PMA here. */
	if (mclass == GMP_CLASS_PERF)
		return t->agent_perf >= 0;
	for (unsigned i = 0; i < t->num_sink; i++)
		if (t->sink_class[i] == mclass)
			return 1;
	return 0;
}

/* Everything but an SA request to defer (mt_handle_recv has that inline):
 * a send of ours come back (status), a response, an unsolicited MAD of
 * another class; mclass already decoded when status is 0. */
int mt_handle_recv_other(struct mad_transport *t, uint8_t *mad, int status,
			 uint16_t slid, uint32_t sqp, uint8_t mclass)
{
	struct mt_req *r;
	uint32_t s;

	if (status) {
		/* The request came back unsent or undelivered (ibsim returns a
		 * dropped MAD at once with status ETIMEDOUT): a lost try. */
		r = mt_match(t, mad, &s);
		if (r)
			return mt_slot_timed_out(t, s);
		return 0;
	}
	if (smp_is_response(mad)) {
		r = mt_match(t, mad, &s);
		if (!r && mclass == GMP_CLASS_SA && t->yielding) {
			/* An RMPP ACK while the SA is busy with an answer: it
			 * goes to the SA after, with the requests. */
			mt_defer(t, mad, slid, sqp);
			return 0;
		}
		if (!r && mclass == GMP_CLASS_SA && t->on_request) {
			/* An RMPP ACK/STOP/ABORT for an SA answer carries the
			 * response method (IBA 13.6.2): the SA's, not ours. */
			uint8_t ack[SMP_SIZE];

			memcpy(ack, mad, SMP_SIZE);
			t->on_request(t->on_request_ctx, ack, slid, sqp);
			return 0;
		}
		if (!r) {
			t->st.stray++;
			return 0;
		}
		t->st.received++;
		{
			struct mt_req done = *r;
			uint8_t resp[SMP_SIZE];

			memcpy(resp, mad, SMP_SIZE);
			mt_release_slot(t, s);
			if (done.done)
				done.done(done.ctx, done.cookie, done.mad, resp);
		}
		return 0;
	}
	t->st.unsolicited++;
	if (mt_is_sink_class(t, mclass)) {
		/* IBA 13.4.7: a class this port does not serve. */
		uint8_t resp[SMP_SIZE];

		memcpy(resp, mad, SMP_SIZE);
		gmp_make_response(resp, GMP_STATUS_BAD_CLASS);
		log_debug("request of unserved class 0x%02x from LID %u answered 'unsupported class'",
			  mclass, slid);
		mt_send(t, resp, SMP_SIZE, slid, sqp);
		return 0;
	}
	if (t->on_request) {
		uint8_t req[SMP_SIZE];

		memcpy(req, mad, SMP_SIZE);
		t->on_request(t->on_request_ctx, req, slid, sqp);
	}
	return 0;
}

/* What the wire holds, at most `burst` MADs; how many, or -EIO. */
static int poll_wire(struct mad_transport *t, int burst)
{
	int got = 0;

	while (got < burst) {
		uint8_t mad[SMP_SIZE];
		uint16_t slid = 0;
		uint32_t sqp = 0;
		int status = 0;
		int rc = t->wire_ops->recv(t->wire, mad, &slid, &sqp, &status);

		if (rc <= 0)
			break;
		got++;
		if (mt_handle_recv(t, mad, status, slid, sqp) < 0 ||
		    (mt_has_queued(t) && mt_fill_window(t) < 0))
			return -EIO;
	}
	return got;
}

/* Sleep up to wait_ms (shortened to the next expiry of what is in
 * flight) for a MAD and take what came; 0 or more, or a negative errno. */
static inline __attribute__((always_inline)) int
poll_wait(struct mad_transport *t, int wait_ms)
{
	int ms = wait_ms;

	if (t->in_flight) {
		double left = t->next_expiry - now_seconds();
		int lms = left <= 0 ? 0 : (int)(left * 1000) + 1;

		if (ms < 0 || lms < ms)
			ms = lms;
	}
	if (t->wire_ops)
		return t->wire_ops->wait(t->wire, ms) < 0 ? -EIO : 0;
	return mt_umad_sleep(t, ms);
}

/* The work of one round is guarded by counter checks, not calls: a round
 * that only takes an SA request (osmtest's stream) makes none of them
 * (issue 27). Inline in mt_poll and mt_poll_turn. */
static inline __attribute__((always_inline)) int poll_round(
		struct mad_transport *t, int wait_ms)
{
	/* A round that may sleep on a port sleeps first when the last
	 * burst was at most one MAD (a query stream, an idle SM): poll(2)
	 * returns at once when a MAD waits, and there the port is most often
	 * empty, so the read that would find nothing before the sleep is not
	 * made (one umad_recv per wakeup saved: issue 27). After a larger
	 * burst (a sweep's answers) more are likely waiting: read first, as
	 * before, with no poll(2) in front. */
	int sleep = wait_ms != 0 && !t->wire_ops && t->last_burst <= 1;

	if (mt_has_queued(t) && mt_fill_window(t) < 0)
		return -EIO;
	if (!sleep) {
		int got = t->wire_ops ? poll_wire(t, MT_RECV_BURST) : mt_umad_poll(t);

		if (got < 0)
			return -EIO;
		sleep = !got && wait_ms != 0;
	}
	if (sleep) {
		int rc = poll_wait(t, wait_ms);

		if (rc < 0)
			return rc;
	}
	/* Not while yielding: a timed-out Report may drop subscriptions
	 * the SA's answer in progress is reading. Nothing in flight:
	 * nothing can expire (and no clock is read). */
	if (t->in_flight && !t->yielding && mt_expire(t) < 0)
		return -EIO;
	return mt_has_queued(t) ? mt_fill_window(t) : 0;
}

int mt_poll(struct mad_transport *t, int wait_ms)
{
	return poll_round(t, wait_ms);
}

int mt_poll_turn(struct mad_transport *t, int wait_ms)
{
	unsigned ready;
	int rc = poll_round(t, t->dq_len ? 0 : wait_ms);

	if (rc < 0)
		return rc;
	/* Only a sleep sets them, and serving the slice that follows
	 * polls without sleeping: what mt_watch_ready would say after it
	 * (bits a sleep set later are the next turn's, not lost). */
	ready = t->watch_ready;
	t->watch_ready = 0;
	return (int)ready;
}

void mt_watch_fd(struct mad_transport *t, unsigned slot, int fd)
{
	if (slot >= MT_WATCH_MAX)
		return;
	t->watch_fd[slot] = fd;
	t->pfd[1 + slot].fd = fd;
	t->num_watched = 0;
	for (unsigned w = 0; w < MT_WATCH_MAX; w++)
		t->num_watched += t->watch_fd[w] >= 0;
	t->watch_ready &= ~(1u << slot);
}

unsigned mt_watch_ready(struct mad_transport *t)
{
	unsigned r = t->watch_ready;

	t->watch_ready = 0;
	return r;
}

