/* Other SMs, standby and takeover, and the glue of the SM state table
 * (sm/sm_standby.h, standby/sm_fsm.h). */
#include "sm_standby.h"

#include <errno.h>
#include <math.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>

#include "../core/grow.h"
#include "../core/log.h"
#include "../mad/smp.h"
#include "sm_state.h"

#define CAP_IS_SM 0x2                   /* PortInfo.CapabilityMask bit 1 */

void sm_standby_free(struct sm_standby *s)
{
	free(s->peers);
	free(s->sm_ports);
	memset(s, 0, sizeof(*s));
}

struct ask {
	struct sm_standby *s;
	const struct subnet *r;
};

/* cookie: the port index asked. */
static void on_sminfo(void *ctx, uint64_t cookie, const uint8_t *req,
		      const uint8_t *resp)
{
	struct ask *a = ctx;
	struct sm_standby *s = a->s;
	struct smp_sminfo si;
	struct sm_peer *p;

	(void)req;
	if (!resp || smp_status(resp))
		return;                 /* not (or no longer) an SM: no vote */
	smp_get_sminfo(resp + 64, &si);
	if (s->npeers == s->cap)
		return;                 /* sized for every port: cannot happen */
	p = &s->peers[s->npeers++];
	p->guid = si.guid;
	p->lid = (uint16_t)a->r->fab.ports[cookie].lid;
	p->priority = si.priority;
	p->state = si.state;
	p->act_count = si.act_count;
	p->port = (uint32_t)cookie;
	p->sm_key = si.sm_key;
	if (si.guid == s->stalled.guid)
		s->stalled.asked++;
}

int sm_standby_discover(struct sm *sm, const struct subnet *r)
{
	struct sm_standby *s = &sm->standby;
	const struct fabric *f = &r->fab;
	struct ask a = { s, r };
	uint32_t asked = 0;
	uint8_t ours[64];           /* our SM_Key in it: a peer ibsm shows its own */

	s->npeers = 0;
	s->num_sm_ports = 0;
	if (grow_array((void **)&s->peers, &s->cap, f->num_ports,
		       sizeof(*s->peers), 64) ||
	    grow_array((void **)&s->sm_ports, &s->sm_ports_cap, f->num_ports,
		       sizeof(*s->sm_ports), 64))
		return -ENOMEM;
	sm_standby_our_sminfo(sm, ours);
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct fab_node *nd = &f->nodes[f->ports[p].node];
		uint32_t cap;

		if (p == r->sm_port || r->port_info_ok[p] != 1)
			continue;
		/* CA and router ports; a switch's SM sits on port 0. */
		if (fab_is_switch(f, f->ports[p].node) ? f->ports[p].num != 0 :
		    f->ports[p].num == 0)
			continue;
		(void)nd;
		cap = mad_get_field((void *)r->port_info[p], 0, IB_PORT_CAPMASK_F);
		if (!(cap & CAP_IS_SM))
			continue;
		s->sm_ports[s->num_sm_ports++] = (struct sm_port_id) {
			.guid = f->ports[p].guid,
			.lid = (uint16_t)fab_port_lid(f, p),
			.lmc = (uint8_t)mad_get_field((void *)r->port_info[p], 0,
						      IB_PORT_LMC_F),
		};
		if (mt_submit_dr(sm->t, &r->port_path[p], IB_MAD_METHOD_GET,
				 IB_ATTR_SMINFO, 0, ours, on_sminfo, &a, p) == 0)
			asked++;
	}
	if (asked && mt_drain(sm->t) < 0)
		return -EIO;
	if (asked)
		log_info("SMs: %u other port%s with IsSM, %u answered SMInfo", asked,
			 asked == 1 ? "" : "s", s->npeers);
	for (uint32_t i = 0; i < s->npeers; i++)
		log_info("SMs: 0x%016llx LID %u priority %u %s, ActCount %u",
			 (unsigned long long)s->peers[i].guid, s->peers[i].lid,
			 s->peers[i].priority, smctl_state_str(s->peers[i].state),
			 s->peers[i].act_count);
	return 0;
}

