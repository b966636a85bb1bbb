/* Other SMs, standby and takeover (IBA 14.4; issue 10). During each heavy
 * sweep the SM asks every port whose CapabilityMask says IsSM for its
 * SMInfo (directed route, as the sweep reached it) and elects
 * (standby/sm_election.h). Following another SM, it programs nothing: it
 * is STANDBY, polls that SM's SMInfo LID-routed every
 * sminfo_polling_timeout ms, and after polling_retry_number polls in a row
 * go unanswered (each with the transport's timeout and retries) it takes
 * over: DISCOVERING, then a heavy sweep that keeps the LIDs the ports hold
 * and writes only the LFT blocks that differ from what the switches hold
 * (none, when the old master's tables are the ones ibsm computes).
 *
 * The states and what moves between them are standby/sm_fsm.h's table;
 * this is its glue: sm_set_state (the one place sm->state changes), the
 * actions it runs, and the events' sources (the sweep's election, the
 * polls, SMInfo controls). */
#ifndef IBSM_SM_SM_STANDBY_H
#define IBSM_SM_SM_STANDBY_H

#include <stdint.h>
#include "../core/subnet.h"
#include "../standby/sm_election.h"
#include "../standby/sminfo_control.h"
#include "../standby/sm_fsm.h"

struct sm;

/* A port the last heavy sweep saw with CapabilityMask.IsSM: who may send
 * SMInfo controls (standby/sminfo_control.h). */
struct sm_port_id {
	uint64_t guid;
	uint16_t lid;               /* base LID */
	uint8_t lmc;
};

/* Our polls of the SM we follow while STANDBY. */
struct sm_poll {
	double next;                /* when the next poll is due */
	int in_flight;
	unsigned misses;            /* polls in a row without an answer */
	unsigned not_master;        /* polls in a row: it answered, not MASTER */
};

/* ActCount watch (master_stall_timeout): the master's ActCount when it
 * last moved by more than our own polls explain (OpenSM counts every SMP
 * it sends, its answers to our polls too). */
struct sm_stall_watch {
	uint32_t ref;
	uint32_t answers;           /* answers since ref */
	double since;               /* when ref was taken; 0 = none */
};

/* A master we took over from because its ActCount stood still: left out
 * of elections while its ActCount stays near count. */
struct sm_stalled {
	uint64_t guid;              /* 0: none */
	uint32_t count;
	uint32_t asked;             /* our SMInfo Gets to it since */
};

/* What the state machine (sm->state, standby/sm_fsm.h) works on: data,
 * no state of its own. */
struct sm_standby {
	/* the last heavy sweep's view of the other SMs */
	struct sm_port_id *sm_ports;
	uint32_t num_sm_ports, sm_ports_cap;
	struct sm_peer *peers;
	uint32_t npeers, cap;
	/* SMInfo controls judged, by verdict (SMCTL_OBEY counts obeyed) */
	uint64_t controls[SMCTL_NUM_VERDICTS];
	/* STANDBY: the SM followed, our polls of it */
	struct sm_peer master;
	struct sm_poll poll;
	struct sm_stall_watch stall;
	struct sm_stalled stalled;
	/* a takeover under way (DISCOVERING after MASTER_SILENT, _STALLED or
	 * HANDOVER): when we decided, when the master first went quiet */
	double takeover_at;         /* 0: not taking over */
	double lost_since;
	uint64_t handover_from;     /* the SM that handed over to us (ignored
				     * by the election until we are master) */
	/* MASTER: the SM our HANDOVER went to (guid 0: none), and sweeps
	 * asked while a better SM discovers */
	struct sm_peer handover_to;
	unsigned rechecks;
};

/* What an event carries to its action (sm_set_state). */
struct sm_event_arg {
	const struct sm_peer *peer; /* the SM to follow, or the sender of a control */
	uint16_t slid;              /* a control's source LID (0xffff: directed route) */
	double now;                 /* 0: now_seconds() */
};

/* The one place sm->state changes: apply event ev (standby/sm_fsm.h),
 * run its action, log the transition (debug). 1 when ev applied in the
 * state it found, 0 when ignored. */
int sm_set_state(struct sm *sm, enum smfsm_event ev,
		 const struct sm_event_arg *arg);

void sm_standby_free(struct sm_standby *s);
/* Ask the IsSM ports of r for their SMInfo; fills s->peers. 0 or -ENOMEM. */
int sm_standby_discover(struct sm *sm, const struct subnet *r);
/* After discovery: the peer to follow, or NULL to be (stay) master. */
const struct sm_peer *sm_standby_elect(struct sm *sm, int we_are_master);
/* The sweep's election lost: STANDBY under `master` (event
 * ELECTION_LOST, logged). */
void sm_standby_enter(struct sm *sm, const struct sm_peer *master);
/* Master with honor_priority: a STANDBY SM better than us is sent
 * SMInfo Set(HANDOVER) (IBA 14.4.1.2); its ACKNOWLEDGE makes us STANDBY. */
void sm_standby_handover(struct sm *sm, const struct subnet *r);
/* A SubnSet(SMInfo) with control HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY
 * or DISCOVER from another SM, judged legal (sm/sm_responder.c): the
 * event of that name (data: its SMInfo; slid 0xffff when it came by
 * directed route). */
void sm_standby_control(struct sm *sm, unsigned control, const uint8_t *data,
			uint16_t slid);
/* Our SMInfo as we send it in Gets and controls (our SM_Key in it: a
 * peer shows its own only to a requester that knows it). */
void sm_standby_our_sminfo(const struct sm *sm, uint8_t *data);
/* From the idle loop while STANDBY: poll the master. 1 when it is gone,
 * stuck or no longer master (events MASTER_SILENT, MASTER_STALLED,
 * MASTER_NOT_MASTER: DISCOVERING, heavy sweep wanted), else 0. */
int sm_standby_tick(struct sm *sm, double now);
/* When sm_standby_tick next has work (HUGE_VAL: none, or not STANDBY). */
double sm_standby_next_deadline(const struct sm *sm, double now);

#endif
