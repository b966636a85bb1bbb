/* MAD transport over libibumad's port (mad/mt_internal.h): finding and
 * opening the port, the agents we register (and, under ibsim, the ones
 * that keep umad2sim alive), sending, receiving, sleeping on the port. */
#include "mt_internal.h"

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
	t->umad_hdr = (size_t)umad_size();
	t->umad = calloc(1, t->umad_hdr + SMP_SIZE);
	t->rumad = calloc(1, t->umad_hdr + SMP_SIZE);
	if (!t->slots || !t->free_slots || !t->umad || !t->rumad) {
		mt_close(t);
		return -ENOMEM;
	}
	t->umad_mad = umad_get_mad(t->umad);
	t->recv_in_slots = t->umad_hdr == sizeof(struct ib_user_mad);
	t->umad_fd = umad_get_fd(t->portid);
	t->pfd[0] = (struct pollfd){ .fd = t->umad_fd, .events = POLLIN };
	for (unsigned w = 0; w < MT_WATCH_MAX; w++)
		t->pfd[1 + w] = (struct pollfd){ .fd = t->watch_fd[w], .events = POLLIN };
	mt_index_agents(t);
	for (unsigned i = 0; i < t->opt.window; i++)
		t->free_slots[i] = t->opt.window - 1 - i;
	t->num_free = t->opt.window;
	t->seq = (uint32_t)getpid();
	*out = t;
	return 0;
}

int mt_fd(const struct mad_transport *t)
{
	return t->wire_ops ? -1 : t->umad_fd;
}

#define RMPP_ACK_TIMEOUT_MS 1000
#define RMPP_RETRIES 3

