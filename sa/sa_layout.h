/* SA record layouts as component lists (IBA 15.2.5): a record is the
 * concatenation of its components, most significant bit first, and bit i
 * of a query's ComponentMask selects component i (IBA 15.2.1.1). One table
 * of widths per record gives both the field offsets and the matching rule,
 * so records are built and matched through the same description.
 *
 * libibmad names the fields of a few SA records (IB_SA_PR_*, IB_SA_NR_*);
 * most have no accessor there, hence these tables. */
#ifndef IBSM_SA_SA_LAYOUT_H
#define IBSM_SA_SA_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sa_layout {
	const char *name;
	const uint16_t *width;      /* bits of each component, in order */
	const uint16_t *off;        /* bit offset of each, then the total */
	uint8_t num;                /* components */
	uint16_t rec_len;           /* bytes on the wire, unpadded */
};

/* Bit offset of component i (i >= num: the components' total). */
static inline unsigned sa_comp_offset(const struct sa_layout *l, unsigned i)
{
	return l->off[i < l->num ? i : l->num];
}
/* Read / write component i (of a wider one, its first 64 bits), any
 * component: sa_get and sa_put call these for all but the 8- and 16-bit
 * whole-byte ones. */
uint64_t sa_get_bits(const struct sa_layout *l, const uint8_t *rec, unsigned i);
void sa_put_bits(const struct sa_layout *l, uint8_t *rec, unsigned i, uint64_t v);

/* Read / write component i (at most 64 bits wide; of a wider one, its
 * first 64 bits). LIDs, port and block numbers (8 or 16 bits on a byte)
 * inline: a call and a walk cost as much as the rest of a PortInfoRecord
 * answer (issue 27). */
static inline uint64_t sa_get(const struct sa_layout *l, const uint8_t *rec,
			      unsigned i)
{
	unsigned off = l->off[i], w = l->width[i];
	const uint8_t *b = rec + off / 8;

	if (off % 8 == 0 && w == 16)
		return (uint64_t)b[0] << 8 | b[1];
	if (off % 8 == 0 && w == 8)
		return b[0];
	return sa_get_bits(l, rec, i);
}

static inline void sa_put(const struct sa_layout *l, uint8_t *rec, unsigned i,
			  uint64_t v)
{
	unsigned off = l->off[i], w = l->width[i];
	uint8_t *b = rec + off / 8;

	if (off % 8 == 0 && w == 16) {
		b[0] = (uint8_t)(v >> 8);
		b[1] = (uint8_t)v;
	} else if (off % 8 == 0 && w == 8) {
		b[0] = (uint8_t)v;
	} else {
		sa_put_bits(l, rec, i, v);
	}
}

/* Copy component i (any width, e.g. a GID or a 64-byte table). */
void sa_put_bytes(const struct sa_layout *l, uint8_t *rec, unsigned i,
		  const uint8_t *src);
const uint8_t *sa_comp_ptr(const struct sa_layout *l, const uint8_t *rec,
			   unsigned i);
/* Every component selected by mask is equal in req and rec. */
bool sa_comp_match(const struct sa_layout *l, const uint8_t *req,
		   const uint8_t *rec, uint64_t mask);
/* Mask bits past the record's components (a malformed query). */
bool sa_mask_valid(const struct sa_layout *l, uint64_t mask);

/* The layouts (component numbering as IBA 1.2.1 and OpenSM's ib_types.h). */
extern const struct sa_layout sa_node_rec, sa_portinfo_rec, sa_link_rec,
	sa_swinfo_rec, sa_lft_rec, sa_guidinfo_rec, sa_pkey_rec, sa_sminfo_rec,
	sa_path_rec, sa_sl2vl_rec, sa_vlarb_rec, sa_mcmember_rec, sa_service_rec, sa_mft_rec,
	sa_inform_rec, sa_iir_rec, sa_mpr_rec;

/* Component numbers used by the handlers. */
enum { NR_LID = 0, NR_NODEINFO = 2, NR_NODEGUID = 7, NR_PORTGUID = 8,
       NR_NODEDESC = 14 };
