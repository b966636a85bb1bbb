/* SMP encoding and decoding with libibmad's field accessors. */
#include "smp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/mad.h>

#include "gmp.h"

/* libibmad takes non-const buffers even to read. */
#define RO(p) ((void *)(uintptr_t)(p))

int smp_path_extend(struct smp_path *dst, const struct smp_path *src,
		    uint8_t port)
{
	if (src->hops >= SMP_MAX_HOPS)
		return -E2BIG;
	if (dst != src)
		*dst = *src;
	dst->hops++;
	dst->port[dst->hops] = port;
	return 0;
}

char *smp_path_str(const struct smp_path *p, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return buf;
	n += (size_t)snprintf(buf, len, "0");
	for (unsigned i = 1; i <= p->hops && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, ",%u", p->port[i]);
	return buf;
}

static void smp_init_common(uint8_t *mad, uint8_t cls, uint8_t method,
			    uint16_t attr, uint32_t mod, uint64_t tid)
{
	/* SMPs are MADs of class version 1 (IBA 14.2.1.1). */
	gmp_init_request(mad, cls, 1, method, attr, mod, tid);
}

void smp_init_dr(uint8_t *mad, const struct smp_path *path, uint8_t method,
		 uint16_t attr, uint32_t mod, uint64_t tid)
{
	uint8_t initial[64] = { 0 };

	smp_init_common(mad, SMP_CLASS_DR, method, attr, mod, tid);
	/* IBA 14.2.2.2: pure directed route, both LIDs permissive. */
	mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, path->hops);
	mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, 0);
	mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 0);
	mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, 0xffff);
	mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, 0xffff);
	memcpy(initial, path->port, (size_t)path->hops + 1);
	initial[0] = 0;
	mad_set_array(mad, 0, IB_DRSMP_PATH_F, initial);
}

void smp_init_lid(uint8_t *mad, uint8_t method, uint16_t attr, uint32_t mod,
		  uint64_t tid)
{
	smp_init_common(mad, SMP_CLASS_LID, method, attr, mod, tid);
}

uint8_t smp_class(const uint8_t *mad)
{
	return (uint8_t)mad_get_field(RO(mad), 0, IB_MAD_MGMTCLASS_F);
}

uint8_t smp_method(const uint8_t *mad)
{
	return (uint8_t)mad_get_field(RO(mad), 0, IB_MAD_METHOD_F);
}

int smp_is_response(const uint8_t *mad)
{
	return (int)mad_get_field(RO(mad), 0, IB_MAD_RESPONSE_F);
}

uint16_t smp_attr(const uint8_t *mad)
{
	return (uint16_t)mad_get_field(RO(mad), 0, IB_MAD_ATTRID_F);
}

uint32_t smp_mod(const uint8_t *mad)
{
	return mad_get_field(RO(mad), 0, IB_MAD_ATTRMOD_F);
}

uint64_t smp_tid(const uint8_t *mad)
{
	return mad_get_field64(RO(mad), 0, IB_MAD_TRID_F);
}

uint16_t smp_status(const uint8_t *mad)
{
	if (smp_class(mad) == SMP_CLASS_DR)
		return (uint16_t)mad_get_field(RO(mad), 0, IB_DRSMP_STATUS_F);
	return (uint16_t)mad_get_field(RO(mad), 0, IB_MAD_STATUS_F);
}

void smp_make_response(uint8_t *mad, uint16_t status)
{
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	if (smp_class(mad) == SMP_CLASS_DR) {
		mad_set_field(mad, 0, IB_DRSMP_STATUS_F, status);
		mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 1);
	} else {
		mad_set_field(mad, 0, IB_MAD_STATUS_F, status);
	}
}

void smp_get_nodeinfo(const uint8_t *data, struct smp_nodeinfo *ni)
{
	void *d = RO(data);

	memset(ni, 0, sizeof(*ni));
	ni->type = (uint8_t)mad_get_field(d, 0, IB_NODE_TYPE_F);
	ni->num_ports = (uint8_t)mad_get_field(d, 0, IB_NODE_NPORTS_F);
	ni->local_port = (uint8_t)mad_get_field(d, 0, IB_NODE_LOCAL_PORT_F);
	ni->sys_guid = mad_get_field64(d, 0, IB_NODE_SYSTEM_GUID_F);
	ni->node_guid = mad_get_field64(d, 0, IB_NODE_GUID_F);
	ni->port_guid = mad_get_field64(d, 0, IB_NODE_PORT_GUID_F);
	ni->device_id = (uint16_t)mad_get_field(d, 0, IB_NODE_DEVID_F);
	ni->vendor_id = mad_get_field(d, 0, IB_NODE_VENDORID_F);
}

