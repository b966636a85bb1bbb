/* ibsm daemon configuration: one table of keys (config_keys.c) drives the
 * YAML loader (config_yaml.c), config_set (command-line overrides),
 * validation, printing and reload, so a key cannot be accepted by one and
 * forgotten by another. This file: defaults, setting, checking, printing. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/log.h"
#include "../../routing/engine.h"
#include "../observe/metrics_http.h"
#include "../../multicast/mcast_spec.h"
#include "config_keys.h"
#include "config_partitions.h"
#include "config_qos.h"
#include "../../qos/qos_src.h"


void config_defaults(struct ibsm_config *c)
{
	memset(c, 0, sizeof(*c));
	/* ftree for fat-trees; it refuses anything else (saying why) and
	 * updn, deadlock-free on any topology, takes over. */
	snprintf(c->routing_engine, sizeof(c->routing_engine), "%s", ROUTE_DEFAULT_ENGINES);
	c->lmc = 0;
	c->sm_priority = 0;
	/* A standby polls the master 5 times a second and takes over after 3
	 * polls in a row go unanswered. Each poll is a MAD with the usual
	 * timeout and retries (4 tries), so at 20% MAD loss one poll is lost
	 * with p = 0.2^4 and three in a row with 4e-9: about one false
	 * takeover in 1.6 years of polling. A dead master is noticed in about
	 * 3 polls (0.6 s) when its port answers "no one there" at once
	 * (ibsim), in 3 x 4 MAD timeouts when it is silent. */
	c->sminfo_polling_ms = 200;
	c->polling_retry_number = 3;
	/* A better SM that joins as STANDBY gets the subnet (IBA 14.4.1.2),
	 * as OpenSM does; 0 keeps the running master. */
	c->honor_priority = 1;
	/* Taking over, keep what the old master left when it verifies. */
	c->takeover_keep_tables = 1;
	/* Six light sweeps of OpenSM's and ibsm's default 10 s interval. */
	c->master_stall_timeout_s = 60;
	c->subnet_prefix = 0xfe80000000000000ull;  /* default GID prefix */
	/* 18: 4.096 us * 2^18 = ~1 s, OpenSM's default subnet timeout. */
	c->subnet_timeout = 18;
	/* As OpenSM (no_clients_rereg FALSE): a new master tells every end
	 * port to re-register, since the SA state it holds may be stale. */
	c->client_reregister = 1;
	/* OpenSM's defaults: a packet waits at most 4.096 us * 2^18 (~1 s) at
	 * the head of a switch port's queue, 2^16 (~0.27 s) on a port facing
	 * a CA (a dead host must not block the fabric for long), and a VL
	 * stalls after 7 such discards in a row (IBA 18.2.5.4). */
	c->hoq_life = 0x12;
	c->leaf_hoq_life = 0x10;
	c->vl_stall = 7;
	c->leaf_vl_stall = 7;
	c->sweep_interval_s = 10;
	/* QoS tables: the general keys hold OpenSM's defaults (so the
	 * printed configuration shows them); the port types' keys are not
	 * set (-1, "", 0) and take the general ones. */
	for (unsigned t = 0; t < QOS_PT_NUM; t++)
		c->qos_vl[t].high_limit = -1;
	qos_vl_defaults(&c->qos_vl[QOS_PT_ALL]);
	/* --once on a lossy fabric keeps sweeping for minutes, not one try. */
	c->once_timeout_s = 120;
	/* Nodes missing without a trap: hold the programmed view this long. */
	c->missing_grace_s = 10;
	/* A flapping link: heavy sweeps at most every 5 s while it flaps. */
	c->flap_max_delay_s = 5;
	/* A port that went down and up 5 times (10 state changes) within a
	 * minute is held out of routing until it stays up for 2 minutes: a
	 * healthy cable does not do that, and a reseat or a reboot causes
	 * 2-4 changes. */
	c->flap_hold_count = 10;
	c->flap_hold_window_s = 60;
	c->flap_hold_quiet_s = 120;
	c->sa_enabled = 1;
	/* 1, as OpenSM: saquery --smkey 1 is how operators ask trusted. */
	c->sm_key = 1;
	/* 0x12 (4.096 us * 2^18), OpenSM's default packet_life_time. */
	c->packet_life_time = 0x12;
	/* SL2VLTableRecords: read every table after a heavy sweep at 1,000
	 * SMPs a second (a few percent of what a sweep sends), outside it. */
	c->sl2vl_read = 1;
	c->sl2vl_read_rate = 1000;
	c->sa_rmpp_timeout_ms = 1000;
	c->sa_rmpp_retries = 3;
	/* SA work in slices between fault handling (docs/sa.md). */
	c->sa_queue = 1024;
	c->sa_queue_per_requester = 64;
	c->sa_slice_requests = 64;
	c->sa_slice_ms = 20;
	c->sa_rmpp_budget_mb = 256;
	c->sa_rmpp_requester_mb = 64;
	/* Reports: their own queue, a short timeout, silent ports dropped. */
	c->report_queue = 8192;
	c->report_timeout_ms = 200;
	c->report_retries = 1;
	c->report_max_misses = 8;
	/* Quotas: one host may hold a sixty-fourth of the 4,096 ServiceRecord
	 * slots and of the 16,383 multicast LIDs (it creates a group per
	 * IPv6 address, containers included), and be in 1,024 groups. */
	c->sa_max_services_per_port = 64;
	c->mcast_max_groups_per_port = 256;
	c->mcast_max_joins_per_port = 1024;
	c->mad_window = 32;         /* OpenSM keeps only 4 SMPs in flight */
	c->mad_timeout_ms = 200;
	c->mad_retries = 3;
	/* PerfMgr off unless asked; when on, error rates per second that
	 * no healthy link reaches (a few symbol errors a day are normal),
	 * and links come back after a quiet minute below half of them. */
	c->perf_window = 16;
	c->perf_history = 8;
	snprintf(c->perf_action, sizeof(c->perf_action), "avoid");
	c->perf_quiet_period_s = 60;
	c->perf_restore_fraction = 0.5;
	c->perf_max_avoided = 8;
	c->perf_symbol_error_rate = 1;
	c->congestion_xmit_wait_rate = 100000;
	c->congestion_persist = 3;
	c->congestion_max_moves = 64;
	c->perf_link_error_recovery_rate = 0.1;
	c->perf_link_downed_rate = 0.1;
	c->perf_rcv_errors_rate = 1;
	c->perf_local_link_integrity_rate = 0.1;
	c->perf_excessive_buffer_overrun_rate = 0.1;
	c->perf_xmit_discards_rate = 100;
	/* A scrape is one short GET: a few per address suffice, and a
	 * connection idle for 3 s is a slow client, not a scraper. */
	c->metrics_max_connections = 64;
	c->metrics_per_ip_connections = 4;
	c->metrics_timeout_s = 3;
	snprintf(c->cache_dir, sizeof(c->cache_dir), "/var/cache/ibsm");
	c->log_level = LOG_INFO;
}


