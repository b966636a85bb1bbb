/* Topology readers: a golden ibnetdiscover dump (taken from ibnetdiscover
 * under ibsim on net.2sw2path4hca after OpenSM), the same fabric as an ibsim
 * net file and as OpenSM's subnet.lst, the writers' round trip, and many malformed inputs, each of
 * which must fail with -EINVAL and a "FILE:LINE:" message, never crash. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fabric.h"
#include "core/log.h"
#include "formats/topo_read.h"
#include "tests/unit/support.h"

static const char golden_ibnd[] =
	"#\n# Topology file: generated on Sun Nov 22 17:46:28 2026\n#\n"
	"# Initiated from node 0000000000200000 port 0000000000200000\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x200001\n"
	"switchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
	"[2]\t\"H-0000000000100009\"[1](10000a) \t\t# \"Hca4\" lid 6 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 4xSDR\n\n"
	"vendid=0x2c9\ndevid=0xbd36\nsysimgguid=0x200000\n"
	"switchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" enhanced port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 2 12xQDR\n"
	"[2]\t\"H-0000000000100006\"[1](100007) \t\t# \"Hca3\" lid 5 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 3 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100009\ncaguid=0x100009\n"
	"Ca\t2 \"H-0000000000100009\"\t\t# \"Hca4\"\n"
	"[1](10000a) \t\"S-0000000000200001\"[2]\t\t# lid 6 lmc 0 \"Switch2\" lid 3 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100003\ncaguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100006\ncaguid=0x100006\n"
	"Ca\t2 \"H-0000000000100006\"\t\t# \"Hca3\"\n"
	"[1](100007) \t\"S-0000000000200000\"[2]\t\t# lid 5 lmc 0 \"Switch1\" lid 1 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100000\ncaguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 1 \"Switch1\" lid 1 12xQDR\n";

/* The ibsim example net.2sw2path4hca: ibsim gives it the GUIDs above. */
static const char golden_net[] =
	"# comment\n"
	"Switch\t8 \"Switch1\"\n"
	"[1]\t\"Hca1\"[1]\n[2]\t\"Hca3\"[1]\n[3]\t\"Switch2\"[3]\n[5]\t\"Switch2\"[5]\n\n"
	"Switch 8 \"Switch2\"\n"
	"[1]\t\"Hca2\"[1]\n[2]\t\"Hca4\"[1]\n[3]\t\"Switch1\"[3]\n[5]\t\"Switch1\"[5]\n\n"
	"Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"\n\n"  /* remote port 1 by default */
	"Hca\t2 \"Hca2\"\n[1]\t\"Switch2\"[1]\n\n"
	"Hca\t2 \"Hca3\"\n[1]\t\"Switch1\"[2]\n\n"
	"Hca \t2 \"Hca4\"\n[1]\t\"Switch2\"[2]\n";

/* OpenSM 3.3.23's opensm-subnet.lst for the same fabric (opensm -o -D 0x43
 * under ibsim on net.2sw2path4hca). */