const struct sm_peer *sm_standby_elect(struct sm *sm, int we_are_master)
{
	struct sm_standby *s = &sm->standby;
	int i;

	/* The SM that just handed the subnet to us is stepping down: it may
	 * still say MASTER until our ACKNOWLEDGE reaches it. */
	if (s->handover_from) {
		uint32_t k = 0;

		for (uint32_t j = 0; j < s->npeers; j++)
			if (s->peers[j].guid != s->handover_from)
				s->peers[k++] = s->peers[j];
		s->npeers = k;
	}
	/* IBA 14.4.1: an SM with another SM_Key (or hiding it from our
	 * M_Key) is not of our subnet and takes no part, as in OpenSM; with
	 * sm_key 0 we do not check. A rogue SM of priority 15 cannot take the
	 * subnet this way. */
	if (sm->cfg->sm_key) {
		uint32_t k = 0;

		for (uint32_t j = 0; j < s->npeers; j++) {
			if (s->peers[j].sm_key != sm->cfg->sm_key) {
				log_warn("SMs: 0x%016llx (priority %u, %s) answered SM_Key 0x%016llx, not ours: ignored",
					 (unsigned long long)s->peers[j].guid,
					 s->peers[j].priority, smctl_state_str(s->peers[j].state),
					 (unsigned long long)s->peers[j].sm_key);
				continue;
			}
			s->peers[k++] = s->peers[j];
		}
		s->npeers = k;
	}
	/* The master we replaced for a standing ActCount still says MASTER
	 * (it is stuck): ignore it until it acts again (ActCount beyond our
	 * SMInfo Gets and a margin), then the usual rules apply. */
	if (s->stalled.guid) {
		uint32_t k = 0;

		for (uint32_t j = 0; j < s->npeers; j++) {
			const struct sm_peer *p = &s->peers[j];

			if (p->guid == s->stalled.guid && p->state == SMP_SM_MASTER &&
			    (uint32_t)(p->act_count - s->stalled.count) <= s->stalled.asked + 8) {
				log_info("SMs: 0x%016llx still says MASTER with ActCount %u (stuck): ignored",
					 (unsigned long long)p->guid, p->act_count);
				continue;
			}
			if (p->guid == s->stalled.guid) {
				log_info("SMs: 0x%016llx acts again (ActCount %u): it takes part in elections",
					 (unsigned long long)p->guid, p->act_count);
				s->stalled.guid = 0;
			}
			s->peers[k++] = *p;
		}
		s->npeers = k;
	}
	i = sm_elect(s->peers, s->npeers, sm->cfg->sm_priority, sm->guid,
		     we_are_master);
	return i < 0 ? NULL : &s->peers[i];
}

void sm_standby_enter(struct sm *sm, const struct sm_peer *master)
{
	struct sm_event_arg a = { .peer = master };

	sm_set_state(sm, SMEV_ELECTION_LOST, &a);
}

static void on_poll(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp)
{
	struct sm *sm = ctx;
	struct sm_standby *s = &sm->standby;
	struct smp_sminfo si;

	(void)cookie;
	(void)req;
	s->poll.in_flight = 0;
	if (!resp || smp_status(resp)) {
		if (!s->poll.misses++)
			s->lost_since = now_seconds();
		log_warn("STANDBY: master SM 0x%016llx at LID %u did not answer SMInfo (%u in a row)",
			 (unsigned long long)s->master.guid, s->master.lid, s->poll.misses);
		return;
	}
	smp_get_sminfo(resp + 64, &si);
	s->poll.misses = 0;
	if (si.guid != s->master.guid)
		log_warn("STANDBY: LID %u now answers as SM 0x%016llx (was 0x%016llx)",
			 s->master.lid, (unsigned long long)si.guid,
			 (unsigned long long)s->master.guid);
	s->master.guid = si.guid;
	s->master.state = si.state;
	/* An SM may count its answers as activity (OpenSM does): the
	 * ActCount moved only when it grew by more than our answered polls. */
	if (!s->stall.since || si.state != SMP_SM_MASTER ||
	    (uint32_t)(si.act_count - s->stall.ref) > s->stall.answers + 1) {
		s->stall.ref = si.act_count;
		s->stall.answers = 0;
		s->stall.since = now_seconds();
	} else {
		s->stall.answers++;
	}
	s->master.act_count = si.act_count;
	s->poll.not_master = si.state == SMP_SM_MASTER ? 0 : s->poll.not_master + 1;
}

