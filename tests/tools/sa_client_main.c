/* sa-client: one SubnAdm request from the command line, for tests that need
 * the SA methods the diag tools never send (saquery only reads):
 * ServiceRecord Set, Get and Delete; InformInfo subscribe and unsubscribe,
 * and listening for the Reports a subscription brings; a multicast join
 * that creates a group, and its leave (MCMemberRecord Set/Delete). It runs the same
 * against ibsm and OpenSM, so a test can hold both SMs to one outcome.
 *
 *   sa-client [-C ca] [-P port] [-k sm_key] sr-set|sr-get|sr-delete
 *             [--id N] [--gid GID|own] [--pkey N] [--lease S] [--key HEX]
 *             [--name S] [--data8 N] [--mask N]
 *   sa-client [-C ca] [-P port] [-k sm_key] ii-set|ii-unset
 *             [--trap N] [--gid GID|own] [--lid-begin N] [--lid-end N]
 *             [--generic 0|1] [--type N] [--producer N] [--qpn N]
 *             [--subscribe N] [--listen SECONDS] [--issm] [--ignore-reports]
 *   sa-client [-C ca] [-P port] mc-join|mc-leave [--mgid MGID] [--gid GID]
 *   sa-client [-C ca] [-P port] get --attr N [--mask N]
 *             (a Get of any attribute with a zero record: how an SA answers
 *             an attribute it does not serve, which saquery cannot ask)
 *   any of them with --count N: N requests in a row on one open port
 *   (a flood: sr-set adds k to the ServiceID, mc-join with an MGID adds k
 *   to its last 32 bits, MGID 0 asks for a new SM-assigned group each
 *   time, ii-set takes k from the LID range's end); prints "sent N ok A" and "status 0xNNNN C" per error status
 *   instead of records, and exits 0 only if all were answered with 0.
 *
 * ServiceRecord: the ComponentMask holds the fields given, unless --mask
 * sets it. InformInfo defaults as the usual clients send them: GID 0, LID
 * range 0xFFFF (all), generic, type, trap and producer 0xFFFF.. (any).
 * --listen keeps the port open after subscribing and prints every Report
 * ("report trap N issuer LID [gid G]"), answering each with ReportResponse.
 * Under ibsim, Reports reach the client only with --issm (see transact);
 * such a client answers SMInfo queries as a NOTACTIVE SM while it listens.
 * --ignore-reports: --listen receives the Reports and answers none (the
 * silent subscriber of issue 26), printing only "reports N". --listen
 * follows a --count run too, when every request was answered with 0.
 * On an answer it prints the record, one "Field value" per line, and exits
 * 0; an error status prints "status 0xNNNN" and exits 3; no answer exits 4;
 * bad arguments exit 2. ServiceRecord and Notice fields are libibmad's;
 * libibmad has none for InformInfo, so that record is laid out with ibsm's
 * own SA table (sa/sa_layout.c); saquery IIR is the independent reader. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "mad/smp.h"
#include "sa/sa_layout.h"
#include "tests/tools/tool_util.h"

static const char PROG[] = "sa-client";

/* ServiceRecord component bits (sa/sa_layout.h numbers them the same). */
enum { SR_DATA8 = 7 };
/* MCMemberRecord ComponentMask bits (IBA 15.2.5.17). */
#define MCM_MGID (1ull << 0)
#define MCM_PORTGID (1ull << 1)
#define MCM_QKEY (1ull << 2)
#define MCM_TCLASS (1ull << 6)
#define MCM_PKEY (1ull << 7)
#define MCM_SL (1ull << 12)
#define MCM_FLOW (1ull << 13)
#define MCM_JOIN_STATE (1ull << 16)

struct req {
	int method;
	unsigned attr;
	uint64_t mask;
	uint8_t rec[IB_SA_DATA_SIZE];
	int listen_s;               /* ii-set: wait this long for Reports */
	int issm;                   /* claim IsSM first (ibsim, see transact) */
	unsigned count;             /* requests in a row (--count) */
	int ignore;                 /* --listen without ReportResponses */
};