enum { PIR_LID = 0, PIR_PORTNUM = 1, PIR_PORTINFO = 3, PIR_CAPMASK = 7,
       PIR_CAPMASK2 = 53 };
enum { LR_FROMLID = 0, LR_FROMPORT = 1, LR_TOPORT = 2, LR_TOLID = 3 };
enum { SWIR_LID = 0, SWIR_SWINFO = 2 };
enum { LFTR_LID = 0, LFTR_BLOCK = 1, LFTR_TABLE = 3 };
enum { GIR_LID = 0, GIR_BLOCK = 1, GIR_GUID0 = 4 };
enum { PKR_LID = 0, PKR_BLOCK = 1, PKR_PORT = 2, PKR_TABLE = 4 };
enum { SMIR_LID = 0, SMIR_GUID = 2, SMIR_SMKEY = 3, SMIR_ACTCOUNT = 4,
       SMIR_PRIORITY = 5, SMIR_STATE = 6 };
enum { SL2VL_LID = 0, SL2VL_INPORT = 1, SL2VL_OUTPORT = 2, SL2VL_TABLE = 4 };
enum { VLA_LID = 0, VLA_PORT = 1, VLA_BLOCK = 2, VLA_TABLE = 4 };
enum { PR_SERVICEID0 = 0, PR_DGID = 2, PR_SGID = 3, PR_DLID = 4, PR_SLID = 5,
       PR_RAW = 6, PR_FLOWLABEL = 8, PR_HOPLIMIT = 9, PR_TCLASS = 10,
       PR_REVERSIBLE = 11, PR_NUMBPATH = 12, PR_PKEY = 13, PR_QOS = 14,
       PR_SL = 15, PR_MTUSEL = 16, PR_MTU = 17, PR_RATESEL = 18, PR_RATE = 19,
       PR_PLTSEL = 20, PR_PLT = 21, PR_PREFERENCE = 22 };

/* MultiPathRecord: components 0..15 are PathRecord's PR_RAW..PR_PLT. */
enum { MPR_RAW = 0, MPR_REVERSIBLE = 5, MPR_NUMBPATH = 6, MPR_MTUSEL = 10,
       MPR_MTU = 11, MPR_RATESEL = 12, MPR_RATE = 13, MPR_PLT = 15,
       MPR_SID_MSB = 16, MPR_INDEP = 17, MPR_SGIDCOUNT = 19,
       MPR_DGIDCOUNT = 20, MPR_SID_LSB = 21 };
#define MPR_TO_PR(i) ((i) + PR_RAW)
/* SGIDCount and DGIDCount are 8 bits each: up to 510 GIDs, which take a
 * multi-MAD (RMPP) request past 11 (what one MAD holds). */
#define MPR_MAX_GIDS 510

enum { II_GID = 0, II_LID_BEGIN = 1, II_LID_END = 2, II_IS_GENERIC = 4,
       II_SUBSCRIBE = 5, II_TYPE = 6, II_TRAP = 7, II_QPN = 8,
       II_RESP_TIME = 10, II_PRODUCER = 12 };
/* InformInfoRecord: the InformInfo components follow three of its own. */
enum { IIR_SUBSCRIBER_GID = 0, IIR_ENUM = 1, IIR_II = 3 };

enum { MFTR_LID = 0, MFTR_POSITION = 1, MFTR_BLOCK = 3, MFTR_TABLE = 5 };

enum { SR_ID = 0, SR_GID = 1, SR_PKEY = 2, SR_LEASE = 4, SR_KEY = 5,
       SR_NAME = 6 };

enum { MCR_MGID = 0, MCR_PORTGID = 1, MCR_QKEY = 2, MCR_MLID = 3,
       MCR_MTUSEL = 4, MCR_MTU = 5, MCR_TCLASS = 6, MCR_PKEY = 7,
       MCR_RATESEL = 8, MCR_RATE = 9, MCR_PLTSEL = 10, MCR_PLT = 11,
       MCR_SL = 12, MCR_FLOWLABEL = 13, MCR_HOPLIMIT = 14, MCR_SCOPE = 15,
       MCR_JOINSTATE = 16, MCR_PROXYJOIN = 17 };

#endif
