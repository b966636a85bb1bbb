/* SMInfo controls by the spec (standby/sminfo_control.h). */
#include "sminfo_control.h"

#include "../mad/smp.h"

/* legal[our state][control - 1], IBA 14.4.1's state diagram. */
static const uint8_t legal[4][5] = {
	/*                HANDOVER ACK DISABLE STANDBY DISCOVER */
	[SMP_SM_NOTACTIVE]   = { 0, 0, 0, 1, 0 },
	[SMP_SM_DISCOVERING] = { 1, 0, 0, 0, 0 },
	[SMP_SM_STANDBY]     = { 1, 0, 1, 0, 1 },
	[SMP_SM_MASTER]      = { 1, 1, 0, 0, 0 },
};

enum smctl_verdict smctl_judge(const struct smctl_self *self,
			       const struct smctl_req *req)
{
	uint8_t want;

	if (req->control < SMINFO_HANDOVER || req->control > SMINFO_DISCOVER)
		return SMCTL_REFUSE_UNKNOWN;
	/* 14.4.1: an SM whose SM_Key differs is not of our subnet. */
	if (self->sm_key && req->sm_key != self->sm_key)
		return SMCTL_REFUSE_KEY;
	if (req->guid == self->guid)
		return SMCTL_REFUSE_SELF;
	/* Controls pass between SMs: a host that does not say IsSM, or
	 * says another port's GUID, is none of them. */
	if (!req->known_sm)
		return SMCTL_REFUSE_NOT_SM;
	want = req->control == SMINFO_ACKNOWLEDGE ? SMP_SM_STANDBY : SMP_SM_MASTER;
	if (req->state != want)
		return SMCTL_REFUSE_SENDER_STATE;
	if (self->state > SMP_SM_MASTER || !legal[self->state][req->control - 1])
		return SMCTL_REFUSE_OUR_STATE;
	if (req->control == SMINFO_ACKNOWLEDGE &&
	    (!self->handover_guid || self->handover_guid != req->guid))
		return SMCTL_REFUSE_NO_HANDOVER;
	return SMCTL_OBEY;
}

const char *smctl_verdict_str(enum smctl_verdict v)
{
	static const char *const s[SMCTL_NUM_VERDICTS] = {
		[SMCTL_OBEY] = "",
		[SMCTL_REFUSE_UNKNOWN] = "unknown control",
		[SMCTL_REFUSE_KEY] = "wrong SM_Key",
		[SMCTL_REFUSE_SELF] = "our own GUID",
		[SMCTL_REFUSE_NOT_SM] = "requester is not an SM port (no IsSM, or not the GUID it claims)",
		[SMCTL_REFUSE_SENDER_STATE] = "sender is not in the state the control needs",
		[SMCTL_REFUSE_OUR_STATE] = "not legal in our state",
		[SMCTL_REFUSE_NO_HANDOVER] = "we sent no HANDOVER to it",
	};

	return v < SMCTL_NUM_VERDICTS ? s[v] : "?";
}

const char *smctl_verdict_label(enum smctl_verdict v)
{
	static const char *const s[SMCTL_NUM_VERDICTS] = {
		[SMCTL_OBEY] = "obeyed",
		[SMCTL_REFUSE_UNKNOWN] = "unknown",
		[SMCTL_REFUSE_KEY] = "sm_key",
		[SMCTL_REFUSE_SELF] = "self",
		[SMCTL_REFUSE_NOT_SM] = "not_sm",
		[SMCTL_REFUSE_SENDER_STATE] = "sender_state",
		[SMCTL_REFUSE_OUR_STATE] = "our_state",
		[SMCTL_REFUSE_NO_HANDOVER] = "no_handover",
	};

	return v < SMCTL_NUM_VERDICTS ? s[v] : "?";
}

const char *smctl_state_str(uint8_t state)
{
	static const char *const s[] = { "NOTACTIVE", "DISCOVERING", "STANDBY",
					 "MASTER" };

	return state <= SMP_SM_MASTER ? s[state] : "?";
}

const char *smctl_control_str(unsigned control)
{
	static const char *const s[] = { "?", "HANDOVER", "ACKNOWLEDGE",
					 "DISABLE", "STANDBY", "DISCOVER" };

	return control <= SMINFO_DISCOVER ? s[control] : "?";
}

uint64_t smctl_answer_key(uint64_t our_sm_key, uint64_t our_mkey,
			  uint64_t req_sm_key, uint64_t req_mkey,
			  int from_sm_port)
{
	if (our_mkey)
		return req_mkey == our_mkey ? our_sm_key : 0;
	return req_sm_key == our_sm_key || from_sm_port ? our_sm_key : 0;
}