static void usage(void)
{
	fprintf(stderr, "usage: sa-client [-C ca] [-P port] [-k sm_key] sr-set|sr-get|sr-delete\n"
		"       [--id N] [--gid GID|own] [--pkey N] [--lease S] [--key HEX]\n"
		"       [--name S] [--data8 N] [--mask N]\n"
		"   or: sa-client [-C ca] [-P port] [-k sm_key] ii-set|ii-unset [--trap N]\n"
		"       [--gid GID|own] [--lid-begin N] [--lid-end N] [--generic 0|1]\n"
		"       [--type N] [--producer N] [--qpn N] [--subscribe N] [--listen S] [--issm]\n"
		"       [--ignore-reports]\n"
		"   or: sa-client [-C ca] [-P port] mc-join|mc-leave [--mgid MGID] [--gid GID]\n"
		"   or: sa-client [-C ca] [-P port] get --attr N [--mask N]\n"
		"   any with --count N: N requests in a row, a tally instead of records\n");
	exit(2);
}

static void hex_bytes(const char *opt, const char *s, uint8_t *out, size_t n)
{
	size_t len;

	if (!strncmp(s, "0x", 2))
		s += 2;
	len = strlen(s);
	if (len == 0 || len > 2 * n || strspn(s, "0123456789abcdefABCDEF") != len) {
		fprintf(stderr, "sa-client: %s: want up to %zu hex bytes, got \"%s\"\n",
			opt, n, s);
		exit(2);
	}
	memset(out, 0, n);
	/* Right-aligned, as a big-endian number. */
	for (size_t i = 0; i < len; i++) {
		char c = s[len - 1 - i];
		int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;

		out[n - 1 - i / 2] |= (uint8_t)(v << (i % 2 ? 4 : 0));
	}
}

static void own_gid(const char *ca, int port, uint8_t gid[16])
{
	umad_port_t p;
	uint64_t prefix, guid;

	if (umad_get_port(ca, port, &p) < 0) {
		fprintf(stderr, "sa-client: cannot read local port %s:%d\n",
			ca ? ca : "(default)", port);
		exit(4);
	}
	prefix = p.gid_prefix;
	guid = p.port_guid;
	memcpy(gid, &prefix, 8);      /* both already in network order */
	memcpy(gid + 8, &guid, 8);
	umad_release_port(&p);
}

static void print_rec(uint8_t *r)
{
	char buf[256];
	uint8_t gid[16], key[16], name[65] = { 0 }, data[64];

	printf("ServiceID 0x%016llx\n",
	       (unsigned long long)mad_get_field64(r, 0, IB_SA_SR_ID_F));
	mad_get_array(r, 0, IB_SA_SR_GID_F, gid);
	printf("ServiceGID %s\n", inet_ntop(AF_INET6, gid, buf, sizeof(buf)));
	printf("ServiceP_Key 0x%04x\n", mad_get_field(r, 0, IB_SA_SR_PKEY_F));
	printf("ServiceLease %u\n", mad_get_field(r, 0, IB_SA_SR_LEASE_F));
	mad_get_array(r, 0, IB_SA_SR_KEY_F, key);
	printf("ServiceKey 0x");
	for (int i = 0; i < 16; i++)
		printf("%02x", key[i]);
	printf("\n");
	mad_get_array(r, 0, IB_SA_SR_NAME_F, name);
	printf("ServiceName %s\n", (char *)name);
	mad_get_array(r, 0, IB_SA_SR_DATA_F, data);
	printf("ServiceData8.0 %u\n", data[0]);
}

static void print_ii(const uint8_t *r)
{
	char buf[64];

	printf("GID %s\n", inet_ntop(AF_INET6, sa_comp_ptr(&sa_inform_rec, r, II_GID),
				     buf, sizeof(buf)));
	printf("LIDRange %llu-%llu\n",
	       (unsigned long long)sa_get(&sa_inform_rec, r, II_LID_BEGIN),
	       (unsigned long long)sa_get(&sa_inform_rec, r, II_LID_END));
	printf("IsGeneric %llu\n", (unsigned long long)sa_get(&sa_inform_rec, r, II_IS_GENERIC));
	printf("Subscribe %llu\n", (unsigned long long)sa_get(&sa_inform_rec, r, II_SUBSCRIBE));
	printf("Type 0x%llx\n", (unsigned long long)sa_get(&sa_inform_rec, r, II_TYPE));
	printf("TrapNumber %llu\n", (unsigned long long)sa_get(&sa_inform_rec, r, II_TRAP));
	printf("ProducerType 0x%llx\n", (unsigned long long)sa_get(&sa_inform_rec, r, II_PRODUCER));
}

