/* What the fat-tree tests (test_ftree.c, test_ftree_turns.c) share:
 * generated trees, the ftree engine run directly, an evaluator of its
 * tables kept independent of the engine's own bookkeeping, and the shared
 * verifier's verdict (routing/verify.h). Linked into every unit test
 * (tests/unit/X.c that are not test_*.c are). */
#ifndef IBSM_TESTS_UNIT_FTREE_EVAL_H
#define IBSM_TESTS_UNIT_FTREE_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"
#include "routing/engine.h"
#include "routing/ftree/ftree.h"
#include "routing/lft.h"

struct eval {
	uint32_t nca;           /* CA ports, node order */
	uint32_t *ca_port;      /* fabric port index of each CA port */
	uint32_t *lvl;          /* per node: switch level (BFS from leaves) */
	uint64_t *load;         /* per fabric port: routes leaving it */
	uint64_t bound;         /* max over leaves of ceil(w (N - w) / up) */
	uint64_t a2a_max;
	uint64_t shift_worst;
	uint32_t shifts_over;   /* shifts above shift_limit */
	uint64_t missing, loops, not_updown;
	uint64_t sw_not_updown; /* CA -> switch LID paths with a down-up turn */
	int credit_loop;        /* CDG of CA -> CA routes has a cycle */
	int credit_loop_sw;     /* ... once CA -> switch-LID routes are added */
	int credit_loop_swsrc;  /* ... and switch -> CA routes (every switch) */
	int credit_loop_full;   /* ... and switch -> switch LIDs: every entry */
	uint64_t *dep;          /* CDG edges (from << 32 | to), growing */
	size_t ndep, capdep;
};

/* gen_fattree of these parameters into F, with LIDs at LMC (ut_fattree). */
void make_tree(struct fabric *f, unsigned levels, unsigned radix,
	       unsigned oversub, double remove, uint64_t seed, uint8_t lmc);

/* The engine's callbacks run directly (no route_run), tuned (tu NULL:
 * the defaults), the run's counters in *st (optional). */
int route_ftree_tuned(const struct fabric *f, const struct route_options *opt,
		      const struct ftree_tuning *tu, struct ftree_stats *st,
		      struct lft_set *t, char *why);

/* route_ftree_tuned with the default tuning and no counters. */
int route_ftree_on(const struct fabric *f, const struct route_options *opt,
		   struct lft_set *t, char *why);

/* E for F: its CA ports, switch levels and the load bound; eval_free
 * releases it. */
void eval_init(struct eval *e, const struct fabric *f);

void eval_free(struct eval *e);

/* Walk from switch node sw to LID lid; add 1 to each switch-egress load if
 * `load` is non-NULL. Returns 0 delivered, 1 missing, 2 loop. Sets
 * *updown to 0 if the path goes down then up. Records the links used. */
int walk_sw(const struct fabric *f, const struct lft_set *t,
	    const struct eval *e, uint32_t sw, uint32_t lid,
	    uint64_t *load, int *updown, uint32_t *used, uint32_t *nused);

/* Every CA to every endpoint LID (switches too): complete, loop-free,
 * up-then-down; all-to-all CA base-LID loads; every shift. */
void evaluate(const struct fabric *f, const struct lft_set *t,
	      struct eval *e, uint64_t shift_limit, int shifts);

/* The shared verifier, with CA -> switch-LID routes in its CDG. */
void check_verifier(const struct fabric *f, const struct lft_set *t,
		    double max_ratio);

/* Routes from CAs to every LID, switch LIDs included, and from every
 * switch to every LID must be credit-loop free on one VL. f (with LIDs)
 * is routed, judged and freed; updown: every CA -> CA path must be
 * up*-then-down*. */
double judge_tree(struct fabric *f, const char *name, int updown,
		  double max_ratio, const struct ftree_tuning *tu);

/* judge_tree of an ft LEVELS radix RADIX tree with REMOVE of its links
 * removed (seed SEED); up-then-down required at 5% or less. */
double degraded_tuned(unsigned levels, unsigned radix, double remove,
		      uint64_t seed, double max_ratio,
		      const struct ftree_tuning *tu);

/* walk_sw from CA port src (inline: the routing engines' tests have a
 * walk() of their own, engine_check.h). */
static inline int walk(const struct fabric *f, const struct lft_set *t,
		       const struct eval *e, uint32_t src, uint32_t lid,
		       uint64_t *load, int *updown, uint32_t *used,
		       uint32_t *nused)
{
	return walk_sw(f, t, e, fab_peer_node(f, src), lid, load, updown,
		       used, nused);
}

#endif
