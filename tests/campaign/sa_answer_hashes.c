/* SA answer hashes: every byte the SA server sends for a fixed list of
 * requests, hashed per (fabric, attribute, request group), so a change to
 * the SA's CPU path (sa/, mad/gmp.c, mad/rmpp_send.c, mad/mt_*.c) can be
 * shown to leave its answers byte-identical (tests/campaign/sa_hashes.sh;
 * docs/testing.md). The routing tables have table_hashes.sh for the same.
 *
 * Each fabric is generated (topogen, fixed seeds), swept by the daemon's
 * own SM (sm_init + sm_heavy_sweep) over the in-process fake SMAs
 * (tests/unit/fake_sma.h), so LIDs, the raw NodeInfo/PortInfo/SwitchInfo,
 * LFTs, partitions and multicast groups are the daemon's. The requests go
 * to sa_server_handle as the MAD transport hands them up; the server's
 * send hook captures the answers. Multi-segment answers are read to the
 * end the way a client does (RMPP ACKs, window of 4), so every segment is
 * hashed; the table answers of the mask-0 group are also sent once more
 * the way a real port's kernel RMPP takes them (one long MAD).
 *
 * Output, one line per group (the script sorts):
 *   FABRIC ATTRIBUTE GROUP requests=N mads=M bytes=B SHA256
 * SHA256 (our own, sa_hash_sha256.c: no OpenSSL needed) of, for
 * each MAD sent in order: its length (4 bytes, big endian), destination
 * LID (2), QP (4), then its bytes. The last line, "# coverage ...", counts
 * attributes, requests and MADs (test_sa_hashes checks them). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/mad.h>

#include "core/log.h"
#include "mad/gmp.h"
#include "mad/mt_internal.h"
#include "sa/sa_handler.h"
#include "sa/sa_layout.h"
#include "sa/sa_registry.h"
#include "sm/program/sl2vl_read.h"
#include "sm/sm_state.h"
#include "tests/campaign/sa_hash_sha256.h"
#include "tests/unit/fake_sma.h"
#include "tests/unit/support.h"
#include "topogen/topo_gen.h"

/* The SM's cache directory of the fabric under way (removed on exit). */
static char cache_dir[64];

static void die(const char *what)
{
	fprintf(stderr, "sa_answer_hashes: %s\n", what);
	if (cache_dir[0])
		ut_rm_tree(cache_dir);
	exit(1);
}

/* --- capture ------------------------------------------------------------ */

/* What one group sent, hashed as it goes. */
struct grp {
	struct sha sha;
	unsigned requests, mads;
	uint64_t bytes;
	/* The RMPP reader's view of the answer under way: its header
	 * (TID, method), the highest DATA segment, LAST seen, and the
	 * records reassembled (the comp group picks some). */
	uint8_t hdr[24];
	unsigned max_seg;
	int active, got_last;
	uint8_t *data;
	size_t data_len, data_cap;
	unsigned rec_size;
};

static struct grp G;
static unsigned total_requests, total_mads;

/* An answer MAD to the reader: a Get's record, or an RMPP DATA segment
 * (the next one in order is appended; a resend is not). */
static void reader_take(const uint8_t *mad, size_t len)
{
	struct rmpp_hdr h;
	size_t n = len > GMP_SA_DATA_OFFS ? len - GMP_SA_DATA_OFFS : 0;

	if (len < GMP_SA_DATA_OFFS)
		return;
	rmpp_get(mad, &h);
	if (h.flags & RMPP_FLAG_ACTIVE) {
		if (h.type != RMPP_TYPE_DATA || h.seg_num != G.max_seg + 1)
			return;
		G.active = 1;
		G.max_seg = h.seg_num;
		G.got_last |= !!(h.flags & RMPP_FLAG_LAST);
		memcpy(G.hdr, mad, sizeof(G.hdr));
	} else {
		G.active = 0;
	}
	G.rec_size = 8 * (unsigned)mad_get_field((void *)(uintptr_t)mad, 0,
						 IB_SA_ATTROFFS_F);
	if (n > GMP_SA_DATA_SIZE)
		n = GMP_SA_DATA_SIZE;    /* kernel RMPP: one MAD, hashed whole */
	if (!n)
		return;
	if (G.data_len + n > G.data_cap) {
		G.data_cap = (G.data_len + n) * 2;
		G.data = realloc(G.data, G.data_cap);
		if (!G.data)
			die("no memory");
	}
	memcpy(G.data + G.data_len, mad + GMP_SA_DATA_OFFS, n);
	G.data_len += n;
}

