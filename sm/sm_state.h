/* The SM proper: sweeps and the loop over the MAD transport. Its state
 * (NOTACTIVE, DISCOVERING, STANDBY, MASTER; IBA 14.4.1) changes only by
 * sm_set_state, by the table drawn in standby/sm_fsm.h: DISCOVERING goes
 * MASTER when a heavy sweep has programmed the fabric, STANDBY when its
 * election finds an SM to follow (sm_standby.h).
 *
 * A heavy sweep is: discover, LIDs, route (+ verify), program PortInfo
 * (config + ARMED), program LFTs (only differing blocks), activate; its
 * table of phases is drawn in sm/sweep/sweep.h.
 * A light sweep reads SwitchInfo of every known switch and looks at the
 * PortStateChange bit (IBA 14.2.5.4); a switch that no longer answers is a
 * change too; either asks for a heavy sweep (as traps 128 and SIGHUP do).
 * SubnGet(SMInfo) is answered in every state (sm_responder.h). */
#ifndef IBSM_SM_SM_STATE_H
#define IBSM_SM_SM_STATE_H

#include <signal.h>
#include <sys/types.h>
#include <stdint.h>
#include "config/config.h"
#include "../mad/mad_transport.h"
#include "program/lft_program.h"
#include "../core/subnet.h"
#include "../sa/sa_server.h"
#include "health/sweep_guard.h"
#include "sm_multicast.h"
#include "program/pkey_program.h"
#include "../partition/part_table.h"
#include "health/link_hold.h"
#include "sm_perf.h"
#include "health/sm_flap.h"
#include "health/trap_damp.h"
#include "sm_report.h"
#include "sm_standby.h"
#include "../routing/path_sl.h"
#include "../routing/route_select.h"
#include "program/sl2vl_read.h"
#include "health/unreachable.h"

struct sm_signals {
	volatile sig_atomic_t *stop;    /* SIGTERM / SIGINT */
	volatile sig_atomic_t *dump;    /* SIGUSR1 */
	volatile sig_atomic_t *resweep; /* SIGHUP */
	/* SIGHUP: re-read the configuration into the one sm->cfg points to
	 * (its live keys, config.h) and reopen the log; NULL: none. */
	int (*reload)(void *arg);
	void *reload_arg;
	/* Read end of a pipe the signal handlers write a byte to, so the
	 * loop's sleep ends whichever thread took the signal (libumad2sim
	 * and libmicrohttpd have their own); -1: none. */
	int wake_fd;
};

struct qos_policy;
#include "../qos/qos_sl_space.h"