static const char golden_osm_subnet[] =
	"{ CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:000000 DevID:0000 Rev:000000A1 {Hca1} LID:0002 PN:01 } { SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:01 } { CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000 PortGUID:0000000000100001 VenID:00000000 DevID:0000 Rev:000000A1 {Hca1} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:02 } { CA Ports:02 SystemGUID:0000000000100006 NodeGUID:0000000000100006 PortGUID:0000000000100007 VenID:00000000 DevID:0000 Rev:000000A1 {Hca3} LID:0005 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:03 } { SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:00000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:03 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:05 } { SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:00000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:05 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:01 } { CA Ports:02 SystemGUID:0000000000100003 NodeGUID:0000000000100003 PortGUID:0000000000100004 VenID:00000000 DevID:0000 Rev:000000A1 {Hca2} LID:0004 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:02 } { CA Ports:02 SystemGUID:0000000000100009 NodeGUID:0000000000100009 PortGUID:000000000010000a VenID:00000000 DevID:0000 Rev:000000A1 {Hca4} LID:0006 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:03 } { SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:03 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:05 } { SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:05 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ CA Ports:02 SystemGUID:0000000000100003 NodeGUID:0000000000100003 PortGUID:0000000000100004 VenID:000000 DevID:0000 Rev:000000A1 {Hca2} LID:0004 PN:01 } { SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:00000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:01 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ CA Ports:02 SystemGUID:0000000000100006 NodeGUID:0000000000100006 PortGUID:0000000000100007 VenID:000000 DevID:0000 Rev:000000A1 {Hca3} LID:0005 PN:01 } { SW-SM Ports:08 SystemGUID:0000000000200000 NodeGUID:0000000000200000 PortGUID:0000000000200000 VenID:00000000 DevID:0000 Rev:000000A1 {Switch1} LID:0001 PN:02 } PHY=4x LOG=ACT SPD=2.5\n"
	"{ CA Ports:02 SystemGUID:0000000000100009 NodeGUID:0000000000100009 PortGUID:000000000010000a VenID:000000 DevID:0000 Rev:000000A1 {Hca4} LID:0006 PN:01 } { SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001 PortGUID:0000000000200001 VenID:00000000 DevID:0000 Rev:000000A1 {Switch2} LID:0003 PN:02 } PHY=4x LOG=ACT SPD=2.5\n";

struct ctx {
	char dir[64];
	char path[128];
	FILE *log;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	strcpy(c->dir, "/tmp/ibsm-test-topo.XXXXXX");
	if (!mkdtemp(c->dir))
		return -1;
	snprintf(c->path, sizeof(c->path), "%s/topo.txt", c->dir);
	c->log = tmpfile();
	log_set_stream(c->log);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	log_set_stream(NULL);
	fclose(c->log);
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c->dir);
	if (system(cmd))
		return -1;
	free(c);
	return 0;
}

static void log_reset(struct ctx *c)
{
	fflush(c->log);
	assert_int_equal(ftruncate(fileno(c->log), 0), 0);
	rewind(c->log);
}

static char *log_text(struct ctx *c)
{
	static char buf[8192];
	fflush(c->log);
	rewind(c->log);
	size_t n = fread(buf, 1, sizeof(buf) - 1, c->log);
	buf[n] = '\0';
	return buf;
}

typedef int (*reader_fn)(struct fabric *, const char *);

static uint32_t node_of(struct fabric *f, uint64_t guid)
{
	uint32_t n = fab_find_node_guid(f, guid);
	assert_int_not_equal(n, FAB_NONE);
	return n;
}

/* Both goldens describe one fabric. */
static void check_golden_shape(struct fabric *f)
{
	assert_int_equal(f->num_nodes, 6);
	assert_int_equal(f->num_switches, 2);
	assert_int_equal(f->num_cas, 4);
	uint32_t s1 = node_of(f, 0x200000), s2 = node_of(f, 0x200001);
	uint32_t h1 = node_of(f, 0x100000), h4 = node_of(f, 0x100009);
	assert_int_equal(f->nodes[s1].type, FAB_SWITCH);
	assert_int_equal(f->nodes[s1].num_ports, 8);
	assert_int_equal(f->nodes[h4].num_ports, 2);
	assert_string_equal(f->nodes[s1].desc, "Switch1");
	assert_string_equal(f->nodes[h4].desc, "Hca4");
	assert_int_equal(fab_peer_node(f, fab_port_idx(f, s1, 1)), h1);
	assert_int_equal(fab_port(f, s1, 3)->peer, fab_port_idx(f, s2, 3));
	assert_int_equal(fab_port(f, s1, 5)->peer, fab_port_idx(f, s2, 5));
	assert_int_equal(fab_port(f, s1, 4)->peer, FAB_NONE);
	assert_int_equal(fab_port(f, h4, 1)->peer, fab_port_idx(f, s2, 2));
	assert_int_equal(fab_port(f, h4, 2)->peer, FAB_NONE);
	assert_int_equal(fab_port(f, h1, 1)->guid, 0x100001);
	assert_int_equal(fab_port(f, h4, 1)->guid, 0x10000a);
	assert_int_equal(fab_port(f, s2, 0)->guid, 0x200001);
	assert_int_equal(fab_endpoint_ports(f, NULL), 6);
}

