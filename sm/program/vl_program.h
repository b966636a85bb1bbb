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
#include "../../qos/qos_vl.h"
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

/* QoS (issue 28, docs/qos.md): the tables of OpenSM's qos_* options on
 * every port type, as OpenSM with `qos TRUE` writes them:
 *   CA / router port   SL2VL (if IsSLMappingSupported) and VLArb, ca/rtr
 *   switch port N>0    VLArb (swe); SL2VL of every input 0..N to N (swe)
 *   switch port 0      enhanced port 0 only: VLArb and SL2VL (0,0) (sw0),
 *                      SL2VL of inputs 1..N to port 0 (swe)
 * each clipped to the port's OperationalVLs and VLArb caps (qos/qos_vl.h).
 * Diff-only, like vlprog_program; a table the SA's cache holds (read or
 * written since its ports changed) is not read again. */
struct vlprog_qos {
	struct qos_vl_table tbl[QOS_PT_NUM];
};

/* Build the tables from the five sets of keys (sm/config/config.h qos_vl). */
void vlprog_qos_init(struct vlprog_qos *q, const struct qos_vl_keys *keys);

/* The hook where layered routing and QoS meet: the SL2VL table the
 * policy wants on node nd from input `in` to output `out` (a CA's port:
 * in 0, out the port number), as on the wire. With dfsp and QoS both on,
 * the combined SL space (issue 28, helper qoslayer28) decides from this
 * and the layers; today layered routes keep vlprog_program's tables. */
int vlprog_qos_sl2vl(const struct vlprog_qos *q, const struct subnet *r,
		     uint32_t nd, unsigned in, unsigned out, uint8_t want[8]);
/* VLArb block (1..4) of port index p as on the wire; the entries it
 * carries (0: none). */
unsigned vlprog_qos_vlarb(const struct vlprog_qos *q, const struct subnet *r,
			  uint32_t p, unsigned block, uint8_t want[64]);

int vlprog_program_qos(struct mad_transport *t, const struct subnet *r,
		       const struct vlprog_qos *q, struct sa_sl2vl_cache *known,
		       struct sa_sl2vl_cache *known_vlarb, struct vlprog_stats *st);

#endif