struct sm {
	const struct ibsm_config *cfg;
	struct qos_policy *qos;         /* in force, or NULL (sm_qos.h) */
	struct mad_transport *t;
	uint8_t state;                  /* enum smp_sm_state: only sm_set_state assigns it */
	uint32_t act_count;             /* SMInfo.ActCount */
	/* ClientReregister sent to every end port since we became master
	 * (reset whenever we are not master; port_config.h) */
	int rereg_done;
	unsigned rereg_tries;           /* sweeps whose rereg Sets partly failed */
	int mkey_not_kept;              /* the SMAs drop M_Key (port_config.h) */
	int vl_high_limit_not_kept;     /* ... and VLHighLimit */
/* SMInfo.ActCount: SMPs we sent (retries included) plus sweeps, so a
 * master at work moves it by many per light sweep and a standby can tell
 * it from its answers to polls (IBA 14.4.1). */
#define SM_ACT_COUNT(sm) ((uint32_t)(mt_get_stats((sm)->t)->sent + (sm)->act_count))
	uint64_t guid;                  /* our port GUID */
	uint16_t lid;                   /* our LID once assigned */
	int heavy_wanted;               /* set by traps */
	struct sweep_guard guard;       /* may a sweep's view be programmed */
	struct unreach unreach;         /* silent nodes left out (unreachable.h) */
	double next_heavy_at;           /* after a hold or in a trap storm */
	double last_heavy_end;          /* when the last heavy sweep ended */
	/* Convergence: heavy sweeps that did not bring the fabric up (loss,
	 * a port that would not go ACTIVE) since it was last up. */
	double notup_delay;             /* pause before the next try, s */
	double notup_since;             /* 0 = the fabric is up */
	unsigned notup_sweeps;
	uint64_t notup_mads;            /* MADs sent when the streak began */
	uint64_t sweep_mads0;           /* MADs sent when this heavy sweep began */
	struct trap_damp damp;          /* flap damping (handle_trap) */
	double sa_yielded;          /* last mt_yield from a long SA answer */
	unsigned retries;               /* MAD retries now (raised under loss) */
	int route_refused;              /* last sweep: no engine / verification failed */
	uint32_t dup_guids;             /* last programmed sweep: duplicate GUIDs */
	uint32_t sweeps;
	unsigned sminfo_held;           /* SMInfo Gets waiting for PortInfo */
	/* the fabric as last routed */
	struct subnet cur;
	const char *engine_used;
	/* How the programmed tables were chosen (routing/route_select.h):
	 * the list's first engine, why it was passed over (enum route_pass),
	 * what the tables are (enum route_grade); and every engine passed
	 * over since start, by reason. */
	char route_preferred[32];
	uint8_t route_reason, route_grade;
	uint64_t route_fallbacks[ROUTE_PASS_N];
	struct lft_held held;           /* the tables programmed, their fabric */
	/* Memory for the next route's tables (the tables held before the
	 * last ones, or allocated once the fabric is up and faulted in by
	 * its sliced copy of the held tables, spare_prefault): a re-route
	 * then writes warm pages instead of faulting in fresh ones. */
	struct lft_set spare;
	/* The memo (routing/engine.h) of the tables being routed, held with
	 * them once programmed. */
	struct route_memo memo_next;
	int spare_failed;               /* no memory for it: stop trying */
	/* The spare's copy of the held tables, or its clean, under way in
	 * slices (spare_slice), for the log line when it completes. */
	double spare_work_s, spare_work_max_s, spare_work_t0;
	unsigned spare_work_slices;
	int fabric_up;                  /* last heavy sweep brought all up */
	/* routing inputs */
	uint64_t *root_guids, *cn_guids;
	uint32_t num_root_guids, num_cn_guids;
	char guid2lid[1024];
	char dump_dir[1024];
	/* the SA's client state file (sm_sa_state.h) */
	char sa_state_path[1100];
	uint32_t sa_state_gen[3];       /* generations last written */
	double sa_state_at;             /* last write, monotonic s */
	int sa_state_failed;            /* the last write failed */
	/* Persistence (guid2lid, SA state, dumps): what failed at its last
	 * write (SM_PERSIST_* bits), and failures since start. --once exits
	 * 4 when the fabric is up but something is lost; /metrics shows it. */
#define SM_PERSIST_GUID2LID 1u
#define SM_PERSIST_SA_STATE 2u
#define SM_PERSIST_DUMPS 4u
	unsigned persist_lost;
	uint64_t persist_failures;
	struct sa_server sa;            /* Subnet Administration (sa/) */
	struct sl2vl_reader sl2vl_rd;   /* SL2VL tables for the SA, in the background */
	struct sl2vl_reader vlarb_rd;   /* VLArb blocks for the SA, likewise */
	struct sm_mcast mcast;          /* multicast groups and MFTs */
	struct part_tables parts;       /* P_Key tables of sm->cur's ports */
	struct pkeyprog_cache pkeys;    /* what the ports' tables hold */
	struct link_hold hold;          /* links routed around (link_hold.h) */
	struct link_hold down;          /* ends kept DOWN (disable action) */
	struct link_hold wake;          /* ends to bring back (Polling) */
	struct sm_perf perf;            /* PerfMgr, noisy-link policy */
	struct sm_flap flap;            /* flap hold-out (sm_flap.h) */
	struct sm_report report;        /* Reports to subscribers (sm_report.h) */
	struct sm_standby standby;      /* other SMs, standby (sm_standby.h) */
	/* path SLs of layered routes (dfsp): of the programmed tables (the
	 * SA answers from it) and of the tables being made */
	struct path_sl sl, sl_next;
	unsigned route_vls;             /* layer budget of the last sweep */
	/* QoS classes x dfsp layers (sm_qos.h, qos/qos_sl_space.h): the plan
	 * of the programmed tables (the SA answers class base + layer from
	 * it) and of the tables being made; qos_said: the last shrink or
	 * share said, so it is said once. */
	struct qos_sl_space qos_space, qos_space_next;
	char qos_said[256];
	/* /metrics (sm_metrics.h) */
	struct metrics_http *metrics;
	double metrics_at;
	uint32_t metrics_sweeps, metrics_holds;
	uint64_t metrics_cycles;
	uint32_t light_sweeps;
	/* ibsmctl's socket (sm_ctl.h) */
	int ctl_fd;
	int ctl_ready;                  /* the transport saw it readable */
	double ctl_at;                  /* last looked at (sm_services.c) */
	uint64_t ctl_mads;              /* MADs counted then */
	gid_t ctl_gid;
	double last_heavy_s, heavy_s_total;
};