static void golden_ibnetdiscover(void **state)
{
	struct ctx *c = *state;
	struct fabric f;
	ut_write_file(c->path, golden_ibnd, strlen(golden_ibnd));
	assert_int_equal(topo_read_ibnetdiscover(&f, c->path), 0);
	check_golden_shape(&f);
	uint32_t s1 = node_of(&f, 0x200000), h1 = node_of(&f, 0x100000);
	assert_string_equal(f.nodes[s1].name, "S-0000000000200000");
	assert_int_equal(f.nodes[s1].vendor_id, 0x2c9);
	assert_int_equal(f.nodes[s1].device_id, 0xbd36);
	assert_int_equal(f.nodes[s1].sys_guid, 0x200000);
	assert_int_equal(f.nodes[s1].enhanced_sp0, 1);
	assert_int_equal(f.nodes[node_of(&f, 0x200001)].enhanced_sp0, 0);
	assert_int_equal(fab_port(&f, s1, 0)->lid, 1);
	assert_int_equal(fab_port(&f, node_of(&f, 0x200001), 0)->lid, 3);
	assert_int_equal(fab_port(&f, h1, 1)->lid, 2);
	assert_int_equal(fab_port(&f, h1, 1)->lmc, 1);
	assert_int_equal(fab_port(&f, node_of(&f, 0x100009), 1)->lid, 6);
	assert_int_equal(fab_port(&f, h1, 1)->width, 8);   /* 12x */
	assert_int_equal(fab_port(&f, h1, 1)->speed, 4);   /* QDR */
	assert_int_equal(fab_port(&f, s1, 1)->width, 8);
	assert_int_equal(fab_port(&f, s1, 3)->width, 2);   /* 4x */
	assert_int_equal(fab_port(&f, s1, 3)->speed, 1);   /* SDR */
	assert_int_equal(fab_max_lid(&f), 6);
	fab_free(&f);
	/* Sniffing picks the right reader. */
	assert_int_equal(topo_read(&f, c->path, TOPO_AUTO), 0);
	assert_string_equal(f.nodes[0].name, "S-0000000000200001");
	fab_free(&f);
}

static void golden_ibsim_net(void **state)
{
	struct ctx *c = *state;
	struct fabric f;
	ut_write_file(c->path, golden_net, strlen(golden_net));
	assert_int_equal(topo_read_ibsim_net(&f, c->path), 0);
	check_golden_shape(&f);
	uint32_t s1 = node_of(&f, 0x200000);
	assert_string_equal(f.nodes[s1].name, "Switch1");
	assert_int_equal(f.nodes[s1].sys_guid, 0x200000);
	/* ibsim: 4x SDR when nothing else is said; CA ports GUID + port. */
	assert_int_equal(fab_port(&f, s1, 1)->width, 2);
	assert_int_equal(fab_port(&f, s1, 1)->speed, 1);
	assert_int_equal(fab_port(&f, node_of(&f, 0x100003), 2)->guid, 0x100005);
	fab_free(&f);
	assert_int_equal(topo_read(&f, c->path, TOPO_AUTO), 0);
	assert_string_equal(f.nodes[0].name, "Switch1");
	fab_free(&f);
}

static void golden_osm_subnet_lst(void **state)
{
	struct ctx *c = *state;
	struct fabric f;

	ut_write_file(c->path, golden_osm_subnet, strlen(golden_osm_subnet));
	assert_int_equal(topo_read_osm_subnet(&f, c->path), 0);
	check_golden_shape(&f);
	uint32_t s1 = node_of(&f, 0x200000), h4 = node_of(&f, 0x100009);
	assert_string_equal(f.nodes[s1].name, "S-0000000000200000");
	assert_int_equal(fab_port(&f, s1, 0)->lid, 1);
	assert_int_equal(fab_port(&f, h4, 1)->lid, 6);
	assert_int_equal(fab_port(&f, s1, 1)->width, 2);     /* PHY=4x */
	assert_int_equal(fab_port(&f, s1, 1)->state, FAB_PORT_ACTIVE);
	fab_free(&f);
	/* Sniffed. */
	assert_int_equal(topo_read(&f, c->path, TOPO_AUTO), 0);
	check_golden_shape(&f);
	fab_free(&f);
}

