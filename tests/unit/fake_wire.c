/* The fake fabric's wire (fake_sma.h): directed-route and LID-routed SMPs
 * through the graph, answers queued for the transport, fault knobs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_sma_int.h"
#include "../../mad/smp.h"

/* --- the wire ------------------------------------------------------------ */

static int alive(const struct fake_sma *s, uint32_t n)
{
	return !s->node[n].dead && !s->node[n].silent;
}

/* The far end of port number `out` of node n, if a packet can leave by
 * it (linked, not Down): its port index, else FAB_NONE. */
static uint32_t hop(const struct fake_sma *s, uint32_t n, unsigned out)
{
	uint32_t p = fab_port_idx(&s->f, n, out), q;

	if (out == 0 || p == FAB_NONE || s->f.ports[p].peer == FAB_NONE ||
	    fake_pi_get(s, p, IB_PORT_STATE_F) == FAB_PORT_DOWN)
		return FAB_NONE;
	q = s->f.ports[p].peer;
	return alive(s, s->f.ports[q].node) ? q : FAB_NONE;
}

/* IBA 14.2.2: a DR SMP leaves the SM's node by InitialPath[1]; each node
 * reached at hop h < HopCount writes the port it entered by into
 * ReturnPath[h] and, if a switch, forwards it by InitialPath[h + 1]. The
 * node at h == HopCount answers; its answer takes the return path back.
 * Returns the node that answers (and the port it was entered by), or
 * FAB_NONE when the SMP is lost on the way. */
static uint32_t dr_route(struct fake_sma *s, const struct fake_att *a,
			 uint8_t *mad, uint8_t *in)
{
	uint8_t ipath[64], rpath[64] = { 0 };
	unsigned hops = mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F);
	uint32_t n = a->node;

	mad_get_array(mad, 0, IB_DRSMP_PATH_F, ipath);
	*in = a->port;
	for (unsigned h = 1; h <= hops; h++) {
		uint32_t q;

		/* A CA forwards nothing; the SM's own CA sends by path[1]. */
		if (h > 1 && !fake_is_sw(s, n))
			return FAB_NONE;
		q = hop(s, n, ipath[h]);
		if (q == FAB_NONE)
			return FAB_NONE;
		n = s->f.ports[q].node;
		*in = s->f.ports[q].num;
		rpath[h] = *in;
	}
	mad_set_array(mad, 0, IB_DRSMP_RPATH_F, rpath);
	mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, hops);
	return n;
}

/* The LID of port p: a switch's is its port 0's. */
uint16_t fake_sma_lid(const struct fake_sma *s, uint32_t p)
{
	uint32_t n = s->f.ports[p].node;

	if (fake_is_sw(s, n))
		p = s->f.nodes[n].first_port;
	return (uint16_t)mad_get_field(RO(s->port[p].pi), 0, IB_PORT_LID_F);
}

/* Port `in` of node n (a switch: any) takes packets for lid. */
static int owns_lid(const struct fake_sma *s, uint32_t n, uint8_t in,
		    uint32_t lid)
{
	uint32_t p = fake_is_sw(s, n) ? s->f.nodes[n].first_port :
		fab_port_idx(&s->f, n, in);
	uint32_t base = fake_sma_lid(s, p);
	unsigned lmc = fake_pi_get(s, p, IB_PORT_LMC_F);

	return base && lid >= base && lid < base + (1u << lmc);
}

/* A LID-routed packet from node n (a CA: leaving by port `in`) to dlid,
 * switch by switch through the LFTs. The node it reaches, or FAB_NONE. */
