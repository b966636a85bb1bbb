/* Reader of ibnetdiscover's topology output. GUIDs are explicit: each node
 * record is preceded by "switchguid=G(PG)", "caguid=G" or "rtguid=G" (else
 * the GUID is taken from an "S-/H-/R-<hex>" node id), "sysimgguid=",
 * "vendid=" and "devid=". CA port GUIDs come from "[p](guid)". */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "topo_read.h"
#include "topo_text.h"

/* Values seen since the last node header; they belong to the next node. */
struct ibnd_pending {
	uint64_t guid, port_guid, sys_guid;
	uint32_t vendor_id, device_id;
	uint8_t guid_type;      /* FAB_* of the guid line, 0 if none */
	uint32_t guid_line;
};

static int ibnd_directive(void *state, const char *path, uint32_t line,
			  const char *text)
{
	static const struct { const char *key; uint8_t type; } keys[] = {
		{ "switchguid", FAB_SWITCH }, { "caguid", FAB_CA },
		{ "hcaguids", FAB_CA }, { "rtguid", FAB_ROUTER },
		{ "sysimgguid", 0 }, { "vendid", 0 }, { "devid", 0 },
	};
	struct ibnd_pending *pend = state;
	size_t k, klen = strcspn(text, "=");
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strlen(keys[k].key) == klen && !strncmp(text, keys[k].key, klen))
			break;
	if (k == sizeof(keys) / sizeof(keys[0]))
		return 1;
	const char *s = text + klen + 1;
	uint64_t v, pg = 0;
	if (topo_parse_u64(s, &s, &v))
		goto bad;
	if (*s == '(') {
		char *e;
		errno = 0;
		pg = strtoull(s + 1, &e, 16);
		if (errno || *e != ')' || k != 0)
			goto bad;
		s = e + 1;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s && *s != '#')
		goto bad;
	if (keys[k].type) {
		pend->guid = v;
		pend->port_guid = pg;
		pend->guid_type = keys[k].type;
		pend->guid_line = line;
	} else if (k == 4) {
		pend->sys_guid = v;
	} else if (k == 5) {
		if (v > 0xffffff)
			goto bad;
		pend->vendor_id = (uint32_t)v;
	} else {
		if (v > 0xffff)
			goto bad;
		pend->device_id = (uint32_t)v;
	}
	return 0;
bad:
	log_err("%s:%u: bad value in \"%.*s\" line", path, line, (int)klen, text);
	return -EINVAL;
}

/* "S-0000000000200000" -> 0x200000, if the id has that form. */
static int guid_from_id(const char *id, uint8_t type, uint64_t *guid)
{
	char want = type == FAB_SWITCH ? 'S' : type == FAB_CA ? 'H' : 'R';
	if (id[0] != want || id[1] != '-' || !id[2] || strlen(id + 2) > 16)
		return -1;
	for (const char *p = id + 2; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return -1;
	*guid = strtoull(id + 2, NULL, 16);
	return 0;
}

static int ibnd_node(void *state, const char *path, struct text_node *n)
{
	struct ibnd_pending *pend = state;
	if (pend->guid_type && pend->guid_type != n->type) {
		log_err("%s:%u: %s header follows a %s GUID line (line %u)", path,
			n->line, fab_type_str(n->type),
			fab_type_str(pend->guid_type), pend->guid_line);
		return -EINVAL;
	}
	if (pend->guid_type)
		n->guid = pend->guid;
	else if (guid_from_id(n->name, n->type, &n->guid)) {
		log_err("%s:%u: no GUID for \"%s\": no %sguid= line before it and "
			"the id is not \"%c-<hex>\"", path, n->line, n->name,
			n->type == FAB_SWITCH ? "switch" : n->type == FAB_CA ? "ca" : "rt",
			n->type == FAB_SWITCH ? 'S' : n->type == FAB_CA ? 'H' : 'R');
		return -EINVAL;
	}
	if (!n->guid) {
		log_err("%s:%u: node GUID 0 is not valid", path, n->line);
		return -EINVAL;
	}
	n->sys_guid = pend->sys_guid;
	n->vendor_id = pend->vendor_id;
	n->device_id = (uint16_t)pend->device_id;
	memset(pend, 0, sizeof(*pend));
	return 0;
}

int topo_read_ibnetdiscover(struct fabric *f, const char *path)
{
	struct ibnd_pending pend = { 0 };
	const struct text_rules rules = {
		.ibsim = 0, .state = &pend,
		.directive = ibnd_directive, .node = ibnd_node,
	};
	struct text_topo t;
	fab_init(f);
	int r = topo_text_parse(&t, path, &rules);
	if (r)
		return r;
	r = topo_text_build(f, &t, 0);
	topo_text_free(&t);
	return r;
}
