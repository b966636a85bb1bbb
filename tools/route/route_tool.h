/* ibsm-route's parts (tools/ibsm_route_main.c runs them): the command
 * line (route_cli.c), LIDs (route_lids.c), re-route input
 * (route_prev.c) and the tables (route_tables.c). Exit codes as
 * ibsm-route(1): 0 ok, EXIT_VERIFY, EXIT_USAGE. */
#ifndef IBSM_TOOLS_ROUTE_TOOL_H
#define IBSM_TOOLS_ROUTE_TOOL_H

#include <stdint.h>

#include "../../core/fabric.h"
#include "../../core/lid_assign.h"
#include "../../formats/topo_read.h"
#include "../../routing/engine.h"
#include "../../routing/lft.h"
#include "../../routing/path_sl.h"

#define EXIT_VERIFY 1
#define EXIT_USAGE 2

struct cli {
	const char *topo, *engines, *roots, *cns, *guid2lid, *save_guid2lid;
	const char *out, *lfts_in, *dot, *sl_out, *cn_order, *sl_in;
	const char *prev_topo, *prev_lfts;
	const char *qos, *sl2vl;
	const char *engine_path[16];
	unsigned num_engine_paths;
	enum topo_format format;
	unsigned lmc, shifts, threads, vls;
	int check, cdg_switch_lids, quiet, verbose, list_engines, wide_lids;
};

/* Re-route input (--prev-topo, --prev-lfts): the previous fabric, its
 * LIDs (kept for --topo, as an SM keeps them across sweeps) and tables. */
struct prev {
	struct fabric fab;
	struct lid_map lids;
	struct lft_set lft;
	/* Warm memory for the new tables, as the daemon keeps between
	 * routes (sm/sm_state.c, spare_prefault): a re-route is then timed
	 * as the daemon runs it, not with 345 MB of page faults at 65k. */
	struct lft_set spare;
	/* What the engine that routed the previous fabric kept for a repair
	 * of its tables (ftree: their turns), as the daemon keeps it with the
	 * tables it holds; empty with --prev-lfts. */
	struct route_memo memo;
};

/* route_cli.c */
int rt_parse_args(int argc, char **argv, struct cli *c);
int rt_check_engine_names(const char *list);

/* route_lids.c */
void rt_check_guids(struct fabric *f, const char *path, const uint64_t *g,
		    uint32_t n, uint8_t type);
uint8_t rt_fabric_lmc(const struct fabric *f);
int rt_assign_lids(struct fabric *f, const struct cli *c, const char *topo,
		   const struct lid_map *given, struct lid_map *keep);

/* route_prev.c */
void rt_prev_init(struct prev *pv);
void rt_prev_free(struct prev *pv);
int rt_prev_read(struct prev *pv, const struct cli *c);
int rt_prev_tables(struct prev *pv, struct fabric *f, const struct cli *c);
void rt_prev_report(struct prev *pv, const struct fabric *f,
		    const struct lft_set *t, const struct cli *c);

/* route_tables.c */
int rt_route_list(const char *engines, const struct fabric *f,
		  const struct route_options *ro, struct lft_set *t,
		  const char **used);
int rt_make_tables(struct fabric *f, const struct cli *c, struct lft_set *t,
		   struct path_sl *sl, const uint32_t *rank,
		   struct prev *pv, const char **engine_used,
		   double *route_s);
uint32_t rt_dropped_top_lid(const struct fabric *f, const struct lft_set *t);

#endif
