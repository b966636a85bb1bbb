/* Loading routing engines from shared objects (ABI: docs/routing.md).
 * The object exports ROUTE_ENGINE_ENTRY, which returns its engine for our
 * ROUTE_ENGINE_ABI or NULL. Handles stay open for the life of the process
 * (the registry hands out pointers into them). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/log.h"
#include "engine_internal.h"

typedef const struct route_engine *(*engine_entry_fn)(uint32_t abi_version);
typedef uint32_t (*engine_flags_fn)(uint32_t abi_version);

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
		log_err("routing engine %s: built for another engine ABI "
			"(ibsm asks for version %u)", path, abi);
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
	/* Optional (engine.h): what the engine promises. */
	engine_flags_fn flags_of;
	uint32_t flags = 0;
	*(void **)&flags_of = dlsym(h, ROUTE_ENGINE_FLAGS_ENTRY);
	if (flags_of)
		flags = flags_of(abi);
	int r = route_engine_register_flags(e, h, flags);
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
	log_info("routing engine '%s' loaded from %s%s", e->name, path,
		 flags & ROUTE_ENGINE_DEADLOCK_FREE ? " (declares deadlock-free tables)" : "");
	return e;
}

const struct route_engine *route_engine_load(const char *path)
{
	return route_engine_load_abi(path, ROUTE_ENGINE_ABI);
}
