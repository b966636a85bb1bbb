/* standby/sminfo_control.c: which SMInfo controls are obeyed (IBA 14.4.1). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mad/smp.h"
#include "standby/sminfo_control.h"

#define KEY 0x1234

static enum smctl_verdict judge(uint8_t our_state, unsigned control,
				uint8_t sender_state, uint64_t key, int known)
{
	struct smctl_self self = { .state = our_state, .guid = 0x10,
				   .sm_key = KEY, .handover_guid = 0x20 };
	struct smctl_req req = { .control = control, .guid = 0x20,
				 .sm_key = key, .state = sender_state,
				 .known_sm = known };

	return smctl_judge(&self, &req);
}

/* The table of the header, cell by cell, from a known SM with our key. */
static void test_table(void **state)
{
	static const uint8_t legal[4][5] = {
		{ 0, 0, 0, 1, 0 },      /* NOTACTIVE: STANDBY */
		{ 1, 0, 0, 0, 0 },      /* DISCOVERING: HANDOVER */
		{ 1, 0, 1, 0, 1 },      /* STANDBY: HANDOVER, DISABLE, DISCOVER */
		{ 1, 1, 0, 0, 0 },      /* MASTER: HANDOVER, ACKNOWLEDGE */
	};

	(void)state;
	for (uint8_t st = 0; st < 4; st++)
		for (unsigned c = SMINFO_HANDOVER; c <= SMINFO_DISCOVER; c++) {
			uint8_t sender = c == SMINFO_ACKNOWLEDGE ? SMP_SM_STANDBY : SMP_SM_MASTER;

			assert_int_equal(judge(st, c, sender, KEY, 1),
					 legal[st][c - 1] ? SMCTL_OBEY : SMCTL_REFUSE_OUR_STATE);
		}
}

/* Issue 26: DISABLE and STANDBY to a MASTER, whatever the sender. */
static void test_master_not_stopped(void **state)
{
	(void)state;
	assert_int_equal(judge(SMP_SM_MASTER, SMINFO_DISABLE, SMP_SM_MASTER, KEY, 1),
			 SMCTL_REFUSE_OUR_STATE);
	assert_int_equal(judge(SMP_SM_MASTER, SMINFO_STANDBY, SMP_SM_MASTER, KEY, 1),
			 SMCTL_REFUSE_OUR_STATE);
	/* a host without IsSM is refused before the state is looked at */
	assert_int_equal(judge(SMP_SM_MASTER, SMINFO_DISABLE, SMP_SM_MASTER, KEY, 0),
			 SMCTL_REFUSE_NOT_SM);
	assert_int_equal(judge(SMP_SM_STANDBY, SMINFO_DISABLE, SMP_SM_MASTER, KEY, 0),
			 SMCTL_REFUSE_NOT_SM);
}

static void test_order(void **state)
{
	struct smctl_self self = { .state = SMP_SM_STANDBY, .guid = 0x10, .sm_key = KEY };
	struct smctl_req req = { .control = SMINFO_DISABLE, .guid = 0x20,
				 .sm_key = KEY, .state = SMP_SM_MASTER, .known_sm = 1 };

	(void)state;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_OBEY);
	req.control = 0;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_UNKNOWN);
	req.control = 6;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_UNKNOWN);
	req.control = SMINFO_DISABLE;
	req.sm_key = 1;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_KEY);
	self.sm_key = 0;            /* no SM_Key: not checked */
	assert_int_equal(smctl_judge(&self, &req), SMCTL_OBEY);
	req.guid = 0x10;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_SELF);
	req.guid = 0x20;
	req.state = SMP_SM_STANDBY;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_SENDER_STATE);
	/* ACKNOWLEDGE: from a STANDBY, and only from the SM we handed to */
	self.state = SMP_SM_MASTER;
	req.control = SMINFO_ACKNOWLEDGE;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_NO_HANDOVER);
	self.handover_guid = 0x30;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_NO_HANDOVER);
	self.handover_guid = 0x20;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_OBEY);
	req.state = SMP_SM_MASTER;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_SENDER_STATE);
	self.state = 7;             /* not a state */
	req.control = SMINFO_HANDOVER;
	assert_int_equal(smctl_judge(&self, &req), SMCTL_REFUSE_OUR_STATE);
	for (int v = 0; v < SMCTL_NUM_VERDICTS; v++)
		assert_non_null(smctl_verdict_label((enum smctl_verdict)v));
}

/* 14.2.5.13: the SM_Key only to a requester that shows it (and our M_Key). */
static void test_answer_key(void **state)
{
	(void)state;
	assert_int_equal(smctl_answer_key(1, 0, 0, 0, 0), 0);   /* smpdump -L */
	assert_int_equal(smctl_answer_key(1, 0, 1, 0, 0), 1);   /* shows it */
	assert_int_equal(smctl_answer_key(1, 0, 0, 0, 1), 1);   /* an SM port */
	assert_int_equal(smctl_answer_key(KEY, 0, 1, 0, 0), 0);
	/* with an M_Key, the M_Key decides */
	assert_int_equal(smctl_answer_key(KEY, 0xab, KEY, 0, 1), 0);
	assert_int_equal(smctl_answer_key(KEY, 0xab, 0, 0xab, 0), KEY);
	assert_int_equal(smctl_answer_key(0, 0, 0, 0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_master_not_stopped),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_answer_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
