/* MAD transport for the SM: one local port opened through libibumad, agents
 * for the two SMI classes (0x01 LID routed, 0x81 directed route), the SA
 * server and the PerfMgt client (GMPs to QP1), a window
 * of SMPs in flight, transaction ids matched to requests, a timeout and
 * retries per MAD, and unsolicited requests (SMInfo queries, traps) handed
 * to a callback.
 *
 * Nothing blocks except mt_poll()'s wait: requests are queued by
 * mt_submit_*() and sent as the window allows; completions run from
 * mt_poll() and may submit more requests. */
#ifndef IBSM_MAD_MAD_TRANSPORT_H
#define IBSM_MAD_MAD_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "smp.h"

struct mad_transport;

struct mt_port_sel {
	const char *ca;             /* NULL or "" = libibumad's default */
	int port;                   /* 0 = default */
	uint64_t guid;              /* nonzero: pick the port with this GUID */
};

struct mt_opts {
	unsigned window;            /* SMPs in flight, 1..4096 */
	unsigned timeout_ms;        /* per try */
	unsigned retries;           /* extra tries after a timeout */
	int no_issm;                /* do not claim IsSM (a test's plain host) */
};

struct mt_stats {
	uint64_t sent;              /* every send, retries included */
	uint64_t received;          /* matched responses */
	uint64_t timed_out;         /* tries that got no answer */
	uint64_t retried;           /* re-sends after a timeout */
	uint64_t failed;            /* requests that ran out of retries */
	uint64_t unsolicited;       /* requests/traps received */
	uint64_t stray;             /* responses matching nothing in flight */
	uint64_t deferred;          /* SA requests queued for a later slice */
	uint64_t deferred_dropped;  /* SA requests lost: queue or share full */
	uint64_t low_dropped;       /* low-queue MADs refused: queue full */
};

/* Completion: resp is the 256-byte response (check smp_status), or NULL
 * when every try timed out. req is the request as sent. */
typedef void (*mt_done_fn)(void *ctx, uint64_t cookie, const uint8_t *req,
			    const uint8_t *resp);
/* Unsolicited request (SubnGet(SMInfo), SubnTrap, ...): mad is writable
 * (turn it into the response and pass it to mt_respond). */
typedef void (*mt_request_fn)(void *ctx, uint8_t *mad, uint16_t slid,
			       uint32_t sqp);

/* The M_Key every SMP sent from now on carries (0 = none). */
void mt_set_mkey(struct mad_transport *t, uint64_t m_key);

/* Open the port. Errors: -ENODEV (no such CA/port/GUID, logged), -EIO. */
int mt_open(struct mad_transport **out, const struct mt_port_sel *sel,
	     const struct mt_opts *opts);
void mt_close(struct mad_transport *t);

/* The wire under the transport. mt_open's is libibumad's port; a test
 * opens the transport over its own (tests/unit/fake_sma.h: an SMA model of
 * a whole fabric), and everything above the wire (queue, window, TIDs,
 * timeouts, retries, deferral) runs as on a real port. */
struct mt_wire_ops {
	/* Send one MAD of len bytes (24..SMP_SIZE) to dlid / dqp (0 for
	 * SMPs). 0, or a negative errno (the transport fails). */
	int (*send)(void *wire, const uint8_t *mad, size_t len, uint16_t dlid,
		    uint32_t dqp);
	/* Take the next MAD received into mad (SMP_SIZE bytes), with its
	 * source; *status nonzero for a send of ours returned undelivered.
	 * 1 got one, 0 none waiting. */
	int (*recv)(void *wire, uint8_t *mad, uint16_t *slid, uint32_t *sqp,
		    int *status);
	/* Nothing waiting: wait up to ms (-1: no limit) for a MAD. 0 or a
	 * negative errno. */
	int (*wait)(void *wire, int ms);
	/* From mt_close (may be NULL). */
	void (*close)(void *wire);
};

/* A transport over `wire` (ops must outlive it), as the port port_guid;
 * SMPs, SA and PerfMgt GMPs can be sent, mt_fd is -1, the kernel does no
 * RMPP. 0, -EINVAL (window) or -ENOMEM. */
int mt_open_wire(struct mad_transport **out, const struct mt_wire_ops *ops,
		  void *wire, uint64_t port_guid, const struct mt_opts *opts);

/* The opened port: CA name, port number, port GUID, and the LID / SM LID
 * the port reports (from umad_get_port at open time). */
