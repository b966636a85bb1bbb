/* SA requests deferred by the MAD transport (mad/mad_transport.h,
 * mt_set_deferral): kept when they arrive, served in slices taking turns
 * between sources, so an SA flood never delays an SMP (a trap, SMInfo). */
#include "mt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"

int mt_set_deferral(struct mad_transport *t, size_t cap, unsigned per_source)
{
	struct mt_deferred *q = NULL;
	uint16_t *of_lid = NULL;

	if (t->dq_len)
		return -EBUSY;
	if (cap && (!(q = calloc(cap, sizeof(*q))) ||
		    !(of_lid = calloc(65536, sizeof(*of_lid))))) {
		free(q);
		return -ENOMEM;
	}
	free(t->dq);
	free(t->dq_of_lid);
	t->dq = q;
	t->dq_of_lid = of_lid;
	t->dq_cap = cap;
	t->dq_head = 0;
	t->dq_tail = 0;
	t->dq_per_source = per_source ? per_source : (unsigned)cap;
	return 0;
}

size_t mt_deferred(const struct mad_transport *t)
{
	return t->dq_len;
}

/* The next request to serve: the oldest from another source than the
 * last one served, if one waits among the next few; else the oldest.
 * A source with many requests queued then takes turns with the others
 * instead of making them wait behind all of its own. */
#define MT_FAIR_SCAN 64

static size_t pick_deferred(const struct mad_transport *t)
{
	size_t n = t->dq_len < MT_FAIR_SCAN ? t->dq_len : MT_FAIR_SCAN;

	for (size_t i = 0; i < n; i++)
		if (t->dq[(t->dq_head + i) % t->dq_cap].slid != t->dq_last_slid)
			return i;
	return 0;
}

/* The head slot leaves the queue; slid is the request's that was served. */
static void pop_head(struct mad_transport *t, uint16_t slid)
{
	if (++t->dq_head == t->dq_cap)
		t->dq_head = 0;
	t->dq_len--;
	t->dq_of_lid[slid]--;
	t->dq_last_slid = slid;
}

/* Entry pick leaves the queue into out: the ones before it move up. */
static void take_deferred(struct mad_transport *t, size_t pick,
			  struct mt_deferred *out)
{
	*out = t->dq[(t->dq_head + pick) % t->dq_cap];
	for (size_t i = pick; i > 0; i--)
		t->dq[(t->dq_head + i) % t->dq_cap] =
			t->dq[(t->dq_head + i - 1) % t->dq_cap];
	pop_head(t, out->slid);
}

int mt_serve_deferred(struct mad_transport *t, unsigned max, double until,
		      int (*stop)(void *arg), void *arg)
{
	mt_request_fn fn = t->serve_fn;
	void *ctx = t->serve_ctx;
	unsigned n = 0;

	while (t->dq_len && n < max) {
		size_t pick = t->dq_len == 1 ? 0 : pick_deferred(t);

		if (pick == 0) {
			/* The head is served where it lies (no copy out: issue
			 * 27); it stays counted meanwhile, so what a yield
			 * queues goes into other slots (and only the main loop
			 * serves: no call nests in on_request). */
			struct mt_deferred *d = &t->dq[t->dq_head];

			if (fn)
				fn(ctx, d->mad, d->slid, d->sqp);
			pop_head(t, d->slid);
		} else {
			struct mt_deferred d;

			take_deferred(t, pick, &d);
			if (fn)
				fn(ctx, d.mad, d.slid, d.sqp);
		}
		n++;
		/* None left: what arrived meanwhile is the caller's next
		 * poll's (one poll per SA query saved: issue 27). */
		if (!t->dq_len)
			break;
		/* Between two requests: what arrived meanwhile (a trap, an
		 * SMInfo query) is handled first, and may end the slice. */
		if (mt_poll(t, 0) < 0)
			return -EIO;
		if ((stop && stop(arg)) || now_seconds() >= until)
			break;
	}
	return (int)n;
}

/* What mt_serve_slice and mt_serve_next do, for a slice kept where they
 * put it: with one request waiting, the serve keeps only t, sl and the
 * slot across its call (issue 27: the five arguments were all kept). */
static int serve_slice(struct mad_transport *t, const struct mt_slice *sl)
{
	struct mt_deferred *d;
	int rc;

	/* More than one waiting: the slice is timed from now, as with
	 * mt_serve_deferred. */
	if (t->dq_len > 1)
		return mt_serve_deferred(t, sl->max, now_seconds() + sl->slice_s,
					 sl->stop, sl->arg);
	if (!t->dq_len || !sl->max)
		return 0;
	/* One (a query stream, one in flight): served here, and the clock
	 * read only if more came meanwhile (a yield, the poll after it);
	 * the slice is then timed from after it. */
	d = &t->dq[t->dq_head];
	if (t->serve_fn)
		t->serve_fn(t->serve_ctx, d->mad, d->slid, d->sqp);
	pop_head(t, d->slid);
	if (!t->dq_len)
		return 1;
	if (mt_poll(t, 0) < 0)
		return -EIO;
	if ((sl->stop && sl->stop(sl->arg)) || sl->max == 1)
		return 1;
	rc = mt_serve_deferred(t, sl->max - 1, now_seconds() + sl->slice_s,
			       sl->stop, sl->arg);
	return rc < 0 ? rc : rc + 1;
}

int mt_serve_slice(struct mad_transport *t, unsigned max, double slice_s,
		   int (*stop)(void *arg), void *arg)
{
	struct mt_slice sl = { max, slice_s, stop, arg };

	return serve_slice(t, &sl);
}

void mt_set_slice(struct mad_transport *t, const struct mt_slice *slice)
{
	t->slice = *slice;
}

int mt_serve_next(struct mad_transport *t)
{
	return serve_slice(t, &t->slice);
}

int mt_yield(struct mad_transport *t)
{
	int rc;

	if (!t->dq_cap || t->yielding)
		return 0;
	t->yielding = 1;
	rc = mt_poll(t, 0);
	t->yielding = 0;
	return rc;
}
