/* The routing-engine interface: one small ops struct per engine, one
 * registry. An engine sees only the fabric graph (with LIDs assigned) and its
 * options, and fills the LFTs; nothing engine-specific leaks into callers.
 *
 * Loadable engines (dlopen): a shared object exports
 *     const struct route_engine *ibsm_engine_entry(uint32_t abi_version);
 * which returns NULL if it was built for another ROUTE_ENGINE_ABI. */
#ifndef IBSM_ROUTING_ENGINE_H
#define IBSM_ROUTING_ENGINE_H

#include <stdint.h>
#include "../core/fabric.h"
#include "lft.h"

struct path_sl;

/* What an engine derived from tables it built that a later repair of
 * those tables would otherwise recompute from them: the down->up turns
 * they take (ftree: the turns its detours took; issue 13). Engine-
 * allocated into a caller-owned struct; the caller keeps it with the
 * tables and the fabric they were built on, and gives it back with them
 * (route_options.prev_memo). */
struct route_memo {
	char engine[16];                /* who wrote it; "" = empty */
	uint32_t num_switches;          /* of the fabric the tables are for */
	uint32_t n;                     /* turns */
	uint32_t *sw;                   /* switch ordinal of that fabric */
	uint8_t *in, *out;              /* enter on port in, leave on out */
};

void route_memo_free(struct route_memo *m);

/* The engines tried, in order, when none are named (ibsm and ibsm-route):
 * ftree for fat-trees (it refuses anything else, saying why), then updn,
 * deadlock-free on any topology, then minhop. */
#define ROUTE_DEFAULT_ENGINES "ftree,updn,minhop"

#define ROUTE_ENGINE_ABI 1
#define ROUTE_ENGINE_ENTRY "ibsm_engine_entry"

struct route_options {
	uint8_t lmc;                    /* LIDs per endpoint = 1 << lmc */
	const uint64_t *root_guids;     /* optional root switch node GUIDs */
	uint32_t num_root_guids;
	const uint64_t *cn_guids;       /* optional compute-node (CA) GUIDs */
	uint32_t num_cn_guids;
	const struct lft_set *prev;     /* optional previous tables (re-route) */
	const struct fabric *prev_fab;  /* the fabric prev was computed on */
	unsigned threads;               /* 0 = engine decides */
	/* Appended for layered engines (dfsp); caller-owned, so engines
	 * that ignore them keep working (ABI 1 unchanged). */
	uint8_t max_vls;                /* layers (SLs/VLs) allowed, 0 = 8 */
	struct path_sl *sl_out;         /* optional: filled with path SLs
					 * (path_sl.h), allocated by caller */
	/* Appended for rank order (issue 13): per port index of the fabric,
	 * the compute node's rank (core/cn_rank.h), NULL = port order. */
	const uint32_t *cn_rank;
	/* Appended for fast re-routes (issue 13): optional tables of an
	 * earlier run the caller gives up; route_run builds the new tables
	 * in their memory when it is large enough (lft_alloc_reuse) and
	 * leaves them empty, else leaves them alone. */
	struct lft_set *spare;
	/* Appended for fast repairs (issue 13), both optional: memo_out is
	 * emptied by route_run and filled by an engine that keeps a memo of
	 * the tables it built; prev_memo is the memo of prev (same engine run
	 * as prev, never of tables from elsewhere). */
	struct route_memo *memo_out;
	const struct route_memo *prev_memo;
};

struct route_ctx {
	const struct fabric *fab;
	const struct route_options *opt;
	void *priv;                     /* engine-owned state */
	char why[256];                  /* reason when route() refuses */
	/* Appended for fast repairs (issue 13). tables_any: set by an
	 * engine's prepare when its route fills every entry of t whatever t
	 * holds; route_run then leaves t as it got it (a spare's memory)
	 * instead of filling it, and sets tables_prev when t is a copy of
	 * opt->prev made beforehand (lft_set.copy_of), to start from. */
	int tables_any;
	int tables_prev;
};

struct route_engine {
	const char *name;
	const char *summary;            /* one line for --help listings */
	/* Optional. Build engine state from the graph; may refuse the
	 * topology with -ENOTSUP (set ctx->why) so a fallback can run. */
	int (*prepare)(struct route_ctx *ctx);
	/* Fill t (allocated by the caller to the fabric's max LID, all
	 * LFT_NO_PATH unless prepare set ctx->tables_any). Returns 0 or a
	 * negative errno (set ctx->why). */
	int (*route)(struct route_ctx *ctx, struct lft_set *t);
	/* Optional. Release ctx->priv. */
	void (*release)(struct route_ctx *ctx);
};

/* What an engine promises about the tables it makes, declared (never
 * guessed from its name) so the daemon's verification policy
 * (routing/route_select.h) reads one bit:
 *   ROUTE_ENGINE_DEADLOCK_FREE  tables are credit-loop-free on one VL by
 *       construction, switch-LID routes included (ftree, updn): a credit
 *       loop in them is a bug, and is logged as one.
 *   ROUTE_ENGINE_USES_PREV      route() follows route_options.prev (a repair
 *       or a sticky re-route, ftree): when the result fails verification the
 *       engine is run once more without the previous tables.
 * Built-ins declare theirs in the registry. A loadable engine may export
 *     uint32_t ibsm_engine_flags(uint32_t abi_version);
 * (ROUTE_ENGINE_FLAGS_ENTRY); an object without it promises nothing. The
 * symbol is optional so that ABI 1 objects built before it load unchanged
 * (it moves into struct route_engine at the next ABI bump, issue 27). */
#define ROUTE_ENGINE_DEADLOCK_FREE (1u << 0)
#define ROUTE_ENGINE_USES_PREV     (1u << 1)
#define ROUTE_ENGINE_FLAGS_ENTRY "ibsm_engine_flags"

/* The flags of e (0 for an engine not in the registry). */
uint32_t route_engine_flags(const struct route_engine *e);

/* Built-in engines, NULL-terminated. */
const struct route_engine *const *route_builtin_engines(void);

/* Find an engine by name among built-ins and loaded ones. */
const struct route_engine *route_engine_find(const char *name);

/* Load an engine from a shared object path and register it. Returns the
 * engine or NULL after logging why (missing file, missing symbol, ABI). */
const struct route_engine *route_engine_load(const char *path);

/* Run engine e on f: allocate t, prepare, route, release.
 * Returns 0 or a negative errno; on failure `why` (if non-NULL, size 256)
 * says why and t is freed. */
int route_run(const struct route_engine *e, const struct fabric *f,
	      const struct route_options *opt, struct lft_set *t, char *why);

/* Walking a comma-separated engine list ("ftree,updn,minhop"): begin
 * copies it (-EINVAL, logged, when missing or too long), next gives the
 * next known engine in order, logging and skipping an unknown name, and
 * NULL at the end. route_run_list and the daemon's route_select walk it. */
struct route_list_iter {
	char list[512];
	char *save;
	int started;
};

int route_list_begin(struct route_list_iter *it, const char *names);
const struct route_engine *route_list_next(struct route_list_iter *it);

/* Run the first engine of a comma-separated list that accepts the fabric
 * ("ftree,updn,minhop"). *used gets the engine that produced t. Each
 * refusal is logged with its reason; never falls back silently. */
int route_run_list(const char *names, const struct fabric *f,
		   const struct route_options *opt, struct lft_set *t,
		   const struct route_engine **used);

#endif
