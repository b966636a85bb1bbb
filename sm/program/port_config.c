/* PortInfo programming: read-modify-write from the PortInfo the sweep read,
 * so capability fields the SMA checks (VLCap against OperationalVLs, ...)
 * are what the port itself reported. */
#include "port_config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../../core/log.h"
#include "../../qos/qos_vl.h"

struct pc_ctx {
	struct subnet *r;
	struct portcfg_stats *st;
	uint8_t want_state;         /* 3 in pass 1, 4 in pass 2 */
	const struct portcfg_opts *o;
};

static uint8_t min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

static int port_valid(const struct subnet *r, uint32_t p)
{
	return r->port_info_ok[p] == 1;
}

/* What the SM wants in port p's PortInfo. */
static void desired(const struct subnet *r, uint32_t p,
		    const struct portcfg_opts *o, struct smp_port_set *s)
{
	const struct fabric *f = &r->fab;
	const struct fab_port *port = &f->ports[p];
	struct smp_portinfo cur;
	int sw = fab_is_switch(f, port->node);

	smp_get_portinfo(r->port_info[p], &cur);
	memset(s, 0, sizeof(*s));
	if (sw && port->num != 0) {
		/* Switch external ports: LID fields are not theirs; leave them. */
		s->gid_prefix = cur.gid_prefix;
		s->lid = cur.lid;
		s->sm_lid = cur.sm_lid;
		s->lmc = cur.lmc;
		s->subnet_timeout = cur.subnet_timeout;
	} else {
		s->gid_prefix = o->gid_prefix;
		s->lid = (uint16_t)port->lid;
		s->sm_lid = o->sm_lid;
		s->lmc = port->lmc;
		s->subnet_timeout = o->subnet_timeout;
		/* M_Key guards the port's SMA: a CA port's, or a switch's
		 * (port 0). */
		if (o->m_key) {
			s->set_mkey = 1;
			s->m_key = o->m_key;
			s->mkey_prot = o->mkey_prot;
			s->mkey_lease = o->mkey_lease;
		}
	}
	/* Every end port: a port without IsClientReregistrationSupported
	 * (CapabilityMask bit 25) ignores the bit (IBA 14.2.5.6), and some
	 * SMAs report no capabilities at all (ibsim's CapabilityMask is 0). */
	if (o->client_rereg && (!sw || port->num == 0))
		s->client_rereg = 1;
	if (o->set_timers && sw && port->num != 0 && port->peer != FAB_NONE) {
		int leaf = !fab_is_switch(f, f->ports[port->peer].node);

		s->set_timers = 1;
		s->hoq_life = leaf ? o->leaf_hoq_life : o->hoq_life;
		s->vl_stall = leaf ? o->leaf_vl_stall : o->vl_stall;
	}
	if (o->vl_high_limit && (!sw || port->num || f->nodes[port->node].enhanced_sp0)) {
		const struct fab_node *n = &f->nodes[port->node];
		enum qos_port_type t = sw ? (port->num ? QOS_PT_SWE : QOS_PT_SW0) :
				       n->type == FAB_ROUTER ? QOS_PT_RTR : QOS_PT_CA;

		s->set_vl_high_limit = 1;
		s->vl_high_limit = cur.vl_cap <= 1 ? 0 : o->vl_high_limit[t];
	}
	if (port->num != 0 && port->peer != FAB_NONE && port_valid(r, port->peer)) {
		struct smp_portinfo peer;

		/* IBA 14.2.5.6: NeighborMTU and OperationalVLs must not exceed
		 * what either end of the link supports. */
		smp_get_portinfo(r->port_info[port->peer], &peer);
		if (cur.mtu_cap && peer.mtu_cap)
			s->neighbor_mtu = min_u8(cur.mtu_cap, peer.mtu_cap);
		if (cur.vl_cap && peer.vl_cap)
			s->oper_vls = min_u8(cur.vl_cap, peer.vl_cap);
	}
}

/* SubnetTimeOut alone does not cost a Set: some SMAs (ibsim's) do not
 * keep it, so it would be rewritten on every sweep. It goes out with any
 * other change. */
