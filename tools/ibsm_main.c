/* ibsm: the subnet manager daemon. Configuration (defaults, YAML file,
 * command line), engine checks, the local port, signals, then sm_run. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "../core/guid_list.h"
#include "../core/log.h"
#include "../routing/engine.h"
#include "../sm/config/config.h"
#include "../mad/mad_transport.h"
#include "../sm/sm_state.h"
#include "../sm/sm_qos.h"

/* Signal flags and the wake pipe's write end: the only mutable globals,
 * as signal handlers need them. */
static volatile sig_atomic_t sig_stop, sig_dump, sig_hup;
static int sig_wake_wr = -1;

static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGUSR1)
		sig_dump = 1;
	else if (sig == SIGHUP)
		sig_hup = 1;
	else
		sig_stop = 1;
	/* wake the loop's poll (a full pipe is awake already) */
	if (sig_wake_wr >= 0 && write(sig_wake_wr, "", 1) < 0)
		(void)0;
	errno = saved;
}

static void usage(FILE *out)
{
	const struct route_engine *const *e;

	fprintf(out,
"usage: ibsm [options]\n"
"InfiniBand subnet manager: discovers the fabric, assigns LIDs, routes,\n"
"programs the switches and activates the ports, then watches for changes.\n"
"Options override the configuration file (see ibsm(8), contrib/ibsm.yaml).\n"
"\n"
"  -c, --config FILE        configuration file (default " IBSM_DEFAULT_CONFIG ")\n"
"  -C, --ca NAME            local device                     [ca_name]\n"
"  -P, --port NUM           local port number                [port_num]\n"
"  -g, --guid GUID          local port by port GUID          [port_guid]\n"
"  -R, --routing-engine L   engines to try in order until one's tables verify\n"
"                           (ftree,updn,minhop)              [routing_engine]\n"
"      --lmc N              LID mask control 0..7            [lmc]\n"
"      --once               bring the fabric up, then exit   [once]\n"
"      --sweep S            light sweep period, 0 = none     [sweep_interval]\n"
"      --window N           SMPs in flight 1..4096           [mad_window]\n"
"      --timeout MS         per-MAD timeout                  [mad_timeout_ms]\n"
"      --retries N          retries after a timeout          [mad_retries]\n"
"      --cache-dir DIR      persistent state (guid2lid)      [cache_dir]\n"
"      --log-file FILE      log here instead of stderr       [log_file]\n"
"      --dump DIR           write dumps here when up; SIGUSR1 rewrites them\n"
"                                                            [dump_dir]\n"
"      --set KEY=VALUE      set any configuration key\n"
"      --dump-config        print the effective configuration and exit\n"
"  -v, --verbose            more log (repeat for debug)\n"
"  -q, --quiet              less log (repeat for errors only)\n"
"  -h, --help               this text\n"
"\n"
"Signals: SIGUSR1 writes dumps; SIGHUP re-reads the configuration (keys that\n"
"need a restart are logged), reopens the log file and starts a heavy sweep;\n"
"SIGTERM/SIGINT stop.\n"
"Exit status: 0 ok, 1 bad configuration / port / engine, 2 --once could not\n"
"bring the fabric up, 3 --once found another master SM, 4 --once brought the\n"
"fabric up but could not save its state (cache_dir / dump_dir not writable).\n"
"\nRouting engines:\n");
	for (e = route_builtin_engines(); e && *e; e++)
		fprintf(out, "  %-10s %s\n", (*e)->name, (*e)->summary ? (*e)->summary : "");
}

enum {
	OPT_LMC = 256, OPT_ONCE, OPT_SWEEP, OPT_WINDOW, OPT_TIMEOUT, OPT_RETRIES,
	OPT_CACHE, OPT_LOGFILE, OPT_DUMP, OPT_SET, OPT_DUMPCFG,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "ca", required_argument, NULL, 'C' },
	{ "port", required_argument, NULL, 'P' },
	{ "guid", required_argument, NULL, 'g' },
	{ "routing-engine", required_argument, NULL, 'R' },
	{ "lmc", required_argument, NULL, OPT_LMC },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "retries", required_argument, NULL, OPT_RETRIES },
	{ "cache-dir", required_argument, NULL, OPT_CACHE },
	{ "log-file", required_argument, NULL, OPT_LOGFILE },
	{ "dump", required_argument, NULL, OPT_DUMP },
	{ "set", required_argument, NULL, OPT_SET },
	{ "dump-config", no_argument, NULL, OPT_DUMPCFG },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Command-line settings are applied after the file, in order. */
