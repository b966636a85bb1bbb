/* sa-fuzz: send an SA many malformed and random requests and check that each
 * one gets a status the spec allows, or, for the kinds that get none (RMPP
 * segments, ACKs and aborts of transfers that do not exist, responses), no
 * answer at all; then check the SA still answers a plain query.
 *
 *   sa-fuzz [-C ca] [-P port] [--count N] [--seed S] [--wait MS] [--strict]
 *
 * Every request has base version 1 and class 0x03 (ibsim drops anything
 * else before an SM sees it, as it drops class versions above 2 and
 * TrapRepress: those are expected to get no answer); the rest is drawn from the seed: class
 * version (2, sometimes 1 or 3), method (Get, Set, GetTable, Delete,
 * GetMulti, GetTraceTable, Report, ReportResp, random), attribute (every
 * SA attribute and random ones), attribute modifier, ComponentMask, SM_Key,
 * record bytes, LIDs in the record forced out of range (0, 0xBFFF+,
 * multicast, permissive), and an RMPP header: none, DATA with FIRST and no
 * LAST (truncated), a DATA segment out of order, ACK/STOP/ABORT for a TID
 * nobody is sending.
 *
 * A DATA segment with FIRST starts a multi-MAD request at the SA, which
 * answers it with RMPP ACKs (and ABORTs, or a STOP once too many are
 * open): those are counted as "rmpp-control N", not as answers.
 *
 * Output: one line per outcome class ("status 0x0300 123"), "no-answer N
 * (expected M)", then "ok" or what broke. Exit 0 when every answer had an
 * allowed status and the final NodeRecord query was answered, and with
 * --strict also every request that must be answered was and none that must
 * not was; 1 otherwise; 2 bad arguments; 4 no SA. (OpenSM passes without
 * --strict only: it leaves unsupported methods unanswered, where IBA
 * 13.4.7 wants status 0x0008, and answers single MADs flagged as RMPP
 * segments of a request it cannot reassemble.) */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "mad/gmp.h"
#include "tests/tools/tool_util.h"

static const char PROG[] = "sa-fuzz";

static const unsigned sa_attrs[] = {
	0x0001, 0x0002, 0x0003, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016,
	0x0017, 0x0018, 0x0019, 0x0020, 0x0030, 0x0031, 0x0033, 0x0035, 0x0036,
	0x0038, 0x0039, 0x003A, 0x00F3, 0x00F4, 0x0080, 0xFF00,
};

/* IBA 13.4.7 Table 111 and 15.2.1.1 Table 187. */
static int allowed(unsigned st)
{
	switch (st) {
	/* 0x0001 Busy (IBA 13.4.7): ibsm's Get of an SL2VL table or a
	 * VLArb block it has not read yet. */
	case 0x0000: case 0x0001: case 0x0004: case 0x0008: case 0x000C: case 0x001C:
	case 0x0100: case 0x0200: case 0x0300: case 0x0400: case 0x0500:
	case 0x0600: case 0x0700:
		return 1;
	}
	return 0;
}

