/* `abi1`: an engine object as built for engine ABI 1 (before issue 27),
 * for tests only (build/tests/libibsm-engine-abi1.so, never installed):
 * its entry answers version 1 only, and it exports the ABI-1 optional
 * ibsm_engine_flags symbol. ibsm (ABI 2) must refuse it, naming the file
 * and both ABI numbers, and never call into its engine. */
#include <stddef.h>
#include <stdint.h>

#include "routing/engine.h"

/* ABI 1's engine began with these (name, summary, then the callbacks):
 * its layout is not ours, so ibsm must not read it. */
struct abi1_engine {
	const char *name;
	const char *summary;
	void *prepare, *route, *release;
};

static const struct abi1_engine abi1_engine = {
	.name = "abi1",
	.summary = "TEST ONLY: an engine object of ABI 1",
};

const void *ibsm_engine_entry(uint32_t abi_version);
uint32_t ibsm_engine_flags(uint32_t abi_version);

const void *ibsm_engine_entry(uint32_t abi_version)
{
	return abi_version == 1 ? &abi1_engine : NULL;
}

uint32_t ibsm_engine_flags(uint32_t abi_version)
{
	return abi_version == 1 ? 1u : 0;
}
