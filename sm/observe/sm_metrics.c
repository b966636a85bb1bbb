/* Rendering the SM's metrics. Per-port series: traffic counters for
 * every polled port; error counters and rates only where nonzero (most
 * ports have none, and a fabric of 70,000 ports would otherwise export
 * millions of zero series). */
#include "sm_metrics.h"
#include "../sm_service.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../core/log.h"
#include "metrics_http.h"
#include "../sm_state.h"

#define REFRESH_S 5.0

int sm_metrics_start(struct sm *sm)
{
	if (!sm->cfg->metrics_listen[0])
		return 0;
	{
		struct metrics_limits lim = {
			.max_conns = sm->cfg->metrics_max_connections,
			.per_ip = sm->cfg->metrics_per_ip_connections,
			.timeout_s = sm->cfg->metrics_timeout_s,
		};

		sm->metrics = metrics_http_start(sm->cfg->metrics_listen, &lim);
	}
	return sm->metrics ? 0 : -1;
}

void sm_metrics_stop(struct sm *sm)
{
	metrics_http_stop(sm->metrics);
	sm->metrics = NULL;
}

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void port_labels(FILE *f, const struct pm_port *p, const char *counter)
{
	fprintf(f, "{node_guid=\"0x%016llx\",node_desc=",
		(unsigned long long)p->node_guid);
	label(f, p->desc);
	fprintf(f, ",port=\"%u\",counter=\"%s\"}", p->port, counter);
}

static void inventory(FILE *f, const struct sm *sm)
{
	const struct fabric *fab = &sm->cur.fab;
	static const char *const states[] = { "unknown", "down", "init", "armed", "active" };
	unsigned by_state[5] = { 0 }, links = 0;

	for (uint32_t p = 0; p < fab->num_ports; p++) {
		const struct fab_port *fp = &fab->ports[p];

		if (fp->num == 0)
			continue;
		by_state[fp->state <= 4 ? fp->state : 0]++;
		if (fp->peer != FAB_NONE && fp->peer > p)
			links++;
	}
	head(f, "ibsm_nodes", "gauge", "Nodes in the fabric as last swept, by type.");
	fprintf(f, "ibsm_nodes{type=\"switch\"} %u\nibsm_nodes{type=\"ca\"} %u\nibsm_nodes{type=\"router\"} %u\n",
		fab->num_switches, fab->num_cas, fab->num_routers);
	head(f, "ibsm_links", "gauge", "Links in the fabric as last swept.");
	fprintf(f, "ibsm_links %u\n", links);
	head(f, "ibsm_ports", "gauge", "Physical ports by PortState at the last sweep.");
	for (int s = 0; s < 5; s++)
		fprintf(f, "ibsm_ports{state=\"%s\"} %u\n", states[s], by_state[s]);
	head(f, "ibsm_sm_state", "gauge", "SMInfo state: 1 discovering, 2 standby, 3 master.");
	fprintf(f, "ibsm_sm_state %u\n", sm->state);
	head(f, "ibsm_fabric_up", "gauge", "1 when the last heavy sweep brought every port up.");
	fprintf(f, "ibsm_fabric_up %d\n", sm->fabric_up);
	head(f, "ibsm_routing_engine_info", "gauge",
	     "The routing engine that made the programmed tables, the first engine of the list, why it was passed over, and what the tables are (verified, credit_loop, partial).");
	fputs("ibsm_routing_engine_info{engine=", f);
	label(f, sm->engine_used ? sm->engine_used : "none");
	fputs(",preferred=", f);
	label(f, sm->route_preferred[0] ? sm->route_preferred :
		 sm->engine_used ? sm->engine_used : "none");
	fprintf(f, ",reason=\"%s\",tables=\"%s\"} 1\n",
		route_pass_name((enum route_pass)sm->route_reason),
		route_grade_name((enum route_grade)sm->route_grade));
	head(f, "ibsm_routing_fallbacks_total", "counter",
	     "Routing engines passed over since start (the next engine of the list was tried), by reason.");
	for (int p = 1; p < ROUTE_PASS_N; p++)
		fprintf(f, "ibsm_routing_fallbacks_total{reason=\"%s\"} %llu\n",
			route_pass_name((enum route_pass)p),
			(unsigned long long)sm->route_fallbacks[p]);
}

