/* standby/sm_fsm.c: the SM state table, every state x event. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mad/smp.h"
#include "standby/sm_fsm.h"
#include "standby/sminfo_control.h"

#define N SMP_SM_NOTACTIVE
#define D SMP_SM_DISCOVERING
#define S SMP_SM_STANDBY
#define M SMP_SM_MASTER
#define IGN 0xff                /* ignored: no action, state unchanged */

struct cell {
	uint8_t next;
	uint8_t action;
};

/* expect[state][event], written out from the drawing in sm_fsm.h. */
static const struct cell expect[4][SMEV_NUM] = {
	[N] = {
		[SMEV_START] = { D, SMACT_NONE },
		[SMEV_SWEPT] = { IGN, 0 },
		[SMEV_ELECTION_LOST] = { S, SMACT_FOLLOW },
		[SMEV_MASTER_SILENT] = { IGN, 0 },
		[SMEV_MASTER_STALLED] = { IGN, 0 },
		[SMEV_MASTER_NOT_MASTER] = { IGN, 0 },
		[SMEV_HANDOVER] = { IGN, 0 },
		[SMEV_ACKNOWLEDGE] = { IGN, 0 },
		[SMEV_DISABLE] = { IGN, 0 },
		[SMEV_STANDBY] = { S, SMACT_FOLLOW },
		[SMEV_DISCOVER] = { IGN, 0 },
	},
	[D] = {
		[SMEV_START] = { IGN, 0 },
		[SMEV_SWEPT] = { M, SMACT_NONE },
		[SMEV_ELECTION_LOST] = { S, SMACT_FOLLOW },
		[SMEV_MASTER_SILENT] = { IGN, 0 },
		[SMEV_MASTER_STALLED] = { IGN, 0 },
		[SMEV_MASTER_NOT_MASTER] = { IGN, 0 },
		[SMEV_HANDOVER] = { D, SMACT_ACCEPT_HANDOVER },
		[SMEV_ACKNOWLEDGE] = { IGN, 0 },
		[SMEV_DISABLE] = { IGN, 0 },
		[SMEV_STANDBY] = { IGN, 0 },
		[SMEV_DISCOVER] = { IGN, 0 },
	},
	[S] = {
		[SMEV_START] = { IGN, 0 },
		[SMEV_SWEPT] = { IGN, 0 },
		[SMEV_ELECTION_LOST] = { S, SMACT_FOLLOW },
		[SMEV_MASTER_SILENT] = { D, SMACT_TAKEOVER },
		[SMEV_MASTER_STALLED] = { D, SMACT_TAKEOVER },
		[SMEV_MASTER_NOT_MASTER] = { D, SMACT_SWEEP },
		[SMEV_HANDOVER] = { D, SMACT_ACCEPT_HANDOVER },
		[SMEV_ACKNOWLEDGE] = { IGN, 0 },
		[SMEV_DISABLE] = { N, SMACT_STOP },
		[SMEV_STANDBY] = { IGN, 0 },
		[SMEV_DISCOVER] = { D, SMACT_SWEEP },
	},
	[M] = {
		[SMEV_START] = { IGN, 0 },
		[SMEV_SWEPT] = { M, SMACT_NONE },
		[SMEV_ELECTION_LOST] = { S, SMACT_FOLLOW },
		[SMEV_MASTER_SILENT] = { IGN, 0 },
		[SMEV_MASTER_STALLED] = { IGN, 0 },
		[SMEV_MASTER_NOT_MASTER] = { IGN, 0 },
		[SMEV_HANDOVER] = { M, SMACT_NONE },
		[SMEV_ACKNOWLEDGE] = { S, SMACT_STEP_DOWN },
		[SMEV_DISABLE] = { IGN, 0 },
		[SMEV_STANDBY] = { IGN, 0 },
		[SMEV_DISCOVER] = { IGN, 0 },
	},
};

/* The actions record what ran, and with which argument. */
struct ran {
	int count[SMACT_NUM];
	const void *arg;
};

#define ACT(name, a)                                                    \
	static void name(void *ctx, const void *arg)                    \
	{                                                               \
		struct ran *r = ctx;                                    \
		r->count[a]++;                                          \
		r->arg = arg;                                           \
	}
ACT(act_follow, SMACT_FOLLOW)
ACT(act_step_down, SMACT_STEP_DOWN)
ACT(act_takeover, SMACT_TAKEOVER)
ACT(act_accept, SMACT_ACCEPT_HANDOVER)
ACT(act_sweep, SMACT_SWEEP)
ACT(act_stop, SMACT_STOP)

static smfsm_action_fn *const actions[SMACT_NUM] = {
	[SMACT_FOLLOW] = act_follow,
	[SMACT_STEP_DOWN] = act_step_down,
	[SMACT_TAKEOVER] = act_takeover,
	[SMACT_ACCEPT_HANDOVER] = act_accept,
	[SMACT_SWEEP] = act_sweep,
	[SMACT_STOP] = act_stop,
};

/* Every state x event: the next state, and exactly the expected action
 * ran (once, with the argument given), or nothing for an ignored pair. */
