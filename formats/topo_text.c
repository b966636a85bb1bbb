/* Record parser shared by the ibnetdiscover and ibsim net readers (the
 * step that turns records into a fabric with checked links is
 * topo_text_build.c).
 *
 * Record syntax (ibnetdiscover's output, which ibsim also loads):
 *   Switch 8 "S-0000000000200000"  # "desc" base port 0 lid 1 lmc 0
 *   [1]  "H-0000000000100000"[1](100001)   # "Hca1" lid 2 4xSDR
 *   Ca   2 "H-0000000000100000"  # "Hca1"
 *   [1](100001)  "S-0000000000200000"[1]  # lid 2 lmc 0 "Switch1" lid 1 4xSDR
 * A record ends at a blank line; "key=value" lines between records are
 * handed to the format's directive hook. */
#include "topo_text.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../core/grow.h"
#include "../core/input_file.h"

#define MAX_LINE 4096

static const struct {
	const char *name;
	uint8_t code;
} widths[] = {
	{ "1x", 1 }, { "4x", 2 }, { "8x", 4 }, { "12x", 8 }, { "2x", 16 },
};

static const struct {
	const char *name;
	uint8_t code;
} speeds[] = {
	{ "SDR", TOPO_SPEED_SDR }, { "DDR", TOPO_SPEED_DDR },
	{ "QDR", TOPO_SPEED_QDR }, { "FDR10", TOPO_SPEED_FDR10 },
	{ "FDR", TOPO_SPEED_FDR }, { "EDR", TOPO_SPEED_EDR },
	{ "HDR", TOPO_SPEED_HDR }, { "NDR", TOPO_SPEED_NDR },
};

const char *topo_width_str(uint8_t width)
{
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].code == width)
			return widths[i].name;
	return NULL;
}

const char *topo_speed_str(uint8_t speed)
{
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == speed)
			return speeds[i].name;
	return NULL;
}

int topo_rate_parse(const char *s, uint8_t *width, uint8_t *speed)
{
	size_t i, n = 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	if (!n || s[n] != 'x')
		return -EINVAL;
	n++;
	*width = 0;
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (strlen(widths[i].name) == n && !strncmp(s, widths[i].name, n))
			*width = widths[i].code;
	if (!*width)
		return -EINVAL;
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (!strcmp(s + n, speeds[i].name)) {
			*speed = speeds[i].code;
			return 0;
		}
	return -EINVAL;
}

int topo_parse_u64(const char *s, const char **end, uint64_t *out)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	char *e;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 0);
	if (errno || e == s)
		return -EINVAL;
	*out = v;
	if (end)
		*end = e;
	else if (*e)
		return -EINVAL;
	return 0;
}

void topo_text_free(struct text_topo *t)
{
	free(t->nodes);
	free(t->ports);
	memset(t, 0, sizeof(*t));
}

/* The parse position inside one line, for messages. */
struct cursor {
	const char *path;
	uint32_t line;
	const struct text_rules *rules;
};

