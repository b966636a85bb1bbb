/* ibsm-route --qos and --sl2vl (docs/qos.md, docs/ibsm-route.1): the QoS
 * classes of a policy and the SLs/VLs they get, offline. */
#ifndef IBSM_QOS_QOS_OFFLINE_H
#define IBSM_QOS_QOS_OFFLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qos_sl_space.h"

struct qos_policy;

/* Reads the policy of a --qos FILE, NULL with why in err. NULL stands for
 * qos_policy_read (OpenSM's qos-policy.conf); ibsm-route gives one that
 * also takes an ibsm YAML configuration, whose reader (sm/config/) sits
 * above qos/ (docs/design.md). */
typedef struct qos_policy *qos_policy_loader(const char *file, char *err,
					     size_t len);

/* An SL2VL map: the 16 VLs of SLs 0..15, the last 16 numbers of each line
 * that has them ('|', ',' or blanks between; '#' lines skipped), e.g.
 * smpquery sl2vl output of any number of ports. Every such line must give
 * the same map (one map for the fabric is what the per-VL check models).
 * 0, or -1 with "file:line: why" in err. */
int qos_sl2vl_read(const char *path, uint8_t map[QOS_SL_NUM], char *err,
		   size_t len);

/* OpenSM's default qos_sl2vl (0..14, 7) on a port of `vls` data VLs
 * (VL modulo vls): the SL2VL of a policy's SLs without layers. */
void qos_default_sl2vl(unsigned vls, uint8_t map[QOS_SL_NUM]);

/* The table ibsm-route --qos prints: per class its policy SL, its SLs and
 * VLs, then the SL2VL map. layered: the plan of s (class base + layer);
 * else the classes' own SLs on `map`. */
void qos_offline_print(FILE *out, const char *file, const struct qos_sl_space *s,
		       int layered, unsigned vls, const uint8_t *map);

/* What ibsm-route keeps of --qos and --sl2vl across a run. */
struct qos_offline {
	const char *file;           /* --qos, or NULL */
	struct qos_policy *policy;
	uint8_t class_sl[QOS_SL_NUM];
	unsigned num_classes;
	unsigned vls;               /* VL budget (--vls, default 8) */
	int layered;                /* a layered engine or --sl-in */
	struct qos_sl_space space;  /* with layered */
	uint8_t map[QOS_SL_NUM];    /* --sl2vl, else the plan's / default */
	int have_map;               /* --sl2vl given */
};

/* Load --qos (may be NULL) and --sl2vl (may be NULL) and plan for the
 * budget (layers = vls): the layers a layered engine may use per class
 * are then q->space.layers. -1 with why in err: unreadable, or a policy
 * that cannot fit (more classes than VLs). */
int qos_offline_begin(struct qos_offline *q, const char *qos_file,
		      qos_policy_loader *load, const char *sl2vl_file,
		      unsigned vls, int layered, char *err, size_t len);
/* The routes came out on `layers` layers: plan again for them (never
 * more than the budget's, so it fits as before). */
void qos_offline_layers(struct qos_offline *q, unsigned layers);
/* The per-VL check's input for routes on `layers` layers (routing/
 * path_sl.h struct path_sl_vls): with a policy, every class's SL of the
 * layer; without, SL = layer. Through --sl2vl's map, or the plan's. */
void qos_offline_vl_masks(const struct qos_offline *q, unsigned layers,
			  uint16_t vl_mask[QOS_SL_NUM],
			  uint16_t sls_of_vl[QOS_SL_NUM]);
void qos_offline_free(struct qos_offline *q);

/* ibsm-route's use: qos_offline_begin, logging what gave way or why not.
 * *layers: the layers per class a layered engine may use (0: no policy
 * or not layered). 0, or -1 (logged). */
int qos_offline_setup(struct qos_offline *q, const char *qos_file,
		      qos_policy_loader *load, const char *sl2vl_file,
		      unsigned vls, int layered, unsigned *layers);
struct fabric;
struct lft_set;
struct path_sl;
/* After routing (or reading tables and --sl-in): plan for the layers the
 * tables use, print the table on out (NULL: quiet) and, with check and
 * layered tables, run the per-VL credit-loop check (its JSON line on
 * out). 1 with why when a VL has a cycle, 0, or negative errno. */
int qos_offline_report(struct qos_offline *q, FILE *out, int check,
		       const struct fabric *f, const struct lft_set *t,
		       const struct path_sl *sl, char *why, size_t len);

#endif