static uint64_t rnd64(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

/* Build one random request into mad; returns 1 when the SA must answer
 * it, 0 when it must not (RMPP traffic, responses). */
static int make_request(uint8_t *mad, uint32_t tid)
{
	static const unsigned methods[] = { 0x01, 0x02, 0x12, 0x15, 0x14, 0x13,
					    0x06, 0x06 | 0x80 };
	unsigned r = (unsigned)random() % 100, method, attr, answer = 1;
	static const unsigned bad_lids[] = { 0, 0xBFFF, 0xC000, 0xFFFE, 0xFFFF, 0x7FFF };

	memset(mad, 0, IB_MAD_SIZE);
	for (int i = IB_SA_DATA_OFFS; i < IB_MAD_SIZE; i++)
		mad[i] = (uint8_t)random();
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, r < 90 ? 2 : (r < 95 ? 1 : 3));
	method = random() % 10 ? methods[random() % 8] : (unsigned)random() % 0x80;
	mad_set_field(mad, 0, IB_MAD_METHOD_F, method & 0x7f);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, method >> 7);
	/* Responses get no answer; neither does what ibsim itself drops
	 * before any SM sees it: class version above 2 and TrapRepress. */
	if ((method & 0x80) || (method & 0x7f) == 0x07 || r >= 95)
		answer = 0;
	attr = random() % 8 ? sa_attrs[random() % (sizeof(sa_attrs) / sizeof(sa_attrs[0]))]
			    : (unsigned)random() % 0x10000;
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, random() % 4 ? 0 : (uint32_t)random());
	mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
	mad_set_field64(mad, 0, IB_SA_MKEY_F, random() % 4 ? 0 : (random() % 2 ? 1 : rnd64()));
	mad_set_field64(mad, 0, IB_SA_COMPMASK_F, random() % 3 ? rnd64() : (uint64_t)random() % 0x40);
	mad_set_field(mad, 0, IB_SA_ATTROFFS_F, random() % 4 ? 0 : (uint32_t)random() % 0x10000);
	if (random() % 3 == 0) {
		/* Most records begin with a LID: make it absurd. */
		unsigned l = bad_lids[random() % 6];

		mad[IB_SA_DATA_OFFS] = (uint8_t)(l >> 8);
		mad[IB_SA_DATA_OFFS + 1] = (uint8_t)l;
	}
	r = (unsigned)random() % 100;
	if (r < 70) {
		mad_set_field(mad, 0, IB_SA_RMPP_VERS_F, 0);
		mad_set_field(mad, 0, IB_SA_RMPP_TYPE_F, 0);
		mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, 0);
	} else {
		/* RMPP: a truncated or out-of-order multi-MAD request, or
		 * ACK/STOP/ABORT for a transfer that does not exist. */
		mad_set_field(mad, 0, IB_SA_RMPP_VERS_F, 1);
		mad_set_field(mad, 0, IB_SA_RMPP_TYPE_F, 1 + (unsigned)random() % 4);
		mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, r < 85 ? 0x3 : 0x1);
		mad_set_field(mad, 0, IB_SA_RMPP_SEGNUM_F, r < 85 ? 1 : 2 + (uint32_t)random() % 50);
		mad_set_field(mad, 0, IB_SA_RMPP_LEN_F, (uint32_t)random() % 5000);
		answer = 0;
	}
	return (int)answer;
}

/* The command line. */
struct opts {
	const char *ca;
	int port, strict;
	unsigned count, wait, seed;
};

/* What the requests brought. */
struct fuzz {
	unsigned long by_status[0x800];
	unsigned long odd, missing, quiet, quiet_expected, rmpp_ctl;
	int bad;
};

/* The options into o; bad ones exit 2. */
static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "count", 1, 0, 'n' }, { "seed", 1, 0, 's' }, { "wait", 1, 0, 'w' },
		{ "strict", 0, 0, 'S' },
		{ 0, 0, 0, 0 },
	};
	int c;

	o->count = 1000;
	o->wait = 300;
	o->seed = 1;
	while ((c = getopt_long(argc, argv, "C:P:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': o->ca = optarg; break;
		case 'P': o->port = (int)tool_num(PROG, "-P", optarg, 254); break;
		case 'n': o->count = (unsigned)tool_num(PROG, "--count", optarg, 10000000); break;
		case 's': o->seed = (unsigned)tool_num(PROG, "--seed", optarg, UINT32_MAX); break;
		case 'w': o->wait = (unsigned)tool_num(PROG, "--wait", optarg, 60000); break;
		case 'S': o->strict = 1; break;
		default:
			fprintf(stderr, "usage: sa-fuzz [-C ca] [-P port] [--count N] [--seed S] [--wait MS] [--strict]\n");
			exit(2);
		}
	}
}

/* Answer a to request i (m; `last`: the final NodeRecord query): its
 * status counted, and said when not allowed. */
static void count_answer(struct fuzz *f, uint8_t *a, uint8_t *m, unsigned i,
			 int last)
{
	unsigned st = mad_get_field(a, 0, IB_MAD_STATUS_F) & 0x7FFF;

	if (st < 0x800)
		f->by_status[st]++;
	if (!allowed(st)) {
		f->odd++;
		if (f->odd <= 5)
			printf("request %u: status 0x%04x not allowed (method 0x%x attr 0x%x)\n",
			       i, st, mad_get_field(m, 0, IB_MAD_METHOD_F),
			       mad_get_field(m, 0, IB_MAD_ATTRID_F));
	}
	if (last && st) {
		printf("final NodeRecord query: status 0x%04x\n", st);
		f->bad = 1;
	}
}

/* Wait until END (ms) for the answer to request i (m, TID tid) in rcv:
 * 1 if one came (RMPP transfer control is counted, not an answer). */
