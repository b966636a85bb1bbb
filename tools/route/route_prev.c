/* ibsm-route's re-route input (--prev-topo, --prev-lfts): the previous
 * fabric, its LIDs and tables (read, or routed with the same engines),
 * the warm spare, and how much the new tables differ from them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cn_rank.h"
#include "../../core/input_file.h"
#include "../../core/log.h"
#include "../../formats/topo_read.h"
#include "route_tool.h"


void rt_prev_init(struct prev *pv)
{
	fab_init(&pv->fab);
	lid_map_init(&pv->lids);
	memset(&pv->lft, 0, sizeof(pv->lft));
	memset(&pv->spare, 0, sizeof(pv->spare));
	memset(&pv->memo, 0, sizeof(pv->memo));
}

void rt_prev_free(struct prev *pv)
{
	lft_free(&pv->lft);
	lft_free(&pv->spare);
	route_memo_free(&pv->memo);
	lid_map_free(&pv->lids);
	fab_free(&pv->fab);
}

int rt_prev_read(struct prev *pv, const struct cli *c)
{
	if (topo_read(&pv->fab, c->prev_topo, c->format))
		return EXIT_USAGE;
	if (!pv->fab.num_switches) {
		log_err("%s: no switches", c->prev_topo);
		return EXIT_USAGE;
	}
	return rt_assign_lids(&pv->fab, c, c->prev_topo, NULL, &pv->lids);
}

/* Every switch header of a --prev-lfts file names a switch of
 * --prev-topo, and every switch there has a table: otherwise the two
 * files are not of one fabric. */
static int prev_check_headers(struct prev *pv, const struct cli *c)
{
	const char *path = c->prev_lfts;
	char line[1024];
	unsigned lineno = 0;
	int rc = 0;
	uint8_t *seen = calloc(pv->fab.num_switches, 1);
	int ck = input_file_check(path);
	FILE *in = ck ? NULL : fopen(path, "r");

	if (!in) {
		if (ck != -EISDIR && ck != -EINVAL)
			log_err("%s: %s", path, strerror(ck ? -ck : errno));
		free(seen);
		return EXIT_USAGE;
	}
	while (seen && fgets(line, sizeof(line), in)) {
		lineno++;
		char *p = line + strspn(line, " \t"), *g, *q;
		if (strncmp(p, "Unicast lids", 12) || !(g = strstr(p, " guid 0x")))
			continue;       /* the table reader judges the rest */
		uint64_t guid = strtoull(g + 8, &q, 16);
		uint32_t n = fab_find_node_guid(&pv->fab, guid);
		if (n == FAB_NONE || !fab_is_switch(&pv->fab, n)) {
			log_err("%s:%u: switch 0x%016" PRIx64 " is not a switch of "
				"%s: tables and fabric do not match", path, lineno,
				guid, c->prev_topo);
			rc = EXIT_USAGE;
			break;
		}
		seen[pv->fab.nodes[n].sw_index] = 1;
	}
	fclose(in);
	for (uint32_t s = 0; !rc && seen && s < pv->fab.num_switches; s++)
		if (!seen[s]) {
			const struct fab_node *nd = &pv->fab.nodes[pv->fab.switches[s]];
			log_err("%s: no table for switch 0x%016" PRIx64 " (\"%s\") "
				"of %s: tables and fabric do not match", path,
				nd->guid, nd->desc, c->prev_topo);
			rc = EXIT_USAGE;
		}
	if (!seen)
		rc = EXIT_USAGE;
	free(seen);
	return rc;
}

/* The previous tables: read them, or route the previous fabric with the
 * same engines (not counted in the route time). */
static int prev_tables_get(struct prev *pv, struct fabric *f, const struct cli *c);

