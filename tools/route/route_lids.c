/* ibsm-route's LIDs: assigned as an SM would (the file's, the previous
 * fabric's or --guid2lid, then fresh ones), with the warnings a dump's
 * LMC or wide LIDs call for; and the listed GUIDs checked. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "../../core/log.h"
#include "route_tool.h"

/* Warn about listed GUIDs that are not nodes of the wanted type. */
void rt_check_guids(struct fabric *f, const char *path, const uint64_t *g,
		    uint32_t n, uint8_t type)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = fab_find_node_guid(f, g[i]);
		if (node == FAB_NONE)
			log_warn("%s: GUID 0x%016" PRIx64 " is not in the fabric",
				 path, g[i]);
		else if (f->nodes[node].type != type)
			log_warn("%s: GUID 0x%016" PRIx64 " is a %s, not a %s",
				 path, g[i], fab_type_str(f->nodes[node].type),
				 fab_type_str(type));
	}
}

/* The largest LMC of the CA and router ports that have a LID. */
uint8_t rt_fabric_lmc(const struct fabric *f)
{
	uint8_t lmc = 0;

	for (uint32_t p = 0; p < f->num_ports; p++)
		if (!fab_is_switch(f, f->ports[p].node) && f->ports[p].lid &&
		    f->ports[p].lmc > lmc)
			lmc = f->ports[p].lmc;
	return lmc;
}

/* Ports whose LID in `topo` is past the unicast range: lid_assign gives
 * them fresh LIDs, so the tables would not match the file; say so, since
 * only --wide-lids (analysis tables) keeps such LIDs. */
static void warn_wide_lids(const struct fabric *f, const char *topo)
{
	uint32_t n = 0, first = 0;

	for (uint32_t p = 0; p < f->num_ports; p++)
		if (f->ports[p].lid > FAB_MAX_UCAST_LID && !n++)
			first = p;
	if (n)
		log_warn("%s: %u %s past the unicast range (0x%x; first: "
			 "port GUID 0x%016llx, LID 0x%x) and get new LIDs; "
			 "--wide-lids keeps them (analysis only)", topo, n,
			 n == 1 ? "port carries a LID" : "ports carry LIDs",
			 FAB_MAX_UCAST_LID,
			 (unsigned long long)f->ports[first].guid,
			 f->ports[first].lid);
}

/* LIDs for f (read from `topo`): the file's, then `given` (the previous
 * fabric's, on a re-route) or --guid2lid, then fresh ones. `keep`, if
 * set, receives the LIDs used (and --save-guid2lid is left to the
 * fabric routed last). */
int rt_assign_lids(struct fabric *f, const struct cli *c, const char *topo,
		   const struct lid_map *given, struct lid_map *keep)
{
	struct lid_map map, used;
	struct lid_assign_opts lo = { .lmc = (uint8_t)c->lmc, .keep_existing = 1 };
	int rc;

	if (c->wide_lids)
		lo.max_lid = LFT_MAX_ANALYSIS_LID;
	/* The LMC the dump's port lines carry ("lid 16 lmc 1"): those ports
	 * answer to every LID of their range, so every one needs a route. */
	{
		uint8_t file_lmc = rt_fabric_lmc(f);

		if (file_lmc != c->lmc)
			log_warn("%s: ports carry LMC %u, --lmc is %d: routing with LMC %u",
				 topo, file_lmc, c->lmc,
				 file_lmc > c->lmc ? file_lmc : (unsigned)c->lmc);
		if (file_lmc > lo.lmc)
			lo.lmc = file_lmc;
	}

	lid_map_init(&map);
	lid_map_init(&used);
	if (given) {
		lo.map = given;
	} else if (c->guid2lid) {
		rc = lid_map_load(&map, c->guid2lid);
		if (rc == -ENOENT)
			log_err("%s: no such file", c->guid2lid);
		if (rc) {
			lid_map_free(&map);
			return EXIT_USAGE;
		}
		lo.map = &map;
	}
	if (!c->wide_lids)
		warn_wide_lids(f, topo);
	rc = lid_assign(f, &lo, &used);
	if (rc == -ENOSPC && !c->wide_lids) {
		log_err("%s: the fabric needs more LIDs than the unicast range "
			"holds (0x%x); --wide-lids routes it for analysis only",
			topo, FAB_MAX_UCAST_LID);
		rc = EXIT_USAGE;
	} else if (rc < 0) {
		log_err("%s: LID assignment failed: %s", topo, strerror(-rc));
		rc = EXIT_USAGE;
	} else {
		if (fab_max_lid(f) > FAB_MAX_UCAST_LID)
			log_warn("%s: LIDs up to 0x%x, past the unicast range "
				 "(0x%x): tables for analysis only, no switch "
				 "holds them", topo, fab_max_lid(f),
				 FAB_MAX_UCAST_LID);
		if (rc && c->lfts_in)
			log_warn("%s: %d ports had no LID; --lfts-in tables will "
				 "not route them", topo, rc);
		else if (rc)
			log_info("assigned %d new LIDs", rc);
		rc = 0;
		if (keep) {
			*keep = used;
			lid_map_init(&used);
		} else if (c->save_guid2lid) {
			int r = lid_map_save(&used, c->save_guid2lid);
			if (r) {
				log_err("%s: %s", c->save_guid2lid, strerror(-r));
				rc = EXIT_USAGE;
			}
		}
	}
	lid_map_free(&map);
	lid_map_free(&used);
	return rc;
}
