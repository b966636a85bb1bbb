/* Compute-node rank order (core/cn_rank.h). */
#include "cn_rank.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_file.h"
#include "log.h"

int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			for (; a < ea; a++, b++)
				if (*a != *b)
					return *a < *b ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

void cn_host_name(const char *desc, char *out, size_t len)
{
	size_t n = 0;

	while (*desc == ' ' || *desc == '\t')
		desc++;
	while (desc[n] && desc[n] != ' ' && desc[n] != '\t' && n + 1 < len)
		n++;
	memcpy(out, desc, n);
	out[n] = 0;
}

struct cn {
	uint32_t port;
	int listed;                 /* position in the file + 1, 0 = not */
	char host[FAB_DESC_LEN + 1];
};

static const struct fabric *sort_fab;

static int cmp_cn(const void *pa, const void *pb)
{
	const struct cn *a = pa, *b = pb;
	const struct fabric *f = sort_fab;
	int c;

	if (a->listed != b->listed) {
		if (!a->listed || !b->listed)
			return a->listed ? -1 : 1;
		return a->listed < b->listed ? -1 : 1;
	}
	if (!a->host[0] && !b->host[0])         /* no order: port order */
		return a->port < b->port ? -1 : 1;
	c = natcmp(a->host, b->host);
	if (c)
		return c;
	if (f->ports[a->port].node != f->ports[b->port].node)
		return f->nodes[f->ports[a->port].node].guid <
		       f->nodes[f->ports[b->port].node].guid ? -1 : 1;
	return f->ports[a->port].num < f->ports[b->port].num ? -1 : 1;
}

/* Mark the ports of the nodes a file line names. Returns how many. */
static uint32_t mark(const struct fabric *f, struct cn *v, uint32_t n,
		     const char *name, int pos)
{
	uint32_t hit = 0;
	char *end;
	unsigned long long g = 0;
	int is_guid = !strncmp(name, "0x", 2) || !strncmp(name, "0X", 2);

	if (is_guid) {
		errno = 0;
		g = strtoull(name, &end, 16);
		if (errno || *end)
			is_guid = 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct fab_port *p = &f->ports[v[i].port];
		int match = is_guid ? (p->guid == g || f->nodes[p->node].guid == g)
				    : !strcmp(v[i].host, name);

		if (match && !v[i].listed) {
			v[i].listed = pos;
			hit++;
		}
	}
	return hit;
}

static int read_order(const struct fabric *f, struct cn *v, uint32_t n,
		      const char *path)
{
	char line[512];
	unsigned ln = 0;
	int pos = 0, rc;
	FILE *fp = input_file_open(path, &rc);

	if (!fp)
		return rc;
	while (fgets(line, sizeof(line), fp)) {
		char *s = line, *e;

		ln++;
		if (!strchr(line, '\n') && !feof(fp)) {
			log_err("%s:%u: line longer than %zu characters", path, ln,
				sizeof(line) - 2);
			fclose(fp);
			return -EINVAL;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || !*s)
			continue;
		for (e = s; *e && *e != '\n' && *e != '#' && *e != ' ' && *e != '\t'; e++)
			;
		*e = 0;
		if (!mark(f, v, n, s, ++pos))
			log_warn("%s:%u: '%s' names no compute node of this fabric", path, ln, s);
	}
	fclose(fp);
	return 0;
}

int cn_rank_build(const struct fabric *f, const char *order_file,
		  uint32_t **rank)
{
	struct cn *v;
	uint32_t n = 0, *r;
	int digits = 0, rc;

	*rank = NULL;
	v = malloc(((size_t)f->num_ports + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct fab_port *pt = &f->ports[p];
		const struct fab_node *nd = &f->nodes[pt->node];

		if (fab_is_switch(f, pt->node) || !pt->num || pt->peer == FAB_NONE)
			continue;
		v[n].port = p;
		v[n].listed = 0;
		cn_host_name(nd->desc[0] ? nd->desc : nd->name, v[n].host,
			     sizeof(v[n].host));
		digits |= strpbrk(v[n].host, "0123456789") != NULL;
		n++;
	}
	if (order_file && order_file[0]) {
		rc = read_order(f, v, n, order_file);
		if (rc) {
			free(v);
			return rc;
		}
	} else if (!digits) {
		free(v);
		return 0;
	}
	if (!digits)                /* no numbers: unlisted keep port order */
		for (uint32_t i = 0; i < n; i++)
			v[i].host[0] = 0;
	sort_fab = f;
	qsort(v, n, sizeof(*v), cmp_cn);
	r = malloc(((size_t)f->num_ports + 1) * sizeof(*r));
	if (!r) {
		free(v);
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < f->num_ports; p++)
		r[p] = CN_NO_RANK;
	for (uint32_t i = 0; i < n; i++)
		r[v[i].port] = i;
	free(v);
	*rank = r;
	return 0;
}