/* Whole-string unsigned number, decimal or 0x-hex; no sign, no spaces. */
static int parse_u64(const char *s, uint64_t *out)
{
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_bool(const char *s)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

/* An engine list is names of [a-z0-9_-] separated by single commas. */
static int engine_list_ok(const char *s)
{
	if (!*s)
		return 0;
	for (const char *p = s; *p; p++) {
		if (*p == ',') {
			if (p == s || !p[1] || p[1] == ',')
				return 0;
		} else if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-') {
			return 0;
		}
	}
	return 1;
}

static int bad_value(const char *origin, const struct key_desc *k,
		     const char *value, const char *expect)
{
	log_err("%s: bad value for '%s': '%s' (%s)", origin, k->name, value,
		expect);
	return -EINVAL;
}

static int set_number(struct ibsm_config *c, const struct key_desc *k,
		      const char *value, const char *origin)
{
	char range[64];
	snprintf(range, sizeof(range), "%lu..%lu", k->lo, k->hi);
	void *field = (char *)c + k->offset;
	uint64_t v;
	int b;

	switch (k->kind) {
	case K_U64:
		if (parse_u64(value, &v))
			return bad_value(origin, k, value,
					 "a 64-bit number, e.g. 0xfe80000000000000");
		*(uint64_t *)field = v;
		return 0;
	case K_BOOL:
		b = parse_bool(value);
		if (b < 0)
			return bad_value(origin, k, value, "true or false");
		*(int *)field = b;
		return 0;
	case K_DOUBLE: {
		char *end;
		double d;

		errno = 0;
		d = strtod(value, &end);
		if (!*value || *end || errno || d != d || d < (double)k->lo ||
		    d > (double)k->hi)
			return bad_value(origin, k, value, range);
		*(double *)field = d;
		return 0;
	}
	case K_LOG_LEVEL:
		b = log_level_parse(value);
		if (b < 0)
			return bad_value(origin, k, value,
					 "error, warn, info, debug or 0..3");
		*(int *)field = b;
		return 0;
	default:
		break;
	}
	if (k->kind == K_INT) {
		/* Signed: a range whose low end is negative (stored as the
		 * two's complement of it in lo) allows "-1". */
		char *end;
		long l;

		snprintf(range, sizeof(range), "%ld..%ld", (long)k->lo, (long)k->hi);
		errno = 0;
		l = strtol(value, &end, 0);
		if (!*value || *end || errno || l < (long)k->lo || l > (long)k->hi)
			return bad_value(origin, k, value, range);
		*(int *)field = (int)l;
		return 0;
	}
	if (parse_u64(value, &v) || v < k->lo || v > k->hi)
		return bad_value(origin, k, value, range);
	if (k->kind == K_UNSIGNED)
		*(unsigned *)field = (unsigned)v;
	else
		*(uint8_t *)field = (uint8_t)v;
	return 0;
}

