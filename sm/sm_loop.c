/* The SM's event loop: the first heavy sweep (and --once), then sleep
 * until the earliest of the services' deadlines (sm_service.h), the next
 * light sweep and a wanted heavy sweep; MADs, the control socket and
 * signals wake it sooner. An idle SM with nothing due sleeps in poll(2)
 * (at most LOOP_MAX_SLEEP_MS at a time, a safety net, not a timer). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/mad.h>

#include "sm_state.h"
#include "sm_service.h"
#include "sm_sa_state.h"
#include "sm_qos.h"
#include "../core/log.h"

#define LOOP_MAX_SLEEP_MS 1000
/* While MADs stream in, the services are asked at most this often (and
 * at every deadline): a MAD that gives one of them work (a join, an SA
 * ask for an SL2VL table) waits at most this long, and a query costs no
 * pass over the table (issue 27: the per-wakeup pass was a third of the
 * SM's own CPU under osmtest's query stream). */
#define SVC_PASS_S 0.001

/* Empty the signal pipe (the flags say what came). */
static void drain(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int following(const struct sm *sm)
{
	return sm->state == SMP_SM_STANDBY || sm->state == SMP_SM_NOTACTIVE;
}

/* Milliseconds poll may sleep: until the first deadline (t: the
 * services'; rounded up, so a deadline is past when the loop looks
 * again), 0 if one is due. */
static int sleep_ms(const struct sm *sm, double now, double t, double next_light)
{

	if (!following(sm)) {
		if (sm->heavy_wanted && sm->next_heavy_at < t)
			t = sm->next_heavy_at;
		if (!sm->heavy_wanted && sm->cfg->sweep_interval_s && next_light < t)
			t = next_light;
	}
	if (t <= now)
		return 0;
	if (t - now >= LOOP_MAX_SLEEP_MS / 1000.0)
		return LOOP_MAX_SLEEP_MS;
	{
		/* ceil, without the libm call (0 < ms < 1000 here) */
		double ms = (t - now) * 1000.0;
		int ims = (int)ms;

		return ims < ms ? ims + 1 : ims;
	}
}

/* After each heavy sweep as master: a fabric not fully up (answers lost
 * even after the sweep's own rounds, a port that did not go ACTIVE, a
 * switch that failed) is swept again soon, 0.2 s doubling up to the
 * light-sweep interval, instead of at the next light sweep; the sweep
 * sends only what differs, so a try costs what is still missing. When it
 * comes up, log what convergence took (issue 10). */
static void note_convergence(struct sm *sm, int rc)
{
	const struct ibsm_config *cfg = sm->cfg;
	double now = now_seconds();
	uint64_t sent = mt_get_stats(sm->t)->sent;

	if (rc < 0 || rc == SM_SWEEP_STANDBY || sm->state == SMP_SM_STANDBY ||
	    sm->state == SMP_SM_NOTACTIVE)
		return;
	if (rc == 0) {
		if (sm->notup_since)
			log_info("converged: fabric UP after %u heavy sweep%s not up, %.2f s and %llu MADs from the first of them",
				 sm->notup_sweeps, sm->notup_sweeps == 1 ? "" : "s",
				 now - sm->notup_since,
				 (unsigned long long)(sent - sm->notup_mads));
		sm->notup_since = 0;
		sm->notup_sweeps = 0;
		sm->notup_delay = 0;
		return;
	}
	if (!sm->notup_since) {
		sm->notup_since = sm->last_heavy_end - sm->last_heavy_s;
		sm->notup_mads = sm->sweep_mads0;
	}
	sm->notup_sweeps++;
	if (sm->route_refused || sm->dup_guids)
		return;  /* sweeping again does not fix these */
	sm->notup_delay = sm->notup_delay ? sm->notup_delay * 2 : 0.2;
	if (cfg->sweep_interval_s && sm->notup_delay > cfg->sweep_interval_s)
		sm->notup_delay = cfg->sweep_interval_s;
	if (!sm->heavy_wanted) {
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now + sm->notup_delay;
		log_info("fabric not fully up: heavy sweep again in %.1f s", sm->notup_delay);
	}
}

/* The slice of SA work a turn serves (sm_sa_slice's, at most 1 s). */
static void set_sa_slice(struct sm *sm)
{
	struct mt_slice sl = {
		sm->cfg->sa_slice_requests, sm_sa_slice_s(sm, 1.0),
		sm_sa_preempted, sm
	};

	mt_set_slice(sm->t, &sl);
}

int sm_run(struct sm *sm, const struct sm_signals *sig)
{
	const struct ibsm_config *cfg = sm->cfg;
	double t0 = now_seconds(), next_light;
	int rc = sm_heavy_sweep(sm);

	note_convergence(sm, rc);

	/* --once: a lossy fabric may leave parts unconfigured, or a view may
	 * be held (sweep_guard.h); sweep again, with the guard's backoff,
	 * for once_timeout seconds (only what is missing is sent). */
	/* Sweeping again does not fix a route refused or a duplicate GUID. */
	while (cfg->once && rc > 0 && rc != SM_SWEEP_STANDBY &&
	       !sm->route_refused && !sm->dup_guids &&
	       !*sig->stop &&
	       now_seconds() - t0 < cfg->once_timeout_s) {
		while (now_seconds() < sm->next_heavy_at && !*sig->stop)
			if (mt_poll(sm->t, mt_deferred(sm->t) ? 0 : 50) < 0 ||
			    sm_sa_slice(sm, 1.0) < 0)
				return 2;
		log_info("fabric not fully up: sweeping again (%.1f of %u s)",
			 now_seconds() - t0, cfg->once_timeout_s);
		rc = sm_heavy_sweep(sm);
		note_convergence(sm, rc);
	}
	if (cfg->once && rc == SM_SWEEP_STANDBY) {
		log_err("another SM is master of this subnet: --once changes nothing");
		return 3;
	}
	if (cfg->once && rc > 0)
		log_err("fabric not up after %u sweeps in %.1f s", sm->sweeps,
			now_seconds() - t0);
	if (rc == 0 && cfg->dump_dir[0])
		sm_write_dumps(sm, sm->dump_dir);
	if (cfg->once && rc == 0 && sm->persist_lost) {
		log_err("--once: the fabric is up, but its state was not saved (see \"persistence lost\" above): exit 4");
		return 4;
	}
	if (cfg->once)
		return rc == 0 ? 0 : 2;
	next_light = now_seconds() + cfg->sweep_interval_s;
	mt_watch_fd(sm->t, 0, sm->ctl_fd);
	mt_watch_fd(sm->t, 1, sig->wake_fd);
	double due = 0;         /* the services' earliest deadline */
	double pass_at = 0;     /* when the services were last asked */
	int skipped = 0;        /* a wakeup since did not ask them */
	double now = now_seconds();
	/* The SA's slice (sm_sa_slice's), set once, again after a reload. */
	set_sa_slice(sm);
	while (!*sig->stop) {
		int changed = 0, fresh;

		/* Sleep until the earliest thing due: a service's deadline (or
		 * the pass a wakeup put off), the next light or heavy sweep; a
		 * MAD, the control socket or a signal ends the sleep sooner;
		 * no sleep while SA requests wait (mt_poll_turn). */
		int ready = mt_poll_turn(sm->t,
			sleep_ms(sm, now, skipped ? pass_at + SVC_PASS_S : due, next_light));

		rc = ready < 0 ? ready : mt_serve_next(sm->t);
		if (rc < 0) {
			log_err("MAD transport failed: %s", strerror(-rc));
			return 1;
		}
		if (ready & 1)
			sm->ctl_ready = 1;
		if (ready & 2)
			drain(sig->wake_fd);
		if (*sig->dump) {
			*sig->dump = 0;
			sm_write_dumps(sm, sm->dump_dir);
		}
		if (*sig->resweep) {
			*sig->resweep = 0;
			if (sig->reload && sig->reload(sig->reload_arg) == 0) {
				/* the SA's copies of live keys */
				sm->sa.ctx.packet_life_time = cfg->packet_life_time;
				sm->sa.ctx.subnet_timeout = cfg->subnet_timeout;
				sm_qos_load(sm, 0);
				set_sa_slice(sm);
			}
			log_info("SIGHUP: heavy sweep");
			sm->heavy_wanted = 1;
		}
		/* The turn's one clock read when nothing below runs (issue
		 * 27): the transport reads none for an SA request (nothing in
		 * flight to expire, a slice of one), and the next sleep is
		 * timed from this read unless a pass or a sweep ran since. */
		now = now_seconds();
		fresh = 1;
		skipped = now < due && now - pass_at < SVC_PASS_S;
		if (following(sm)) {
			/* Following another SM (or disabled by one): poll it,
			 * program nothing, keep answering SMInfo and the control
			 * socket (the services that run in this state). */
			if (!skipped) {
				sm_services_tick(sm, now, &due);
				pass_at = now;
				fresh = 0;
			}
			if (following(sm))
				continue;
			now = now_seconds();
			skipped = 0;    /* taking over: look at everything */
		}
		if (!sm->heavy_wanted && cfg->sweep_interval_s && now >= next_light) {
			rc = sm_light_sweep(sm, &changed);
			if (rc < 0)
				return 1;
			next_light = now_seconds() + cfg->sweep_interval_s;
			now = now_seconds();
		}
		if (!skipped) {
			if (sm_services_tick(sm, now, &due) && !sm->heavy_wanted) {
				sm->heavy_wanted = 1;
				sm->next_heavy_at = now;
			}
			pass_at = now;
			fresh = 0;
		}
		if ((sm->heavy_wanted && now >= sm->next_heavy_at) || changed) {
			int taking_over = sm->state == SMP_SM_DISCOVERING &&
					  sm->standby.takeover_at > 0;

			rc = sm_heavy_sweep(sm);
			if (rc < 0 && rc != -EIO)
				return 1;
			note_convergence(sm, rc);
			if (sm->state == SMP_SM_MASTER)
				sm->standby.handover_from = 0;
			if (taking_over && sm->state == SMP_SM_MASTER) {
				log_info("takeover: MASTER, fabric %s, %.3f s after the master was found gone or stuck (%.3f s after it first went quiet)",
					 rc == 0 ? "UP" : "NOT up",
					 now_seconds() - sm->standby.takeover_at,
					 now_seconds() - sm->standby.lost_since);
				sm->standby.takeover_at = 0;
			}
			if (rc == 0 && cfg->dump_dir[0])
				sm_write_dumps(sm, sm->dump_dir);
			next_light = now_seconds() + cfg->sweep_interval_s;
			due = 0;        /* the sweep changed what is due */
			skipped = 0;
			fresh = 0;
		}
		if (!fresh)
			now = now_seconds();
	}
	mt_watch_fd(sm->t, 0, -1);
	mt_watch_fd(sm->t, 1, -1);
	sm_sa_state_tick(sm, 1);
	log_info("stopping: %u sweeps", sm->sweeps);
	return 0;
}