double sm_standby_next_deadline(const struct sm *sm, double now)
{
	const struct sm_standby *s = &sm->standby;
	unsigned n = sm->cfg->polling_retry_number;

	if (sm->state != SMP_SM_STANDBY)
		return HUGE_VAL;
	if (s->poll.misses >= n || s->poll.not_master >= n)
		return now;             /* a takeover or an election to start */
	double t = s->poll.in_flight ? HUGE_VAL : s->poll.next;
	if (sm->cfg->master_stall_timeout_s && s->stall.since &&
	    s->stall.since + sm->cfg->master_stall_timeout_s < t)
		t = s->stall.since + sm->cfg->master_stall_timeout_s;
	return t;
}

int sm_standby_tick(struct sm *sm, double now)
{
	struct sm_standby *s = &sm->standby;
	struct sm_event_arg a = { .now = now };
	uint8_t ours[64];

	if (sm->state != SMP_SM_STANDBY)
		return 0;
	if (s->poll.misses >= sm->cfg->polling_retry_number) {
		log_warn("STANDBY: master SM 0x%016llx gone (%u polls unanswered, first %.2f s ago): taking over",
			 (unsigned long long)s->master.guid, s->poll.misses,
			 now - s->lost_since);
		return sm_set_state(sm, SMEV_MASTER_SILENT, &a);
	}
	if (sm->cfg->master_stall_timeout_s && s->stall.since &&
	    now - s->stall.since >= sm->cfg->master_stall_timeout_s) {
		/* IBA 14.4.1: ActCount tells a standby the master is still
		 * at work. This one answers but does nothing (a stuck sweep,
		 * or light sweeps turned off): take over, and leave it out
		 * of elections while its ActCount stays put. */
		log_warn("STANDBY: master SM 0x%016llx answers but its ActCount stayed at %u (+%u, our polls) for %.1f s: taking over",
			 (unsigned long long)s->master.guid, s->stall.ref,
			 s->stall.answers, now - s->stall.since);
		s->stalled.guid = s->master.guid;
		s->stalled.count = s->master.act_count;
		s->stalled.asked = 0;
		s->lost_since = s->stall.since;
		s->stall.since = 0;
		return sm_set_state(sm, SMEV_MASTER_STALLED, &a);
	}
	if (s->poll.not_master >= sm->cfg->polling_retry_number) {
		/* The SM we follow answers but is not master (it handed
		 * over, or is itself waiting): elect again. */
		log_warn("STANDBY: SM 0x%016llx answers as %s, not MASTER (%u polls): sweeping to elect again",
			 (unsigned long long)s->master.guid,
			 smctl_state_str(s->master.state), s->poll.not_master);
		s->poll.not_master = 0;
		return sm_set_state(sm, SMEV_MASTER_NOT_MASTER, &a);
	}
	if (s->poll.in_flight || now < s->poll.next)
		return 0;
	s->poll.next = now + sm->cfg->sminfo_polling_ms / 1000.0;
	sm_standby_our_sminfo(sm, ours);
	if (mt_submit_lid(sm->t, s->master.lid, IB_MAD_METHOD_GET, IB_ATTR_SMINFO,
			  0, ours, on_poll, sm, 0) == 0)
		s->poll.in_flight = 1;
	return 0;
}

/* --- SMInfo Set controls (IBA 14.4.1.2) -------------------------------- */

void sm_standby_our_sminfo(const struct sm *sm, uint8_t *data)
{
	struct smp_sminfo si = {
		.guid = sm->guid,
		.sm_key = sm->cfg->sm_key,
		.act_count = SM_ACT_COUNT(sm),
		.priority = sm->cfg->sm_priority,
		.state = sm->state,
	};

	memset(data, 0, 64);
	smp_set_sminfo(data, &si);
}

static void on_control_done(void *ctx, uint64_t cookie, const uint8_t *req,
			    const uint8_t *resp)
{
	(void)ctx;
	(void)req;
	if (!resp || smp_status(resp))
		log_warn("SMInfo control %u: no (good) answer", (unsigned)cookie);
}

