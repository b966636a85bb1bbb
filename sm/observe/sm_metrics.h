/* The SM's state as Prometheus text (exposition format 0.0.4), published
 * to the /metrics server (metrics_http.h) from the SM's own thread:
 * inventory, ports by state, sweeps, MADs, SA queries, the routing engine,
 * PerfMgr cycles, per-port counters and error rates, avoided links. */
#ifndef IBSM_SM_SM_METRICS_H
#define IBSM_SM_SM_METRICS_H

struct sm;

/* Start the server when metrics_listen is set. 0, or -1 (logged). */
int sm_metrics_start(struct sm *sm);
void sm_metrics_stop(struct sm *sm);
/* From the idle loop: re-render after a sweep or a PerfMgr cycle, and at
 * least every few seconds. */
void sm_metrics_tick(struct sm *sm, double now);
/* When the page is next rebuilt: now if what it shows changed, else
 * every 5 s (SM_NEVER without a metrics port). */
double sm_metrics_next_deadline(const struct sm *sm, double now);

#endif