/* subnet.lst lines that cannot be: FILE:LINE, -EINVAL. */
static void osm_subnet_malformed(void **state)
{
	static const char *const bad[] = {
		/* a port past Ports: */
		"{ SW Ports:02 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:03 } "
		"{ CA Ports:01 SystemGUID:2 NodeGUID:2 PortGUID:3 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=4x\n",
		/* port 0 in a link */
		"{ SW Ports:02 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:00 } "
		"{ CA Ports:01 SystemGUID:2 NodeGUID:2 PortGUID:3 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=4x\n",
		/* one node seen as a switch, then as a CA */
		"{ SW Ports:02 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:01 } "
		"{ CA Ports:01 SystemGUID:2 NodeGUID:2 PortGUID:3 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=4x\n"
		"{ CA Ports:02 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:02 } "
		"{ CA Ports:01 SystemGUID:5 NodeGUID:5 PortGUID:6 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=4x\n",
		/* one port linked to two */
		"{ SW Ports:02 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:01 } "
		"{ CA Ports:01 SystemGUID:2 NodeGUID:2 PortGUID:3 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=4x\n"
		"{ SW Ports:02 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:01 } "
		"{ CA Ports:01 SystemGUID:5 NodeGUID:5 PortGUID:6 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=4x\n",
		/* a node type OpenSM never writes */
		"{ XX Ports:02 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:01 } "
		"{ CA Ports:01 SystemGUID:2 NodeGUID:2 PortGUID:3 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=4x\n",
	};
	struct ctx *c = *state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fabric f;
		char want[200];

		ut_write_file(c->path, bad[i], strlen(bad[i]));
		log_reset(c);
		assert_int_equal(topo_read(&f, c->path, TOPO_OSM_SUBNET), -EINVAL);
		snprintf(want, sizeof(want), "%s:%d:", c->path, i == 2 || i == 3 ? 2 : 1);
		if (!strstr(log_text(c), want))
			fail_msg("case %zu: want '%s' in '%s'", i, want, log_text(c));
		fab_free(&f);
	}
}

/* ibsim's GUID counters, bases and one-shot values. */
static void ibsim_guid_rules(void **state)
{
	struct ctx *c = *state;
	static const char net[] =
		"switchguid=0x5000\nvendid=0x2c9\ndevid=0x1234\nsysimgguid=0x77\n"
		"Switch 4 \"a\"\n[1] \"b\"[1]\n[2] \"h\"[3] w=1\n\n"
		"Switch 4 \"b\" # \"B desc\" enhanced port 0 lid 9 lmc 0\n[1] \"a\"[1]\n\n"
		"caguid=0x9000\nCa 3 \"h\"\n[3] \"a\"[2] # lid 12 lmc 2 \"a\" lid 0 4xDDR\n\n"
		"caguid+0x10\nHca 1 \"k\"\n\n"
		"Hca 2 \"m\"\n\n"
		"Rt 1 \"r\"\n";
	struct fabric f;
	ut_write_file(c->path, net, sizeof(net) - 1);
	assert_int_equal(topo_read_ibsim_net(&f, c->path), 0);
	uint32_t a = node_of(&f, 0x5000), b = node_of(&f, 0x5001);
	uint32_t h = node_of(&f, 0x9000);
	assert_int_equal(f.nodes[a].sys_guid, 0x77);
	assert_int_equal(f.nodes[b].sys_guid, 0x5001);   /* one-shot */
	assert_int_equal(f.nodes[a].vendor_id, 0x2c9);
	assert_int_equal(f.nodes[b].vendor_id, 0);        /* one-shot */
	assert_int_equal(f.nodes[b].device_id, 0x1234);   /* sticky */
	assert_int_equal(f.nodes[b].enhanced_sp0, 1);
	assert_string_equal(f.nodes[b].desc, "B desc");
	assert_string_equal(f.nodes[a].desc, "a");
	assert_int_equal(fab_port(&f, b, 0)->lid, 9);
	assert_int_equal(fab_port(&f, h, 3)->guid, 0x9003);
	assert_int_equal(fab_port(&f, h, 3)->lid, 12);
	assert_int_equal(fab_port(&f, h, 3)->lmc, 2);
	/* w=1 on the switch side (1x) against 1x|4x from "4xDDR": 1x;
	 * speed SDR (switch default) & SDR|DDR: SDR. */
	assert_int_equal(fab_port(&f, h, 3)->width, 1);
	assert_int_equal(fab_port(&f, h, 3)->speed, 1);
	node_of(&f, 0x9010);                  /* caguid+0x10: base + 0x10 */
	node_of(&f, 0x9012);                  /* previous CA had 1 port: +2 */
	node_of(&f, 0x0);                     /* routers start at 0 in ibsim */
	fab_free(&f);
}