static void print_mcm(uint8_t *r)
{
	char buf[64];

	printf("MGID %s\n", inet_ntop(AF_INET6, r, buf, sizeof(buf)));
	printf("MLID 0x%04x\n", mad_get_field(r, 0, IB_SA_MCM_MLID_F));
	printf("JoinState %u\n", mad_get_field(r, 0, IB_SA_MCM_JOIN_STATE_F));
}

/* The SMI agents of --issm (-1: none), and our port's GUID. */
static int smi_lid = -1, smi_dr = -1;
static uint64_t own_guid;

/* With --issm the port is an SM to the master, which asks it for SMInfo
 * in every heavy sweep: answer as an SM that is NOTACTIVE (IBA 14.4.1),
 * so the master's sweep does not wait for our timeouts. 1 if answered. */
static int answer_sminfo(int fd, void *buf)
{
	uint8_t *mad = umad_get_mad(buf);
	ib_mad_addr_t *a = umad_get_mad_addr(buf);
	int dr = smp_class(mad) == SMP_CLASS_DR;
	struct smp_sminfo si = { .guid = own_guid, .state = SMP_SM_NOTACTIVE };
	uint16_t slid = ntohs(a->lid);

	if ((smp_class(mad) != SMP_CLASS_LID && !dr) || smp_is_response(mad) ||
	    smp_attr(mad) != IB_ATTR_SMINFO)
		return 0;
	smp_make_response(mad, 0);
	smp_set_sminfo(smp_data(mad), &si);
	umad_set_addr(buf, dr ? 0xffff : slid, 0, 0, 0);
	umad_send(fd, dr ? smi_dr : smi_lid, buf, IB_MAD_SIZE, 0, 0);
	return 1;
}

/* Reports for `secs` seconds: each printed and answered (ReportResponse,
 * same TID, back to where it came from), or with `ignore` only counted
 * (a subscriber that never answers). Returns how many came. */
static int listen_reports(int fd, int agent, void *buf, int secs, int ignore)
{
	struct timespec t0, t;
	int n = 0, len, left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint8_t *mad = umad_get_mad(buf);
		char g[64];

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = secs * 1000 - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					   (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			break;
		len = IB_MAD_SIZE;
		if (umad_recv(fd, buf, &len, left) < 0 || umad_status(buf))
			continue;
		if (answer_sminfo(fd, buf))
			continue;
		if (mad_get_field(mad, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_REPORT ||
		    mad_get_field(mad, 0, IB_MAD_ATTRID_F) != IB_SA_ATTR_NOTICE)
			continue;
		n++;
		if (ignore)
			continue;
		printf("report trap %u issuer %u",
		       mad_get_field(mad, IB_SA_DATA_OFFS, IB_NOTICE_TRAP_NUMBER_F),
		       mad_get_field(mad, IB_SA_DATA_OFFS, IB_NOTICE_ISSUER_LID_F));
		if (mad_get_field(mad, IB_SA_DATA_OFFS, IB_NOTICE_TRAP_NUMBER_F) >= 64 &&
		    mad_get_field(mad, IB_SA_DATA_OFFS, IB_NOTICE_TRAP_NUMBER_F) <= 67)
			/* Traps 64-67: the (M)GID is DataDetails bytes 6..21. */
			printf(" gid %s", inet_ntop(AF_INET6, mad + IB_SA_DATA_OFFS + 16,
						    g, sizeof(g)));
		printf("\n");
		fflush(stdout);
		mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_REPORT_RESPONSE & 0x7f);
		mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
		umad_send(fd, agent, buf, IB_MAD_SIZE, 0, 0);
	}
	return n;
}

