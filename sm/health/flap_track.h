/* Port flap tracking: for each switch port, its last seen state (down or
 * up) and the times of its recent state changes. A port whose state
 * changed more than `count` times within `window` seconds is flapping:
 * the SM holds its link out of routing (link_hold.h) and gives it back
 * once it has been up and quiet for `quiet` seconds. Pure bookkeeping, no
 * MADs: sm/health/sm_flap.c feeds it from port polls after traps and from heavy
 * sweeps. */
#ifndef IBSM_SM_FLAP_TRACK_H
#define IBSM_SM_FLAP_TRACK_H

#include <stdint.h>

#define FLAP_RING 64                /* state changes remembered per port */

struct flap_port {
	uint64_t guid;              /* switch node GUID */
	uint8_t port;
	int8_t up;                  /* -1 unknown, 0 down, 1 up */
	uint8_t held;               /* held out of routing for flapping */
	uint8_t nev;                /* changes in ring (<= FLAP_RING) */
	uint8_t head;               /* next slot in ring */
	double ev[FLAP_RING];       /* monotonic s of the last changes */
	double last_ev;
	uint32_t total;             /* changes seen since start */
};

struct flap_track {
	struct flap_port *p;
	uint32_t n, cap;
	uint32_t *index;            /* open addressing on (guid, port) */
	uint32_t index_cap;
	unsigned count;             /* more than this many changes ... */
	double window;              /* ... within this many s: flapping */
	double quiet;               /* held until up and quiet this long */
	uint32_t held;              /* ports held now ... */
	uint32_t *held_list;        /* ... their indexes, in no order */
	uint32_t held_cap;
};

/* count 0 turns flap holds off (changes are still counted). */
void flap_track_init(struct flap_track *ft, unsigned count, double window,
		     double quiet);
void flap_track_free(struct flap_track *ft);
/* The port's entry, created (state unknown) if new: index, or -ENOMEM. */
int flap_track_port(struct flap_track *ft, uint64_t guid, uint8_t port);
/* One observation of the port's state. The first sets the baseline; a
 * change is counted. Returns 1 when this change makes an unheld port
 * flapping (it is then marked held), else 0 (also when there is no memory
 * to remember the hold: a port never held is never stuck). */
int flap_track_observe(struct flap_track *ft, uint32_t i, int up, double now);
/* State changes of port i within the window ending now. */
unsigned flap_track_recent(const struct flap_track *ft, uint32_t i, double now);
/* The next held port that is up and has been quiet for `quiet` s: it is
 * marked not held and its index returned; -1 if none. *from is a cursor
 * over the held ports, 0 to start a pass. The idle loop calls this every
 * wakeup, so it looks at the held ports only: O(1) when none is held
 * (issue 27: a scan of every tracked port was over half the idle loop's
 * CPU under an SA query load). */
int flap_track_next_release(struct flap_track *ft, double now, uint32_t *from);
/* When the next held port that is up turns quiet enough to release
 * (HUGE_VAL: none; a port still down waits for its next observation). */
double flap_track_next_deadline(const struct flap_track *ft);

#endif
