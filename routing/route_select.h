/* Choosing the tables to program: run an engine list, verify each
 * engine's tables, and take the first that verifies; otherwise the best
 * there is. The one place the daemon's verification policy lives (issue
 * 24: a fabric some engine can route is never left unrouted).
 *
 * Each engine of the list, in order:
 *   refuses (or fails)                       -> passed over: "refused"
 *   tables with a forwarding loop, an entry
 *     into an unlinked port, a misdelivery,
 *     duplicate LIDs                          -> passed over: "loop"  (never
 *                                                programmed)
 *   tables with missing entries/unreachable
 *     pairs, no loop                         -> passed over: "incomplete"
 *   complete, loop-free, credit loop on one
 *     VL (or in one SL layer when layered)   -> passed over: "credit_loop"
 *   complete, loop-free, credit-loop-free    -> TAKEN, the list stops
 * An engine that declares ROUTE_ENGINE_USES_PREV and was given previous
 * tables is run once more without them before it is passed over (a failed
 * repair is not a failed engine).
 *
 * When no engine's tables are verified, the best of those passed over is
 * taken (route_cand_better): complete with a credit loop first (the
 * operator listed an engine that promises none; earlier in the list wins),
 * then partial tables, credit-loop-free before looped, fewest unreachable
 * pairs, fewest missing entries, earlier in the list. Tables with a loop
 * are never taken. docs/routing.md says why. */
#ifndef IBSM_ROUTING_ROUTE_SELECT_H
#define IBSM_ROUTING_ROUTE_SELECT_H

#include "engine.h"
#include "verify.h"

/* What verified tables are, best first. */
enum route_grade {
	ROUTE_GRADE_VERIFIED = 0,       /* complete, loop-free, no credit loop */
	ROUTE_GRADE_CREDIT_LOOP,        /* complete, loop-free, credit loop */
	ROUTE_GRADE_PARTIAL,            /* loop-free, some LIDs unreachable */
	ROUTE_GRADE_UNUSABLE,           /* loops, bad ports: never programmed */
};

/* Why an engine was passed over. */
enum route_pass {
	ROUTE_PASS_NONE = 0,
	ROUTE_PASS_REFUSED,
	ROUTE_PASS_CREDIT_LOOP,
	ROUTE_PASS_INCOMPLETE,
	ROUTE_PASS_LOOP,
	ROUTE_PASS_N
};

/* "none", "refused", "credit_loop", "incomplete", "loop" (metric labels). */
const char *route_pass_name(enum route_pass p);
/* "verified", "credit_loop", "partial", "unusable". */
const char *route_grade_name(enum route_grade g);

/* The grade of tables with verification result vr; layer_loop: layered
 * tables (path SLs) with a cycle in some layer's dependency graph. With
 * layered set, vr's one-VL credit-loop verdict does not count. Pure. */
enum route_grade route_grade_of(const struct verify_result *vr, int layered,
				int layer_loop);

/* 1 when tables a (grade ga) are strictly better than b (grade gb), by the
 * order in the header comment; ties are not (the earlier engine stays). */
int route_cand_better(enum route_grade ga, const struct verify_result *a,
		      enum route_grade gb, const struct verify_result *b);

struct route_choice {
	const struct route_engine *engine;      /* whose tables; NULL: none */
	enum route_grade grade;
	struct verify_result vr;                /* of the tables taken */
	uint32_t sl_layers;                     /* > 1: layered, each checked */
	char layer_why[160];                    /* layered: the cycle, if any */
	char preferred[32];                     /* first engine of the list */
	enum route_pass reason;                 /* why it was passed over */
	char reason_why[640];                   /* its details */
	unsigned passed[ROUTE_PASS_N];          /* engines passed over, by reason */
	unsigned repairs_redone;                /* engines re-run without prev */
};

/* Run the engines of `names` on f, verify with vo (check_credit_loops is
 * forced on) and fill t with the tables chosen. opt->memo_out and
 * opt->sl_out (both optional, caller-owned) end up describing the tables
 * taken; opt->spare is used by the first run. Logs each engine passed
 * over and why. Returns 1 with t filled (c->engine set; c->grade says
 * whether it is a fallback of last resort), 0 when no engine gave tables
 * that may be programmed (t empty, every reason logged), or a negative
 * errno (out of memory). */
int route_select(const char *names, const struct fabric *f,
		 const struct route_options *opt, const struct verify_opts *vo,
		 struct lft_set *t, struct route_choice *c);

#endif
