/* sa-client: one SubnAdm request from the command line, for tests that need
 * the SA methods the diag tools never send (saquery only reads). Today:
 * ServiceRecord Set, Get and Delete. It runs the same against ibsm and
 * OpenSM, so a test can hold both SMs to the same outcome.
 *
 *   sa-client [-C ca] [-P port] [-k sm_key] sr-set|sr-get|sr-delete
 *             [--id N] [--gid GID|own] [--pkey N] [--lease S] [--key HEX]
 *             [--name S] [--data8 N] [--mask N]
 *
 * The ComponentMask holds the fields given, unless --mask sets it. On an
 * answer it prints the record, one "Field value" per line, and exits 0;
 * an error status prints "status 0xNNNN" and exits 3; no answer exits 4;
 * bad arguments exit 2. MAD fields are libibmad's (IB_SA_SR_*). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

enum { SR_ID, SR_GID, SR_PKEY, SR_RESV, SR_LEASE, SR_KEY, SR_NAME, SR_DATA8 };

struct req {
	int method;
	uint64_t mask;
	uint8_t rec[IB_SA_DATA_SIZE];
};

static void usage(void)
{
	fprintf(stderr, "usage: sa-client [-C ca] [-P port] [-k sm_key] sr-set|sr-get|sr-delete\n"
		"       [--id N] [--gid GID|own] [--pkey N] [--lease S] [--key HEX]\n"
		"       [--name S] [--data8 N] [--mask N]\n");
	exit(2);
}

static uint64_t num(const char *opt, const char *s, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "sa-client: %s: bad number \"%s\"\n", opt, s);
		exit(2);
	}
	return v;
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

/* Send the request and wait for its answer (same TID), with libibumad's
 * timeout and retries. libibmad builds the MAD; the SM_Key is then written
 * where IBA 15.2.1.1 puts it (IB_SA_MKEY_F), because older libibmad's
 * mad_encode wrote rpc.mkey at the common-MAD M_Key offset, which in an SA
 * MAD is the RMPP header, so the SA never saw it. */
