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

/* The command line. */
struct opts {
	const char *ca;
	const char *name;               /* the attribute operand */
	int port, lid, slid, numb, lid_comp;
	unsigned window, timeout, attr, drop_ack, ack_limit;
	uint64_t smkey;
	uint8_t gids[MAX_GIDS][16];     /* --sgid and --dgid, in their order */
	int gid_src[MAX_GIDS];          /* 1: an --sgid */
	int ngid;
	size_t pad;
	enum rmpp_break brk;
};

static enum rmpp_break parse_break(const char *s)
{
	enum rmpp_break brk = !strcmp(s, "ooo") ? BRK_OOO :
			      !strcmp(s, "nolast") ? BRK_NOLAST :
			      !strcmp(s, "badlen") ? BRK_BADLEN :
			      !strcmp(s, "badseg") ? BRK_BADSEG :
			      !strcmp(s, "toobig") ? BRK_TOOBIG : BRK_NONE;

	if (brk == BRK_NONE)
		usage();
	return brk;
}

/* The options and the attribute into o; bad ones exit 2. */
static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "window", 1, 0, 'w' }, { "timeout", 1, 0, 't' },
		{ "slid", 1, 0, 's' }, { "lid", 1, 0, 'l' },
		{ "sgid", 1, 0, 'S' }, { "dgid", 1, 0, 'D' }, { "numb", 1, 0, 'N' },
		{ "pad", 1, 0, 'p' }, { "rmpp-break", 1, 0, 'B' },
		{ "drop-ack", 1, 0, 'd' }, { "ack-limit", 1, 0, 'L' },
		{ 0, 0, 0, 0 },
	};
	int c;

	o->lid = o->slid = o->numb = o->lid_comp = -1;
	o->window = 16;
	o->timeout = 2000;
	while ((c = getopt_long(argc, argv, "C:P:k:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': o->ca = optarg; break;
		case 'P': o->port = (int)tool_num(PROG, "-P", optarg, 254); break;
		case 'k': o->smkey = tool_num(PROG, "-k", optarg, UINT64_MAX); break;
		case 'w': o->window = (unsigned)tool_num(PROG, "--window", optarg, 1024); break;
		case 't': o->timeout = (unsigned)tool_num(PROG, "--timeout", optarg, 600000); break;
		case 's': o->slid = (int)tool_num(PROG, "--slid", optarg, 0xFFFF); break;
		case 'l': o->lid = (int)tool_num(PROG, "--lid", optarg, 0xFFFF); break;
		case 'S':
		case 'D':
			if (o->ngid >= MAX_GIDS ||
			    inet_pton(AF_INET6, optarg, o->gids[o->ngid]) != 1) {
				fprintf(stderr, "sa-table: --%cgid: bad GID \"%s\" (or more than 510)\n",
					c == 'S' ? 's' : 'd', optarg);
				exit(2);
			}
			o->gid_src[o->ngid++] = c == 'S';
			break;
		case 'N': o->numb = (int)tool_num(PROG, "--numb", optarg, 127); break;
		case 'p': o->pad = (size_t)tool_num(PROG, "--pad", optarg, 65536); break;
		case 'd': o->drop_ack = (unsigned)tool_num(PROG, "--drop-ack", optarg, 1u << 20); break;
		case 'L': o->ack_limit = (unsigned)tool_num(PROG, "--ack-limit", optarg, 1u << 20); break;
		case 'B': o->brk = parse_break(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !o->window)
		usage();
	o->name = argv[optind];
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (!strcmp(o->name, attrs[i].name)) {
			o->attr = attrs[i].attr;
			o->lid_comp = attrs[i].lid_comp;
		}
	if (!o->attr)
		usage();
}

/* --lid and --slid into the record and its ComponentMask: 0, or 2 once
 * the error is said. */
static int query_record(const struct opts *o, uint8_t *rec, uint64_t *mask)
{
	if (o->lid >= 0) {
		if (o->lid_comp < 0) {
			fprintf(stderr, "sa-table: --lid: %s has no LID component\n", o->name);
			return 2;
		}
		/* The LID is the first component, 16 bits, of these records. */
		mad_set_field(rec, 0, IB_SA_NR_LID_F, (uint32_t)o->lid);
		*mask |= 1ull << o->lid_comp;
	}
	if (o->slid >= 0) {
		if (o->attr != IB_SA_ATTR_PATHRECORD) {
			fprintf(stderr, "sa-table: --slid is for PR\n");
			return 2;
		}
		mad_set_field(rec, 0, IB_SA_PR_SLID_F, (uint32_t)o->slid);
		*mask |= 1ull << PR_SLID;
	}
	return 0;
}

/* The request's class data in stream (the record; for MPR its first 24
 * bytes and the GIDs; then --pad zeros), and what fits one MAD back in
 * rec. Its length, or 0 once the error is said. */
static size_t request_stream(const struct opts *o, uint8_t *rec, uint64_t *mask,
			     uint8_t *stream)
{
	size_t slen;

	if (o->attr == 0x003A) {
		/* MultiPathRecord (IBA 15.2.5.17): SGIDCount (bits 120..127)
		 * and DGIDCount (128..135), the SGIDs then the DGIDs from
		 * byte 24; NumbPath at bits 41..47. */
		unsigned ns = 0, nd = 0, k = 0;

		for (int i = 0; i < o->ngid; i++)
			ns += (unsigned)o->gid_src[i];
		nd = (unsigned)o->ngid - ns;
		if (ns > 255 || nd > 255) {
			fprintf(stderr, "sa-table: at most 255 source and 255 destination GIDs\n");
			return 0;
		}
		rec[15] = (uint8_t)ns;
		rec[16] = (uint8_t)nd;
		*mask |= 1ull << 19 | 1ull << 20;
		if (o->numb >= 0) {
			rec[5] = (uint8_t)(rec[5] & 0x80) | (uint8_t)o->numb;
			*mask |= 1ull << 6;
		}
		memcpy(stream, rec, 24);
		for (int src = 1; src >= 0; src--)
			for (int i = 0; i < o->ngid; i++)
				if (o->gid_src[i] == src)
					memcpy(stream + 24 + 16 * k++, o->gids[i], 16);
		slen = 24 + 16 * (size_t)o->ngid;
	} else {
		memcpy(stream, rec, IB_SA_DATA_SIZE);
		slen = IB_SA_DATA_SIZE;
	}
	if (o->pad) {
		memset(stream + slen, 0, o->pad);
		slen += o->pad;
	}
	/* What fits one MAD goes in the record. */
	memcpy(rec, stream, slen < IB_SA_DATA_SIZE ? slen : IB_SA_DATA_SIZE);
	return slen;
}

/* The request MAD in snd: GetTable, or GetMulti for MPR. Its TID's low 32
 * bits (what the answers carry back) in *tid32; 0, or -1 if libibmad
 * cannot build it. */
static int build_request(void *snd, const struct opts *o, ib_portid_t *sa,
			 uint8_t *rec, uint64_t mask, size_t slen, uint32_t *tid32)
{
	ib_rpc_t rpc = { 0 };
	uint8_t *m;
	int gm;

	rpc.mgtclass = IB_SA_CLASS;
	rpc.method = o->attr == 0x003A ? IB_MAD_METHOD_GETMULTI :
					 IB_MAD_METHOD_GET_TABLE;
	rpc.attr.id = o->attr;
	rpc.mask = mask;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.datasz = IB_SA_DATA_SIZE;
	if (mad_build_pkt(snd, &rpc, sa, NULL, rec) < 0)
		return -1;
	m = umad_get_mad(snd);
	/* A GetMulti request is an RMPP transfer (IBA 15.2.5.17), here of
	 * one segment; the others are plain MADs. */
	gm = rpc.method == IB_MAD_METHOD_GETMULTI && slen <= IB_SA_DATA_SIZE;
	mad_set_field(m, 0, IB_SA_RMPP_VERS_F, gm);
	mad_set_field(m, 0, IB_SA_RMPP_TYPE_F, gm);
	mad_set_field(m, 0, IB_SA_RMPP_FLAGS_F, gm ? 0x7 : 0);
	mad_set_field(m, 0, IB_SA_RMPP_SEGNUM_F, gm);
	mad_set_field(m, 0, IB_SA_RMPP_LEN_F, gm ? 20 + 24 + 16 * o->ngid : 0);
	mad_set_field64(m, 0, IB_SA_MKEY_F, o->smkey);
	*tid32 = (uint32_t)mad_get_field64(m, 0, IB_MAD_TRID_F);
	return 0;
}

/* Send the request: one MAD, or (longer, or --rmpp-break) an RMPP
 * transfer, whose failure ends the run here with its exit code. 0, or -1
 * once a failed send is said. */
static int send_request(const struct tool_sa_port *sp, void *snd, void *rcv,
			const struct opts *o, const uint8_t *stream, size_t slen)
{
	if (slen > IB_SA_DATA_SIZE || o->brk != BRK_NONE) {
		uint8_t hdr[IB_SA_DATA_OFFS];
		int rc;

		memcpy(hdr, umad_get_mad(snd), IB_SA_DATA_OFFS);
		umad_set_addr(snd, sp->sm_lid, 1, sp->sm_sl, IB_DEFAULT_QP1_QKEY);
		rc = send_rmpp(sp->fd, sp->agent, snd, rcv, hdr, stream,
			       slen > IB_SA_DATA_SIZE ? slen : IB_SA_DATA_SIZE + 1,
			       o->timeout, o->brk);
		if (rc) {
			fflush(stdout);
			_exit(rc);
		}
	} else if (umad_send(sp->fd, sp->agent, snd, IB_MAD_SIZE, 0, 0) < 0) {
		fprintf(stderr, "sa-table: send failed\n");
		return -1;
	}
	return 0;
}

/* The receive side of the answer's transfer. */
struct rx {
	const struct opts *o;
	const struct tool_sa_port *sp;
	const ib_portid_t *sa;
	void *ack;                      /* buffer for our ACKs */
	int sim;                        /* under umad2sim (see the top) */
	struct table t;
	unsigned expect, total_segs, first_len, acks;
	int final;                      /* the run ends without the table */
};

static int table_full(struct rx *x)
{
	fprintf(stderr, "sa-table: table larger than %u bytes\n", MAX_TABLE);
	x->final = 1;
	return 4;
}

/* The class data of an answer MAD of LEN bytes, at most MAX of it. */
static size_t mad_data_len(int len, size_t max)
{
	size_t n = len > IB_SA_DATA_OFFS ? (size_t)len - IB_SA_DATA_OFFS : 0;

	return n < max ? n : max;
}

/* An answer that is not an RMPP DATA segment in order. The exit code if
 * it ends the transfer, -1 to receive on. */
static int on_other_mad(struct rx *x, uint8_t *m, int len, unsigned flags,
			unsigned seg, unsigned plen)
{
	size_t n;

	if (!(flags & 1)) {
		/* A single MAD: the records it holds, by its length. */
		if (append(&x->t, m + IB_SA_DATA_OFFS, mad_data_len(len, SIZE_MAX),
			   x->sim) < 0)
			return table_full(x);
		x->t.segs = 1;
		return 0;
	}
	if (seg == 0 && x->expect == 1) {
		/* RMPP Active but no segment number: the sender left
		 * segmentation to a kernel that is not there (OpenSM under
		 * ibsim). What came is all that will come. */
		n = mad_data_len(len, SEG_DATA);
		if (append(&x->t, m + IB_SA_DATA_OFFS, n, x->sim) < 0)
			return table_full(x);
		x->t.segs = 1;
		printf("unsegmented: one MAD of a %u-byte transfer (PayloadLength %u)\n",
		       plen ? plen : (unsigned)n, plen);
		/* A full MAD with no length known: more was meant. */
		return plen ? (plen > n + 20 ? 5 : 0) : (n >= SEG_DATA ? 5 : 0);
	}
	if (mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) == 3 ||
	    mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) == 4) {
		printf("rmpp %s status %u after %u segments\n",
		       mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) == 4 ? "abort" : "stop",
		       mad_get_field(m, 0, IB_SA_RMPP_STATUS_F), x->t.segs);
		x->final = 1;
		return 6;
	}
	if (mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) == 1 && seg != x->expect &&
	    x->expect > 1 && ack_ok(&x->acks, x->o->drop_ack, x->o->ack_limit))
		/* Duplicate or out of order: say again what we have. */
		send_ack(x->sp->fd, x->sp->agent, x->ack, m, x->sa, x->expect - 1,
			 x->expect - 1 + x->o->window);
	return -1;
}