static int same_config(const struct smp_portinfo *c, const struct smp_port_set *s,
		       const struct portcfg_opts *o)
{
	if (s->set_mkey && !(o->mkey_not_kept && *o->mkey_not_kept) &&
	    (c->m_key != s->m_key || c->mkey_prot != s->mkey_prot ||
	     c->mkey_lease != s->mkey_lease))
		return 0;
	if (s->client_rereg)
		return 0;
	if (s->set_timers && (c->hoq_life != s->hoq_life || c->vl_stall != s->vl_stall))
		return 0;
	if (s->set_vl_high_limit && c->vl_high_limit != s->vl_high_limit &&
	    !(o->vl_high_limit_not_kept && *o->vl_high_limit_not_kept))
		return 0;
	return c->gid_prefix == s->gid_prefix && c->lid == s->lid &&
	       c->sm_lid == s->sm_lid && c->lmc == s->lmc &&
	       (!s->neighbor_mtu || c->neighbor_mtu == s->neighbor_mtu) &&
	       (!s->oper_vls || c->oper_vls == s->oper_vls);
}

static void describe(const struct subnet *r, uint32_t p, char *buf,
		     size_t len)
{
	const struct fab_port *port = &r->fab.ports[p];
	const struct fab_node *n = &r->fab.nodes[port->node];

	snprintf(buf, len, "0x%016llx[%u] \"%s\"", (unsigned long long)n->guid,
		 port->num, n->desc);
}

static void on_set(void *ctx, uint64_t cookie, const uint8_t *req,
		   const uint8_t *resp)
{
	struct pc_ctx *c = ctx;
	uint32_t p = (uint32_t)cookie;
	char buf[160];

	if (!resp) {
		c->st->failed++;
		describe(c->r, p, buf, sizeof(buf));
		log_warn("PortInfo Set of %s: no answer", buf);
		return;
	}
	const uint8_t *data = resp + 64;
	struct smp_portinfo now;

	smp_get_portinfo(data, &now);
	if (smp_status(resp) && !(c->want_state && now.state >= c->want_state)) {
		c->st->failed++;
		describe(c->r, p, buf, sizeof(buf));
		log_warn("PortInfo Set of %s refused (status 0x%x, port state %u)",
			 buf, smp_status(resp), now.state);
		return;
	}
	c->st->sets++;
	if (c->o && c->o->m_key && c->o->mkey_not_kept && !*c->o->mkey_not_kept &&
	    mad_get_field64((void *)(uintptr_t)(req + 64), 0, IB_PORT_MKEY_F) == c->o->m_key &&
	    now.m_key == 0) {
		*c->o->mkey_not_kept = 1;
		describe(c->r, p, buf, sizeof(buf));
		log_warn("M_Key: %s answered our M_Key Set with M_Key 0: this fabric's SMAs do not keep M_Key (ibsim does not); M_Key is sent in every SMP but no longer compared",
			 buf);
	}
	if (c->o && c->o->vl_high_limit && c->o->vl_high_limit_not_kept &&
	    !*c->o->vl_high_limit_not_kept &&
	    mad_get_field((void *)(uintptr_t)(req + 64), 0, IB_PORT_VL_HIGH_LIMIT_F) !=
	    now.vl_high_limit) {
		*c->o->vl_high_limit_not_kept = 1;
		describe(c->r, p, buf, sizeof(buf));
		log_warn("QoS: %s answered our VLHighLimit Set with VLHighLimit %u: this fabric's SMAs do not keep it (ibsim does not); it is written but no longer compared",
			 buf, now.vl_high_limit);
	}
	memcpy(c->r->port_info[p], data, 64);
	c->r->fab.ports[p].state = now.state;
}

static int send_set(struct mad_transport *t, struct pc_ctx *c, uint32_t p,
		    const struct smp_port_set *s, mt_done_fn done)
{
	uint8_t data[64];
	const struct fab_port *port = &c->r->fab.ports[p];
	int rc = mt_throttle(t, (size_t)mt_window(t) * 8);

	if (rc < 0)
		return rc;
	smp_build_portinfo_set(data, c->r->port_info[p], s);
	return mt_submit_dr(t, &c->r->port_path[p], IB_MAD_METHOD_SET,
			    IB_ATTR_PORT_INFO, port->num, data, done, c, p);
}

/* 1 when port p's own end is in h, 2 when the far end of its link is,
 * else 0 (the `disable` action's sets, port_config.h). */