void smp_get_portinfo(const uint8_t *data, struct smp_portinfo *pi)
{
	void *d = RO(data);

	memset(pi, 0, sizeof(*pi));
	pi->gid_prefix = mad_get_field64(d, 0, IB_PORT_GID_PREFIX_F);
	pi->lid = (uint16_t)mad_get_field(d, 0, IB_PORT_LID_F);
	pi->sm_lid = (uint16_t)mad_get_field(d, 0, IB_PORT_SMLID_F);
	pi->lmc = (uint8_t)mad_get_field(d, 0, IB_PORT_LMC_F);
	pi->state = (uint8_t)mad_get_field(d, 0, IB_PORT_STATE_F);
	pi->phys_state = (uint8_t)mad_get_field(d, 0, IB_PORT_PHYS_STATE_F);
	pi->width_active = (uint8_t)mad_get_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
	pi->speed_active = (uint8_t)mad_get_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	pi->mtu_cap = (uint8_t)mad_get_field(d, 0, IB_PORT_MTU_CAP_F);
	pi->neighbor_mtu = (uint8_t)mad_get_field(d, 0, IB_PORT_NEIGHBOR_MTU_F);
	pi->vl_cap = (uint8_t)mad_get_field(d, 0, IB_PORT_VL_CAP_F);
	pi->oper_vls = (uint8_t)mad_get_field(d, 0, IB_PORT_OPER_VLS_F);
	pi->subnet_timeout = (uint8_t)mad_get_field(d, 0, IB_PORT_SUBN_TIMEOUT_F);
	pi->local_port = (uint8_t)mad_get_field(d, 0, IB_PORT_LOCAL_PORT_F);
	pi->m_key = mad_get_field64(d, 0, IB_PORT_MKEY_F);
	pi->mkey_prot = (uint8_t)mad_get_field(d, 0, IB_PORT_MKEY_PROT_BITS_F);
	pi->mkey_lease = (uint16_t)mad_get_field(d, 0, IB_PORT_MKEY_LEASE_F);
	pi->hoq_life = (uint8_t)mad_get_field(d, 0, IB_PORT_HOQ_LIFE_F);
	pi->vl_high_limit = (uint8_t)mad_get_field(d, 0, IB_PORT_VL_HIGH_LIMIT_F);
	pi->vl_stall = (uint8_t)mad_get_field(d, 0, IB_PORT_VL_STALL_COUNT_F);
}

void smp_get_switchinfo(const uint8_t *data, struct smp_switchinfo *si)
{
	void *d = RO(data);

	memset(si, 0, sizeof(*si));
	si->lft_cap = (uint16_t)mad_get_field(d, 0, IB_SW_LINEAR_FDB_CAP_F);
	si->lft_top = (uint16_t)mad_get_field(d, 0, IB_SW_LINEAR_FDB_TOP_F);
	si->port_state_change = (uint8_t)mad_get_field(d, 0, IB_SW_STATE_CHANGE_F);
	si->enhanced_port0 = (uint8_t)mad_get_field(d, 0, IB_SW_ENHANCED_PORT0_F);
	si->life_time = (uint8_t)mad_get_field(d, 0, IB_SW_LIFE_TIME_F);
}

void smp_get_nodedesc(const uint8_t *data, char *out)
{
	/* IBA 14.2.5.2: 64 bytes of UTF-8, NUL-padded (not necessarily
	 * terminated). Non-printable bytes become '?'. */
	size_t n;

	for (n = 0; n < 64 && data[n]; n++)
		out[n] = (data[n] < 0x20 || data[n] == 0x7f) ? '?' : (char)data[n];
	out[n] = 0;
}

void smp_set_sminfo(uint8_t *data, const struct smp_sminfo *si)
{
	memset(data, 0, 64);
	mad_set_field64(data, 0, IB_SMINFO_GUID_F, si->guid);
	mad_set_field64(data, 0, IB_SMINFO_KEY_F, si->sm_key);
	mad_set_field(data, 0, IB_SMINFO_ACT_F, si->act_count);
	mad_set_field(data, 0, IB_SMINFO_PRIO_F, si->priority);
	mad_set_field(data, 0, IB_SMINFO_STATE_F, si->state);
}

void smp_get_sminfo(const uint8_t *data, struct smp_sminfo *si)
{
	void *d = RO(data);

	si->guid = mad_get_field64(d, 0, IB_SMINFO_GUID_F);
	si->sm_key = mad_get_field64(d, 0, IB_SMINFO_KEY_F);
	si->act_count = mad_get_field(d, 0, IB_SMINFO_ACT_F);
	si->priority = (uint8_t)mad_get_field(d, 0, IB_SMINFO_PRIO_F);
	si->state = (uint8_t)mad_get_field(d, 0, IB_SMINFO_STATE_F);
}

uint16_t smp_notice_trap_num(const uint8_t *data)
{
	if (!mad_get_field(RO(data), 0, IB_NOTICE_IS_GENERIC_F))
		return 0;
	return (uint16_t)mad_get_field(RO(data), 0, IB_NOTICE_TRAP_NUMBER_F);
}

uint16_t smp_notice_issuer_lid(const uint8_t *data)
{
	return (uint16_t)mad_get_field(RO(data), 0, IB_NOTICE_ISSUER_LID_F);
}