static void test_every_cell(void **state)
{
	static const int token = 1;

	(void)state;
	for (uint8_t st = 0; st < 4; st++)
		for (int ev = 0; ev < SMEV_NUM; ev++) {
			const struct cell *c = &expect[st][ev];
			const struct smfsm_row *row = (void *)&token;
			struct ran r = { { 0 }, NULL };
			uint8_t next = smfsm_apply(st, (enum smfsm_event)ev, actions,
						   &r, &token, &row);

			if (c->next == IGN) {
				assert_null(row);
				assert_null(smfsm_find(st, (enum smfsm_event)ev));
				assert_int_equal(next, st);
				for (int a = 0; a < SMACT_NUM; a++)
					assert_int_equal(r.count[a], 0);
				continue;
			}
			assert_non_null(row);
			assert_ptr_equal(row, smfsm_find(st, (enum smfsm_event)ev));
			assert_int_equal(next, c->next);
			assert_int_equal(row->next, c->next);
			assert_int_equal(row->action, c->action);
			for (int a = 0; a < SMACT_NUM; a++)
				assert_int_equal(r.count[a],
						 a == c->action && a != SMACT_NONE);
			if (c->action != SMACT_NONE)
				assert_ptr_equal(r.arg, &token);
		}
}

/* The controls' rows are sminfo_control.h's legality table: a control
 * applies here exactly where smctl_judge may obey it. */
static void test_controls_match_legality(void **state)
{
	static const enum smfsm_event ev_of[] = {
		[SMINFO_HANDOVER] = SMEV_HANDOVER,
		[SMINFO_ACKNOWLEDGE] = SMEV_ACKNOWLEDGE,
		[SMINFO_DISABLE] = SMEV_DISABLE,
		[SMINFO_STANDBY] = SMEV_STANDBY,
		[SMINFO_DISCOVER] = SMEV_DISCOVER,
	};

	(void)state;
	for (uint8_t st = 0; st < 4; st++)
		for (unsigned c = SMINFO_HANDOVER; c <= SMINFO_DISCOVER; c++) {
			struct smctl_self self = { .state = st, .guid = 0x10,
						   .handover_guid = 0x20 };
			struct smctl_req req = {
				.control = c, .guid = 0x20, .known_sm = 1,
				.state = c == SMINFO_ACKNOWLEDGE ? SMP_SM_STANDBY :
								   SMP_SM_MASTER,
			};
			int legal = smctl_judge(&self, &req) == SMCTL_OBEY;

			assert_int_equal(legal, smfsm_find(st, ev_of[c]) != NULL);
		}
}

/* No action table (or a NULL entry) runs nothing; a state out of range
 * and an unknown event are ignored. */
static void test_edges(void **state)
{
	const struct smfsm_row *row;

	(void)state;
	assert_int_equal(smfsm_apply(S, SMEV_DISABLE, NULL, NULL, NULL, &row), N);
	assert_non_null(row);
	assert_int_equal(smfsm_apply(7, SMEV_START, actions, NULL, NULL, &row), 7);
	assert_null(row);
	assert_int_equal(smfsm_apply(M, SMEV_NUM, actions, NULL, NULL, NULL), M);
	assert_string_equal(smfsm_event_str(SMEV_NUM), "?");
	assert_string_equal(smfsm_action_str(SMACT_NUM), "?");
	assert_string_equal(smfsm_event_str(SMEV_MASTER_SILENT), "MASTER_SILENT");
}

/* Sequences the integration tests walk (71 takeover, 72 handover, 93
 * DISABLE), event by event. */
static void test_sequences(void **state)
{
	static const struct {
		enum smfsm_event ev;
		uint8_t after;
	} takeover[] = {
		{ SMEV_START, D }, { SMEV_ELECTION_LOST, S },
		{ SMEV_SWEPT, S },      /* a sweep that ended STANDBY stays so */
		{ SMEV_MASTER_SILENT, D }, { SMEV_SWEPT, M },
	}, handover[] = {
		{ SMEV_START, D }, { SMEV_SWEPT, M },
		{ SMEV_ACKNOWLEDGE, S }, { SMEV_HANDOVER, D }, { SMEV_SWEPT, M },
	}, disable[] = {
		{ SMEV_START, D }, { SMEV_ELECTION_LOST, S }, { SMEV_DISABLE, N },
		{ SMEV_MASTER_SILENT, N }, { SMEV_SWEPT, N },
		{ SMEV_STANDBY, S }, { SMEV_MASTER_STALLED, D },
	};
	uint8_t st;

	(void)state;
	st = N;
	for (size_t i = 0; i < sizeof(takeover) / sizeof(takeover[0]); i++) {
		st = smfsm_apply(st, takeover[i].ev, NULL, NULL, NULL, NULL);
		assert_int_equal(st, takeover[i].after);
	}
	st = N;
	for (size_t i = 0; i < sizeof(handover) / sizeof(handover[0]); i++) {
		st = smfsm_apply(st, handover[i].ev, NULL, NULL, NULL, NULL);
		assert_int_equal(st, handover[i].after);
	}
	st = N;
	for (size_t i = 0; i < sizeof(disable) / sizeof(disable[0]); i++) {
		st = smfsm_apply(st, disable[i].ev, NULL, NULL, NULL, NULL);
		assert_int_equal(st, disable[i].after);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_cell),
		cmocka_unit_test(test_controls_match_legality),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_sequences),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
