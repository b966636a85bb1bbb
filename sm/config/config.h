/* ibsm daemon configuration: defaults, the YAML file, then command-line
 * overrides, in that order. Every bad key or value names the file and line. */
#ifndef IBSM_SM_CONFIG_H
#define IBSM_SM_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../qos/qos_vl.h"

struct part_conf;
struct qos_src;

#define IBSM_DEFAULT_CONFIG "/etc/ibsm/ibsm.yaml"

struct ibsm_config {
	/* local port */
	char ca_name[64];           /* "" = first with an active port */
	int port_num;               /* 0 = first active port */
	uint64_t port_guid;         /* 0 = not selected by GUID */
	/* routing */
	char routing_engine[256];   /* ordered fallback list "ftree,updn,minhop" */
	char engine_paths[1024];    /* ':'-separated .so files to dlopen */
	char root_guid_file[512];
	char cn_guid_file[512];
	int qos;                    /* PathRecord SLs from the QoS policy */
	char qos_policy_file[512];  /* OpenSM's qos-policy.conf (docs/qos.md) */
	struct qos_src *qos_src;    /* or the policy of the qos: section
				     * (sm/config/config_qos.h); NULL: none */
	/* qos_*, qos_ca_*, qos_sw0_*, qos_swe_*, qos_rtr_* (OpenSM's options):
	 * SL2VL, VLArb and VLHighLimit with qos on (qos/qos_vl.h) */
	struct qos_vl_keys qos_vl[QOS_PT_NUM];
	char cn_order[512];         /* rank order file, "" = host names, "port" */
	uint8_t lmc;
	/* SM behaviour */
	uint8_t sm_priority;        /* 0..15 */
	unsigned sminfo_polling_ms; /* STANDBY: poll the master this often */
	unsigned polling_retry_number; /* unanswered polls in a row: take over */
	int honor_priority;         /* master hands over to a better standby */
	int takeover_keep_tables;   /* a new master keeps verified switch tables */
	unsigned master_stall_timeout_s; /* STANDBY: master's ActCount still
					  * this long: take over (0 = never) */
	unsigned max_vls;           /* layers for layered engines, 0 = fabric's */
	uint64_t subnet_prefix;     /* default 0xfe80000000000000 */
	uint8_t subnet_timeout;     /* PortInfo.SubnetTimeOut, 0..31 */
	int client_reregister;      /* PortInfo.ClientReregister on becoming master */
	uint8_t hoq_life, leaf_hoq_life;   /* PortInfo.HOQLife of switch ports, 0..31 */
	uint8_t vl_stall, leaf_vl_stall;   /* PortInfo.VLStallCount, 0..7 */
	unsigned sweep_interval_s;  /* light sweep period, 0 = no periodic sweep */
	int once;                   /* exit after the fabric is up */
	unsigned once_timeout_s;    /* --once: keep sweeping this long */
	unsigned missing_grace_s;   /* a smaller view without a trap: wait */
	unsigned flap_max_delay_s;  /* trap storms: longest gap between sweeps */
	unsigned flap_hold_count;   /* > this many port state changes ... */
	unsigned flap_hold_window_s; /* ... in this many s: link held out */
	unsigned flap_hold_quiet_s; /* held until up and quiet this long */
	/* Subnet Administration */
	int sa_enabled;             /* answer SubnAdm queries (default on) */
	uint64_t sm_key;            /* SM_Key: trusted SA requests (IBA 15.2.1.1),
				     * SMInfo authentication (IBA 14.4.1) */
	uint64_t m_key;             /* M_Key set on every port, sent in every
				     * SMP (IBA 14.2.4); 0 = none */
	unsigned m_key_protect_bits; /* M_KeyProtectBits 0..3 */
	unsigned m_key_lease_period; /* M_KeyLeasePeriod, s (0 = no lease) */
	uint8_t packet_life_time;   /* PathRecord PacketLifeTime, 0..63, and
				     * SwitchInfo.LifeTimeValue (at most 31) */
	int sl2vl_read;             /* read SL2VL tables for the SA (on demand) */
	int sl2vl_read_all;         /* ... every table after each heavy sweep */
	unsigned sl2vl_read_rate;   /* tables (SMPs) a second */
	unsigned sa_rmpp_timeout_ms; /* RMPP answer: silence before a resend */
	unsigned sa_rmpp_retries;   /* resends before an ABORT (status 126) */
	unsigned sa_queue;          /* SA requests kept for the next slice (0: inline) */
	unsigned sa_queue_per_requester; /* of them from one LID (0: no share) */
	unsigned sa_slice_requests; /* SA requests served per loop turn */
	unsigned sa_slice_ms;       /* and ms spent on them at most */
	unsigned sa_rmpp_budget_mb; /* RMPP answers kept, all requesters */
	unsigned sa_rmpp_requester_mb; /* and for one requester */
	unsigned report_queue;      /* Reports waiting to be sent (0: with SMPs) */
	unsigned report_timeout_ms; /* per Report try */
	unsigned report_retries;    /* tries after the first */
	unsigned report_max_misses; /* unanswered in a row: port's subscriptions dropped (0: never) */
	/* Per-port quotas on what hosts keep in the SA (sa/sa_quota.h);
	 * 0 = no limit. */
	unsigned sa_max_services_per_port;
	unsigned mcast_max_groups_per_port;
	unsigned mcast_max_joins_per_port;
	char mcast_groups[2048];    /* predefined groups, ';'-separated
	                               (multicast/mcast_spec.h) */
	struct part_conf *partitions; /* NULL: the default partition only
	                               * (partition/part_conf.h); owned, freed
	                               * by config_free */
	/* MAD transport */
	unsigned mad_window;        /* SMPs in flight */
	unsigned mad_timeout_ms;
	unsigned mad_retries;
	/* PerfMgr and the noisy-link policy (docs/telemetry.md) */
	unsigned perf_interval_s;   /* counter poll period, 0 = off */
	unsigned perf_window;       /* ports polled at once */
	unsigned perf_history;      /* samples kept per port */
	char perf_action[16];       /* report, avoid or disable */
	char perf_event_log[512];   /* JSON lines of every action, "" = none */
	unsigned perf_quiet_period_s; /* quiet this long: restore the link */
	double perf_restore_fraction; /* quiet = every rate below threshold x this */
	unsigned perf_max_avoided;  /* links held out by the policy at most */
	/* error-rate thresholds, per second, 0 = not checked */
	double perf_symbol_error_rate;
	double perf_link_error_recovery_rate;
	double perf_link_downed_rate;
	double perf_rcv_errors_rate;
	double perf_local_link_integrity_rate;
	double perf_excessive_buffer_overrun_rate;
	double perf_xmit_discards_rate;
	/* congestion-aware multipath (sm/sm_perf.c, routing/cong_rebalance.h) */
	int congestion_aware;
	double congestion_xmit_wait_rate; /* PortXmitWait ticks/s: hot */
	unsigned congestion_persist;      /* PerfMgr samples in a row */
	unsigned congestion_max_moves;    /* LFT entries moved per reroute */
	char metrics_listen[64];    /* Prometheus /metrics "ADDR:PORT", "" = off */
	unsigned metrics_max_connections;   /* all scrapers together */
	unsigned metrics_per_ip_connections; /* one address */
	unsigned metrics_timeout_s; /* an idle or slow connection is closed */
	char ctl_socket[108];       /* ibsmctl's UNIX socket, "" = none */
	char ctl_group[64];         /* group allowed besides root and our user */
	/* state */
	char cache_dir[512];        /* guid2lid lives here */
	char guid2lid_file[512];    /* "" = <cache_dir>/guid2lid */
	/* logging */
	int log_level;              /* enum log_level */
	char log_file[512];         /* "" = stderr */
	/* dumps */
	char dump_dir[512];         /* where SIGUSR1 / --dump write;
	                               "" = <cache_dir>/dump */
};

