/* Routing internals shared by the registry, the dlopen loader and the
 * built-in engines; the rest of ibsm only sees engine.h. */
#ifndef IBSM_ROUTING_ENGINE_INTERNAL_H
#define IBSM_ROUTING_ENGINE_INTERNAL_H

#include "engine.h"

/* Built-in engines (minhop.c, updn.c, ftree_route.c). */
extern const struct route_engine route_minhop;
extern const struct route_engine route_updn;
extern const struct route_engine route_ftree;
extern const struct route_engine route_dfsp;

/* At most this many engines can be loaded into one process. */
#define ROUTE_MAX_LOADED 16

/* Add a loaded engine (handle from dlopen, kept open for the life of the
 * process: callers hold pointers into it). Returns 0, -EEXIST if an engine
 * of that name is already known (built-in or loaded from another object),
 * or -ENOSPC when the table is full. */
int route_engine_register(const struct route_engine *e, void *handle);

/* route_run with ctx->arg set to arg: for an engine's own entry point
 * that passes it settings route_options does not carry (ftree_run). */
int route_run_arg(const struct route_engine *e, const struct fabric *f,
		  const struct route_options *opt, struct lft_set *t,
		  char *why, void *arg);

/* route_engine_load, asking the object for ABI version `abi` instead of
 * ROUTE_ENGINE_ABI (tests use it to check that a mismatch is refused). */
const struct route_engine *route_engine_load_abi(const char *path,
						 uint32_t abi);

#endif
