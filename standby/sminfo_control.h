/* Which SubnSet(SMInfo) control an SM obeys (IBA 14.4.1, the SM state
 * machine, and 14.2.5.13, SMInfo; issue 26: one SMP from an ordinary host
 * stopped the master for good). Pure logic: sm/sm_standby.c acts on the
 * verdict.
 *
 * A control is judged in this order; the first rule that fails refuses it:
 *   AttributeModifier not 1..5                          -> REFUSE_UNKNOWN
 *   SMInfo.SM_Key not ours (when we have one)           -> REFUSE_KEY
 *   SMInfo.GUID is ours                                 -> REFUSE_SELF
 *   requester is not an SM port our last heavy sweep
 *     found (CapabilityMask.IsSM, its GUID = SMInfo.GUID;
 *     LID-routed: the source LID is that port's)        -> REFUSE_NOT_SM
 *   sender's SMInfo.SMState wrong for the control:
 *     ACKNOWLEDGE from a STANDBY, the rest from a MASTER -> REFUSE_SENDER_STATE
 *   the control in our state, the table below            -> REFUSE_OUR_STATE
 *   ACKNOWLEDGE from an SM we sent no HANDOVER to       -> REFUSE_NO_HANDOVER
 *   otherwise                                            -> OBEY
 *
 *   our state \ control  HANDOVER  ACKNOWLEDGE  DISABLE  STANDBY  DISCOVER
 *   NOTACTIVE               -          -           -       obey       -
 *   DISCOVERING            obey        -           -        -         -
 *   STANDBY                obey        -          obey      -        obey
 *   MASTER                 obey(1)    obey(2)      -        -         -
 *
 * The transitions are those of the SM state diagram of 14.4.1: STANDBY
 * goes NOTACTIVE on DISABLE, DISCOVERING on DISCOVER, MASTER on HANDOVER
 * (answering ACKNOWLEDGE); NOTACTIVE goes STANDBY on STANDBY; a MASTER
 * leaves only by handing over (ACKNOWLEDGE of its own HANDOVER) or to a
 * better master its sweep finds. Nothing makes a MASTER NOTACTIVE or
 * STANDBY by order: OpenSM 3.3.23 refuses the same ones (its legality
 * check, "ERR 3207"). (1) a HANDOVER to a MASTER changes nothing (two
 * masters: the sender steps down), as OpenSM accepts it. (2) only from
 * the SM our HANDOVER went to.
 *
 * A refused control is answered with status 0x001C (IBA 13.4.7, code 7:
 * an invalid value in the attribute or modifier) and our SMInfo with
 * SM_Key 0. OpenSM 3.3.23 answers 0x0700 (measured under ibsim: code 7
 * written in the wrong byte order) with its SM_Key in the SMInfo.
 *
 * SM_Key in answers (14.2.5.13): shown only to a trusted requester, anyone
 * else reads 0. With an m_key configured, trusted is an SMP that carries
 * it (as OpenSM judges; hosts do not know the M_Key). Without one, every
 * host passes that test (M_Key 0), so trusted is a requester whose SMInfo
 * carries our SM_Key (ibsm sends it in its Gets), or an SM port our sweep
 * found (OpenSM sends an empty SMInfo, and ignores an SM that answers it
 * SM_Key 0: it would not go STANDBY under us). */
#ifndef IBSM_STANDBY_SMINFO_CONTROL_H
#define IBSM_STANDBY_SMINFO_CONTROL_H

#include <stdint.h>

enum sminfo_control {
	SMINFO_HANDOVER = 1,
	SMINFO_ACKNOWLEDGE = 2,
	SMINFO_DISABLE = 3,
	SMINFO_STANDBY = 4,
	SMINFO_DISCOVER = 5,
};

enum smctl_verdict {
	SMCTL_OBEY = 0,
	SMCTL_REFUSE_UNKNOWN,
	SMCTL_REFUSE_KEY,
	SMCTL_REFUSE_SELF,
	SMCTL_REFUSE_NOT_SM,
	SMCTL_REFUSE_SENDER_STATE,
	SMCTL_REFUSE_OUR_STATE,
	SMCTL_REFUSE_NO_HANDOVER,
	SMCTL_NUM_VERDICTS
};

/* Us, as the control finds us. */
struct smctl_self {
	uint8_t state;              /* enum smp_sm_state */
	uint64_t guid;
	uint64_t sm_key;            /* 0: SM_Key not checked */
	uint64_t handover_guid;     /* the SM our last HANDOVER went to, 0 */
};

/* The control and what its SMInfo claims. */
struct smctl_req {
	unsigned control;           /* AttributeModifier */
	uint64_t guid;              /* SMInfo.GUID */
	uint64_t sm_key;            /* SMInfo.SM_Key */
	uint8_t state;              /* SMInfo.SMState */
	int known_sm;               /* requester is an SM port our sweep found */
};

enum smctl_verdict smctl_judge(const struct smctl_self *self,
			       const struct smctl_req *req);
/* Short reason for the log ("wrong SM_Key"), "" for OBEY. */
const char *smctl_verdict_str(enum smctl_verdict v);
/* Metric label ("key", "our_state"...). */
const char *smctl_verdict_label(enum smctl_verdict v);
/* "NOTACTIVE" ... "MASTER", "?" */
const char *smctl_state_str(uint8_t state);
/* "HANDOVER" ... "DISCOVER", "?" */
const char *smctl_control_str(unsigned control);
/* The SM_Key to put in an answer to a requester whose SMInfo carried
 * req_sm_key and whose SMP carried req_mkey; from_sm_port: it is an SM
 * port our sweep found. */
uint64_t smctl_answer_key(uint64_t our_sm_key, uint64_t our_mkey,
			  uint64_t req_sm_key, uint64_t req_mkey,
			  int from_sm_port);

#endif