/* Send the request and wait for its answer (same TID), with libibumad's
 * timeout and retries. libibmad builds the MAD; the SM_Key is then written
 * where IBA 15.2.1.1 puts it (IB_SA_MKEY_F), because older libibmad's
 * mad_encode wrote rpc.mkey at the common-MAD M_Key offset, which in an SA
 * MAD is the RMPP header, so the SA never saw it. */
/* Request k of a run (sa_client --count): send, wait for its answer in
 * rcv. 0 (answered, status 0), 3 (error status), 4 (no answer, *err or
 * a message printed). */
static int one_request(int fd, int agent, struct req *q, unsigned k,
		       uint64_t smkey, ib_portid_t *sa, void *snd, void *rcv,
		       const char **err)
{
	ib_rpc_t rpc = { 0 };
	uint8_t rec[IB_SA_DATA_SIZE], *mad;
	int len, r;

	memcpy(rec, q->rec, sizeof(rec));
	if (k && q->attr == IB_SA_ATTR_SERVICERECORD)
		mad_set_field64(rec, 0, IB_SA_SR_ID_F,
				mad_get_field64(rec, 0, IB_SA_SR_ID_F) + k);
	/* InformInfo: the LID range's end one lower each time, so each is a
	 * subscription of its own (the SA keeps the requester's QPN, not
	 * the record's): give --lid-begin and an --lid-end N above. */
	if (k && q->attr == IB_SA_ATTR_INFORMINFO)
		sa_put(&sa_inform_rec, rec, II_LID_END,
		       sa_get(&sa_inform_rec, rec, II_LID_END) - k);
	if (k && q->attr == IB_SA_ATTR_MCRECORD) {
		uint8_t mgid[16], zero[16] = { 0 };
		uint32_t low;

		mad_get_array(rec, 0, IB_SA_MCM_MGID_F, mgid);
		if (memcmp(mgid, zero, 16)) {
			low = ((uint32_t)mgid[12] << 24 | (uint32_t)mgid[13] << 16 |
			       (uint32_t)mgid[14] << 8 | mgid[15]) + k;
			for (int i = 0; i < 4; i++)
				mgid[12 + i] = (uint8_t)(low >> (24 - 8 * i));
			mad_set_array(rec, 0, IB_SA_MCM_MGID_F, mgid);
		}
	}
	rpc.mgtclass = IB_SA_CLASS;
	rpc.method = q->method;
	rpc.attr.id = q->attr;
	rpc.mask = q->mask;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.datasz = IB_SA_DATA_SIZE;
	if (mad_build_pkt(snd, &rpc, sa, NULL, rec) < 0) {
		*err = "cannot build the MAD";
		return 4;
	}
	mad = umad_get_mad(snd);
	mad_set_field(mad, 0, IB_SA_RMPP_VERS_F, 0);
	mad_set_field(mad, 0, IB_SA_RMPP_TYPE_F, 0);
	mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, 0);
	mad_set_field64(mad, 0, IB_SA_MKEY_F, smkey);
	if (umad_send(fd, agent, snd, IB_MAD_SIZE, 1000, 3) < 0) {
		*err = "send failed";
		return 4;
	}
	for (;;) {
		len = IB_MAD_SIZE;
		r = umad_recv(fd, rcv, &len, 5000);
		if (r < 0 || umad_status(rcv)) {
			fprintf(stderr, "sa-client: no answer from the SA at LID %d (%s)\n",
				sa->lid, strerror(r < 0 ? -r : umad_status(rcv)));
			return 4;
		}
		/* The upper 32 TID bits belong to the (kernel or umad2sim)
		 * agent layer; ours are the lower 32. */
		if ((uint32_t)mad_get_field64(umad_get_mad(rcv), 0, IB_MAD_TRID_F) ==
		    (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F))
			break;
	}
	mad = umad_get_mad(rcv);
	r = mad_get_field(mad, 0, IB_MAD_STATUS_F);
	if (r) {
		if (q->count == 1)
			printf("status 0x%04x\n", r);
		return 3;
	}
	if (q->count == 1) {
		if (q->attr == IB_SA_ATTR_INFORMINFO)
			print_ii(mad + IB_SA_DATA_OFFS);
		else if (q->attr == IB_SA_ATTR_MCRECORD)
			print_mcm(mad + IB_SA_DATA_OFFS);
		else
			print_rec(mad + IB_SA_DATA_OFFS);
	}
	return 0;
}

