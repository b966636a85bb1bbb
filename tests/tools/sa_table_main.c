/* sa-table: read a whole SA table (GetTable) as an RMPP receiver in user
 * space (IBA 13.6.4), for tests: saquery under ibsim shows only the first
 * segment of a table answer, because there is no kernel RMPP there.
 *
 *   sa-table [-C ca] [-P port] [-k sm_key] [--window N] [--timeout MS]
 *            [--slid N] [--lid N] NR|PIR|LR|PR|SWIR|LFTR|GIR|PKTR|SMIR|IIR|MCMR|SR
 *   sa-table ... [--sgid GID]... [--dgid GID]... [--numb N] MPR
 *   sa-table ... [--pad N] [--rmpp-break ooo|nolast|badlen|badseg|toobig] ...
 *   sa-table ... [--drop-ack N] [--ack-limit N] ...
 *
 * --slid (PathRecord) and --lid (the record's own LID component: NodeRecord,
 * PortInfoRecord, LinkRecord's FromLID, ...) narrow the query. MPR sends
 * GetMulti(MultiPathRecord) with the given source and destination GIDs
 * (up to 255 of each) and reads the PathRecords it brings.
 *
 * A request longer than one MAD (an MPR with more than 11 GIDs, or any
 * request with --pad N zero bytes after its 200-byte record) is sent as an
 * RMPP transfer (IBA 13.6.3): segment 1 with FIRST and the total
 * PayloadLength, then the segments each ACK's NewWindowLast allows, going
 * back to the segment after the ACKed one when an ACK says less than was
 * sent, resending after --timeout without an ACK (3 times), the LAST with
 * its own PayloadLength; the answer is read after the final ACK. An ABORT
 * or STOP from the SA prints "rmpp abort|stop status N" (exit 6).
 * --rmpp-break sends a broken transfer on purpose: ooo (the first window
 * of two or more segments in reverse order: the SA drops and re-ACKs, the
 * transfer still completes), nolast (everything but the LAST: the SA
 * should ABORT with T2L, 118, when the transfer goes stale), badlen (a
 * LAST PayloadLength of 250: ABORT 119), badseg (segment 2 flagged FIRST:
 * ABORT 120), toobig (a FIRST PayloadLength of 1 MB: STOP 1).
 *
 * It receives the DATA segments in order, ACKs every window (NewWindowLast =
 * segment + window) and the last segment, and drops duplicates and segments
 * out of order (re-ACKing what it has, so the sender can go back).
 * --drop-ack N leaves out the N-th of those ACKs (as if lost: the SA must
 * send the window again), --ack-limit N sends no ACK after the N-th (the
 * SA must give up and ABORT, printed as "rmpp abort status N", exit 6).
 * Output:
 * one line per record for the attributes the tests count ("lid L guid G",
 * "link FL/FP TL/TP", "path SLID DLID"), then "records N intact I cut C
 * segments S".
 * Exit 0: whole table; 3: error status ("status 0xNNNN"); 4: no answer;
 * 6: the SA aborted or stopped our multi-MAD request;
 * 5: the transfer stopped before its last segment ("incomplete: ..."), or
 * came as one unsegmented MAD of a longer transfer ("unsegmented: ...",
 * OpenSM's answers under ibsim, which leave RMPP to an absent kernel);
 * 2: bad arguments.
 *
 * Under ibsim every MAD a client receives loses its bytes 224..255:
 * umad2sim's receiver thread reads into a buffer the size of its socket
 * message (288 bytes) and copies the MAD after a 64-byte umad header, so only
 * 224 bytes fit (measured: the SM's segment is whole in ibsim's packet dump,
 * its last 32 bytes are garbage at the client, for OpenSM as for ibsm). So,
 * when libumad2sim is preloaded, the last 32 data bytes of every segment are
 * marked lost: the record count still comes from the bytes the transfer
 * carried (and is checked against the FIRST segment's PayloadLength), and
 * only records whose bytes all arrived are printed; the rest are counted as
 * "cut".
 *
 * Under ibsim an ACK reaches the SA only if its TID's top 16 bits name the
 * SA's ibsim client (ibsim routes responses by them; IBSIM-NOTES.md). The
 * client cannot know that id, so each ACK is sent once per possible client
 * (ibsim has at most 10); ibsim drops the copies that name no client on the
 * SA's port. With a kernel below (a real port) the kernel does RMPP and
 * the first receive is already the whole table. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "sa/sa_layout.h"
#include "tests/tools/tool_util.h"

static const char PROG[] = "sa-table";

#define IBSIM_MAX_CLIENTS 10
#define SEG_DATA 200                /* SA data bytes per segment */
#define MAX_TABLE (64u << 20)
#define MAX_GIDS 510

