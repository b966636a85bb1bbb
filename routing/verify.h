/* Route verification: what the tests, `ibsm-route --check` and the daemon use
 * to judge a set of LFTs on a fabric. */
#ifndef IBSM_ROUTING_VERIFY_H
#define IBSM_ROUTING_VERIFY_H

#include <stdio.h>
#include "../core/fabric.h"
#include "lft.h"

struct verify_opts {
	int check_credit_loops;     /* channel dependency graph acyclic (1 VL) */
	int link_load;              /* all-to-all and shift-permutation loads */
	int path_diversity;         /* LMC: disjoint paths per CA pair */
	uint32_t max_shifts;        /* shifts to evaluate (0 = all) */
	uint32_t max_errors;        /* detailed errors to keep (0 = 16) */
	/* Added by the verifier's implementation (h4): */
	unsigned threads;           /* worker threads (0 = online CPUs, max 8) */
	int cdg_switch_lids;        /* also put CA -> switch-LID routes in the CDG */
	uint32_t max_pairs;         /* CA pairs sampled for path diversity (0 = 20000) */
	uint32_t unchecked_lid;     /* a LID left out (0 = none): dump_fts drops
				     * the top LID when it is a multiple of 64 */
	const uint32_t *cn_rank;    /* shifts in this rank order (per port
				     * index, core/cn_rank.h); NULL: port order */
	uint64_t *a2a_load_out;     /* with link_load: the all-to-all routes
				     * leaving each port (f->num_ports
				     * entries, by port index); NULL: not kept */
};

struct verify_result;
/* Every LID routed, delivered and loop-free from every CA port: the
 * tables can be programmed. `ok` is this and no credit loop. */
int verify_usable(const struct verify_result *r);

#define VERIFY_MAX_ERRORS 16
#define VERIFY_ERR_LEN 160

struct verify_result {
	/* completeness */
	uint64_t lids_total;            /* endpoint LIDs (incl. LMC) */
	uint64_t missing_entries;       /* switch x LID with no route / bad port */
	uint64_t bad_port_entries;      /* entry points at an unlinked/absent port */
	/* reachability from every CA port to every LID */
	uint64_t pairs_checked;
	uint64_t pairs_unreachable;
	uint64_t pairs_looping;
	/* hops */
	uint32_t max_hops;
	double avg_hops;
	double avg_stretch;             /* path hops / BFS minimum hops */
	double max_stretch;
	/* deadlock */
	int credit_loop;                /* 1 if the CDG has a cycle */
	uint64_t cdg_channels, cdg_edges;
	/* balance: number of routes per directed link */
	uint64_t a2a_max_link_load;     /* all CA pairs, base LIDs */
	double a2a_lower_bound;         /* lower bound on max link load */
	double a2a_ratio;               /* max / bound */
	uint64_t shift_worst_load;      /* worst max link load over shifts */
	uint32_t shift_worst;           /* the shift s that gives it */
	uint32_t shifts_congested;      /* shifts with any link load > 1 */
	uint32_t shifts_checked;
	/* multipath (LMC > 0) */
	double min_disjoint_paths;      /* min over CA pairs of disjoint paths */
	double avg_disjoint_paths;
	char first_error[256];
	int ok;                         /* complete, loop-free, no credit loop */
	/* Added by the verifier's implementation (h4): */
	uint32_t num_switches, num_terminals; /* terminals: linked CA/router ports */
	uint64_t duplicate_lids;        /* LIDs claimed by two endpoints */
	uint64_t endpoints_without_lid;
	uint64_t misdelivered_entries;  /* entry delivers to another terminal */
	uint64_t a2a_max_switch_link_load; /* over switch-to-switch links only */
	double a2a_switch_bound;        /* bound for those (cuts, averages) */
	double a2a_switch_ratio;
	uint64_t diversity_pairs;       /* CA pairs evaluated (sampled) */
	char cdg_cycle[256];            /* channels on a cycle, if any */
	uint32_t num_errors;            /* entries used in errors[] */
	char errors[VERIFY_MAX_ERRORS][VERIFY_ERR_LEN];
	double seconds;                 /* wall time of verify_routes */
	unsigned threads;               /* threads it used */
	uint64_t missing_to_switches;   /* of missing_entries: a switch with
					 * no entry for another switch's LID
					 * (up/down engines leave spine-to-
					 * spine unrouted; no CA route needs it) */
	uint64_t forwarding_loops;      /* cycles in the tables, one per cycle
					 * and LID, also where only switches'
					 * own MADs (traps to the SM) enter */
	uint64_t loops_to_switches;     /* of forwarding_loops: for a switch's
					 * LID */
};

/* Verify t on f. Returns 0 when verification ran (see res->ok for the
 * verdict) or a negative errno when it could not (out of memory). */
int verify_routes(const struct fabric *f, const struct lft_set *t,
		  const struct verify_opts *opts, struct verify_result *res);

/* One JSON object, newline-terminated. */
void verify_print_json(FILE *out, const struct verify_result *res);

#endif