const char *mt_ca_name(const struct mad_transport *t);
int mt_port_num(const struct mad_transport *t);
uint64_t mt_port_guid(const struct mad_transport *t);
/* File descriptor to poll for incoming MADs (-1 over a test's wire). */
int mt_fd(const struct mad_transport *t);

void mt_set_request_handler(struct mad_transport *t, mt_request_fn fn,
			     void *ctx);
/* A request longer than one MAD: on a real port the kernel reassembles a
 * multi-MAD (RMPP) request for the SA agent and hands up the whole of it
 * (len bytes, headers first). Without this handler such a request is
 * read and dropped (never left in the kernel's queue, where it would
 * block every MAD behind it). */
typedef void (*mt_long_request_fn)(void *ctx, uint8_t *msg, size_t len,
				    uint16_t slid, uint32_t sqp);
void mt_set_long_request_handler(struct mad_transport *t,
				  mt_long_request_fn fn, void *ctx);

/* Queue a directed-route SMP (data: 64 bytes or NULL for zeros). */
int mt_submit_dr(struct mad_transport *t, const struct smp_path *path,
		  uint8_t method, uint16_t attr, uint32_t mod,
		  const uint8_t *data, mt_done_fn done, void *ctx,
		  uint64_t cookie);
/* Queue a LID-routed SMP. */
int mt_submit_lid(struct mad_transport *t, uint16_t dlid, uint8_t method,
		   uint16_t attr, uint32_t mod, const uint8_t *data,
		   mt_done_fn done, void *ctx, uint64_t cookie);
/* Queue a LID-routed GMP to QP1 of dlid (mad: 256 bytes, header and
 * data built by the caller; the TID is ours). -EOPNOTSUPP when no agent
 * of the MAD's class is registered (PerfMgt: GMP_CLASS_PERF). */
int mt_submit_gmp(struct mad_transport *t, uint16_t dlid, const uint8_t *mad,
		   mt_done_fn done, void *ctx, uint64_t cookie);
/* The same to another QP of dlid (a subscriber's, for SA Reports), with
 * the GSI Q_Key. */
int mt_submit_gmp_qp(struct mad_transport *t, uint16_t dlid, uint32_t dqp,
		      const uint8_t *mad, mt_done_fn done, void *ctx,
		      uint64_t cookie);
/* The low queue (Reports to subscribers): at most cap MADs waiting, sent
 * only when no SMP waits, at most `slots` of them in flight, each with its
 * own timeout and retries, and never waited for by mt_drain/mt_throttle,
 * so a subscriber that does not answer cannot hold up a sweep.
 * cap 0 (the default): mt_submit_low is mt_submit_gmp_qp. */
int mt_set_low_queue(struct mad_transport *t, size_t cap, unsigned slots,
		     unsigned timeout_ms, unsigned retries);
/* Queue a GMP on the low queue; -ENOBUFS when it is full (counted). */
int mt_submit_low(struct mad_transport *t, uint16_t dlid, uint32_t dqp,
		  const uint8_t *mad, mt_done_fn done, void *ctx,
		  uint64_t cookie);
size_t mt_low_pending(const struct mad_transport *t);
/* Forget the low-queue MADs to dlid not sent yet; returns how many. */
size_t mt_cancel_low(struct mad_transport *t, uint16_t dlid);

/* Deferred SA requests: with cap > 0, a SubnAdm request (class 0x03, not
 * a response: RMPP ACKs still go to the handler at once) is not handed to
 * the request handler inside mt_poll but kept, at most cap of them and at
 * most per_source from one LID (0: no share), the rest dropped and
 * counted. SMPs (traps, SMInfo) and responses are handled at once as
 * before, so an SA flood never delays them. mt_serve_deferred hands at
 * most max requests to the handler, oldest first but taking turns between
 * sources (one flooding host does not queue the others), polling between two
 * (what arrived is handled), and stops early at `until` (now_seconds())
 * or when stop(arg) says so. Returns how many, or -EIO. */
int mt_set_deferral(struct mad_transport *t, size_t cap, unsigned per_source);
int mt_serve_deferred(struct mad_transport *t, unsigned max, double until,
		      int (*stop)(void *arg), void *arg);
/* The same for slice_s seconds from now; the clock is read only when it
 * has to be: with one request waiting, only if more come while it is
 * served (then the slice is timed from after it). */
int mt_serve_slice(struct mad_transport *t, unsigned max, double slice_s,
		   int (*stop)(void *arg), void *arg);
/* A slice as mt_serve_slice's arguments, set once for mt_serve_next. */
struct mt_slice {
	unsigned max;
	double slice_s;
	int (*stop)(void *arg);
	void *arg;
};
/* For a loop that serves a slice every turn (the SM's): the slice, set
 * at start and again when it changes (a reload), so that a turn passes
 * none of it (issue 27). */
