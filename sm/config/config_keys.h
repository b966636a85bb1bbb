/* The table of configuration keys (config_keys.c), internal to
 * sm/config/: config.c sets, validates, prints and reloads by it,
 * config_yaml.c loads the file by it. A key is one line of the table. */
#ifndef IBSM_SM_CONFIG_KEYS_H
#define IBSM_SM_CONFIG_KEYS_H

#include <stddef.h>

enum key_kind {
	K_STR,          /* char[] */
	K_LIST,         /* char[]; a YAML sequence is joined with `sep` */
	K_INT,          /* int, range lo..hi */
	K_UNSIGNED,     /* unsigned, range lo..hi */
	K_U8,           /* uint8_t, range lo..hi */
	K_U64,          /* uint64_t, any value, hex or decimal */
	K_BOOL,         /* int 0/1 */
	K_LOG_LEVEL,    /* int, enum log_level by name or number */
	K_DOUBLE,       /* double, range lo..hi */
	K_PARTITIONS,   /* struct part_conf *, a YAML list of mappings only */
};

struct key_desc {
	const char *name;
	enum key_kind kind;
	size_t offset;
	size_t size;            /* of the char[] for K_STR/K_LIST */
	unsigned long lo, hi;   /* inclusive range for numbers */
	char sep;               /* K_LIST joiner */
};

extern const struct key_desc config_keys[];
extern const size_t config_num_keys;

/* The key named name, or NULL. */
const struct key_desc *config_key_find(const char *name);

#endif
