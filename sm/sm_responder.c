/* Unsolicited MADs to the SM (sm/sm_responder.h): SMInfo Get and Set,
 * traps, and the SA's requests handed on. */
#include "sm_responder.h"
#include "sm_service.h"

#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../core/log.h"
#include "../mad/gmp.h"
#include "../mad/smp.h"
#include "sm_state.h"

/* --- who asks ---------------------------------------------------------- */

/* The requester is a port the last heavy sweep saw with IsSM, and the
 * GUID its SMInfo claims is that port's. LID-routed: the source LID must
 * be in that port's LID range (a host cannot choose its SLID beyond its
 * own LMC range). Directed route carries no source LID: the claimed GUID
 * must be such a port (weaker: docs/security.md). */
static int known_sm_port(const struct sm_standby *s, uint64_t guid,
			 uint16_t slid)
{
	for (uint32_t i = 0; i < s->num_sm_ports; i++) {
		const struct sm_port_id *p = &s->sm_ports[i];

		if (p->guid != guid)
			continue;
		if (slid == 0xffff)
			return 1;
		if (p->lid && slid >= p->lid && slid < p->lid + (1u << p->lmc))
			return 1;
	}
	return 0;
}

static int known_by_lid(const struct sm_standby *s, uint16_t slid)
{
	for (uint32_t i = 0; i < s->num_sm_ports; i++) {
		const struct sm_port_id *p = &s->sm_ports[i];

		if (p->lid && slid >= p->lid && slid < p->lid + (1u << p->lmc))
			return 1;
	}
	return 0;
}

/* The port a directed-route SMP came from (IBA 14.2.2: each switch on the
 * way wrote the port it entered by into ReturnPath[hop], which is where
 * the answer leaves it): from our port's peer, leave by ReturnPath[h-1]
 * down to [1]; the peer reached is the requester. FAB_NONE if the path
 * does not fit the fabric. A switch's SM is its port 0. */
static uint32_t dr_requester(const struct subnet *r, const uint8_t *mad)
{
	const struct fabric *f = &r->fab;
	unsigned h = mad_get_field((void *)mad, 0, IB_DRSMP_HOPCNT_F);
	uint32_t p;

	if (!f->num_ports || r->sm_port >= f->num_ports || !h || h > 63)
		return FAB_NONE;
	p = f->ports[r->sm_port].peer;
	for (unsigned i = h - 1; i >= 1 && p != FAB_NONE; i--) {
		uint32_t n = f->ports[p].node;
		uint32_t out = fab_port_idx(f, n, mad[192 + i]);

		if (!fab_is_switch(f, n) || out == FAB_NONE)
			return FAB_NONE;
		p = f->ports[out].peer;
	}
	if (p != FAB_NONE && fab_is_switch(f, f->ports[p].node))
		p = f->nodes[f->ports[p].node].first_port;
	return p;
}

/* The port of sm->cur that sent SMP mad (from LID slid, 0xffff: directed
 * route), FAB_NONE when it is not in the fabric we hold. */
static uint32_t requester(const struct sm *sm, const uint8_t *mad,
			  uint16_t slid)
{
	const struct fabric *f = &sm->cur.fab;

	if (slid == 0xffff)
		return dr_requester(&sm->cur, mad);
	for (uint32_t p = 0; p < f->num_ports; p++) {
		uint32_t lid = f->ports[p].lid;

		if (lid && slid >= lid && slid < lid + (1u << sm->cfg->lmc))
			return p;
	}
	return FAB_NONE;
}

/* 1 when the requester of SMP mad is an SM port the last heavy sweep
 * found: LID-routed by its source LID; directed route by walking the
 * return path back through the fabric we hold (none while STANDBY: 0). */
static int from_sm_port(const struct sm *sm, const uint8_t *mad,
			uint16_t slid)
{
	const struct sm_standby *s = &sm->standby;
	uint32_t p;

	if (slid != 0xffff)
		return known_by_lid(s, slid);
	p = dr_requester(&sm->cur, mad);
	if (p == FAB_NONE)
		return 0;
	for (uint32_t i = 0; i < s->num_sm_ports; i++)
		if (s->sm_ports[i].guid == sm->cur.fab.ports[p].guid)
			return 1;
	return 0;
}

/* Judge a SubnSet(SMInfo) control (standby/sminfo_control.h) and count
 * the verdict. */
static enum smctl_verdict control_check(struct sm *sm, unsigned control,
					const uint8_t *data, uint16_t slid)
{
	struct sm_standby *s = &sm->standby;
	struct smp_sminfo from;
	struct smctl_self self = {
		.state = sm->state,
		.guid = sm->guid,
		.sm_key = sm->cfg->sm_key,
		.handover_guid = s->handover_to.guid,
	};
	struct smctl_req req = { .control = control };
	enum smctl_verdict v;

	smp_get_sminfo(data, &from);
	req.guid = from.guid;
	req.sm_key = from.sm_key;
	req.state = from.state;
	req.known_sm = known_sm_port(s, from.guid, slid);
	v = smctl_judge(&self, &req);
	s->controls[v < SMCTL_NUM_VERDICTS ? v : SMCTL_REFUSE_UNKNOWN]++;
	return v;
}