/* The statuses of a --count run (the status code is bits 8..14). */
struct tally {
	unsigned n, ok, by_code[128];
};

static void tally(struct tally *t, int status)
{
	t->n++;
	if (!status)
		t->ok++;
	else
		t->by_code[(status >> 8) & 127]++;
}

static int tally_print(const struct tally *t)
{
	printf("sent %u ok %u\n", t->n, t->ok);
	for (unsigned i = 0; i < 128; i++)
		if (t->by_code[i])
			printf("status 0x%04x %u\n", i << 8, t->by_code[i]);
	return t->ok == t->n ? 0 : 3;
}

static int transact(const char *ca, int port, struct req *q, uint64_t smkey,
		    ib_portid_t *sa)
{
	struct tally t = { 0 };
	/* Slack: under ibsim, umad_size() is umad2sim's, and it need not be
	 * the same before and after the port is opened (measured: 56, 64). */
	size_t bufsz = umad_size() + IB_MAD_SIZE + 256;
	void *snd = umad_alloc(1, bufsz), *rcv = umad_alloc(1, bufsz);
	const char *err = NULL;
	int fd = -1, sfd = -1, agent = -1, rc = 4;

	if (!snd || !rcv) {
		err = "out of memory";
		goto out;
	}
	fd = umad_open_port(ca, port);
	if (fd < 0) {
		err = "cannot open the local port";
		goto out;
	}
	if (q->issm) {
		/* --issm (ibsim only): a Report is a request to QP1, and
		 * ibsim hands those only to a client that says it is an SM;
		 * such a client is sent SMPs too (other SMs' SMInfo
		 * queries), and umad2sim ends a process that has no agent for
		 * a class it receives. So: agents for both SMI classes
		 * first (their MADs are left unanswered), then open the issm
		 * device, which umad2sim turns into "this client is an SM".
		 * Never on a real port: there it would claim IsSM for real. */
		char issm[256];

		long get[16 / sizeof(long)] = { 0 };
		umad_port_t up;

		/* SubnGet/Set(SMInfo) come to us as to an SM: answered
		 * (NOTACTIVE) while we listen, see answer_sminfo. */
		((uint8_t *)get)[0] = (1 << IB_MAD_METHOD_GET) | (1 << IB_MAD_METHOD_SET);
		smi_lid = umad_register(fd, IB_SMI_CLASS, 1, 0, get);
		smi_dr = umad_register(fd, IB_SMI_DIRECT_CLASS, 1, 0, get);
		if (umad_get_port(ca, port, &up) == 0) {
			own_guid = be64toh(up.port_guid);
			umad_release_port(&up);
		}
		if (umad_get_issm_path(ca, port, issm, sizeof(issm)) < 0)
			snprintf(issm, sizeof(issm), "/dev/infiniband/issm0");
		sfd = open(issm, O_RDWR);
		if (sfd < 0) {
			err = "cannot open the issm device (--issm is for ibsim)";
			goto out;
		}
	}
	{
		/* Reports are requests to us: ask for the method. */
		long methods[16 / sizeof(long)] = { 0 };

		methods[IB_MAD_METHOD_REPORT / (8 * sizeof(long))] |=
			1L << (IB_MAD_METHOD_REPORT % (8 * sizeof(long)));
		agent = umad_register(fd, IB_SA_CLASS, 2, 1, methods);
	}
	if (agent < 0) {
		err = "cannot register an SA agent";
		goto out;
	}
	for (unsigned k = 0; k < q->count && !err; k++) {
		rc = one_request(fd, agent, q, k, smkey, sa, snd, rcv, &err);
		if (rc == 4)
			break;
		if (q->count > 1)
			tally(&t, rc == 3 ? mad_get_field(umad_get_mad(rcv), 0, IB_MAD_STATUS_F) : 0);
	}
	if (q->count > 1 && rc != 4)
		rc = tally_print(&t);
	if (rc == 0 && q->listen_s > 0) {
		fflush(stdout);
		printf("reports %d\n", listen_reports(fd, agent, rcv, q->listen_s,
						       q->ignore));
	}
out:
	if (err)
		fprintf(stderr, "sa-client: %s\n", err);
	if (agent >= 0)
		umad_unregister(fd, agent);
	if (sfd >= 0)
		close(sfd);
	if (fd >= 0)
		umad_close_port(fd);
	umad_free(snd);
	umad_free(rcv);
	return rc;
}

