/* The SM state machine as a table (standby/sm_fsm.h). */
#include "sm_fsm.h"

#include <stddef.h>

#include "../mad/smp.h"

#define S(x) (1u << SMP_SM_##x)
#define ANY (S(NOTACTIVE) | S(DISCOVERING) | S(STANDBY) | S(MASTER))

/* The drawing in sm_fsm.h, row for row; the first row that matches wins. */
static const struct smfsm_row smfsm_tbl[] = {
	/* state(s)                    event                    action                  next */
	{ S(NOTACTIVE),                SMEV_START,              SMACT_NONE,             SMP_SM_DISCOVERING },
	{ S(NOTACTIVE),                SMEV_STANDBY,            SMACT_FOLLOW,           SMP_SM_STANDBY },
	{ S(DISCOVERING),              SMEV_SWEPT,              SMACT_NONE,             SMP_SM_MASTER },
	{ S(DISCOVERING) | S(STANDBY), SMEV_HANDOVER,           SMACT_ACCEPT_HANDOVER,  SMP_SM_DISCOVERING },
	{ S(STANDBY),                  SMEV_MASTER_SILENT,      SMACT_TAKEOVER,         SMP_SM_DISCOVERING },
	{ S(STANDBY),                  SMEV_MASTER_STALLED,     SMACT_TAKEOVER,         SMP_SM_DISCOVERING },
	{ S(STANDBY),                  SMEV_MASTER_NOT_MASTER,  SMACT_SWEEP,            SMP_SM_DISCOVERING },
	{ S(STANDBY),                  SMEV_DISCOVER,           SMACT_SWEEP,            SMP_SM_DISCOVERING },
	{ S(STANDBY),                  SMEV_DISABLE,            SMACT_STOP,             SMP_SM_NOTACTIVE },
	{ S(MASTER),                   SMEV_SWEPT,              SMACT_NONE,             SMP_SM_MASTER },
	/* two masters: the sender steps down (sminfo_control.h, note 1) */
	{ S(MASTER),                   SMEV_HANDOVER,           SMACT_NONE,             SMP_SM_MASTER },
	{ S(MASTER),                   SMEV_ACKNOWLEDGE,        SMACT_STEP_DOWN,        SMP_SM_STANDBY },
	/* a master yields only to a better master (sm_election.h) */
	{ ANY,                         SMEV_ELECTION_LOST,      SMACT_FOLLOW,           SMP_SM_STANDBY },
};

const struct smfsm_row *smfsm_find(uint8_t state, enum smfsm_event ev)
{
	if (state > SMP_SM_MASTER)
		return NULL;
	for (size_t i = 0; i < sizeof(smfsm_tbl) / sizeof(smfsm_tbl[0]); i++)
		if ((smfsm_tbl[i].states & (1u << state)) && smfsm_tbl[i].event == ev)
			return &smfsm_tbl[i];
	return NULL;
}

uint8_t smfsm_apply(uint8_t state, enum smfsm_event ev,
		    smfsm_action_fn *const actions[SMACT_NUM], void *ctx,
		    const void *arg, const struct smfsm_row **row)
{
	const struct smfsm_row *r = smfsm_find(state, ev);

	if (row)
		*row = r;
	if (!r)
		return state;
	if (r->action != SMACT_NONE && actions && actions[r->action])
		actions[r->action](ctx, arg);
	return r->next;
}

const char *smfsm_event_str(enum smfsm_event ev)
{
	static const char *const s[SMEV_NUM] = {
		[SMEV_START] = "START",
		[SMEV_SWEPT] = "SWEPT",
		[SMEV_ELECTION_LOST] = "ELECTION_LOST",
		[SMEV_MASTER_SILENT] = "MASTER_SILENT",
		[SMEV_MASTER_STALLED] = "MASTER_STALLED",
		[SMEV_MASTER_NOT_MASTER] = "MASTER_NOT_MASTER",
		[SMEV_HANDOVER] = "HANDOVER",
		[SMEV_ACKNOWLEDGE] = "ACKNOWLEDGE",
		[SMEV_DISABLE] = "DISABLE",
		[SMEV_STANDBY] = "STANDBY",
		[SMEV_DISCOVER] = "DISCOVER",
	};

	return (unsigned)ev < SMEV_NUM ? s[ev] : "?";
}

const char *smfsm_action_str(enum smfsm_action a)
{
	static const char *const s[SMACT_NUM] = {
		[SMACT_NONE] = "-",
		[SMACT_FOLLOW] = "FOLLOW",
		[SMACT_STEP_DOWN] = "STEP_DOWN",
		[SMACT_TAKEOVER] = "TAKEOVER",
		[SMACT_ACCEPT_HANDOVER] = "ACCEPT_HANDOVER",
		[SMACT_SWEEP] = "SWEEP",
		[SMACT_STOP] = "STOP",
	};

	return (unsigned)a < SMACT_NUM ? s[a] : "?";
}
