/* ibsmctl's server side. */
#include "sm_ctl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../core/log.h"
#include "../sm_state.h"

#define CTL_LINE_MAX 512
#define CTL_READ_MS 200

int sm_ctl_start(struct sm *sm)
{
	const char *path = sm->cfg->ctl_socket;
	struct sockaddr_un a;
	int fd;

	sm->ctl_fd = -1;
	sm->ctl_gid = (gid_t)-1;
	if (!path[0])
		return 0;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path)) {
		log_err("ctl_socket %s: path too long", path);
		return -1;
	}
	if (sm->cfg->ctl_group[0]) {
		struct group *g = getgrnam(sm->cfg->ctl_group);

		if (!g) {
			log_err("ctl_group '%s': no such group", sm->cfg->ctl_group);
			return -1;
		}
		sm->ctl_gid = g->gr_gid;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* A socket file left by a daemon that died: replace it, but only a
	 * socket (never unlink a regular file named by mistake). */
	{
		struct stat st;

		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
			int probe = socket(AF_UNIX, SOCK_STREAM, 0);

			if (probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0) {
				close(probe);
				close(fd);
				log_err("ctl_socket %s: another ibsm is listening there", path);
				return -1;
			}
			if (probe >= 0)
				close(probe);
			unlink(path);
		}
	}
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 8) < 0) {
		log_err("ctl_socket %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (chmod(path, 0660) < 0 ||
	    (sm->ctl_gid != (gid_t)-1 && chown(path, (uid_t)-1, sm->ctl_gid) < 0))
		log_warn("ctl_socket %s: cannot set mode/group: %s", path, strerror(errno));
	sm->ctl_fd = fd;
	log_info("control socket: %s (ibsmctl -s %s)", path, path);
	return 0;
}

void sm_ctl_stop(struct sm *sm)
{
	if (sm->ctl_fd >= 0) {
		close(sm->ctl_fd);
		unlink(sm->cfg->ctl_socket);
	}
	sm->ctl_fd = -1;
}

static int peer_allowed(const struct sm *sm, int fd)
{
	struct ucred c;
	socklen_t len = sizeof(c);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) < 0)
		return 0;
	return c.uid == 0 || c.uid == geteuid() ||
	       (sm->ctl_gid != (gid_t)-1 && c.gid == sm->ctl_gid);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static const char *state_name(uint8_t s)
{
	static const char *const n[] = { "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER" };

	return s < 4 ? n[s] : "?";
}

static void cmd_status(struct sm *sm, FILE *f, int json)
{
	const struct fabric *fab = &sm->cur.fab;
	unsigned active = 0, linked = 0;

	for (uint32_t p = 0; p < fab->num_ports; p++) {
		if (!fab->ports[p].num || fab->ports[p].peer == FAB_NONE)
			continue;
		linked++;
		active += fab->ports[p].state == 4;
	}
	if (json) {
		fprintf(f, "{\"state\":\"%s\",\"guid\":\"0x%016llx\",\"lid\":%u,"
			"\"fabric_up\":%s,\"heavy_sweeps\":%u,\"light_sweeps\":%u,"
			"\"last_heavy_sweep_s\":%.3f,\"switches\":%u,\"cas\":%u,"
			"\"routers\":%u,\"linked_ports\":%u,\"active_ports\":%u,\"engine\":",
			state_name(sm->state), (unsigned long long)sm->guid, sm->lid,
			sm->fabric_up ? "true" : "false", sm->sweeps, sm->light_sweeps,
			sm->last_heavy_s, fab->num_switches, fab->num_cas,
			fab->num_routers, linked, active);
		json_str(f, sm->engine_used ? sm->engine_used : "");
		fputs(",\"engine_preferred\":", f);
		json_str(f, sm->route_preferred);
		fprintf(f, ",\"engine_passed_over\":\"%s\",\"tables\":\"%s\"",
			route_pass_name((enum route_pass)sm->route_reason),
			route_grade_name((enum route_grade)sm->route_grade));
		fprintf(f, ",\"perf_cycles\":%llu,\"perf_ports\":%u,\"avoided_links\":%u,\"unreachable_nodes\":%u}\n",
			(unsigned long long)sm->perf.pm.st.cycles, sm->perf.pm.num_ports,
			sm->hold.n, sm->unreach.n);
		return;
	}
	fprintf(f, "SM:        %s, port GUID 0x%016llx, LID %u\n", state_name(sm->state),
		(unsigned long long)sm->guid, sm->lid);
	fprintf(f, "fabric:    %s; %u switches, %u CAs, %u routers; %u of %u linked ports ACTIVE\n",
		sm->fabric_up ? "UP" : "NOT up", fab->num_switches, fab->num_cas,
		fab->num_routers, active, linked);
	fprintf(f, "sweeps:    %u heavy (last %.3f s), %u light\n", sm->sweeps,
		sm->last_heavy_s, sm->light_sweeps);
	fprintf(f, "routing:   %s", sm->engine_used ? sm->engine_used : "(none yet)");
	if (sm->route_reason != ROUTE_PASS_NONE)
		fprintf(f, " (%s passed over: %s)", sm->route_preferred,
			route_pass_name((enum route_pass)sm->route_reason));
	if (sm->engine_used && sm->route_grade != ROUTE_GRADE_VERIFIED)
		fprintf(f, "; tables %s", route_grade_name((enum route_grade)sm->route_grade));
	fputc('\n', f);
	fprintf(f, "perfmgr:   %s; %llu cycles, %u ports, last cycle %.3f s\n",
		sm->cfg->perf_interval_s ? "on" : "off",
		(unsigned long long)sm->perf.pm.st.cycles, sm->perf.pm.num_ports,
		sm->perf.pm.st.last_cycle_s);
	fprintf(f, "avoided:   %u links\n", sm->hold.n);
	fprintf(f, "unreachable: %u silent node%s left out of routing\n", sm->unreach.n,
		sm->unreach.n == 1 ? "" : "s");
	for (uint32_t i = 0; i < sm->unreach.n; i++) {
		const struct unreach_entry *e = &sm->unreach.e[i];

		fprintf(f, "  node 0x%016llx \"%s\" behind 0x%016llx[%u] \"%s\"\n",
			(unsigned long long)e->guid, e->desc,
			(unsigned long long)e->at_guid, e->at_port, e->at_desc);
	}
}