/* One answer MAD with our TID and status 0: the exit code if the
 * transfer ends with it, -1 to receive on. */
static int on_mad(struct rx *x, uint8_t *m, int len)
{
	unsigned flags, seg, plen, window = x->o->window;
	size_t n;

	x->t.stride = (size_t)mad_get_field(m, 0, IB_SA_ATTROFFS_F) * 8;
	flags = mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F);
	seg = mad_get_field(m, 0, IB_SA_RMPP_SEGNUM_F);
	plen = mad_get_field(m, 0, IB_SA_RMPP_LEN_F);
	if (!(flags & 1) || (seg == 0 && x->expect == 1) ||
	    mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) != 1 || seg != x->expect)
		return on_other_mad(x, m, len, flags, seg, plen);
	if ((flags & 2) && plen) {  /* FIRST: the whole length */
		x->total_segs = (plen + 219) / 220;
		x->first_len = plen;
	}
	n = SEG_DATA;
	if (flags & 4)              /* LAST: its own length */
		n = plen >= 20 ? plen - 20 : 0;
	if ((size_t)len < IB_SA_DATA_OFFS + n)
		n = mad_data_len(len, SIZE_MAX);
	if (append(&x->t, m + IB_SA_DATA_OFFS, n, x->sim) < 0)
		return table_full(x);
	x->t.segs = seg;
	x->expect++;
	if ((flags & 4) || seg == 1 || (seg - 1) % window == 0 ||
	    seg == x->total_segs) {
		if (ack_ok(&x->acks, x->o->drop_ack, x->o->ack_limit))
			send_ack(x->sp->fd, x->sp->agent, x->ack, m, x->sa, seg,
				 seg + window);
		if (flags & 4)
			return 0;
	}
	return -1;
}