static const struct {
	const char *name;
	unsigned attr;
	int lid_comp;                   /* component of the record's LID */
} attrs[] = {
	{ "NR", IB_SA_ATTR_NODERECORD, 0 },
	{ "PIR", IB_SA_ATTR_PORTINFORECORD, 0 },
	{ "LR", IB_SA_ATTR_LINKRECORD, 0 },
	{ "PR", IB_SA_ATTR_PATHRECORD, -1 },
	{ "SWIR", IB_SA_ATTR_SWITCHINFORECORD, 0 },
	{ "LFTR", IB_SA_ATTR_LFTRECORD, 0 },
	{ "GIR", IB_SA_ATTR_GUIDINFORECORD, 0 },
	{ "PKTR", IB_SA_ATTR_PKEYTABLERECORD, 0 },
	{ "SMIR", IB_SA_ATTR_SMINFORECORD, 0 },
	{ "IIR", IB_SA_ATTR_INFORMINFORECORD, -1 },
	{ "MPR", 0x003A, -1 },          /* GetMulti(MultiPathRecord) */
	{ "MCMR", IB_SA_ATTR_MCRECORD, -1 },
	{ "SR", IB_SA_ATTR_SERVICERECORD, -1 },
};

static void usage(void)
{
	fprintf(stderr, "usage: sa-table [-C ca] [-P port] [-k sm_key] [--window N] [--timeout MS]\n"
		"       [--slid N] [--lid N] NR|PIR|LR|PR|SWIR|LFTR|GIR|PKTR|SMIR|IIR|MCMR|SR\n"
		"   or: sa-table ... [--sgid GID]... [--dgid GID]... [--numb N] MPR\n");
	exit(2);
}

/* One line per record, for the attributes tests count. */
struct table;
static int intact(const struct table *t, size_t rec);

static void print_records(unsigned attr, const struct table *t, uint8_t *data,
			  size_t n, size_t stride)
{
	char g[64];

	for (size_t i = 0; i < n; i++) {
		uint8_t *r = data + i * stride;

		if (!intact(t, i))
			continue;

		switch (attr) {
		case IB_SA_ATTR_NODERECORD:
			printf("lid %u guid 0x%016llx\n", mad_get_field(r, 0, IB_SA_NR_LID_F),
			       (unsigned long long)mad_get_field64(r, 0, IB_SA_NR_PORT_GUID_F));
			break;
		case IB_SA_ATTR_LINKRECORD:
			printf("link %llu/%llu %llu/%llu\n",
			       (unsigned long long)sa_get(&sa_link_rec, r, LR_FROMLID),
			       (unsigned long long)sa_get(&sa_link_rec, r, LR_FROMPORT),
			       (unsigned long long)sa_get(&sa_link_rec, r, LR_TOLID),
			       (unsigned long long)sa_get(&sa_link_rec, r, LR_TOPORT));
			break;
		case IB_SA_ATTR_PATHRECORD:
		case 0x003A:
			printf("path %u %u\n", mad_get_field(r, 0, IB_SA_PR_SLID_F),
			       mad_get_field(r, 0, IB_SA_PR_DLID_F));
			break;
		case IB_SA_ATTR_MCRECORD:
			printf("mcm %s\n", inet_ntop(AF_INET6, r, g, sizeof(g)));
			break;
		default:
			break;
		}
	}
}

