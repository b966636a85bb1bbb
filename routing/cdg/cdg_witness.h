/* A witness index for the incremental credit-loop checker (cdg_incr.h):
 * the dependencies taken so far, listed by a key the caller derives from
 * their ends, so that a new dependency can be refused by finding the
 * short cycle it closes through one taken dependency before any search.
 *
 * ftree needs it: on degraded trees most turns the detours ask about
 * close a cycle, and nearly always the shortest kind, through one taken
 * turn at another switch of the same level (ftree_witness.c derives the
 * key, the pair of "pieces" of the turn's ends, and tests the cycle);
 * proving it by search expands thousands of channels each. The index
 * only ever proves cycles: when it finds none, the search decides, so
 * verdicts do not depend on it. Memory is best effort: a record that
 * cannot be stored is only missed by later queries. */
#ifndef IBSM_ROUTING_CDG_WITNESS_H
#define IBSM_ROUTING_CDG_WITNESS_H

#include <stdint.h>

#define CDG_WIT_END UINT32_MAX

/* One taken dependency: at v, from a, to b (the caller's meaning). */
struct cdg_wit {
	uint32_t v, a, b;
	uint32_t next;          /* next record of the same key, or CDG_WIT_END */
};

struct cdg_witness {
	struct cdg_wit *rec;
	uint32_t nrec, rec_cap;
	uint64_t *key;          /* open addressing: key ... */
	uint32_t *head;         /* ... -> its newest record (CDG_WIT_END: free) */
	uint32_t nkey, key_cap;
	uint64_t found;         /* refusals proven by a witness (caller counts) */
};

void cdg_witness_init(struct cdg_witness *w);
void cdg_witness_free(struct cdg_witness *w);
/* Record (v, a, b) under key. */
void cdg_witness_add(struct cdg_witness *w, uint64_t key, uint32_t v,
		     uint32_t a, uint32_t b);
/* The newest record under key (follow .next), or CDG_WIT_END. */
uint32_t cdg_witness_first(const struct cdg_witness *w, uint64_t key);

#endif
