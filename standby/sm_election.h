/* SM election (IBA 14.4.1): which SM of a subnet is master, from the
 * SMInfo of every SM the sweep found. Pure logic: sm/sm_standby.c asks the
 * ports and acts on the answer.
 *
 * The better SM has the higher priority; on equal priority, the lower port
 * GUID (IBA 14.4.1.1). An SM that is not master and finds a MASTER follows
 * it as STANDBY, whatever the priorities (a discovering SM never takes a
 * running fabric from a master; the master may hand over). With no master,
 * an SM follows a better DISCOVERING or STANDBY one, which will become
 * master. A master steps down only to a better MASTER (two masters: the
 * worse one yields), so at most one keeps programming. NOTACTIVE SMs take
 * no part. */
#ifndef IBSM_STANDBY_SM_ELECTION_H
#define IBSM_STANDBY_SM_ELECTION_H

#include <stdint.h>

struct sm_peer {
	uint64_t guid;              /* SMInfo.GUID (its port GUID) */
	uint16_t lid;               /* its port's LID, where to poll it */
	uint8_t priority;           /* 0..15 */
	uint8_t state;              /* enum smp_sm_state */
	uint32_t act_count;
	uint32_t port;              /* port index in the sweep that found it */
	uint64_t sm_key;            /* SMInfo.SM_Key it answered (0: hidden) */
};

/* 1 when SM a (priority pa, GUID ga) beats SM b. */
int sm_better(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb);

/* The best non-master peer that beats a master's (priority, GUID): the
 * SM to hand the subnet over to (SMInfo Set HANDOVER, IBA 14.4.1.2), or
 * -1. Only asked when handover by priority is on (honor_priority). */
int sm_handover_to(const struct sm_peer *peers, uint32_t n,
		   uint8_t our_priority, uint64_t our_guid);

/* The peer to follow as STANDBY, or -1 when we are (or stay) master.
 * we_are_master: we hold the fabric now. */
int sm_elect(const struct sm_peer *peers, uint32_t n, uint8_t our_priority,
	     uint64_t our_guid, int we_are_master);

#endif