void config_defaults(struct ibsm_config *c);
/* Release what the configuration owns (the partitions). */
void config_free(struct ibsm_config *c);
void config_free_partitions(struct ibsm_config *c);
/* Load a YAML file over c. Returns 0, or -EINVAL after logging
 * "FILE:LINE: reason" for unknown keys, bad values, YAML syntax errors
 * (every bad line is reported; on any error c is left unchanged);
 * -ENOENT if the file is missing (not logged: whether a missing default
 * file matters is the caller's call). List keys (routing_engine,
 * engine_paths) also accept a YAML sequence. */
int config_load_yaml(struct ibsm_config *c, const char *path);
/* Apply one "key=value" setting as if from the YAML file (used by tests
 * and by --set on the command line). `origin` names where it came from in
 * error messages. Returns 0 or -EINVAL. */
int config_set(struct ibsm_config *c, const char *key, const char *value,
	       const char *origin);
/* Sanity checks across keys (e.g. lmc <= 7). Returns 0 or -EINVAL. */
int config_validate(const struct ibsm_config *c);
/* The effective guid2lid path (guid2lid_file, or <cache_dir>/guid2lid) and
 * dump directory (dump_dir, or <cache_dir>/dump). 0 or -ENAMETOOLONG. */
int config_guid2lid_path(const struct ibsm_config *c, char *buf, size_t len);
int config_dump_path(const struct ibsm_config *c, char *buf, size_t len);
/* SIGHUP (ibsm.8): what a running daemon takes from a re-read file.
 * config_key_live says whether a key takes effect without a restart;
 * config_reload calls changed(ctx, key, live) for every key whose value
 * differs between cur and next, copies the live ones into cur and leaves
 * the others as they run. Returns how many keys changed. */
int config_key_live(const char *key);
typedef void (*config_changed_fn)(void *ctx, const char *key, int live);
unsigned config_reload(struct ibsm_config *cur, const struct ibsm_config *next,
		       config_changed_fn changed, void *ctx);
/* Print the effective configuration as YAML (ibsm --dump-config). */
void config_print(const struct ibsm_config *c, FILE *out);

#endif