#define SIM_MAD_KEPT 224               /* MAD bytes a umad2sim client gets */

struct table {
	uint8_t *data;
	uint8_t *ok;                    /* per byte: it arrived */
	size_t len, cap;
	unsigned segs;
	size_t stride;                  /* AttributeOffset in bytes */
};

/* Append n data bytes of a MAD (they start at MAD offset 56); under
 * ibsim those past MAD byte 224 did not arrive. */
static int append(struct table *t, const uint8_t *p, size_t n, int sim)
{
	size_t kept = sim ? SIM_MAD_KEPT - IB_SA_DATA_OFFS : n;

	if (t->len + n > MAX_TABLE)
		return -1;
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		uint8_t *d, *o;

		while (cap < t->len + n)
			cap *= 2;
		d = realloc(t->data, cap);
		if (!d)
			return -1;
		t->data = d;
		o = realloc(t->ok, cap);
		if (!o)
			return -1;
		t->ok = o;
		t->cap = cap;
	}
	memcpy(t->data + t->len, p, n);
	for (size_t i = 0; i < n; i++)
		t->ok[t->len + i] = i < kept;
	t->len += n;
	return 0;
}

static int intact(const struct table *t, size_t rec)
{
	for (size_t i = rec * t->stride; i < (rec + 1) * t->stride; i++)
		if (!t->ok[i])
			return 0;
	return 1;
}

/* ACK segment `seg` with window up to `wlast`, back to the SA, once per
 * possible ibsim client id (see the top comment). */
static void send_ack(int fd, int agent, void *buf, uint8_t *seg_mad,
		     const ib_portid_t *sa, unsigned seg, unsigned wlast)
{
	uint8_t *mad = umad_get_mad(buf);
	uint64_t tid = mad_get_field64(seg_mad, 0, IB_MAD_TRID_F);

	memcpy(mad, seg_mad, IB_SA_DATA_OFFS);
	memset(mad + IB_SA_DATA_OFFS, 0, IB_MAD_SIZE - IB_SA_DATA_OFFS);
	mad_set_field(mad, 0, IB_MAD_STATUS_F, 0);
	mad_set_field(mad, 0, IB_SA_RMPP_TYPE_F, 2);     /* ACK */
	mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, 1);    /* Active */
	mad_set_field(mad, 0, IB_SA_RMPP_STATUS_F, 0);
	mad_set_field(mad, 0, IB_SA_RMPP_SEGNUM_F, seg);
	mad_set_field(mad, 0, IB_SA_RMPP_NEWWIN_F, wlast);
	umad_set_addr(buf, sa->lid, 1, sa->sl, IB_DEFAULT_QP1_QKEY);
	for (uint64_t k = 0; k < IBSIM_MAX_CLIENTS; k++) {
		mad_set_field64(mad, 0, IB_MAD_TRID_F,
				(tid & 0x0000FFFFFFFFFFFFull) | k << 48);
		umad_send(fd, agent, buf, IB_MAD_SIZE, 0, 0);
	}
}

/* Should the next receive-side ACK go out (--drop-ack, --ack-limit)? */
static int ack_ok(unsigned *n, unsigned drop, unsigned limit)
{
	++*n;
	return *n != drop && (!limit || *n <= limit);
}

enum rmpp_break { BRK_NONE, BRK_OOO, BRK_NOLAST, BRK_BADLEN, BRK_BADSEG,
		  BRK_TOOBIG };

/* Segment i (1-based) of a request whose class data is stream[0..len):
 * the built MAD's headers (hdr) with RMPP DATA, then 200 data bytes. */
