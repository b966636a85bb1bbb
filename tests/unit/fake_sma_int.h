/* Inside the fake SMA model (fake_sma.c: the SMAs' attributes;
 * fake_wire.c: routing SMPs through the graph, the wire, the knobs). */
#ifndef IBSM_TESTS_FAKE_SMA_INT_H
#define IBSM_TESTS_FAKE_SMA_INT_H

#include <infiniband/mad.h>
#include "fake_sma.h"

#define RO(p) ((void *)(uintptr_t)(p))

#define FAKE_LFT_CAP 0xC000         /* LinearFDBCap: the unicast range */
#define FAKE_MFT_CAP 1024           /* MulticastFDBCap */
#define FAKE_PKEY_CAP 32            /* PartitionCap, enforcement cap: 1 block */
#define FAKE_MAX_SMS 4
#define FAKE_MAX_HOPS 64            /* a LID-routed SMP lives this long */

#define STS_UNSUPPORTED IB_MAD_STS_METHOD_ATTR_NOT_SUPPORTED    /* 0x0C */
#define STS_INVALID IB_MAD_STS_INV_ATTR_VALUE                   /* 0x1C */

/* PortInfo.CapabilityMask bits (IBA 14.2.5.6) */
#define CAP_IS_SM 0x2
#define CAP_TRAP 0x8
#define CAP_SL_MAP 0x40
#define CAP_REREG 0x02000000

struct fake_node {
	uint8_t dead, silent;
	uint8_t sw_info[64];
	uint8_t *lft;                   /* switches: FAKE_LFT_CAP entries */
	uint16_t *mft;                  /* switches: FAKE_MFT_CAP x positions */
	uint8_t (*sl2vl)[8];            /* switch: [in][out]; CA: [port] */
};

struct fake_port {
	uint8_t pi[64];
	uint16_t pkey[FAKE_PKEY_CAP];
	uint8_t vlarb[4][64];
};

struct fake_peer_sm {
	uint32_t node;
	uint8_t port, priority, state;
	uint64_t guid, sm_key;
	uint32_t act_count;
};

struct fake_rx {
	uint8_t mad[SMP_SIZE];
	uint16_t slid;
	uint32_t sqp;
	int status;
};

/* A transport attached at a CA port (an SM): what it sends starts there,
 * what reaches it waits in rx until its mt_poll takes it. */
struct fake_att {
	struct fake_sma *s;
	struct mad_transport *t;        /* NULL until opened */
	uint32_t node;
	uint8_t port;
	unsigned busy;                  /* inside its send or a pump */
	struct fake_rx *rx;
	size_t rx_head, rx_len, rx_cap;
};

/* A request handed to another attached SM, waiting for its answer. */
struct fake_pending {
	uint64_t tid;
	uint8_t responder, requester, used;
};

#define FAKE_MAX_ATT 4
#define FAKE_MAX_PENDING 64

struct fake_sma {
	struct fabric f;
	uint32_t sm_node;               /* the first SM's port (att[0]) */
	uint8_t sm_port;
	struct fake_node *node;
	struct fake_port *port;
	struct fake_att att[FAKE_MAX_ATT];
	unsigned num_att;
	struct fake_pending pending[FAKE_MAX_PENDING];
	uint64_t trap_tid;
	unsigned count[3][64], all, dropped, gmps;
	uint16_t drop_attr;
	uint8_t drop_method;
	unsigned drop_n;
	unsigned loss_permille;
	uint64_t rng;
	struct fake_peer_sm sms[FAKE_MAX_SMS];
	unsigned num_sms;
};

int fake_is_sw(const struct fake_sma *s, uint32_t n);
uint8_t fake_pi_get(const struct fake_sma *s, uint32_t p, enum MAD_FIELDS fld);
void fake_set_state(struct fake_sma *s, uint32_t p, uint8_t state, uint8_t phys);
/* Node n's SMA answers the SMP that entered by port `in`: the data is
 * turned into the answer in place; returns the MAD status. */
uint16_t fake_sma_answer(struct fake_sma *s, uint32_t n, uint8_t in,
			 uint8_t *mad);

#endif