static int capture(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
		   uint32_t dqp)
{
	uint8_t meta[10] = {
		(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
		(uint8_t)len, (uint8_t)(dlid >> 8), (uint8_t)dlid,
		(uint8_t)(dqp >> 24), (uint8_t)(dqp >> 16), (uint8_t)(dqp >> 8),
		(uint8_t)dqp,
	};

	(void)arg;
	sha_add(&G.sha, meta, sizeof(meta));
	sha_add(&G.sha, mad, len);
	G.mads++;
	total_mads++;
	G.bytes += len;
	reader_take(mad, len);
	return 0;
}

static void grp_begin(void)
{
	free(G.data);
	memset(&G, 0, sizeof(G));
	sha_init(&G.sha);
}

/* A new answer for the reader (the group's hash goes on). */
static void reader_reset(void)
{
	G.active = G.got_last = 0;
	G.max_seg = 0;
	G.data_len = 0;
	G.rec_size = 0;
}

static void grp_end(const char *fabric, const char *attr, const char *group)
{
	char hex[65];

	sha_hex(&G.sha, hex);
	printf("%s %s %s requests=%u mads=%u bytes=%llu %s\n", fabric, attr,
	       group, G.requests, G.mads, (unsigned long long)G.bytes, hex);
}

/* --- the rig: a fabric swept by the daemon's SM --------------------------- */

struct rig {
	struct fabric f;
	struct fake_sma *s;
	struct mad_transport *t;
	struct ibsm_config cfg;
	struct sm sm;
	char dir[64];
	uint16_t ca_lid, ca2_lid, sw_lid, no_lid;
	uint64_t ca_guid, ca2_guid;
};


/* A YAML configuration (lmc, partitions) for fabric f, into the rig's
 * directory; "" for none. */
static void rig_config(struct rig *g, const char *yaml)
{
	char path[128];
	FILE *fp;

	config_defaults(&g->cfg);
	snprintf(g->cfg.cache_dir, sizeof(g->cfg.cache_dir), "%s", g->dir);
	if (config_set(&g->cfg, "sl2vl_read_all", "1", "sa_answer_hashes") < 0)
		die("sl2vl_read_all refused");
	if (!*yaml)
		return;
	snprintf(path, sizeof(path), "%s/ibsm.yaml", g->dir);
	fp = fopen(path, "w");
	if (!fp || fputs(yaml, fp) < 0 || fclose(fp))
		die("cannot write the configuration");
	if (config_load_yaml(&g->cfg, path) < 0 || config_validate(&g->cfg) < 0)
		die("configuration refused");
}

/* Port GUID of port 1 of the k-th CA of f. */
static uint64_t ca_port_guid(const struct fabric *f, unsigned k)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == FAB_CA && k-- == 0)
			return f->ports[fab_port_idx(f, n, 1)].guid;
	return 0;
}

static void rig_up(struct rig *g)
{
	/* Generous timeouts: a loaded machine must not make the sweep retry
	 * (SMInfo's ActCount counts the MADs sent). */
	struct mt_opts o = { .window = 16, .timeout_ms = 2000, .retries = 3 };
	const struct fabric *ff;

	g->s = fake_sma_new(&g->f, 0, 1);
	if (!g->s || fake_sma_open(g->s, &o, &g->t) < 0)
		die("no fake fabric");
	if (sm_init(&g->sm, &g->cfg, g->t) < 0)
		die("sm_init failed");
	if (sm_heavy_sweep(&g->sm) < 0)
		die("the heavy sweep failed");
	/* The SA as the daemon has it, minus the yield (a timed preemption
	 * point: never reached by answers this size, and not wanted here). */
	g->sm.sa.send = capture;
	g->sm.sa.yield = NULL;
	ff = fake_sma_fabric(g->s);
	g->no_lid = 0xBFFF;
	for (uint32_t p = 0, cas = 0; p < ff->num_ports; p++) {
		const struct fab_port *port = &ff->ports[p];
		uint16_t lid = fake_sma_lid(g->s, p);

		if (!lid)
			continue;
		if (ff->nodes[port->node].type == FAB_SWITCH) {
			if (!g->sw_lid && port->num == 0)
				g->sw_lid = lid;
		} else if (port->num == 1 && port->node != 0) {
			/* the requester: the 2nd CA; the 3rd is queried */
			if (cas == 0) {
				g->ca_lid = lid;
				g->ca_guid = port->guid;
			} else if (cas == 1) {
				g->ca2_lid = lid;
				g->ca2_guid = port->guid;
			}
			cas++;
		}
	}
	if (!g->ca_lid || !g->ca2_lid || !g->sw_lid)
		die("the sweep assigned no LIDs");
}