/* Receive the answer to the request of TID32 in rcv until its transfer
 * ends or --timeout passes without a MAD of it. The exit code so far
 * (4: nothing more came). */
static int receive_table(struct rx *x, void *rcv, uint32_t tid32)
{
	double deadline = tool_now_ms() + x->o->timeout;
	uint8_t *m = umad_get_mad(rcv);

	for (;;) {
		int len = IB_MAD_SIZE, left = (int)(deadline - tool_now_ms()), rc;

		if (left <= 0 || umad_recv(x->sp->fd, rcv, &len, left) < 0)
			return 4;
		if (umad_status(rcv) ||
		    (uint32_t)mad_get_field64(m, 0, IB_MAD_TRID_F) != tid32)
			continue;
		if (mad_get_field(m, 0, IB_MAD_STATUS_F)) {
			printf("status 0x%04x\n", mad_get_field(m, 0, IB_MAD_STATUS_F));
			x->final = 1;
			return 3;
		}
		deadline = tool_now_ms() + x->o->timeout;
		rc = on_mad(x, m, len);
		if (rc >= 0)
			return rc;
	}
}

/* What came, checked and printed (see the top comment): the exit code. */
static int report_table(const struct rx *x, int rc)
{
	const struct table *t = &x->t;

	if (rc != 0 && rc != 5) {
		if (!t->segs) {
			fprintf(stderr, "sa-table: no answer from the SA at LID %d\n", x->sa->lid);
			return 4;
		}
		printf("incomplete: %u of %u segments (%zu bytes), then nothing for %u ms\n",
		       t->segs, x->total_segs, t->len, x->o->timeout);
		rc = 5;
	}
	if (rc == 0 && x->first_len && x->first_len != t->len + 20u * t->segs) {
		printf("PayloadLength %u in the first segment, but %zu bytes in %u segments came\n",
		       x->first_len, t->len, t->segs);
		rc = 5;
	}
	if (t->stride) {
		size_t n = t->len / t->stride, good = 0;

		print_records(x->o->attr, t, t->data, n, t->stride);
		for (size_t i = 0; i < n; i++)
			good += (size_t)intact(t, i);
		printf("records %zu intact %zu cut %zu segments %u\n", n, good,
		       n - good, t->segs);
	} else {
		printf("records 0 intact 0 cut 0 segments %u\n", t->segs);
	}
	return rc;
}

