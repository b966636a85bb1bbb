/* The services the SM hosts, behind one interface (issue 27; BIRD's
 * `struct protocol` is the model): the loop (sm/sm_loop.c) knows none of
 * their insides. Each service says when it next has work (next_deadline,
 * O(1) or O(what it holds), never O(fabric)) and does it in tick; the
 * loop sleeps until the earliest deadline of all, so an idle SM wakes for
 * nothing and a MAD costs a few comparisons, not a scan of every service's
 * state. Unsolicited MADs are dispatched by management class to the
 * service that claims it (on_mad).
 *
 *   service      class   runs when                 deadline from
 *   ---------------------------------------------------------------------
 *   smp          01/81   always (SMInfo, traps)    (MADs only)
 *   sa           03      always (MADs)             (MADs only); on_subnet:
 *                                                  its database
 *   standby      -       STANDBY                   the next SMInfo poll, a
 *                                                  takeover decided
 *   metrics      -       always                    a counter changed, or 5 s
 *   ctl          -       always                    its socket readable (the
 *                                                  transport polls it)
 *   reports      -       master                    multicast groups changed
 *   sl2vl, vlarb -       master, no sweep wanted   rate tokens, work queued
 *   spare        -       master, fabric up         spare tables to copy
 *   mcast        -       master, fabric up         joins/leaves to program
 *   sa-state     -       master                    SA state changed (1 s)
 *   perfmgr      -       master                    next cycle, MADs to send
 *   flap         -       master                    a held port's release
 *
 * Order in the table is the order of the old hand-written loop: reports
 * before mcast (trap 66/67 see the groups first), SA timers before the
 * SL2VL readers. After a heavy sweep, on_subnet hands each the new view in
 * the same order: the SA's database (sa), the sweep's Reports (reports),
 * the multicast trees (mcast), PerfMgr's port list (perfmgr). Init and
 * free stay with sm_init/sm_free: their order is the daemon's start-up
 * order (the transport, the SA's memory budget, ...), one function each. */
#ifndef IBSM_SM_SERVICE_H
#define IBSM_SM_SERVICE_H

#include <math.h>
#include <stdint.h>

#define SM_NEVER HUGE_VAL               /* no deadline */

struct sm;

enum sm_service_when {
	SM_SVC_ALWAYS,                  /* in every state */
	SM_SVC_STANDBY,                 /* following another SM */
	SM_SVC_MASTER,                  /* not STANDBY or NOTACTIVE */
};

struct sm_service {
	const char *name;
	enum sm_service_when when;
	/* Management classes whose unsolicited requests it takes (a list
	 * ending in 0, or NULL). */
	const uint8_t *classes;
	void (*on_mad)(struct sm *sm, uint8_t *mad, uint16_t slid, uint32_t sqp);
	/* When tick next has work: now (or before) = due, SM_NEVER = none. */
	double (*next_deadline)(const struct sm *sm, double now);
	/* Do what is due. Returns 1 when the fabric needs a heavy sweep now
	 * (the service logged why), else 0. */
	int (*tick)(struct sm *sm, double now);
	/* A heavy sweep made sm->cur the new view (routed: its tables are
	 * programmed and held): follow it. Logs its own trouble. */
	void (*on_subnet)(struct sm *sm, unsigned sweep, int routed);
};

/* Run every due service the SM's state allows; *next: the earliest
 * deadline of those that did not run, or now if one ran (look again
 * before sleeping). Returns 1 if one asked for a heavy sweep. */
int sm_services_tick(struct sm *sm, double now, double *next);
/* Every service's on_subnet, in the table's order (the heavy sweep's
 * last phase). */
void sm_services_on_subnet(struct sm *sm, unsigned sweep, int routed);
/* The SA service's on_mad as the transport's handler of deferred
 * requests (mt_set_deferred_handler; ctx is the struct sm): they are all
 * of its class. */
void sm_services_sa_request(void *ctx, uint8_t *mad, uint16_t slid,
			    uint32_t sqp);
/* The service that takes unsolicited MADs of mgmt_class, or NULL. */
const struct sm_service *sm_service_for_class(uint8_t mgmt_class);

#endif
