/* The `partitions` key of the YAML configuration (sm/config/config_yaml.c hands the
 * node over; partition/part_conf.h holds the result). */
#ifndef IBSM_SM_CONFIG_PARTITIONS_H
#define IBSM_SM_CONFIG_PARTITIONS_H

#include <stdio.h>
#include <yaml.h>

#include "../../partition/part_conf.h"

/* Parse the value node v. *out: a new part_conf (caller frees with
 * part_conf_free + free), or NULL for an empty list. 0, or -EINVAL after
 * logging "PATH:LINE: partitions: reason" for every bad line. */
int config_load_partitions(const char *path, yaml_document_t *doc,
			   yaml_node_t *v, struct part_conf **out);
/* As YAML that loads back to the same partitions ("partitions: []"). */
void config_print_partitions(const struct part_conf *c, FILE *out);

#endif
