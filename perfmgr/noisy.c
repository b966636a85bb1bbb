/* Noisy-link thresholds, hysteresis and the JSON-lines event log. */
#include "noisy.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "../core/log.h"

const char *noisy_action_name(enum noisy_action a)
{
	switch (a) {
	case NOISY_REPORT: return "report";
	case NOISY_AVOID: return "avoid";
	case NOISY_DISABLE: return "disable";
	default: return "none";
	}
}

enum noisy_action noisy_action_parse(const char *s)
{
	for (int a = NOISY_REPORT; a <= NOISY_DISABLE; a++)
		if (!strcmp(s, noisy_action_name((enum noisy_action)a)))
			return (enum noisy_action)a;
	return NOISY_NONE;
}

int noisy_init(struct noisy *n, const struct noisy_opts *o,
	       const char *event_log, noisy_act_fn act, void *ctx)
{
	memset(n, 0, sizeof(*n));
	n->o = *o;
	n->act = act;
	n->ctx = ctx;
	if (event_log && *event_log) {
		n->events = fopen(event_log, "a");
		if (!n->events) {
			int e = errno;

			log_err("cannot open perf_event_log %s: %s", event_log,
				strerror(e));
			return -e;
		}
		setvbuf(n->events, NULL, _IOLBF, 0);
	}
	return 0;
}

void noisy_free(struct noisy *n)
{
	if (n->events)
		fclose(n->events);
	n->events = NULL;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void noisy_event(struct noisy *n, const char *event, const struct pm_port *p,
		 const char *reason)
{
	char ts[40];
	struct timespec now;
	struct tm tm;
	int first = 1;

	if (!n->events)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(n->events, "{\"time\":\"%s.%03ldZ\",\"event\":", ts,
		now.tv_nsec / 1000000);
	json_str(n->events, event);
	fprintf(n->events, ",\"node_guid\":\"0x%016llx\",\"node_desc\":",
		(unsigned long long)p->node_guid);
	json_str(n->events, p->desc);
	fprintf(n->events, ",\"port\":%u,\"lid\":%u,\"peer_guid\":\"0x%016llx\",\"peer_desc\":",
		p->port, p->lid, (unsigned long long)p->peer_guid);
	json_str(n->events, p->peer_desc);
	fprintf(n->events, ",\"peer_port\":%u,\"reason\":", p->peer_port);
	json_str(n->events, reason);
	fputs(",\"counters\":{", n->events);
	for (int c = 0; c < PM_NUM_COUNTERS; c++) {
		const struct pm_counter_desc *d = pm_counter_desc((enum pm_counter)c);

		if (!d->is_error)
			continue;
		fprintf(n->events, "%s\"%s\":{\"value\":%llu,\"delta\":%llu,\"rate\":%.3f}",
			first ? "" : ",", d->name,
			(unsigned long long)p->last.v[c],
			(unsigned long long)p->delta[c], p->rate[c]);
		first = 0;
	}
	fputs("}}\n", n->events);
}

/* The first counter at or above its threshold (x scale), -1 if none. */
static int over(const struct noisy *n, const struct pm_port *p, double scale)
{
	for (int c = 0; c < PM_NUM_COUNTERS; c++) {
		double th = n->o.threshold[c];

		if (th > 0 && p->rate[c] >= th * scale && p->delta[c] > 0)
			return c;
	}
	return -1;
}

static void flag(struct noisy *n, struct pm_port *p, int c, double now)
{
	const struct pm_counter_desc *d = pm_counter_desc((enum pm_counter)c);
	enum noisy_action a = n->o.action;
	char reason[256], why[128] = "";

	snprintf(reason, sizeof(reason), "%s %.2f/s >= %g/s", d->name,
		 p->rate[c], n->o.threshold[c]);
	if (a != NOISY_REPORT && (!p->is_switch || !p->peer_is_switch)) {
		snprintf(why, sizeof(why), "; a host link: %s would cut the host off, reported only",
			 noisy_action_name(a));
		a = NOISY_REPORT;
	}
	if (a != NOISY_REPORT && n->num_acting >= n->o.max_avoided) {
		snprintf(why, sizeof(why), "; perf_max_avoided (%u) links already acted on, reported only",
			 n->o.max_avoided);
		a = NOISY_REPORT;
	}
	if (a != NOISY_REPORT && n->act && n->act(n->ctx, p, a, 0, reason) < 0) {
		snprintf(why, sizeof(why), "; %s failed, reported only",
			 noisy_action_name(a));
		a = NOISY_REPORT;
	}
	if (a != NOISY_REPORT)
		n->num_acting++;
	p->flagged = (uint8_t)a;
	p->flagged_at = now;
	p->quiet_since = 0;
	n->flagged_total++;
	log_warn("perfmgr: noisy link 0x%016llx \"%s\" port %u -> 0x%016llx \"%s\" port %u: %s: %s%s",
		 (unsigned long long)p->node_guid, p->desc, p->port,
		 (unsigned long long)p->peer_guid, p->peer_desc, p->peer_port,
		 reason, noisy_action_name(a), why);
	strncat(reason, why, sizeof(reason) - strlen(reason) - 1);
	noisy_event(n, noisy_action_name(a), p, reason);
}

static void restore(struct noisy *n, struct pm_port *p, double now)
{
	enum noisy_action a = (enum noisy_action)p->flagged;
	char reason[160];

	snprintf(reason, sizeof(reason),
		 "quiet for %.0f s (every error rate below %g x its threshold) after %.0f s flagged",
		 now - p->quiet_since, n->o.restore_fraction, now - p->flagged_at);
	if (a != NOISY_REPORT) {
		if (n->act)
			n->act(n->ctx, p, a, 1, reason);
		if (n->num_acting)
			n->num_acting--;
	}
	p->flagged = NOISY_NONE;
	p->quiet_since = 0;
	n->restored_total++;
	log_info("perfmgr: link 0x%016llx \"%s\" port %u restored (%s was taken): %s",
		 (unsigned long long)p->node_guid, p->desc, p->port,
		 noisy_action_name(a), reason);
	noisy_event(n, "restore", p, reason);
}

void noisy_sample(struct noisy *n, struct pm_port *p, double now)
{
	int c;

	if (!p->flagged) {
		c = over(n, p, 1.0);
		if (c >= 0)
			flag(n, p, c, now);
		return;
	}
	/* Hysteresis: quiet is well below the thresholds, for long enough. */
	if (over(n, p, n->o.restore_fraction) >= 0) {
		p->quiet_since = 0;
		return;
	}
	if (!p->quiet_since)
		p->quiet_since = now;
	if (now - p->quiet_since >= n->o.quiet_s)
		restore(n, p, now);
}