static uint32_t lid_route(const struct fake_sma *s, uint32_t n, uint8_t *in,
			  uint32_t dlid)
{
	for (unsigned h = 0; h < FAKE_MAX_HOPS; h++) {
		unsigned out;
		uint32_t q;

		if (owns_lid(s, n, *in, dlid))
			return n;
		if (fake_is_sw(s, n))
			out = dlid < FAKE_LFT_CAP ? s->node[n].lft[dlid] : 0xFF;
		else if (h == 0)
			out = *in;
		else
			return FAB_NONE;
		q = hop(s, n, out);
		if (q == FAB_NONE)
			return FAB_NONE;
		n = s->f.ports[q].node;
		*in = s->f.ports[q].num;
	}
	return FAB_NONE;
}

static struct fake_rx *rx_push(struct fake_att *s)
{
	if (s->rx_len == s->rx_cap) {
		size_t cap = s->rx_cap ? s->rx_cap * 2 : 64;
		struct fake_rx *q = malloc(cap * sizeof(*q));

		if (!q)
			return NULL;
		for (size_t i = 0; i < s->rx_len; i++)
			q[i] = s->rx[(s->rx_head + i) % s->rx_cap];
		free(s->rx);
		s->rx = q;
		s->rx_cap = cap;
		s->rx_head = 0;
	}
	return &s->rx[(s->rx_head + s->rx_len++) % s->rx_cap];
}

static uint64_t rng_next(struct fake_sma *s)
{
	/* xorshift64*: enough for "lose one in N", reproducible per seed */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545F4914F6CDD1Dull;
}

static int lost_on_the_way(struct fake_sma *s, const uint8_t *mad)
{
	if (s->drop_n && (!s->drop_attr || s->drop_attr == smp_attr(mad)) &&
	    (!s->drop_method || s->drop_method == smp_method(mad))) {
		s->drop_n--;
		return 1;
	}
	return s->loss_permille && rng_next(s) % 1000 < s->loss_permille;
}

/* The LID of an attached SM's port. */
static uint16_t att_lid(const struct fake_att *a)
{
	return fake_sma_lid(a->s, fab_port_idx(&a->s->f, a->node, a->port));
}

static int deliver(struct fake_att *to, const uint8_t *mad, uint16_t slid)
{
	struct fake_rx *rx = rx_push(to);

	if (!rx)
		return -ENOMEM;
	memcpy(rx->mad, mad, SMP_SIZE);
	rx->slid = slid;
	rx->sqp = 0;
	rx->status = 0;
	return 0;
}

/* The SM attached at port `in` of node n, other than `not`, or NULL. */
static struct fake_att *att_at(struct fake_sma *s, uint32_t n, uint8_t in,
			       const struct fake_att *not)
{
	for (unsigned i = 0; i < s->num_att; i++)
		if (&s->att[i] != not && s->att[i].node == n && s->att[i].port == in)
			return &s->att[i];
	return NULL;
}

/* Let an attached SM's loop run until it has handled what reached it (it
 * would, on a host of its own): its answer to a peer's SMInfo query may
 * need MADs of its own first. Not while it is inside its own call. */
static void pump(struct fake_att *b)
{
	if (!b->t || b->busy)
		return;
	b->busy++;
	for (unsigned i = 0; i < 1000 && (b->rx_len || mt_pending(b->t)); i++)
		if (mt_poll(b->t, 0) < 0)
			break;
	b->busy--;
}

/* SMInfo to a port where an SM is attached goes to that SM (IBA 14.4.1:
 * the SM answers, not the SMA); its answer goes back to the asker. */
static int to_peer_sm(struct fake_sma *s, struct fake_att *a,
		      struct fake_att *b, const uint8_t *mad, uint16_t slid)
{
	struct fake_pending *pd = NULL;

	for (unsigned i = 0; i < FAKE_MAX_PENDING && !pd; i++)
		if (!s->pending[i].used)
			pd = &s->pending[i];
	if (!pd)
		return 0;               /* lost: the asker times out */
	*pd = (struct fake_pending){ .tid = smp_tid(mad), .used = 1,
		.responder = (uint8_t)(b - s->att),
		.requester = (uint8_t)(a - s->att) };
	if (deliver(b, mad, slid) < 0)
		return -ENOMEM;
	pump(b);
	return 0;
}