/* Log "FILE:LINE: reason" and return -EINVAL. */
static int bad(const struct cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad(const struct cursor *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err("%s:%u: %s", c->path, c->line, msg);
	return -EINVAL;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copy a quoted string starting at *s (which must point at '"'); *s is left
 * after the closing quote. */
static int quoted(const struct cursor *c, const char **s, char *out,
		  size_t max, const char *what)
{
	const char *p = *s;
	if (*p != '"')
		return bad(c, "expected a quoted %s", what);
	const char *e = strchr(p + 1, '"');
	if (!e)
		return bad(c, "unterminated quoted %s", what);
	size_t len = (size_t)(e - p - 1);
	if (len > max)
		len = max;
	memcpy(out, p + 1, len);
	out[len] = '\0';
	*s = e + 1;
	return 0;
}

static int parse_hex_paren(const struct cursor *c, const char **s,
			   uint64_t *out)
{
	const char *p = *s + 1;
	char *e;
	if (!isxdigit((unsigned char)*p))
		return bad(c, "bad GUID in parentheses");
	errno = 0;
	*out = strtoull(p, &e, 16);
	if (errno || *e != ')')
		return bad(c, "bad GUID in parentheses");
	*s = e + 1;
	return 0;
}

/* "[N]" -> port number 1..254 (port 0 is never linked). */
static int parse_bracket_port(const struct cursor *c, const char **s,
			      uint8_t *num, const char *what)
{
	const char *p = *s;
	uint64_t v;
	if (*p != '[' || topo_parse_u64(p + 1, &p, &v) || *p != ']')
		return bad(c, "bad %s port number", what);
	if (v < 1 || v > FAB_MAX_PORTS)
		return bad(c, "%s port %llu out of range 1..%d", what,
		    (unsigned long long)v, FAB_MAX_PORTS);
	*num = (uint8_t)v;
	*s = p + 1;
	return 0;
}

/* Skip "[ext N]" (ibnetdiscover -g chassis port mapping). */
static void skip_ext(const char **s)
{
	if (!strncmp(*s, "[ext ", 5)) {
		const char *e = strchr(*s, ']');
		if (e)
			*s = e + 1;
	}
}

/* "lid N" / "lmc N" at *s (after the keyword and a space). */
static int keyword_num(const struct cursor *c, const char *s, const char *kw,
		       uint64_t max, uint64_t *out)
{
	const char *p = s + strlen(kw);
	p = skip_ws(p);
	if (topo_parse_u64(p, &p, out) || (*p && *p != ' ' && *p != '\t'))
		return bad(c, "bad number after \"%s\"", kw);
	if (*out > max)
		return bad(c, "%s %llu out of range", kw, (unsigned long long)*out);
	return 0;
}

/* ibsim's enabled-rate rules (sim_net.c parse_port_link_width_and_speed):
 * the text after the last quote that starts with "lid" is "lid L WxS". */
static void ibsim_rate_from_text(struct text_port *p, const char *rest)
{
	const char *q = strrchr(rest, '"');
	const char *l = strstr(q ? q : rest, "lid");
	int lid, w;
	char sp[10];
	if (!l || sscanf(l, "lid %d %dx%9s", &lid, &w, sp) != 3)
		return;
	switch (w) {
	case 12: p->width_ena = 1 | 2 | 8; break;
	case 8: p->width_ena = 4; break;
	case 4: p->width_ena = 1 | 2; break;
	case 1: p->width_ena = 1; break;
	case 2: p->width_ena = 16; break;
	default: break;
	}
	/* ibsim compares only strlen(sp) chars: a prefix selects the speed. */
	size_t n = strlen(sp);
	if (!strncmp(sp, "SDR", n))
		p->speed_ena = 1;
	else if (!strncmp(sp, "DDR", n))
		p->speed_ena = 3;
	else if (!strncmp(sp, "QDR", n))
		p->speed_ena = 7;
	else if (!strncmp(sp, "FDR", n))
		p->ext_ena = 1, p->speed_ena = 7, p->fdr10_ena = 1;
	else if (!strncmp(sp, "EDR", n))
		p->ext_ena = 3, p->speed_ena = 7, p->fdr10_ena = 1;
	else if (!strncmp(sp, "HDR", n))
		p->ext_ena = 7, p->speed_ena = 7, p->fdr10_ena = 1;
	else if (!strncmp(sp, "FDR10", n))
		p->speed_ena = 7, p->fdr10_ena = 1;
}

/* ibsim's per-port options "w=N s=N e=N", looked for anywhere after the
 * remote id, as ibsim does. */
static int ibsim_port_opts(const struct cursor *c, struct text_port *p,
			   const char *rest)
{
	for (const char *eq = strchr(rest, '='); eq; eq = strchr(eq + 1, '=')) {
		const char *opt = eq;
		while (opt > rest && !isalpha((unsigned char)*opt))
			opt--;
		if (!isalpha((unsigned char)*opt))
			continue;
		unsigned long v = strtoul(eq + 1, NULL, 0);
		switch (*opt) {
		case 'w':
			if (v < 1 || v > 31)
				return bad(c, "bad enabled width w=%lu (1..31)", v);
			p->width_ena = (uint8_t)v;
			break;
		case 's':
			if (v < 1 || v > 7)
				return bad(c, "bad enabled speed s=%lu (1..7)", v);
			p->speed_ena = (uint8_t)v;
			break;
		case 'e':
			if (v > 7)
				return bad(c, "bad extended speed e=%lu (0..7)", v);
			p->ext_ena = (uint8_t)v;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* The "# ..." comment of a port line:
 *   switch port: # "remote desc" lid RL 4xSDR
 *   CA port:     # lid L lmc M "remote desc" lid RL 4xSDR
 * Only our own LID/LMC and the rate are kept. */
static int port_comment(const struct cursor *c, struct text_port *p,
			const char *s)
{
	uint64_t v;
	s = skip_ws(s);
	if (!strncmp(s, "lid ", 4)) {
		if (keyword_num(c, s, "lid", TOPO_MAX_LID, &v))
			return -EINVAL;
		p->lid = (uint32_t)v;
		p->has_lid = 1;
		s = skip_ws(s + 4);
		while (isalnum((unsigned char)*s))
			s++;
		s = skip_ws(s);
		if (!strncmp(s, "lmc ", 4)) {
			if (keyword_num(c, s, "lmc", 7, &v))
				return -EINVAL;
			p->lmc = (uint8_t)v;
			s = skip_ws(s + 4);
			while (isalnum((unsigned char)*s))
				s++;
			s = skip_ws(s);
		}
	}
	if (*s == '"') {
		const char *e = strchr(s + 1, '"');
		if (!e)
			return bad(c, "unterminated remote description");
		s = skip_ws(e + 1);
	}
	if (!strncmp(s, "lid ", 4)) {
		if (keyword_num(c, s, "lid", TOPO_MAX_LID, &v))
			return -EINVAL;
		s = skip_ws(s + 4);
		while (isalnum((unsigned char)*s))
			s++;
		s = skip_ws(s);
	}
	if (isdigit((unsigned char)*s)) {
		char tok[32];
		size_t n = strcspn(s, " \t");
		if (n >= sizeof(tok) || (memcpy(tok, s, n), tok[n] = '\0',
		    topo_rate_parse(tok, &p->width, &p->speed)))
			return bad(c, "bad link rate \"%.*s\"", (int)(n < 31 ? n : 31), s);
	}
	return 0;
}

static int parse_port_line(const struct cursor *c, struct text_topo *t,
			   const char *line)
{
	struct text_node *n = &t->nodes[t->num_nodes - 1];
	const char *s = line;
	if (grow_array((void **)&t->ports, &t->cap_ports, t->num_ports + 1,
		       sizeof(*t->ports), 64))
		return -ENOMEM;
	struct text_port *p = &t->ports[t->num_ports];
	memset(p, 0, sizeof(*p));
	p->node = t->num_nodes - 1;
	p->line = c->line;
	p->width_ena = n->width_ena;
	p->speed_ena = n->speed_ena;
	p->ext_ena = n->ext_ena;

	if (parse_bracket_port(c, &s, &p->num, "local"))
		return -EINVAL;
	if (p->num > n->num_ports)
		return bad(c, "port %u > number of ports %u of \"%s\"", p->num,
		    n->num_ports, n->name);
	for (uint32_t i = n->first_port; i < t->num_ports; i++)
		if (t->ports[i].num == p->num)
			return bad(c, "port %u of \"%s\" declared twice (first at line %u)",
			    p->num, n->name, t->ports[i].line);
	skip_ext(&s);
	if (*s == '(' && parse_hex_paren(c, &s, &p->guid))
		return -EINVAL;
	s = skip_ws(s);
	if (!*s)
		return bad(c, "truncated port line: no remote node id");
	if (quoted(c, &s, p->rname, FAB_DESC_LEN, "remote node id"))
		return -EINVAL;
	if (!p->rname[0])
		return bad(c, "empty remote node id");
	const char *after_id = s;
	if (*s == '[') {
		if (parse_bracket_port(c, &s, &p->rport, "remote"))
			return -EINVAL;
	} else if (c->rules->ibsim) {
		p->rport = 1;   /* ibsim's default (sim_net.c parse_port) */
	} else {
		return bad(c, "no remote port number after \"%s\"", p->rname);
	}
	skip_ext(&s);
	s = skip_ws(s);
	if (*s == '(' && parse_hex_paren(c, &s, &p->rguid))
		return -EINVAL;
	s = skip_ws(s);
	if (c->rules->ibsim && ibsim_port_opts(c, p, after_id))
		return -EINVAL;
	if (*s == '#') {
		if (port_comment(c, p, s + 1))
			return -EINVAL;
	} else if (*s && !(c->rules->ibsim && strchr(s, '='))) {
		return bad(c, "unexpected text \"%.20s\" on port line", s);
	}
	if (c->rules->ibsim && n->type != FAB_ROUTER)
		ibsim_rate_from_text(p, after_id);
	t->num_ports++;
	n->num_decl++;
	return 0;
}

/* Description in a header comment: quoted, or bare up to ibsim's keywords
 * (sim_net.c parse_node_desc). Returns the text after it. */
static const char *header_desc(const char *s, char *out, size_t max)
{
	const char *e;
	s = skip_ws(s);
	if (*s == '"') {
		s++;
		e = strchr(s, '"');
		if (!e)
			e = s + strlen(s);
	} else {
		static const char *const stops[] = {
			" enhanced port ", " base port ", " lid ", " lmc ",
		};
		e = s + strlen(s);
		for (size_t i = 0; i < 4; i++) {
			const char *x = strstr(s, stops[i]);
			if (x && x < e)
				e = x;
		}
	}
	size_t len = (size_t)(e - s);
	if (len > max)
		len = max;
	memcpy(out, s, len);
	out[len] = '\0';
	return *e == '"' ? e + 1 : e;
}

static int parse_header(const struct cursor *c, struct text_topo *t,
			const char *line, uint8_t type, size_t kwlen)
{
	const char *s = skip_ws(line + kwlen);
	uint64_t nports;
	if (topo_parse_u64(s, &s, &nports) || (*s != ' ' && *s != '\t'))
		return bad(c, "bad or missing port count in node header");
	if (nports < 1 || nports > FAB_MAX_PORTS)
		return bad(c, "port count %llu out of range 1..%d",
		    (unsigned long long)nports, FAB_MAX_PORTS);
	if (grow_array((void **)&t->nodes, &t->cap_nodes, t->num_nodes + 1,
		       sizeof(*t->nodes), 64))
		return -ENOMEM;
	struct text_node *n = &t->nodes[t->num_nodes];
	memset(n, 0, sizeof(*n));
	n->line = c->line;
	n->type = type;
	n->num_ports = (uint8_t)nports;
	n->first_port = t->num_ports;
	s = skip_ws(s);
	if (!*s)
		return bad(c, "truncated node header: no node id");
	if (quoted(c, &s, n->name, FAB_DESC_LEN, "node id"))
		return -EINVAL;
	if (!n->name[0])
		return bad(c, "empty node id");
	if (strpbrk(n->name, "#@"))
		return bad(c, "node id \"%s\": '#' and '@' are reserved (ibsim)", n->name);
	s = skip_ws(s);
	if (*s == '#') {
		/* ibsim keeps 63 characters of a description. */
		size_t max = c->rules->ibsim ? FAB_DESC_LEN - 1 : FAB_DESC_LEN;
		s = header_desc(s + 1, n->desc, max);
		const char *k;
		uint64_t v;
		if (strstr(s, "enhanced port 0"))
			n->esp0 = 1;
		if ((k = strstr(s, "lid ")) != NULL) {
			if (keyword_num(c, k, "lid", TOPO_MAX_LID, &v))
				return -EINVAL;
			n->lid = (uint32_t)v;
		}
		if ((k = strstr(s, "lmc ")) != NULL) {
			if (keyword_num(c, k, "lmc", 7, &v))
				return -EINVAL;
			n->lmc = (uint8_t)v;
		}
	} else if (*s) {
		return bad(c, "unexpected text \"%.20s\" after node id", s);
	}
	if (!n->desc[0])
		snprintf(n->desc, sizeof(n->desc), "%s", n->name);
	int r = c->rules->node(c->rules->state, c->path, n);
	if (r)
		return r;
	t->num_nodes++;
	return 0;
}

/* Lines that ibnetdiscover prints besides records (-g, -s) and that carry
 * nothing we keep. */
static int ignorable(const char *s)
{
	static const char *const prefixes[] = {
		"Chassis ", "Non-Chassis Nodes", "Hostname:", "DR path ",
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static int header_kw(const char *s, uint8_t *type, size_t *kwlen)
{
	static const struct { const char *kw; uint8_t type; } kws[] = {
		{ "Switch", FAB_SWITCH }, { "Hca", FAB_CA }, { "Ca", FAB_CA },
		{ "Rt", FAB_ROUTER },
	};
	for (size_t i = 0; i < 4; i++) {
		size_t l = strlen(kws[i].kw);
		if (!strncmp(s, kws[i].kw, l) &&
		    (s[l] == ' ' || s[l] == '\t' || isdigit((unsigned char)s[l]))) {
			*type = kws[i].type;
			*kwlen = l;
			return 1;
		}
	}
	return 0;
}

static int check_text(const struct cursor *c, const char *line, ssize_t len)
{
	if ((size_t)len != strlen(line))
		return bad(c, "NUL byte: binary data, not a topology file");
	if (len > MAX_LINE)
		return bad(c, "line longer than %d characters", MAX_LINE);
	for (const unsigned char *p = (const unsigned char *)line; *p; p++)
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return bad(c, "control character 0x%02x: binary data, not a topology file",
			    *p);
	return 0;
}

static int parse_line(const struct cursor *c, struct text_topo *t,
		      char *line, int *in_record)
{
	size_t len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (line[0] == '#')
		return 0;
	const char *s = skip_ws(line);
	if (*in_record) {
		struct text_node *n = &t->nodes[t->num_nodes - 1];
		if (line[0] == '[')
			return parse_port_line(c, t, line);
		if (line[0] == '@')
			return bad(c, "ibsim port aliases ('@') are not supported");
		*in_record = 0;
		if (!*s)
			return 0;
		/* ibsim reads at most num_ports port lines, then the record
		 * is over; any other line ending a record is swallowed. */
		if (c->rules->ibsim && n->num_decl < n->num_ports)
			return bad(c, "record of \"%s\" must end with a blank line "
			    "(ibsim would skip this line)", n->name);
	}
	if (!*s || ignorable(s))
		return 0;
	if (line[0] == '[' || line[0] == '@')
		return bad(c, "port line outside a node record");
	uint8_t type;
	size_t kwlen;
	if (header_kw(line, &type, &kwlen)) {
		int r = parse_header(c, t, line, type, kwlen);
		if (!r)
			*in_record = 1;
		return r;
	}
	if (isalpha((unsigned char)line[0])) {
		int r = c->rules->directive(c->rules->state, c->path, c->line, line);
		if (r <= 0)
			return r;
	}
	/* Outside any node record: not topology (a captured error message,
	 * a shell prompt). ibsim skips such lines too; say which. */
	log_warn("%s:%u: not a topology line, skipped: \"%.40s\"", c->path,
		 c->line, line);
	return 0;
}

int topo_text_parse(struct text_topo *t, const char *path,
		    const struct text_rules *rules)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	int r = 0;
	FILE *fp = input_file_open(path, &r);
	if (!fp)
		return r;
	struct cursor c = { .path = path, .rules = rules };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int in_record = 0;
	while ((len = getline(&line, &cap, fp)) >= 0) {
		c.line++;
		r = check_text(&c, line, len);
		if (!r)
			r = parse_line(&c, t, line, &in_record);
		if (r)
			break;
	}
	if (!r && ferror(fp)) {
		log_err("%s: read error", path);
		r = -EIO;
	}
	if (!r && !t->num_nodes) {
		log_err("%s:%u: no nodes in file", path, c.line);
		r = -EINVAL;
	}
	free(line);
	fclose(fp);
	if (r)
		topo_text_free(t);
	return r;
}