void sm_standby_handover(struct sm *sm, const struct subnet *r)
{
	struct sm_standby *s = &sm->standby;
	uint8_t data[64];
	int i;

	if (!sm->cfg->honor_priority)
		return;
	i = sm_handover_to(s->peers, s->npeers, sm->cfg->sm_priority, sm->guid);
	if (i < 0) {
		/* A better SM still DISCOVERING goes STANDBY under us in a
		 * moment: look again soon (a few times), then hand over. */
		for (uint32_t k = 0; k < s->npeers; k++)
			if (s->peers[k].state == SMP_SM_DISCOVERING &&
			    sm_better(s->peers[k].priority, s->peers[k].guid,
				      sm->cfg->sm_priority, sm->guid) &&
			    s->rechecks < 10) {
				s->rechecks++;
				sm->heavy_wanted = 1;
				sm->next_heavy_at = now_seconds() + 1.0;
				log_info("SMs: better SM 0x%016llx is still DISCOVERING: looking again in 1 s",
					 (unsigned long long)s->peers[k].guid);
				break;
			}
		return;
	}
	s->handover_to = s->peers[i];
	sm_standby_our_sminfo(sm, data);
	log_info("HANDOVER: SM 0x%016llx (LID %u) has priority %u > our %u: handing the subnet over",
		 (unsigned long long)s->peers[i].guid, s->peers[i].lid,
		 s->peers[i].priority, sm->cfg->sm_priority);
	if (mt_submit_dr(sm->t, &r->port_path[s->peers[i].port], IB_MAD_METHOD_SET,
			 IB_ATTR_SMINFO, SMINFO_HANDOVER, data, on_control_done,
			 sm, SMINFO_HANDOVER) < 0)
		log_warn("HANDOVER: cannot send SMInfo(HANDOVER)");
	/* OpenSM takes a HANDOVER without sending ACKNOWLEDGE (measured; it
	 * then expects the old master to see it MASTER): look again in a
	 * second, a few times; a better MASTER makes us step down. */
	if (s->rechecks < 10) {
		s->rechecks++;
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now_seconds() + 1.0;
	}
}

/* A control judged legal (sm_standby_control_check) becomes the event of
 * the same name; the table (standby/sm_fsm.h) holds which state it leads
 * to. The sender's SMInfo says who to follow or acknowledge. */
void sm_standby_control(struct sm *sm, unsigned control, const uint8_t *data,
			uint16_t slid)
{
	struct smp_sminfo from;
	struct sm_peer p = { 0 };
	struct sm_event_arg a = { .peer = &p, .slid = slid, .now = now_seconds() };

	smp_get_sminfo(data, &from);
	p.guid = from.guid;
	p.priority = from.priority;
	p.state = SMP_SM_MASTER;
	p.act_count = from.act_count;
	switch (control) {
	case SMINFO_HANDOVER:
		sm_set_state(sm, SMEV_HANDOVER, &a);
		return;
	case SMINFO_ACKNOWLEDGE:
		sm_set_state(sm, SMEV_ACKNOWLEDGE, &a);
		return;
	case SMINFO_DISABLE:
		/* Legal in STANDBY only: the master turns a standby off.
		 * A sweep a trap asked for meanwhile must not run (it would
		 * end MASTER): nothing is pending from here on (STOP). */
		log_warn("SMInfo(DISABLE) from SM 0x%016llx (LID %u): NOTACTIVE, sweeping and polling nothing until SMInfo(STANDBY)",
			 (unsigned long long)from.guid, slid);
		sm_set_state(sm, SMEV_DISABLE, &a);
		return;
	case SMINFO_STANDBY:
		p.lid = slid != 0xffff ? slid : 0;
		if (!p.lid) {
			log_warn("SMInfo(STANDBY) from SM 0x%016llx by directed route: no LID to poll, ignored",
				 (unsigned long long)from.guid);
			return;
		}
		log_info("SMInfo(STANDBY) from SM 0x%016llx", (unsigned long long)from.guid);
		sm_set_state(sm, SMEV_STANDBY, &a);
		return;
	case SMINFO_DISCOVER:
		log_info("SMInfo(DISCOVER) from SM 0x%016llx: sweeping", (unsigned long long)from.guid);
		sm_set_state(sm, SMEV_DISCOVER, &a);
		return;
	default:
		log_warn("SMInfo Set with unknown control %u from LID %u ignored", control, slid);
	}
}

/* --- the state machine's actions (standby/sm_fsm.h) -------------------- */

/* FOLLOW: the SM to poll while STANDBY. */
static void act_follow(void *ctx, const void *arg)
{
	struct sm *sm = ctx;
	const struct sm_peer *master = ((const struct sm_event_arg *)arg)->peer;
	struct sm_standby *s = &sm->standby;

	s->master = *master;
	s->poll.misses = 0;
	s->poll.not_master = 0;
	s->poll.next = 0;           /* a poll in flight still lands */
	s->lost_since = 0;
	s->stall.since = 0;
	log_info("STANDBY: %s SM 0x%016llx (LID %u, priority %u) leads; we (priority %u) poll it every %u ms and take over after %u unanswered polls",
		 smctl_state_str(master->state), (unsigned long long)master->guid,
		 master->lid, master->priority, sm->cfg->sm_priority,
		 sm->cfg->sminfo_polling_ms, sm->cfg->polling_retry_number);
}

