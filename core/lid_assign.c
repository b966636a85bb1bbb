/* LID assignment and the guid2lid map.
 *
 * Rules (IBA 14.2.5.6 / 7.11.1; OpenSM's lid manager behaviour):
 * - Endpoint ports hold LIDs: a switch's port 0 (one LID, LMC 0) and every
 *   linked CA/router port (2^LMC consecutive LIDs, base aligned to 2^LMC).
 * - Order of claims: the guid2lid map for ports present in the fabric, then
 *   LIDs already on the ports (keep_existing), then map ranges of absent
 *   ports (kept reserved so a port that comes back gets its LID again, as
 *   OpenSM does), then fresh LIDs from the lowest free aligned range.
 *   A claim is honoured only if aligned, inside 1..max_lid and not taken by
 *   an earlier claim; a port whose claim fails gets a fresh LID.
 * - On -ENOSPC the endpoint ports keep the LIDs they had. */
#include "lid_assign.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_file.h"
#include "grow.h"
#include "log.h"

/* Offline analysis may exceed the unicast range (docs/design.md); beyond
 * this the used-LID bitmap (2 MiB) would stop being cheap. */
#define LID_ASSIGN_HARD_MAX 0xFFFFFFu

void lid_map_init(struct lid_map *m)
{
	memset(m, 0, sizeof(*m));
}

void lid_map_free(struct lid_map *m)
{
	free(m->entries);
	memset(m, 0, sizeof(*m));
}

static int lid_map_add(struct lid_map *m, uint64_t guid, uint32_t min_lid,
		       uint32_t max_lid)
{
	if (grow_array((void **)&m->entries, &m->cap, m->count + 1,
		       sizeof(*m->entries), 64))
		return -ENOMEM;
	m->entries[m->count++] = (struct lid_map_entry){ guid, min_lid, max_lid };
	return 0;
}

const struct lid_map_entry *lid_map_find(const struct lid_map *m, uint64_t guid)
{
	for (uint32_t i = 0; i < m->count; i++)
		if (m->entries[i].port_guid == guid)
			return &m->entries[i];
	return NULL;
}

static int parse_map_line(const char *s, uint64_t *guid, uint32_t *lo,
			  uint32_t *hi)
{
	char *e;
	if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2))
		return -1;
	if (!isxdigit((unsigned char)s[2]))
		return -1;
	errno = 0;
	*guid = strtoull(s, &e, 16);
	if (errno || (*e != ' ' && *e != '\t'))
		return -1;
	unsigned long v[2];
	for (int i = 0; i < 2; i++) {
		s = e;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		v[i] = strtoul(s, &e, 0);
		if (errno || v[i] > LID_ASSIGN_HARD_MAX)
			return -1;
	}
	while (*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r')
		e++;
	if (*e && *e != '#')
		return -1;
	*lo = (uint32_t)v[0];
	*hi = (uint32_t)v[1];
	return 0;
}

/* A map entry whose LIDs another entry already holds. */
static const struct lid_map_entry *lid_overlap(const struct lid_map *m,
					       uint32_t lo, uint32_t hi)
{
	for (uint32_t i = 0; i < m->count; i++)
		if (lo <= m->entries[i].max_lid && m->entries[i].min_lid <= hi)
			return &m->entries[i];
	return NULL;
}

#define MAP_LINE_MAX 256        /* "0x" + 16 digits + two LIDs fit many times */

/* Report one bad line: an error in strict mode (the load fails), a warning
 * in lenient mode (the line is skipped). */
#define BAD_LINE(...) do { \
		if (lenient) { log_warn(__VA_ARGS__); skipped++; } \
		else { log_err(__VA_ARGS__); r = -EINVAL; } \
	} while (0)

