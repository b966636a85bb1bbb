/* Subnet management packets (IBA 14.2): building directed-route and
 * LID-routed SMPs and decoding the attributes the SM reads, all through
 * libibmad's field accessors (mad_get_field / mad_set_field). A MAD here is
 * always the 256-byte SMP; the attribute data sits at IB_SMP_DATA_OFFS. */
#ifndef IBSM_MAD_SMP_H
#define IBSM_MAD_SMP_H

#include <stddef.h>
#include <stdint.h>
#include "../core/dr_path.h"

#define SMP_SIZE 256
#define SMP_CLASS_LID 0x01              /* SubnMgt, LID routed */
#define SMP_CLASS_DR 0x81               /* SubnMgt, directed route */
#define SMP_ATTR_NOTICE 0x0002          /* Notice, carried by SubnTrap (IBA 14.2.5.1) */


/* The path one hop further, out of `port`. Returns 0 or -E2BIG. */
int smp_path_extend(struct smp_path *dst, const struct smp_path *src,
		    uint8_t port);
/* "0,1,3,5" (as ibnetdiscover / smpquery -D print it) into buf. */
char *smp_path_str(const struct smp_path *p, char *buf, size_t len);

/* Fill a zeroed 256-byte MAD as a DR SMP (permissive DrSLID/DrDLID, hop
 * pointer 0, direction out) or a LID-routed SMP. tid is the full 64-bit
 * transaction id. */
void smp_init_dr(uint8_t *mad, const struct smp_path *path, uint8_t method,
		 uint16_t attr, uint32_t mod, uint64_t tid);
void smp_init_lid(uint8_t *mad, uint8_t method, uint16_t attr, uint32_t mod,
		  uint64_t tid);

static inline uint8_t *smp_data(uint8_t *mad)
{
	return mad + 64;                /* IB_SMP_DATA_OFFS */
}

/* Header fields of a received SMP (smp_method: without the response
 * bit, which smp_is_response reports). */
uint8_t smp_class(const uint8_t *mad);
uint8_t smp_method(const uint8_t *mad);
int smp_is_response(const uint8_t *mad);
uint16_t smp_attr(const uint8_t *mad);
uint32_t smp_mod(const uint8_t *mad);
uint64_t smp_tid(const uint8_t *mad);
/* MAD status (for DR SMPs the 15-bit status, D bit excluded). */
uint16_t smp_status(const uint8_t *mad);
/* Turn a received request into its response in place (GetResp, response
 * bit, status); for DR SMPs also set direction in. */
void smp_make_response(uint8_t *mad, uint16_t status);

/* Decoded attributes: only what the SM needs. */
struct smp_nodeinfo {
	uint8_t type;                   /* 1 CA, 2 switch, 3 router */
	uint8_t num_ports;
	uint8_t local_port;             /* port the SMP entered by */
	uint64_t sys_guid, node_guid, port_guid;
	uint16_t device_id;
	uint32_t vendor_id;
};

struct smp_portinfo {
	uint64_t gid_prefix;
	uint16_t lid, sm_lid;
	uint8_t lmc;
	uint8_t state;                  /* PortState 1..4 */
	uint8_t phys_state;             /* 5 = LinkUp */
	uint8_t width_active, speed_active;
	uint8_t mtu_cap, neighbor_mtu;
	uint8_t vl_cap, oper_vls;
	uint8_t subnet_timeout;
	uint8_t local_port;
	uint64_t m_key;                 /* 0 when the SMA hides it (IBA 14.2.4.1) */
	uint8_t mkey_prot;              /* M_KeyProtectBits */
	uint16_t mkey_lease;            /* M_KeyLeasePeriod, seconds */
	uint8_t hoq_life, vl_stall;     /* HOQLife, VLStallCount */
	uint8_t vl_high_limit;          /* VLHighLimit */
};

struct smp_switchinfo {
	uint16_t lft_cap;               /* LinearFDBCap */
	uint16_t lft_top;               /* LinearFDBTop */
	uint8_t port_state_change;
	uint8_t enhanced_port0;
	uint8_t life_time;
};