static int transact(const char *ca, int port, struct req *q, uint64_t smkey,
		    ib_portid_t *sa)
{
	ib_rpc_t rpc = { 0 };
	/* Slack: under ibsim, umad_size() is umad2sim's, and it need not be
	 * the same before and after the port is opened (measured: 56, 64). */
	size_t bufsz = umad_size() + IB_MAD_SIZE + 256;
	void *snd = umad_alloc(1, bufsz), *rcv = umad_alloc(1, bufsz);
	uint8_t *mad;
	const char *err = NULL;
	int fd = -1, agent = -1, len, r, rc = 4;

	if (!snd || !rcv) {
		err = "out of memory";
		goto out;
	}
	fd = umad_open_port(ca, port);
	if (fd < 0) {
		err = "cannot open the local port";
		goto out;
	}
	agent = umad_register(fd, IB_SA_CLASS, 2, 1, NULL);
	if (agent < 0) {
		err = "cannot register an SA agent";
		goto out;
	}
	rpc.mgtclass = IB_SA_CLASS;
	rpc.method = q->method;
	rpc.attr.id = IB_SA_ATTR_SERVICERECORD;
	rpc.mask = q->mask;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.datasz = IB_SA_DATA_SIZE;
	if (mad_build_pkt(snd, &rpc, sa, NULL, q->rec) < 0) {
		err = "cannot build the MAD";
		goto out;
	}
	mad = umad_get_mad(snd);
	mad_set_field(mad, 0, IB_SA_RMPP_VERS_F, 0);
	mad_set_field(mad, 0, IB_SA_RMPP_TYPE_F, 0);
	mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, 0);
	mad_set_field64(mad, 0, IB_SA_MKEY_F, smkey);
	if (umad_send(fd, agent, snd, IB_MAD_SIZE, 1000, 3) < 0) {
		err = "send failed";
		goto out;
	}
	for (;;) {
		len = IB_MAD_SIZE;
		r = umad_recv(fd, rcv, &len, 5000);
		if (r < 0 || umad_status(rcv)) {
			fprintf(stderr, "sa-client: no answer from the SA at LID %d (%s)\n",
				sa->lid, strerror(r < 0 ? -r : umad_status(rcv)));
			goto out;
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
		printf("status 0x%04x\n", r);
		rc = 3;
	} else {
		print_rec(mad + IB_SA_DATA_OFFS);
		rc = 0;
	}
out:
	if (err)
		fprintf(stderr, "sa-client: %s\n", err);
	if (agent >= 0)
		umad_unregister(fd, agent);
	if (fd >= 0)
		umad_close_port(fd);
	umad_free(snd);
	umad_free(rcv);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "id", 1, 0, 'i' }, { "gid", 1, 0, 'g' }, { "pkey", 1, 0, 'p' },
		{ "lease", 1, 0, 'l' }, { "key", 1, 0, 'K' }, { "name", 1, 0, 'n' },
		{ "data8", 1, 0, 'd' }, { "mask", 1, 0, 'm' }, { 0, 0, 0, 0 },
	};
	const char *ca = NULL, *verb;
	int port = 0, c;
	uint64_t smkey = 0;
	struct req q = { 0 };
	ib_portid_t sa = { 0 };
	umad_port_t p;

	if (umad_init() < 0) {
		fprintf(stderr, "sa-client: libibumad init failed\n");
		return 4;
	}
	/* One pass: GNU getopt moves the verb, the one operand, to the end. */
	while ((c = getopt_long(argc, argv, "C:P:k:", lo, NULL)) != -1) {
		uint8_t b[64];

		switch (c) {
		case 'C': ca = optarg; break;
		case 'P': port = (int)num("-P", optarg, 254); break;
		case 'k': smkey = num("-k", optarg, UINT64_MAX); break;
		case 'i':
			mad_set_field64(q.rec, 0, IB_SA_SR_ID_F, num("--id", optarg, UINT64_MAX));
			q.mask |= 1ull << SR_ID;
			break;
		case 'g':
			if (!strcmp(optarg, "own"))
				own_gid(ca, port, b);
			else if (inet_pton(AF_INET6, optarg, b) != 1) {
				fprintf(stderr, "sa-client: --gid: bad GID \"%s\"\n", optarg);
				return 2;
			}
			mad_set_array(q.rec, 0, IB_SA_SR_GID_F, b);
			q.mask |= 1ull << SR_GID;
			break;
		case 'p':
			mad_set_field(q.rec, 0, IB_SA_SR_PKEY_F, (uint32_t)num("--pkey", optarg, 0xFFFF));
			q.mask |= 1ull << SR_PKEY;
			break;
		case 'l':
			mad_set_field(q.rec, 0, IB_SA_SR_LEASE_F, (uint32_t)num("--lease", optarg, UINT32_MAX));
			q.mask |= 1ull << SR_LEASE;
			break;
		case 'K':
			hex_bytes("--key", optarg, b, 16);
			mad_set_array(q.rec, 0, IB_SA_SR_KEY_F, b);
			q.mask |= 1ull << SR_KEY;
			break;
		case 'n':
			if (strlen(optarg) > 64) {
				fprintf(stderr, "sa-client: --name: longer than 64 bytes\n");
				return 2;
			}
			memset(b, 0, sizeof(b));
			memcpy(b, optarg, strlen(optarg));
			mad_set_array(q.rec, 0, IB_SA_SR_NAME_F, b);
			q.mask |= 1ull << SR_NAME;
			break;
		case 'd':
			memset(b, 0, sizeof(b));
			b[0] = (uint8_t)num("--data8", optarg, 255);
			mad_set_array(q.rec, 0, IB_SA_SR_DATA_F, b);
			q.mask |= 1ull << SR_DATA8;
			break;
		case 'm':
			q.mask = num("--mask", optarg, UINT64_MAX);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	verb = argv[optind];
	if (!strcmp(verb, "sr-set"))
		q.method = IB_MAD_METHOD_SET;
	else if (!strcmp(verb, "sr-get"))
		q.method = IB_MAD_METHOD_GET;
	else if (!strcmp(verb, "sr-delete"))
		q.method = IB_MAD_METHOD_DELETE;
	else
		usage();

	if (umad_get_port(ca, port, &p) < 0) {
		fprintf(stderr, "sa-client: no local IB port\n");
		return 4;
	}
	sa.lid = p.sm_lid;
	sa.sl = p.sm_sl;
	umad_release_port(&p);
	if (!sa.lid) {
		fprintf(stderr, "sa-client: the port knows no SM LID (no master SM)\n");
		return 4;
	}
	sa.qp = 1;
	sa.qkey = IB_DEFAULT_QP1_QKEY;
	return transact(ca, port, &q, smkey, &sa);
}