struct cli_set {
	const char *key;
	const char *value;
};

static const char *key_of(int opt)
{
	switch (opt) {
	case 'C': return "ca_name";
	case 'P': return "port_num";
	case 'g': return "port_guid";
	case 'R': return "routing_engine";
	case OPT_LMC: return "lmc";
	case OPT_ONCE: return "once";
	case OPT_SWEEP: return "sweep_interval";
	case OPT_WINDOW: return "mad_window";
	case OPT_TIMEOUT: return "mad_timeout_ms";
	case OPT_RETRIES: return "mad_retries";
	case OPT_CACHE: return "cache_dir";
	case OPT_LOGFILE: return "log_file";
	case OPT_DUMP: return "dump_dir";
	default: return NULL;
	}
}

/* Every engine named in the list must exist before we touch the fabric. */
static int check_engine_names(const struct ibsm_config *cfg)
{
	char list[sizeof(cfg->routing_engine)];
	char *save = NULL, *name;
	int bad = 0;

	snprintf(list, sizeof(list), "%s", cfg->routing_engine);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		name += strspn(name, " ");
		if (!route_engine_find(name)) {
			log_err("unknown routing engine '%s' (ibsm --help lists them)", name);
			bad++;
		}
	}
	return bad ? -EINVAL : 0;
}

static int check_engines(const struct ibsm_config *cfg)
{
	char paths[sizeof(cfg->engine_paths)];
	char *save = NULL, *name;
	int bad = 0;

	snprintf(paths, sizeof(paths), "%s", cfg->engine_paths);
	for (name = strtok_r(paths, ":", &save); name; name = strtok_r(NULL, ":", &save))
		if (!route_engine_load(name))
			bad++;
	return check_engine_names(cfg) < 0 || bad ? -EINVAL : 0;
}

/* What main keeps to build the configuration again on SIGHUP. */
struct ibsm_main {
	struct ibsm_config cfg;
	struct cli_set *sets;
	int nsets, verbose;
	const char *config_file;
	FILE *logf;
};

/* Defaults, the file, then the command line, checked: 0 or -EINVAL
 * (logged). out is freed with config_free either way. */
static int load_config(const struct ibsm_main *m, struct ibsm_config *out)
{
	int rc;

	config_defaults(out);
	rc = config_load_yaml(out, m->config_file ? m->config_file : IBSM_DEFAULT_CONFIG);
	if (rc == -ENOENT && m->config_file) {
		log_err("%s: no such configuration file", m->config_file);
		return -EINVAL;
	}
	if (rc < 0 && rc != -ENOENT)
		return -EINVAL;
	for (int i = 0; i < m->nsets; i++) {
		char origin[64];

		snprintf(origin, sizeof(origin), "command line (%s)", m->sets[i].key);
		if (config_set(out, m->sets[i].key, m->sets[i].value, origin) < 0)
			return -EINVAL;
	}
	out->log_level += m->verbose;
	if (out->log_level < LOG_ERR)
		out->log_level = LOG_ERR;
	if (out->log_level > LOG_DEBUG)
		out->log_level = LOG_DEBUG;
	return config_validate(out) < 0 ? -EINVAL : 0;
}

/* (Re)open log_file: the new stream replaces the old only once open, so
 * a rotated-away file is let go and a failure keeps logging somewhere. */
