/* Inside the MAD transport (mad/mad_transport.h): the state its files
 * share and the calls between them; only mad/mad_transport.c and
 * mad/mt_*.c include this.
 *   mad_transport.c  a transport over a wire (tests), close, accessors,
 *                    what arrives (responses, unsolicited requests),
 *                    mt_poll
 *   mt_window.c      the queue of requests and the window in flight:
 *                    TIDs, timeouts, retries
 *   mt_low.c         the low queue (Reports) behind the window
 *   mt_defer.c       SA requests kept for later slices (kept: mt_defer,
 *                    here), mt_yield
 *   mt_umad.c        libibumad's port: open, agents, receive, sleep; and
 *                    sending (mt_send, mt_respond*: over the wire or the
 *                    port), so an answer is one call to umad_send */
#ifndef IBSM_MAD_MT_INTERNAL_H
#define IBSM_MAD_MT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <poll.h>
#include <infiniband/umad.h>

#include "mad_transport.h"
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

/* An SA MAD received and not yet served (defer, mt_serve_deferred).
 * Laid out as a umad buffer (libibumad's header, then the MAD): a port
 * reads each MAD straight into the queue's next free slot, so an SA
 * request is kept where it arrived, not copied (mt_umad_poll; issue 27). */
struct mt_deferred {
	struct ib_user_mad hdr;
	uint8_t mad[SMP_SIZE];
	uint16_t slid;
	uint32_t sqp;
};
_Static_assert(offsetof(struct mt_deferred, mad) == sizeof(struct ib_user_mad) &&
	       offsetof(struct ib_user_mad, data) == sizeof(struct ib_user_mad),
	       "a deferral slot is a umad buffer");

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
	unsigned num_watched;       /* watch_fd[] that are not -1 */
	struct pollfd pfd[1 + MT_WATCH_MAX]; /* mt_umad_wait's poll set */
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
	void *umad;                 /* the send buffer */
	uint8_t *umad_mad;          /* its MAD (umad_get_mad, asked once) */
	size_t umad_used;           /* bytes of umad_mad that may not be 0 */
	size_t umad_hdr;            /* umad_size(), asked once */
	/* The receive buffer when no deferral slot is free (or a umad
	 * header is not libibumad's size: recv_in_slots 0). */
	void *rumad;
	int recv_in_slots;
	unsigned last_burst;        /* MADs the port's last read burst took */
	int umad_fd;                /* umad_get_fd(portid), asked once */
	/* class -> agent + 1 (0: none), for mt_agent_of on every send */
	int16_t agent_by_class[256];
	mt_request_fn on_request;
	void *on_request_ctx;
	mt_request_fn on_deferred;  /* NULL: on_request (mt_set_deferred_handler) */
	void *on_deferred_ctx;
	mt_request_fn serve_fn;     /* on_deferred, else on_request */
	void *serve_ctx;
	struct mt_slice slice;      /* mt_serve_next's (mt_set_slice) */
	mt_long_request_fn on_long;
	void *on_long_ctx;
	struct mt_stats st;
	uint64_t m_key;             /* in every SMP we send (IBA 14.2.4) */
	/* SA requests received, served later in slices (mt_serve_deferred) */
	struct mt_deferred *dq;
	size_t dq_head, dq_len, dq_cap;
	size_t dq_tail;             /* (dq_head + dq_len) % dq_cap, kept */
	unsigned dq_per_source;
	uint16_t *dq_of_lid;        /* entries queued per source LID */
	uint16_t dq_last_slid;      /* source of the last one served */
	int yielding;               /* inside mt_yield */
	/* low queue (Reports): behind every SMP, a few slots of the window */
	struct mt_req *lq;
	size_t lq_head, lq_len, lq_cap;
	unsigned low_slots, low_in_flight, low_timeout_ms, low_retries;
};

/* MADs taken from the port in one mt_poll round at most (a sender
 * faster than we read must not keep us there: timeouts, the sweep, the
 * loop). */
#define MT_RECV_BURST 256

/* mad_transport.c */
/* The agent that sends a MAD of this class, -1 if none. */
static inline int mt_agent_of(const struct mad_transport *t, uint8_t mclass)
{
	return t->agent_by_class[mclass] - 1;
}
/* Fill agent_by_class from the agents registered (after they are). */
void mt_index_agents(struct mad_transport *t);
/* Anything to send from the queue or the low queue: a counter check
 * the poll makes before it calls mt_fill_window. */
