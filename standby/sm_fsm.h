/* The SM state machine (IBA 14.4.1, the SM state diagram) as a table:
 * state x event -> action, next state, in the shape of OpenBSD ospfd's
 * nbr_fsm_tbl (neighbor.c): rows of state mask, event, action, next.
 * Pure: no I/O and no struct sm. The sm/ glue (sm_set_state in
 * sm/sm_standby.c) gives the actions as callbacks, assigns the state this
 * returns and logs the transition; nothing else assigns the state.
 *
 * States are SMInfo.SMState values (mad/smp.h):
 *
 *               START               SWEPT
 *  NOTACTIVE ---------> DISCOVERING -------> MASTER --+
 *   |     ^               |    ^    ^          |  ^   | SWEPT,
 *   |     |               |    |    +--+       |  +---+ HANDOVER
 *   |     |               |    |   HANDOVER    |
 *   |  DISABLE            |   (1)              | ELECTION_LOST,
 *   |     |  ELECTION_LOST|    |               | ACKNOWLEDGE
 *   |     |               v    |               |
 *   |     +------------ STANDBY <--------------+
 *   +---- STANDBY ----->  |  ^
 *                         +--+ ELECTION_LOST
 *
 *  (1) MASTER_SILENT, MASTER_STALLED, MASTER_NOT_MASTER, HANDOVER, DISCOVER
 *  ELECTION_LOST leads to STANDBY from every state (NOTACTIVE's arrow is
 *  not drawn: no sweep runs there).
 *
 *   state          event              action            next
 *   NOTACTIVE      START              -                 DISCOVERING
 *   NOTACTIVE      STANDBY            FOLLOW            STANDBY
 *   DISCOVERING    SWEPT              -                 MASTER
 *   DISCOVERING    HANDOVER           ACCEPT_HANDOVER   DISCOVERING
 *   STANDBY        MASTER_SILENT      TAKEOVER          DISCOVERING
 *   STANDBY        MASTER_STALLED     TAKEOVER          DISCOVERING
 *   STANDBY        MASTER_NOT_MASTER  SWEEP             DISCOVERING
 *   STANDBY        HANDOVER           ACCEPT_HANDOVER   DISCOVERING
 *   STANDBY        DISCOVER           SWEEP             DISCOVERING
 *   STANDBY        DISABLE            STOP              NOTACTIVE
 *   MASTER         SWEPT              -                 MASTER
 *   MASTER         HANDOVER           -                 MASTER
 *   MASTER         ACKNOWLEDGE        STEP_DOWN         STANDBY
 *   any            ELECTION_LOST      FOLLOW            STANDBY
 *   any other pair: ignored (no action, state unchanged)
 *
 * Events: START the daemon begins; SWEPT a heavy sweep programmed the
 * fabric (its election found no SM to follow); ELECTION_LOST the sweep's
 * election (standby/sm_election.h) picked another SM to follow (a MASTER,
 * a better master while we are one, or with no master a better SM);
 * MASTER_SILENT polling_retry_number polls of the followed master went
 * unanswered; MASTER_STALLED it answers but its ActCount stood still for
 * master_stall_timeout; MASTER_NOT_MASTER it answers, but not as MASTER
 * (polling_retry_number polls); HANDOVER ... DISCOVER: a SubnSet(SMInfo)
 * control (IBA 14.4.1.2) that standby/sminfo_control.h judged legal.
 *
 * The controls' rows are its legality table: a control applies here in
 * exactly the states where smctl_judge may obey it (the unit test holds
 * the two to each other). A control outside them never reaches the table.
 *
 * Actions (the glue's callbacks, run before the state changes, so they see
 * the state the event found):
 *   FOLLOW           record the SM to follow, start polling it
 *   STEP_DOWN        our HANDOVER was acknowledged: FOLLOW its sender
 *   TAKEOVER         stamp the takeover, heavy sweep now
 *   ACCEPT_HANDOVER  answer ACKNOWLEDGE, stamp the takeover, sweep now
 *   SWEEP            heavy sweep now (elect again)
 *   STOP             no sweep pending (NOTACTIVE sweeps and polls nothing) */
#ifndef IBSM_STANDBY_SM_FSM_H
#define IBSM_STANDBY_SM_FSM_H

#include <stdint.h>

enum smfsm_event {
	SMEV_START,
	SMEV_SWEPT,
	SMEV_ELECTION_LOST,
	SMEV_MASTER_SILENT,
	SMEV_MASTER_STALLED,
	SMEV_MASTER_NOT_MASTER,
	SMEV_HANDOVER,              /* SMInfo controls, IBA 14.4.1.2 */
	SMEV_ACKNOWLEDGE,
	SMEV_DISABLE,
	SMEV_STANDBY,
	SMEV_DISCOVER,
	SMEV_NUM
};

enum smfsm_action {
	SMACT_NONE,
	SMACT_FOLLOW,
	SMACT_STEP_DOWN,
	SMACT_TAKEOVER,
	SMACT_ACCEPT_HANDOVER,
	SMACT_SWEEP,
	SMACT_STOP,
	SMACT_NUM
};

/* One row: in any state of the mask `states` (bit 1 << SMState), `event`
 * runs `action` and leads to `next`. */
struct smfsm_row {
	uint8_t states;
	uint8_t event;              /* enum smfsm_event */
	uint8_t action;             /* enum smfsm_action */
	uint8_t next;               /* SMInfo.SMState */
};

/* The row for (state, event), NULL when the event does not apply there. */
const struct smfsm_row *smfsm_find(uint8_t state, enum smfsm_event ev);

/* An action: ctx and arg as given to smfsm_apply. */
typedef void smfsm_action_fn(void *ctx, const void *arg);

/* Apply event ev in state: run actions[row's action] (NULL entries and
 * SMACT_NONE run nothing) and return the next state; an event that does
 * not apply returns state and runs nothing. *row (may be NULL) is set to
 * the row applied, or NULL. */
uint8_t smfsm_apply(uint8_t state, enum smfsm_event ev,
		    smfsm_action_fn *const actions[SMACT_NUM], void *ctx,
		    const void *arg, const struct smfsm_row **row);

/* "MASTER_SILENT" ..., "?" */
const char *smfsm_event_str(enum smfsm_event ev);
/* "TAKEOVER" ..., "?" */
const char *smfsm_action_str(enum smfsm_action a);

#endif
