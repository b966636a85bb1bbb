/* General MADs (IBA 13.4) as the SM sends and answers them on QP1: the
 * common header shared with SMPs, the SubnAdm class header (IBA 15.2.1.1:
 * SM_Key, AttributeOffset, ComponentMask) and the RMPP header (IBA 13.6.2)
 * that multi-record answers carry. Layouts through libibmad's fields. */
#ifndef IBSM_MAD_GMP_H
#define IBSM_MAD_GMP_H

#include <stddef.h>
#include <stdint.h>

#define GMP_SIZE 256
#define GMP_COMMON_HDR_LEN 24          /* IBA 13.4.2: common MAD header */
#define GMP_CLASS_SA 0x03
#define GMP_CLASS_PERF 0x04             /* PerfMgt (IBA 16.1) */
#define GMP_SA_CLASS_VERSION 2
#define GMP_PERF_CLASS_VERSION 1
#define GMP_QP1_QKEY 0x80010000u        /* the GSI's well-known Q_Key */
#define GMP_SA_HDR_OFFS 36              /* after the common + RMPP headers */
#define GMP_SA_DATA_OFFS 56             /* IB_SA_DATA_OFFS */
#define GMP_SA_DATA_SIZE 200            /* IB_SA_DATA_SIZE */

/* MAD status values shared by every class (IBA 13.4.7 Table 111). */
#define GMP_STATUS_BAD_CLASS 0x0004     /* bad version or unsupported class */
#define GMP_STATUS_METHOD_UNSUPP 0x0008
#define GMP_STATUS_METHOD_ATTR_UNSUPP 0x000C
#define GMP_STATUS_INVALID_FIELD 0x001C

/* RMPP (IBA 13.6.2.1). */
#define RMPP_TYPE_DATA 1
#define RMPP_TYPE_ACK 2
#define RMPP_TYPE_STOP 3
#define RMPP_TYPE_ABORT 4
#define RMPP_FLAG_ACTIVE 0x1
#define RMPP_FLAG_FIRST 0x2
#define RMPP_FLAG_LAST 0x4

/* RMPPStatus (IBA 13.6.2.2 Table 174). */
enum rmpp_status {
	RMPP_ST_OK = 0,
	RMPP_ST_RESX = 1,           /* resources exhausted (STOP) */
	RMPP_ST_T2L = 118,          /* total time too long */
	RMPP_ST_BAD_LEN = 119,      /* inconsistent Last and PayloadLength */
	RMPP_ST_BAD_SEG = 120,      /* inconsistent First and SegmentNumber */
	RMPP_ST_BADT = 121,         /* illegal RMPPType */
	RMPP_ST_W2S = 122,          /* NewWindowLast too small */
	RMPP_ST_S2B = 123,          /* SegmentNumber too big */
	RMPP_ST_BAD_STATUS = 124,   /* illegal status */
	RMPP_ST_UNV = 125,          /* unsupported version */
	RMPP_ST_TMR = 126,          /* too many retries */
	RMPP_ST_UNSPEC = 127,
};

/* A request's common header (IBA 13.4.2), zeros after: base version 1,
 * the class, its version, method, attribute, modifier, TID (0: the
 * transport gives one). Every MAD the SM originates starts here (SMPs
 * through smp_init_dr/smp_init_lid). */
void gmp_init_request(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version,
		      uint8_t method, uint16_t attr, uint32_t mod, uint64_t tid);
/* Turn a received request into its response in place: method with the
 * response bit (GetResp for Get/Set, Method|0x80 otherwise), status. */
void gmp_make_response(uint8_t *mad, uint16_t status);

/* SubnAdm header. */
void sa_hdr_set(uint8_t *mad, uint16_t attr_offset_words, uint64_t comp_mask);

/* RMPP header of a received MAD. */
struct rmpp_hdr {
	uint8_t version, type, flags, status;
	uint32_t seg_num;               /* DATA: segment; ACK: last received */
	uint32_t len_or_window;         /* DATA: PayloadLength; ACK: NewWindowLast */
};
void rmpp_get(const uint8_t *mad, struct rmpp_hdr *h);
void rmpp_set(uint8_t *mad, const struct rmpp_hdr *h);
/* A SubnAdm request's headers, each field read once (sa_req_decode) and
 * handed down to whatever needs it; the response header is built from it
 * (sa_resp_hdr) without going back to the request. */
struct sa_req_hdr {
	/* The common header as received (base version, class and its
	 * version, method, status, TID, attribute and modifier): the
	 * response starts as a copy of it, TID and all (IBA 13.4.6.1). */
	uint8_t common[GMP_COMMON_HDR_LEN];
	uint8_t method;                 /* without the response bit */
	uint8_t response;               /* the R bit */
	uint8_t class_version;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t rmpp_flags;             /* all the SA dispatches on: */
	uint8_t rmpp_type;              /* read only if flags say Active, else 0 */
	uint64_t sm_key, comp_mask;     /* SubnAdm header (IBA 15.2.1.1) */
};
void sa_req_decode(const uint8_t *mad, struct sa_req_hdr *h);
/* The first GMP_SA_DATA_OFFS bytes of h's response in mad: the common
 * header with the response method (as gmp_make_response) and status,
 * attr_id instead of the request's unless 0, the RMPP header zero (the
 * caller sets it) or base's (NULL: zero; base holds GMP_SA_DATA_OFFS
 * bytes, zero but for RMPP fields every answer shares, as
 * rmpp_tx_first_base builds them), the SubnAdm header with
 * attr_offset_words and the request's ComponentMask, SM_Key 0. */
void sa_resp_hdr(const struct sa_req_hdr *h, const uint8_t *base,
		 uint16_t attr_id, uint16_t status, uint16_t attr_offset_words,
		 uint8_t *mad);
/* The same with the SubnAdm header (AttributeOffset, ComponentMask)
 * taken from base as well, where the caller wrote them (sa_hdr_set): for
 * answers that repeat them, as a client asking one query over and over
 * gets; two field writes fewer. */
void sa_resp_hdr_sa(const struct sa_req_hdr *h, const uint8_t *base,
		    uint16_t attr_id, uint16_t status, uint8_t *mad);

#endif