int main(int argc, char **argv)
{
	static struct opts o;
	static uint8_t stream[IB_SA_DATA_SIZE + 16 * MAX_GIDS + 65536];
	const char *pre = getenv("LD_PRELOAD");
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 };
	uint64_t mask = 0;
	struct tool_sa_port sp;
	void *bufs[3];
	ib_portid_t sa = { 0 };
	struct rx x = { .o = &o, .sp = &sp, .sa = &sa, .expect = 1 };
	size_t slen;
	uint32_t tid32;
	int rc;

	x.sim = pre && strstr(pre, "umad2sim") != NULL;
	parse_args(argc, argv, &o);
	if (query_record(&o, rec, &mask))
		return 2;
	if (tool_sa_open(PROG, o.ca, o.port, &sp, bufs, 3) < 0)
		return 4;
	x.ack = bufs[2];
	sa.lid = sp.sm_lid;
	sa.sl = sp.sm_sl;
	sa.qp = 1;
	sa.qkey = IB_DEFAULT_QP1_QKEY;
	slen = request_stream(&o, rec, &mask, stream);
	if (!slen)
		return 2;
	if (build_request(bufs[0], &o, &sa, rec, mask, slen, &tid32) < 0) {
		fprintf(stderr, "sa-table: cannot build the MAD\n");
		return 4;
	}
	if (send_request(&sp, bufs[0], bufs[1], &o, stream, slen) < 0)
		return 4;
	rc = receive_table(&x, bufs[1], tid32);
	if (!x.final)
		rc = report_table(&x, rc);
	free(x.t.data);
	free(x.t.ok);
	/* No unregister or close: under ibsim the copies of the last ACK
	 * that named no client come back to us while we stop, and
	 * umad2sim's receiver thread crashes on a MAD for an agent that is
	 * gone; and its exit handlers can deadlock with that thread (seen:
	 * one exit in three hung). _exit skips them; the kernel (or ibsim,
	 * on the closed socket) takes the port down. */
	fflush(stdout);
	_exit(rc);
}