static void writers_round_trip(void **state)
{
	struct ctx *c = *state;
	struct fabric f, g;
	ut_write_file(c->path, golden_ibnd, strlen(golden_ibnd));
	assert_int_equal(topo_read(&f, c->path, TOPO_AUTO), 0);
	char out[160];
	snprintf(out, sizeof(out), "%s/out.ibnd", c->dir);
	assert_int_equal(topo_write_ibnetdiscover(&f, out), 0);
	assert_int_equal(topo_read(&g, out, TOPO_AUTO), 0);
	check_golden_shape(&g);
	for (uint32_t p = 0; p < f.num_ports; p++) {
		const struct fab_port *x = &f.ports[p];
		uint32_t n = node_of(&g, f.nodes[x->node].guid);
		const struct fab_port *y = fab_port(&g, n, x->num);
		assert_int_equal(x->guid, y->guid);
		if (x->peer == FAB_NONE)
			continue;
		assert_int_equal(x->lid, y->lid);
		assert_int_equal(x->lmc, y->lmc);
		assert_int_equal(x->width, y->width);
		assert_int_equal(x->speed, y->speed);
		assert_int_equal(f.nodes[f.ports[x->peer].node].guid,
				 g.nodes[g.ports[y->peer].node].guid);
	}
	for (uint32_t n = 0; n < f.num_nodes; n++) {
		uint32_t m = node_of(&g, f.nodes[n].guid);
		assert_string_equal(f.nodes[n].desc, g.nodes[m].desc);
		assert_int_equal(f.nodes[n].sys_guid, g.nodes[m].sys_guid);
		assert_int_equal(f.nodes[n].vendor_id, g.nodes[m].vendor_id);
		assert_int_equal(f.nodes[n].enhanced_sp0, g.nodes[m].enhanced_sp0);
	}
	/* ibsim mode reads the writer's text to the same node GUIDs. */
	fab_free(&g);
	assert_int_equal(topo_read_ibsim_net(&g, out), 0);
	check_golden_shape(&g);
	fab_free(&g);
	/* DOT: switches boxes, CAs ellipses, every link once. */
	snprintf(out, sizeof(out), "%s/out.dot", c->dir);
	assert_int_equal(topo_write_dot(&f, out), 0);
	FILE *fp = fopen(out, "r");
	assert_non_null(fp);
	char line[512];
	int boxes = 0, ellipses = 0, edges = 0;
	while (fgets(line, sizeof(line), fp)) {
		boxes += strstr(line, "shape=box") != NULL;
		ellipses += strstr(line, "shape=ellipse") != NULL;
		edges += strstr(line, " -- ") != NULL;
	}
	fclose(fp);
	assert_int_equal(boxes, 2);
	assert_int_equal(ellipses, 4);
	assert_int_equal(edges, 6);
	/* Heat map: the busiest link red and widest, one held link dashed,
	 * an idle one blue. */
	{
		double *load = calloc(f.num_ports, sizeof(*load));
		uint8_t *held = calloc(f.num_ports, 1);
		uint32_t busy = FAB_NONE, idle = FAB_NONE, hold = FAB_NONE;
		int red = 0, blue = 0, dashed = 0, widest = 0;

		assert_non_null(load);
		assert_non_null(held);
		for (uint32_t p = 0; p < f.num_ports; p++) {
			uint32_t q = f.ports[p].peer;

			if (q == FAB_NONE || q < p)
				continue;
			if (busy == FAB_NONE)
				busy = p;
			else if (idle == FAB_NONE)
				idle = p;
			else if (hold == FAB_NONE)
				hold = p;
		}
		assert_true(hold != FAB_NONE);
		load[busy] = 40;
		load[f.ports[busy].peer] = 10;
		load[hold] = 99;        /* held: drawn avoided, not the max */
		held[hold] = 1;
		struct dot_heat heat = { .load = load, .unit = "routes", .held = held };
		assert_int_equal(topo_write_dot_heat(&f, out, &heat), 0);
		fp = fopen(out, "r");
		assert_non_null(fp);
		while (fgets(line, sizeof(line), fp)) {
			if (strstr(line, "color=\"0.000 1.000 1.000\"") &&
			    strstr(line, "label=\"40 / 10 routes\""))
				red++;
			widest += strstr(line, "penwidth=6.00") != NULL;
			blue += strstr(line, "color=\"0.667 1.000 0.550\"") != NULL;
			dashed += strstr(line, "style=dashed") && strstr(line, "avoided");
		}
		fclose(fp);
		assert_int_equal(red, 1);
		assert_int_equal(widest, 1);
		assert_int_equal(dashed, 1);
		assert_int_equal(blue, 6 - 2);
		free(load);
		free(held);
	}
	fab_free(&f);
}

