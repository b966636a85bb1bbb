/* MAD transport over libibumad: a FIFO of queued SMPs, a window of slots
 * in flight, and our own timeouts (each send goes out with timeout_ms 0, so
 * the kernel does not track it; responses still reach the agent by TID).
 *
 * Transaction ids: only the low 32 bits are ours. The kernel puts the agent
 * id in the high half (ibsim's umad2sim and ibsim itself overwrite bits
 * 32..63 likewise), so responses are matched on the low 32 bits:
 * slot number in the low 12 bits, a per-send sequence above it, so a late
 * answer to an earlier try never completes a newer one. */
#include "mad_transport.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>
#include <infiniband/mad.h>

#include "../core/log.h"
#include "gmp.h"

#define SLOT_BITS 12
#define MAX_WINDOW (1u << SLOT_BITS)

struct mt_req {
	uint8_t mad[SMP_SIZE];
	uint16_t dlid;              /* 0xffff for directed route */
	uint16_t tries;             /* sends so far */
	uint32_t dqp;               /* 0 for SMPs; GMPs: QP1, or a subscriber's QP */
	mt_done_fn done;
	void *ctx;
	uint64_t cookie;
	double deadline;            /* in flight: when this try expires */
	uint32_t tid32;             /* in flight: low TID bits */
	int busy;
	int low;                    /* from the low queue (mt_submit_low) */
};

/* An SA MAD received and not yet served (defer, mt_serve_deferred). */
struct mt_deferred {
	uint8_t mad[SMP_SIZE];
	uint16_t slid;
	uint32_t sqp;
};

struct mad_transport {
	/* NULL: libibumad's port (mt_open); else the wire mt_open_wire gave. */
	const struct mt_wire_ops *wire_ops;
	void *wire;
	int portid;
	int agent_lid, agent_dr;
	int agent_sa;               /* SubnAdm (class 0x03, version 2) server */
	int kernel_rmpp;            /* agent_sa registered with RMPP version 1 */
	int sim;                    /* under ibsim's libumad2sim */
	int agent_perf;             /* PerfMgt (class 0x04) client: PerfMgr */
	/* ibsim only: agents that take classes we do not serve, so that
	 * umad2sim delivers them instead of crashing (IBSIM-NOTES). */
	int agent_sink[8];
	uint8_t sink_class[8];
	unsigned num_sink;
	int issm_fd;
	int watch_fd[MT_WATCH_MAX]; /* other fds mt_poll sleeps on, or -1 */
	unsigned watch_ready;       /* bit i: poll saw watch_fd[i] readable */
	char ca[UMAD_CA_NAME_LEN];
	int port_num;
	uint64_t port_guid;
	struct mt_opts opt;
	/* queue: ring buffer of requests not yet sent */
	struct mt_req *queue;
	size_t q_head, q_len, q_cap;
	/* in flight */
	struct mt_req *slots;
	uint32_t *free_slots;
	unsigned num_free;
	unsigned in_flight;
	uint32_t seq;
	double next_expiry;
	void *umad;                 /* one send/recv buffer */
	mt_request_fn on_request;
	void *on_request_ctx;
	mt_long_request_fn on_long;
	void *on_long_ctx;
	struct mt_stats st;
	uint64_t m_key;             /* in every SMP we send (IBA 14.2.4) */
	/* SA requests received, served later in slices (mt_serve_deferred) */
	struct mt_deferred *dq;
	size_t dq_head, dq_len, dq_cap;
	unsigned dq_per_source;
	uint16_t *dq_of_lid;        /* entries queued per source LID */
	uint16_t dq_last_slid;      /* source of the last one served */
	int yielding;               /* inside mt_yield */
	/* low queue (Reports): behind every SMP, a few slots of the window */
	struct mt_req *lq;
	size_t lq_head, lq_len, lq_cap;
	unsigned low_slots, low_in_flight, low_timeout_ms, low_retries;
};