static int listed(const struct subnet *r, uint32_t p,
		  const struct link_hold *h)
{
	const struct fabric *f = &r->fab;
	const struct fab_port *port = &f->ports[p];

	if (!h || !h->n || port->num == 0)
		return 0;
	if (link_hold_contains(h, f->nodes[port->node].guid, port->num))
		return 1;
	if (port->peer != FAB_NONE) {
		const struct fab_port *q = &f->ports[port->peer];

		if (link_hold_contains(h, f->nodes[q->node].guid, q->num))
			return 2;
	}
	return 0;
}

/* A Set that changes only the state fields, every other field as read. */
static void state_only(const struct smp_portinfo *cur, struct smp_port_set *s,
		       uint8_t state, uint8_t phys)
{
	memset(s, 0, sizeof(*s));
	s->gid_prefix = cur->gid_prefix;
	s->lid = cur->lid;
	s->sm_lid = cur->sm_lid;
	s->lmc = cur->lmc;
	s->subnet_timeout = cur->subnet_timeout;
	s->state = state;
	s->phys_state = phys;
}

/* Ports the SM programs: switch port 0, and every linked port. */
static int programmable(const struct subnet *r, uint32_t p)
{
	const struct fab_port *port = &r->fab.ports[p];

	if (!port_valid(r, p))
		return 0;
	if (port->num == 0)
		return fab_is_switch(&r->fab, port->node);
	return port->peer != FAB_NONE;
}

int portcfg_configure(struct mad_transport *t, struct subnet *r,
		      const struct portcfg_opts *o, struct portcfg_stats *st)
{
	struct pc_ctx c = { .r = r, .st = st, .want_state = FAB_PORT_ARMED, .o = o };
	int rc;

	/* Ends to bring back: PortPhysicalState Polling, whether or not the
	 * port is linked now (a disabled port has no link on real hardware;
	 * its switch is reached through its other ports). */
	for (uint32_t i = 0; o && o->wake && i < o->wake->n;) {
		const struct link_hold_entry *e = &o->wake->e[i];
		uint32_t n = fab_find_node_guid(&r->fab, e->guid);
		uint32_t p = n != FAB_NONE && e->port <= r->fab.nodes[n].num_ports ?
			fab_port_idx(&r->fab, n, e->port) : FAB_NONE;

		if (p == FAB_NONE || !port_valid(r, p)) {
			i++;    /* not seen this sweep: try again next time */
			continue;
		}
		struct smp_portinfo cur;
		struct smp_port_set s;
		char buf[160];

		smp_get_portinfo(r->port_info[p], &cur);
		state_only(&cur, &s, 0, 2);
		describe(r, p, buf, sizeof(buf));
		log_info("disable: bringing %s back (PortPhysicalState Polling)", buf);
		rc = send_set(t, &c, p, &s, on_set);
		if (rc < 0)
			return rc;
		st->woken++;
		link_hold_remove(o->wake, e->guid, e->port);
	}
	for (uint32_t p = 0; p < r->fab.num_ports; p++) {
		struct smp_port_set s;
		struct smp_portinfo cur;
		int dn;

		if (!programmable(r, p))
			continue;
		smp_get_portinfo(r->port_info[p], &cur);
		/* Disabled links: the listed end goes Down / Disabled, and
		 * neither end is armed while the link is held down. */
		dn = o ? listed(r, p, o->down) : 0;
		if (dn)
			continue;   /* portcfg_disable takes it down, last */
		desired(r, p, o, &s);
		if (r->fab.ports[p].num != 0 && cur.state == FAB_PORT_INIT) {
			s.state = FAB_PORT_ARMED;
		} else if (same_config(&cur, &s, o)) {
			st->unchanged++;
			continue;
		} else if (log_get_level() >= LOG_DEBUG) {
			char buf[160];

			describe(r, p, buf, sizeof(buf));
			log_debug("PortInfo of %s: lid %u->%u smlid %u->%u lmc %u->%u timeout %u->%u mtu %u->%u vls %u->%u prefix %s hoq %u->%u stall %u->%u rereg %u",
				  buf, cur.lid, s.lid, cur.sm_lid, s.sm_lid, cur.lmc,
				  s.lmc, cur.subnet_timeout, s.subnet_timeout,
				  cur.neighbor_mtu, s.neighbor_mtu, cur.oper_vls,
				  s.oper_vls, cur.gid_prefix == s.gid_prefix ? "same" : "differs",
				  cur.hoq_life, s.set_timers ? s.hoq_life : cur.hoq_life,
				  cur.vl_stall, s.set_timers ? s.vl_stall : cur.vl_stall,
				  s.client_rereg);
		}
		if (s.client_rereg) {
			st->rereg++;
			if (mad_get_field((void *)(uintptr_t)r->port_info[p], 0,
					  IB_PORT_CAPMASK_F) & (1u << 25))
				st->rereg_capable++;
		}
		if (s.set_timers && (cur.hoq_life != s.hoq_life || cur.vl_stall != s.vl_stall))
			st->timer_ports++;
		rc = send_set(t, &c, p, &s, on_set);
		if (rc < 0)
			return rc;
	}
	return mt_drain(t);
}