static int await_answer(struct fuzz *f, int fd, void *rcv, uint8_t *m,
			unsigned i, uint32_t tid, double end, int last)
{
	uint8_t *a = umad_get_mad(rcv);

	for (;;) {
		int len = IB_MAD_SIZE, left = (int)(end - tool_now_ms());

		if (left <= 0 || umad_recv(fd, rcv, &len, left) < 0)
			return 0;
		if (umad_status(rcv) ||
		    (uint32_t)mad_get_field64(a, 0, IB_MAD_TRID_F) != tid ||
		    !mad_get_field(a, 0, IB_MAD_RESPONSE_F))
			continue;
		if ((mad_get_field(a, 0, IB_SA_RMPP_FLAGS_F) & 1) &&
		    mad_get_field(a, 0, IB_SA_RMPP_TYPE_F) >= 2) {
			/* The receiver's side of an RMPP request we started
			 * (ACK, or STOP/ABORT of a broken one): transfer
			 * control, not an answer. */
			f->rmpp_ctl++;
			continue;
		}
		count_answer(f, a, m, i, last);
		/* A table answer may come in segments: one is enough. */
		return 1;
	}
}

/* Request i (m) that got no answer: counted, said for the first few. */
static void count_missing(struct fuzz *f, uint8_t *m, unsigned i, int last)
{
	f->missing++;
	if (f->missing <= 5)
		printf("request %u: no answer (class version %u method 0x%x attr 0x%x)\n",
		       i, mad_get_field(m, 0, IB_MAD_CLASSVER_F),
		       mad_get_field(m, 0, IB_MAD_METHOD_F),
		       mad_get_field(m, 0, IB_MAD_ATTRID_F));
	if (last) {
		printf("final NodeRecord query: no answer\n");
		f->bad = 1;
	}
}

/* The tally and the verdict (see the top comment): the exit code. */
static int report(struct fuzz *f, int strict)
{
	for (unsigned st = 0; st < 0x800; st++)
		if (f->by_status[st])
			printf("status 0x%04x %lu\n", st, f->by_status[st]);
	printf("rmpp-control %lu\n", f->rmpp_ctl);
	printf("answered-but-should-not %lu, no-answer %lu (expected %lu)\n",
	       f->quiet_expected - f->quiet, f->missing + f->quiet, f->quiet_expected);
	if (f->odd || (strict && (f->missing || f->quiet != f->quiet_expected)))
		f->bad = 1;
	printf("%s\n", f->bad ? "FAILED" : "ok");
	return f->bad;
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct fuzz f;
	struct tool_sa_port sp;
	void *bufs[2], *snd, *rcv;
	uint32_t tid_base;
	int rc;

	parse_args(argc, argv, &o);
	srandom(o.seed);
	if (tool_sa_open(PROG, o.ca, o.port, &sp, bufs, 2) < 0)
		return 4;
	snd = bufs[0];
	rcv = bufs[1];
	tid_base = (uint32_t)getpid() << 12;
	for (unsigned i = 0; i <= o.count; i++) {
		uint8_t *m = umad_get_mad(snd);
		uint32_t tid = tid_base + i;
		int must, got, last = i == o.count;

		if (!last) {
			must = make_request(m, tid);
		} else {
			/* Last: a plain NodeRecord Get for our own LID. */
			gmp_init_request(m, GMP_CLASS_SA, GMP_SA_CLASS_VERSION,
					 IB_MAD_METHOD_GET, IB_SA_ATTR_NODERECORD, 0, tid);
			mad_set_field64(m, 0, IB_SA_COMPMASK_F, 1);
			mad_set_field(m, IB_SA_DATA_OFFS, IB_SA_NR_LID_F, sp.base_lid);
			must = 1;
		}
		umad_set_addr(snd, sp.sm_lid, 1, 0, IB_DEFAULT_QP1_QKEY);
		if (umad_send(sp.fd, sp.agent, snd, IB_MAD_SIZE, 0, 0) < 0) {
			fprintf(stderr, "sa-fuzz: send failed\n");
			return 4;
		}
		got = await_answer(&f, sp.fd, rcv, m, i, tid,
				   tool_now_ms() + (must ? o.wait : o.wait / 6 + 1), last);
		if (!got && must)
			count_missing(&f, m, i, last);
		if (!must) {
			f.quiet_expected++;
			f.quiet += !got;
		}
	}
	rc = report(&f, o.strict);
	fflush(stdout);
	/* See sa_table_main.c: no unregister, no exit handlers under ibsim. */
	_exit(rc);
}
