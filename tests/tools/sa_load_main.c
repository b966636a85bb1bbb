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

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "count", 1, 0, 'n' }, { "window", 1, 0, 'w' },
		{ "timeout", 1, 0, 't' }, { "seed", 1, 0, 's' },
		{ "cpi", 0, 0, 'c' }, { "table", 0, 0, 'T' },
		{ "seconds", 1, 0, 'S' }, { 0, 0, 0, 0 },
	};
	const char *ca = NULL;
	int port = 0, c, fd, agent, cpi = 0, table = 0;
	double stop_ms = 0;
	unsigned count = 10000, window = 32, timeout = 2000, seed = 1, nlids = 0;
	uint16_t *lids;
	unsigned sent = 0, answered = 0, errors = 0, lost = 0, inflight = 0;
	struct slot slots[MAX_WINDOW] = { { 0 } };
	double *lat, t0, t1;
	struct tool_sa_port sp;
	void *bufs[2], *snd, *rcv;
	uint16_t sa_lid;
	uint32_t tid_next;

	while ((c = getopt_long(argc, argv, "C:P:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': ca = optarg; break;
		case 'P': port = (int)tool_num(PROG, "-P", optarg, 254); break;
		case 'n': count = (unsigned)tool_num(PROG, "--count", optarg, 100000000); break;
		case 'w': window = (unsigned)tool_num(PROG, "--window", optarg, MAX_WINDOW); break;
		case 't': timeout = (unsigned)tool_num(PROG, "--timeout", optarg, 600000); break;
		case 's': seed = (unsigned)tool_num(PROG, "--seed", optarg, UINT32_MAX); break;
		case 'c': cpi = 1; break;
		case 'T': table = 1; break;
		case 'S': stop_ms = 1e3 * (double)tool_num(PROG, "--seconds", optarg, 86400); break;
		default:
			fprintf(stderr, "usage: sa-load [-C ca] [-P port] [--count N] [--window W] [--timeout MS] [--seed S] [--cpi] [--table [--seconds S]] LID...\n");
			return 2;
		}
	}
	if (!window || !count || (!cpi && !table && argc - optind < 2)) {
		fprintf(stderr, "sa-load: need a window, a count and at least two LIDs (or --cpi)\n");
		return 2;
	}
	lids = calloc((size_t)(argc - optind) + 1, sizeof(*lids));
	lat = calloc(count, sizeof(*lat));
	if (!lids || !lat)
		return 4;
	for (int i = optind; i < argc; i++)
		lids[nlids++] = (uint16_t)tool_num(PROG, "LID", argv[i], 0xBFFF);
	srandom(seed);
	if (tool_sa_open(PROG, ca, port, &sp, bufs, 2) < 0)
		return 4;
	fd = sp.fd;
	agent = sp.agent;
	sa_lid = sp.sm_lid;
	snd = bufs[0];
	rcv = bufs[1];
	/* Slot in the low bits of the TID, a sequence above it. */
	tid_next = (uint32_t)getpid() << 20;
	t0 = tool_now_ms();
	while (answered + errors + lost < sent || sent < count) {
		double now = tool_now_ms();

		if (stop_ms && now - t0 > stop_ms && sent < count)
			count = sent;           /* --seconds: send no more */
		if (answered + errors + lost >= count && sent >= count)
			break;

		/* Fill the window. */
		while (inflight < window && sent < count) {
			uint8_t *m = umad_get_mad(snd);
			unsigned s;

			for (s = 0; s < window && slots[s].tid; s++)
				;
			tid_next += MAX_WINDOW;
			slots[s].tid = (tid_next & ~(uint32_t)(MAX_WINDOW - 1)) | s;
			slots[s].sent = tool_now_ms();
			memset(m, 0, IB_MAD_SIZE);
			mad_set_field(m, 0, IB_MAD_BASEVER_F, 1);
			mad_set_field(m, 0, IB_MAD_MGMTCLASS_F, IB_SA_CLASS);
			mad_set_field(m, 0, IB_MAD_CLASSVER_F, 2);
			mad_set_field(m, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
			mad_set_field64(m, 0, IB_MAD_TRID_F, slots[s].tid);
			if (table) {
				/* GetTable, ComponentMask 0: every PathRecord. */
				mad_set_field(m, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_TABLE);
				mad_set_field(m, 0, IB_MAD_ATTRID_F, IB_SA_ATTR_PATHRECORD);
			} else if (cpi) {
				mad_set_field(m, 0, IB_MAD_ATTRID_F, CLASS_PORT_INFO);
			} else {
				unsigned a = (unsigned)random() % nlids, b;

				do
					b = (unsigned)random() % nlids;
				while (b == a);
				mad_set_field(m, 0, IB_MAD_ATTRID_F, IB_SA_ATTR_PATHRECORD);
				mad_set_field64(m, 0, IB_SA_COMPMASK_F, PR_COMP_SLID | PR_COMP_DLID);
				mad_set_field(m, IB_SA_DATA_OFFS, IB_SA_PR_SLID_F, lids[a]);
				mad_set_field(m, IB_SA_DATA_OFFS, IB_SA_PR_DLID_F, lids[b]);
			}
			umad_set_addr(snd, sa_lid, 1, 0, IB_DEFAULT_QP1_QKEY);
			if (umad_send(fd, agent, snd, IB_MAD_SIZE, 0, 0) < 0) {
				fprintf(stderr, "sa-load: send failed\n");
				return 4;
			}
			sent++;
			inflight++;
		}
		/* Expire, then receive what came. */
		now = tool_now_ms();
		for (unsigned s = 0; s < window; s++)
			if (slots[s].tid && now - slots[s].sent > timeout) {
				slots[s].tid = 0;
				inflight--;
				lost++;
			}
		{
			int len = IB_MAD_SIZE;
			uint8_t *a = umad_get_mad(rcv);
			uint32_t tid;
			unsigned s;

			if (umad_recv(fd, rcv, &len, 10) < 0 || umad_status(rcv) ||
			    !mad_get_field(a, 0, IB_MAD_RESPONSE_F))
				continue;
			tid = (uint32_t)mad_get_field64(a, 0, IB_MAD_TRID_F);
			s = tid & (MAX_WINDOW - 1);
			if (s >= window || slots[s].tid != tid)
				continue;
			if (mad_get_field(a, 0, IB_MAD_STATUS_F))
				errors++;
			else
				lat[answered++] = tool_now_ms() - slots[s].sent;
			slots[s].tid = 0;
			inflight--;
		}
	}
	t1 = tool_now_ms();
	{
		double sum = 0, secs = (t1 - t0) / 1e3;

		qsort(lat, answered, sizeof(*lat), cmp_d);
		for (unsigned i = 0; i < answered; i++)
			sum += lat[i];
		printf("queries %u answered %u errors %u lost %u seconds %.3f qps %.0f latency_ms mean %.3f p50 %.3f p99 %.3f max %.3f\n",
		       count, answered, errors, lost, secs,
		       secs > 0 ? answered / secs : 0.0,
		       answered ? sum / answered : 0.0,
		       answered ? lat[answered / 2] : 0.0,
		       answered ? lat[(size_t)(answered * 0.99)] : 0.0,
		       answered ? lat[answered - 1] : 0.0);
	}
	fflush(stdout);
	/* As sa_table_main.c: no unregister, no exit handlers under ibsim. */
	_exit(errors || lost ? 1 : 0);
}
