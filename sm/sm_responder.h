/* The SM's answers to unsolicited MADs (installed by sm_init on the
 * transport): SubnGet(SMInfo) answered in every state, SM_Key only to a
 * trusted requester; SubnSet(SMInfo) controls judged
 * (standby/sminfo_control.h), the legal ones applied as events of the
 * state machine (standby/sm_fsm.h, through sm/sm_standby.h); traps
 * acknowledged with TrapRepress, those that may change the topology ask
 * for a heavy sweep. Requests are dispatched by management class through
 * the services table (sm/sm_service.h): SA requests go to the SA. */
#ifndef IBSM_SM_SM_RESPONDER_H
#define IBSM_SM_SM_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

/* mt_set_request_handler's handler; ctx is the struct sm. */
void sm_on_request(void *ctx, uint8_t *mad, uint16_t slid, uint32_t sqp);
/* The "smp" service's handler (SMInfo Get/Set, traps). */
struct sm;
void sm_smp_request(struct sm *sm, uint8_t *mad, uint16_t slid, uint32_t sqp);
/* mt_set_long_request_handler's: a multi-MAD request the kernel
 * reassembled (a real port); only the SA takes those. */
void sm_on_long_request(void *ctx, uint8_t *msg, size_t len, uint16_t slid,
			uint32_t sqp);

#endif
