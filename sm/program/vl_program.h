/* Virtual lanes for layered routes (issue 11): engines like dfsp give every
 * path an SL (layer) whose channel dependency graph is acyclic; the
 * switches must carry SL n on VL n along the whole path. This programs
 * SL2VLMappingTable (IBA 14.2.5.8) SL n -> VL n for n below the layers in
 * use (the other SLs to VL 0) on every pair of linked ports of every switch
 * and on every CA port, and a VLArbitration low-priority table (14.2.5.9)
 * that gives each used VL the same weight, so none starves. Diff-only: all
 * tables are read first and only those that differ are written.
 * OperationalVLs are set by port_config.c (the most both ends allow). */
#ifndef IBSM_SM_VL_PROGRAM_H
#define IBSM_SM_VL_PROGRAM_H

#include <stdint.h>
#include "../../core/subnet.h"
#include "../../mad/mad_transport.h"
#include "../../sa/sa_sl2vl.h"

struct vlprog_stats {
	uint64_t read, written, unchanged;  /* SL2VL and VLArb tables */
	uint32_t failed;                    /* MADs refused or unanswered */
};

/* Data VLs every linked port can run, from VLCap at both ends (1, 2, 4,
 * 8 or 15): the layer budget of the fabric. */
unsigned vlprog_fabric_vls(const struct subnet *r);
/* Program for `vls` layers (2..15). SL2VL tables read and written are
 * stored in `known`, VLArb blocks in `known_vlarb` (the SA's caches;
 * NULL: nowhere). 0, or a negative errno (transport). */
int vlprog_program(struct mad_transport *t, const struct subnet *r,
		   unsigned vls, struct sa_sl2vl_cache *known,
		   struct sa_sl2vl_cache *known_vlarb, struct vlprog_stats *st);
/* qoslayer28 (issue 28, QoS classes x layers): the same with an SL2VL map
 * (16 entries, SL -> VL; NULL: SL n -> VL n for n < vls) on every port;
 * VLArb weighs VLs 0..vls-1 as above. */
int vlprog_program_map(struct mad_transport *t, const struct subnet *r,
		       unsigned vls, const uint8_t *map,
		       struct sa_sl2vl_cache *known,
		       struct sa_sl2vl_cache *known_vlarb, struct vlprog_stats *st);

#endif
