/* The `qos` key of the YAML configuration as a section (docs/qos.md):
 *
 *   qos:
 *     enabled: true                 # optional; a section means on
 *     port-groups:   [ {name, use, port-guid, port-name, partition, pkey, node-type} ]
 *     qos-levels:    [ {name, use, sl, mtu-limit, rate-limit, packet-life, pkey} ]
 *     qos-match-rules: [ {use, source, destination, service-id, pkey,
 *                         qos-class, qos-level-name} ]
 *     qos-ulps:      [ {ulp: default|any|sdp|rds|iser|ipoib|srp,
 *                       service-id|pkey|port-num|target-port-guid|
 *                       source-port-guid|source-target-port-guid: R, sl: N} ]
 *     sl2vl, vlarb_high, vlarb_low, high_limit, max_vls: the qos_* keys
 *     ca:, swe:, sw0:, rtr: { the same five }: the qos_<type>_* keys
 *
 * The policy is OpenSM's qos-policy.conf in YAML: the same fields with the
 * same names and values (a list stands for a comma list), turned into the
 * file's text (qos/qos_src.h) so that qos/qos_policy.c reads both forms.
 * Errors name this file's line and the field. */
#ifndef IBSM_SM_CONFIG_QOS_H
#define IBSM_SM_CONFIG_QOS_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

struct qos_src;

/* Sets a configuration key from the section (the table keys): 0, or
 * nonzero after logging why (set twice, bad value). */
typedef int (*config_qos_set_fn)(void *arg, const char *key, const char *value,
				 unsigned line);

/* Parse the mapping v. *enabled: the section's `enabled` (1 if absent);
 * *src: the policy (NULL when the section has none). 0, or -EINVAL after
 * logging "PATH:LINE: qos: ..." for every bad line. */
int config_load_qos(const char *path, yaml_document_t *doc, yaml_node_t *v,
		    int *enabled, struct qos_src **src, config_qos_set_fn set,
		    void *arg);

/* qos_*_sl2vl and qos_*_vlarb_* texts parse as OpenSM's (qos/qos_vl.h):
 * 0, or -1 with why (OpenSM warns and goes on; ibsm refuses a table it
 * cannot read). Other keys: 0. */
int config_qos_check_table(const char *key, const char *value, char *why,
			   size_t len);
/* The section's policy as the qos-policy.conf text ibsm read, as YAML
 * comments after "qos: true" (the section stays in its own file). */
void config_print_qos_src(const struct qos_src *s, FILE *out);

#endif
