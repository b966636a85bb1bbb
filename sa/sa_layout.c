/* Component tables of the SA records and the generic accessors over them
 * (IBA 15.2.5; widths in bits, in wire order). */
#include "sa_layout.h"

#include <string.h>

/* Prefix sums of the widths at compile time: SA_OFFS(w0, .., wn-1) is
 * 0, w0, w0 + w1, .., w0 + .. + wn-1 (n + 1 offsets, the last the
 * record's bits), so a component's offset is one load (issue 27: the
 * walk over the widths cost ~35 instructions a component). */
#define SA_NARGS(...) SA_NARGS_(__VA_ARGS__, \
	64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, \
	47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, \
	30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, \
	13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define SA_NARGS_( \
	_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
	_17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, \
	_31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, \
	_45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, \
	_59, _60, _61, _62, _63, _64, N, ...) N
#define SA_CAT(a, b) SA_CAT_(a, b)
#define SA_CAT_(a, b) a##b
#define SA_OFFS(...) SA_CAT(SA_O, SA_NARGS(__VA_ARGS__))(0, __VA_ARGS__)
#define SA_O1(s, a) s, s + a
#define SA_O2(s, a, ...) s, SA_O1(s + a, __VA_ARGS__)
#define SA_O3(s, a, ...) s, SA_O2(s + a, __VA_ARGS__)
#define SA_O4(s, a, ...) s, SA_O3(s + a, __VA_ARGS__)
#define SA_O5(s, a, ...) s, SA_O4(s + a, __VA_ARGS__)
#define SA_O6(s, a, ...) s, SA_O5(s + a, __VA_ARGS__)
#define SA_O7(s, a, ...) s, SA_O6(s + a, __VA_ARGS__)
#define SA_O8(s, a, ...) s, SA_O7(s + a, __VA_ARGS__)
#define SA_O9(s, a, ...) s, SA_O8(s + a, __VA_ARGS__)
#define SA_O10(s, a, ...) s, SA_O9(s + a, __VA_ARGS__)
#define SA_O11(s, a, ...) s, SA_O10(s + a, __VA_ARGS__)
#define SA_O12(s, a, ...) s, SA_O11(s + a, __VA_ARGS__)
#define SA_O13(s, a, ...) s, SA_O12(s + a, __VA_ARGS__)
#define SA_O14(s, a, ...) s, SA_O13(s + a, __VA_ARGS__)
#define SA_O15(s, a, ...) s, SA_O14(s + a, __VA_ARGS__)
#define SA_O16(s, a, ...) s, SA_O15(s + a, __VA_ARGS__)
#define SA_O17(s, a, ...) s, SA_O16(s + a, __VA_ARGS__)
#define SA_O18(s, a, ...) s, SA_O17(s + a, __VA_ARGS__)
#define SA_O19(s, a, ...) s, SA_O18(s + a, __VA_ARGS__)
#define SA_O20(s, a, ...) s, SA_O19(s + a, __VA_ARGS__)
#define SA_O21(s, a, ...) s, SA_O20(s + a, __VA_ARGS__)
#define SA_O22(s, a, ...) s, SA_O21(s + a, __VA_ARGS__)
#define SA_O23(s, a, ...) s, SA_O22(s + a, __VA_ARGS__)
#define SA_O24(s, a, ...) s, SA_O23(s + a, __VA_ARGS__)
#define SA_O25(s, a, ...) s, SA_O24(s + a, __VA_ARGS__)
#define SA_O26(s, a, ...) s, SA_O25(s + a, __VA_ARGS__)
#define SA_O27(s, a, ...) s, SA_O26(s + a, __VA_ARGS__)
#define SA_O28(s, a, ...) s, SA_O27(s + a, __VA_ARGS__)
#define SA_O29(s, a, ...) s, SA_O28(s + a, __VA_ARGS__)
#define SA_O30(s, a, ...) s, SA_O29(s + a, __VA_ARGS__)
#define SA_O31(s, a, ...) s, SA_O30(s + a, __VA_ARGS__)
#define SA_O32(s, a, ...) s, SA_O31(s + a, __VA_ARGS__)
#define SA_O33(s, a, ...) s, SA_O32(s + a, __VA_ARGS__)
#define SA_O34(s, a, ...) s, SA_O33(s + a, __VA_ARGS__)
#define SA_O35(s, a, ...) s, SA_O34(s + a, __VA_ARGS__)
#define SA_O36(s, a, ...) s, SA_O35(s + a, __VA_ARGS__)
#define SA_O37(s, a, ...) s, SA_O36(s + a, __VA_ARGS__)
#define SA_O38(s, a, ...) s, SA_O37(s + a, __VA_ARGS__)
#define SA_O39(s, a, ...) s, SA_O38(s + a, __VA_ARGS__)
#define SA_O40(s, a, ...) s, SA_O39(s + a, __VA_ARGS__)
#define SA_O41(s, a, ...) s, SA_O40(s + a, __VA_ARGS__)
#define SA_O42(s, a, ...) s, SA_O41(s + a, __VA_ARGS__)
#define SA_O43(s, a, ...) s, SA_O42(s + a, __VA_ARGS__)
#define SA_O44(s, a, ...) s, SA_O43(s + a, __VA_ARGS__)
#define SA_O45(s, a, ...) s, SA_O44(s + a, __VA_ARGS__)
#define SA_O46(s, a, ...) s, SA_O45(s + a, __VA_ARGS__)
#define SA_O47(s, a, ...) s, SA_O46(s + a, __VA_ARGS__)
#define SA_O48(s, a, ...) s, SA_O47(s + a, __VA_ARGS__)
#define SA_O49(s, a, ...) s, SA_O48(s + a, __VA_ARGS__)
#define SA_O50(s, a, ...) s, SA_O49(s + a, __VA_ARGS__)
#define SA_O51(s, a, ...) s, SA_O50(s + a, __VA_ARGS__)
#define SA_O52(s, a, ...) s, SA_O51(s + a, __VA_ARGS__)
#define SA_O53(s, a, ...) s, SA_O52(s + a, __VA_ARGS__)
#define SA_O54(s, a, ...) s, SA_O53(s + a, __VA_ARGS__)
#define SA_O55(s, a, ...) s, SA_O54(s + a, __VA_ARGS__)
#define SA_O56(s, a, ...) s, SA_O55(s + a, __VA_ARGS__)
#define SA_O57(s, a, ...) s, SA_O56(s + a, __VA_ARGS__)
#define SA_O58(s, a, ...) s, SA_O57(s + a, __VA_ARGS__)
#define SA_O59(s, a, ...) s, SA_O58(s + a, __VA_ARGS__)
#define SA_O60(s, a, ...) s, SA_O59(s + a, __VA_ARGS__)
#define SA_O61(s, a, ...) s, SA_O60(s + a, __VA_ARGS__)
#define SA_O62(s, a, ...) s, SA_O61(s + a, __VA_ARGS__)
#define SA_O63(s, a, ...) s, SA_O62(s + a, __VA_ARGS__)
#define SA_O64(s, a, ...) s, SA_O63(s + a, __VA_ARGS__)

#define L(n, rl, ...) \
	static const uint16_t n##_w[] = { __VA_ARGS__ }; \
	static const uint16_t n##_o[] = { SA_OFFS(__VA_ARGS__) }; \
	const struct sa_layout n = { #n, n##_w, n##_o, \
		sizeof(n##_w) / sizeof(n##_w[0]), rl }

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

uint64_t sa_get_bits(const struct sa_layout *l, const uint8_t *rec, unsigned i)
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
void sa_put_bits(const struct sa_layout *l, uint8_t *rec, unsigned i, uint64_t v)
{
	unsigned off = sa_comp_offset(l, i), w = l->width[i];

	if (w > 64)
		w = 64;
	if (off % 8 == 0 && w % 8 == 0) {
		/* Whole bytes (GUIDs, keys): no masks. */
		for (unsigned k = w / 8; k--; v >>= 8)
			rec[off / 8 + k] = (uint8_t)v;
		return;
	}
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
L(sa_mcmember_rec, 52, 128, 128, 32, 16, 2, 6, 8, 16, 2, 6, 2, 6, 4, 20, 8,
  4, 4, 1, 23);
