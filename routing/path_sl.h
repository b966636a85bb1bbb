/* The path-SL table an engine like dfsp fills beside its LFTs: which
 * service level (hence virtual lane / layer) the route from a source to a
 * destination LID must use so that every layer's channel dependency graph
 * is acyclic. Compact: one row per source *switch* (every CA shares its
 * switch's row: destination routing makes all its paths identical past
 * that switch), one column per destination LID.
 *
 * The SA answers PathRecord SL from path_sl_lookup(); the daemon programs
 * SL2VL so SL n travels on VL n (see docs/dfsp.md). */
#ifndef IBSM_ROUTING_PATH_SL_H
#define IBSM_ROUTING_PATH_SL_H

#include <stdint.h>
#include <stdio.h>
#include "../core/fabric.h"
#include "lft.h"

#define PATH_SL_MAX_VLS 15      /* data VLs 0..14 (IBA 7.6.1) */

struct path_sl {
	uint8_t *sl;            /* sl[src_sw * stride + dlid] */
	uint32_t *sw_of_lid;    /* LID -> switch ordinal it sits on / hangs off
				 * (UINT32_MAX: no such LID) */
	uint32_t num_switches;
	uint32_t stride;        /* max_lid + 1 */
	uint32_t max_lid;
	uint8_t vls_used;       /* layers in use (highest SL + 1) */
};

/* Allocate for f (LIDs assigned), every SL 0. Returns 0 or -ENOMEM. */
int path_sl_alloc(struct path_sl *p, const struct fabric *f);
void path_sl_free(struct path_sl *p);

/* SL of the path from slid to dlid (0 for unknown LIDs). The lookup the SA
 * wires as its path_sl(arg, slid, dlid) hook: arg is the struct path_sl. */
uint8_t path_sl_lookup(const struct path_sl *p, uint32_t slid, uint32_t dlid);
uint8_t path_sl_hook(void *arg, uint16_t slid, uint16_t dlid);

/* Write "SLID DLID SL" (decimal) for every CA-to-CA path (base source
 * LID, every destination LID), and with switch_lids also the paths from
 * CAs to switch LIDs (what a full per-SL credit-loop check needs). Returns
 * 0 or -errno. */
int path_sl_write(const struct fabric *f, const struct path_sl *p,
		  const char *path, int switch_lids);

/* Independent check of tables t with SLs p: for each SL, the channel
 * dependency graph of the routes on it (from every switch with CAs to
 * every LID, so CA-to-switch-LID routes count) must be acyclic. Returns 0 when fine, 1 when
 * some SL has a cycle (which one in why), negative errno on failure. */
int path_sl_check(const struct fabric *f, const struct lft_set *t,
		  const struct path_sl *p, uint32_t *vls_used, char *why,
		  size_t len);

/* The VLs the routes of each layer travel on, once SL2VL maps are applied
 * (QoS classes x layers, qos/qos_sl_space.h): vl_mask[l] has bit v when
 * some SL that carries layer l maps to VL v; sls_of_vl[v] names those SLs
 * in messages. */
struct path_sl_vls {
	uint16_t vl_mask[16];
	uint16_t sls_of_vl[16];
};

/* path_sl_check per VL: every route joins the graph of each VL in
 * v->vl_mask[its layer], so two SLs on one VL share its graph (v NULL:
 * one graph per SL, path_sl_check). A layer no VL carries is an error.
 * why names the VL and its SLs. Returns as path_sl_check. */
int path_sl_check_vls(const struct fabric *f, const struct lft_set *t,
		      const struct path_sl *p, const struct path_sl_vls *v,
		      uint32_t *vls_used, char *why, size_t len);

/* Read "SLID DLID SL" lines (as path_sl_write writes them, '#' comments)
 * into p, allocated for the fabric (path_sl_alloc). Bad lines are logged
 * with file:line. Returns 0, -errno or -EINVAL. */
int path_sl_read(struct path_sl *p, const char *path);

struct route_graph;
/* The switch-to-switch channels (adjacency indices of g) the route from
 * switch s to lid takes under t, at most max; returns how many, or
 * UINT32_MAX when the route is broken or loops. */
uint32_t path_sl_channels(const struct route_graph *g, const struct lft_set *t,
			  uint32_t s, uint32_t lid, uint32_t *chan, uint32_t max);

#endif