static void quotas(FILE *f, const struct sa_quota *q)
{
	head(f, "ibsm_sa_quota_limit", "gauge", "Per-port quota, by kind (0: no limit).");
	for (int k = 0; k < SA_QUOTA_KINDS; k++)
		fprintf(f, "ibsm_sa_quota_limit{kind=\"%s\"} %u\n",
			sa_quota_name((enum sa_quota_kind)k), q->max[k]);
	head(f, "ibsm_sa_quota_refused_total", "counter", "SA requests refused (ERR_NO_RESOURCES) because the port was at its quota, by kind.");
	for (int k = 0; k < SA_QUOTA_KINDS; k++)
		fprintf(f, "ibsm_sa_quota_refused_total{kind=\"%s\"} %llu\n",
			sa_quota_name((enum sa_quota_kind)k),
			(unsigned long long)q->refused[k]);
	head(f, "ibsm_sa_services_owner_gone_total", "counter", "ServiceRecords dropped because the port that registered them left the fabric.");
	fprintf(f, "ibsm_sa_services_owner_gone_total %llu\n",
		(unsigned long long)q->services_owner_gone);
}

static void activity(FILE *f, const struct sm *sm)
{
	const struct mt_stats *m = mt_get_stats(sm->t);
	const struct sa_stats *sa = &sm->sa.st;

	head(f, "ibsm_persistence_ok", "gauge", "1 when guid2lid, the SA state and dumps were last written fine, 0 when one could not be (cache_dir or dump_dir not writable).");
	fprintf(f, "ibsm_persistence_ok %d\n", sm->persist_lost ? 0 : 1);
	head(f, "ibsm_persistence_failures_total", "counter", "Writes of persistent state (guid2lid, SA state, dumps) that failed.");
	fprintf(f, "ibsm_persistence_failures_total %llu\n", (unsigned long long)sm->persist_failures);
	head(f, "ibsm_heavy_sweeps_total", "counter", "Heavy sweeps (discover, route, program).");
	fprintf(f, "ibsm_heavy_sweeps_total %u\n", sm->sweeps);
	head(f, "ibsm_light_sweeps_total", "counter", "Light sweeps (SwitchInfo poll).");
	fprintf(f, "ibsm_light_sweeps_total %u\n", sm->light_sweeps);
	head(f, "ibsm_heavy_sweep_last_seconds", "gauge", "Duration of the last heavy sweep.");
	fprintf(f, "ibsm_heavy_sweep_last_seconds %.6f\n", sm->last_heavy_s);
	head(f, "ibsm_heavy_sweep_seconds_total", "counter", "Time spent in heavy sweeps.");
	fprintf(f, "ibsm_heavy_sweep_seconds_total %.6f\n", sm->heavy_s_total);
	head(f, "ibsm_sminfo_controls_total", "counter",
	     "SubnSet(SMInfo) controls received, by verdict (obeyed or why refused).");
	for (int v = 0; v < SMCTL_NUM_VERDICTS; v++)
		fprintf(f, "ibsm_sminfo_controls_total{verdict=\"%s\"} %llu\n",
			smctl_verdict_label((enum smctl_verdict)v),
			(unsigned long long)sm->standby.controls[v]);
	head(f, "ibsm_mads_sent_total", "counter", "MADs sent, retries included.");
	fprintf(f, "ibsm_mads_sent_total %llu\n", (unsigned long long)m->sent);
	head(f, "ibsm_mads_received_total", "counter", "Responses matched to a request.");
	fprintf(f, "ibsm_mads_received_total %llu\n", (unsigned long long)m->received);
	head(f, "ibsm_mads_timed_out_total", "counter", "Tries that got no answer.");
	fprintf(f, "ibsm_mads_timed_out_total %llu\n", (unsigned long long)m->timed_out);
	head(f, "ibsm_mads_retried_total", "counter", "Re-sends after a timeout.");
	fprintf(f, "ibsm_mads_retried_total %llu\n", (unsigned long long)m->retried);
	head(f, "ibsm_mads_failed_total", "counter", "Requests that ran out of retries.");
	fprintf(f, "ibsm_mads_failed_total %llu\n", (unsigned long long)m->failed);
	head(f, "ibsm_sa_requests_total", "counter", "SA requests received.");
	fprintf(f, "ibsm_sa_requests_total %llu\n", (unsigned long long)sa->requests);
	head(f, "ibsm_sa_errors_total", "counter", "SA requests answered with an error status.");
	fprintf(f, "ibsm_sa_errors_total %llu\n", (unsigned long long)sa->errors);
	head(f, "ibsm_sa_records_total", "counter", "SA records sent.");
	fprintf(f, "ibsm_sa_records_total %llu\n", (unsigned long long)sa->records);
	head(f, "ibsm_sa_deferred_total", "counter", "SA requests queued for a later slice of SA work.");
	fprintf(f, "ibsm_sa_deferred_total %llu\n", (unsigned long long)m->deferred);
	head(f, "ibsm_sa_dropped_total", "counter", "SA requests dropped: queue or the requester's share of it full.");
	fprintf(f, "ibsm_sa_dropped_total %llu\n", (unsigned long long)m->deferred_dropped);
	head(f, "ibsm_sa_rmpp_budget_dropped_total", "counter", "RMPP answers dropped to stay within the memory budget.");
	fprintf(f, "ibsm_sa_rmpp_budget_dropped_total %llu\n", (unsigned long long)sa->rmpp_budget_dropped);
	head(f, "ibsm_sa_busy_total", "counter", "SA answers cut for a sweep that became due (answered Busy).");
	fprintf(f, "ibsm_sa_busy_total %llu\n", (unsigned long long)sa->busy);
	head(f, "ibsm_sa_rmpp_kept_bytes", "gauge", "Bytes of RMPP answers kept for their readers.");
	fprintf(f, "ibsm_sa_rmpp_kept_bytes %zu\n", sa_server_kept_bytes(&sm->sa));
	head(f, "ibsm_reports_sent_total", "counter", "Reports sent to subscribers.");
	fprintf(f, "ibsm_reports_sent_total %llu\n", (unsigned long long)sm->report.sent);
	head(f, "ibsm_reports_failed_total", "counter", "Reports unanswered or not sent (queue full).");
	fprintf(f, "ibsm_reports_failed_total %llu\n", (unsigned long long)sm->report.failed);
	head(f, "ibsm_report_subscribers_dropped_total", "counter", "Subscriber ports dropped for ignoring Reports.");
	fprintf(f, "ibsm_report_subscribers_dropped_total %llu\n", (unsigned long long)sm->report.dropped_ports);
	quotas(f, &sm->sa.ctx.quota);
}

