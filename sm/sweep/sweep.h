/* The heavy sweep as a table of phases over one sweep context.
 *
 *   phase      file        what it does                          may end the sweep
 *   discover   heavy.c     SMPs to every node, P_Key tables read  error
 *                          in its window (program/pkey_prefetch)
 *   guard      gate.c      may this view be programmed?           HOLD: rc 1, again
 *                          (health/sweep_guard), MAD retries       after a backoff
 *                          from the loss seen, silent nodes
 *                          (health/unreachable)
 *   standby    gate.c      other SMs (IBA 14.4): follow a master  STANDBY: rc 3
 *                          or a better SM; an SMInfo control
 *                          obeyed during the sweep
 *   lids       heavy.c     program/lid_manager, guid2lid saved    error
 *   route      route.c     held-out links cut from a copy; keep   error (no engine:
 *                          the switches' tables at a takeover,     routed = 0, go on)
 *                          or route in a worker while serving
 *   portinfo   program.c   PortInfo config + ARMED, rereg,        error
 *                          VLHighLimit with qos on
 *   sa-tables  program.c   the SA's SL2VL/VLArb caches follow
 *                          the view (before anything is written)
 *   pkeys      program.c   partitions: P_Key tables (IBA 10.9)    error
 *   vls        program.c   SL2VL/VLArb for layered routes (with   error (failed
 *                          QoS, the classes x layers map)          MADs: routed = 0)
 *   qos        program.c   SL2VL/VLArb from the qos_* keys        error (failed
 *                          (qos on, no layered routes)             MADs: again soon)
 *   lfts       program.c   LFT blocks that differ, SwitchInfo;    error
 *                          the path SLs become the tables'
 *   activate   program.c   ports to ACTIVE, disable action        error
 *   verdict    heavy.c     up (rc 0) or not (rc 1); duplicate
 *                          GUIDs named
 *   hold       heavy.c     the tables programmed are held         error
 *                          (program/lft_program), guard told
 *   commit     heavy.c     the view becomes sm->cur, MASTER
 *   services   heavy.c     each service's on_subnet (sm_service.h):
 *                          the SA database from the new view, the
 *                          sweep's Reports, MFTs, PerfMgr's ports
 *
 * sweep_run applies the table: each phase returns SWEEP_NEXT, SWEEP_END
 * (c->rc set: the sweep ends here, not failed), or a negative errno (the
 * sweep failed). Routing that gave no tables (routed == 0) does not end
 * the sweep: PortInfo and P_Keys are still set, the phases that need
 * tables do nothing but log their counts, and the verdict is NOT up.
 * Each phase's time is logged at debug level; the info lines (discovered,
 * LIDs, route, program, activate, heavy sweep) time the same spans as
 * before the table (c->mark: the end of the last timed line).
 *
 * What the sweep works on is in the context; what it leaves in struct sm
 * for the next sweep and the services, by phase:
 *   (start)    sweeps, act_count, heavy_wanted, sweep_mads0, rereg_*
 *   discover   pkeys (the tables read in its window)
 *   guard      guard, retries, heavy_wanted/next_heavy_at, unreach
 *   standby    standby, state (through sm_standby_enter)
 *   lids       lid, persist_* (guid2lid)
 *   route      route_vls, memo_next, sl_next, spare, route_refused,
 *              engine_used, route_preferred/reason/grade/fallbacks,
 *              qos_space_next, qos_said
 *   portinfo   rereg_*, mkey_not_kept, vl_high_limit_not_kept, down, wake
 *   sa-tables  sa.ctx.sl2vl, sa.ctx.vlarb
 *   pkeys      pkeys
 *   vls, qos   heavy_wanted/next_heavy_at when a MAD failed
 *   lfts       held (switches written), sl, qos_space, sa.ctx.path_sl,
 *              sa.ctx.sl_space
 *   verdict    dup_guids
 *   hold       held, memo_next, spare, guard
 *   commit     cur, parts, flap, fabric_up, state
 *   services   sa.ctx (db, identity, quotas, services), report,
 *              mcast, perf
 *   (end)      last_heavy_end, last_heavy_s, heavy_s_total */
#ifndef IBSM_SM_SWEEP_SWEEP_H
#define IBSM_SM_SWEEP_SWEEP_H

#include <stdint.h>
#include "../sm_state.h"
#include "../program/port_config.h"

enum { SWEEP_NEXT = 0, SWEEP_END = 1 };

struct sweep_ctx {
	struct sm *sm;
	const struct ibsm_config *cfg;  /* sm->cfg */
	struct mad_transport *t;        /* sm->t */
	uint32_t n;                     /* sweep number, for the log */
	double t0;                      /* start */
	double mark;                    /* end of the last timed log line */
	struct mt_stats s0;             /* transport counters at start */
	struct subnet nr;               /* the view this sweep discovered */
	struct part_tables npt;         /* its P_Key tables */
	/* Engines route on a copy without the held-out links; the tables
	 * are held with that copy, so the next route's previous fabric is
	 * the one they were computed on (a link given back is then a link
	 * gained, which ftree's repair must not take for no change). */
	struct fabric heldout;
	int have_heldout;
	const struct fabric *rf;        /* the fabric routed: nr's or heldout */
	struct lft_set nl;              /* the tables to program */
	int routed;                     /* 1: nl is to be programmed */
	struct portcfg_opts po;
	uint8_t vl_high_limit[QOS_PT_NUM];      /* po's, with qos on */
	struct portcfg_stats ps;
	struct lftprog_stats ls;
	uint8_t *sw_ok;                 /* switches whose LFTs were written */
	int up;                         /* the fabric is fully up */
	int rc;                         /* what sm_heavy_sweep returns */
};

struct sweep_phase {
	const char *name;
	int (*run)(struct sweep_ctx *c);
};

/* Run phases[0..n) in order until one ends the sweep; c->rc is then the
 * sweep's result (0 up, 1 not up, SM_SWEEP_STANDBY, negative errno). */
void sweep_run(struct sweep_ctx *c, const struct sweep_phase *phases, unsigned n);
/* The heavy sweep's table (heavy.c), *n phases: for tests and listings. */
const struct sweep_phase *sweep_heavy_phases(unsigned *n);

/* gate.c */
int sweep_phase_guard(struct sweep_ctx *c);
int sweep_phase_standby(struct sweep_ctx *c);
/* route.c */
int sweep_phase_route(struct sweep_ctx *c);
/* program.c */
int sweep_phase_portinfo(struct sweep_ctx *c);
int sweep_phase_sa_tables(struct sweep_ctx *c);
int sweep_phase_pkeys(struct sweep_ctx *c);
int sweep_phase_vls(struct sweep_ctx *c);
int sweep_phase_qos(struct sweep_ctx *c);
int sweep_phase_lfts(struct sweep_ctx *c);
int sweep_phase_activate(struct sweep_ctx *c);

#endif