static int map_load(struct lid_map *m, const char *path, int lenient)
{
	lid_map_init(m);
	int rc = input_file_check(path);
	if (rc)
		return rc;
	FILE *fp = fopen(path, "r");
	if (!fp) {
		int e = errno;
		log_err("%s: %s", path, strerror(e));
		return -e;
	}
	char line[MAP_LINE_MAX + 2];
	unsigned lineno = 0, skipped = 0;
	int r = 0;
	while (!r && fgets(line, sizeof(line), fp)) {
		size_t len = strlen(line);
		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			int c;
			while ((c = fgetc(fp)) != EOF && c != '\n')
				;
			BAD_LINE("%s:%u: line longer than %d characters", path,
				 lineno, MAP_LINE_MAX);
			continue;
		}
		if (len && memchr(line, 0, len - 1)) {
			BAD_LINE("%s:%u: binary data in guid2lid file", path, lineno);
			continue;
		}
		const char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#' || *s == '\n' || *s == '\r')
			continue;
		uint64_t guid;
		uint32_t lo, hi;
		const struct lid_map_entry *o;
		if (parse_map_line(s, &guid, &lo, &hi)) {
			BAD_LINE("%s:%u: expected \"0xGUID MINLID MAXLID\"", path, lineno);
		} else if (!lo || hi < lo) {
			BAD_LINE("%s:%u: bad LID range %u..%u", path, lineno, lo, hi);
		} else if (hi > FAB_MAX_UCAST_LID) {
			/* IBA 4.1.3: 0xC000 and up are multicast LIDs. */
			BAD_LINE("%s:%u: LIDs %u..%u are outside the unicast range 1..%u",
				 path, lineno, lo, hi, FAB_MAX_UCAST_LID);
		} else if (lid_map_find(m, guid)) {
			BAD_LINE("%s:%u: GUID 0x%016" PRIx64 " listed twice", path,
				 lineno, guid);
		} else if ((o = lid_overlap(m, lo, hi)) != NULL) {
			BAD_LINE("%s:%u: LIDs %u..%u of GUID 0x%016" PRIx64
				 " are already GUID 0x%016" PRIx64 "'s", path, lineno,
				 lo, hi, guid, o->port_guid);
		} else {
			r = lid_map_add(m, guid, lo, hi);
		}
	}
	if (!r && ferror(fp)) {
		log_err("%s: read error: %s", path, strerror(errno));
		r = -EIO;
	}
	fclose(fp);
	if (skipped)
		log_warn("%s: %u bad lines skipped; the LIDs found on the ports are kept",
			 path, skipped);
	if (r)
		lid_map_free(m);
	return r;
}

int lid_map_load(struct lid_map *m, const char *path)
{
	return map_load(m, path, 0);
}

int lid_map_load_hints(struct lid_map *m, const char *path)
{
	return map_load(m, path, 1);
}

int lid_map_save(const struct lid_map *m, const char *path)
{
	/* Replace only a regular file (or create one): a rename over a
	 * device or a directory the user named by mistake would destroy it. */
	int ck = input_file_check(path);
	if (ck && ck != -ENOENT) {
		log_err("%s: not saving guid2lid there", path);
		return ck;
	}
	size_t n = strlen(path) + 16;
	char *tmp = malloc(n);
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	FILE *fp = fopen(tmp, "w");
	int r = 0;
	if (!fp) {
		r = -errno;
		goto out;
	}
	for (uint32_t i = 0; i < m->count; i++)
		fprintf(fp, "0x%016" PRIx64 " %u %u\n", m->entries[i].port_guid,
			m->entries[i].min_lid, m->entries[i].max_lid);
	if (fflush(fp) || ferror(fp) || fsync(fileno(fp)))
		r = -errno ? -errno : -EIO;
	if (fclose(fp) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
out:
	if (r)
		log_err("%s: cannot save guid2lid: %s", path, strerror(-r));
	free(tmp);
	return r;
}

/* ---- assignment ---- */

struct lid_space {
	uint8_t *used;          /* bitmap over 0..max */
	uint32_t max;
	uint32_t cursor[8];     /* next candidate per LMC, only moves up */
};

static int lids_free(const struct lid_space *s, uint32_t base, uint32_t span)
{
	if (base == 0 || base > s->max || span - 1 > s->max - base)
		return 0;
	for (uint32_t l = base; l < base + span; l++)
		if (s->used[l >> 3] & (1u << (l & 7)))
			return 0;
	return 1;
}

static void lids_take(struct lid_space *s, uint32_t base, uint32_t span)
{
	for (uint32_t l = base; l < base + span; l++)
		s->used[l >> 3] |= (uint8_t)(1u << (l & 7));
}

/* Claim [base, base + 2^lmc) if valid and free. */
static int claim(struct lid_space *s, uint32_t base, uint8_t lmc)
{
	uint32_t span = 1u << lmc;
	if (base & (span - 1) || !lids_free(s, base, span))
		return 0;
	lids_take(s, base, span);
	return 1;
}

/* Lowest free aligned range, 0 if none. */
static uint32_t fresh(struct lid_space *s, uint8_t lmc)
{
	uint32_t span = 1u << lmc;
	uint64_t base = s->cursor[lmc];
	if (base < span)
		base = span;    /* LID 0 is reserved; keep alignment */
	base = (base + span - 1) & ~(uint64_t)(span - 1);
	for (; base + span - 1 <= s->max; base += span) {
		if (lids_free(s, (uint32_t)base, span)) {
			lids_take(s, (uint32_t)base, span);
			s->cursor[lmc] = (uint32_t)(base + span);
			return (uint32_t)base;
		}
	}
	s->cursor[lmc] = s->max + 1;
	return 0;
}

static int cmp_entry_guid(const void *a, const void *b)
{
	const struct lid_map_entry *x = *(const struct lid_map_entry *const *)a;
	const struct lid_map_entry *y = *(const struct lid_map_entry *const *)b;
	return (x->port_guid > y->port_guid) - (x->port_guid < y->port_guid);
}

static const struct lid_map_entry *
sorted_find(const struct lid_map_entry **sorted, uint32_t n, uint64_t guid)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sorted[mid]->port_guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sorted[lo]->port_guid == guid ? sorted[lo] : NULL;
}