int rt_prev_tables(struct prev *pv, struct fabric *f, const struct cli *c)
{
	int rc = prev_tables_get(pv, f, c);
	if (rc)
		return rc;
	double t0 = now_seconds();
	if (lft_alloc(&pv->spare, f->num_switches, fab_max_lid(f)))
		return 0;
	pv->spare.clean = 1;            /* lft_alloc filled it */
	log_info("spare tables: %.1f MB pre-faulted in %.3f s (not timed;"
		 " the daemon does it once the fabric is up)",
		 (double)pv->spare.num_switches * pv->spare.stride / 1048576.0,
		 now_seconds() - t0);
	/* As the daemon between routes: the spare a copy of the tables held
	 * (same layout), for an engine that starts from them. */
	t0 = now_seconds();
	if (pv->lft.port && lft_copy_step(&pv->spare, &pv->lft, 0) == 1) {
		log_info("spare tables: a copy of the previous tables made in %.3f s "
			 "(not timed; the daemon makes it in its idle loop)",
			 now_seconds() - t0);
	}
	return 0;
}

static int prev_tables_get(struct prev *pv, struct fabric *f, const struct cli *c)
{
	uint32_t common = 0;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = fab_find_node_guid(&pv->fab, f->nodes[f->switches[s]].guid);
		common += n != FAB_NONE && fab_is_switch(&pv->fab, n);
	}
	if (!common) {
		log_err("%s: no switch GUID in common with %s: not the same fabric",
			c->prev_topo, c->topo);
		return EXIT_USAGE;
	}
	if (c->prev_lfts) {
		int rc = prev_check_headers(pv, c);
		if (rc)
			return rc;
		if (lft_alloc(&pv->lft, pv->fab.num_switches, fab_max_lid(&pv->fab)) ||
		    lft_read_dump_fts(&pv->fab, &pv->lft, c->prev_lfts,
				      c->wide_lids))
			return EXIT_USAGE;
		return 0;
	}
	uint32_t *rank = NULL;
	int port_only = c->cn_order && !strcmp(c->cn_order, "port");
	if (cn_rank_build(&pv->fab, port_only ? NULL : c->cn_order, &rank))
		return EXIT_USAGE;
	struct route_options ro = {
		.lmc = rt_fabric_lmc(&pv->fab),
		.threads = c->threads,
		.max_vls = (uint8_t)c->vls,
		.cn_rank = port_only ? NULL : rank,
		.memo_out = &pv->memo,
	};
	const char *used = "?";
	double t0 = now_seconds();
	int r = rt_route_list(c->engines, &pv->fab, &ro, &pv->lft, &used);
	free(rank);
	if (r < 0) {
		log_err("%s: no engine of \"%s\" could route the previous fabric",
			c->prev_topo, c->engines);
		return EXIT_VERIFY;
	}
	log_info("previous tables: %s routed by %s in %.3f s", c->prev_topo,
		 used, now_seconds() - t0);
	return 0;
}

/* How many entries and 64-entry blocks differ from the previous tables
 * (switches matched by GUID; a new switch counts whole). */
void rt_prev_report(struct prev *pv, const struct fabric *f,
		    const struct lft_set *t, const struct cli *c)
{
	uint64_t entries = 0, blocks = 0, nblocks = 0;
	uint32_t fresh = 0;
	uint32_t nblk = t->stride / LFT_BLOCK;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = fab_find_node_guid(&pv->fab, f->nodes[f->switches[s]].guid);
		const uint8_t *now = lft_row(t, s);
		const uint8_t *was = n != FAB_NONE && fab_is_switch(&pv->fab, n) ?
			lft_row(&pv->lft, pv->fab.nodes[n].sw_index) : NULL;
		nblocks += nblk;
		fresh += !was;
		for (uint32_t b = 0; b < nblk; b++) {
			uint32_t l0 = b * LFT_BLOCK, d = 0;
			if (was && l0 + LFT_BLOCK <= pv->lft.stride &&
			    !memcmp(now + l0, was + l0, LFT_BLOCK))
				continue;
			for (uint32_t l = l0; l < l0 + LFT_BLOCK; l++)
				d += now[l] != (was && l < pv->lft.stride ?
						was[l] : LFT_NO_PATH);
			entries += d;
			blocks += d != 0;
			if (d && getenv("RP_DEBUG"))
				fprintf(stderr, "DIFF %s %u %u\n", f->nodes[f->switches[s]].desc, l0, d);
		}
	}
	if (!c->quiet)
		fprintf(stderr, "ibsm-route: re-route: %" PRIu64 " entries differ "
			"from the previous tables, in %" PRIu64 " of %" PRIu64
			" 64-entry LFT blocks (%u switches new)\n", entries,
			blocks, nblocks, fresh);
}
