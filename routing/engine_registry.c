/* The engine registry: built-ins, engines loaded with dlopen, and running
 * one engine or an ordered fallback list of them.
 *
 * State: the only mutable state is the table of loaded engines below. It is
 * written by route_engine_register (at start-up, from route_engine_load)
 * and read by route_engine_find; it is not locked, so load engines before
 * starting threads. Built-ins are a constant table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "engine_internal.h"

/* ftree comes last so the list is well formed even if it is absent. */
static const struct route_engine *const builtin[] = {
	&route_minhop,
	&route_updn,
	&route_dfsp,
	&route_ftree,
	NULL,
};

static struct {
	const struct route_engine *engine[ROUTE_MAX_LOADED];
	void *handle[ROUTE_MAX_LOADED];
	unsigned count;
} loaded;

const struct route_engine *const *route_builtin_engines(void)
{
	return builtin;
}

const struct route_engine *route_engine_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; builtin[i]; i++)
		if (!strcmp(builtin[i]->name, name))
			return builtin[i];
	for (unsigned i = 0; i < loaded.count; i++)
		if (!strcmp(loaded.engine[i]->name, name))
			return loaded.engine[i];
	return NULL;
}

const char *route_engine_flag_names(uint32_t flags, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ ROUTE_ENGINE_DEADLOCK_FREE, "deadlock-free" },
		{ ROUTE_ENGINE_LAYERED, "layered" },
		{ ROUTE_ENGINE_USES_PREV, "uses-prev" },
		{ ROUTE_ENGINE_REPAIRS, "repairs" },
	};
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "", names[i].name);
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

int route_engine_register(const struct route_engine *e, void *handle)
{
	const struct route_engine *old = route_engine_find(e->name);
	if (old)
		return old == e ? 0 : -EEXIST;
	if (loaded.count == ROUTE_MAX_LOADED)
		return -ENOSPC;
	loaded.engine[loaded.count] = e;
	loaded.handle[loaded.count] = handle;
	loaded.count++;
	return 0;
}

void route_memo_free(struct route_memo *m)
{
	if (!m)
		return;
	free(m->sw);
	free(m->in);
	free(m->out);
	memset(m, 0, sizeof(*m));
}

int route_run(const struct route_engine *e, const struct fabric *f,
	      const struct route_options *opt, struct lft_set *t, char *why)
{
	return route_run_arg(e, f, opt, t, why, NULL);
}

int route_run_arg(const struct route_engine *e, const struct fabric *f,
		  const struct route_options *opt, struct lft_set *t,
		  char *why, void *arg)
{
	static const struct route_options no_opt;
	struct route_ctx ctx = { .fab = f, .opt = opt ? opt : &no_opt,
				 .arg = arg };
	struct fabric noloops;
	double t0 = now_seconds();
	int r;

	if (why)
		why[0] = 0;
	if (opt)
		route_memo_free(opt->memo_out);
	r = lft_take_spare(t, opt ? opt->spare : NULL, f->num_switches,
			   fab_max_lid(f));
	int warm = r == 1;
	if (r < 0) {
		if (why)
			snprintf(why, 256, "cannot allocate tables for %u "
				 "switches x %u LIDs", f->num_switches,
				 fab_max_lid(f));
		return r;
	}
	/* What the memory holds: LFT_NO_PATH everywhere (a spare cleared
	 * beforehand), a copy of opt->prev, or anything. */
	int clean = t->clean;
	const uint8_t *copy_of = t->copy_of;
	t->clean = 0;
	t->copy_of = NULL;
	/* No switch, no table to fill (a lone CA, two CAs back to back, or
	 * an SM that sees only its own HCA): every engine agrees, so none is
	 * asked, and none has to survive an empty switch graph. */
	if (f->num_switches == 0) {
		log_info("route %s: no switches, no forwarding tables to program",
			 e->name);
		return 0;
	}
	/* A cable looped back into one switch carries no route: engines see
	 * the fabric without it (the SM still activates its ports). */
	if (fab_has_self_loops(f)) {
		if (fab_clone(&noloops, f) < 0) {
			lft_free(t);
			return -ENOMEM;
		}
		fab_unlink_self_loops(&noloops, e->name);
		ctx.fab = &noloops;
	}
	r = e->prepare ? e->prepare(&ctx) : 0;
	if (!r && !ctx.tables_any) {
		if (!clean)
			memset(t->port, LFT_NO_PATH, (size_t)t->num_switches * t->stride);
		/* Local entries first; an engine may overwrite them (identically). */
		lft_fill_local(f, t);
	} else if (!r) {
		ctx.tables_prev = copy_of && opt && opt->prev &&
			copy_of == opt->prev->port;
	}
	if (!r)
		r = e->route(&ctx, t);
	if (e->release)
		e->release(&ctx);
	if (ctx.fab == &noloops)
		fab_free(&noloops);
	if (r) {
		if (!ctx.why[0])
			snprintf(ctx.why, sizeof(ctx.why), "%s", strerror(-r));
		if (why)
			snprintf(why, 256, "%s", ctx.why);
		lft_free(t);
		return r < 0 ? r : -EINVAL;
	}
	log_info("route %s: %u switches, LIDs up to %u, %.3f s%s", e->name,
		 f->num_switches, t->max_lid, now_seconds() - t0,
		 warm ? " (tables in the spare's warm memory)" : "");
	return 0;
}

int route_list_begin(struct route_list_iter *it, const char *names)
{
	it->save = NULL;
	it->started = 0;
	if (!names || snprintf(it->list, sizeof(it->list), "%s", names) >= (int)sizeof(it->list)) {
		log_err("routing engine list too long or missing");
		return -EINVAL;
	}
	return 0;
}

const struct route_engine *route_list_next(struct route_list_iter *it)
{
	for (;;) {
		char *name = strtok_r(it->started ? NULL : it->list, ", \t", &it->save);
		const struct route_engine *e;

		it->started = 1;
		if (!name)
			return NULL;
		e = route_engine_find(name);
		if (e)
			return e;
		log_err("routing engine '%s' is not known, skipping it", name);
	}
}

int route_run_list(const char *names, const struct fabric *f,
		   const struct route_options *opt, struct lft_set *t,
		   const struct route_engine **used)
{
	struct route_list_iter it;
	const struct route_engine *e;
	char why[256];
	int r = -EINVAL, tried = 0;

	if (used)
		*used = NULL;
	if (route_list_begin(&it, names) < 0)
		return -EINVAL;
	while ((e = route_list_next(&it))) {
		if (tried)
			log_warn("falling back to routing engine '%s'", e->name);
		tried++;
		r = route_run(e, f, opt, t, why);
		if (!r) {
			if (used)
				*used = e;
			return 0;
		}
		log_warn("routing engine '%s' refused the fabric: %s", e->name, why);
	}
	if (!tried)
		log_err("no known routing engine in \"%s\"", names);
	else
		log_err("every routing engine in \"%s\" refused the fabric", names);
	return r;
}