int config_set(struct ibsm_config *c, const char *key, const char *value,
	       const char *origin)
{
	const struct key_desc *k = config_key_find(key);
	if (!k) {
		log_err("%s: unknown key '%s'", origin, key);
		return -EINVAL;
	}
	if (k->kind == K_PARTITIONS) {
		/* A list of mappings has no one-line form: the file only. */
		log_err("%s: '%s' can only be set in the YAML file (docs/partitions.md)",
			origin, key);
		return -EINVAL;
	}
	if (k->kind != K_STR && k->kind != K_LIST)
		return set_number(c, k, value, origin);
	size_t len = strlen(value);
	if (len >= k->size) {
		char limit[48];
		snprintf(limit, sizeof(limit), "at most %zu characters",
			 k->size - 1);
		return bad_value(origin, k, value, limit);
	}
	if (!strcmp(k->name, "routing_engine") && !engine_list_ok(value))
		return bad_value(origin, k, value,
				 "engine names separated by commas, e.g. updn,minhop");
	if (!strcmp(k->name, "metrics_listen") && *value) {
		unsigned a;
		unsigned short port;

		if (metrics_parse_listen(value, &a, &port) < 0)
			return bad_value(origin, k, value,
					 "ADDR:PORT or :PORT, e.g. 127.0.0.1:9464");
	}
	if (!strncmp(k->name, "qos_", 4) && *value) {
		char why[160];

		if (config_qos_check_table(k->name, value, why, sizeof(why)))
			return bad_value(origin, k, value, why);
	}
	if (!strcmp(k->name, "perf_action") && strcmp(value, "report") &&
	    strcmp(value, "avoid") && strcmp(value, "disable"))
		return bad_value(origin, k, value, "report, avoid or disable");
	memcpy((char *)c + k->offset, value, len + 1);
	return 0;
}

