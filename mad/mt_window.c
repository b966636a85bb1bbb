/* The send window of the MAD transport (mad/mt_internal.h): a FIFO of
 * queued requests, a window of slots in flight, and our own timeouts (each
 * send goes out with timeout_ms 0, so the kernel does not track it;
 * responses still reach the agent by TID).
 *
 * Transaction ids: only the low 32 bits are ours. The kernel puts the agent
 * id in the high half (ibsim's umad2sim and ibsim itself overwrite bits
 * 32..63 likewise), so responses are matched on the low 32 bits:
 * slot number in the low 12 bits, a per-send sequence above it, so a late
 * answer to an earlier try never completes a newer one. */
#include "mt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../core/log.h"

void mt_set_retries(struct mad_transport *t, unsigned retries)
{
	t->opt.retries = retries;
}

size_t mt_pending(const struct mad_transport *t)
{
	return t->q_len + t->in_flight;
}

static struct mt_req *queue_push(struct mad_transport *t)
{
	if (t->q_len == t->q_cap) {
		size_t ncap = t->q_cap ? t->q_cap * 2 : 256;
		struct mt_req *nq = malloc(ncap * sizeof(*nq));

		if (!nq)
			return NULL;
		for (size_t i = 0; i < t->q_len; i++)
			nq[i] = t->queue[(t->q_head + i) % t->q_cap];
		free(t->queue);
		t->queue = nq;
		t->q_cap = ncap;
		t->q_head = 0;
	}
	return &t->queue[(t->q_head + t->q_len++) % t->q_cap];
}

static int submit(struct mad_transport *t, uint16_t dlid, mt_done_fn done,
		  void *ctx, uint64_t cookie, struct mt_req **out)
{
	struct mt_req *r = queue_push(t);

	if (!r)
		return -ENOMEM;
	memset(r, 0, offsetof(struct mt_req, dlid));
	r->dlid = dlid;
	r->tries = 0;
	r->dqp = 0;
	r->done = done;
	r->ctx = ctx;
	r->cookie = cookie;
	r->busy = 0;
	r->low = 0;
	*out = r;
	return 0;
}

int mt_submit_dr(struct mad_transport *t, const struct smp_path *path,
		  uint8_t method, uint16_t attr, uint32_t mod,
		  const uint8_t *data, mt_done_fn done, void *ctx,
		  uint64_t cookie)
{
	struct mt_req *r;
	int rc = submit(t, 0xffff, done, ctx, cookie, &r);

	if (rc)
		return rc;
	smp_init_dr(r->mad, path, method, attr, mod, 0);
	mad_set_field64(r->mad, 0, IB_MAD_MKEY_F, t->m_key);
	if (data)
		memcpy(smp_data(r->mad), data, 64);
	return 0;
}

int mt_submit_lid(struct mad_transport *t, uint16_t dlid, uint8_t method,
		   uint16_t attr, uint32_t mod, const uint8_t *data,
		   mt_done_fn done, void *ctx, uint64_t cookie)
{
	struct mt_req *r;
	int rc = submit(t, dlid, done, ctx, cookie, &r);

	if (rc)
		return rc;
	smp_init_lid(r->mad, method, attr, mod, 0);
	mad_set_field64(r->mad, 0, IB_MAD_MKEY_F, t->m_key);
	if (data)
		memcpy(smp_data(r->mad), data, 64);
	return 0;
}

int mt_submit_gmp(struct mad_transport *t, uint16_t dlid, const uint8_t *mad,
		   mt_done_fn done, void *ctx, uint64_t cookie)
{
	return mt_submit_gmp_qp(t, dlid, 1, mad, done, ctx, cookie);
}

int mt_submit_gmp_qp(struct mad_transport *t, uint16_t dlid, uint32_t dqp,
		      const uint8_t *mad, mt_done_fn done, void *ctx,
		      uint64_t cookie)
{
	struct mt_req *r;
	int rc;

	if (mt_agent_of(t, smp_class(mad)) < 0)
		return -EOPNOTSUPP;
	if (dqp == 0 || dqp > 0xFFFFFF)
		return -EINVAL;
	rc = submit(t, dlid, done, ctx, cookie, &r);
	if (rc)
		return rc;
	memcpy(r->mad, mad, SMP_SIZE);
	r->dqp = dqp;
	return 0;
}

