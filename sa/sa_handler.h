/* SA attribute handlers (IBA 15.2.5): one ops struct per attribute, one
 * registry, the shape of routing/engine.h. The SA server (sa/sa_server.c)
 * decodes a SubnAdm MAD (class 0x03, version 2), checks the method and the
 * SM_Key, finds the ops by AttributeID and turns what the handler returns
 * into the response:
 *   Get      exactly one record; none -> ERR_NO_RECORDS, more than one ->
 *            ERR_TOO_MANY_RECORDS (IBA 15.4.1)
 *   GetTable every record, RMPP-segmented when they pass one MAD
 *   Set / Delete / GetMulti   only where the ops provide them, otherwise
 *            the MAD status "method/attribute combination not supported".
 * Handlers read and write records in wire format (big endian, through
 * libibmad's field accessors) and never touch the transport. Records are
 * appended at their own size; the server pads each to a multiple of 8
 * bytes for the AttributeOffset (IBA 15.2.1.1). */
#ifndef IBSM_SA_SA_HANDLER_H
#define IBSM_SA_SA_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SubnAdm methods (IBA 15.2.2 Table 186). */
enum sa_method {
	SA_METHOD_GET = 0x01,
	SA_METHOD_SET = 0x02,
	SA_METHOD_GET_RESP = 0x81,
	SA_METHOD_REPORT = 0x06,
	SA_METHOD_REPORT_RESP = 0x86,
	SA_METHOD_GET_TABLE = 0x12,
	SA_METHOD_GET_TABLE_RESP = 0x92,
	SA_METHOD_GET_TRACE_TABLE = 0x13,
	SA_METHOD_GET_MULTI = 0x14,
	SA_METHOD_GET_MULTI_RESP = 0x94,
	SA_METHOD_DELETE = 0x15,
	SA_METHOD_DELETE_RESP = 0x95,
};

/* What a handler returns: 0, or one of these MAD status values (the
 * class-specific codes sit in bits 8..15, IBA 15.2.1.1 Table 185; the
 * common "invalid field" codes in bits 2..4, IBA 13.4.7 Table 111). */
enum sa_status {
	SA_OK = 0,
	SA_STATUS_BUSY = 0x0001,                /* try again later */
	SA_STATUS_BAD_VERSION = 0x0004,
	SA_STATUS_METHOD_UNSUPP = 0x0008,
	SA_STATUS_METHOD_ATTR_UNSUPP = 0x000C,
	SA_STATUS_INVALID_FIELD = 0x001C,       /* attribute or modifier */
	SA_STATUS_NO_RESOURCES = 0x0100,
	SA_STATUS_REQ_INVALID = 0x0200,
	SA_STATUS_NO_RECORDS = 0x0300,
	SA_STATUS_TOO_MANY_RECORDS = 0x0400,
	SA_STATUS_REQ_INVALID_GID = 0x0500,
	SA_STATUS_REQ_INSUFFICIENT_COMPONENTS = 0x0600,
	SA_STATUS_REQ_DENIED = 0x0700,
};

/* One decoded request. */
struct sa_query {
	uint8_t method;             /* enum sa_method */
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t comp_mask;         /* ComponentMask, host order */
	const uint8_t *record;      /* the request's record, wire format */
	size_t record_len;          /* bytes available at record (a GetMulti or
	                             * RMPP request may carry more than one) */
	uint16_t slid;              /* requester's LID */
	uint32_t sqp;               /* requester's QP (1 for the GSI) */
	uint8_t requester_gid[16];  /* from the GRH, or built from the SLID's port */
	uint64_t requester_port_guid; /* 0 if the SLID matches no known port */
	bool trusted;               /* SM_Key matched ours (IBA 15.2.1.1) */
};

/* Where handlers put their answer. */
struct sa_answer;
/* Append one record of the ops' rec_len bytes. -ENOMEM on failure. */
int sa_answer_add(struct sa_answer *a, const uint8_t *rec);
/* Records appended so far. */
size_t sa_answer_count(const struct sa_answer *a);

/* Everything a handler may read or change: the SA database built from the
 * swept fabric (sa/sa_db.h), the multicast groups (multicast/), the
 * fabric, the routes. Opaque here; each subsystem has its own accessors. */
struct sa_ctx;

struct sa_attr_ops {
	uint16_t attr_id;
	const char *name;           /* "NodeRecord", for logs and statistics */
	size_t rec_len;             /* record size on the wire, unpadded */
	/* Get / GetTable: append every record that matches q->record under
	 * q->comp_mask. Return SA_OK (also when nothing matched) or a status. */
	int (*query)(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a);
	/* Set: create or change; append the resulting record. NULL: refused. */
	int (*set)(struct sa_ctx *c, const struct sa_query *q,
		   struct sa_answer *a);
	/* Delete: remove; append what was removed. NULL: refused. */
	int (*del)(struct sa_ctx *c, const struct sa_query *q,
		   struct sa_answer *a);
	/* GetMulti (MultiPathRecord only). NULL: refused. */
	int (*get_multi)(struct sa_ctx *c, const struct sa_query *q,
			 struct sa_answer *a);
	/* The AttributeID of the answer when it is not the request's
	 * (GetMultiResp(PathRecord) answers GetMulti(MultiPathRecord),
	 * IBA 15.2.5.17). 0: the request's. */
	uint16_t resp_attr_id;
	/* The handlers read neither requester_gid nor requester_port_guid
	 * (nor sa_requester_port): the SLID's port is not looked up for
	 * them, and both stay 0. Set only where that is checked. */
	bool no_requester;
};

/* The registry: one table of every attribute the SA serves. Returns NULL
 * for an attribute it does not serve (-> SA_STATUS_METHOD_ATTR_UNSUPP,
 * IBA 13.4.7). */
const struct sa_attr_ops *sa_attr_find(uint16_t attr_id);

#endif