static void perf(FILE *f, const struct sm *sm)
{
	const struct perfmgr *pm = &sm->perf.pm;
	const struct noisy *n = &sm->perf.noisy;

	head(f, "ibsm_perf_cycles_total", "counter", "PerfMgr cycles over every linked port.");
	fprintf(f, "ibsm_perf_cycles_total %llu\n", (unsigned long long)pm->st.cycles);
	head(f, "ibsm_perf_cycle_last_seconds", "gauge", "Duration of the last PerfMgr cycle.");
	fprintf(f, "ibsm_perf_cycle_last_seconds %.6f\n", pm->st.last_cycle_s);
	head(f, "ibsm_perf_ports", "gauge", "Ports the PerfMgr polls.");
	fprintf(f, "ibsm_perf_ports %u\n", pm->num_ports);
	head(f, "ibsm_perf_mads_total", "counter", "PerfMgt MADs sent.");
	fprintf(f, "ibsm_perf_mads_total %llu\n", (unsigned long long)pm->st.mads);
	head(f, "ibsm_perf_mads_failed_total", "counter", "PerfMgt MADs refused or unanswered.");
	fprintf(f, "ibsm_perf_mads_failed_total %llu\n", (unsigned long long)pm->st.mads_failed);
	head(f, "ibsm_perf_counter_resets_total", "counter", "Counters found reset by someone else.");
	fprintf(f, "ibsm_perf_counter_resets_total %llu\n", (unsigned long long)pm->st.resets);
	head(f, "ibsm_perf_counter_clears_total", "counter", "PortCounters cleared by the PerfMgr.");
	fprintf(f, "ibsm_perf_counter_clears_total %llu\n", (unsigned long long)pm->st.clears);
	head(f, "ibsm_noisy_flagged_total", "counter", "Ports flagged by the noisy-link policy.");
	fprintf(f, "ibsm_noisy_flagged_total %llu\n", (unsigned long long)n->flagged_total);
	head(f, "ibsm_noisy_restored_total", "counter", "Flagged ports restored after a quiet period.");
	fprintf(f, "ibsm_noisy_restored_total %llu\n", (unsigned long long)n->restored_total);

	head(f, "ibsm_port_counter_total", "counter",
	     "Port counters summed over every reading since the port was first seen (traffic always, errors when nonzero).");
	for (uint32_t i = 0; i < pm->num_ports; i++) {
		const struct pm_port *p = &pm->ports[i];

		if (!p->have_last)
			continue;
		for (int c = 0; c < PM_NUM_COUNTERS; c++) {
			const struct pm_counter_desc *d = pm_counter_desc((enum pm_counter)c);

			if (d->is_error && !p->total[c])
				continue;
			fputs("ibsm_port_counter_total", f);
			port_labels(f, p, d->metric);
			fprintf(f, " %llu\n", (unsigned long long)p->total[c]);
		}
	}
	head(f, "ibsm_port_error_rate", "gauge",
	     "Error counters per second over the last PerfMgr interval (nonzero only).");
	for (uint32_t i = 0; i < pm->num_ports; i++) {
		const struct pm_port *p = &pm->ports[i];

		for (int c = 0; c < PM_NUM_COUNTERS; c++) {
			const struct pm_counter_desc *d = pm_counter_desc((enum pm_counter)c);

			if (!d->is_error || p->rate[c] <= 0)
				continue;
			fputs("ibsm_port_error_rate", f);
			port_labels(f, p, d->metric);
			fprintf(f, " %.6f\n", p->rate[c]);
		}
	}
}

