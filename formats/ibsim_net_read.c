/* Reader of ibsim net files, giving each node the GUIDs ibsim 0.10 gives it
 * (measured against ibnetdiscover under ibsim, see docs/formats.md):
 *
 * - Node ids ("Switch1", "S-0000000000200000") are only names; GUIDs come
 *   from per-type counters starting at 0x200000 (switches), 0x100000 (CAs)
 *   and 0 (routers). A switch takes one GUID; a CA or router with N ports
 *   takes N + 1 (node GUID, then port p = node GUID + p).
 * - "switchguid=G", "caguid=G" (or "hcaguids=G"), "rtguid=G" restart the
 *   counter of that type at G; "...guid+D" sets it to the last base + D.
 *   ibnetdiscover writes one such line before every node, so its dumps
 *   keep their GUIDs.
 * - "sysimgguid=" and "vendid=" apply to the next node only; "devid=",
 *   "width=", "speed=", "extspeed=" stay in force until changed.
 * - A port line without "[rp]" links to remote port 1. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "topo_read.h"
#include "topo_text.h"

struct ibsim_state {
	uint64_t abs_guid[4], next_guid[4];   /* by node type (1 CA .. 3 router) */
	uint64_t sys_guid;
	uint32_t vendor_id, device_id;
	uint8_t width, speed, ext;
};

static int value_after(const char *path, uint32_t line, const char *text,
		       const char *signs, const char **val, char *sign)
{
	const char *s = strpbrk(text, signs);
	if (!s) {
		log_err("%s:%u: bad assignment: missing '%s'", path, line, signs);
		return -EINVAL;
	}
	*sign = *s;
	*val = s + 1;
	return 0;
}

static int ibsim_directive(void *state, const char *path, uint32_t line,
			   const char *text)
{
	struct ibsim_state *st = state;
	static const struct { const char *key; int type; } bases[] = {
		{ "switchguid", FAB_SWITCH }, { "hcaguids", FAB_CA },
		{ "caguid", FAB_CA }, { "rtguid", FAB_ROUTER },
	};
	const char *val;
	char sign;
	/* ibsim matches these keywords as prefixes (sim_net.c parse_netconf). */
	for (size_t i = 0; i < 4; i++) {
		if (strncmp(text, bases[i].key, strlen(bases[i].key)))
			continue;
		if (value_after(path, line, text, "=+", &val, &sign))
			return -EINVAL;
		uint64_t v = strtoull(val, NULL, 0);
		int t = bases[i].type;
		if (sign == '=') {
			st->abs_guid[t] = v;
			v = 0;
		}
		st->next_guid[t] = st->abs_guid[t] + v;
		return 0;
	}
	static const char *const numeric[] = {
		"vendid", "devid", "sysimgguid", "width", "speed", "extspeed",
	};
	for (size_t i = 0; i < 6; i++) {
		if (strncmp(text, numeric[i], strlen(numeric[i])))
			continue;
		if (value_after(path, line, text, "=", &val, &sign))
			return -EINVAL;
		uint64_t v = strtoull(val, NULL, 0);
		switch (i) {
		case 0: st->vendor_id = (uint32_t)v & 0xffffff; break;
		case 1: st->device_id = (uint32_t)v & 0xffff; break;
		case 2: st->sys_guid = v; break;
		case 3:
			if (v < 1 || v > 31)
				goto range;
			st->width = (uint8_t)v;
			break;
		case 4:
			if (v < 1 || v > 7)
				goto range;
			st->speed = (uint8_t)v;
			break;
		default:
			if (v > 7)
				goto range;
			st->ext = (uint8_t)v;
			break;
		}
		return 0;
range:
		log_err("%s:%u: %s=%llu out of range", path, line, numeric[i],
			(unsigned long long)v);
		return -EINVAL;
	}
	static const char *const unsupported[] = { "module", "include", "pdebug", "do" };
	for (size_t i = 0; i < 4; i++)
		if (!strncmp(text, unsupported[i], strlen(unsupported[i]))) {
			log_err("%s:%u: ibsim's \"%s\" lines are not supported", path,
				line, unsupported[i]);
			return -EINVAL;
		}
	return 1;
}

static int ibsim_node(void *state, const char *path, struct text_node *n)
{
	struct ibsim_state *st = state;
	(void)path;
	n->guid = st->next_guid[n->type];
	/* sim_net.c new_node: a switch reserves one GUID (all its ports share
	 * it), a CA/router one for the node and one per port. */
	st->next_guid[n->type] += n->type == FAB_SWITCH ? 1 : n->num_ports + 1u;
	n->sys_guid = st->sys_guid ? st->sys_guid : n->guid;
	n->vendor_id = st->vendor_id;
	n->device_id = (uint16_t)st->device_id;
	n->width_ena = st->width;
	n->speed_ena = st->speed;
	n->ext_ena = st->ext;
	st->sys_guid = 0;
	st->vendor_id = 0;
	return 0;
}

int topo_read_ibsim_net(struct fabric *f, const char *path)
{
	struct ibsim_state st = {
		.abs_guid = { 0, 0x100000, 0x200000, 0 },
		.next_guid = { 0, 0x100000, 0x200000, 0 },
		.width = 2, .speed = 1, .ext = 0,   /* 4x SDR, ibsim's defaults */
	};
	const struct text_rules rules = {
		.ibsim = 1, .state = &st,
		.directive = ibsim_directive, .node = ibsim_node,
	};
	struct text_topo t;
	fab_init(f);
	int r = topo_text_parse(&t, path, &rules);
	if (r)
		return r;
	r = topo_text_build(f, &t, 1);
	topo_text_free(&t);
	return r;
}