/* The command line, as far as it is not the request itself yet. */
struct opts {
	const char *ca;
	int port;
	uint64_t smkey;
	uint8_t gid[16];            /* --gid */
	int have_gid;
	int subscribe;              /* --subscribe; -1: by the verb */
	unsigned attr;              /* --attr (get) */
	uint8_t mgid[16];           /* --mgid */
	uint8_t ii[IB_SA_DATA_SIZE]; /* the InformInfo options */
};

/* A ServiceRecord option into the request: 1, or 0 if C is not one. */
static int sr_option(int c, struct req *q)
{
	uint8_t b[64];

	switch (c) {
	case 'i':
		mad_set_field64(q->rec, 0, IB_SA_SR_ID_F, tool_num(PROG, "--id", optarg, UINT64_MAX));
		q->mask |= 1ull << SR_ID;
		break;
	case 'p':
		mad_set_field(q->rec, 0, IB_SA_SR_PKEY_F, (uint32_t)tool_num(PROG, "--pkey", optarg, 0xFFFF));
		q->mask |= 1ull << SR_PKEY;
		break;
	case 'l':
		mad_set_field(q->rec, 0, IB_SA_SR_LEASE_F, (uint32_t)tool_num(PROG, "--lease", optarg, UINT32_MAX));
		q->mask |= 1ull << SR_LEASE;
		break;
	case 'K':
		hex_bytes("--key", optarg, b, 16);
		mad_set_array(q->rec, 0, IB_SA_SR_KEY_F, b);
		q->mask |= 1ull << SR_KEY;
		break;
	case 'n':
		if (strlen(optarg) > 64) {
			fprintf(stderr, "sa-client: --name: longer than 64 bytes\n");
			exit(2);
		}
		memset(b, 0, sizeof(b));
		memcpy(b, optarg, strlen(optarg));
		mad_set_array(q->rec, 0, IB_SA_SR_NAME_F, b);
		q->mask |= 1ull << SR_NAME;
		break;
	case 'd':
		memset(b, 0, sizeof(b));
		b[0] = (uint8_t)tool_num(PROG, "--data8", optarg, 255);
		mad_set_array(q->rec, 0, IB_SA_SR_DATA_F, b);
		q->mask |= 1ull << SR_DATA8;
		break;
	case 'm':
		q->mask = tool_num(PROG, "--mask", optarg, UINT64_MAX);
		break;
	default:
		return 0;
	}
	return 1;
}

/* An InformInfo option (or one of listening for Reports): 1, or 0 if C
 * is not one. */
static int ii_option(int c, struct opts *o, struct req *q)
{
	uint8_t *ii = o->ii;

	switch (c) {
	case 't': sa_put(&sa_inform_rec, ii, II_TRAP, tool_num(PROG, "--trap", optarg, 0xFFFF)); break;
	case 'b': sa_put(&sa_inform_rec, ii, II_LID_BEGIN, tool_num(PROG, "--lid-begin", optarg, 0xFFFF)); break;
	case 'e': sa_put(&sa_inform_rec, ii, II_LID_END, tool_num(PROG, "--lid-end", optarg, 0xFFFF)); break;
	case 'G': sa_put(&sa_inform_rec, ii, II_IS_GENERIC, tool_num(PROG, "--generic", optarg, 1)); break;
	case 'T': sa_put(&sa_inform_rec, ii, II_TYPE, tool_num(PROG, "--type", optarg, 0xFFFF)); break;
	case 'r': sa_put(&sa_inform_rec, ii, II_PRODUCER, tool_num(PROG, "--producer", optarg, 0xFFFFFF)); break;
	case 'q': sa_put(&sa_inform_rec, ii, II_QPN, tool_num(PROG, "--qpn", optarg, 0xFFFFFF)); break;
	case 's': o->subscribe = (int)tool_num(PROG, "--subscribe", optarg, 255); break;
	case 'L': q->listen_s = (int)tool_num(PROG, "--listen", optarg, 3600); break;
	case 'I': q->issm = 1; break;
	case 'N': q->ignore = 1; break;
	default: return 0;
	}
	return 1;
}