/* --- SMInfo ------------------------------------------------------------ */

/* Our SMInfo as the answer to mad, SM_Key shown or not. */
static void sminfo_reply(struct sm *sm, uint8_t *mad, uint16_t slid,
			 uint32_t sqp, uint16_t status, uint64_t sm_key)
{
	struct smp_sminfo si = {
		.guid = sm->guid,
		.sm_key = sm_key,
		.act_count = SM_ACT_COUNT(sm),
		.priority = sm->cfg->sm_priority,
		.state = sm->state,
	};

	smp_make_response(mad, status);
	smp_set_sminfo(smp_data(mad), &si);
	/* A directed-route query (another SM's discovery, IBA 14.4.1) is
	 * answered directed-route: the response goes back along the return
	 * path the switches recorded (D bit set, IBA 14.2.2.3). */
	if (smp_class(mad) == SMP_CLASS_DR)
		slid = 0xffff;
	if (mt_respond(sm->t, mad, slid, sqp) < 0)
		log_warn("cannot answer SMInfo query from LID %u", slid);
}

/* A SubnGet(SMInfo) held while we read its requester's PortInfo. */
struct sminfo_held {
	struct sm *sm;
	uint8_t mad[256];
	uint16_t slid;
	uint32_t sqp;
};

#define SMINFO_HELD_MAX 8       /* Gets held at once; more read SM_Key 0 */

/* The requester's PortInfo: SM_Key to it if it says IsSM. */
static void on_requester_portinfo(void *ctx, uint64_t cookie,
				  const uint8_t *req, const uint8_t *resp)
{
	struct sminfo_held *h = ctx;
	int issm = resp && !smp_status(resp) &&
		   (mad_get_field((void *)smp_data((uint8_t *)resp), 0,
				  IB_PORT_CAPMASK_F) & 0x2);

	(void)cookie;
	(void)req;
	h->sm->sminfo_held--;
	sminfo_reply(h->sm, h->mad, h->slid, h->sqp, 0,
		     issm ? h->sm->cfg->sm_key : 0);
	free(h);
}

/* A Get from a requester our sweep did not find as an SM may come from
 * an SM that has just started (OpenSM asks before our sweep for its trap
 * 144 has run, and ignores an SM that answers it SM_Key 0): read its
 * port's CapabilityMask first. 1 when held (answered later). */
static int sminfo_hold(struct sm *sm, uint8_t *mad, uint16_t slid,
		       uint32_t sqp)
{
	const struct subnet *r = &sm->cur;
	uint32_t p = requester(sm, mad, slid), n;
	struct sminfo_held *h;

	if (p == FAB_NONE || sm->sminfo_held >= SMINFO_HELD_MAX)
		return 0;
	n = r->fab.ports[p].node;
	h = malloc(sizeof(*h));
	if (!h)
		return 0;
	h->sm = sm;
	memcpy(h->mad, mad, sizeof(h->mad));
	h->slid = slid;
	h->sqp = sqp;
	if (mt_submit_dr(sm->t, &r->node_path[n], IB_MAD_METHOD_GET,
			 IB_ATTR_PORT_INFO, r->fab.ports[p].num, NULL,
			 on_requester_portinfo, h, 0) < 0) {
		free(h);
		return 0;
	}
	sm->sminfo_held++;
	return 1;
}

