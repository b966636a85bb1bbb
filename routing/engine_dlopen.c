/* Loading routing engines from shared objects (ABI: docs/routing.md).
 * The object exports ROUTE_ENGINE_ENTRY, which returns its engine for our
 * ROUTE_ENGINE_ABI or NULL. Handles stay open for the life of the process
 * (the registry hands out pointers into them). What an engine promises is
 * its flags field (ABI 2); the ibsm_engine_flags symbol of ABI 1 objects is
 * not looked up. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/log.h"
#include "engine_internal.h"

typedef const struct route_engine *(*engine_entry_fn)(uint32_t abi_version);

/* Highest ABI number asked when finding the one an object was built for. */
#define ABI_PROBE_MAX 64

/* The ABI the object's entry answers to (its engine is not touched: its
 * layout may be another), 0 when none up to ABI_PROBE_MAX. The entry is
 * a pure check of its argument by contract (engine.h). */
static uint32_t built_for(engine_entry_fn entry)
{
	for (uint32_t v = 1; v <= ABI_PROBE_MAX; v++)
		if (entry(v))
			return v;
	return 0;
}

const struct route_engine *route_engine_load_abi(const char *path, uint32_t abi)
{
	char buf[512];
	const char *file = path;

	if (!path || !*path) {
		log_err("routing engine: empty object path");
		return NULL;
	}
	/* A bare name ("sssp") means libibsm-engine-sssp.so on the library
	 * search path. */
	if (!strchr(path, '/') && !strstr(path, ".so")) {
		snprintf(buf, sizeof(buf), "libibsm-engine-%s.so", path);
		file = buf;
	}
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		log_err("routing engine %s: %s", path, dlerror());
		return NULL;
	}
	engine_entry_fn entry;
	*(void **)&entry = dlsym(h, ROUTE_ENGINE_ENTRY);
	if (!entry) {
		log_err("routing engine %s: no symbol %s (not an ibsm engine)",
			path, ROUTE_ENGINE_ENTRY);
		dlclose(h);
		return NULL;
	}
	const struct route_engine *e = entry(abi);
	if (!e) {
		uint32_t v = built_for(entry);
		if (v)
			log_err("routing engine %s: built for engine ABI %u, "
				"this ibsm needs ABI %u: rebuild it against "
				"routing/engine.h (docs/routing.md)", path, v, abi);
		else
			log_err("routing engine %s: answers to no engine ABI "
				"from 1 to %u; this ibsm needs ABI %u", path,
				ABI_PROBE_MAX, abi);
		dlclose(h);
		return NULL;
	}
	if (!e->name || !*e->name || !e->route) {
		log_err("routing engine %s: entry returned an engine without "
			"a name or a route function", path);
		dlclose(h);
		return NULL;
	}
	if (route_engine_find(e->name) == e) {
		/* Same object loaded again: dlopen only counted a reference. */
		dlclose(h);
		return e;
	}
	int r = route_engine_register(e, h);
	if (r == -EEXIST) {
		log_err("routing engine %s: an engine named '%s' already exists",
			path, e->name);
		dlclose(h);
		return NULL;
	}
	if (r) {
		log_err("routing engine %s: more than %d engines loaded", path,
			ROUTE_MAX_LOADED);
		dlclose(h);
		return NULL;
	}
	char fl[96];
	log_info("routing engine '%s' loaded from %s (declares: %s)", e->name,
		 path, route_engine_flag_names(e->flags, fl, sizeof(fl)));
	return e;
}

const struct route_engine *route_engine_load(const char *path)
{
	return route_engine_load_abi(path, ROUTE_ENGINE_ABI);
}
