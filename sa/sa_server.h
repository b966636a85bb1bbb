/* The SA server (IBA 15): takes SubnAdm requests from the MAD transport's
 * request callback, so a query is answered at once even while a sweep is
 * running (the sweep drives the same poll loop), dispatches them to the
 * attribute handlers (sa/sa_handler.h) and sends the answer: one MAD for
 * Get, an RMPP-segmented GetTableResp otherwise (IBA 13.6), each segment
 * its own 256-byte MAD. */
#ifndef IBSM_SA_SA_SERVER_H
#define IBSM_SA_SA_SERVER_H

#include <stdint.h>
#include "../mad/mad_transport.h"
#include "sa_ctx.h"

struct sa_stats {
	uint64_t requests;
	uint64_t errors;                /* answered with a nonzero status */
	uint64_t records;               /* records sent */
	uint64_t rmpp_transfers;        /* multi-segment answers */
	uint64_t rmpp_segments;
	uint64_t ignored;               /* responses, RMPP ACKs, bad MADs */
	uint64_t by_attr[32][4];        /* registry slot x Get/GetTable/Set/Delete */
};

struct sa_server {
	struct mad_transport *t;
	struct sa_ctx ctx;
	struct sa_stats st;
};

void sa_server_init(struct sa_server *s, struct mad_transport *t);
void sa_server_free(struct sa_server *s);
/* A SubnAdm MAD received (class 0x03). mad is writable scratch. */
void sa_server_handle(struct sa_server *s, uint8_t *mad, uint16_t slid,
		      uint32_t sqp);
/* Answer one request into a response buffer without sending it (tests):
 * returns the number of response MADs written to out (each GMP_SIZE
 * bytes, at most max_mads), or a negative errno. */
int sa_server_answer(struct sa_server *s, const uint8_t *req, uint16_t slid,
		     uint8_t *out, unsigned max_mads);
/* Statistics to the log, one line per attribute with traffic. */
void sa_server_log_stats(const struct sa_server *s);
/* The same as text ("requests N", then one line per attribute). */
int sa_server_write_stats(const struct sa_server *s, const char *path);

#endif
