/* Layered routing (dfsp) and QoS share the SL space (issue 28,
 * docs/qos.md "QoS with dfsp layers"). A QoS class is one distinct SL the
 * policy gives (a level without `sl` counts as SL 0). With both on, every
 * class gets its own run of layer SLs:
 *
 *     SL = class base + layer          (layer 0 .. layers-1)
 *
 * and every (class, layer) SL its own data VL, so classes keep apart on
 * the wire and each layer keeps the acyclic dependency graph the engine
 * built for it. The plan, given C classes, the layers the engine may use
 * (L, its budget) and the data VLs every port runs (V, at most 15):
 *
 *   C > V, sharing refused   QOS_SL_NOFIT: no class could have a VL of its
 *                            own (the start-time error; why says so)
 *   C > V, sharing allowed   QOS_SL_SHARED: layers = min(L, V, 16 / C),
 *                            VL = layer for every class (classes share
 *                            VLs; deadlock-free still: the routes of
 *                            layer l are the same in every class)
 *   C * L > min(V, 16)       QOS_SL_SHRUNK: layers = min(V, 16) / C
 *   else                     QOS_SL_FIT: layers = L
 *
 * Bases: the policy's own SLs when each class's run fits below the next
 * one and below SL 16 (so layer 0 answers the SL the policy names), else
 * class i gets base i * layers (`rebased`, why says so). VLs: (class i,
 * layer l) -> VL i * layers + l, or l when shared. SLs of no class map to
 * VL 0 (as SLs past the layers do without QoS).
 *
 * Pure: no I/O, no logging; the caller says `why` once. */
#ifndef IBSM_QOS_QOS_SL_SPACE_H
#define IBSM_QOS_QOS_SL_SPACE_H

#include <stddef.h>
#include <stdint.h>

#define QOS_SL_NUM 16           /* SLs 0..15 (IBA 7.6.5) */
#define QOS_SL_DATA_VLS 15      /* data VLs 0..14 (IBA 7.6.1) */
#define QOS_SL_NONE 0xFF

enum qos_sl_fit {
	QOS_SL_FIT,             /* every class has the layers asked */
	QOS_SL_SHRUNK,          /* fewer layers per class, own VLs kept */
	QOS_SL_SHARED,          /* classes share the layers' VLs */
	QOS_SL_NOFIT,           /* more classes than VLs, sharing refused */
};

struct qos_sl_space {
	enum qos_sl_fit fit;
	uint8_t num_classes;
	uint8_t class_sl[QOS_SL_NUM];   /* the policy's SL of class i, ascending */
	uint8_t class_base[QOS_SL_NUM]; /* first layer SL of class i */
	uint8_t class_of_sl[QOS_SL_NUM];/* policy SL -> class, QOS_SL_NONE */
	uint8_t layers;                 /* per class */
	uint8_t vls;                    /* data VLs the map uses */
	uint8_t sl2vl[QOS_SL_NUM];      /* SL -> VL */
	uint8_t rebased;                /* bases are not the policy's SLs */
	char why[256];                  /* what gave way and why ("" if FIT) */
};

struct qos_policy;
/* The classes of a policy: its distinct level SLs, ascending, into sl.
 * Returns how many (at least 1: a level without sl counts as SL 0). */
unsigned qos_sl_classes(const struct qos_policy *p, uint8_t sl[QOS_SL_NUM]);

/* Plan for n classes (distinct SLs, any order), `layers` wanted (1..15)
 * and `vls` data VLs (1..15; more counts as 15). Returns the fit; *s is
 * filled except for QOS_SL_NOFIT (then only fit and why). */
enum qos_sl_fit qos_sl_space_plan(const uint8_t *class_sl, unsigned n,
				  unsigned layers, unsigned vls, int allow_share,
				  struct qos_sl_space *s);

/* The SL of a path whose QoS level names policy_sl (0 without one) and
 * whose route is on `layer`. A policy SL of no class answers layer
 * (cannot happen for a plan of the policy's own classes). */
uint8_t qos_sl_space_sl(const struct qos_sl_space *s, uint8_t policy_sl,
			uint8_t layer);

/* The layer SLs that carry a route of `layer`, one per class, into sls;
 * returns how many. */
unsigned qos_sl_space_layer_sls(const struct qos_sl_space *s, uint8_t layer,
				uint8_t sls[QOS_SL_NUM]);

/* Which VLs carry the routes of each layer once the SL2VL map `sl2vl`
 * (16 entries; NULL: the plan's own) is applied: vl_mask[l] bit v when
 * some class's SL of layer l maps to VL v; sls_of_vl[v] those SLs. What
 * the per-VL credit-loop check (routing/path_sl.h) takes. An SL on VL 15
 * (dropped) joins no graph; a layer with no other VL is then an error of
 * the check. */
void qos_sl_space_vl_masks(const struct qos_sl_space *s, const uint8_t *sl2vl,
			   uint16_t vl_mask[QOS_SL_NUM],
			   uint16_t sls_of_vl[QOS_SL_NUM]);

/* "class SL 2: SLs 2-3 -> VLs 2-3; ..." for logs and ibsm-route --qos. */
void qos_sl_space_describe(const struct qos_sl_space *s, char *buf, size_t len);

#endif