void mt_set_slice(struct mad_transport *t, const struct mt_slice *slice);
/* mt_serve_slice with the slice mt_set_slice set (none set: max 0). */
int mt_serve_next(struct mad_transport *t);
/* Deferred requests (SubnAdm only, whose class needs no decoding) go to
 * fn instead of the request handler (NULL: to the request handler). */
void mt_set_deferred_handler(struct mad_transport *t, mt_request_fn fn,
			     void *ctx);
size_t mt_deferred(const struct mad_transport *t);
/* From inside an SA answer that takes long: one mt_poll(t, 0) in which
 * every SubnAdm MAD is deferred (responses too: RMPP ACKs), no long
 * message is taken and no timeout expires, so SMPs (traps, SMInfo) are
 * handled while nothing the SA is reading changes. No-op without
 * deferral or when already yielding. */
int mt_yield(struct mad_transport *t);

/* 1 when MADs of this class can be sent. */
int mt_has_class(const struct mad_transport *t, uint8_t mclass);
/* Send a response or trap repress now, untracked. */
int mt_respond(struct mad_transport *t, const uint8_t *mad, uint16_t dlid,
		uint32_t dqp);
/* The same with the bytes that carry data (24..256): the kernel pads a
 * MAD to 256 bytes on the wire, but ibsim hands the receiver exactly what
 * was sent, and SA clients count records by the length they receive. */
int mt_respond_len(struct mad_transport *t, const uint8_t *mad, size_t len,
		    uint16_t dlid, uint32_t dqp);
/* mt_respond_len of a MAD whose management class the caller knows (the
 * SA's answers: GMP_CLASS_SA), so the send does not decode it again
 * (issue 27: a libibmad call per answer). mclass must be the MAD's. */
int mt_respond_class(struct mad_transport *t, uint8_t mclass,
		     const uint8_t *mad, size_t len, uint16_t dlid, uint32_t dqp);
/* 1 when the kernel does RMPP for SA answers (a real port): a response
 * with the RMPP Active flag may then be one mt_respond_len of any length
 * (header + all data), and the kernel segments it with window, ACKs and
 * retries. 0 under ibsim, which has no RMPP: send each segment. */
int mt_kernel_rmpp(const struct mad_transport *t);

/* One round: send what the window allows, receive what arrived (at most
 * a burst of 256 MADs, waiting up to wait_ms if nothing did), run
 * completions, expire timeouts.
 * Returns 0 or a negative errno (transport broken). */
int mt_poll(struct mad_transport *t, int wait_ms);
/* A loop turn's round (the SM's): mt_poll that does not sleep while
 * deferred SA requests wait (they are the turn's work), returning what
 * mt_watch_ready would (bits, taken once), or a negative errno; one call
 * for three (issue 27). */
int mt_poll_turn(struct mad_transport *t, int wait_ms);
/* More descriptors (the SM's control socket, its signal pipe) that end
 * mt_poll's sleep when they turn readable, so the loop needs no timer to
 * look at them: slot 0..MT_WATCH_MAX-1, fd -1 for none. mt_watch_ready
 * says (once) which slots a sleep saw readable, one bit each. */
#define MT_WATCH_MAX 2
void mt_watch_fd(struct mad_transport *t, unsigned slot, int fd);
unsigned mt_watch_ready(struct mad_transport *t);
/* Poll until nothing is queued or in flight. */
int mt_drain(struct mad_transport *t);
/* Poll until at most `limit` requests are queued or in flight (flow
 * control for producers of many MADs); the low queue does not count. */
int mt_throttle(struct mad_transport *t, size_t limit);
/* Requests queued or in flight. */
size_t mt_pending(const struct mad_transport *t);
unsigned mt_window(const struct mad_transport *t);
/* Retries after a timeout from now on (the SM raises them when it sees
 * loss, and lowers them again when a sweep is whole). */
void mt_set_retries(struct mad_transport *t, unsigned retries);

/* 1 under ibsim (libumad2sim preloaded). */
int mt_simulated(void);

const struct mt_stats *mt_get_stats(const struct mad_transport *t);
/* Share of the tries sent between a and b that timed out (0 if none). */
double mt_stats_loss(const struct mt_stats *a, const struct mt_stats *b);
/* Difference b - a, for per-sweep counts. */
void mt_stats_diff(struct mt_stats *out, const struct mt_stats *a,
		    const struct mt_stats *b);

#endif
