/* Other SMs, standby and takeover (sm/sm_standby.h). */
#include "sm_standby.h"

#include <errno.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../mad/smp.h"
#include "sm_state.h"

#define CAP_IS_SM 0x2                   /* PortInfo.CapabilityMask bit 1 */

static const char *state_name(uint8_t st)
{
	static const char *n[] = { "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER" };

	return st < 4 ? n[st] : "?";
}

void sm_standby_free(struct sm_standby *s)
{
	free(s->peers);
	memset(s, 0, sizeof(*s));
}

struct ask {
	struct sm_standby *s;
	const struct sweep_result *r;
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
}

int sm_standby_discover(struct sm *sm, const struct sweep_result *r)
{
	struct sm_standby *s = &sm->standby;
	const struct fabric *f = &r->fab;
	struct ask a = { s, r };
	uint32_t asked = 0;

	s->npeers = 0;
	if (s->cap < f->num_ports) {
		struct sm_peer *np = realloc(s->peers, (f->num_ports + 1) * sizeof(*np));

		if (!np)
			return -ENOMEM;
		s->peers = np;
		s->cap = f->num_ports;
	}
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
		if (mt_submit_dr(sm->t, &r->port_path[p], IB_MAD_METHOD_GET,
				 IB_ATTR_SMINFO, 0, NULL, on_sminfo, &a, p) == 0)
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
			 s->peers[i].priority, state_name(s->peers[i].state),
			 s->peers[i].act_count);
	return 0;
}

const struct sm_peer *sm_standby_elect(struct sm *sm, int we_are_master)
{
	int i = sm_elect(sm->standby.peers, sm->standby.npeers,
			 sm->cfg->sm_priority, sm->guid, we_are_master);

	return i < 0 ? NULL : &sm->standby.peers[i];
}

void sm_standby_enter(struct sm *sm, const struct sm_peer *master)
{
	struct sm_standby *s = &sm->standby;

	s->master = *master;
	s->misses = 0;
	s->next_poll = 0;
	s->lost_since = 0;
	log_info("STANDBY: %s SM 0x%016llx (LID %u, priority %u) leads; we (priority %u) poll it every %u ms and take over after %u unanswered polls",
		 state_name(master->state), (unsigned long long)master->guid,
		 master->lid, master->priority, sm->cfg->sm_priority,
		 sm->cfg->sminfo_polling_ms, sm->cfg->polling_retry_number);
	sm->state = SMP_SM_STANDBY;
}

static void on_poll(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp)
{
	struct sm *sm = ctx;
	struct sm_standby *s = &sm->standby;
	struct smp_sminfo si;

	(void)cookie;
	(void)req;
	s->poll_in_flight = 0;
	if (!resp || smp_status(resp)) {
		if (!s->misses++)
			s->lost_since = now_seconds();
		log_warn("STANDBY: master SM 0x%016llx at LID %u did not answer SMInfo (%u in a row)",
			 (unsigned long long)s->master.guid, s->master.lid, s->misses);
		return;
	}
	smp_get_sminfo(resp + 64, &si);
	s->answers++;
	s->misses = 0;
	if (si.guid != s->master.guid)
		log_warn("STANDBY: LID %u now answers as SM 0x%016llx (was 0x%016llx)",
			 s->master.lid, (unsigned long long)si.guid,
			 (unsigned long long)s->master.guid);
	s->master.guid = si.guid;
	s->master.state = si.state;
	s->master.act_count = si.act_count;
}

int sm_standby_tick(struct sm *sm, double now)
{
	struct sm_standby *s = &sm->standby;

	if (sm->state != SMP_SM_STANDBY)
		return 0;
	if (s->misses >= sm->cfg->polling_retry_number) {
		s->takeover_at = now;
		log_warn("STANDBY: master SM 0x%016llx gone (%u polls unanswered, first %.2f s ago): taking over",
			 (unsigned long long)s->master.guid, s->misses,
			 now - s->lost_since);
		sm->state = SMP_SM_DISCOVERING;
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now;
		return 1;
	}
	if (s->poll_in_flight || now < s->next_poll)
		return 0;
	s->next_poll = now + sm->cfg->sminfo_polling_ms / 1000.0;
	if (mt_submit_lid(sm->t, s->master.lid, IB_MAD_METHOD_GET, IB_ATTR_SMINFO,
			  0, NULL, on_poll, sm, 0) == 0) {
		s->poll_in_flight = 1;
		s->polls++;
	}
	return 0;
}