static double error_score(const struct pm_port *p)
{
	double s = 0;

	for (int c = 0; c < PM_NUM_COUNTERS; c++)
		if (pm_counter_desc((enum pm_counter)c)->is_error)
			s += (double)p->total[c];
	return s;
}

static int score_cmp(const void *a, const void *b)
{
	double x = error_score(*(const struct pm_port *const *)a);
	double y = error_score(*(const struct pm_port *const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

static int cmd_top(struct sm *sm, FILE *f, int json, unsigned n)
{
	struct perfmgr *pm = &sm->perf.pm;
	const struct pm_port **v = malloc((pm->num_ports ? pm->num_ports : 1) * sizeof(*v));
	uint32_t k = 0;

	if (!v)
		return -1;
	for (uint32_t i = 0; i < pm->num_ports; i++)
		if (error_score(&pm->ports[i]) > 0)
			v[k++] = &pm->ports[i];
	qsort(v, k, sizeof(*v), score_cmp);
	if (k > n)
		k = n;
	if (json)
		fputc('[', f);
	else if (!k)
		fputs("no port has counted errors\n", f);
	for (uint32_t i = 0; i < k; i++) {
		const struct pm_port *p = v[i];
		int first = 1;

		if (json) {
			fprintf(f, "%s{\"node_guid\":\"0x%016llx\",\"node_desc\":", i ? "," : "",
				(unsigned long long)p->node_guid);
			json_str(f, p->desc);
			fprintf(f, ",\"port\":%u,\"flagged\":\"%s\",\"errors\":{", p->port,
				noisy_action_name((enum noisy_action)p->flagged));
		} else {
			fprintf(f, "0x%016llx %-20s port %3u %-7s", (unsigned long long)p->node_guid,
				p->desc, p->port, p->flagged ? noisy_action_name((enum noisy_action)p->flagged) : "");
		}
		for (int c = 0; c < PM_NUM_COUNTERS; c++) {
			const struct pm_counter_desc *d = pm_counter_desc((enum pm_counter)c);

			if (!d->is_error || !p->total[c])
				continue;
			if (json)
				fprintf(f, "%s\"%s\":{\"total\":%llu,\"rate\":%.3f}", first ? "" : ",",
					d->name, (unsigned long long)p->total[c], p->rate[c]);
			else
				fprintf(f, " %s=%llu (%.2f/s)", d->name,
					(unsigned long long)p->total[c], p->rate[c]);
			first = 0;
		}
		fputs(json ? "}}" : "\n", f);
	}
	if (json)
		fputs("]\n", f);
	free(v);
	return 0;
}

static void cmd_holds(struct sm *sm, FILE *f, int json)
{
	double now = now_seconds();

	if (json)
		fputc('[', f);
	else if (!sm->hold.n)
		fputs("no links held out of routing\n", f);
	for (uint32_t i = 0; i < sm->hold.n; i++) {
		const struct link_hold_entry *e = &sm->hold.e[i];

		if (json) {
			fprintf(f, "%s{\"node_guid\":\"0x%016llx\",\"port\":%u,\"since_s\":%.1f,\"reason\":",
				i ? "," : "", (unsigned long long)e->guid, e->port, now - e->since);
			json_str(f, e->reason);
			fputc('}', f);
		} else {
			fprintf(f, "0x%016llx port %u, %.0f s: %s\n", (unsigned long long)e->guid,
				e->port, now - e->since, e->reason);
		}
	}
	if (json)
		fputs("]\n", f);
}

/* "GUID PORT": a linked switch port of the fabric. */
static int parse_link(struct sm *sm, const char *args, uint64_t *guid,
		      uint8_t *port, const char **rest, char *why, size_t wl)
{
	char *end;
	unsigned long long g;
	unsigned long p;
	uint32_t n;

	errno = 0;
	g = strtoull(args, &end, 0);
	if (errno || end == args || !isspace((unsigned char)*end)) {
		snprintf(why, wl, "want GUID PORT, e.g. 0x0002c90200000000 5");
		return -1;
	}
	args = end;
	p = strtoul(args, &end, 10);
	if (end == args || p == 0 || p > 254 || (*end && !isspace((unsigned char)*end))) {
		snprintf(why, wl, "bad port number");
		return -1;
	}
	n = fab_find_node_guid(&sm->cur.fab, g);
	if (n == FAB_NONE || p > sm->cur.fab.nodes[n].num_ports) {
		snprintf(why, wl, "no node 0x%016llx with a port %lu in the fabric", g, p);
		return -1;
	}
	*guid = g;
	*port = (uint8_t)p;
	while (isspace((unsigned char)*end))
		end++;
	*rest = end;
	return 0;
}

static int dispatch(struct sm *sm, char *line, FILE *f, char *why, size_t wl)
{
	int json = 0;
	char *cmd, *args;
	uint64_t guid;
	uint8_t port;
	const char *rest;

	while (isspace((unsigned char)*line))
		line++;
	if (!strncmp(line, "json ", 5)) {
		json = 1;
		line += 5;
	}
	cmd = line;
	args = cmd + strcspn(cmd, " \t");
	if (*args)
		*args++ = 0;
	while (isspace((unsigned char)*args))
		args++;
	if (!strcmp(cmd, "help")) {
		fputs("status | top [N] | holds | avoid GUID PORT [REASON] | disable GUID PORT [REASON] | restore GUID PORT | resweep | dump\n", f);
		return 0;
	}
	if (!strcmp(cmd, "status")) {
		cmd_status(sm, f, json);
		return 0;
	}
	if (!strcmp(cmd, "top")) {
		char *end;
		unsigned long n = *args ? strtoul(args, &end, 10) : 10;

		if (*args && (*end || n == 0 || n > 100000)) {
			snprintf(why, wl, "top wants a count, e.g. top 10");
			return -1;
		}
		return cmd_top(sm, f, json, (unsigned)n);
	}
	if (!strcmp(cmd, "holds")) {
		cmd_holds(sm, f, json);
		return 0;
	}
	if (!strcmp(cmd, "avoid") || !strcmp(cmd, "restore") ||
	    !strcmp(cmd, "disable")) {
		char reason[128];
		int rc;

		if (parse_link(sm, args, &guid, &port, &rest, why, wl) < 0)
			return -1;
		if (cmd[0] == 'a') {
			snprintf(reason, sizeof(reason), "operator%s%s", *rest ? ": " : "", rest);
			rc = sm_perf_would_split(&sm->perf, guid, port);
			if (rc > 0) {
				log_warn("ibsmctl: avoid 0x%016llx port %u refused: with the links held or down it is the last path to part of the fabric",
					 (unsigned long long)guid, port);
				snprintf(why, wl, "routing around 0x%016llx port %u would cut part of the fabric off (with the links already avoided or disabled)",
					 (unsigned long long)guid, port);
				return -1;
			}
			if (rc == 0)
				rc = link_hold_add(&sm->hold, guid, port, reason, now_seconds());
		} else if (cmd[0] == 'd') {
			snprintf(reason, sizeof(reason), "operator%s%s", *rest ? ": " : "", rest);
			rc = sm_perf_disable(&sm->perf, guid, port, 0, reason);
			if (rc == -EBUSY) {
				log_warn("ibsmctl: disable 0x%016llx port %u refused: with the links held or down it is the last path to part of the fabric",
					 (unsigned long long)guid, port);
				snprintf(why, wl, "taking 0x%016llx port %u down would split the fabric (with the links already avoided or disabled)",
					 (unsigned long long)guid, port);
				return -1;
			}
		} else {
			struct pm_port *p = perfmgr_find(&sm->perf.pm, guid, port);
			int d;

			rc = link_hold_remove(&sm->hold, guid, port);
			d = sm_perf_disable(&sm->perf, guid, port, 1, "operator");
			if (d > 0)
				rc = 1;
			if (p && (p->flagged == NOISY_AVOID || p->flagged == NOISY_DISABLE)) {
				/* The operator overrides the policy. */
				p->flagged = NOISY_NONE;
				if (sm->perf.noisy.num_acting)
					sm->perf.noisy.num_acting--;
			}
		}
		if (rc < 0) {
			snprintf(why, wl, "out of memory");
			return -1;
		}
		log_info("ibsmctl: %s 0x%016llx port %u%s", cmd, (unsigned long long)guid,
			 port, rc ? ": rerouting" : " (nothing to change)");
		if (rc) {
			sm->heavy_wanted = 1;
			sm->next_heavy_at = now_seconds();
		}
		fprintf(f, json ? "{\"changed\":%s}\n" : "%s\n",
			json ? (rc ? "true" : "false")
			     : (rc ? "rerouting" : "nothing to change"));
		return 0;
	}
	if (!strcmp(cmd, "resweep")) {
		log_info("ibsmctl: resweep: heavy sweep");
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now_seconds();
		fputs(json ? "{\"resweep\":true}\n" : "heavy sweep requested\n", f);
		return 0;
	}
	if (!strcmp(cmd, "dump")) {
		if (sm_write_dumps(sm, sm->dump_dir) < 0) {
			snprintf(why, wl, "could not write every dump (see the log)");
			return -1;
		}
		if (json) {
			fputs("{\"dir\":", f);
			json_str(f, sm->dump_dir);
			fputs("}\n", f);
		} else {
			fprintf(f, "%s\n", sm->dump_dir);
		}
		return 0;
	}
	snprintf(why, wl, "unknown command '%.40s' (try help)", cmd);
	return -1;
}

int sm_ctl_command(struct sm *sm, const char *line, char **out, size_t *len)
{
	char buf[CTL_LINE_MAX + 1], why[160] = "", *body = NULL;
	size_t blen = 0;
	FILE *f, *o;
	int rc;

	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "\r\n")] = 0;
	for (char *p = buf; *p; p++)
		if (!isprint((unsigned char)*p) && *p != '\t') {
			snprintf(why, sizeof(why), "not a command line (binary data)");
			break;
		}
	f = open_memstream(&body, &blen);
	if (!f)
		return -1;
	rc = why[0] ? -1 : dispatch(sm, buf, f, why, sizeof(why));
	fclose(f);
	o = open_memstream(out, len);
	if (!o) {
		free(body);
		return -1;
	}
	if (rc < 0)
		fprintf(o, "error: %s\n", why[0] ? why : "failed");
	else
		fprintf(o, "ok\n%s", body ? body : "");
	fclose(o);
	free(body);
	return rc;
}

/* One connection: read a line (up to CTL_READ_MS), answer, close. */
static void serve(struct sm *sm, int fd)
{
	char line[CTL_LINE_MAX + 2];
	size_t got = 0;
	char *out = NULL;
	size_t len = 0;
	double end = now_seconds() + CTL_READ_MS / 1000.0;

	if (!peer_allowed(sm, fd)) {
		static const char msg[] = "error: permission denied (root, the daemon's user or ctl_group)\n";

		if (send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL) < 0) { /* nothing to do */ }
		return;
	}
	while (got < sizeof(line) - 1 && !memchr(line, '\n', got)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int ms = (int)((end - now_seconds()) * 1000);
		ssize_t n;

		if (ms <= 0 || poll(&p, 1, ms) <= 0)
			break;
		n = read(fd, line + got, sizeof(line) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	line[got] = 0;
	if (!memchr(line, '\n', got)) {
		static const char msg[] = "error: want one command line ending in a newline (at most 512 bytes, within 200 ms)\n";

		log_debug("ibsmctl: bad request of %zu bytes dropped", got);
		if (send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL) < 0) { /* nothing to do */ }
		return;
	}
	if (strlen(line) < got) {
		static const char msg[] = "error: not a command line (binary data)\n";

		if (send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL) < 0) { /* nothing to do */ }
		return;
	}
	sm_ctl_command(sm, line, &out, &len);
	for (size_t off = 0; out && off < len;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0)
			break;
		n = send(fd, out + off, len - off, MSG_NOSIGNAL);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(out);
}

void sm_ctl_tick(struct sm *sm)
{
	if (sm->ctl_fd < 0)
		return;
	for (int i = 0; i < 8; i++) {
		int fd = accept4(sm->ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		serve(sm, fd);
		/* Read what the client sent beyond its line, so closing does
		 * not reset the connection before it read our answer. */
		shutdown(fd, SHUT_WR);
		{
			char sink[4096];
			int k = 0;

			while (k++ < 16 && read(fd, sink, sizeof(sink)) > 0)
				;
		}
		close(fd);
	}
}