/* Prepare (no MADs yet). Installs the SMInfo / trap handler on t. On
 * failure sm_free releases what was allocated. */
int sm_init(struct sm *sm, const struct ibsm_config *cfg,
	    struct mad_transport *t);
void sm_free(struct sm *sm);

/* One heavy sweep. Returns 0 when the fabric is fully up (every linked
 * port ACTIVE with a LID, verified tables programmed; silent nodes left
 * out after the grace do not count, see unreachable.h), 1 when the sweep ran
 * but something is not up, SM_SWEEP_STANDBY when another SM leads (nothing
 * was programmed; we are STANDBY), or a negative errno. */
#define SM_SWEEP_STANDBY 3
int sm_heavy_sweep(struct sm *sm);
/* One light sweep: *changed = 1 when a heavy sweep is needed. */
int sm_light_sweep(struct sm *sm, int *changed);
/* The daemon loop: heavy sweep, then light sweeps every sweep_interval s,
 * heavy sweeps on traps / changes / SIGHUP, dumps on SIGUSR1, until stop.
 * With cfg->once, returns after the first heavy sweep. Returns the exit
 * status (0 ok, 2 fabric not up in --once mode). */
int sm_run(struct sm *sm, const struct sm_signals *sig);
/* Serve SA requests the transport deferred: one slice (sa_slice_ms,
 * sa_slice_requests), at most max_s. 0 or a negative errno. */
int sm_sa_slice(struct sm *sm, double max_s);
/* sm_sa_slice's parts, for a loop that serves a slice every turn (the
 * slice's length computed once, not per turn): its length in seconds,
 * and the stop test (a sweep is due) for mt_serve_slice. */
double sm_sa_slice_s(const struct sm *sm, double max_s);
int sm_sa_preempted(void *arg);

/* A write of persistent state (SM_PERSIST_*) succeeded (ok) or failed:
 * logged when the state of that file changes. */
void sm_persist_note(struct sm *sm, unsigned what, int ok);
/* The SA's record of us (SMInfoRecord), its per-port quotas as configured
 * now, and dropping the ServiceRecords of ports gone from sweep n's view:
 * at start and after every heavy sweep (sm/sweep/heavy.c). */
void sa_identity(struct sm *sm);
void sa_quotas(struct sm *sm);
void sa_drop_orphans(struct sm *sm, unsigned n);
/* Write ibnetdiscover.txt, lfts.txt and fabric.dot into dir. */
int sm_write_dumps(struct sm *sm, const char *dir);

#endif