/* The options into o and q; bad ones exit 2. Returns the verb. */
static const char *parse_args(int argc, char **argv, struct opts *o, struct req *q)
{
	static const struct option lo[] = {
		{ "id", 1, 0, 'i' }, { "gid", 1, 0, 'g' }, { "pkey", 1, 0, 'p' },
		{ "lease", 1, 0, 'l' }, { "key", 1, 0, 'K' }, { "name", 1, 0, 'n' },
		{ "data8", 1, 0, 'd' }, { "mask", 1, 0, 'm' },
		{ "trap", 1, 0, 't' }, { "lid-begin", 1, 0, 'b' },
		{ "lid-end", 1, 0, 'e' }, { "generic", 1, 0, 'G' },
		{ "type", 1, 0, 'T' }, { "producer", 1, 0, 'r' },
		{ "qpn", 1, 0, 'q' }, { "subscribe", 1, 0, 's' },
		{ "listen", 1, 0, 'L' }, { "issm", 0, 0, 'I' },
		{ "mgid", 1, 0, 'M' }, { "count", 1, 0, 'c' }, { "attr", 1, 0, 'A' },
		{ "ignore-reports", 0, 0, 'N' },
		{ 0, 0, 0, 0 },
	};
	int c;

	o->subscribe = -1;
	/* One pass: GNU getopt moves the verb, the one operand, to the end. */
	while ((c = getopt_long(argc, argv, "C:P:k:", lo, NULL)) != -1) {
		uint8_t b[16];

		switch (c) {
		case 'C': o->ca = optarg; break;
		case 'c': q->count = (unsigned)tool_num(PROG, "--count", optarg, 1000000); break;
		case 'P': o->port = (int)tool_num(PROG, "-P", optarg, 254); break;
		case 'k': o->smkey = tool_num(PROG, "-k", optarg, UINT64_MAX); break;
		case 'g':
			if (!strcmp(optarg, "own"))
				own_gid(o->ca, o->port, b);
			else if (inet_pton(AF_INET6, optarg, b) != 1) {
				fprintf(stderr, "sa-client: --gid: bad GID \"%s\"\n", optarg);
				exit(2);
			}
			memcpy(o->gid, b, 16);
			o->have_gid = 1;
			break;
		case 'A': o->attr = (unsigned)tool_num(PROG, "--attr", optarg, 0xFFFF); break;
		case 'M':
			if (inet_pton(AF_INET6, optarg, o->mgid) != 1) {
				fprintf(stderr, "sa-client: --mgid: bad GID \"%s\"\n", optarg);
				exit(2);
			}
			break;
		default:
			if (!sr_option(c, q) && !ii_option(c, o, q))
				usage();
		}
	}
	if (optind != argc - 1)
		usage();
	return argv[optind];
}

/* ii-set, ii-unset: the InformInfo of the options. */
static void ii_request(const char *verb, const struct opts *o, struct req *q)
{
	/* The usual subscription: any trap of any producer, everywhere,
	 * unless an option said otherwise (a field still 0). */
	static const struct { unsigned comp; uint64_t any; } dflt[] = {
		{ II_LID_BEGIN, 0xFFFF }, { II_IS_GENERIC, 1 },
		{ II_TYPE, 0xFFFF }, { II_TRAP, 0xFFFF },
		{ II_PRODUCER, 0xFFFFFF },
	};
	int set = !strcmp(verb, "ii-set");
	uint8_t ii[IB_SA_DATA_SIZE];

	if (!set && strcmp(verb, "ii-unset"))
		usage();
	memcpy(ii, o->ii, sizeof(ii));
	for (size_t k = 0; k < sizeof(dflt) / sizeof(dflt[0]); k++)
		if (!sa_get(&sa_inform_rec, ii, dflt[k].comp))
			sa_put(&sa_inform_rec, ii, dflt[k].comp, dflt[k].any);
	if (o->have_gid)
		memcpy(ii, o->gid, 16);
	sa_put(&sa_inform_rec, ii, II_SUBSCRIBE,
	       o->subscribe >= 0 ? (uint64_t)o->subscribe : (uint64_t)set);
	memcpy(q->rec, ii, sizeof(ii));
	q->attr = IB_SA_ATTR_INFORMINFO;
	q->method = IB_MAD_METHOD_SET;
}

