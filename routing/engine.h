/* The routing-engine interface: one small ops struct per engine, one
 * registry. An engine sees only the fabric graph (with LIDs assigned) and its
 * options, and fills the LFTs; nothing engine-specific leaks into callers.
 *
 * Loadable engines (dlopen, docs/routing.md): a shared object exports
 *     const struct route_engine *ibsm_engine_entry(uint32_t abi_version);
 * which returns its engine when abi_version is the ROUTE_ENGINE_ABI it was
 * built with, else NULL. ibsm refuses an object built for another ABI and
 * says which one it was. The ABI changes whenever struct route_engine,
 * route_ctx, route_options, route_memo, lft_set or fabric change layout.
 *
 * ABI history: 1 (first); 2 (issue 27): the engine's promises are the
 * field route_engine.flags (ABI 1 had an optional ibsm_engine_flags
 * symbol, no longer looked up), route_ctx.arg, and the structs below in
 * this order. */
#ifndef IBSM_ROUTING_ENGINE_H
#define IBSM_ROUTING_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "../core/fabric.h"
#include "lft.h"

struct path_sl;

#define ROUTE_ENGINE_ABI 2
#define ROUTE_ENGINE_ENTRY "ibsm_engine_entry"

/* The engines tried, in order, when none are named (ibsm and ibsm-route):
 * ftree for fat-trees (it refuses anything else, saying why), then updn,
 * deadlock-free on any topology, then minhop. */
#define ROUTE_DEFAULT_ENGINES "ftree,updn,minhop"

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

/* One run's options. Everything but lmc is optional (0/NULL: none) and
 * caller-owned; an engine ignores what it has no use for. */
struct route_options {
	/* What the tables are for. */
	uint8_t lmc;                    /* LIDs per endpoint = 1 << lmc */
	uint8_t max_vls;                /* layers (SLs/VLs) a layered engine
					 * may use, 0 = 8 */
	unsigned threads;               /* 0 = engine decides */
	/* Hints about the fabric. */
	const uint64_t *root_guids;     /* root switch node GUIDs */
	uint32_t num_root_guids;
	const uint64_t *cn_guids;       /* compute-node (CA) GUIDs */
	uint32_t num_cn_guids;
	const uint32_t *cn_rank;        /* per port index of the fabric: the
					 * compute node's rank (core/cn_rank.h),
					 * NULL = port order (issue 13) */
	/* Re-routes (issue 13): the previous tables, the fabric they were
	 * computed on and the memo of the same engine run that built them
	 * (never of tables from elsewhere). */
	const struct lft_set *prev;
	const struct fabric *prev_fab;
	const struct route_memo *prev_memo;
	/* Outputs besides the tables. */
	struct path_sl *sl_out;         /* path SLs (path_sl.h), allocated by
					 * the caller, filled by a layered
					 * engine */
	struct route_memo *memo_out;    /* emptied by route_run, filled by an
					 * engine that keeps a memo */
	/* Tables of an earlier run the caller gives up: route_run builds
	 * the new tables in their memory when it is large enough
	 * (lft_alloc_reuse) and leaves them empty, else leaves them alone. */
	struct lft_set *spare;
};

struct route_ctx {
	const struct fabric *fab;
	const struct route_options *opt;
	void *priv;                     /* engine-owned state */
	char why[256];                  /* reason when route() refuses */
	/* tables_any: set by an engine's prepare when its route fills every
	 * entry of t whatever t holds; route_run then leaves t as it got it
	 * (a spare's memory) instead of filling it, and sets tables_prev
	 * when t is a copy of opt->prev made beforehand (lft_set.copy_of),
	 * to start from (issue 13: fast repairs). */
	int tables_any;
	int tables_prev;
	/* The engine's own argument when it is run through a function of
	 * its own (ftree_run: its tuning and counters); NULL from route_run
	 * and route_select, which run every engine as it is. */
	void *arg;
};

/* What an engine promises about the tables it makes, declared in
 * route_engine.flags (never guessed from its name), so the daemon's
 * verification policy (routing/route_select.h), ibsm-route and the OpenSM
 * plugin read bits:
 *   ROUTE_ENGINE_DEADLOCK_FREE  tables are credit-loop-free on one VL by
 *       construction, switch-LID routes included (ftree, updn): a credit
 *       loop in them is a bug, and is logged as one.
 *   ROUTE_ENGINE_USES_PREV      route() follows route_options.prev (a
 *       sticky re-route, ftree): when the result fails verification the
 *       engine is run once more without the previous tables.
 *   ROUTE_ENGINE_LAYERED        routes may need several SLs, one VL each
 *       (dfsp): the engine fills route_options.sl_out within max_vls, and
 *       its tables are deadlock-free per SL layer, not on one VL (the
 *       layers need SL2VL tables: sm/program/vl_program.h).
 *   ROUTE_ENGINE_REPAIRS        given the previous tables of its own run
 *       (prev, prev_fab, prev_memo) after links or switches were lost, it
 *       changes only the entries that must change (ftree's minimal-change
 *       repair, issue 13) instead of routing anew. */
#define ROUTE_ENGINE_DEADLOCK_FREE (1u << 0)
#define ROUTE_ENGINE_USES_PREV     (1u << 1)
#define ROUTE_ENGINE_LAYERED       (1u << 2)
#define ROUTE_ENGINE_REPAIRS       (1u << 3)

struct route_engine {
	const char *name;
	const char *summary;            /* one line for --help listings */
	uint32_t flags;                 /* ROUTE_ENGINE_* */
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

/* The flags as words ("deadlock-free, repairs, ..."; "none"), for logs
 * and listings. */
const char *route_engine_flag_names(uint32_t flags, char *buf, size_t len);

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