static void answer_sminfo(struct sm *sm, uint8_t *mad, uint16_t slid,
			  uint32_t sqp)
{
	uint64_t req_mkey = mad_get_field64(mad, 0, IB_MAD_MKEY_F);
	const uint64_t mkey = sm->cfg->m_key;
	struct smp_sminfo from;
	uint16_t status = 0;
	int from_sm;

	/* M_Key authentication of the requester (IBA 14.2.4, as OpenSM
	 * does for its own port): with protect bits 2 or 3 a Get with the
	 * wrong M_Key is not answered, with 1 it is answered without the
	 * SM_Key; a Set with the wrong M_Key is never obeyed. */
	if (mkey && req_mkey != mkey &&
	    (smp_method(mad) == IB_MAD_METHOD_SET || sm->cfg->m_key_protect_bits >= 2)) {
		log_warn("SMInfo %s from %s %u with a wrong M_Key: ignored",
			 smp_method(mad) == IB_MAD_METHOD_SET ? "Set" : "Get",
			 smp_class(mad) == SMP_CLASS_DR ? "a directed route, hop count" : "LID",
			 smp_class(mad) == SMP_CLASS_DR ?
			 (unsigned)mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F) : slid);
		return;
	}
	smp_get_sminfo(smp_data(mad), &from);
	/* A Set carries a control for us (IBA 14.4.1.2): act first, then
	 * answer with our SMInfo as it now is -- unless it is not legal
	 * (standby/sminfo_control.h). */
	if (smp_method(mad) == IB_MAD_METHOD_SET) {
		enum smctl_verdict v = control_check(sm, smp_mod(mad),
						    smp_data(mad), slid);

		if (v != SMCTL_OBEY) {
			/* Logged with the source, counted in
			 * ibsm_sminfo_controls_total{verdict}. */
			log_warn("SMInfo Set (control %u %s) from %s %u, claiming SM 0x%016llx %s priority %u: %s: ignored",
				 smp_mod(mad), smctl_control_str(smp_mod(mad)),
				 smp_class(mad) == SMP_CLASS_DR ? "a directed route, hop count" : "LID",
				 smp_class(mad) == SMP_CLASS_DR ?
				 (unsigned)mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F) : slid,
				 (unsigned long long)from.guid,
				 smctl_state_str(from.state),
				 from.priority, smctl_verdict_str(v));
			status = 0x1c;  /* IBA 13.4.7 code 7: invalid value */
		} else {
			sm_standby_control(sm, smp_mod(mad), smp_data(mad), slid);
		}
	}
	/* SM_Key only to a trusted requester (IBA 14.2.5.13): our M_Key
	 * when one is set, else our SM_Key in its SMInfo or an SM port
	 * (standby/sminfo_control.h). An ordinary host reading SMInfo
	 * (smpdump -L <lid> 0x20) sees 0; a refused Set learns nothing. */
	if (status) {
		sminfo_reply(sm, mad, slid, sqp, status, 0);
		return;
	}
	from_sm = from_sm_port(sm, mad, slid);
	if (!smctl_answer_key(sm->cfg->sm_key, mkey, from.sm_key, req_mkey, 1)) {
		/* not even an SM port would be shown it: no need to look */
		sminfo_reply(sm, mad, slid, sqp, 0, 0);
		return;
	}
	if (!from_sm && !smctl_answer_key(sm->cfg->sm_key, mkey, from.sm_key,
					  req_mkey, 0) &&
	    smp_method(mad) == IB_MAD_METHOD_GET && sminfo_hold(sm, mad, slid, sqp))
		return;
	sminfo_reply(sm, mad, slid, sqp, 0,
		     smctl_answer_key(sm->cfg->sm_key, mkey, from.sm_key,
				      req_mkey, from_sm));
}

static void handle_trap(struct sm *sm, uint8_t *mad, uint16_t slid,
			uint32_t sqp)
{
	uint16_t num = smp_notice_trap_num(smp_data(mad));
	uint16_t issuer = smp_notice_issuer_lid(smp_data(mad));

	log_info("trap %u from LID %u%s", num, issuer,
		 num == 128 ? " (port state change): heavy sweep" : "");
	/* IBA 14.2.5.1 / 13.4.9: acknowledge with TrapRepress, same TID. */
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP_REPRESS);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 0);
	mt_respond(sm->t, mad, slid, sqp);
	sm_report_trap(sm, smp_data(mad));
	/* 128 port state change, 129-131 link errors, 144 capability change,
	 * 64/65 GID in/out of service: all may change the topology. */
	if (num == 128 || num == 144 || num == 64 || num == 65) {
		double now = now_seconds();
		/* Flap damping (trap_damp.h): a storm spaces the sweeps. */
		double delay = trap_damp_trap(&sm->damp, issuer, now,
					      sm->cfg->flap_max_delay_s);
		double at = sm->last_heavy_end + delay;

		if (!sm->heavy_wanted || at > sm->next_heavy_at)
			sm->next_heavy_at = at;
		if (delay && !sm->heavy_wanted)
			log_info("trap storm: next heavy sweep in %.1f s", at - now);
		sm->heavy_wanted = 1;
		sweep_guard_trap(&sm->guard);
		if (num == 128)
			sm_flap_trap(sm, issuer);
	}
}

/* Unsolicited MADs go to the service that takes their class
 * (sm/sm_services.c): SMInfo and traps come back to sm_smp_request. */
void sm_on_request(void *ctx, uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	const struct sm_service *s = sm_service_for_class(smp_class(mad));

	if (s)
		s->on_mad(ctx, mad, slid, sqp);
	else
		log_debug("unsolicited MAD class 0x%x from LID %u ignored",
			  smp_class(mad), slid);
}

void sm_smp_request(struct sm *sm, uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	uint8_t method = smp_method(mad);
	uint16_t attr = smp_attr(mad);

	if (attr == IB_ATTR_SMINFO &&
	    (method == IB_MAD_METHOD_GET || method == IB_MAD_METHOD_SET))
		answer_sminfo(sm, mad, slid, sqp);
	else if (method == IB_MAD_METHOD_TRAP && attr == SMP_ATTR_NOTICE)
		handle_trap(sm, mad, slid, sqp);
	else
		log_debug("unsolicited SMP method 0x%x attr 0x%x from LID %u ignored",
			  method, attr, slid);
}

void sm_on_long_request(void *ctx, uint8_t *msg, size_t len, uint16_t slid,
			    uint32_t sqp)
{
	struct sm *sm = ctx;

	if (smp_class(msg) == GMP_CLASS_SA && sm->cfg->sa_enabled)
		sa_server_handle_long(&sm->sa, msg, len, slid, sqp);
}