/* mc-join, mc-leave: a full-member join that may create the group (the
 * creation components of o15-0.1.8, values of the IPoIB broadcast group),
 * or the leave of that membership. */
static void mc_request(const char *verb, struct opts *o, struct req *q)
{
	int join = !strcmp(verb, "mc-join");
	uint8_t own[16];

	if (!join && strcmp(verb, "mc-leave"))
		usage();
	own_gid(o->ca, o->port, own);
	mad_set_array(q->rec, 0, IB_SA_MCM_MGID_F, o->mgid);
	mad_set_array(q->rec, 0, IB_SA_MCM_PORTGID_F,
		      o->have_gid ? o->gid : own);
	mad_set_field(q->rec, 0, IB_SA_MCM_JOIN_STATE_F, 1);
	q->mask = MCM_MGID | MCM_PORTGID | MCM_JOIN_STATE;
	if (join) {
		mad_set_field(q->rec, 0, IB_SA_MCM_QKEY_F, 0x0B1B);
		mad_set_field(q->rec, 0, IB_SA_MCM_PKEY_F, 0xFFFF);
		q->mask |= MCM_QKEY | MCM_TCLASS | MCM_PKEY | MCM_SL | MCM_FLOW;
	}
	q->attr = IB_SA_ATTR_MCRECORD;
	q->method = join ? IB_MAD_METHOD_SET : IB_MAD_METHOD_DELETE;
}

/* The request of VERB (a bad verb exits 2). */
static void verb_request(const char *verb, struct opts *o, struct req *q)
{
	if (!q->count)
		q->count = 1;
	q->attr = IB_SA_ATTR_SERVICERECORD;
	if (!strncmp(verb, "ii-", 3)) {
		ii_request(verb, o, q);
	} else if (!strncmp(verb, "mc-", 3)) {
		mc_request(verb, o, q);
	} else if (o->have_gid) {
		mad_set_array(q->rec, 0, IB_SA_SR_GID_F, o->gid);
		q->mask |= 1ull << SR_GID;
	}
	if (!strcmp(verb, "get")) {
		if (!o->attr)
			usage();
		q->attr = o->attr;
		q->method = IB_MAD_METHOD_GET;
	} else if (q->attr == IB_SA_ATTR_INFORMINFO || q->attr == IB_SA_ATTR_MCRECORD)
		;
	else if (!strcmp(verb, "sr-set"))
		q->method = IB_MAD_METHOD_SET;
	else if (!strcmp(verb, "sr-get"))
		q->method = IB_MAD_METHOD_GET;
	else if (!strcmp(verb, "sr-delete"))
		q->method = IB_MAD_METHOD_DELETE;
	else
		usage();
}

int main(int argc, char **argv)
{
	static struct opts o;
	struct req q = { 0 };
	ib_portid_t sa = { 0 };
	const char *verb;
	struct tool_sa_port sp;

	if (umad_init() < 0) {
		fprintf(stderr, "sa-client: libibumad init failed\n");
		return 4;
	}
	verb = parse_args(argc, argv, &o, &q);
	verb_request(verb, &o, &q);
	if (tool_sa_locate(PROG, o.ca, o.port, &sp) < 0)
		return 4;
	sa.lid = sp.sm_lid;
	sa.sl = sp.sm_sl;
	sa.qp = 1;
	sa.qkey = IB_DEFAULT_QP1_QKEY;
	return transact(o.ca, o.port, &q, o.smkey, &sa);
}