int config_validate(const struct ibsm_config *c)
{
	int bad = 0;
	/* Ranges are checked when a key is set; these catch fields filled
	 * directly by code (command-line parsers, tests). */
	if (c->lmc > 7 && ++bad)
		log_err("config: lmc %u out of range 0..7", c->lmc);
	/* cn_order: a file that must be readable now (its names are checked
	 * against the fabric when routing), or "port". */
	if (c->cn_order[0] && strcmp(c->cn_order, "port") &&
	    access(c->cn_order, R_OK) < 0 && ++bad)
		log_err("config: cn_order %s: %s", c->cn_order, strerror(errno));
	{
		char why[300];

		if (mcast_spec_list(c->mcast_groups, NULL, NULL, why, sizeof(why)) < 0 && ++bad)
			log_err("config: mcast_groups %s", why);
	}
	if (c->sm_priority > 15 && ++bad)
		log_err("config: sm_priority %u out of range 0..15", c->sm_priority);
	if (c->subnet_timeout > 31 && ++bad)
		log_err("config: subnet_timeout %u out of range 0..31",
			c->subnet_timeout);
	if ((c->port_num < 0 || c->port_num > 254) && ++bad)
		log_err("config: port_num %d out of range 0..254", c->port_num);
	if ((c->mad_window < 1 || c->mad_window > 4096) && ++bad)
		log_err("config: mad_window %u out of range 1..4096", c->mad_window);
	if ((c->mad_timeout_ms < 1 || c->mad_timeout_ms > 60000) && ++bad)
		log_err("config: mad_timeout_ms %u out of range 1..60000",
			c->mad_timeout_ms);
	if (c->mad_retries > 100 && ++bad)
		log_err("config: mad_retries %u out of range 0..100", c->mad_retries);
	if (c->log_level < LOG_ERR || c->log_level > LOG_DEBUG) {
		bad++;
		log_err("config: log_level %d out of range 0..3", c->log_level);
	}
	if (!engine_list_ok(c->routing_engine) && ++bad)
		log_err("config: routing_engine '%s' is not a comma-separated "
			"list of engine names", c->routing_engine);
	/* A port chosen both by GUID and by CA/port number is ambiguous. */
	if (c->port_guid && (c->ca_name[0] || c->port_num) && ++bad)
		log_err("config: port_guid excludes ca_name and port_num");
	if (!c->guid2lid_file[0] && !c->cache_dir[0] && ++bad)
		log_err("config: cache_dir or guid2lid_file must be set "
			"(LIDs must persist across restarts)");
	if (!c->guid2lid_file[0] &&
	    strlen(c->cache_dir) + sizeof("/guid2lid") > sizeof(c->guid2lid_file)
	    && ++bad)
		log_err("config: cache_dir too long");
	return bad ? -EINVAL : 0;
}

