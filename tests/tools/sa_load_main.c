/* sa-load: SA throughput and latency with many queries outstanding, for the
 * benchmarks (bench/sa_bench.sh). One process keeps WINDOW requests in
 * flight: PathRecord Gets between random pairs of the given LIDs, or, with
 * --cpi, ClassPortInfo Gets (one fixed record: the floor of what any SA can
 * do through this transport).
 *
 *   sa-load [-C ca] [-P port] [--count N] [--window W] [--timeout MS]
 *           [--seed S] [--cpi] LID...
 *   sa-load ... --table [--seconds S]
 *
 * --table sends PathRecord GetTables with an empty ComponentMask (every
 * path of the subnet) and never ACKs the RMPP answers: the flood a host
 * can send to starve an SM (issue 26), for tests. --seconds stops
 * sending after S seconds (what is in flight is still waited for).
 *
 * Output, one line: "queries N answered A errors E lost L seconds T qps Q
 * latency_ms mean M p50 P p99 R max X". A request unanswered after the
 * timeout is lost (no retries: a benchmark measures, it does not hide
 * loss). Exit 0 when every query was answered with status 0, 1 otherwise,
 * 2 bad arguments, 4 no SA. */
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

static const char PROG[] = "sa-load";

#define MAX_WINDOW 1024
#define PR_COMP_DLID (1ull << 4)
#define PR_COMP_SLID (1ull << 5)

struct slot {
	uint32_t tid;               /* 0: free */
	double sent;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The command line. */
struct opts {
	const char *ca;
	int port, cpi, table;
	double stop_ms;             /* --seconds, in ms; 0: none */
	unsigned count, window, timeout, seed;
};

/* A run: the port, the requests in flight and what came of them. */
struct load {
	const struct opts *o;
	unsigned count;             /* queries to send (--seconds lowers it) */
	int fd, agent;
	uint16_t sa_lid;
	void *snd, *rcv;
	uint16_t *lids;
	unsigned nlids;
	uint32_t tid_next;
	struct slot slots[MAX_WINDOW];
	unsigned sent, answered, errors, lost, inflight;
	double *lat;                /* latency of each answer, ms */
};

/* The options into o; bad ones exit 2. */
static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "count", 1, 0, 'n' }, { "window", 1, 0, 'w' },
		{ "timeout", 1, 0, 't' }, { "seed", 1, 0, 's' },
		{ "cpi", 0, 0, 'c' }, { "table", 0, 0, 'T' },
		{ "seconds", 1, 0, 'S' }, { 0, 0, 0, 0 },
	};
	int c;

	o->count = 10000;
	o->window = 32;
	o->timeout = 2000;
	o->seed = 1;
	while ((c = getopt_long(argc, argv, "C:P:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': o->ca = optarg; break;
		case 'P': o->port = (int)tool_num(PROG, "-P", optarg, 254); break;
		case 'n': o->count = (unsigned)tool_num(PROG, "--count", optarg, 100000000); break;
		case 'w': o->window = (unsigned)tool_num(PROG, "--window", optarg, MAX_WINDOW); break;
		case 't': o->timeout = (unsigned)tool_num(PROG, "--timeout", optarg, 600000); break;
		case 's': o->seed = (unsigned)tool_num(PROG, "--seed", optarg, UINT32_MAX); break;
		case 'c': o->cpi = 1; break;
		case 'T': o->table = 1; break;
		case 'S': o->stop_ms = 1e3 * (double)tool_num(PROG, "--seconds", optarg, 86400); break;
		default:
			fprintf(stderr, "usage: sa-load [-C ca] [-P port] [--count N] [--window W] [--timeout MS] [--seed S] [--cpi] [--table [--seconds S]] LID...\n");
			exit(2);
		}
	}
	if (!o->window || !o->count || (!o->cpi && !o->table && argc - optind < 2)) {
		fprintf(stderr, "sa-load: need a window, a count and at least two LIDs (or --cpi)\n");
		exit(2);
	}
}

/* Request m of slot s: a PathRecord GetTable (--table), ClassPortInfo
 * (--cpi), or a PathRecord between two random LIDs. */
static void build_query(struct load *l, uint8_t *m, unsigned s)
{
	const struct opts *o = l->o;
	unsigned a, b;

	/* --table: GetTable, ComponentMask 0: every PathRecord. */
	gmp_init_request(m, GMP_CLASS_SA, GMP_SA_CLASS_VERSION,
			 o->table ? IB_MAD_METHOD_GET_TABLE : IB_MAD_METHOD_GET,
			 o->cpi && !o->table ? CLASS_PORT_INFO : IB_SA_ATTR_PATHRECORD,
			 0, l->slots[s].tid);
	if (o->table || o->cpi)
		return;
	a = (unsigned)random() % l->nlids;
	do
		b = (unsigned)random() % l->nlids;
	while (b == a);
	mad_set_field64(m, 0, IB_SA_COMPMASK_F, PR_COMP_SLID | PR_COMP_DLID);
	mad_set_field(m, IB_SA_DATA_OFFS, IB_SA_PR_SLID_F, l->lids[a]);
	mad_set_field(m, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F, l->lids[b]);
}