static int open_log(struct ibsm_main *m)
{
	FILE *f;

	if (!m->cfg.log_file[0]) {
		log_set_stream(NULL);
		if (m->logf)
			fclose(m->logf);
		m->logf = NULL;
		return 0;
	}
	f = fopen(m->cfg.log_file, "a");
	if (!f) {
		int err = errno;

		log_err("cannot open log file %s: %s", m->cfg.log_file, strerror(err));
		return -err;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	log_set_stream(f);
	if (m->logf)
		fclose(m->logf);
	m->logf = f;
	return 0;
}

static void on_key_changed(void *ctx, const char *key, int live)
{
	const char *file = ctx;

	if (live)
		log_info("SIGHUP: %s: %s changed: applied from the next sweep", file, key);
	else
		log_warn("SIGHUP: %s: %s changed: needs a restart (the running value stays until then)",
			 file, key);
}

/* SIGHUP: reopen the log (logrotate), re-read the file, apply what can
 * change live and name what cannot. A bad file changes nothing. */
static int reload(void *arg)
{
	struct ibsm_main *m = arg;
	struct ibsm_config next;
	const char *file = m->config_file ? m->config_file : IBSM_DEFAULT_CONFIG;
	char log_file[sizeof(m->cfg.log_file)];
	unsigned n;

	open_log(m);
	if (load_config(m, &next) < 0) {
		log_err("SIGHUP: %s not reloaded (errors above): the running configuration stays",
			file);
		config_free(&next);
		return -EINVAL;
	}
	if (strcmp(next.routing_engine, m->cfg.routing_engine) &&
	    check_engine_names(&next) < 0) {
		log_err("SIGHUP: %s: routing_engine not changed (engines load at start: engine_paths needs a restart)",
			file);
		snprintf(next.routing_engine, sizeof(next.routing_engine), "%s",
			 m->cfg.routing_engine);
	}
	snprintf(log_file, sizeof(log_file), "%s", m->cfg.log_file);
	n = config_reload(&m->cfg, &next, on_key_changed, (void *)file);
	config_free(&next);
	log_set_level((enum log_level)m->cfg.log_level);
	if (strcmp(log_file, m->cfg.log_file))
		open_log(m);
	log_info("SIGHUP: %s re-read, %u key%s changed; log file reopened", file, n,
		 n == 1 ? "" : "s");
	return 0;
}

static int mkdir_p(const char *dir)
{
	char buf[1024];
	size_t n = strlen(dir);

	if (!n || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The command line into m (its --set and option overrides in order,
 * applied after the file by load_config). 0 to go on, 1 to exit 0
 * (--help), -1 to exit 1 (logged). */
static int parse_cmdline(int argc, char **argv, struct ibsm_main *m,
			 int *dump_config)
{
	struct cli_set *sets = calloc((size_t)argc + 1, sizeof(*sets));
	int nsets = 0, opt;

	if (!sets)
		return -1;
	while ((opt = getopt_long(argc, argv, "c:C:P:g:R:vqh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			m->config_file = optarg;
			break;
		case 'v':
			m->verbose++;
			break;
		case 'q':
			m->verbose--;
			break;
		case 'h':
			usage(stdout);
			free(sets);
			return 1;
		case OPT_DUMPCFG:
			*dump_config = 1;
			break;
		case OPT_SET: {
			char *eq = strchr(optarg, '=');

			if (!eq) {
				log_err("--set wants KEY=VALUE, not '%s'", optarg);
				free(sets);
				return -1;
			}
			*eq = 0;
			sets[nsets].key = optarg;
			sets[nsets++].value = eq + 1;
			break;
		}
		case '?':
			usage(stderr);
			free(sets);
			return -1;
		default:
			sets[nsets].key = key_of(opt);
			sets[nsets++].value = opt == OPT_ONCE ? "true" : optarg;
			break;
		}
	}
	if (optind < argc) {
		log_err("unexpected argument '%s' (ibsm --help)", argv[optind]);
		free(sets);
		return -1;
	}
	m->sets = sets;
	m->nsets = nsets;
	return 0;
}

/* The local port (and the M_Key every SMP carries): 0 or -1 (logged). */
static int attach(const struct ibsm_config *cfg, struct mad_transport **t)
{
	struct mt_port_sel sel = { .ca = cfg->ca_name, .port = cfg->port_num,
				   .guid = cfg->port_guid };
	struct mt_opts mo = { .window = cfg->mad_window,
			      .timeout_ms = cfg->mad_timeout_ms,
			      .retries = cfg->mad_retries };

	if (mt_open(t, &sel, &mo) < 0)
		return -1;
	log_info("attached to %s port %d, port GUID 0x%016llx; engines \"%s\", window %u, timeout %u ms, %u retries",
		 mt_ca_name(*t), mt_port_num(*t), (unsigned long long)mt_port_guid(*t),
		 cfg->routing_engine, cfg->mad_window, cfg->mad_timeout_ms, cfg->mad_retries);
	mt_set_mkey(*t, cfg->m_key);
	if (cfg->m_key)
		log_info("M_Key 0x%016llx: set on every CA port and switch port 0 (protect bits %u, lease %u s) and sent in every SMP",
			 (unsigned long long)cfg->m_key, cfg->m_key_protect_bits,
			 cfg->m_key_lease_period);
	return 0;
}

/* The SM's state, the root and compute-node GUID lists, the QoS policy:
 * 0, or -1 with everything freed (t closed). */
static int start_sm(struct sm *sm, const struct ibsm_config *cfg,
		    struct mad_transport *t)
{
	int rc;

	if ((rc = sm_init(sm, cfg, t)) < 0) {
		if (rc == -ENAMETOOLONG)
			log_err("paths in the configuration are too long");
		/* What sm_init allocated before it failed (the SA's RMPP
		 * buffers, the multicast groups, ...): LeakSanitizer reported
		 * them when metrics_listen was busy (test 81). */
		sm_free(sm);
		mt_close(t);
		return -1;
	}
	if ((cfg->root_guid_file[0] &&
	     guid_list_read(cfg->root_guid_file, &sm->root_guids, &sm->num_root_guids) < 0) ||
	    (cfg->cn_guid_file[0] &&
	     guid_list_read(cfg->cn_guid_file, &sm->cn_guids, &sm->num_cn_guids) < 0) ||
	    sm_qos_load(sm, 1) < 0) {
		sm_free(sm);
		mt_close(t);
		return -1;
	}
	return 0;
}

/* SIGTERM, SIGINT, SIGUSR1 and SIGHUP set their flags and wake the loop
 * through a pipe (sig->wake_fd); without one the loop sees them within
 * a second. */
static void catch_signals(struct sm_signals *sig)
{
	struct sigaction sa;
	int wake[2];

	if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) == 0) {
		sig->wake_fd = wake[0];
		sig_wake_wr = wake[1];
	} else {
		log_warn("no signal pipe (%s): signals are seen within a second", strerror(errno));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The end, once the port was opened (whether or not the SM ran). Under
 * libumad2sim its exit handler joins its receiver thread, which can sit
 * on a lock for ever (seen: ibsm hung after "stopping", and after a bad
 * QoS policy's error, in tests): skip the exit handlers, checking for
 * leaks first when built with ASan, as exit would have. */
static int leave(struct ibsm_main *m, int status)
{
	config_free(&m->cfg);
	free(m->sets);
	if (m->logf) {
		log_set_stream(NULL);
		fclose(m->logf);
	}
	if (mt_simulated()) {
		fflush(NULL);
#if defined(__SANITIZE_ADDRESS__)
		__lsan_do_leak_check();
#endif
		_exit(status);
	}
	return status;
}

int main(int argc, char **argv)
{
	static struct ibsm_main m;     /* reload() reaches it from the loop */
	int dump_config = 0, rc;

	log_set_prog("ibsm");
	config_defaults(&m.cfg);
	if ((rc = parse_cmdline(argc, argv, &m, &dump_config)))
		return rc > 0 ? 0 : 1;
	if (load_config(&m, &m.cfg) < 0) {
		free(m.sets);
		return 1;
	}
	if (dump_config) {
		config_print(&m.cfg, stdout);
		return 0;
	}
	log_set_level((enum log_level)m.cfg.log_level);
	if (open_log(&m) < 0)
		return 1;
	if (check_engines(&m.cfg) < 0)
		return 1;

	struct sm sm;
	struct mad_transport *t = NULL;
	struct sm_signals sig = { &sig_stop, &sig_dump, &sig_hup, reload, &m, -1 };
	int status;

	/* A peer that closes before reading (an ibsmctl client, a metrics
	 * scraper) must cost an EPIPE, not the daemon (issue 26): SIGPIPE's
	 * default action ends the process with no log line, and systemd's
	 * Restart=on-failure does not restart on it. Writers also pass
	 * MSG_NOSIGNAL where they can. */
	signal(SIGPIPE, SIG_IGN);
	if (m.cfg.cache_dir[0] && mkdir_p(m.cfg.cache_dir) < 0)
		log_warn("cannot create cache directory %s: %s", m.cfg.cache_dir,
			 strerror(errno));
	if (attach(&m.cfg, &t) < 0 || start_sm(&sm, &m.cfg, t) < 0)
		return leave(&m, 1);
	catch_signals(&sig);

	/* (the pipe stays open to the end: a handler may still write) */
	status = sm_run(&sm, &sig);
	sm_free(&sm);
	mt_close(t);
	return leave(&m, status);
}