static inline __attribute__((always_inline)) int
umad_send_mad(struct mad_transport *t, int agent, const uint8_t *mad,
			 size_t len, uint16_t dlid, uint32_t dqp)
{
	void *umad = t->umad;
	int rc;

	if (len > SMP_SIZE) {
		/* One RMPP transfer the kernel segments (mt_kernel_rmpp). */
		if (!t->kernel_rmpp || agent != t->agent_sa)
			return -EMSGSIZE;
		umad = calloc(1, t->umad_hdr + len);
		if (!umad)
			return -ENOMEM;
		memcpy(umad_get_mad(umad), mad, len);
	} else {
		/* The buffer as a whole zeroed and the MAD copied in, as
		 * cheaply as that goes: the send buffer receives nothing, so
		 * only what an earlier, longer send left past len is zeroed
		 * (umad_used; SA answers are mostly of one length). */
		memset(umad, 0, t->umad_hdr);
		memcpy(t->umad_mad, mad, len);
		if (t->umad_used > len)
			memset(t->umad_mad + len, 0, t->umad_used - len);
		t->umad_used = len;
	}
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

/* Sending, over the wire or the port: here, next to the port's send, so
 * that an answer is one call from the SA to umad_send (issue 27). Inlined
 * in each entry, so that neither makes a call more (the class decode of
 * send_mad in front of it cost one, a frame built twice). */
static inline __attribute__((always_inline)) int send_class(struct mad_transport *t, uint8_t mclass,
		      const uint8_t *mad, size_t len, uint16_t dlid, uint32_t dqp)
{
	int agent = mt_agent_of(t, mclass);

	if (agent < 0)
		return -EINVAL;
	if (len < 24)
		len = SMP_SIZE;
	if (t->wire_ops)
		return len > SMP_SIZE ? -EMSGSIZE :
			t->wire_ops->send(t->wire, mad, len, dlid, dqp);
	return umad_send_mad(t, agent, mad, len, dlid, dqp);
}

static __attribute__((noinline)) int send_mad(struct mad_transport *t,
		const uint8_t *mad, size_t len, uint16_t dlid, uint32_t dqp)
{
	return send_class(t, smp_class(mad), mad, len, dlid, dqp);
}

int mt_send(struct mad_transport *t, const uint8_t *mad, size_t len,
	    uint16_t dlid, uint32_t dqp)
{
	return send_mad(t, mad, len, dlid, dqp);
}

int mt_respond_len(struct mad_transport *t, const uint8_t *mad, size_t len,
		    uint16_t dlid, uint32_t dqp)
{
	return send_mad(t, mad, len, dlid, dqp);
}

int mt_respond_class(struct mad_transport *t, uint8_t mclass,
		     const uint8_t *mad, size_t len, uint16_t dlid, uint32_t dqp)
{
	return send_class(t, mclass, mad, len, dlid, dqp);
}

int mt_kernel_rmpp(const struct mad_transport *t)
{
	return t->kernel_rmpp;
}

int mt_respond(struct mad_transport *t, const uint8_t *mad, uint16_t dlid,
		uint32_t dqp)
{
	return send_mad(t, mad, SMP_SIZE, dlid, dqp);
}

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

/* Where the next MAD is read: the deferral queue's next free slot, so
 * an SA request stays where it arrived (mt_defer copies nothing), or
 * the receive buffer. Whatever else arrives there is handled from it as
 * from any buffer (mt_handle_recv copies out what it hands on). */
static struct ib_user_mad *recv_buffer(struct mad_transport *t)
{
	if (!t->recv_in_slots || t->dq_len >= t->dq_cap)
		return t->rumad;
	return &t->dq[t->dq_tail].hdr;
}

/* One MAD from libibumad's port into mt_handle_recv. */
static int handle_umad(struct mad_transport *t, struct ib_user_mad *u)
{
	return mt_handle_recv(t, u->data, (int)u->status, be16toh(u->addr.lid),
			      be32toh(u->addr.qpn));
}

/* What libibumad's port holds, at most MT_RECV_BURST MADs (a sender
 * faster than we read must not keep us here: timeouts, the sweep, the
 * loop); how many, or -EIO. */
static int port_poll(struct mad_transport *t)
{
	int got = 0;

	while (got < MT_RECV_BURST) {
		int len = SMP_SIZE;
		struct ib_user_mad *u = recv_buffer(t);
		int rc = umad_recv(t->portid, u, &len, 0);

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
		if (handle_umad(t, u) < 0 ||
		    (mt_has_queued(t) && mt_fill_window(t) < 0))
			return -EIO;
	}
	t->last_burst = (unsigned)got;
	return got;
}

int mt_umad_poll(struct mad_transport *t)
{
	return port_poll(t);
}

/* Longest sleep on libumad2sim's queue while descriptors are watched. */
#define MT_SIM_WATCH_MS 100

/* Sleep on the port and the watched descriptors up to ms (-1: no
 * limit); 1 if the port has a MAD to read, else 0, or a negative errno. */
static int port_wait(struct mad_transport *t, int ms)
{
	/* The set is kept in t (the port's fd and the watched ones change
	 * only in mt_watch_fd; poll(2) writes only revents): not built per
	 * sleep. A negative fd is skipped by poll. */
	struct pollfd *pfd = t->pfd;
	int rc;

	if (t->sim && t->num_watched) {
		/* libumad2sim's poll waits on its own queue only
		 * and never sees other descriptors: sleep on it
		 * in short slices, then look at ours with the
		 * real poll (only ibsim pays these wakeups). */
		if (ms < 0 || ms > MT_SIM_WATCH_MS)
			ms = MT_SIM_WATCH_MS;
		for (unsigned w = 0; w < MT_WATCH_MAX; w++)
			pfd[1 + w].revents = 0;
		rc = poll(pfd, 1, ms);
		if (rc >= 0)
			rc = poll(pfd + 1, MT_WATCH_MAX, 0);
	} else {
		rc = poll(pfd, 1 + MT_WATCH_MAX, ms);
	}
	if (rc < 0) {
		if (errno != EINTR)
			return -errno;
		return 0;
	}
	for (unsigned w = 0; w < MT_WATCH_MAX; w++)
		if (pfd[1 + w].revents & POLLIN)
			t->watch_ready |= 1u << w;
	return pfd[0].revents & POLLIN ? 1 : 0;
}

int mt_umad_sleep(struct mad_transport *t, int ms)
{
	int rc = port_wait(t, ms);

	/* A MAD woke us: take it now rather than on the caller's next
	 * turn (one loop turn per SA query, not two: issue 27); a tail
	 * call, what port_poll returns is what we return. */
	return rc > 0 ? port_poll(t) : rc;
}

void mt_umad_release(struct mad_transport *t)
{
	if (t->issm_fd >= 0)
		close(t->issm_fd);
	if (t->portid >= 0)
		umad_close_port(t->portid);
	free(t->umad);
	free(t->rumad);
}
