/* The configuration keys: name, type, field of struct ibsm_config and
 * range, one line each (config_keys.h says who reads the table). */
#include <stddef.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"

#define STR(f) K_STR, offsetof(struct ibsm_config, f), \
	sizeof(((struct ibsm_config *)0)->f), 0, 0, 0
#define LIST(f, s) K_LIST, offsetof(struct ibsm_config, f), \
	sizeof(((struct ibsm_config *)0)->f), 0, 0, s
#define NUM(k, f, l, h) k, offsetof(struct ibsm_config, f), 0, l, h, 0
/* OpenSM's five sets of QoS table options (qos/qos_vl.h); a port type's
 * high_limit -1 and max_vls 0 mean "not set: the general key's". */
#define QOS_VL_KEYS(pre, t) \
	{ pre "_max_vls", NUM(K_UNSIGNED, qos_vl[t].max_vls, 0, 15) }, \
	{ pre "_high_limit", NUM(K_INT, qos_vl[t].high_limit, (unsigned long)-1, 255) }, \
	{ pre "_vlarb_high", STR(qos_vl[t].vlarb_high) }, \
	{ pre "_vlarb_low", STR(qos_vl[t].vlarb_low) }, \
	{ pre "_sl2vl", STR(qos_vl[t].sl2vl) }

/* Ranges: LMC 0..7 and SM priority 0..15 are the widths of the PortInfo
 * and SMInfo fields (IBA 14.2.5.6, 14.2.5.13); SubnetTimeOut is 5 bits
 * (4.096 us * 2^n). A port number is a byte; 255 is reserved. */