void smp_build_portinfo_set(uint8_t *data, const uint8_t *current,
			    const struct smp_port_set *s)
{
	memcpy(data, current, 64);
	mad_set_field64(data, 0, IB_PORT_GID_PREFIX_F, s->gid_prefix);
	mad_set_field(data, 0, IB_PORT_LID_F, s->lid);
	mad_set_field(data, 0, IB_PORT_SMLID_F, s->sm_lid);
	mad_set_field(data, 0, IB_PORT_LMC_F, s->lmc);
	mad_set_field(data, 0, IB_PORT_SUBN_TIMEOUT_F, s->subnet_timeout);
	if (s->neighbor_mtu)
		mad_set_field(data, 0, IB_PORT_NEIGHBOR_MTU_F, s->neighbor_mtu);
	if (s->oper_vls)
		mad_set_field(data, 0, IB_PORT_OPER_VLS_F, s->oper_vls);
	mad_set_field(data, 0, IB_PORT_STATE_F, s->state);
	if (s->set_mkey) {
		mad_set_field64(data, 0, IB_PORT_MKEY_F, s->m_key);
		mad_set_field(data, 0, IB_PORT_MKEY_PROT_BITS_F, s->mkey_prot);
		mad_set_field(data, 0, IB_PORT_MKEY_LEASE_F, s->mkey_lease);
	}
	if (s->set_timers) {
		mad_set_field(data, 0, IB_PORT_HOQ_LIFE_F, s->hoq_life);
		mad_set_field(data, 0, IB_PORT_VL_STALL_COUNT_F, s->vl_stall);
	}
	if (s->set_vl_high_limit)
		mad_set_field(data, 0, IB_PORT_VL_HIGH_LIMIT_F, s->vl_high_limit);
	mad_set_field(data, 0, IB_PORT_CLIENT_REREG_F, s->client_rereg ? 1 : 0);
	mad_set_field(data, 0, IB_PORT_PHYS_STATE_F, s->phys_state);
	mad_set_field(data, 0, IB_PORT_LINK_SPEED_ENABLED_F, 0);
	mad_set_field(data, 0, IB_PORT_LINK_WIDTH_ENABLED_F, 0);
}

void smp_build_switchinfo_set(uint8_t *data, const uint8_t *current,
			      uint16_t lft_top, int clear_change, int life_time)
{
	memcpy(data, current, 64);
	if (life_time >= 0)
		mad_set_field(data, 0, IB_SW_LIFE_TIME_F, (uint32_t)life_time);
	mad_set_field(data, 0, IB_SW_LINEAR_FDB_TOP_F, lft_top);
	mad_set_field(data, 0, IB_SW_STATE_CHANGE_F, clear_change ? 1 : 0);
}

void smp_set_lft_block(uint8_t *data, const uint8_t *ports64)
{
	mad_set_array(data, 0, IB_LINEAR_FORW_TBL_F, RO(ports64));
}

void smp_get_lft_block(const uint8_t *data, uint8_t *ports64)
{
	mad_get_array(RO(data), 0, IB_LINEAR_FORW_TBL_F, ports64);
}

/* Rates (IBA Table 224) in units of 0.25 Gb/s, by enum value. */
const uint16_t smp_rate_q[SMP_NUM_RATES] = {
	[2] = 10, [3] = 40, [4] = 120, [5] = 20, [6] = 80, [7] = 160,
	[8] = 240, [9] = 320, [10] = 480, [11] = 56, [12] = 224, [13] = 448,
	[14] = 672, [15] = 100, [16] = 400, [17] = 800, [18] = 1200,
	[19] = 112, [20] = 200, [21] = 1600, [22] = 2400,
};

uint8_t smp_portinfo_rate(const uint8_t *pi)
{
	static const uint8_t lanes[17] = { [1] = 1, [2] = 4, [4] = 8, [8] = 12,
					   [16] = 2 };
	void *d = RO(pi);
	unsigned w = mad_get_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
	unsigned sp = mad_get_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	unsigned ext = mad_get_field(d, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	unsigned lane_q, q, best = 2;

	/* Lane speed in 0.25 Gb/s data units as the rate table counts them:
	 * SDR 2.5, DDR 5, QDR 10, FDR 14, EDR 25, HDR 50. */
	if (ext == 1)
		lane_q = 56;
	else if (ext == 2)
		lane_q = 100;
	else if (ext == 4)
		lane_q = 200;
	else
		lane_q = sp == 4 ? 40 : sp == 2 ? 20 : 10;
	q = (w < 17 && lanes[w] ? lanes[w] : 1) * lane_q;
	for (unsigned r = 2; r < SMP_NUM_RATES; r++)
		if (smp_rate_q[r] && smp_rate_q[r] <= q && smp_rate_q[r] > smp_rate_q[best])
			best = r;
	return (uint8_t)best;
}

uint8_t smp_portinfo_mtu(const uint8_t *pi)
{
	void *d = RO(pi);
	unsigned m = mad_get_field(d, 0, IB_PORT_NEIGHBOR_MTU_F);

	return (uint8_t)(m ? m : mad_get_field(d, 0, IB_PORT_MTU_CAP_F));
}