static void rig_down(struct rig *g)
{
	sm_free(&g->sm);
	mt_close(g->t);
	fake_sma_free(g->s);
	config_free(&g->cfg);
	fab_free(&g->f);
	ut_rm_tree(g->dir);
	cache_dir[0] = 0;
}

/* --- requests ------------------------------------------------------------ */

/* SubnAdm request MAD: TIDs count per group, so a group's hash does not
 * depend on how many requests came before it. */
static void req_init(const struct rig *g, uint8_t *mad, uint8_t method,
		     uint16_t attr, uint64_t mask, int trusted)
{
	gmp_init_request(mad, GMP_CLASS_SA, 2, method, attr, 0,
			 0x5a000000ull << 32 | (uint64_t)attr << 16 | G.requests);
	mad_set_field64(mad, 0, IB_SA_MKEY_F, trusted ? g->cfg.sm_key : 0);
	mad_set_field64(mad, 0, IB_SA_COMPMASK_F, mask);
}

/* An ACK (or, with type, a STOP/ABORT) of the answer under way. */
static void send_ctl(struct rig *g, uint16_t slid, uint8_t type,
		     unsigned seg, unsigned nwl)
{
	uint8_t mad[GMP_SIZE] = { 0 };
	struct rmpp_hdr h = { .version = 1, .type = type,
			      .flags = RMPP_FLAG_ACTIVE, .seg_num = seg,
			      .len_or_window = nwl };

	memcpy(mad, G.hdr, sizeof(G.hdr));
	if (type != RMPP_TYPE_ACK)
		h.status = type == RMPP_TYPE_STOP ? 1 : RMPP_ST_UNSPEC;
	rmpp_set(mad, &h);
	sa_server_handle(&g->sm.sa, mad, slid, 1);
}

/* Read a segmented answer to its end as a client does: ACK the highest
 * segment in order, opening a window of 4 more, until LAST; then the
 * final ACK that ends the sender's transfer. */
static void rmpp_read(struct rig *g, uint16_t slid)
{
	while (G.active && !G.got_last) {
		unsigned had = G.max_seg;

		send_ctl(g, slid, RMPP_TYPE_ACK, had, had + 4);
		if (G.max_seg == had)
			die("an RMPP answer stalled");
	}
	if (G.active && G.max_seg > 1)
		send_ctl(g, slid, RMPP_TYPE_ACK, G.max_seg, G.max_seg);
}

/* Hand one request (mad, writable) to the server from slid and read its
 * whole answer. */
static void ask_mad(struct rig *g, uint8_t *mad, uint16_t slid)
{
	reader_reset();
	G.requests++;
	total_requests++;
	sa_server_handle(&g->sm.sa, mad, slid, 1);
	rmpp_read(g, slid);
}

/* METHOD of ATTR with MASK and record REC (NULL: zeros) from slid. */
static void ask(struct rig *g, uint8_t method, uint16_t attr, uint64_t mask,
		const uint8_t *rec, size_t rec_len, int trusted, uint16_t slid)
{
	uint8_t mad[GMP_SIZE];

	req_init(g, mad, method, attr, mask, trusted);
	if (rec)
		memcpy(mad + GMP_SA_DATA_OFFS, rec,
		       rec_len < GMP_SA_DATA_SIZE ? rec_len : GMP_SA_DATA_SIZE);
	ask_mad(g, mad, slid);
}

/* The layout and the LID component of each attribute (-1: none). */
static const struct sa_layout *layout_of(uint16_t attr, int *lid_comp)
{
	static const struct { uint16_t attr; const struct sa_layout *l; int lid; } t[] = {
		{ 0x0011, &sa_node_rec, NR_LID }, { 0x0012, &sa_portinfo_rec, PIR_LID },
		{ 0x0013, &sa_sl2vl_rec, SL2VL_LID }, { 0x0014, &sa_swinfo_rec, SWIR_LID },
		{ 0x0015, &sa_lft_rec, LFTR_LID }, { 0x0017, &sa_mft_rec, MFTR_LID },
		{ 0x0018, &sa_sminfo_rec, SMIR_LID }, { 0x0020, &sa_link_rec, LR_FROMLID },
		{ 0x0030, &sa_guidinfo_rec, GIR_LID }, { 0x0031, &sa_service_rec, -1 },
		{ 0x0033, &sa_pkey_rec, PKR_LID }, { 0x0035, &sa_path_rec, PR_DLID },
		{ 0x0036, &sa_vlarb_rec, VLA_LID }, { 0x0038, &sa_mcmember_rec, -1 },
		{ 0x003A, &sa_mpr_rec, -1 }, { 0x0003, &sa_inform_rec, -1 },
		{ 0x00F3, &sa_iir_rec, -1 },
	};

	*lid_comp = -1;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].attr == attr) {
			*lid_comp = t[i].lid;
			return t[i].l;
		}
	return NULL;
}

