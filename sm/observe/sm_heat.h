/* The daemon's fabric drawing as a link-load heat map (dump fabric.dot):
 * measured transmit rates when the PerfMgr has seen traffic, else the
 * all-to-all route load of the tables as programmed; links held out of
 * routing (noisy, flapping, ibsmctl avoid) drawn dashed, "avoided". */
#ifndef IBSM_SM_SM_HEAT_H
#define IBSM_SM_SM_HEAT_H

struct sm;

/* Write the drawing to path. 0 or a negative errno (logged). */
int sm_write_heat_dot(struct sm *sm, const char *path);

#endif
