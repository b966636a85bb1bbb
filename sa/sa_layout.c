/* Component tables of the SA records and the generic accessors over them
 * (IBA 15.2.5; widths in bits, in wire order). */
#include "sa_layout.h"

#include <string.h>

#define L(n, rl, ...) \
	static const uint16_t n##_w[] = { __VA_ARGS__ }; \
	const struct sa_layout n = { #n, n##_w, sizeof(n##_w) / sizeof(n##_w[0]), rl }

/* NodeRecord 15.2.5.2: LID, reserved, NodeInfo (14.2.5.3), NodeDescription. */
L(sa_node_rec, 108, 16, 16, 8, 8, 8, 8, 64, 64, 64, 16, 16, 32, 8, 24, 512);
/* PortInfoRecord 15.2.5.3: EndportLID, PortNum, Options, PortInfo 14.2.5.6
 * component by component (M_Key .. LinkSpeedExtEnabled). */
L(sa_portinfo_rec, 68, 16, 8, 8,
  64, 64, 16, 16, 32, 16, 16, 8, 8, 8, 8,   /* M_Key .. LinkWidthActive */
  4, 4, 4, 4, 2, 3, 3, 4, 4, 4, 4, 4, 4,    /* LinkSpeedSupported .. InitType */
  8, 8, 8, 4, 4, 3, 5, 4, 1, 1, 1, 1,       /* VLHighLimit .. FilterRawOutbound */
  16, 16, 16, 8, 1, 2, 5, 3, 5, 4, 4,       /* M_KeyViolations .. OverrunErrors */
  16, 8, 24, 16, 4, 4, 3, 5);               /* MaxCreditHint .. LinkSpeedExtEnabled */
/* LinkRecord 15.2.5.13. */
L(sa_link_rec, 6, 16, 8, 8, 16);
/* SwitchInfoRecord 15.2.5.4: LID, reserved, SwitchInfo 14.2.5.4 (20 bytes
 * as one component after the first fields: LinearFDBCap .. MulticastFDBTop). */
L(sa_swinfo_rec, 24, 16, 16, 160);
/* LinearForwardingTableRecord 15.2.5.6. */
L(sa_lft_rec, 72, 16, 16, 32, 512);
/* GUIDInfoRecord 15.2.5.18: LID, BlockNum, reserved, reserved, 8 GUIDs. */
L(sa_guidinfo_rec, 72, 16, 8, 8, 32, 64, 64, 64, 64, 64, 64, 64, 64);
/* P_KeyTableRecord 15.2.5.11: LID, BlockNum, PortNum, reserved, table. */
L(sa_pkey_rec, 72, 16, 16, 8, 24, 512);
/* SMInfoRecord 15.2.5.9: LID, reserved, SMInfo 14.2.5.13. */
L(sa_sminfo_rec, 25, 16, 16, 64, 64, 32, 4, 4);
/* SL2VLTableRecord 15.2.5.4: LID, InputPortNum, OutputPortNum, reserved,
 * the 16 4-bit entries as one component. */
L(sa_sl2vl_rec, 16, 16, 8, 8, 32, 64);
/* VLArbitrationTableRecord 15.2.5.9: LID, OutputPortNum, BlockNum,
 * reserved, one 32-entry block of VLArbitrationTable (14.2.5.9). */
L(sa_vlarb_rec, 72, 16, 8, 8, 32, 512);
/* PathRecord 15.2.5.16: ServiceID (two 32-bit components), DGID, SGID,
 * DLID, SLID, RawTraffic, reserved, FlowLabel, HopLimit, TClass,
 * Reversible, NumbPath, P_Key, QoSClass, SL, MTUSelector, MTU,
 * RateSelector, Rate, PacketLifeTimeSelector, PacketLifeTime, Preference,
 * reserved. */
L(sa_path_rec, 64, 32, 32, 128, 128, 16, 16, 1, 3, 20, 8, 8, 1, 7, 16, 12, 4,
  2, 6, 2, 6, 2, 6, 8, 48);
/* MultiPathRecord 15.2.5.17: RawTraffic .. PacketLifeTime as in
 * PathRecord, ServiceID8MSB, IndependenceSelector, reserved, SGIDCount,
 * DGIDCount, ServiceID56LSB; then the SGIDs and DGIDs (16 bytes each),
 * outside the component table. */
L(sa_mpr_rec, 24, 1, 3, 20, 8, 8, 1, 7, 16, 12, 4, 2, 6, 2, 6, 2, 6,
  8, 2, 6, 8, 8, 56);

unsigned sa_comp_offset(const struct sa_layout *l, unsigned i)
{
	unsigned off = 0;

	for (unsigned k = 0; k < i && k < l->num; k++)
		off += l->width[k];
	return off;
}

/* Components are walked a byte at a time: the piece of [pos, pos + left)
 * in byte pos / 8 is n bits, shift bits up from the byte's low end. A
 * bit-at-a-time walk cost ~600 instructions per PortInfoRecord answer
 * (issue 27). */
struct piece {
	unsigned n, shift;
	uint8_t mask;
};

static struct piece piece_at(unsigned pos, unsigned left)
{
	unsigned room = 8 - pos % 8;
	struct piece p;

	p.n = left < room ? left : room;
	p.shift = room - p.n;
	p.mask = (uint8_t)(((1u << p.n) - 1) << p.shift);
	return p;
}

uint64_t sa_get(const struct sa_layout *l, const uint8_t *rec, unsigned i)
{
	unsigned off = sa_comp_offset(l, i), w = l->width[i];
	uint64_t v = 0;

	if (w > 64)
		w = 64;
	if (off % 8 == 0 && w % 8 == 0) {
		for (unsigned k = 0; k < w / 8; k++)
			v = v << 8 | rec[off / 8 + k];
		return v;
	}
	for (unsigned pos = off, left = w; left;) {
		struct piece p = piece_at(pos, left);

		v = v << p.n | (uint64_t)((rec[pos / 8] & p.mask) >> p.shift);
		pos += p.n;
		left -= p.n;
	}
	return v;
}

/* The component's first (at most) 64 bits take v, most significant first. */
void sa_put(const struct sa_layout *l, uint8_t *rec, unsigned i, uint64_t v)
{
	unsigned off = sa_comp_offset(l, i), w = l->width[i];

	if (w > 64)
		w = 64;
	for (unsigned pos = off, left = w; left;) {
		struct piece p = piece_at(pos, left);
		uint8_t bits = (uint8_t)(((v >> (left - p.n)) << p.shift) & p.mask);

		rec[pos / 8] = (uint8_t)((rec[pos / 8] & ~p.mask) | bits);
		pos += p.n;
		left -= p.n;
	}
}

void sa_put_bytes(const struct sa_layout *l, uint8_t *rec, unsigned i,
		  const uint8_t *src)
{
	unsigned off = sa_comp_offset(l, i);

	/* Wide components (GIDs, tables, descriptions) are byte aligned. */
	memcpy(rec + off / 8, src, l->width[i] / 8);
}

const uint8_t *sa_comp_ptr(const struct sa_layout *l, const uint8_t *rec,
			   unsigned i)
{
	return rec + sa_comp_offset(l, i) / 8;
}

/* Components past the mask's highest bit are not looked at: a query by
 * LID alone (its LID taken out of the mask) compares nothing. */
bool sa_comp_match(const struct sa_layout *l, const uint8_t *req,
		   const uint8_t *rec, uint64_t mask)
{
	unsigned off = 0;

	for (unsigned i = 0; mask && i < l->num; off += l->width[i], i++, mask >>= 1) {
		if (!(mask & 1))
			continue;
		if (off % 8 == 0 && l->width[i] % 8 == 0) {
			if (memcmp(req + off / 8, rec + off / 8, l->width[i] / 8))
				return false;
			continue;
		}
		for (unsigned pos = off, left = l->width[i]; left;) {
			struct piece p = piece_at(pos, left);

			if ((req[pos / 8] ^ rec[pos / 8]) & p.mask)
				return false;
			pos += p.n;
			left -= p.n;
		}
	}
	return true;
}

bool sa_mask_valid(const struct sa_layout *l, uint64_t mask)
{
	return l->num >= 64 || (mask >> l->num) == 0;
}

/* InformInfo 13.4.8.3: GID, LIDRangeBegin, LIDRangeEnd, reserved,
 * IsGeneric, Subscribe, Type, TrapNumber/DeviceID, QPN, reserved,
 * RespTimeValue, reserved, ProducerType/VendorID. */
#define INFORM_W 128, 16, 16, 16, 8, 8, 16, 16, 24, 3, 5, 8, 24
L(sa_inform_rec, 36, INFORM_W);
/* InformInfoRecord 15.2.5.12: SubscriberGID, Enum, reserved, InformInfo. */
L(sa_iir_rec, 60, 128, 16, 48, INFORM_W);

/* MulticastForwardingTableRecord 15.2.5.8: LID, Position, reserved,
 * BlockNum, reserved, then 32 port masks of 16 bits (14.2.5.12). */
L(sa_mft_rec, 72, 16, 4, 3, 9, 32, 512);

/* ServiceRecord 15.2.5.14: ServiceID, ServiceGID, ServiceP_Key, reserved,
 * ServiceLease, ServiceKey, ServiceName, then ServiceData8.0-15,
 * ServiceData16.0-7, ServiceData32.0-3, ServiceData64.0-1, each its own
 * component (37 in all). */
L(sa_service_rec, 176, 64, 128, 16, 16, 32, 128, 512,
  8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
  16, 16, 16, 16, 16, 16, 16, 16, 32, 32, 32, 32, 64, 64);

/* MCMemberRecord 15.2.5.17: MGID, PortGID, Q_Key, MLID, MTUSelector, MTU,
 * TClass, P_Key, RateSelector, Rate, PacketLifeTimeSelector,
 * PacketLifeTime, SL, FlowLabel, HopLimit, Scope, JoinState, ProxyJoin,
 * reserved. */
static const uint16_t sa_mcmember_rec_w[] = { 128, 128, 32, 16, 2, 6, 8, 16, 2,
	6, 2, 6, 4, 20, 8, 4, 4, 1, 23 };
const struct sa_layout sa_mcmember_rec = { "sa_mcmember_rec", sa_mcmember_rec_w,
	sizeof(sa_mcmember_rec_w) / sizeof(sa_mcmember_rec_w[0]), 52 };