static void send_segment(int fd, int agent, void *buf, const uint8_t *hdr,
			 const uint8_t *stream, size_t len, unsigned i,
			 unsigned segs, enum rmpp_break brk)
{
	uint8_t *m = umad_get_mad(buf);
	size_t off = (size_t)(i - 1) * SEG_DATA;
	size_t n = len - off < SEG_DATA ? len - off : SEG_DATA;
	unsigned flags = 1, plen = 0;

	memcpy(m, hdr, IB_SA_DATA_OFFS);
	memset(m + IB_SA_DATA_OFFS, 0, SEG_DATA);
	memcpy(m + IB_SA_DATA_OFFS, stream + off, n);
	if (i == 1) {
		flags |= 2;
		plen = (unsigned)len + 20 * segs;
		if (brk == BRK_TOOBIG)
			plen = 1u << 20;
	}
	if (i == segs) {
		flags |= 4;
		plen = (unsigned)n + 20;
		if (brk == BRK_BADLEN)
			plen = 250;
	}
	if (i == 2 && brk == BRK_BADSEG)
		flags |= 2;
	mad_set_field(m, 0, IB_SA_RMPP_VERS_F, 1);
	mad_set_field(m, 0, IB_SA_RMPP_TYPE_F, 1);
	mad_set_field(m, 0, IB_SA_RMPP_FLAGS_F, flags);
	mad_set_field(m, 0, IB_SA_RMPP_STATUS_F, 0);
	mad_set_field(m, 0, IB_SA_RMPP_SEGNUM_F, i);
	mad_set_field(m, 0, IB_SA_RMPP_LEN_F, plen);
	umad_send(fd, agent, buf, IB_MAD_SIZE, 0, 0);
}

/* Send a multi-MAD request as an RMPP sender (see the top comment).
 * 0 when the last segment was ACKed; 6 ABORT/STOP; 4 no ACKs. */