struct bad_case {
	const char *name;
	int ibsim;              /* reader: 1 ibsim net, 0 ibnetdiscover */
	const char *text;
	unsigned line;          /* line the message must name */
};

#define SW_A "switchguid=0x10\nSwitch 4 \"S-a\"\n"
#define CA_B "caguid=0x20\nCa 2 \"H-b\"\n"

static const struct bad_case bad_cases[] = {
	{ "empty file", 0, "", 0 },
	{ "empty net", 1, "", 0 },
	{ "only comments", 1, "# nothing\n\n", 2 },
	{ "truncated header", 0, "switchguid=0x10\nSwitch 8 \"S-00", 2 },
	{ "header without id", 1, "Switch 8\n", 1 },
	{ "header without ports", 1, "Switch \"a\"\n", 1 },
	{ "zero ports", 1, "Switch 0 \"a\"\n", 1 },
	{ "too many ports", 1, "Switch 255 \"a\"\n", 1 },
	{ "truncated port line", 0, SW_A "[1]\t\"H-b", 3 },
	{ "port line without remote", 1, "Switch 4 \"a\"\n[1]\n", 2 },
	{ "port zero", 1, "Switch 4 \"a\"\n[0] \"b\"[1]\n", 2 },
	{ "port not a number", 1, "Switch 4 \"a\"\n[x] \"b\"[1]\n", 2 },
	{ "port > num_ports", 1, "Switch 4 \"a\"\n[5] \"b\"[1]\n", 2 },
	{ "port 300", 1, "Switch 4 \"a\"\n[300] \"b\"[1]\n", 2 },
	{ "remote port 0", 1, "Switch 4 \"a\"\n[1] \"b\"[0]\n", 2 },
	{ "remote port > its ports", 1,
	  "Switch 4 \"a\"\n[1] \"b\"[3]\n\nHca 2 \"b\"\n[1] \"a\"[1]\n", 2 },
	{ "unknown remote", 1, "Switch 4 \"a\"\n[1] \"zz\"[1]\n", 2 },
	{ "one-sided link", 1,
	  "Switch 4 \"a\"\n[1] \"b\"[1]\n\nHca 2 \"b\"\n", 2 },
	{ "inconsistent link", 1,
	  "Switch 4 \"a\"\n[1] \"b\"[1]\n\nHca 2 \"b\"\n[1] \"a\"[2]\n", 2 },
	{ "inconsistent link, remote later", 0,
	  SW_A "[1] \"H-b\"[2](22)\n\n" CA_B "[2](22) \"S-a\"[3]\n", 3 },
	{ "remote port guid mismatch", 0,
	  SW_A "[1] \"H-b\"[2](23)\n\n" CA_B "[2](22) \"S-a\"[1]\n", 3 },
	{ "self link", 1, "Switch 4 \"a\"\n[1] \"a\"[1]\n", 2 },
	{ "duplicate port line", 1,
	  "Switch 4 \"a\"\n[1] \"b\"[1]\n[1] \"b\"[2]\n", 3 },
	{ "duplicate node id", 1, "Switch 4 \"a\"\n\nSwitch 4 \"a\"\n", 3 },
	{ "duplicate guid", 0,
	  "switchguid=0x10\nSwitch 4 \"S-a\"\n\nswitchguid=0x10\nSwitch 4 \"S-c\"\n", 5 },
	{ "duplicate guid from ibsim bases", 1,
	  "Switch 4 \"a\"\n\nswitchguid=0x200000\nSwitch 4 \"c\"\n", 4 },
	{ "binary junk", 1, "Switch 4 \"a\"\n\x01\x02\x03\xff\xfe\n", 2 },
	{ "NUL bytes", 0, "switchguid=0x10\n\0\0\0Switch", 2 },
	{ "garbage line", 0, "hello world\n", 1 },
	{ "port outside record", 1, "[1] \"a\"[1]\n", 1 },
	{ "alias", 1, "Switch 4 \"a\"\n@[1] \"x\"\n", 2 },
	{ "bad rate", 0, SW_A "[1] \"H-b\"[1] # \"b\" lid 3 4xZZZ\n", 3 },
	{ "bad lid", 0, SW_A "\n" CA_B "[1](21) \"S-a\"[1] # lid x lmc 0\n", 6 },
	{ "lmc 9", 0, SW_A "\n" CA_B "[1](21) \"S-a\"[1] # lid 4 lmc 9\n", 6 },
	{ "text after id", 1, "Switch 4 \"a\" junk\n", 1 },
	{ "text after port", 0, SW_A "[1] \"H-b\"[1] junk\n", 3 },
	{ "unterminated remote desc", 0,
	  SW_A "\n" CA_B "[1](21) \"S-a\"[1] # lid 4 lmc 0 \"oops\n", 6 },
	{ "missing remote port (ibnd)", 0, SW_A "[1] \"H-b\"\n", 3 },
	{ "no guid (ibnd)", 0, "Switch 4 \"foo\"\n", 1 },
	{ "guid line of other type", 0, "caguid=0x10\nSwitch 4 \"S-a\"\n", 2 },
	{ "bad guid value", 0, "switchguid=0xzz\n", 1 },
	{ "bad guid in parens", 0, SW_A "\n" CA_B "[1](xyz) \"S-a\"[1]\n", 6 },
	{ "record not ended (ibsim)", 1,
	  "Switch 4 \"a\"\n[1] \"b\"[1]\nHca 2 \"b\"\n[1] \"a\"[1]\n", 3 },
	{ "include (ibsim)", 1, "include \"other.net\"\n", 1 },
	{ "width out of range (ibsim)", 1, "width=99\n", 1 },
	{ "port width option out of range", 1,
	  "Switch 4 \"a\"\n[1] \"b\"[1] w=0\n", 2 },
	{ "no common width", 1,
	  "Switch 4 \"a\"\n[1] \"b\"[1] w=1\n\nHca 1 \"b\"\n[1] \"a\"[1] w=2\n", 2 },
	{ "reserved char in id", 1, "Switch 4 \"a#b\"\n", 1 },
};