int lid_assign(struct fabric *f, const struct lid_assign_opts *opts,
	       struct lid_map *out_map)
{
	uint32_t max = opts->max_lid ? opts->max_lid : FAB_MAX_UCAST_LID;
	if (opts->lmc > 7 || max > LID_ASSIGN_HARD_MAX)
		return -EINVAL;
	uint32_t count = fab_endpoint_ports(f, NULL);
	uint32_t *eps = malloc(((size_t)count + 1) * sizeof(*eps));
	uint32_t *old = malloc(((size_t)count + 1) * sizeof(*old));
	uint8_t *done = calloc((size_t)count + 1, 1);
	struct lid_space s = { .used = calloc((size_t)max / 8 + 1, 1), .max = max };
	const struct lid_map *map = opts->map;
	uint32_t nmap = map ? map->count : 0;
	const struct lid_map_entry **sorted = malloc(((size_t)nmap + 1) * sizeof(*sorted));
	uint8_t *map_present = calloc((size_t)nmap + 1, 1);
	int r = -ENOMEM;
	if (!eps || !old || !done || !s.used || !sorted || !map_present)
		goto out;
	fab_endpoint_ports(f, eps);
	for (uint32_t i = 0; i < nmap; i++)
		sorted[i] = &map->entries[i];
	qsort(sorted, nmap, sizeof(*sorted), cmp_entry_guid);

	/* Ports that do not hold LIDs (switch ports 1..n, unlinked CA ports)
	 * must not carry stale ones. */
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *node = &f->nodes[n];
		int sw = fab_is_switch(f, n);
		for (unsigned i = sw ? 1 : 0; i <= node->num_ports; i++) {
			struct fab_port *p = fab_port(f, n, i);
			if (sw || i == 0 || p->peer == FAB_NONE)
				p->lid = 0;
		}
	}

	/* 1: the map, for ports present. */
	for (uint32_t i = 0; i < count; i++) {
		struct fab_port *p = &f->ports[eps[i]];
		uint8_t lmc = fab_is_switch(f, p->node) ? 0 : opts->lmc;
		old[i] = p->lid | (uint32_t)p->lmc << 24;
		const struct lid_map_entry *e = sorted_find(sorted, nmap, p->guid);
		if (!e)
			continue;
		map_present[e - map->entries] = 1;
		if (claim(&s, e->min_lid, lmc)) {
			p->lid = e->min_lid;
			p->lmc = lmc;
			done[i] = 1;
		}
	}
	/* 2: LIDs found on the ports. */
	for (uint32_t i = 0; opts->keep_existing && i < count; i++) {
		struct fab_port *p = &f->ports[eps[i]];
		uint8_t lmc = fab_is_switch(f, p->node) ? 0 : opts->lmc;
		if (!done[i] && p->lid && claim(&s, p->lid, lmc)) {
			p->lmc = lmc;
			done[i] = 1;
		}
	}
	/* 3: reserve the ranges of absent ports. */
	for (uint32_t i = 0; i < nmap; i++) {
		const struct lid_map_entry *e = &map->entries[i];
		if (!map_present[i] && e->max_lid <= max &&
		    lids_free(&s, e->min_lid, e->max_lid - e->min_lid + 1))
			lids_take(&s, e->min_lid, e->max_lid - e->min_lid + 1);
		else
			map_present[i] = 1;     /* not carried to out_map */
	}
	/* 4: fresh LIDs. */
	int changed = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct fab_port *p = &f->ports[eps[i]];
		uint8_t lmc = fab_is_switch(f, p->node) ? 0 : opts->lmc;
		if (!done[i]) {
			uint32_t lid = fresh(&s, lmc);
			if (!lid) {
				/* Leave no half-assigned fabric behind. */
				for (uint32_t j = 0; j < count; j++) {
					f->ports[eps[j]].lid = old[j] & 0xFFFFFF;
					f->ports[eps[j]].lmc = (uint8_t)(old[j] >> 24);
				}
				r = -ENOSPC;
				goto out;
			}
			p->lid = lid;
			p->lmc = lmc;
		}
		if ((p->lid | (uint32_t)p->lmc << 24) != old[i])
			changed++;
	}
	if (out_map) {
		out_map->count = 0;
		for (uint32_t i = 0; i < count; i++) {
			const struct fab_port *p = &f->ports[eps[i]];
			r = lid_map_add(out_map, p->guid, p->lid,
					p->lid + (1u << p->lmc) - 1);
			if (r)
				goto out;
		}
		for (uint32_t i = 0; i < nmap; i++) {
			const struct lid_map_entry *e = &map->entries[i];
			if (!map_present[i] &&
			    (r = lid_map_add(out_map, e->port_guid, e->min_lid,
					     e->max_lid)))
				goto out;
		}
	}
	r = changed;
out:
	free(map_present);
	free(sorted);
	free(s.used);
	free(done);
	free(old);
	free(eps);
	return r;
}