/* An answer from attached SM b: to whoever asked it. */
static int from_peer_sm(struct fake_sma *s, struct fake_att *b,
			const uint8_t *mad)
{
	uint64_t tid = smp_tid(mad);

	for (unsigned i = 0; i < FAKE_MAX_PENDING; i++) {
		struct fake_pending *pd = &s->pending[i];

		if (!pd->used || pd->tid != tid || pd->responder != b - s->att)
			continue;
		pd->used = 0;
		return deliver(&s->att[pd->requester], mad,
			       smp_class(mad) == SMP_CLASS_DR ? 0xffff : att_lid(b));
	}
	return 0;
}

static int wire_send(void *wire, const uint8_t *req, size_t len, uint16_t dlid,
		     uint32_t dqp)
{
	struct fake_att *a = wire;
	struct fake_sma *s = a->s;
	uint8_t mad[SMP_SIZE] = { 0 };
	uint8_t cls = smp_class(req), in = 0;
	uint32_t n;
	uint16_t slid = 0xffff;
	struct fake_att *b;
	int rc = 0;

	memcpy(mad, req, len < SMP_SIZE ? len : SMP_SIZE);
	if (dqp || (cls != SMP_CLASS_DR && cls != SMP_CLASS_LID)) {
		s->gmps++;      /* no SA or PMA lives in the fake */
		return 0;
	}
	/* Answers of ours: to a peer SM that asked, else (TrapRepress) end. */
	if (smp_is_response(mad))
		return from_peer_sm(s, a, mad);
	if (smp_method(mad) == IB_MAD_METHOD_TRAP_REPRESS)
		return 0;
	if (lost_on_the_way(s, mad)) {
		s->dropped++;
		return 0;
	}
	if (cls == SMP_CLASS_DR) {
		n = dr_route(s, a, mad, &in);
	} else {
		in = a->port;
		n = lid_route(s, a->node, &in, dlid);
		slid = dlid;
	}
	if (n == FAB_NONE || !alive(s, n))
		return 0;
	a->busy++;
	if (smp_attr(mad) == IB_ATTR_SMINFO && (b = att_at(s, n, in, a)) != NULL) {
		rc = to_peer_sm(s, a, b, mad, cls == SMP_CLASS_DR ? 0xffff : att_lid(a));
		a->busy--;
		return rc;
	}
	a->busy--;
	smp_make_response(mad, fake_sma_answer(s, n, in, mad));
	if (cls == SMP_CLASS_LID) {
		/* The answer comes back through the LFTs too. */
		if (lid_route(s, n, &in, att_lid(a)) != a->node)
			return 0;
	} else {
		mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, 0);
	}
	return deliver(a, mad, slid);
}

static int wire_recv(void *wire, uint8_t *mad, uint16_t *slid, uint32_t *sqp,
		     int *status)
{
	struct fake_att *s = wire;
	struct fake_rx *rx;

	if (!s->rx_len)
		return 0;
	rx = &s->rx[s->rx_head];
	memcpy(mad, rx->mad, SMP_SIZE);
	*slid = rx->slid;
	*sqp = rx->sqp;
	*status = rx->status;
	s->rx_head = (s->rx_head + 1) % s->rx_cap;
	s->rx_len--;
	return 1;
}

/* Nothing will arrive that was not sent: a wait is the time until the
 * transport's next timeout (at most 100 ms when it names none). */
static int wire_wait(void *wire, int ms)
{
	struct fake_att *a = wire;
	struct timespec ts;

	if (a->rx_len || ms == 0)
		return 0;
	if (ms < 0 || ms > 100)
		ms = 100;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)ms * 1000000L;
	nanosleep(&ts, NULL);
	return 0;
}

static void wire_close(void *wire)
{
	struct fake_att *a = wire;

	a->t = NULL;
}

static const struct mt_wire_ops fake_wire_ops = {
	.send = wire_send,
	.recv = wire_recv,
	.wait = wire_wait,
	.close = wire_close,
};