static inline int mt_has_queued(const struct mad_transport *t)
{
	return t->q_len || t->lq_len;
}
/* Send len bytes (24..SMP_SIZE, or longer for a kernel RMPP answer)
 * untracked, over the wire or the port. */
int mt_send(struct mad_transport *t, const uint8_t *mad, size_t len,
	    uint16_t dlid, uint32_t dqp);
/* mt_handle_recv's MADs other than an SA request to defer; mclass is the
 * MAD's class (decoded) when status is 0. */
int mt_handle_recv_other(struct mad_transport *t, uint8_t *mad, int status,
			 uint16_t slid, uint32_t sqp, uint8_t mclass);

/* mt_window.c */
/* Send what the window allows: the queue first, then the low queue. */
int mt_fill_window(struct mad_transport *t);
/* Put request r (queue entry, copied) in a free slot and send it. */
int mt_launch(struct mad_transport *t, const struct mt_req *r);
void mt_release_slot(struct mad_transport *t, uint32_t s);
int mt_slot_timed_out(struct mad_transport *t, uint32_t s);
int mt_expire(struct mad_transport *t);
/* The slot in flight a response answers (by its TID), or NULL. */
struct mt_req *mt_match(struct mad_transport *t, const uint8_t *mad,
			uint32_t *slot);

/* mt_low.c: send from the low queue what its slots allow. */
int mt_low_fill(struct mad_transport *t);

/* Keep an SA MAD for mt_serve_deferred (mt_defer.c serves them); a full
 * queue, or a source holding its share of it, loses the request (the
 * requester retries, IBA 13.4.6.4). Inline: once per SA request. */
static inline void mt_defer(struct mad_transport *t, const uint8_t *mad,
			    uint16_t slid, uint32_t sqp)
{
	struct mt_deferred *d;

	if (t->dq_len == t->dq_cap || t->dq_of_lid[slid] >= t->dq_per_source) {
		t->st.deferred_dropped++;
		return;
	}
	d = &t->dq[t->dq_tail];
	t->dq_len++;
	if (++t->dq_tail == t->dq_cap)
		t->dq_tail = 0;
	/* Read into this very slot (mt_umad_poll): nothing to copy. */
	if (mad != d->mad)
		memcpy(d->mad, mad, SMP_SIZE);
	d->slid = slid;
	d->sqp = sqp;
	t->dq_of_lid[slid]++;
	t->st.deferred++;
}

/* What a umad2sim client receives of a MAD (IBSIM-NOTES): its receiver
 * thread keeps 224 bytes and the copy we get has heap bytes after them. */
#define SIM_MAD_KEPT 224

/* One MAD received (into a buffer of SMP_SIZE bytes we may write), from
 * slid / sqp; status nonzero: a send of ours came back undelivered.
 * Inline, the SA request to defer (a query stream's every MAD: no call
 * and no frame for it, issue 27); the rest in mt_handle_recv_other. The
 * class is decoded once here and the rest of the way goes by it. */
static inline int mt_handle_recv(struct mad_transport *t, uint8_t *mad,
				 int status, uint16_t slid, uint32_t sqp)
{
	uint8_t mclass;

	/* Under ibsim the bytes past SIM_MAD_KEPT never arrived: make them
	 * zeros rather than whatever the heap held, so what the SA reads
	 * (a reassembled request, above all) is the same every time. */
	if (t->sim)
		memset(mad + SIM_MAD_KEPT, 0, SMP_SIZE - SIM_MAD_KEPT);
	if (status)
		return mt_handle_recv_other(t, mad, status, slid, sqp, 0);
	mclass = smp_class(mad);
	/* SA first: the one class that comes in streams (never a sink). */
	if (mclass == GMP_CLASS_SA && t->dq_cap && !smp_is_response(mad)) {
		t->st.unsolicited++;
		mt_defer(t, mad, slid, sqp);
		return 0;
	}
	return mt_handle_recv_other(t, mad, 0, slid, sqp, mclass);
}

/* mt_umad.c (also mt_send, mt_respond*: the sending path is there) */
/* What the port holds, at most MT_RECV_BURST MADs; how many, or -EIO. */
int mt_umad_poll(struct mad_transport *t);
/* Sleep on the port and the watched descriptors up to ms (-1: no
 * limit), and take what the port then holds; how many MADs (0 or more),
 * or a negative errno. */
int mt_umad_sleep(struct mad_transport *t, int ms);
/* The port, the issm device and the buffer, if open. */
void mt_umad_release(struct mad_transport *t);

#endif