static void malformed_inputs(void **state)
{
	struct ctx *c = *state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		size_t len = strlen(b->text);
		if (!strcmp(b->name, "NUL bytes"))
			len = 25;
		ut_write_file(c->path, b->text, len);
		log_reset(c);
		struct fabric f;
		int r = b->ibsim ? topo_read_ibsim_net(&f, c->path) :
			topo_read_ibnetdiscover(&f, c->path);
		char want[160];
		snprintf(want, sizeof(want), "%s:%u:", c->path, b->line);
		const char *log = log_text(c);
		if (r != -EINVAL || !strstr(log, want))
			fail_msg("case \"%s\": got %d, log \"%s\", wanted -EINVAL and \"%s\"",
				 b->name, r, log, want);
		/* A failed read leaves an empty fabric to free. */
		assert_int_equal(f.num_nodes, 0);
		fab_free(&f);
	}
}

static void missing_file(void **state)
{
	struct ctx *c = *state;
	struct fabric f;
	char p[160];
	snprintf(p, sizeof(p), "%s/nope", c->dir);
	assert_int_equal(topo_read(&f, p, TOPO_AUTO), -ENOENT);
	assert_int_equal(topo_read_ibsim_net(&f, p), -ENOENT);
	assert_int_equal(topo_read(&f, c->path, (enum topo_format)42), -EINVAL);
}