/* Send until the window is full or the count sent: 0, or -1 once a
 * failed send is said. */
static int fill_window(struct load *l)
{
	unsigned window = l->o->window;

	while (l->inflight < window && l->sent < l->count) {
		unsigned s;

		for (s = 0; s < window && l->slots[s].tid; s++)
			;
		l->tid_next += MAX_WINDOW;
		l->slots[s].tid = (l->tid_next & ~(uint32_t)(MAX_WINDOW - 1)) | s;
		l->slots[s].sent = tool_now_ms();
		build_query(l, umad_get_mad(l->snd), s);
		umad_set_addr(l->snd, l->sa_lid, 1, 0, IB_DEFAULT_QP1_QKEY);
		if (umad_send(l->fd, l->agent, l->snd, IB_MAD_SIZE, 0, 0) < 0) {
			fprintf(stderr, "sa-load: send failed\n");
			return -1;
		}
		l->sent++;
		l->inflight++;
	}
	return 0;
}

/* Requests past the timeout are lost; then one answer, if it comes
 * within 10 ms, frees its slot. */
static void expire_and_receive(struct load *l)
{
	double now = tool_now_ms();
	int len = IB_MAD_SIZE;
	uint8_t *a = umad_get_mad(l->rcv);
	uint32_t tid;
	unsigned s;

	for (s = 0; s < l->o->window; s++)
		if (l->slots[s].tid && now - l->slots[s].sent > l->o->timeout) {
			l->slots[s].tid = 0;
			l->inflight--;
			l->lost++;
		}
	if (umad_recv(l->fd, l->rcv, &len, 10) < 0 || umad_status(l->rcv) ||
	    !mad_get_field(a, 0, IB_MAD_RESPONSE_F))
		return;
	tid = (uint32_t)mad_get_field64(a, 0, IB_MAD_TRID_F);
	s = tid & (MAX_WINDOW - 1);
	if (s >= l->o->window || l->slots[s].tid != tid)
		return;
	if (mad_get_field(a, 0, IB_MAD_STATUS_F))
		l->errors++;
	else
		l->lat[l->answered++] = tool_now_ms() - l->slots[s].sent;
	l->slots[s].tid = 0;
	l->inflight--;
}

/* The one output line (see the top comment). */
static void print_summary(struct load *l, double ms)
{
	double sum = 0, secs = ms / 1e3;
	unsigned answered = l->answered;

	qsort(l->lat, answered, sizeof(*l->lat), cmp_d);
	for (unsigned i = 0; i < answered; i++)
		sum += l->lat[i];
	printf("queries %u answered %u errors %u lost %u seconds %.3f qps %.0f latency_ms mean %.3f p50 %.3f p99 %.3f max %.3f\n",
	       l->count, answered, l->errors, l->lost, secs,
	       secs > 0 ? answered / secs : 0.0,
	       answered ? sum / answered : 0.0,
	       answered ? l->lat[answered / 2] : 0.0,
	       answered ? l->lat[(size_t)(answered * 0.99)] : 0.0,
	       answered ? l->lat[answered - 1] : 0.0);
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct load l;
	struct tool_sa_port sp;
	void *bufs[2];
	double t0;

	parse_args(argc, argv, &o);
	l.o = &o;
	l.count = o.count;
	l.lids = calloc((size_t)(argc - optind) + 1, sizeof(*l.lids));
	l.lat = calloc(o.count, sizeof(*l.lat));
	if (!l.lids || !l.lat)
		return 4;
	for (int i = optind; i < argc; i++)
		l.lids[l.nlids++] = (uint16_t)tool_num(PROG, "LID", argv[i], 0xBFFF);
	srandom(o.seed);
	if (tool_sa_open(PROG, o.ca, o.port, &sp, bufs, 2) < 0)
		return 4;
	l.fd = sp.fd;
	l.agent = sp.agent;
	l.sa_lid = sp.sm_lid;
	l.snd = bufs[0];
	l.rcv = bufs[1];
	/* Slot in the low bits of the TID, a sequence above it. */
	l.tid_next = (uint32_t)getpid() << 20;
	t0 = tool_now_ms();
	while (l.answered + l.errors + l.lost < l.sent || l.sent < l.count) {
		if (o.stop_ms && tool_now_ms() - t0 > o.stop_ms && l.sent < l.count)
			l.count = l.sent;       /* --seconds: send no more */
		if (l.answered + l.errors + l.lost >= l.count && l.sent >= l.count)
			break;
		if (fill_window(&l) < 0)
			return 4;
		expire_and_receive(&l);
	}
	print_summary(&l, tool_now_ms() - t0);
	fflush(stdout);
	/* As sa_table_main.c: no unregister, no exit handlers under ibsim. */
	_exit(l.errors || l.lost ? 1 : 0);
}