/* The answer to a Disable Set may have to cross the link it just took
 * down (the far end, reached through it): no answer is expected then, and
 * the Set took effect; the next sweep sees the port as it is. */
static void on_disable(void *ctx, uint64_t cookie, const uint8_t *req,
		       const uint8_t *resp)
{
	struct pc_ctx *c = ctx;
	char buf[160];

	(void)req;
	describe(c->r, (uint32_t)cookie, buf, sizeof(buf));
	if (!resp)
		log_info("disable: %s did not answer (its answer may cross the link now down)", buf);
	else if (smp_status(resp))
		log_warn("disable: %s refused the Set (status 0x%x)", buf, smp_status(resp));
}

int portcfg_disable(struct mad_transport *t, struct subnet *r,
		    const struct portcfg_opts *o, struct portcfg_stats *st)
{
	struct pc_ctx c = { .r = r, .st = st, .o = o };
	int rc;

	if (!o || !o->down || !o->down->n)
		return 0;
	/* Farthest first: the directed route to one end of the link may
	 * cross the link itself, so that end must go before the other. */
	for (int hops = SMP_MAX_HOPS; hops >= 0; hops--) {
		int sent = 0;

		for (uint32_t p = 0; p < r->fab.num_ports; p++) {
			struct smp_portinfo cur;
			struct smp_port_set s;
			char buf[160];

			if (r->port_path[p].hops != hops || !programmable(r, p) ||
			    listed(r, p, o->down) != 1)
				continue;
			smp_get_portinfo(r->port_info[p], &cur);
			if (cur.phys_state == 3)
				continue;
			describe(r, p, buf, sizeof(buf));
			log_warn("disable: taking %s down (PortState Down, PortPhysicalState Disabled)", buf);
			state_only(&cur, &s, 1, 3);
			rc = send_set(t, &c, p, &s, on_disable);
			if (rc < 0)
				return rc;
			st->disabled++;
			sent = 1;
		}
		if (sent && (rc = mt_drain(t)) < 0)
			return rc;
	}
	return 0;
}

int portcfg_activate(struct mad_transport *t, struct subnet *r,
		     const struct portcfg_opts *o, struct portcfg_stats *st)
{
	struct pc_ctx c = { .r = r, .st = st, .want_state = FAB_PORT_ACTIVE };
	int rc;

	for (uint32_t p = 0; p < r->fab.num_ports; p++) {
		struct smp_portinfo cur;
		struct smp_port_set s;

		if (!programmable(r, p) || r->fab.ports[p].num == 0)
			continue;
		if (o && listed(r, p, o->down))
			continue;
		smp_get_portinfo(r->port_info[p], &cur);
		if (cur.state != FAB_PORT_ARMED)
			continue;
		/* Keep every field as it is now; only the state moves. */
		state_only(&cur, &s, FAB_PORT_ACTIVE, 0);
		rc = send_set(t, &c, p, &s, on_set);
		if (rc < 0)
			return rc;
	}
	rc = mt_drain(t);
	if (rc < 0)
		return rc;
	for (uint32_t p = 0; p < r->fab.num_ports; p++) {
		if (!programmable(r, p) || r->fab.ports[p].num == 0)
			continue;
		if (o && listed(r, p, o->down))
			continue;   /* taken down next, on purpose */
		if (r->fab.ports[p].state == FAB_PORT_ACTIVE)
			st->active++;
		else
			st->not_active++;
	}
	return 0;
}
