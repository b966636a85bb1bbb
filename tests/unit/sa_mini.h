/* The SA unit tests' fixture (test_sa.c, test_sa_records.c): a small
 * fabric, a switch (LID 1) with CAs on ports 1 (LID 2) and 2 (LID 3), its
 * SA server, and helpers to hand it requests. Linked into every unit test
 * (tests/unit/X.c that are not test_*.c are). */
#ifndef IBSM_TESTS_UNIT_SA_MINI_H
#define IBSM_TESTS_UNIT_SA_MINI_H

#include <stddef.h>
#include <stdint.h>

#include "core/subnet.h"
#include "mad/gmp.h"
#include "routing/lft.h"
#include "sa/sa_server.h"

struct mini {
	struct subnet r;
	struct lft_set lft;
	struct sa_server s;
};

/* What the server sent, captured instead of a transport. */
struct cap {
	uint8_t mad[8][GMP_SIZE];
	size_t len[8];
	unsigned n;
};

/* The fabric, its LFTs and SA database, into M (asserted). */
void mini_build(struct mini *m);
void mini_free(struct mini *m);

/* A sa_server send hook: appends the MAD to the struct cap at ARG. */
int mini_capture(void *arg, const uint8_t *mad, size_t len, uint16_t dlid,
	    uint32_t dqp);

/* Hand req to the server; the first answer MAD lands in out. Returns the
 * number of MADs sent. */
int mini_answer(struct sa_server *s, const uint8_t *req,
		     uint16_t slid, uint8_t *out, unsigned max);

/* An SA request MAD: METHOD of ATTR with component mask MASK. */
void mini_req_init(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask);

/* A MAD's status field. */
unsigned mini_status_of(const uint8_t *mad);

#endif