static void copy_name(char *dst, const char *src)
{
	size_t n = strnlen(src, UMAD_CA_NAME_LEN - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* No usable umad port: say what an operator checks, in the order things
 * go wrong on a host (module, device, permission, port). */
static void explain_no_port(void)
{
	char names[32][UMAD_CA_NAME_LEN];
	int n;

	if (access("/sys/class/infiniband_mad", F_OK) < 0) {
		log_err("no umad device: /sys/class/infiniband_mad is missing. Check that the ib_umad kernel module is loaded (modprobe ib_umad; lsmod | grep ib_umad) and the HCA's driver too (e.g. mlx5_ib); `ibstat` lists the CAs the kernel sees");
		return;
	}
	n = umad_get_cas_names(names, 32);
	if (n <= 0) {
		log_err("no umad device: no CA is registered. Check the HCA's driver is loaded (e.g. mlx5_ib) and `ibstat` lists a CA");
		return;
	}
	if (access("/dev/infiniband/umad0", R_OK | W_OK) < 0 && errno == EACCES) {
		log_err("no umad device we may open: /dev/infiniband/umad* need read and write permission (run ibsm as root, or give its user access with a udev rule); `ls -l /dev/infiniband`, `ibstat`");
		return;
	}
	log_err("check ca_name / port_num / port_guid against `ibstat` (%d CA%s found, the first %s); the port must be a physical port of the CA, not 0",
		n, n == 1 ? "" : "s", names[0]);
}

static int find_port_by_guid(uint64_t guid, char *ca, int *port)
{
	char names[32][UMAD_CA_NAME_LEN];
	int n = umad_get_cas_names(names, 32);

	for (int i = 0; i < n; i++) {
		__be64 guids[64];
		int np = umad_get_ca_portguids(names[i], guids, 64);

		for (int p = 0; p < np; p++) {
			if (guids[p] && be64toh(guids[p]) == guid) {
				copy_name(ca, names[i]);
				*port = p;
				return 0;
			}
		}
	}
	return -ENODEV;
}

/* ibsim's client shim (libumad2sim) holds one lock while it writes a MAD
 * to the simulator's socket, and its receiver thread needs the same lock
 * to drain answers: with more MADs in flight than the socket buffers hold
 * (a few hundred), client and simulator block on each other for good.
 * Under the shim, keep the window below that. */
#define SIM_MAX_WINDOW 128

static int under_umad2sim(void);

static unsigned sim_window_cap(unsigned window)
{
	if (window <= SIM_MAX_WINDOW || !under_umad2sim())
		return window;
	log_warn("window %u lowered to %u under ibsim's libumad2sim (it deadlocks when its socket fills)",
		 window, SIM_MAX_WINDOW);
	return SIM_MAX_WINDOW;
}

static int under_umad2sim(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "umad2sim");
}

int mt_simulated(void)
{
	return under_umad2sim();
}

/* Classes ibsim may hand to the SM's port that we do not serve: BM, DevMgt, CM, SNMP tunnelling, CC and the OpenIB ping class (ibping).
 * A real port's kernel answers them itself (IBA 13.4.7: unsupported
 * class); umad2sim instead crashes the process on a class it has no agent
 * for. Registering them on real hardware would steal them from their
 * owners on the SM host (rdma_cm, an ibping server), so only under ibsim. */
static const uint8_t sim_sink_classes[] = { 0x05, 0x06, 0x07, 0x08, 0x21 };
#define OPENIB_PING_CLASS 0x32

static int register_gmp_agents(struct mad_transport *t)
{
	long mask[16 / sizeof(long)];
	uint8_t *m = (uint8_t *)mask;

	/* SA requests (IBA 15.2.2): Get, Set, GetTable, GetTraceTable,
	 * GetMulti, Delete. */
	memset(mask, 0, sizeof(mask));
	m[0] = (1 << 0x01) | (1 << 0x02);
	m[2] = (1 << (0x12 - 16)) | (1 << (0x13 - 16)) | (1 << (0x14 - 16)) |
		(1 << (0x15 - 16));
	/* On a real port the kernel does RMPP for us (IBA 13.6: window,
	 * ACKs, retries; ACKs are responses the kernel matches to its own
	 * segments, which a non-RMPP agent would never see). umad2sim has no
	 * RMPP, so there the SA segments its answers itself. */
	t->kernel_rmpp = !under_umad2sim();
	t->agent_sa = umad_register(t->portid, GMP_CLASS_SA, GMP_SA_CLASS_VERSION,
				    t->kernel_rmpp ? 1 : 0, mask);
	if (t->agent_sa < 0) {
		log_err("cannot register the SubnAdm agent on %s port %d (another SA running?)",
			t->ca, t->port_num);
		return -EBUSY;
	}
	/* PerfMgt: we are a client (PerfMgr), responses come by TID. A
	 * real port's PMA is the kernel's and keeps its requests, so no
	 * request methods there; under ibsim every method, so umad2sim
	 * delivers requests to our port (answered 'unsupported class'). */
	memset(mask, under_umad2sim() ? 0xff : 0, sizeof(mask));
	t->agent_perf = umad_register(t->portid, GMP_CLASS_PERF, 1, 0, mask);
	if (t->agent_perf < 0)
		log_warn("cannot register a PerfMgt agent on %s port %d: no performance counters",
			 t->ca, t->port_num);
	if (!under_umad2sim())
		return 0;
	/* Every request method of the class (responses come by TID). */
	memset(mask, 0xff, sizeof(mask));
	for (unsigned i = 0; i < sizeof(sim_sink_classes); i++) {
		int a = umad_register(t->portid, sim_sink_classes[i], 1, 0, mask);

		if (a < 0) {
			log_debug("ibsim: cannot take class 0x%02x (%d)",
				  sim_sink_classes[i], a);
			continue;
		}
		t->sink_class[t->num_sink] = sim_sink_classes[i];
		t->agent_sink[t->num_sink++] = a;
	}
	{
		uint8_t oui[3] = { 0x00, 0x14, 0x05 };  /* OpenIB OUI */
		int a = umad_register_oui(t->portid, OPENIB_PING_CLASS, 0, oui,
					  mask);

		if (a >= 0) {
			t->sink_class[t->num_sink] = OPENIB_PING_CLASS;
			t->agent_sink[t->num_sink++] = a;
		} else {
			log_debug("ibsim: cannot take the ping class (%d)", a);
		}
	}
	return 0;
}

static int open_issm(struct mad_transport *t)
{
	char path[256];

	/* Holding the issm device open sets PortInfo.CapabilityMask.IsSM, so
	 * SMInfo queries and traps are delivered to us (IBA 14.4.1; ibsim
	 * routes them to "issm" clients only). */
	if (umad_get_issm_path(t->ca, t->port_num, path, sizeof(path)) < 0)
		return -ENOENT;
	t->issm_fd = open(path, O_RDWR | O_CLOEXEC);
	return t->issm_fd < 0 ? -errno : 0;
}

int mt_open(struct mad_transport **out, const struct mt_port_sel *sel,
	     const struct mt_opts *opts)
{
	struct mad_transport *t;
	umad_port_t port;
	const char *ca = sel->ca && *sel->ca ? sel->ca : NULL;
	int portnum = sel->port;
	char guid_ca[UMAD_CA_NAME_LEN];
	long method_mask[16 / sizeof(long)];

	*out = NULL;
	if (opts->window < 1 || opts->window > MAX_WINDOW)
		return -EINVAL;
	if (umad_init() < 0) {
		log_err("umad_init failed");
		explain_no_port();
		return -ENODEV;
	}
	if (sel->guid) {
		if (find_port_by_guid(sel->guid, guid_ca, &portnum) < 0) {
			log_err("no local port has GUID 0x%016llx",
				(unsigned long long)sel->guid);
			explain_no_port();
			return -ENODEV;
		}
		ca = guid_ca;
	}
	if (umad_get_port(ca, portnum, &port) < 0) {
		log_err("no local port %s%s%d", ca ? ca : "(default CA)",
			" port ", portnum);
		explain_no_port();
		return -ENODEV;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		umad_release_port(&port);
		return -ENOMEM;
	}
	t->issm_fd = -1;
	for (unsigned w = 0; w < MT_WATCH_MAX; w++)
		t->watch_fd[w] = -1;
	t->sim = under_umad2sim();
	t->agent_sa = -1;
	t->agent_perf = -1;
	copy_name(t->ca, port.ca_name);
	t->port_num = port.portnum;
	t->port_guid = be64toh(port.port_guid);
	umad_release_port(&port);
	t->opt = *opts;

	t->portid = umad_open_port(t->ca, t->port_num);
	if (t->portid < 0) {
		log_err("cannot open %s port %d: %s", t->ca, t->port_num,
			strerror(-t->portid));
		if (t->portid == -EACCES || t->portid == -EPERM)
			log_err("/dev/infiniband/umad* need read and write permission: run ibsm as root, or give its user access with a udev rule");
		else
			explain_no_port();
		free(t);
		return -ENODEV;
	}
	/* Requests we must see as the SM: Get/Set (SMInfo), Trap, TrapRepress. */
	memset(method_mask, 0, sizeof(method_mask));
	((uint8_t *)method_mask)[0] = (1 << IB_MAD_METHOD_GET) |
		(1 << IB_MAD_METHOD_SET) | (1 << IB_MAD_METHOD_TRAP) |
		(1 << IB_MAD_METHOD_TRAP_REPRESS);
	t->agent_lid = umad_register(t->portid, SMP_CLASS_LID, 1, 0, method_mask);
	t->agent_dr = umad_register(t->portid, SMP_CLASS_DR, 1, 0, method_mask);
	if (t->agent_lid < 0 || t->agent_dr < 0) {
		log_err("cannot register SMI agents on %s port %d (another SM running?)",
			t->ca, t->port_num);
		mt_close(t);
		return -EBUSY;
	}
	if (register_gmp_agents(t) < 0) {
		mt_close(t);
		return -EBUSY;
	}
	if (!t->opt.no_issm && open_issm(t) < 0)
		log_warn("cannot open the issm device of %s port %d: SMInfo queries and traps will not reach us",
			 t->ca, t->port_num);

	t->opt.window = sim_window_cap(t->opt.window);
	t->slots = calloc(t->opt.window, sizeof(*t->slots));
	t->free_slots = calloc(t->opt.window, sizeof(*t->free_slots));
	t->umad = calloc(1, umad_size() + SMP_SIZE);
	if (!t->slots || !t->free_slots || !t->umad) {
		mt_close(t);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t->opt.window; i++)
		t->free_slots[i] = t->opt.window - 1 - i;
	t->num_free = t->opt.window;
	t->seq = (uint32_t)getpid();
	*out = t;
	return 0;
}

int mt_open_wire(struct mad_transport **out, const struct mt_wire_ops *ops,
		  void *wire, uint64_t port_guid, const struct mt_opts *opts)
{
	struct mad_transport *t;

	*out = NULL;
	if (opts->window < 1 || opts->window > MAX_WINDOW)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->wire_ops = ops;
	t->wire = wire;
	t->portid = -1;
	t->issm_fd = -1;
	for (unsigned w = 0; w < MT_WATCH_MAX; w++)
		t->watch_fd[w] = -1;
	copy_name(t->ca, "wire");
	t->port_num = 1;
	t->port_guid = port_guid;
	t->opt = *opts;
	/* The classes a umad port registers; the numbers only have to be
	 * distinct and not negative (agent_of). */
	t->agent_lid = 0;
	t->agent_dr = 1;
	t->agent_sa = 2;
	t->agent_perf = 3;
	t->slots = calloc(t->opt.window, sizeof(*t->slots));
	t->free_slots = calloc(t->opt.window, sizeof(*t->free_slots));
	if (!t->slots || !t->free_slots) {
		mt_close(t);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t->opt.window; i++)
		t->free_slots[i] = t->opt.window - 1 - i;
	t->num_free = t->opt.window;
	/* Two SMs on one test fabric send distinct TIDs (mt_open: the pid). */
	t->seq = (uint32_t)port_guid;
	*out = t;
	return 0;
}

void mt_close(struct mad_transport *t)
{
	if (!t)
		return;
	if (t->wire_ops && t->wire_ops->close)
		t->wire_ops->close(t->wire);
	if (t->issm_fd >= 0)
		close(t->issm_fd);
	if (t->portid >= 0)
		umad_close_port(t->portid);
	free(t->queue);
	free(t->slots);
	free(t->free_slots);
	free(t->umad);
	free(t->dq);
	free(t->dq_of_lid);
	free(t->lq);
	free(t);
}

const char *mt_ca_name(const struct mad_transport *t) { return t->ca; }
int mt_port_num(const struct mad_transport *t) { return t->port_num; }
uint64_t mt_port_guid(const struct mad_transport *t) { return t->port_guid; }
int mt_fd(const struct mad_transport *t)
{
	return t->wire_ops ? -1 : umad_get_fd(t->portid);
}
unsigned mt_window(const struct mad_transport *t) { return t->opt.window; }

void mt_set_retries(struct mad_transport *t, unsigned retries)
{
	t->opt.retries = retries;
}

size_t mt_pending(const struct mad_transport *t)
{
	return t->q_len + t->in_flight;
}

const struct mt_stats *mt_get_stats(const struct mad_transport *t)
{
	return &t->st;
}

double mt_stats_loss(const struct mt_stats *a, const struct mt_stats *b)
{
	uint64_t tries = b->sent - a->sent;

	return tries ? (double)(b->timed_out - a->timed_out) / tries : 0;
}

void mt_stats_diff(struct mt_stats *out, const struct mt_stats *a,
		    const struct mt_stats *b)
{
	out->sent = b->sent - a->sent;
	out->received = b->received - a->received;
	out->timed_out = b->timed_out - a->timed_out;
	out->retried = b->retried - a->retried;
	out->failed = b->failed - a->failed;
	out->unsolicited = b->unsolicited - a->unsolicited;
	out->stray = b->stray - a->stray;
	out->deferred = b->deferred - a->deferred;
	out->deferred_dropped = b->deferred_dropped - a->deferred_dropped;
	out->low_dropped = b->low_dropped - a->low_dropped;
}

void mt_set_request_handler(struct mad_transport *t, mt_request_fn fn,
			     void *ctx)
{
	t->on_request = fn;
	t->on_request_ctx = ctx;
}

void mt_set_long_request_handler(struct mad_transport *t,
				  mt_long_request_fn fn, void *ctx)
{
	t->on_long = fn;
	t->on_long_ctx = ctx;
}

static struct mt_req *queue_push(struct mad_transport *t)
{
	if (t->q_len == t->q_cap) {
		size_t ncap = t->q_cap ? t->q_cap * 2 : 256;
		struct mt_req *nq = malloc(ncap * sizeof(*nq));

		if (!nq)
			return NULL;
		for (size_t i = 0; i < t->q_len; i++)
			nq[i] = t->queue[(t->q_head + i) % t->q_cap];
		free(t->queue);
		t->queue = nq;
		t->q_cap = ncap;
		t->q_head = 0;
	}
	return &t->queue[(t->q_head + t->q_len++) % t->q_cap];
}

static int submit(struct mad_transport *t, uint16_t dlid, mt_done_fn done,
		  void *ctx, uint64_t cookie, struct mt_req **out)
{
	struct mt_req *r = queue_push(t);

	if (!r)
		return -ENOMEM;
	memset(r, 0, offsetof(struct mt_req, dlid));
	r->dlid = dlid;
	r->tries = 0;
	r->dqp = 0;
	r->done = done;
	r->ctx = ctx;
	r->cookie = cookie;
	r->busy = 0;
	r->low = 0;
	*out = r;
	return 0;
}

int mt_submit_dr(struct mad_transport *t, const struct smp_path *path,
		  uint8_t method, uint16_t attr, uint32_t mod,
		  const uint8_t *data, mt_done_fn done, void *ctx,
		  uint64_t cookie)
{
	struct mt_req *r;
	int rc = submit(t, 0xffff, done, ctx, cookie, &r);

	if (rc)
		return rc;
	smp_init_dr(r->mad, path, method, attr, mod, 0);
	mad_set_field64(r->mad, 0, IB_MAD_MKEY_F, t->m_key);
	if (data)
		memcpy(smp_data(r->mad), data, 64);
	return 0;
}

int mt_submit_lid(struct mad_transport *t, uint16_t dlid, uint8_t method,
		   uint16_t attr, uint32_t mod, const uint8_t *data,
		   mt_done_fn done, void *ctx, uint64_t cookie)
{
	struct mt_req *r;
	int rc = submit(t, dlid, done, ctx, cookie, &r);

	if (rc)
		return rc;
	smp_init_lid(r->mad, method, attr, mod, 0);
	mad_set_field64(r->mad, 0, IB_MAD_MKEY_F, t->m_key);
	if (data)
		memcpy(smp_data(r->mad), data, 64);
	return 0;
}

static int agent_of(const struct mad_transport *t, uint8_t mclass);

int mt_submit_gmp(struct mad_transport *t, uint16_t dlid, const uint8_t *mad,
		   mt_done_fn done, void *ctx, uint64_t cookie)
{
	return mt_submit_gmp_qp(t, dlid, 1, mad, done, ctx, cookie);
}

int mt_submit_gmp_qp(struct mad_transport *t, uint16_t dlid, uint32_t dqp,
		      const uint8_t *mad, mt_done_fn done, void *ctx,
		      uint64_t cookie)
{
	struct mt_req *r;
	int rc;

	if (agent_of(t, smp_class(mad)) < 0)
		return -EOPNOTSUPP;
	if (dqp == 0 || dqp > 0xFFFFFF)
		return -EINVAL;
	rc = submit(t, dlid, done, ctx, cookie, &r);
	if (rc)
		return rc;
	memcpy(r->mad, mad, SMP_SIZE);
	r->dqp = dqp;
	return 0;
}

int mt_set_low_queue(struct mad_transport *t, size_t cap, unsigned slots,
		     unsigned timeout_ms, unsigned retries)
{
	struct mt_req *q = NULL;

	if (t->lq_len)
		return -EBUSY;
	if (cap && !(q = calloc(cap, sizeof(*q))))
		return -ENOMEM;
	free(t->lq);
	t->lq = q;
	t->lq_cap = cap;
	t->lq_head = 0;
	if (slots > t->opt.window / 2)
		slots = t->opt.window / 2;
	t->low_slots = slots ? slots : 1;
	t->low_timeout_ms = timeout_ms;
	t->low_retries = retries;
	return 0;
}

int mt_submit_low(struct mad_transport *t, uint16_t dlid, uint32_t dqp,
		  const uint8_t *mad, mt_done_fn done, void *ctx,
		  uint64_t cookie)
{
	struct mt_req *r;

	if (!t->lq_cap)
		return mt_submit_gmp_qp(t, dlid, dqp, mad, done, ctx, cookie);
	if (agent_of(t, smp_class(mad)) < 0)
		return -EOPNOTSUPP;
	if (dqp == 0 || dqp > 0xFFFFFF)
		return -EINVAL;
	if (t->lq_len == t->lq_cap) {
		t->st.low_dropped++;
		return -ENOBUFS;
	}
	r = &t->lq[(t->lq_head + t->lq_len++) % t->lq_cap];
	memset(r, 0, sizeof(*r));
	memcpy(r->mad, mad, SMP_SIZE);
	r->dlid = dlid;
	r->dqp = dqp;
	r->done = done;
	r->ctx = ctx;
	r->cookie = cookie;
	r->low = 1;
	return 0;
}

size_t mt_cancel_low(struct mad_transport *t, uint16_t dlid)
{
	size_t k = 0, n = t->lq_len;

	for (size_t i = 0; i < n; i++) {
		struct mt_req *r = &t->lq[(t->lq_head + i) % t->lq_cap];

		if (r->dlid != dlid)
			t->lq[(t->lq_head + k++) % t->lq_cap] = *r;
	}
	t->lq_len = k;
	return n - k;
}

size_t mt_low_pending(const struct mad_transport *t)
{
	return t->lq_len + t->low_in_flight;
}

int mt_set_deferral(struct mad_transport *t, size_t cap, unsigned per_source)
{
	struct mt_deferred *q = NULL;
	uint16_t *of_lid = NULL;

	if (t->dq_len)
		return -EBUSY;
	if (cap && (!(q = calloc(cap, sizeof(*q))) ||
		    !(of_lid = calloc(65536, sizeof(*of_lid))))) {
		free(q);
		return -ENOMEM;
	}
	free(t->dq);
	free(t->dq_of_lid);
	t->dq = q;
	t->dq_of_lid = of_lid;
	t->dq_cap = cap;
	t->dq_head = 0;
	t->dq_per_source = per_source ? per_source : (unsigned)cap;
	return 0;
}

size_t mt_deferred(const struct mad_transport *t)
{
	return t->dq_len;
}

/* Keep an SA request for later; a full queue, or a source holding its
 * share of it, loses the request (the requester retries, IBA 13.4.6.4). */
static void defer(struct mad_transport *t, const uint8_t *mad, uint16_t slid,
		  uint32_t sqp)
{
	struct mt_deferred *d;

	if (t->dq_len == t->dq_cap || t->dq_of_lid[slid] >= t->dq_per_source) {
		t->st.deferred_dropped++;
		return;
	}
	d = &t->dq[(t->dq_head + t->dq_len++) % t->dq_cap];
	memcpy(d->mad, mad, SMP_SIZE);
	d->slid = slid;
	d->sqp = sqp;
	t->dq_of_lid[slid]++;
	t->st.deferred++;
}

/* The next request to serve: the oldest from another source than the
 * last one served, if one waits among the next few; else the oldest.
 * A source with many requests queued then takes turns with the others
 * instead of making them wait behind all of its own. */
#define MT_FAIR_SCAN 64

static void take_deferred(struct mad_transport *t, struct mt_deferred *out)
{
	size_t pick = 0, n = t->dq_len < MT_FAIR_SCAN ? t->dq_len : MT_FAIR_SCAN;

	for (size_t i = 0; i < n; i++)
		if (t->dq[(t->dq_head + i) % t->dq_cap].slid != t->dq_last_slid) {
			pick = i;
			break;
		}
	*out = t->dq[(t->dq_head + pick) % t->dq_cap];
	/* Close the gap: the ones before it move up by one. */
	for (size_t i = pick; i > 0; i--)
		t->dq[(t->dq_head + i) % t->dq_cap] =
			t->dq[(t->dq_head + i - 1) % t->dq_cap];
	t->dq_head = (t->dq_head + 1) % t->dq_cap;
	t->dq_len--;
	t->dq_of_lid[out->slid]--;
	t->dq_last_slid = out->slid;
}

int mt_serve_deferred(struct mad_transport *t, unsigned max, double until,
		      int (*stop)(void *arg), void *arg)
{
	unsigned n = 0;

	while (t->dq_len && n < max) {
		struct mt_deferred d;

		take_deferred(t, &d);
		if (t->on_request)
			t->on_request(t->on_request_ctx, d.mad, d.slid, d.sqp);
		n++;
		/* Between two requests: what arrived meanwhile (a trap, an
		 * SMInfo query) is handled first, and may end the slice. */
		if (mt_poll(t, 0) < 0)
			return -EIO;
		if ((stop && stop(arg)) || now_seconds() >= until)
			break;
	}
	return (int)n;
}

int mt_has_class(const struct mad_transport *t, uint8_t mclass)
{
	return agent_of(t, mclass) >= 0;
}

/* The agent that sends a MAD of this class, -1 if none. */
static int agent_of(const struct mad_transport *t, uint8_t mclass)
{
	if (mclass == SMP_CLASS_DR)
		return t->agent_dr;
	if (mclass == SMP_CLASS_LID)
		return t->agent_lid;
	if (mclass == GMP_CLASS_SA)
		return t->agent_sa;
	if (mclass == GMP_CLASS_PERF)
		return t->agent_perf;
	for (unsigned i = 0; i < t->num_sink; i++)
		if (t->sink_class[i] == mclass)
			return t->agent_sink[i];
	return -1;
}

static int is_sink_class(const struct mad_transport *t, uint8_t mclass)
{
	/* We are a PerfMgt client only: our own port has no PMA here. */
	if (mclass == GMP_CLASS_PERF)
		return t->agent_perf >= 0;
	for (unsigned i = 0; i < t->num_sink; i++)
		if (t->sink_class[i] == mclass)
			return 1;
	return 0;
}

#define RMPP_ACK_TIMEOUT_MS 1000
#define RMPP_RETRIES 3

static int send_umad_len(struct mad_transport *t, const uint8_t *mad,
			 size_t len, uint16_t dlid, uint32_t dqp)
{
	int agent = agent_of(t, smp_class(mad));
	void *umad = t->umad;
	int rc;

	if (agent < 0)
		return -EINVAL;
	if (len < 24)
		len = SMP_SIZE;
	if (t->wire_ops)
		return len > SMP_SIZE ? -EMSGSIZE :
			t->wire_ops->send(t->wire, mad, len, dlid, dqp);
	if (len > SMP_SIZE) {
		/* One RMPP transfer the kernel segments (mt_kernel_rmpp). */
		if (!t->kernel_rmpp || agent != t->agent_sa)
			return -EMSGSIZE;
		umad = calloc(1, umad_size() + len);
		if (!umad)
			return -ENOMEM;
	} else {
		memset(umad, 0, umad_size() + SMP_SIZE);
	}
	memcpy(umad_get_mad(umad), mad, len);
	/* GMPs go to QP1 with the well-known GSI Q_Key (IBA 13.5.2). */
	umad_set_addr(umad, dlid, (int)dqp, 0, dqp ? (int)GMP_QP1_QKEY : 0);
	/* A kernel RMPP transfer waits for the receiver's ACKs with this
	 * timeout and retries (a plain MAD is sent untracked). */
	rc = umad_send(t->portid, agent, umad, (int)len,
		       umad != t->umad ? RMPP_ACK_TIMEOUT_MS : 0,
		       umad != t->umad ? RMPP_RETRIES : 0) < 0 ? -EIO : 0;
	if (umad != t->umad)
		free(umad);
	return rc;
}

static int send_umad(struct mad_transport *t, const uint8_t *mad,
		     uint16_t dlid, uint32_t dqp)
{
	return send_umad_len(t, mad, SMP_SIZE, dlid, dqp);
}

int mt_respond_len(struct mad_transport *t, const uint8_t *mad, size_t len,
		    uint16_t dlid, uint32_t dqp)
{
	return send_umad_len(t, mad, len, dlid, dqp);
}

int mt_kernel_rmpp(const struct mad_transport *t)
{
	return t->kernel_rmpp;
}

int mt_respond(struct mad_transport *t, const uint8_t *mad, uint16_t dlid,
		uint32_t dqp)
{
	return send_umad(t, mad, dlid, dqp);
}

/* Send slot s (first try or retry) with a fresh TID. */
static int send_slot(struct mad_transport *t, uint32_t s)
{
	struct mt_req *r = &t->slots[s];

	t->seq++;
	r->tid32 = (t->seq << SLOT_BITS) | s;
	mad_set_field64(r->mad, 0, IB_MAD_TRID_F, r->tid32);
	r->deadline = now_seconds() +
		(r->low ? t->low_timeout_ms : t->opt.timeout_ms) / 1000.0;
	if (r->deadline < t->next_expiry || t->in_flight == 0)
		t->next_expiry = r->deadline;
	r->tries++;
	t->st.sent++;
	return send_umad(t, r->mad, r->dlid, r->dqp);
}

static void release_slot(struct mad_transport *t, uint32_t s)
{
	if (t->slots[s].low)
		t->low_in_flight--;
	t->slots[s].busy = 0;
	t->free_slots[t->num_free++] = s;
	t->in_flight--;
}

static int fill_window(struct mad_transport *t)
{
	while (t->q_len && t->num_free) {
		uint32_t s = t->free_slots[--t->num_free];

		t->slots[s] = t->queue[t->q_head];
		t->slots[s].busy = 1;
		t->q_head = (t->q_head + 1) % t->q_cap;
		t->q_len--;
		t->in_flight++;
		if (send_slot(t, s) < 0)
			return -EIO;
	}
	/* The low queue only when no SMP waits, and in a few slots: a
	 * sweep always finds the window nearly whole. */
	while (!t->q_len && t->lq_len && t->num_free &&
	       t->low_in_flight < t->low_slots) {
		uint32_t s = t->free_slots[--t->num_free];

		t->slots[s] = t->lq[t->lq_head];
		t->slots[s].busy = 1;
		t->lq_head = (t->lq_head + 1) % t->lq_cap;
		t->lq_len--;
		t->in_flight++;
		t->low_in_flight++;
		if (send_slot(t, s) < 0)
			return -EIO;
	}
	return 0;
}

/* A try of slot s got no answer: resend or give up. */
static int slot_timed_out(struct mad_transport *t, uint32_t s)
{
	struct mt_req *r = &t->slots[s];

	t->st.timed_out++;
	if (r->tries <= (r->low ? t->low_retries : t->opt.retries)) {
		t->st.retried++;
		return send_slot(t, s);
	}
	t->st.failed++;
	{
		struct mt_req done = *r;

		release_slot(t, s);
		if (done.done)
			done.done(done.ctx, done.cookie, done.mad, NULL);
	}
	return 0;
}

static int expire(struct mad_transport *t)
{
	double now = now_seconds(), next = 0;

	if (!t->in_flight || now < t->next_expiry)
		return 0;
	for (uint32_t s = 0; s < t->opt.window; s++) {
		struct mt_req *r = &t->slots[s];

		if (!r->busy)
			continue;
		if (r->deadline <= now) {
			if (slot_timed_out(t, s) < 0)
				return -EIO;
		}
		if (r->busy && (next == 0 || r->deadline < next))
			next = r->deadline;
	}
	t->next_expiry = next;
	return 0;
}

static struct mt_req *match(struct mad_transport *t, const uint8_t *mad,
			     uint32_t *slot)
{
	uint32_t tid32 = (uint32_t)smp_tid(mad);
	uint32_t s = tid32 & (MAX_WINDOW - 1);

	if (s >= t->opt.window || !t->slots[s].busy ||
	    t->slots[s].tid32 != tid32)
		return NULL;
	*slot = s;
	return &t->slots[s];
}

/* What a umad2sim client receives of a MAD (IBSIM-NOTES): its receiver
 * thread keeps 224 bytes and the copy we get has heap bytes after them. */
#define SIM_MAD_KEPT 224

/* A message longer than our buffer (umad_recv said ENOSPC and how long):
 * a request the kernel reassembled from RMPP segments. Read it whole and
 * hand it up. 0 when it was consumed. */
static int recv_long(struct mad_transport *t, int len)
{
	void *buf = calloc(1, umad_size() + (size_t)len);
	int n = len, rc = -1;

	if (!buf)
		return -1;
	if (umad_recv(t->portid, buf, &n, 0) >= 0) {
		uint8_t *mad = umad_get_mad(buf);
		ib_mad_addr_t *a = umad_get_mad_addr(buf);

		rc = 0;
		t->st.unsolicited++;
		if (!umad_status(buf) && !smp_is_response(mad) && t->on_long)
			t->on_long(t->on_long_ctx, mad, (size_t)n, be16toh(a->lid),
				   be32toh(a->qpn));
		else
			log_debug("dropped a %d-byte message of class 0x%02x", n,
				  smp_class(mad));
	}
	free(buf);
	return rc;
}

/* One MAD received (into a buffer of SMP_SIZE bytes we may write), from
 * slid / sqp; status nonzero: a send of ours came back undelivered. */
static int handle_recv(struct mad_transport *t, uint8_t *mad, int status,
		       uint16_t slid, uint32_t sqp)
{
	struct mt_req *r;
	uint32_t s;

	/* Under ibsim the bytes past SIM_MAD_KEPT never arrived: make them
	 * zeros rather than whatever the heap held, so what the SA reads
	 * (a reassembled request, above all) is the same every time. */
	if (t->sim)
		memset(mad + SIM_MAD_KEPT, 0, SMP_SIZE - SIM_MAD_KEPT);

	if (status) {
		/* The request came back unsent or undelivered (ibsim returns a
		 * dropped MAD at once with status ETIMEDOUT): a lost try. */
		r = match(t, mad, &s);
		if (r)
			return slot_timed_out(t, s);
		return 0;
	}
	if (smp_is_response(mad)) {
		r = match(t, mad, &s);
		if (!r && smp_class(mad) == GMP_CLASS_SA && t->yielding) {
			/* An RMPP ACK while the SA is busy with an answer: it
			 * goes to the SA after, with the requests. */
			defer(t, mad, slid, sqp);
			return 0;
		}
		if (!r && smp_class(mad) == GMP_CLASS_SA && t->on_request) {
			/* An RMPP ACK/STOP/ABORT for an SA answer carries the
			 * response method (IBA 13.6.2): the SA's, not ours. */
			uint8_t ack[SMP_SIZE];

			memcpy(ack, mad, SMP_SIZE);
			t->on_request(t->on_request_ctx, ack, slid, sqp);
			return 0;
		}
		if (!r) {
			t->st.stray++;
			return 0;
		}
		t->st.received++;
		{
			struct mt_req done = *r;
			uint8_t resp[SMP_SIZE];

			memcpy(resp, mad, SMP_SIZE);
			release_slot(t, s);
			if (done.done)
				done.done(done.ctx, done.cookie, done.mad, resp);
		}
		return 0;
	}
	t->st.unsolicited++;
	if (is_sink_class(t, smp_class(mad))) {
		/* IBA 13.4.7: a class this port does not serve. */
		uint8_t resp[SMP_SIZE];

		memcpy(resp, mad, SMP_SIZE);
		gmp_make_response(resp, GMP_STATUS_BAD_CLASS);
		log_debug("request of unserved class 0x%02x from LID %u answered 'unsupported class'",
			  smp_class(mad), slid);
		send_umad(t, resp, slid, sqp);
		return 0;
	}
	if (t->dq_cap && smp_class(mad) == GMP_CLASS_SA) {
		defer(t, mad, slid, sqp);
		return 0;
	}
	if (t->on_request) {
		uint8_t req[SMP_SIZE];

		memcpy(req, mad, SMP_SIZE);
		t->on_request(t->on_request_ctx, req, slid, sqp);
	}
	return 0;
}

/* One MAD from libibumad's port into handle_recv. */
static int handle_umad(struct mad_transport *t)
{
	ib_mad_addr_t *a = umad_get_mad_addr(t->umad);

	return handle_recv(t, umad_get_mad(t->umad), umad_status(t->umad),
			   be16toh(a->lid), be32toh(a->qpn));
}

/* What the wire holds, at most `burst` MADs; how many, or -EIO. */
static int poll_wire(struct mad_transport *t, int burst)
{
	int got = 0;

	while (got < burst) {
		uint8_t mad[SMP_SIZE];
		uint16_t slid = 0;
		uint32_t sqp = 0;
		int status = 0;
		int rc = t->wire_ops->recv(t->wire, mad, &slid, &sqp, &status);

		if (rc <= 0)
			break;
		got++;
		if (handle_recv(t, mad, status, slid, sqp) < 0 ||
		    fill_window(t) < 0)
			return -EIO;
	}
	return got;
}

#define MT_RECV_BURST 256

/* What libibumad's port holds, at most MT_RECV_BURST MADs (a sender
 * faster than we read must not keep us here: timeouts, the sweep, the
 * loop); how many, or -EIO. */
static int poll_umad(struct mad_transport *t)
{
	int got = 0;

	while (got < MT_RECV_BURST) {
		int len = SMP_SIZE;
		int rc = umad_recv(t->portid, t->umad, &len, 0);

		if (rc < 0 && len > SMP_SIZE && (rc == -ENOSPC || errno == ENOSPC)) {
			/* The kernel keeps a message too long for our buffer
			 * at the head of its queue: take it now (after the
			 * yield: it is an SA request, and the SA is busy). */
			if (t->yielding)
				break;
			if (recv_long(t, len) < 0)
				break;
			got++;
			continue;
		}
		if (rc < 0)
			break;
		got++;
		if (handle_umad(t) < 0 || fill_window(t) < 0)
			return -EIO;
	}
	return got;
}

/* Longest sleep on libumad2sim's queue while descriptors are watched. */
#define MT_SIM_WATCH_MS 100

int mt_poll(struct mad_transport *t, int wait_ms)
{
	int got;

	if (fill_window(t) < 0)
		return -EIO;
	got = t->wire_ops ? poll_wire(t, MT_RECV_BURST) : poll_umad(t);
	if (got < 0)
		return -EIO;
	if (!got && wait_ms != 0) {
		int ms = wait_ms;

		if (t->in_flight) {
			double left = t->next_expiry - now_seconds();
			int lms = left <= 0 ? 0 : (int)(left * 1000) + 1;

			if (ms < 0 || lms < ms)
				ms = lms;
		}
		if (t->wire_ops) {
			if (t->wire_ops->wait(t->wire, ms) < 0)
				return -EIO;
		} else {
			struct pollfd pfd[1 + MT_WATCH_MAX] = {
				{ .fd = umad_get_fd(t->portid), .events = POLLIN },
			};

			unsigned nw = 0;
			int rc;

			/* (a negative fd is skipped by poll) */
			for (unsigned w = 0; w < MT_WATCH_MAX; w++) {
				pfd[1 + w] = (struct pollfd){ .fd = t->watch_fd[w], .events = POLLIN };
				nw += t->watch_fd[w] >= 0;
			}
			if (t->sim && nw) {
				/* libumad2sim's poll waits on its own queue only
				 * and never sees other descriptors: sleep on it
				 * in short slices, then look at ours with the
				 * real poll (only ibsim pays these wakeups). */
				if (ms < 0 || ms > MT_SIM_WATCH_MS)
					ms = MT_SIM_WATCH_MS;
				rc = poll(pfd, 1, ms);
				if (rc >= 0)
					rc = poll(pfd + 1, MT_WATCH_MAX, 0);
			} else {
				rc = poll(pfd, 1 + MT_WATCH_MAX, ms);
			}
			if (rc < 0) {
				if (errno != EINTR)
					return -errno;
			} else {
				for (unsigned w = 0; w < MT_WATCH_MAX; w++)
					if (pfd[1 + w].revents & POLLIN)
						t->watch_ready |= 1u << w;
			}
		}
	}
	/* Not while yielding: a timed-out Report may drop subscriptions
	 * the SA's answer in progress is reading. */
	if (!t->yielding && expire(t) < 0)
		return -EIO;
	return fill_window(t);
}

void mt_watch_fd(struct mad_transport *t, unsigned slot, int fd)
{
	if (slot >= MT_WATCH_MAX)
		return;
	t->watch_fd[slot] = fd;
	t->watch_ready &= ~(1u << slot);
}

unsigned mt_watch_ready(struct mad_transport *t)
{
	unsigned r = t->watch_ready;

	t->watch_ready = 0;
	return r;
}

int mt_yield(struct mad_transport *t)
{
	int rc;

	if (!t->dq_cap || t->yielding)
		return 0;
	t->yielding = 1;
	rc = mt_poll(t, 0);
	t->yielding = 0;
	return rc;
}

int mt_throttle(struct mad_transport *t, size_t limit)
{
	/* Reports of the low queue are not waited for. */
	while (mt_pending(t) - t->low_in_flight > limit) {
		int rc = mt_poll(t, 100);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int mt_drain(struct mad_transport *t)
{
	return mt_throttle(t, 0);
}

void mt_set_mkey(struct mad_transport *t, uint64_t m_key)
{
	t->m_key = m_key;
}
