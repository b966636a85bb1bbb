/* The PerfMgr: polls the performance counters of every linked port with
 * PerfMgt GMPs (IBA 16.1), LID-routed: ClassPortInfo once per node, then
 * every perf interval PortCounters (cleared with a Set when a narrow
 * counter passes half its range) and PortCountersExtended, a window of
 * ports in flight. Each port keeps its last reading, totals, rates per
 * second and a short history; a callback sees every new sample (the
 * noisy-link policy).
 *
 * It shares the SM's one event loop and MAD transport without stalling
 * it: only perfmgr_tick(), called from the SM's idle loop, starts new
 * ports; completions (which run inside any mt_poll, a sweep's too) only
 * finish the port they belong to. A sweep therefore waits for at most one
 * window of PerfMgt MADs, and SA answers never wait for a poll cycle. */
#ifndef IBSM_PERFMGR_PERFMGR_H
#define IBSM_PERFMGR_PERFMGR_H

#include <stdint.h>
#include "../core/fabric.h"
#include "../mad/mad_transport.h"
#include "pm_counters.h"

struct pm_opts {
	unsigned interval_s;        /* 0 = off */
	unsigned window;            /* ports in flight */
	unsigned history;           /* samples kept per port */
};

struct pm_hist {
	double at;                  /* monotonic seconds */
	float rate[PM_NUM_COUNTERS];
};

struct pm_port {
	/* identity */
	uint64_t node_guid, peer_guid;
	uint8_t port, peer_port;
	uint8_t is_switch, peer_is_switch;
	uint16_t lid;               /* where its PMA answers */
	uint32_t node;              /* index into perfmgr.nodes */
	char desc[FAB_DESC_LEN + 1];
	char peer_desc[FAB_DESC_LEN + 1];
	/* readings */
	struct pm_values last;      /* after our clears (cleared = 0) */
	double last_at;
	int have_last;
	uint64_t total[PM_NUM_COUNTERS];    /* deltas summed since first seen */
	double rate[PM_NUM_COUNTERS];       /* per second, last interval */
	uint64_t delta[PM_NUM_COUNTERS];    /* last interval */
	struct pm_hist *hist;
	unsigned hist_len, hist_next;
	uint32_t resets, clears, failures;
	/* noisy-link policy state (perfmgr/noisy.h) */
	uint8_t flagged;            /* 0, or the action taken */
	uint16_t hot_streak;        /* samples in a row with XmitWait hot */
	double flagged_at, quiet_since;
	/* this cycle */
	struct pm_values cur;
	double cur_at;
	unsigned cleared;
};

struct pm_node {
	uint64_t guid;
	uint16_t lid;
	uint16_t cap;               /* ClassPortInfo.CapabilityMask */
	uint8_t cpi;                /* 0 not asked, 1 asked, 2 known, 3 failed */
	uint8_t no_ext;             /* PortCountersExtended refused */
};

struct pm_stats {
	uint64_t cycles;
	double last_cycle_s;
	uint32_t last_ports_ok, last_ports_failed;
	uint64_t mads, mads_failed, resets, clears, samples;
};

struct perfmgr;
typedef void (*pm_sample_fn)(void *ctx, struct perfmgr *pm, struct pm_port *p);

struct perfmgr {
	struct mad_transport *t;
	struct pm_opts o;
	struct pm_node *nodes;
	struct pm_port *ports;
	uint32_t num_nodes, num_ports;
	uint32_t gen;               /* bumped by perfmgr_set_fabric */
	/* the cycle */
	int running;
	uint32_t next_item;         /* nodes (ClassPortInfo), then ports */
	unsigned in_flight;
	double cycle_start, next_cycle_at;
	uint32_t cyc_ok, cyc_failed, cyc_mads;
	struct pm_stats st;
	pm_sample_fn on_sample;
	void *cb_ctx;
};

void perfmgr_init(struct perfmgr *pm, struct mad_transport *t,
		  const struct pm_opts *o);
void perfmgr_free(struct perfmgr *pm);
/* The fabric as programmed: which ports to poll (linked ports of nodes
 * with a LID). Readings, history and policy state of ports that stay are
 * kept (matched by node GUID and port number); a running cycle is
 * abandoned. Returns 0 or -ENOMEM. */
int perfmgr_set_fabric(struct perfmgr *pm, const struct fabric *f);
/* Start a cycle when due, keep the window full. Never blocks. */
void perfmgr_tick(struct perfmgr *pm, double now);
/* When perfmgr_tick next has work (HUGE_VAL: none). */
double perfmgr_next_deadline(const struct perfmgr *pm, double now);
/* Port by node GUID and number, NULL if not polled. */
struct pm_port *perfmgr_find(struct perfmgr *pm, uint64_t guid, uint8_t port);
/* Every port's counters as text (the dump's perf-counters.txt). 0 or -1. */
int perfmgr_write(const struct perfmgr *pm, const char *path);

#endif