static int send_rmpp(int fd, int agent, void *buf, void *rcv,
		     const uint8_t *hdr, const uint8_t *stream, size_t len,
		     unsigned timeout, enum rmpp_break brk)
{
	unsigned segs = (unsigned)((len + SEG_DATA - 1) / SEG_DATA);
	unsigned acked = 0, wl = 1, sent = 0, tries = 0, goback = 0;
	unsigned last = brk == BRK_NOLAST ? segs - 1 : segs;
	uint32_t tid32 = (uint32_t)mad_get_field64((void *)(uintptr_t)hdr, 0,
						   IB_MAD_TRID_F);
	int reversed = 0;

	if (brk == BRK_NOLAST)
		timeout = timeout < 15000 ? 15000 : timeout;
	for (;;) {
		uint8_t *m = umad_get_mad(rcv);
		int rlen = IB_MAD_SIZE;
		unsigned type, st, seg, nwl;
		double end;

		/* Send what the window allows and was not sent yet. */
		if (brk == BRK_OOO && !reversed && sent < acked + 1 &&
		    (wl < last ? wl : last) >= sent + 2) {
			unsigned top = wl < last ? wl : last;

			for (unsigned i = top; i > sent; i--)
				send_segment(fd, agent, buf, hdr, stream, len, i, segs, brk);
			sent = top;
			reversed = 1;
		}
		for (; sent < wl && sent < last; sent++)
			send_segment(fd, agent, buf, hdr, stream, len, sent + 1, segs, brk);
		end = tool_now_ms() + timeout;
		for (;;) {
			int left = (int)(end - tool_now_ms());

			if (left <= 0 || umad_recv(fd, rcv, &rlen, left) < 0) {
				m = NULL;
				break;
			}
			rlen = IB_MAD_SIZE;
			if (!umad_status(rcv) &&
			    (uint32_t)mad_get_field64(m, 0, IB_MAD_TRID_F) == tid32 &&
			    (mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F) & 1) &&
			    mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) != 1)
				break;
		}
		if (!m) {
			if (++tries > 3) {
				printf("rmpp: no ACK after segment %u of %u\n", sent, segs);
				return 4;
			}
			sent = acked;            /* resend the window */
			continue;
		}
		type = mad_get_field(m, 0, IB_SA_RMPP_TYPE_F);
		st = mad_get_field(m, 0, IB_SA_RMPP_STATUS_F);
		seg = mad_get_field(m, 0, IB_SA_RMPP_SEGNUM_F);
		nwl = mad_get_field(m, 0, IB_SA_RMPP_NEWWIN_F);
		if (type == 3 || type == 4) {
			printf("rmpp %s status %u\n", type == 3 ? "stop" : "abort", st);
			return 6;
		}
		tries = 0;
		if (seg > acked)
			acked = seg;
		if (nwl > wl)
			wl = nwl;
		if (seg < sent) {
			goback++;                /* the SA lacks seg + 1: go back */
			sent = seg;
		}
		if (acked >= segs) {
			printf("rmpp: request sent in %u segments (%zu bytes), %u go-back%s\n",
			       segs, len, goback, goback == 1 ? "" : "s");
			return 0;
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "window", 1, 0, 'w' }, { "timeout", 1, 0, 't' },
		{ "slid", 1, 0, 's' }, { "lid", 1, 0, 'l' },
		{ "sgid", 1, 0, 'S' }, { "dgid", 1, 0, 'D' }, { "numb", 1, 0, 'N' },
		{ "pad", 1, 0, 'p' }, { "rmpp-break", 1, 0, 'B' },
		{ "drop-ack", 1, 0, 'd' }, { "ack-limit", 1, 0, 'L' },
		{ 0, 0, 0, 0 },
	};
	const char *ca = NULL;
	int port = 0, c, fd, agent, rc = 4, lid = -1, slid = -1;
	unsigned window = 16, timeout = 2000, attr = 0, expect = 1, total_segs = 0;
	unsigned first_len = 0, drop_ack = 0, ack_limit = 0, acks = 0;
	const char *pre = getenv("LD_PRELOAD");
	int sim = pre && strstr(pre, "umad2sim") != NULL;
	int lid_comp = -1, numb = -1;
	static uint8_t gids[MAX_GIDS][16];
	static int gid_src[MAX_GIDS];
	int ngid = 0;
	size_t pad = 0, slen = 0;
	static uint8_t stream[IB_SA_DATA_SIZE + 16 * MAX_GIDS + 65536];
	enum rmpp_break brk = BRK_NONE;
	uint64_t smkey = 0, mask = 0;
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 };
	struct tool_sa_port sp;
	void *bufs[3], *snd, *rcv, *ack;
	ib_rpc_t rpc = { 0 };
	ib_portid_t sa = { 0 };
	struct table t = { 0 };
	uint32_t tid32;
	double deadline;

	while ((c = getopt_long(argc, argv, "C:P:k:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': ca = optarg; break;
		case 'P': port = (int)tool_num(PROG, "-P", optarg, 254); break;
		case 'k': smkey = tool_num(PROG, "-k", optarg, UINT64_MAX); break;
		case 'w': window = (unsigned)tool_num(PROG, "--window", optarg, 1024); break;
		case 't': timeout = (unsigned)tool_num(PROG, "--timeout", optarg, 600000); break;
		case 's': slid = (int)tool_num(PROG, "--slid", optarg, 0xFFFF); break;
		case 'l': lid = (int)tool_num(PROG, "--lid", optarg, 0xFFFF); break;
		case 'S':
		case 'D':
			if (ngid >= MAX_GIDS || inet_pton(AF_INET6, optarg, gids[ngid]) != 1) {
				fprintf(stderr, "sa-table: --%cgid: bad GID \"%s\" (or more than 510)\n",
					c == 'S' ? 's' : 'd', optarg);
				return 2;
			}
			gid_src[ngid++] = c == 'S';
			break;
		case 'N': numb = (int)tool_num(PROG, "--numb", optarg, 127); break;
		case 'p': pad = (size_t)tool_num(PROG, "--pad", optarg, 65536); break;
		case 'd': drop_ack = (unsigned)tool_num(PROG, "--drop-ack", optarg, 1u << 20); break;
		case 'L': ack_limit = (unsigned)tool_num(PROG, "--ack-limit", optarg, 1u << 20); break;
		case 'B':
			brk = !strcmp(optarg, "ooo") ? BRK_OOO :
			      !strcmp(optarg, "nolast") ? BRK_NOLAST :
			      !strcmp(optarg, "badlen") ? BRK_BADLEN :
			      !strcmp(optarg, "badseg") ? BRK_BADSEG :
			      !strcmp(optarg, "toobig") ? BRK_TOOBIG : BRK_NONE;
			if (brk == BRK_NONE)
				usage();
			break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !window)
		usage();
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (!strcmp(argv[optind], attrs[i].name)) {
			attr = attrs[i].attr;
			lid_comp = attrs[i].lid_comp;
		}
	if (!attr)
		usage();
	if (lid >= 0) {
		if (lid_comp < 0) {
			fprintf(stderr, "sa-table: --lid: %s has no LID component\n", argv[optind]);
			return 2;
		}
		/* The LID is the first component, 16 bits, of these records. */
		mad_set_field(rec, 0, IB_SA_NR_LID_F, (uint32_t)lid);
		mask |= 1ull << lid_comp;
	}
	if (slid >= 0) {
		if (attr != IB_SA_ATTR_PATHRECORD) {
			fprintf(stderr, "sa-table: --slid is for PR\n");
			return 2;
		}
		mad_set_field(rec, 0, IB_SA_PR_SLID_F, (uint32_t)slid);
		mask |= 1ull << PR_SLID;
	}

	if (tool_sa_open(PROG, ca, port, &sp, bufs, 3) < 0)
		return 4;
	fd = sp.fd;
	agent = sp.agent;
	snd = bufs[0];
	rcv = bufs[1];
	ack = bufs[2];
	sa.lid = sp.sm_lid;
	sa.sl = sp.sm_sl;
	sa.qp = 1;
	sa.qkey = IB_DEFAULT_QP1_QKEY;
	rpc.mgtclass = IB_SA_CLASS;
	rpc.method = IB_MAD_METHOD_GET_TABLE;
	if (attr == 0x003A) {
		/* MultiPathRecord (IBA 15.2.5.17): SGIDCount (bits 120..127)
		 * and DGIDCount (128..135), the SGIDs then the DGIDs from
		 * byte 24; NumbPath at bits 41..47. */
		unsigned ns = 0, nd = 0, k = 0;

		for (int i = 0; i < ngid; i++)
			ns += (unsigned)gid_src[i];
		nd = (unsigned)ngid - ns;
		if (ns > 255 || nd > 255) {
			fprintf(stderr, "sa-table: at most 255 source and 255 destination GIDs\n");
			return 2;
		}
		rec[15] = (uint8_t)ns;
		rec[16] = (uint8_t)nd;
		mask |= 1ull << 19 | 1ull << 20;
		if (numb >= 0) {
			rec[5] = (uint8_t)(rec[5] & 0x80) | (uint8_t)numb;
			mask |= 1ull << 6;
		}
		memcpy(stream, rec, 24);
		for (int src = 1; src >= 0; src--)
			for (int i = 0; i < ngid; i++)
				if (gid_src[i] == src)
					memcpy(stream + 24 + 16 * k++, gids[i], 16);
		slen = 24 + 16 * (size_t)ngid;
		rpc.method = IB_MAD_METHOD_GETMULTI;
	} else {
		memcpy(stream, rec, IB_SA_DATA_SIZE);
		slen = IB_SA_DATA_SIZE;
	}
	if (pad) {
		memset(stream + slen, 0, pad);
		slen += pad;
	}
	/* What fits one MAD goes in the record. */
	memcpy(rec, stream, slen < IB_SA_DATA_SIZE ? slen : IB_SA_DATA_SIZE);
	rpc.attr.id = attr;
	rpc.mask = mask;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.datasz = IB_SA_DATA_SIZE;
	if (mad_build_pkt(snd, &rpc, &sa, NULL, rec) < 0) {
		fprintf(stderr, "sa-table: cannot build the MAD\n");
		return 4;
	}
	{
		uint8_t *m = umad_get_mad(snd);

		/* A GetMulti request is an RMPP transfer (IBA 15.2.5.17),
		 * here of one segment; the others are plain MADs. */
		int gm = rpc.method == IB_MAD_METHOD_GETMULTI && slen <= IB_SA_DATA_SIZE;

		mad_set_field(m, 0, IB_SA_RMPP_VERS_F, gm);
		mad_set_field(m, 0, IB_SA_RMPP_TYPE_F, gm);
		mad_set_field(m, 0, IB_SA_RMPP_FLAGS_F, gm ? 0x7 : 0);
		mad_set_field(m, 0, IB_SA_RMPP_SEGNUM_F, gm);
		mad_set_field(m, 0, IB_SA_RMPP_LEN_F, gm ? 20 + 24 + 16 * ngid : 0);
		mad_set_field64(m, 0, IB_SA_MKEY_F, smkey);
		tid32 = (uint32_t)mad_get_field64(m, 0, IB_MAD_TRID_F);
	}
	if (slen > IB_SA_DATA_SIZE || brk != BRK_NONE) {
		uint8_t hdr[IB_SA_DATA_OFFS];

		memcpy(hdr, umad_get_mad(snd), IB_SA_DATA_OFFS);
		umad_set_addr(snd, sa.lid, 1, sa.sl, IB_DEFAULT_QP1_QKEY);
		rc = send_rmpp(fd, agent, snd, rcv, hdr, stream,
			       slen > IB_SA_DATA_SIZE ? slen : IB_SA_DATA_SIZE + 1,
			       timeout, brk);
		if (rc) {
			fflush(stdout);
			_exit(rc);
		}
		rc = 4;
	} else if (umad_send(fd, agent, snd, IB_MAD_SIZE, 0, 0) < 0) {
		fprintf(stderr, "sa-table: send failed\n");
		return 4;
	}
	deadline = tool_now_ms() + timeout;
	for (;;) {
		uint8_t *m = umad_get_mad(rcv);
		int len = IB_MAD_SIZE, left = (int)(deadline - tool_now_ms()), r;
		unsigned flags, seg, plen;
		size_t n;

		if (left <= 0)
			break;
		r = umad_recv(fd, rcv, &len, left);
		if (r < 0)
			break;
		if (umad_status(rcv) ||
		    (uint32_t)mad_get_field64(m, 0, IB_MAD_TRID_F) != tid32)
			continue;
		if (mad_get_field(m, 0, IB_MAD_STATUS_F)) {
			printf("status 0x%04x\n", mad_get_field(m, 0, IB_MAD_STATUS_F));
			rc = 3;
			goto out;
		}
		deadline = tool_now_ms() + timeout;
		t.stride = (size_t)mad_get_field(m, 0, IB_SA_ATTROFFS_F) * 8;
		flags = mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F);
		if (!(flags & 1)) {
			/* A single MAD: the records it holds, by its length. */
			n = len > IB_SA_DATA_OFFS ? (size_t)len - IB_SA_DATA_OFFS : 0;
			if (append(&t, m + IB_SA_DATA_OFFS, n, sim) < 0)
				goto nomem;
			t.segs = 1;
			rc = 0;
			break;
		}
		seg = mad_get_field(m, 0, IB_SA_RMPP_SEGNUM_F);
		plen = mad_get_field(m, 0, IB_SA_RMPP_LEN_F);
		if (seg == 0 && expect == 1) {
			/* RMPP Active but no segment number: the sender left
			 * segmentation to a kernel that is not there (OpenSM
			 * under ibsim). What came is all that will come. */
			n = len > IB_SA_DATA_OFFS ? (size_t)len - IB_SA_DATA_OFFS : 0;
			if (n > SEG_DATA)
				n = SEG_DATA;
			if (append(&t, m + IB_SA_DATA_OFFS, n, sim) < 0)
				goto nomem;
			t.segs = 1;
			printf("unsegmented: one MAD of a %u-byte transfer (PayloadLength %u)\n",
			       plen ? plen : (unsigned)n, plen);
			/* A full MAD with no length known: more was meant. */
			rc = plen ? (plen > n + 20 ? 5 : 0) : (n >= SEG_DATA ? 5 : 0);
			break;
		}
		if (mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) == 3 ||
		    mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) == 4) {
			printf("rmpp %s status %u after %u segments\n",
			       mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) == 4 ? "abort" : "stop",
			       mad_get_field(m, 0, IB_SA_RMPP_STATUS_F), t.segs);
			rc = 6;
			goto out;
		}
		if (mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) != 1)
			continue;
		if (seg != expect) {
			/* Duplicate or out of order: say again what we have. */
			if (expect > 1 && ack_ok(&acks, drop_ack, ack_limit))
				send_ack(fd, agent, ack, m, &sa, expect - 1,
					 expect - 1 + window);
			continue;
		}
		if ((flags & 2) && plen) {  /* FIRST: the whole length */
			total_segs = (plen + 219) / 220;
			first_len = plen;
		}
		n = SEG_DATA;
		if (flags & 4)              /* LAST: its own length */
			n = plen >= 20 ? plen - 20 : 0;
		if ((size_t)len < IB_SA_DATA_OFFS + n)
			n = len > IB_SA_DATA_OFFS ? (size_t)len - IB_SA_DATA_OFFS : 0;
		if (append(&t, m + IB_SA_DATA_OFFS, n, sim) < 0)
			goto nomem;
		t.segs = seg;
		expect++;
		if ((flags & 4) || seg == 1 || (seg - 1) % window == 0 ||
		    seg == total_segs) {
			if (ack_ok(&acks, drop_ack, ack_limit))
				send_ack(fd, agent, ack, m, &sa, seg, seg + window);
			if (flags & 4) {
				rc = 0;
				break;
			}
		}
	}
	if (rc != 0 && rc != 5) {
		if (!t.segs) {
			fprintf(stderr, "sa-table: no answer from the SA at LID %d\n", sa.lid);
			rc = 4;
			goto out;
		}
		printf("incomplete: %u of %u segments (%zu bytes), then nothing for %u ms\n",
		       t.segs, total_segs, t.len, timeout);
		rc = 5;
	}
	if (rc == 0 && first_len && first_len != t.len + 20u * t.segs) {
		printf("PayloadLength %u in the first segment, but %zu bytes in %u segments came\n",
		       first_len, t.len, t.segs);
		rc = 5;
	}
	if (t.stride) {
		size_t n = t.len / t.stride, good = 0;

		print_records(attr, &t, t.data, n, t.stride);
		for (size_t i = 0; i < n; i++)
			good += (size_t)intact(&t, i);
		printf("records %zu intact %zu cut %zu segments %u\n", n, good,
		       n - good, t.segs);
	} else {
		printf("records 0 intact 0 cut 0 segments %u\n", t.segs);
	}
	goto out;
nomem:
	fprintf(stderr, "sa-table: table larger than %u bytes\n", MAX_TABLE);
	rc = 4;
out:
	free(t.data);
	free(t.ok);
	/* No unregister or close: under ibsim the copies of the last ACK
	 * that named no client come back to us while we stop, and
	 * umad2sim's receiver thread crashes on a MAD for an agent that is
	 * gone; and its exit handlers can deadlock with that thread (seen:
	 * one exit in three hung). _exit skips them; the kernel (or ibsim,
	 * on the closed socket) takes the port down. */
	fflush(stdout);
	_exit(rc);
}
