/* Port flap tracking (sm/health/flap_track.h). */
#include "flap_track.h"
#include <math.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/grow.h"

#define EMPTY UINT32_MAX

void flap_track_init(struct flap_track *ft, unsigned count, double window,
		     double quiet)
{
	memset(ft, 0, sizeof(*ft));
	ft->count = count < FLAP_RING ? count : FLAP_RING - 1;
	ft->window = window;
	ft->quiet = quiet;
}

void flap_track_free(struct flap_track *ft)
{
	free(ft->p);
	free(ft->index);
	free(ft->held_list);
	memset(ft, 0, sizeof(*ft));
}

static uint32_t slot_of(uint64_t guid, uint8_t port, uint32_t cap)
{
	uint64_t h = (guid ^ ((uint64_t)port << 56)) * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(h >> 32) & (cap - 1);
}

static int rehash(struct flap_track *ft, uint32_t cap)
{
	uint32_t *idx = malloc(cap * sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	memset(idx, 0xff, cap * sizeof(*idx));
	for (uint32_t i = 0; i < ft->n; i++) {
		uint32_t s = slot_of(ft->p[i].guid, ft->p[i].port, cap);

		while (idx[s] != EMPTY)
			s = (s + 1) & (cap - 1);
		idx[s] = i;
	}
	free(ft->index);
	ft->index = idx;
	ft->index_cap = cap;
	return 0;
}

int flap_track_port(struct flap_track *ft, uint64_t guid, uint8_t port)
{
	uint32_t s;

	if (ft->index_cap) {
		s = slot_of(guid, port, ft->index_cap);
		for (; ft->index[s] != EMPTY; s = (s + 1) & (ft->index_cap - 1)) {
			const struct flap_port *p = &ft->p[ft->index[s]];

			if (p->guid == guid && p->port == port)
				return (int)ft->index[s];
		}
	}
	if (grow_array((void **)&ft->p, &ft->cap, ft->n + 1, sizeof(*ft->p), 64))
		return -ENOMEM;
	/* Keep the index at most half full. */
	if ((ft->n + 1) * 2 > ft->index_cap &&
	    rehash(ft, ft->index_cap ? ft->index_cap * 2 : 128) < 0)
		return -ENOMEM;
	memset(&ft->p[ft->n], 0, sizeof(ft->p[ft->n]));
	ft->p[ft->n].guid = guid;
	ft->p[ft->n].port = port;
	ft->p[ft->n].up = -1;
	s = slot_of(guid, port, ft->index_cap);
	while (ft->index[s] != EMPTY)
		s = (s + 1) & (ft->index_cap - 1);
	ft->index[s] = ft->n;
	return (int)ft->n++;
}

unsigned flap_track_recent(const struct flap_track *ft, uint32_t i, double now)
{
	const struct flap_port *p = &ft->p[i];
	unsigned k = 0;

	for (unsigned j = 0; j < p->nev; j++)
		if (now - p->ev[j] <= ft->window)
			k++;
	return k;
}

int flap_track_observe(struct flap_track *ft, uint32_t i, int up, double now)
{
	struct flap_port *p = &ft->p[i];

	up = up ? 1 : 0;
	if (p->up < 0 || p->up == up) {
		p->up = (int8_t)up;
		return 0;
	}
	p->up = (int8_t)up;
	p->ev[p->head] = now;
	p->head = (uint8_t)((p->head + 1) % FLAP_RING);
	if (p->nev < FLAP_RING)
		p->nev++;
	p->last_ev = now;
	p->total++;
	if (!ft->count || p->held || flap_track_recent(ft, i, now) <= ft->count)
		return 0;
	if (grow_array((void **)&ft->held_list, &ft->held_cap, ft->held + 1,
		       sizeof(*ft->held_list), 16))
		return 0;
	p->held = 1;
	ft->held_list[ft->held++] = i;
	return 1;
}

double flap_track_next_deadline(const struct flap_track *ft)
{
	double t = HUGE_VAL;

	for (uint32_t k = 0; k < ft->held; k++) {
		const struct flap_port *p = &ft->p[ft->held_list[k]];

		if (p->up == 1 && p->last_ev + ft->quiet < t)
			t = p->last_ev + ft->quiet;
	}
	return t;
}

int flap_track_next_release(struct flap_track *ft, double now, uint32_t *from)
{
	for (uint32_t k = *from; k < ft->held; k++) {
		uint32_t i = ft->held_list[k];
		struct flap_port *p = &ft->p[i];

		if (p->up != 1 || now - p->last_ev < ft->quiet)
			continue;
		p->held = 0;
		/* The last held port takes slot k: look at it next. */
		ft->held_list[k] = ft->held_list[--ft->held];
		*from = k;
		return (int)i;
	}
	*from = ft->held;
	return -1;
}
