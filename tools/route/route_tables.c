/* ibsm-route's tables: routed with the engine list as the daemon does,
 * or read with --lfts-in; the route phase's time and memory logged. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../core/guid_list.h"
#include "../../core/log.h"
#include "../../routing/engine.h"
#include "../../routing/route_select.h"
#include "../../routing/verify.h"
#include "route_tool.h"

/* Route with the engine list as the daemon does (routing/route_select.h):
 * with more than one engine, each engine's tables are verified (routes to
 * switch LIDs included) and the first verified ones are taken, passing
 * over an engine whose tables fail, so ibsm-route prints the tables the
 * daemon would program for the same fabric and LIDs. One engine is simply
 * run (its tables are judged later, with --check). 0 or a negative errno;
 * *used names the engine whose tables t holds. */
int rt_route_list(const char *engines, const struct fabric *f,
		  const struct route_options *ro, struct lft_set *t,
		  const char **used)
{
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	const struct route_engine *e = NULL;
	struct route_choice *ch;
	int r;

	*used = "?";
	if (!strpbrk(engines, ", \t")) {
		r = route_run_list(engines, f, ro, t, &e);
		if (e)
			*used = e->name;
		return r;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	r = route_select(engines, f, ro, &vo, t, ch);
	if (ch->engine)
		*used = ch->engine->name;
	free(ch);
	return r == 1 ? 0 : r < 0 ? r : -EINVAL;
}

/* Route (or read tables); returns 0 or an exit code. */
int rt_make_tables(struct fabric *f, const struct cli *c, struct lft_set *t,
		   struct path_sl *sl, const uint32_t *rank,
		   struct prev *pv, const char **engine_used,
		   double *route_s)
{
	uint64_t *roots = NULL, *cns = NULL;
	uint32_t nroots = 0, ncns = 0;
	double t0 = now_seconds();
	int rc = 0;

	if (c->lfts_in) {
		if (lft_alloc(t, f->num_switches, fab_max_lid(f)))
			return EXIT_USAGE;
		if (lft_read_dump_fts(f, t, c->lfts_in, c->wide_lids)) {
			lft_free(t);
			return EXIT_USAGE;
		}
		*engine_used = "lfts-in";
		*route_s = now_seconds() - t0;
		return 0;
	}
	if ((c->roots && guid_list_read(c->roots, &roots, &nroots)) ||
	    (c->cns && guid_list_read(c->cns, &cns, &ncns))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (c->roots)
		rt_check_guids(f, c->roots, roots, nroots, FAB_SWITCH);
	if (c->cns)
		rt_check_guids(f, c->cns, cns, ncns, FAB_CA);
	struct route_options ro = {
		.lmc = rt_fabric_lmc(f),           /* --lmc, or the dump's if larger */
		.root_guids = roots, .num_root_guids = nroots,
		.cn_guids = cns, .num_cn_guids = ncns,
		.threads = c->threads,
		.max_vls = (uint8_t)c->vls,
		.sl_out = sl,
		.cn_rank = rank,
		.prev = pv ? &pv->lft : NULL,
		.prev_fab = pv ? &pv->fab : NULL,
		.spare = pv ? &pv->spare : NULL,
		.prev_memo = pv ? &pv->memo : NULL,
	};
	const char *used = "?";
	struct rusage ru0;
	int had_spare = pv && pv->spare.port;
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_seconds();
	if (rt_route_list(c->engines, f, &ro, t, &used) < 0) {
		log_err("%s: no engine of \"%s\" could route the fabric",
			c->topo, c->engines);
		rc = EXIT_VERIFY;
		goto out;
	}
	*route_s = now_seconds() - t0;
	*engine_used = used;
	{
		/* Memory of the route phase alone (the verifier adds its own
		 * later): the tables are most of it on large fabrics. */
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		double tab = (double)t->stride * t->num_switches / 1048576.0;
		double grew = (ru.ru_maxrss - ru0.ru_maxrss) / 1024.0;
		/* CPU besides wall: on a shared machine the wall time of a
		 * 0.2 s route says as much about the others' load as ours */
		double cpu = (ru.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
			(ru.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
			(ru.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
			(ru.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
		if (had_spare && !pv->spare.port)
			log_info("route: tables %.1f MB, built in the pre-faulted "
				 "spare; peak RSS %.1f MB before routing, %.1f MB after; "
				 "route CPU %.3f s", tab, ru0.ru_maxrss / 1024.0,
				 ru.ru_maxrss / 1024.0, cpu);
		else
			log_info("route: tables %.1f MB; peak RSS %.1f MB before routing, "
				 "%.1f MB after (+%.1f MB, %.1f%% over the tables)",
				 tab, ru0.ru_maxrss / 1024.0, ru.ru_maxrss / 1024.0, grew,
				 tab > 0 ? 100.0 * (grew - tab) / tab : 0.0);
	}
out:
	free(roots);
	free(cns);
	return rc;
}

/* dump_fts leaves out the top LID when it is a multiple of 64
 * (docs: IBSIM-NOTES); if no switch has it, do not judge that LID. */
uint32_t rt_dropped_top_lid(const struct fabric *f, const struct lft_set *t)
{
	uint32_t top = fab_max_lid(f);
	if (!top || top % 64 || top > t->max_lid)
		return 0;
	for (uint32_t s = 0; s < t->num_switches; s++)
		if (lft_get(t, s, top) != LFT_NO_PATH)
			return 0;
	log_warn("no switch has an entry for LID %u: dump_fts leaves out the "
		 "top LID when it is a multiple of 64, so it is not judged", top);
	return top;
}