const struct key_desc config_keys[] = {
	{ "ca_name",        STR(ca_name) },
	{ "port_num",       NUM(K_INT, port_num, 0, 254) },
	{ "port_guid",      NUM(K_U64, port_guid, 0, 0) },
	{ "routing_engine", LIST(routing_engine, ',') },
	{ "engine_paths",   LIST(engine_paths, ':') },
	{ "root_guid_file", STR(root_guid_file) },
	{ "cn_guid_file",   STR(cn_guid_file) },
	{ "cn_order",       STR(cn_order) },
	{ "lmc",            NUM(K_U8, lmc, 0, 7) },
	{ "sm_priority",    NUM(K_U8, sm_priority, 0, 15) },
	{ "sminfo_polling_timeout", NUM(K_UNSIGNED, sminfo_polling_ms, 10, 600000) },
	{ "polling_retry_number", NUM(K_UNSIGNED, polling_retry_number, 1, 100) },
	{ "honor_priority", NUM(K_BOOL, honor_priority, 0, 1) },
	{ "takeover_keep_tables", NUM(K_BOOL, takeover_keep_tables, 0, 1) },
	{ "master_stall_timeout", NUM(K_UNSIGNED, master_stall_timeout_s, 0, 86400) },
	{ "max_vls",        NUM(K_UNSIGNED, max_vls, 0, 15) },
	{ "subnet_prefix",  NUM(K_U64, subnet_prefix, 0, 0) },
	{ "subnet_timeout", NUM(K_U8, subnet_timeout, 0, 31) },
	{ "client_reregister", NUM(K_BOOL, client_reregister, 0, 1) },
	{ "head_of_queue_lifetime", NUM(K_U8, hoq_life, 0, 31) },
	{ "leaf_head_of_queue_lifetime", NUM(K_U8, leaf_hoq_life, 0, 31) },
	{ "vl_stall_count", NUM(K_U8, vl_stall, 1, 7) },
	{ "leaf_vl_stall_count", NUM(K_U8, leaf_vl_stall, 1, 7) },
	{ "sweep_interval", NUM(K_UNSIGNED, sweep_interval_s, 0, 86400) },
	{ "once",           NUM(K_BOOL, once, 0, 1) },
	{ "once_timeout",   NUM(K_UNSIGNED, once_timeout_s, 1, 86400) },
	{ "missing_grace",  NUM(K_UNSIGNED, missing_grace_s, 0, 3600) },
	{ "flap_max_delay", NUM(K_UNSIGNED, flap_max_delay_s, 1, 600) },
	{ "flap_hold_count", NUM(K_UNSIGNED, flap_hold_count, 0, 63) },
	{ "flap_hold_window", NUM(K_UNSIGNED, flap_hold_window_s, 1, 86400) },
	{ "flap_hold_quiet", NUM(K_UNSIGNED, flap_hold_quiet_s, 1, 86400) },
	{ "sa_enabled",     NUM(K_BOOL, sa_enabled, 0, 1) },
	{ "sm_key",         NUM(K_U64, sm_key, 0, 0) },
	{ "m_key",          NUM(K_U64, m_key, 0, 0) },
	{ "m_key_protect_bits", NUM(K_UNSIGNED, m_key_protect_bits, 0, 3) },
	{ "m_key_lease_period", NUM(K_UNSIGNED, m_key_lease_period, 0, 65535) },
	{ "packet_life_time", NUM(K_U8, packet_life_time, 0, 63) },
	{ "qos",            NUM(K_BOOL, qos, 0, 1) },
	{ "qos_policy_file", STR(qos_policy_file) },
	QOS_VL_KEYS("qos", 0),
	QOS_VL_KEYS("qos_ca", 1),
	QOS_VL_KEYS("qos_sw0", 2),
	QOS_VL_KEYS("qos_swe", 3),
	QOS_VL_KEYS("qos_rtr", 4),
	{ "sl2vl_read",     NUM(K_BOOL, sl2vl_read, 0, 1) },
	{ "sl2vl_read_all", NUM(K_BOOL, sl2vl_read_all, 0, 1) },
	{ "sl2vl_read_rate", NUM(K_UNSIGNED, sl2vl_read_rate, 1, 1000000) },
	{ "sa_rmpp_timeout_ms", NUM(K_UNSIGNED, sa_rmpp_timeout_ms, 100, 60000) },
	{ "sa_rmpp_retries", NUM(K_UNSIGNED, sa_rmpp_retries, 0, 16) },
	{ "sa_queue",       NUM(K_UNSIGNED, sa_queue, 0, 65535) },
	{ "sa_queue_per_requester", NUM(K_UNSIGNED, sa_queue_per_requester, 0, 65535) },
	{ "sa_slice_requests", NUM(K_UNSIGNED, sa_slice_requests, 1, 100000) },
	{ "sa_slice_ms",    NUM(K_UNSIGNED, sa_slice_ms, 1, 10000) },
	{ "sa_rmpp_budget_mb", NUM(K_UNSIGNED, sa_rmpp_budget_mb, 1, 65536) },
	{ "sa_rmpp_requester_mb", NUM(K_UNSIGNED, sa_rmpp_requester_mb, 1, 65536) },
	{ "report_queue",   NUM(K_UNSIGNED, report_queue, 0, 65536) },
	{ "report_timeout_ms", NUM(K_UNSIGNED, report_timeout_ms, 10, 60000) },
	{ "report_retries", NUM(K_UNSIGNED, report_retries, 0, 16) },
	{ "report_max_misses", NUM(K_UNSIGNED, report_max_misses, 0, 100000) },
	{ "sa_max_services_per_port", NUM(K_UNSIGNED, sa_max_services_per_port, 0, 4096) },
	{ "mcast_max_groups_per_port", NUM(K_UNSIGNED, mcast_max_groups_per_port, 0, 16383) },
	{ "mcast_max_joins_per_port", NUM(K_UNSIGNED, mcast_max_joins_per_port, 0, 16383) },
	{ "mcast_groups",   LIST(mcast_groups, ';') },
	{ "partitions",     K_PARTITIONS, offsetof(struct ibsm_config, partitions), 0, 0, 0, 0 },
	{ "mad_window",     NUM(K_UNSIGNED, mad_window, 1, 4096) },
	{ "mad_timeout_ms", NUM(K_UNSIGNED, mad_timeout_ms, 1, 60000) },
	{ "mad_retries",    NUM(K_UNSIGNED, mad_retries, 0, 100) },
	{ "perf_interval",  NUM(K_UNSIGNED, perf_interval_s, 0, 86400) },
	{ "perf_window",    NUM(K_UNSIGNED, perf_window, 1, 1024) },
	{ "perf_history",   NUM(K_UNSIGNED, perf_history, 0, 1024) },
	{ "perf_action",    STR(perf_action) },
	{ "perf_event_log", STR(perf_event_log) },
	{ "perf_quiet_period", NUM(K_UNSIGNED, perf_quiet_period_s, 1, 86400) },
	{ "perf_restore_fraction", NUM(K_DOUBLE, perf_restore_fraction, 0, 1) },
	{ "perf_max_avoided", NUM(K_UNSIGNED, perf_max_avoided, 0, 4096) },
	{ "perf_symbol_error_rate", NUM(K_DOUBLE, perf_symbol_error_rate, 0, 1000000000) },
	{ "perf_link_error_recovery_rate", NUM(K_DOUBLE, perf_link_error_recovery_rate, 0, 1000000000) },
	{ "perf_link_downed_rate", NUM(K_DOUBLE, perf_link_downed_rate, 0, 1000000000) },
	{ "perf_rcv_errors_rate", NUM(K_DOUBLE, perf_rcv_errors_rate, 0, 1000000000) },
	{ "perf_local_link_integrity_rate", NUM(K_DOUBLE, perf_local_link_integrity_rate, 0, 1000000000) },
	{ "perf_excessive_buffer_overrun_rate", NUM(K_DOUBLE, perf_excessive_buffer_overrun_rate, 0, 1000000000) },
	{ "perf_xmit_discards_rate", NUM(K_DOUBLE, perf_xmit_discards_rate, 0, 1000000000) },
	{ "congestion_aware", NUM(K_BOOL, congestion_aware, 0, 1) },
	{ "congestion_xmit_wait_rate", NUM(K_DOUBLE, congestion_xmit_wait_rate, 0, 1e12) },
	{ "congestion_persist", NUM(K_UNSIGNED, congestion_persist, 1, 1000) },
	{ "congestion_max_moves", NUM(K_UNSIGNED, congestion_max_moves, 0, 1000000) },
	{ "metrics_listen", STR(metrics_listen) },
	{ "metrics_max_connections", NUM(K_UNSIGNED, metrics_max_connections, 1, 1024) },
	{ "metrics_per_ip_connections", NUM(K_UNSIGNED, metrics_per_ip_connections, 1, 1024) },
	{ "metrics_timeout", NUM(K_UNSIGNED, metrics_timeout_s, 1, 3600) },
	{ "ctl_socket",     STR(ctl_socket) },
	{ "ctl_group",      STR(ctl_group) },
	{ "cache_dir",      STR(cache_dir) },
	{ "guid2lid_file",  STR(guid2lid_file) },
	{ "log_level",      NUM(K_LOG_LEVEL, log_level, 0, 3) },
	{ "log_file",       STR(log_file) },
	{ "dump_dir",       STR(dump_dir) },
};
const size_t config_num_keys = sizeof(config_keys) / sizeof(config_keys[0]);

const struct key_desc *config_key_find(const char *name)
{
	for (size_t i = 0; i < config_num_keys; i++)
		if (!strcmp(config_keys[i].name, name))
			return &config_keys[i];
	return NULL;
}