static int open_att(struct fake_att *a, const struct mt_opts *opts,
		    struct mad_transport **out)
{
	struct mt_opts def = { .window = 16, .timeout_ms = 5, .retries = 2 };
	int rc;

	if (a->t)
		return -EBUSY;
	rc = mt_open_wire(out, &fake_wire_ops, a,
			  fake_sma_port_guid(a->s, fab_port_idx(&a->s->f, a->node,
								a->port)),
			  opts ? opts : &def);
	if (rc == 0)
		a->t = *out;
	return rc;
}

int fake_sma_open(struct fake_sma *s, const struct mt_opts *opts,
		  struct mad_transport **out)
{
	return open_att(&s->att[0], opts, out);
}

int fake_sma_open_at(struct fake_sma *s, uint32_t node, uint8_t port,
		     const struct mt_opts *opts, struct mad_transport **out)
{
	uint32_t p;
	struct fake_att *a;

	*out = NULL;
	if (s->num_att == FAKE_MAX_ATT || node >= s->f.num_nodes ||
	    fake_is_sw(s, node) || !port ||
	    (p = fab_port_idx(&s->f, node, port)) == FAB_NONE ||
	    att_at(s, node, port, NULL))
		return -EINVAL;
	a = &s->att[s->num_att];
	*a = (struct fake_att){ .s = s, .node = node, .port = port };
	if (open_att(a, opts, out) < 0)
		return -ENOMEM;
	s->num_att++;
	/* The SM holds its port's issm device: IsSM (IBA 14.4.1). */
	mad_set_field(s->port[p].pi, 0, IB_PORT_CAPMASK_F,
		      mad_get_field(s->port[p].pi, 0, IB_PORT_CAPMASK_F) | CAP_IS_SM);
	return 0;
}

/* --- what tests read and the knobs ---------------------------------------- */

const struct fabric *fake_sma_fabric(const struct fake_sma *s)
{
	return &s->f;
}

const uint8_t *fake_sma_portinfo(const struct fake_sma *s, uint32_t p)
{
	return s->port[p].pi;
}

const uint8_t *fake_sma_switchinfo(const struct fake_sma *s, uint32_t n)
{
	return s->node[n].sw_info;
}

uint8_t fake_sma_lft(const struct fake_sma *s, uint32_t n, uint32_t lid)
{
	return s->node[n].lft && lid < FAKE_LFT_CAP ? s->node[n].lft[lid] : 0xFF;
}

const uint8_t *fake_sma_sl2vl(const struct fake_sma *s, uint32_t n,
			      unsigned in, unsigned out)
{
	unsigned np = s->f.nodes[n].num_ports + 1u;

	return s->node[n].sl2vl[fake_is_sw(s, n) ? in * np + out : in];
}

const uint8_t *fake_sma_vlarb(const struct fake_sma *s, uint32_t p,
			      unsigned block)
{
	return s->port[p].vlarb[block - 1];
}

uint16_t fake_sma_pkey(const struct fake_sma *s, uint32_t p, unsigned i)
{
	return i < FAKE_PKEY_CAP ? s->port[p].pkey[i] : 0;
}

unsigned fake_sma_count(const struct fake_sma *s, uint8_t method, uint16_t attr)
{
	unsigned sum = 0;

	if (!method && !attr)
		return s->all;
	for (unsigned m = 1; m <= 2; m++)
		if (!method || method == m)
			for (unsigned a = 0; a < 64; a++)
				if (!attr || (attr & 63) == a)
					sum += s->count[m][a];
	return sum;
}

unsigned fake_sma_dropped(const struct fake_sma *s)
{
	return s->dropped;
}

unsigned fake_sma_gmps(const struct fake_sma *s)
{
	return s->gmps;
}

void fake_sma_reset_counts(struct fake_sma *s)
{
	memset(s->count, 0, sizeof(s->count));
	s->all = s->dropped = s->gmps = 0;
}