static void gid_of(const struct rig *g, uint64_t guid, uint8_t gid[16])
{
	uint64_t pfx = g->cfg.subnet_prefix;

	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(pfx >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

/* --- groups -------------------------------------------------------------- */

static const char *name_of(uint16_t attr)
{
	const struct sa_attr_ops *ops = sa_registry_find(attr, NULL);

	return ops ? ops->name : "unserved";
}

/* Get or GetTable: mask 0 trusted and not, then by LID (a switch, a CA,
 * the SM, a LID nobody has). */
static void by_lid(struct rig *g, uint16_t attr, uint8_t method)
{
	int lidc;
	const struct sa_layout *l = layout_of(attr, &lidc);
	uint16_t lids[4] = { g->sw_lid, g->ca2_lid, g->sm.lid, g->no_lid };
	uint8_t rec[GMP_SA_DATA_SIZE];

	ask(g, method, attr, 0, NULL, 0, 1, g->ca_lid);
	ask(g, method, attr, 0, NULL, 0, 0, g->ca_lid);
	if (!l || lidc < 0)
		return;
	for (int i = 0; i < 4; i++) {
		memset(rec, 0, sizeof(rec));
		sa_put(l, rec, (unsigned)lidc, lids[i]);
		ask(g, method, attr, 1ull << lidc, rec, sizeof(rec), 1, g->ca_lid);
		if (i == 1)
			ask(g, method, attr, 1ull << lidc, rec, sizeof(rec), 0,
			    g->ca_lid);
	}
}

/* Records of the mask-0 table (first, middle, last), each asked for
 * again by every single component and by all of them. */
static void by_component(struct rig *g, uint16_t attr)
{
	int lidc;
	const struct sa_layout *l = layout_of(attr, &lidc);
	uint8_t *recs, rec[GMP_SA_DATA_SIZE];
	size_t n, size;
	unsigned pick[3];

	ask(g, SA_METHOD_GET_TABLE, attr, 0, NULL, 0, 1, g->ca_lid);
	size = G.rec_size;
	if (!l || !size || !G.data_len || size > GMP_SA_DATA_SIZE)
		return;
	n = G.data_len / size;
	recs = malloc(G.data_len);
	if (!recs)
		die("no memory");
	memcpy(recs, G.data, G.data_len);
	pick[0] = 0;
	pick[1] = (unsigned)(n / 2);
	pick[2] = (unsigned)(n - 1);
	for (int k = 0; k < 3; k++) {
		if (k && pick[k] == pick[k - 1])
			continue;
		/* A big table (PathRecords: all pairs) only by its middle
		 * record: most single components match most of it, and
		 * three times that was 3/4 of the run. */
		if (n > 512 && k != 1)
			continue;
		memset(rec, 0, sizeof(rec));
		memcpy(rec, recs + (size_t)pick[k] * size, size);
		for (unsigned c = 0; c < l->num && c < 64; c++)
			ask(g, SA_METHOD_GET_TABLE, attr, 1ull << c, rec, size, 1,
			    g->ca_lid);
		ask(g, SA_METHOD_GET_TABLE, attr,
		    l->num >= 64 ? ~0ull : (1ull << l->num) - 1, rec, size, !!k,
		    g->ca_lid);
	}
	free(recs);
}

/* Every generic group of one served attribute. */
static void attr_groups(struct rig *g, const char *fab, uint16_t attr)
{
	const char *name = name_of(attr);
	static const uint8_t others[] = { SA_METHOD_SET, SA_METHOD_DELETE,
		SA_METHOD_GET_MULTI, SA_METHOD_REPORT, SA_METHOD_GET_TRACE_TABLE };

	grp_begin();
	by_lid(g, attr, SA_METHOD_GET);
	grp_end(fab, name, "get");
	grp_begin();
	by_lid(g, attr, SA_METHOD_GET_TABLE);
	grp_end(fab, name, "table");
	/* A real port: the kernel segments, the SA sends one long MAD. */
	grp_begin();
	g->t->kernel_rmpp = 1;
	ask(g, SA_METHOD_GET_TABLE, attr, 0, NULL, 0, 1, g->ca_lid);
	ask(g, SA_METHOD_GET_TABLE, attr, 0, NULL, 0, 0, g->ca_lid);
	g->t->kernel_rmpp = 0;
	grp_end(fab, name, "table-kernel");
	grp_begin();
	by_component(g, attr);
	grp_end(fab, name, "comp");
	grp_begin();
	for (size_t i = 0; i < sizeof(others); i++)
		ask(g, others[i], attr, 0, NULL, 0, 1, g->ca_lid);
	grp_end(fab, name, "methods");
}

/* Two InformInfo Sets (traps 64 and 128, the second trusted) from the two
 * CAs: subscribe 1 subscribes them, 0 takes them back (IBA 13.4.8.3). */
static void inform_pair(struct rig *g, const char *fab, int subscribe,
			const char *what)
{
	const struct sa_layout *ii = &sa_inform_rec;
	uint8_t rec[GMP_SA_DATA_SIZE] = { 0 };

	grp_begin();
	sa_put(ii, rec, II_LID_BEGIN, 0xffff);
	sa_put(ii, rec, II_IS_GENERIC, 1);
	sa_put(ii, rec, II_SUBSCRIBE, (uint64_t)subscribe);
	sa_put(ii, rec, II_TYPE, 0xffff);
	sa_put(ii, rec, II_TRAP, 64);
	sa_put(ii, rec, II_QPN, 1);
	sa_put(ii, rec, II_PRODUCER, 0xffffff);
	ask(g, SA_METHOD_SET, 0x0003, 0, rec, ii->rec_len, 0, g->ca_lid);
	sa_put(ii, rec, II_TRAP, 128);
	ask(g, SA_METHOD_SET, 0x0003, 0, rec, ii->rec_len, 1, g->ca2_lid);
	grp_end(fab, name_of(0x0003), what);
}

/* State the generic groups then see: a ServiceRecord (trusted) and one
 * from an untrusted host, an InformInfo subscription, a group created by
 * one port (given MGID) and joined by another, one with an MGID the SM
 * assigns. */
static void set_state(struct rig *g, const char *fab)
{
	const struct sa_layout *sr = &sa_service_rec, *mc = &sa_mcmember_rec;
	uint8_t rec[GMP_SA_DATA_SIZE], gid[16], mgid[16] = {
		0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34 };
	const uint64_t create = 1ull << MCR_MGID | 1ull << MCR_PORTGID |
		1ull << MCR_QKEY | 1ull << MCR_PKEY | 1ull << MCR_SL |
		1ull << MCR_FLOWLABEL | 1ull << MCR_TCLASS | 1ull << MCR_JOINSTATE;

	grp_begin();
	for (int k = 0; k < 2; k++) {
		memset(rec, 0, sizeof(rec));
		gid_of(g, k ? g->ca2_guid : g->ca_guid, gid);
		sa_put(sr, rec, SR_ID, 0x1000 + k);
		sa_put_bytes(sr, rec, SR_GID, gid);
		sa_put(sr, rec, SR_PKEY, 0xffff);
		sa_put(sr, rec, SR_LEASE, 0xffffffffu);
		memcpy(rec + sa_comp_offset(sr, SR_NAME) / 8, "sa-hash", 8);
		ask(g, SA_METHOD_SET, 0x0031, 1ull << SR_ID | 1ull << SR_GID |
		    1ull << SR_PKEY | 1ull << SR_LEASE | 1ull << SR_NAME, rec,
		    sr->rec_len, !k, k ? g->ca2_lid : g->ca_lid);
	}
	grp_end(fab, name_of(0x0031), "set");

	inform_pair(g, fab, 1, "set");

	grp_begin();
	memset(rec, 0, sizeof(rec));
	gid_of(g, g->ca_guid, gid);
	sa_put_bytes(mc, rec, MCR_MGID, mgid);
	sa_put_bytes(mc, rec, MCR_PORTGID, gid);
	sa_put(mc, rec, MCR_QKEY, 0x0b1b);
	sa_put(mc, rec, MCR_PKEY, 0xffff);
	sa_put(mc, rec, MCR_JOINSTATE, 1);
	ask(g, SA_METHOD_SET, 0x0038, create, rec, mc->rec_len, 0, g->ca_lid);
	gid_of(g, g->ca2_guid, gid);
	sa_put_bytes(mc, rec, MCR_PORTGID, gid);
	ask(g, SA_METHOD_SET, 0x0038, 1ull << MCR_MGID | 1ull << MCR_PORTGID |
	    1ull << MCR_JOINSTATE, rec, mc->rec_len, 0, g->ca2_lid);
	memset(mgid, 0, sizeof(mgid));
	sa_put_bytes(mc, rec, MCR_MGID, mgid);
	ask(g, SA_METHOD_SET, 0x0038, create, rec, mc->rec_len, 0, g->ca2_lid);
	grp_end(fab, name_of(0x0038), "set");
}

/* Undo set_state: deletes, leaves, unsubscribes. */
static void delete_state(struct rig *g, const char *fab)
{
	const struct sa_layout *sr = &sa_service_rec, *mc = &sa_mcmember_rec;
	uint8_t rec[GMP_SA_DATA_SIZE], gid[16], mgid[16] = {
		0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34 };

	grp_begin();
	for (int k = 0; k < 2; k++) {
		memset(rec, 0, sizeof(rec));
		gid_of(g, k ? g->ca2_guid : g->ca_guid, gid);
		sa_put(sr, rec, SR_ID, 0x1000 + k);
		sa_put_bytes(sr, rec, SR_GID, gid);
		/* the untrusted host deletes the trusted one's first */
		ask(g, SA_METHOD_DELETE, 0x0031, 1ull << SR_ID | 1ull << SR_GID,
		    rec, sr->rec_len, 0, g->ca2_lid);
		ask(g, SA_METHOD_DELETE, 0x0031, 1ull << SR_ID | 1ull << SR_GID,
		    rec, sr->rec_len, 1, g->ca_lid);
	}
	grp_end(fab, name_of(0x0031), "delete");

	inform_pair(g, fab, 0, "delete");

	grp_begin();
	for (int k = 1; k >= 0; k--) {
		memset(rec, 0, sizeof(rec));
		gid_of(g, k ? g->ca2_guid : g->ca_guid, gid);
		sa_put_bytes(mc, rec, MCR_MGID, mgid);
		sa_put_bytes(mc, rec, MCR_PORTGID, gid);
		sa_put(mc, rec, MCR_JOINSTATE, 1);
		ask(g, SA_METHOD_DELETE, 0x0038, 1ull << MCR_MGID |
		    1ull << MCR_PORTGID | 1ull << MCR_JOINSTATE, rec, mc->rec_len,
		    0, k ? g->ca2_lid : g->ca_lid);
	}
	grp_end(fab, name_of(0x0038), "delete");
}

/* One RMPP DATA segment, FIRST and LAST as flagged, carrying len bytes. */
static void segment_req(struct rig *g, uint8_t *mad, uint8_t method,
			uint16_t attr, uint64_t mask, const uint8_t *data,
			size_t len, uint8_t flags)
{
	struct rmpp_hdr h = { .version = 1, .type = RMPP_TYPE_DATA,
			      .flags = RMPP_FLAG_ACTIVE | flags, .seg_num = 1,
			      .len_or_window = (uint32_t)(len + 20) };

	req_init(g, mad, method, attr, mask, 1);
	rmpp_set(mad, &h);
	memcpy(mad + GMP_SA_DATA_OFFS, data, len);
}

/* GetMulti(MultiPathRecord) in one MAD; PathRecords between two GIDs. */
static void path_groups(struct rig *g, const char *fab)
{
	const struct sa_layout *m = &sa_mpr_rec, *p = &sa_path_rec;
	uint8_t stream[GMP_SA_DATA_SIZE] = { 0 }, mad[GMP_SIZE], rec[GMP_SA_DATA_SIZE];
	uint64_t guids[3] = { g->ca_guid, g->ca2_guid,
			      fake_sma_port_guid(g->s, fab_port_idx(&g->f, 0, 1)) };
	size_t off = m->rec_len;

	grp_begin();
	sa_put(m, stream, MPR_SGIDCOUNT, 1);
	sa_put(m, stream, MPR_DGIDCOUNT, 2);
	sa_put(m, stream, MPR_NUMBPATH, 4);
	for (int i = 0; i < 3; i++)
		gid_of(g, guids[i], stream + off + 16 * i);
	segment_req(g, mad, SA_METHOD_GET_MULTI, 0x003A, 1ull << MPR_SGIDCOUNT |
		    1ull << MPR_DGIDCOUNT | 1ull << MPR_NUMBPATH, stream,
		    off + 48, RMPP_FLAG_FIRST | RMPP_FLAG_LAST);
	ask_mad(g, mad, g->ca_lid);
	grp_end(fab, name_of(0x003A), "getmulti");

	grp_begin();
	for (int i = 0; i < 3; i++) {
		memset(rec, 0, sizeof(rec));
		gid_of(g, guids[i], rec + sa_comp_offset(p, PR_SGID) / 8);
		gid_of(g, guids[(i + 1) % 3], rec + sa_comp_offset(p, PR_DGID) / 8);
		sa_put(p, rec, PR_NUMBPATH, 4);
		ask(g, SA_METHOD_GET_TABLE, 0x0035, 1ull << PR_SGID |
		    1ull << PR_DGID | 1ull << PR_NUMBPATH, rec, p->rec_len, 1,
		    g->ca_lid);
		ask(g, SA_METHOD_GET, 0x0035, 1ull << PR_SGID | 1ull << PR_DGID,
		    rec, p->rec_len, 0, g->ca_lid);
	}
	grp_end(fab, name_of(0x0035), "pairs");
}

/* What a server must refuse or ignore: bad class version, unknown
 * attribute and method, a response, RMPP control MADs of no transfer, an
 * RMPPType that does not exist, a multi-MAD request begun and aborted by
 * its sender, mask bits past the record. */
static void malformed(struct rig *g, const char *fab)
{
	uint8_t mad[GMP_SIZE], data[GMP_SA_DATA_SIZE] = { 0 };
	struct rmpp_hdr h;

	grp_begin();
	req_init(g, mad, SA_METHOD_GET, 0x0011, 0, 1);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	ask_mad(g, mad, g->ca_lid);
	ask(g, SA_METHOD_GET_TABLE, 0x00FE, 0, NULL, 0, 1, g->ca_lid);
	ask(g, 0x03, 0x0011, 0, NULL, 0, 1, g->ca_lid);
	ask(g, SA_METHOD_GET_RESP, 0x0011, 0, NULL, 0, 1, g->ca_lid);
	ask(g, SA_METHOD_GET, 0x0011, 1ull << 63, NULL, 0, 1, g->ca_lid);
	ask(g, SA_METHOD_GET_TABLE, 0x0012, 1ull << 62, NULL, 0, 0, g->ca_lid);
	for (uint8_t type = RMPP_TYPE_ACK; type <= 5; type++) {
		req_init(g, mad, SA_METHOD_GET_TABLE, 0x0011, 0, 1);
		memset(&h, 0, sizeof(h));
		h.version = 1;
		h.type = type;
		h.flags = RMPP_FLAG_ACTIVE;
		h.seg_num = 1;
		h.len_or_window = 1;
		rmpp_set(mad, &h);
		ask_mad(g, mad, g->ca_lid);
	}
	/* FIRST of two segments: ACKed and held; its sender ABORTs it. */
	segment_req(g, mad, SA_METHOD_GET_MULTI, 0x003A, 0, data,
		    GMP_SA_DATA_SIZE, RMPP_FLAG_FIRST);
	mad_set_field(mad, 0, IB_SA_RMPP_D2_F, 2 * GMP_SA_DATA_SIZE + 40);
	ask_mad(g, mad, g->ca_lid);
	memcpy(G.hdr, mad, sizeof(G.hdr));
	send_ctl(g, g->ca_lid, RMPP_TYPE_ABORT, 0, 0);
	/* GetMulti of an attribute without it, in one segment. */
	segment_req(g, mad, SA_METHOD_GET_MULTI, 0x0011, 0, data, 8,
		    RMPP_FLAG_FIRST | RMPP_FLAG_LAST);
	ask_mad(g, mad, g->ca_lid);
	grp_end(fab, "-", "malformed");
}

/* The SL2VL tables and VLArb blocks the daemon reads for the SA in its
 * idle loop (sl2vl_read_all: every one), read to the end on a made-up
 * clock so the token bucket cannot make the result depend on timing. */
static void read_tables(struct rig *g)
{
	double now = 1e6;

	for (int i = 0; i < 100000; i++, now += 0.05) {
		if (sl2vl_reader_tick(&g->sm.sl2vl_rd, g->t, &g->sm.cur, now) < 0 ||
		    sl2vl_reader_tick(&g->sm.vlarb_rd, g->t, &g->sm.cur, now) < 0 ||
		    mt_drain(g->t) < 0)
			die("reading SL2VL/VLArb tables failed");
		if (sl2vl_reader_next_deadline(&g->sm.sl2vl_rd, now) == HUGE_VAL &&
		    sl2vl_reader_next_deadline(&g->sm.vlarb_rd, now) == HUGE_VAL)
			return;
	}
	die("reading SL2VL/VLArb tables did not end");
}

/* Every group against one swept fabric. */
static void run_fabric(struct rig *g, const char *fab)
{
	const struct sa_attr_ops *ops;

	set_state(g, fab);
	/* The groups' MFTs are programmed by the next sweep (as the
	 * daemon's loop would run one): MulticastForwardingTableRecords. */
	if (sm_heavy_sweep(&g->sm) < 0)
		die("the second heavy sweep failed");
	read_tables(g);
	for (int i = 0; (ops = sa_registry_slot(i)); i++)
		attr_groups(g, fab, ops->attr_id);
	path_groups(g, fab);
	malformed(g, fab);
	delete_state(g, fab);
	if (rmpp_tx_active(&g->sm.sa.tx))
		die("an RMPP answer was left unfinished");
}

/* --- fabrics ------------------------------------------------------------- */

/* The k-th fabric into g->f and its configuration; its name. */
static const char *fabric_make(struct rig *g, int k)
{
	char err[256], yaml[2048];
	int rc = 0;

	memset(&g->f, 0, sizeof(g->f));
	if (k == 0) {
		/* a small fat-tree, defaults */
		struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };

		rc = gen_fattree(&g->f, &p, err);
		rig_config(g, "");
		return rc ? NULL : "ft2-r8";
	}
	if (k == 1) {
		/* random GUIDs, 5% of the switch links missing, own SM_Key */
		struct fattree_params p = { .levels = 2, .radix = 12, .oversub = 1,
					    .remove_frac = 0.05, .seed = 5 };

		rc = gen_fattree(&g->f, &p, err) || gen_random_guids(&g->f, 11);
		/* an SM_Key of our own: trusted requesters then see more
		 * (M_Keys, IBA 15.2.5.3) than with the well-known 1 */
		rig_config(g, "sm_key: 0x5eed000012345678\n");
		return rc ? NULL : "ft2-r12-rguid-cut";
	}
	{
		/* LMC 1, partitions (one IPoIB: its broadcast group) */
		struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 2 };

		rc = gen_fattree(&g->f, &p, err);
		if (rc)
			return NULL;
		snprintf(yaml, sizeof(yaml),
			 "lmc: 1\n"
			 "partitions:\n"
			 "  - name: Default\n    pkey: 0x7fff\n    members: [ALL=limited, SELF=full]\n"
			 "  - name: blue\n    pkey: 0x0001\n    ipoib: true\n"
			 "    members: [0x%016llx=full, 0x%016llx=full]\n"
			 "  - name: red\n    pkey: 0x0002\n"
			 "    members: [0x%016llx=full, 0x%016llx=limited]\n",
			 (unsigned long long)ca_port_guid(&g->f, 1),
			 (unsigned long long)ca_port_guid(&g->f, 2),
			 (unsigned long long)ca_port_guid(&g->f, 2),
			 (unsigned long long)ca_port_guid(&g->f, 3));
		rig_config(g, yaml);
		return "ft2-r8-lmc1-parts";
	}
}

#define NUM_FABRICS 3

int main(void)
{
	unsigned attrs = 0;

	log_set_level(getenv("SA_HASH_LOG") ? LOG_DEBUG : LOG_ERR);
	for (int k = 0; k < NUM_FABRICS; k++) {
		struct rig *g = calloc(1, sizeof(*g));
		const char *fab;

		if (!g)
			die("no memory");
		snprintf(g->dir, sizeof(g->dir), "/tmp/sa_answer_hashes-XXXXXX");
		if (!mkdtemp(g->dir))
			die("no temporary directory");
		memcpy(cache_dir, g->dir, sizeof(cache_dir));
		fab = fabric_make(g, k);
		if (!fab)
			die("cannot generate a fabric");
		rig_up(g);
		run_fabric(g, fab);
		rig_down(g);
		free(g);
	}
	for (int i = 0; sa_registry_slot(i); i++)
		attrs++;
	free(G.data);
	printf("# coverage fabrics=%d attributes=%u requests=%u mads=%u\n",
	       NUM_FABRICS, attrs, total_requests, total_mads);
	return 0;
}