int config_guid2lid_path(const struct ibsm_config *c, char *buf, size_t len)
{
	int n = c->guid2lid_file[0]
		? snprintf(buf, len, "%s", c->guid2lid_file)
		: snprintf(buf, len, "%s/guid2lid", c->cache_dir);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int config_dump_path(const struct ibsm_config *c, char *buf, size_t len)
{
	int n = c->dump_dir[0]
		? snprintf(buf, len, "%s", c->dump_dir)
		: snprintf(buf, len, "%s/dump", c->cache_dir);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A YAML double-quoted scalar: only '"' and '\' need escaping here. */
static void print_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Keys the daemon reads where it uses them (each sweep, each loop), so a
 * new value takes effect at the next sweep; every other key is read once
 * at start (ports, sockets, transport, engines loaded, groups made,
 * PerfMgr set up) and needs a restart. */
static const char *const live_keys[] = {
	"routing_engine", "subnet_timeout", "client_reregister",
	"head_of_queue_lifetime", "leaf_head_of_queue_lifetime",
	"vl_stall_count", "leaf_vl_stall_count", "packet_life_time",
	"sweep_interval", "flap_max_delay", "log_level", "log_file",
	"sa_max_services_per_port", "mcast_max_groups_per_port",
	"mcast_max_joins_per_port", "qos", "qos_policy_file",
};

int config_key_live(const char *key)
{
	/* The QoS tables are built at every sweep that programs them. */
	if (!strncmp(key, "qos_", 4))
		return 1;
	for (size_t i = 0; i < sizeof(live_keys) / sizeof(live_keys[0]); i++)
		if (!strcmp(live_keys[i], key))
			return 1;
	return 0;
}

static size_t key_size(const struct key_desc *k)
{
	switch (k->kind) {
	case K_STR: case K_LIST: return k->size;
	case K_INT: case K_BOOL: case K_LOG_LEVEL: return sizeof(int);
	case K_UNSIGNED: return sizeof(unsigned);
	case K_U8: return 1;
	case K_U64: return sizeof(uint64_t);
	case K_DOUBLE: return sizeof(double);
	case K_PARTITIONS: return 0;
	}
	return 0;
}

/* Partitions compare by what they print as. */
static int partitions_differ(const struct part_conf *a, const struct part_conf *b)
{
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
	int differ = 1;

	if (fa && fb) {
		config_print_partitions(a, fa);
		config_print_partitions(b, fb);
		fflush(fa);
		fflush(fb);
		differ = la != lb || memcmp(ta, tb, la);
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	free(ta);
	free(tb);
	return differ;
}

unsigned config_reload(struct ibsm_config *cur, const struct ibsm_config *next,
		       config_changed_fn changed, void *ctx)
{
	unsigned n = 0;

	for (size_t i = 0; i < config_num_keys; i++) {
		const struct key_desc *k = &config_keys[i];
		char *a = (char *)cur + k->offset;
		const char *b = (const char *)next + k->offset;
		int live;

		if (k->kind == K_PARTITIONS ?
		    !partitions_differ(cur->partitions, next->partitions) :
		    k->kind == K_STR || k->kind == K_LIST ? !strcmp(a, b) :
		    !memcmp(a, b, key_size(k)))
			continue;
		live = config_key_live(k->name) && k->kind != K_PARTITIONS;
		changed(ctx, k->name, live);
		if (live)
			memcpy(a, b, key_size(k));
		n++;
	}
	/* The qos: section's policy is live as qos_policy_file is: the
	 * caller loads it again after a reload. */
	if (!qos_src_same(cur->qos_src, next->qos_src)) {
		struct qos_src *copy = next->qos_src ? qos_src_dup(next->qos_src) : NULL;

		changed(ctx, "qos (the qos: section's policy)", !next->qos_src || copy);
		if (!next->qos_src || copy) {
			qos_src_free(cur->qos_src);
			cur->qos_src = copy;
		}
		n++;
	}
	return n;
}

void config_print(const struct ibsm_config *c, FILE *out)
{
	static const char *const levels[] = { "error", "warn", "info", "debug" };
	for (size_t i = 0; i < config_num_keys; i++) {
		const struct key_desc *k = &config_keys[i];
		const void *field = (const char *)c + k->offset;
		if (k->kind == K_PARTITIONS) {
			config_print_partitions(c->partitions, out);
			continue;
		}
		fprintf(out, "%s: ", k->name);
		switch (k->kind) {
		case K_STR:
		case K_LIST:
			print_quoted(out, field);
			break;
		case K_INT:
			fprintf(out, "%d", *(const int *)field);
			break;
		case K_UNSIGNED:
			fprintf(out, "%u", *(const unsigned *)field);
			break;
		case K_U8:
			fprintf(out, "%u", *(const uint8_t *)field);
			break;
		case K_U64:
			fprintf(out, "0x%016" PRIx64, *(const uint64_t *)field);
			break;
		case K_DOUBLE:
			fprintf(out, "%g", *(const double *)field);
			break;
		case K_BOOL:
			fputs(*(const int *)field ? "true" : "false", out);
			if (!strcmp(k->name, "qos") && c->qos_src)
				config_print_qos_src(c->qos_src, out);
			break;
		case K_PARTITIONS:
			break;
		case K_LOG_LEVEL: {
			int l = *(const int *)field;
			if (l >= 0 && l <= 3)
				fputs(levels[l], out);
			else
				fprintf(out, "%d", l);
			break;
		}
		}
		fputc('\n', out);
	}
}

void config_free_partitions(struct ibsm_config *c)
{
	if (c->partitions) {
		part_conf_free(c->partitions);
		free(c->partitions);
		c->partitions = NULL;
	}
}

void config_free(struct ibsm_config *c)
{
	config_free_partitions(c);
	qos_src_free(c->qos_src);
	c->qos_src = NULL;
}