void fake_sma_drop(struct fake_sma *s, uint16_t attr, uint8_t method,
		   unsigned n)
{
	s->drop_attr = attr;
	s->drop_method = method;
	s->drop_n = n;
}

void fake_sma_loss(struct fake_sma *s, unsigned permille, uint64_t seed)
{
	s->loss_permille = permille;
	s->rng = seed ? seed : 1;
}

void fake_sma_silence(struct fake_sma *s, uint32_t node, int silent)
{
	s->node[node].silent = (uint8_t)!!silent;
}

/* Trap 128 (IBA 14.2.5.1, 14.3.11.1: a port state change on a switch)
 * from switch n to its MasterSMLID, as a LID-routed SubnTrap. */
static void send_trap128(struct fake_sma *s, uint32_t n)
{
	uint32_t p0 = s->f.nodes[n].first_port, to;
	uint16_t issuer = fake_sma_lid(s, p0);
	uint16_t master = (uint16_t)mad_get_field(s->port[p0].pi, 0, IB_PORT_SMLID_F);
	uint8_t in = 0;
	struct fake_att *a;
	struct fake_rx *rx;

	if (!issuer || !master ||
	    (to = lid_route(s, n, &in, master)) == FAB_NONE ||
	    !(a = att_at(s, to, in, NULL)))
		return;
	rx = rx_push(a);
	if (!rx)
		return;
	smp_init_lid(rx->mad, IB_MAD_METHOD_TRAP, SMP_ATTR_NOTICE, 0,
		     ++s->trap_tid);
	mad_set_field(smp_data(rx->mad), 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(smp_data(rx->mad), 0, IB_NOTICE_TYPE_F, 1);      /* urgent */
	mad_set_field(smp_data(rx->mad), 0, IB_NOTICE_PRODUCER_F, FAB_SWITCH);
	mad_set_field(smp_data(rx->mad), 0, IB_NOTICE_TRAP_NUMBER_F, 128);
	mad_set_field(smp_data(rx->mad), 0, IB_NOTICE_ISSUER_LID_F, issuer);
	mad_set_field(smp_data(rx->mad), 0, IB_NOTICE_DATA_LID_F, issuer);
	rx->slid = issuer;
	rx->sqp = 0;
	rx->status = 0;
}

void fake_sma_kill(struct fake_sma *s, uint32_t node)
{
	const struct fab_node *nd = &s->f.nodes[node];

	if (s->node[node].dead)
		return;
	s->node[node].dead = 1;
	for (unsigned k = 1; k <= nd->num_ports; k++) {
		uint32_t p = nd->first_port + k, q = s->f.ports[p].peer;

		fake_set_state(s, p, FAB_PORT_DOWN, 2);
		if (q == FAB_NONE || s->node[s->f.ports[q].node].dead)
			continue;
		fake_set_state(s, q, FAB_PORT_DOWN, 2);
		if (fake_is_sw(s, s->f.ports[q].node))
			send_trap128(s, s->f.ports[q].node);
	}
}

int fake_sma_add_sm(struct fake_sma *s, uint32_t node, uint8_t port,
		    uint64_t guid, uint64_t sm_key, uint8_t priority,
		    uint8_t state)
{
	uint32_t p;

	if (s->num_sms == FAKE_MAX_SMS || node >= s->f.num_nodes ||
	    fake_is_sw(s, node) || (p = fab_port_idx(&s->f, node, port)) == FAB_NONE ||
	    !port)
		return -EINVAL;
	s->sms[s->num_sms++] = (struct fake_peer_sm){
		.node = node, .port = port, .guid = guid, .sm_key = sm_key,
		.priority = priority, .state = state,
	};
	mad_set_field(s->port[p].pi, 0, IB_PORT_CAPMASK_F,
		      mad_get_field(s->port[p].pi, 0, IB_PORT_CAPMASK_F) | CAP_IS_SM);
	return 0;
}
