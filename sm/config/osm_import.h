/* Converting an OpenSM configuration (opensm.conf, partitions.conf) into
 * ibsm's YAML (docs/opensm-users.md). Every option ibsm cannot honour is
 * named as "FILE:LINE: ..." on the warning stream; a file that cannot be
 * read or parsed is an error. */
#ifndef IBSM_SM_OSM_IMPORT_H
#define IBSM_SM_OSM_IMPORT_H

#include <stdio.h>

struct osm_import_opts {
	const char *conf;           /* opensm.conf */
	const char *partitions;     /* NULL: the conf's partition_config_file if it exists */
	const char *qos_policy;     /* NULL: the conf's qos_policy_file */
};

struct osm_import_result {
	unsigned options;           /* option lines read */
	unsigned carried;           /* written as ibsm keys */
	unsigned at_default;        /* no ibsm key, OpenSM's default: nothing lost */
	unsigned not_honoured;      /* named on the warning stream */
	unsigned partitions;        /* partitions converted */
};

/* Writes the YAML to out and the warnings to warn. Returns 0, or -1 when
 * an input could not be read or parsed (errors said on warn). */
int osm_import(const struct osm_import_opts *o, FILE *out, FILE *warn,
	       struct osm_import_result *res);

#endif