/* A set of link ends: its size, then one series per end with the reason. */
static void link_set(FILE *f, const struct link_hold *h, const char *count,
		     const char *count_help, const char *each,
		     const char *each_help)
{
	head(f, count, "gauge", count_help);
	fprintf(f, "%s %u\n", count, h->n);
	head(f, each, "gauge", each_help);
	for (uint32_t i = 0; i < h->n; i++) {
		const struct link_hold_entry *e = &h->e[i];

		fprintf(f, "%s{node_guid=\"0x%016llx\",port=\"%u\",reason=", each,
			(unsigned long long)e->guid, e->port);
		label(f, e->reason);
		fputs("} 1\n", f);
	}
}

static void holds(FILE *f, const struct sm *sm)
{
	link_set(f, &sm->hold, "ibsm_avoided_links", "Links held out of routing.",
		 "ibsm_link_avoided", "A held-out link, by one end, with the reason.");
	/* The disable action: both ends of each link are listed. */
	link_set(f, &sm->down, "ibsm_disabled_link_ends",
		 "Link ends the SM keeps Down/Disabled (disable action, ibsmctl disable).",
		 "ibsm_link_end_disabled", "A link end kept Down/Disabled, with the reason.");
}

/* Silent nodes left out of routing (unreachable.h): how many, and one
 * series per node, its value the seconds it has been silent. */
static void unreachable(FILE *f, const struct sm *sm, double now)
{
	const struct unreach *u = &sm->unreach;
	char path[200];

	head(f, "ibsm_unreachable_nodes", "gauge",
	     "Nodes left out of routing because they never answer (silent for missing_grace s in every sweep).");
	fprintf(f, "ibsm_unreachable_nodes %u\n", u->n);
	head(f, "ibsm_unreachable_node_seconds", "gauge",
	     "A silent node left out of routing, by the port it hangs off and the DR path; its GUID when ever seen; seconds silent.");
	for (uint32_t i = 0; i < u->n; i++) {
		const struct unreach_entry *e = &u->e[i];

		fprintf(f, "ibsm_unreachable_node_seconds{node_guid=\"0x%016llx\",node_desc=",
			(unsigned long long)e->guid);
		label(f, e->desc);
		fprintf(f, ",at_guid=\"0x%016llx\",at_desc=", (unsigned long long)e->at_guid);
		label(f, e->at_desc);
		fprintf(f, ",at_port=\"%u\",dr_path=", e->at_port);
		label(f, smp_path_str(&e->path, path, sizeof(path)));
		fprintf(f, "} %.1f\n", e->since ? now - e->since : 0.0);
	}
}

/* Something the page shows changed since it was made (the checks
 * sm_metrics_tick makes before rebuilding it). */
static int metrics_stale(const struct sm *sm)
{
	return sm->metrics_sweeps != sm->sweeps + sm->light_sweeps ||
	       sm->metrics_cycles != sm->perf.pm.st.cycles ||
	       sm->metrics_holds != sm->hold.n;
}

double sm_metrics_next_deadline(const struct sm *sm, double now)
{
	if (!sm->metrics)
		return SM_NEVER;
	return metrics_stale(sm) ? now : sm->metrics_at + REFRESH_S;
}

void sm_metrics_tick(struct sm *sm, double now)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!sm->metrics)
		return;
	if (now - sm->metrics_at < REFRESH_S && !metrics_stale(sm))
		return;
	sm->metrics_at = now;
	sm->metrics_sweeps = sm->sweeps + sm->light_sweeps;
	sm->metrics_cycles = sm->perf.pm.st.cycles;
	sm->metrics_holds = sm->hold.n;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	inventory(f, sm);
	activity(f, sm);
	perf(f, sm);
	holds(f, sm);
	unreachable(f, sm, now);
	if (fclose(f) == 0)
		metrics_http_publish(sm->metrics, buf, len);
	free(buf);
}