struct smp_sminfo {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;
	uint8_t state;                  /* 1 discovering .. 3 master */
};

enum smp_sm_state {
	SMP_SM_NOTACTIVE = 0,
	SMP_SM_DISCOVERING = 1,
	SMP_SM_STANDBY = 2,
	SMP_SM_MASTER = 3,
};

void smp_get_nodeinfo(const uint8_t *data, struct smp_nodeinfo *ni);
void smp_get_portinfo(const uint8_t *data, struct smp_portinfo *pi);
void smp_get_switchinfo(const uint8_t *data, struct smp_switchinfo *si);
/* NodeDescription into a NUL-terminated string (out holds 65 bytes). */
void smp_get_nodedesc(const uint8_t *data, char *out);
void smp_set_sminfo(uint8_t *data, const struct smp_sminfo *si);
void smp_get_sminfo(const uint8_t *data, struct smp_sminfo *si);

/* Trap (Notice attribute, IBA 14.2.5.1): generic trap number, issuer LID. */
uint16_t smp_notice_trap_num(const uint8_t *data);
uint16_t smp_notice_issuer_lid(const uint8_t *data);

/* The SubnSet(PortInfo) the SM sends: start from what the port reported
 * (`current` data, so capability fields the SMA checks stay as they are),
 * then set the fields the SM owns. PortPhysicalState and the link speed /
 * width enables are set to 0 ("no change", IBA 14.2.5.6). */
struct smp_port_set {
	uint64_t gid_prefix;
	uint16_t lid, sm_lid;
	uint8_t lmc;
	uint8_t subnet_timeout;
	uint8_t neighbor_mtu;           /* 0 = leave */
	uint8_t oper_vls;               /* 0 = leave */
	uint8_t state;                  /* 0 no change, 1 DOWN, 3 ARMED, 4 ACTIVE */
	uint8_t phys_state;             /* 0 no change, 2 Polling, 3 Disabled */
	int set_mkey;                   /* write the three M_Key fields below */
	uint64_t m_key;
	uint8_t mkey_prot;
	uint16_t mkey_lease;
	/* Switch external ports (IBA 14.2.5.6, 18.2.5.4): HOQLife (5 bits,
	 * 4.096 us * 2^n, >= 20 infinite) and VLStallCount (3 bits), written
	 * when set_timers is set. */
	int set_timers;
	uint8_t hoq_life, vl_stall;
	/* ClientReregister (IBA 14.4.11): the port's clients re-register
	 * their SA state (multicast joins, services, subscriptions). */
	uint8_t client_rereg;
	/* VLHighLimit (IBA 14.2.5.6): the high-priority VLArb budget, set
	 * from the QoS keys when set_vl_high_limit is set. */
	int set_vl_high_limit;
	uint8_t vl_high_limit;
};
void smp_build_portinfo_set(uint8_t *data, const uint8_t *current,
			    const struct smp_port_set *s);

/* SwitchInfo Set from the current data: LinearFDBTop, and clear the
 * PortStateChange bit (writing 1 clears it, IBA 14.2.5.4); LifeTimeValue
 * (5 bits, 4.096 us * 2^n a packet may live in the switch) when
 * life_time >= 0. */
void smp_build_switchinfo_set(uint8_t *data, const uint8_t *current,
			      uint16_t lft_top, int clear_change, int life_time);

/* Link properties from raw PortInfo: the rate enum (IBA Table 224) of the
 * active width x lane speed (extended speeds included), and the MTU the
 * link runs at (NeighborMTU, else MTUCap). smp_rate_q orders rate enums:
 * their speed in 0.25 Gb/s units (0 for values that are no rate). */
#define SMP_NUM_RATES 23
extern const uint16_t smp_rate_q[SMP_NUM_RATES];
uint8_t smp_portinfo_rate(const uint8_t *pi);
uint8_t smp_portinfo_mtu(const uint8_t *pi);

/* One 64-entry LinearForwardingTable block (IBA 14.2.5.10). */
void smp_set_lft_block(uint8_t *data, const uint8_t *ports64);
void smp_get_lft_block(const uint8_t *data, uint8_t *ports64);

#endif