/* STEP_DOWN: the SM our HANDOVER went to acknowledged it; follow it, at
 * the LID it sent from (else the one we handed over to). */
static void act_step_down(void *ctx, const void *arg)
{
	struct sm *sm = ctx;
	const struct sm_event_arg *a = arg;
	struct sm_peer p = *a->peer;
	struct sm_event_arg to = *a;

	p.lid = a->slid != 0xffff && a->slid ? a->slid : sm->standby.handover_to.lid;
	if (!p.priority)
		p.priority = sm->standby.handover_to.priority;
	log_info("HANDOVER acknowledged by SM 0x%016llx: stepping down",
		 (unsigned long long)p.guid);
	to.peer = &p;
	act_follow(sm, &to);
}

/* TAKEOVER: the master is gone or stuck; sweep now as DISCOVERING, the
 * sweep keeps its LIDs and tables (takeover_at marks it). */
static void act_takeover(void *ctx, const void *arg)
{
	struct sm *sm = ctx;
	const struct sm_event_arg *a = arg;

	sm->standby.takeover_at = a->now;
	sm->heavy_wanted = 1;
	sm->next_heavy_at = a->now;
}

/* ACCEPT_HANDOVER: IBA 14.4.1.2: acknowledge to the old master, then
 * sweep; that SM stays out of our election until we are master. */
static void act_accept_handover(void *ctx, const void *arg)
{
	struct sm *sm = ctx;
	const struct sm_event_arg *a = arg;
	struct sm_standby *s = &sm->standby;
	uint16_t to = a->slid != 0xffff && a->slid ? a->slid : s->master.lid;
	uint8_t ours[64];

	log_info("HANDOVER from SM 0x%016llx (priority %u): taking over",
		 (unsigned long long)a->peer->guid, a->peer->priority);
	sm_standby_our_sminfo(sm, ours);
	if (to && mt_submit_lid(sm->t, to, IB_MAD_METHOD_SET, IB_ATTR_SMINFO,
				SMINFO_ACKNOWLEDGE, ours, on_control_done, sm,
				SMINFO_ACKNOWLEDGE) < 0)
		log_warn("HANDOVER: cannot send SMInfo(ACKNOWLEDGE) to LID %u", to);
	s->handover_from = a->peer->guid;
	s->takeover_at = now_seconds();
	s->lost_since = s->takeover_at;
	sm->heavy_wanted = 1;
	sm->next_heavy_at = now_seconds();
}

/* SWEEP: elect again, now. */
static void act_sweep(void *ctx, const void *arg)
{
	struct sm *sm = ctx;

	sm->heavy_wanted = 1;
	sm->next_heavy_at = ((const struct sm_event_arg *)arg)->now;
}

/* STOP: NOTACTIVE sweeps nothing. */
static void act_stop(void *ctx, const void *arg)
{
	struct sm *sm = ctx;

	(void)arg;
	sm->heavy_wanted = 0;
}

static smfsm_action_fn *const sm_actions[SMACT_NUM] = {
	[SMACT_FOLLOW] = act_follow,
	[SMACT_STEP_DOWN] = act_step_down,
	[SMACT_TAKEOVER] = act_takeover,
	[SMACT_ACCEPT_HANDOVER] = act_accept_handover,
	[SMACT_SWEEP] = act_sweep,
	[SMACT_STOP] = act_stop,
};

int sm_set_state(struct sm *sm, enum smfsm_event ev,
		 const struct sm_event_arg *arg)
{
	static const struct sm_event_arg none = { 0 };
	const struct smfsm_row *row;
	uint8_t from = sm->state;
	struct sm_event_arg a = arg ? *arg : none;

	if (!a.now)
		a.now = now_seconds();
	sm->state = smfsm_apply(from, ev, sm_actions, sm, &a, &row);
	if (!row) {
		log_debug("SM state %s: event %s ignored", smctl_state_str(from),
			  smfsm_event_str(ev));
		return 0;
	}
	log_debug("SM state %s -> %s on %s (%s)", smctl_state_str(from),
		  smctl_state_str(sm->state), smfsm_event_str(ev),
		  smfsm_action_str(row->action));
	return 1;
}