/* Two CA ports with one port GUID in a dump: the second is left out of
 * routing (unlinked), not merged, and --save-guid2lid cannot list it
 * twice (it gets no LID). */
static void duplicate_port_guid(void **state)
{
	struct ctx *c = *state;
	struct fabric f;
	char p[160];
	FILE *fp;
	uint32_t linked = 0;

	snprintf(p, sizeof(p), "%s/dup.ibnd", c->dir);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs("# Topology file: generated on a test\n\n"
	      "vendid=0x2c9\ncaguid=0x10\nCa\t1 \"H-0000000000000010\"\t# \"a\"\n"
	      "[1](11)\t\"S-0000000000000100\"[1]\t# lid 1 lmc 0 \"sw\" lid 3 4xSDR\n\n"
	      "vendid=0x2c9\ncaguid=0x20\nCa\t1 \"H-0000000000000020\"\t# \"b\"\n"
	      "[1](11)\t\"S-0000000000000100\"[2]\t# lid 2 lmc 0 \"sw\" lid 3 4xSDR\n\n"
	      "vendid=0x2c9\nswitchguid=0x100\nSwitch\t4 \"S-0000000000000100\"\t# \"sw\" base port 0 lid 3 lmc 0\n"
	      "[1]\t\"H-0000000000000010\"[1](11)\t# \"a\" lid 1 4xSDR\n"
	      "[2]\t\"H-0000000000000020\"[1](11)\t# \"b\" lid 2 4xSDR\n", fp);
	fclose(fp);
	assert_int_equal(topo_read(&f, p, TOPO_AUTO), 0);
	for (uint32_t q = 0; q < f.num_ports; q++)
		if (!fab_is_switch(&f, f.ports[q].node) && f.ports[q].guid == 0x11 &&
		    f.ports[q].peer != FAB_NONE)
			linked++;
	assert_int_equal(linked, 1);
	fab_free(&f);
}

/* Mutations of the goldens (truncation, byte flips) must never crash and
 * must either read or fail with -EINVAL. */
static void mutations_never_crash(void **state)
{
	struct ctx *c = *state;
	const char *srcs[3] = { golden_ibnd, golden_net, golden_osm_subnet };
	static const enum topo_format fmts[3] = { TOPO_IBNETDISCOVER, TOPO_IBSIM_NET, TOPO_OSM_SUBNET };
	unsigned seed = 12345, ok = 0, bad = 0;
	for (int s = 0; s < 3; s++) {
		size_t len = strlen(srcs[s]);
		char *buf = malloc(len);
		for (int iter = 0; iter < 400; iter++) {
			memcpy(buf, srcs[s], len);
			size_t n = len;
			if (iter % 2) {
				n = (size_t)(rand_r(&seed) % len);
			} else {
				for (int k = 0; k < 3; k++)
					buf[rand_r(&seed) % len] = (char)(rand_r(&seed) % 256);
			}
			ut_write_file(c->path, buf, n);
			log_reset(c);
			struct fabric f;
			int r = topo_read(&f, c->path, fmts[s]);
			assert_true(r == 0 || r == -EINVAL);
			if (r)
				assert_non_null(strstr(log_text(c), c->path));
			r ? bad++ : ok++;
			fab_free(&f);
		}
		free(buf);
	}
	assert_true(bad > 100);       /* most mutations break the file */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(golden_ibnetdiscover, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_ibsim_net, setup, teardown),
		cmocka_unit_test_setup_teardown(ibsim_guid_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_osm_subnet_lst, setup, teardown),
		cmocka_unit_test_setup_teardown(osm_subnet_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(writers_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(malformed_inputs, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicate_port_guid, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(mutations_never_crash, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