/* Send slot s (first try or retry) with a fresh TID. */
static int send_slot(struct mad_transport *t, uint32_t s)
{
	struct mt_req *r = &t->slots[s];

	t->seq++;
	r->tid32 = (t->seq << SLOT_BITS) | s;
	mad_set_field64(r->mad, 0, IB_MAD_TRID_F, r->tid32);
	r->deadline = now_seconds() +
		(r->low ? t->low_timeout_ms : t->opt.timeout_ms) / 1000.0;
	if (r->deadline < t->next_expiry || t->in_flight == 0)
		t->next_expiry = r->deadline;
	r->tries++;
	t->st.sent++;
	return mt_send(t, r->mad, SMP_SIZE, r->dlid, r->dqp);
}

void mt_release_slot(struct mad_transport *t, uint32_t s)
{
	if (t->slots[s].low)
		t->low_in_flight--;
	t->slots[s].busy = 0;
	t->free_slots[t->num_free++] = s;
	t->in_flight--;
}

int mt_launch(struct mad_transport *t, const struct mt_req *r)
{
	uint32_t s = t->free_slots[--t->num_free];

	t->slots[s] = *r;
	t->slots[s].busy = 1;
	t->in_flight++;
	t->low_in_flight += r->low;
	return send_slot(t, s);
}

int mt_fill_window(struct mad_transport *t)
{
	while (t->q_len && t->num_free) {
		const struct mt_req *r = &t->queue[t->q_head];

		t->q_head = (t->q_head + 1) % t->q_cap;
		t->q_len--;
		if (mt_launch(t, r) < 0)
			return -EIO;
	}
	return mt_low_fill(t);
}

/* A try of slot s got no answer: resend or give up. */
int mt_slot_timed_out(struct mad_transport *t, uint32_t s)
{
	struct mt_req *r = &t->slots[s];

	t->st.timed_out++;
	if (r->tries <= (r->low ? t->low_retries : t->opt.retries)) {
		t->st.retried++;
		return send_slot(t, s);
	}
	t->st.failed++;
	{
		struct mt_req done = *r;

		mt_release_slot(t, s);
		if (done.done)
			done.done(done.ctx, done.cookie, done.mad, NULL);
	}
	return 0;
}

int mt_expire(struct mad_transport *t)
{
	double now = now_seconds(), next = 0;

	if (!t->in_flight || now < t->next_expiry)
		return 0;
	for (uint32_t s = 0; s < t->opt.window; s++) {
		struct mt_req *r = &t->slots[s];

		if (!r->busy)
			continue;
		if (r->deadline <= now) {
			if (mt_slot_timed_out(t, s) < 0)
				return -EIO;
		}
		if (r->busy && (next == 0 || r->deadline < next))
			next = r->deadline;
	}
	t->next_expiry = next;
	return 0;
}

struct mt_req *mt_match(struct mad_transport *t, const uint8_t *mad,
			uint32_t *slot)
{
	uint32_t tid32 = (uint32_t)smp_tid(mad);
	uint32_t s = tid32 & (MAX_WINDOW - 1);

	if (s >= t->opt.window || !t->slots[s].busy ||
	    t->slots[s].tid32 != tid32)
		return NULL;
	*slot = s;
	return &t->slots[s];
}

int mt_throttle(struct mad_transport *t, size_t limit)
{
	/* Reports of the low queue are not waited for. */
	while (mt_pending(t) - t->low_in_flight > limit) {
		int rc = mt_poll(t, 100);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int mt_drain(struct mad_transport *t)
{
	return mt_throttle(t, 0);
}

void mt_set_mkey(struct mad_transport *t, uint64_t m_key)
{
	t->m_key = m_key;
}
