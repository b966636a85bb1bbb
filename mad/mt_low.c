/* The low queue of the MAD transport (mad/mad_transport.h,
 * mt_set_low_queue): Reports to subscribers wait here behind every SMP and
 * go out in a few slots of the window, so a subscriber that does not answer
 * never holds up a sweep. */
#include "mt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mt_set_low_queue(struct mad_transport *t, size_t cap, unsigned slots,
		     unsigned timeout_ms, unsigned retries)
{
	struct mt_req *q = NULL;

	if (t->lq_len)
		return -EBUSY;
	if (cap && !(q = calloc(cap, sizeof(*q))))
		return -ENOMEM;
	free(t->lq);
	t->lq = q;
	t->lq_cap = cap;
	t->lq_head = 0;
	if (slots > t->opt.window / 2)
		slots = t->opt.window / 2;
	t->low_slots = slots ? slots : 1;
	t->low_timeout_ms = timeout_ms;
	t->low_retries = retries;
	return 0;
}

int mt_submit_low(struct mad_transport *t, uint16_t dlid, uint32_t dqp,
		  const uint8_t *mad, mt_done_fn done, void *ctx,
		  uint64_t cookie)
{
	struct mt_req *r;

	if (!t->lq_cap)
		return mt_submit_gmp_qp(t, dlid, dqp, mad, done, ctx, cookie);
	if (mt_agent_of(t, smp_class(mad)) < 0)
		return -EOPNOTSUPP;
	if (dqp == 0 || dqp > 0xFFFFFF)
		return -EINVAL;
	if (t->lq_len == t->lq_cap) {
		t->st.low_dropped++;
		return -ENOBUFS;
	}
	r = &t->lq[(t->lq_head + t->lq_len++) % t->lq_cap];
	memset(r, 0, sizeof(*r));
	memcpy(r->mad, mad, SMP_SIZE);
	r->dlid = dlid;
	r->dqp = dqp;
	r->done = done;
	r->ctx = ctx;
	r->cookie = cookie;
	r->low = 1;
	return 0;
}

size_t mt_cancel_low(struct mad_transport *t, uint16_t dlid)
{
	size_t k = 0, n = t->lq_len;

	for (size_t i = 0; i < n; i++) {
		struct mt_req *r = &t->lq[(t->lq_head + i) % t->lq_cap];

		if (r->dlid != dlid)
			t->lq[(t->lq_head + k++) % t->lq_cap] = *r;
	}
	t->lq_len = k;
	return n - k;
}

size_t mt_low_pending(const struct mad_transport *t)
{
	return t->lq_len + t->low_in_flight;
}

int mt_low_fill(struct mad_transport *t)
{
	/* The low queue only when no SMP waits, and in a few slots: a
	 * sweep always finds the window nearly whole. */
	while (!t->q_len && t->lq_len && t->num_free &&
	       t->low_in_flight < t->low_slots) {
		const struct mt_req *r = &t->lq[t->lq_head];

		t->lq_head = (t->lq_head + 1) % t->lq_cap;
		t->lq_len--;
		if (mt_launch(t, r) < 0)
			return -EIO;
	}
	return 0;
}
