/* P_KeyTable reads in the discovery window (docs/partitions.md).
 *
 * The SM programs a port's P_Key table diff-only, so a port whose table it
 * does not know yet (new, or its link trained again) is read first. Those
 * reads need nothing but the port's NodeInfo/SwitchInfo (its capacity)
 * and PortInfo (its state), so they are queued as soon as discovery has
 * them, in the same window of SMPs in flight as the sweep's own Gets,
 * instead of in a phase of their own after it. Only Gets: what to write
 * is decided after the sweep is judged whole and the SM is master.
 *
 * Which ports: end ports (CA and router ports, switch port 0) and switch
 * external ports facing one whose switch can enforce partitions;
 * every block of their capacity, since a stale entry in any block would
 * admit a partition the configuration does not give (IBA 10.9). A read
 * that fails, or a port found only after its capacity was known, is read
 * by pkeyprog_program as before. */
#ifndef IBSM_SM_PKEY_PREFETCH_H
#define IBSM_SM_PKEY_PREFETCH_H

#include <stdint.h>

#include "../../discovery/sweep.h"
#include "../../mad/mad_transport.h"

/* One port's table as read (blocks whose known[] is 0 did not answer). */
struct pkey_read {
	uint64_t key;               /* node GUID << 8 | port number */
	uint32_t nblocks;
	uint16_t *tbl;              /* nblocks x 32 entries */
	uint8_t *known;             /* per block */
};

/* The key a port's table is filed under, here and in pkey_program's
 * cache: node GUID << 8 | port number (port indexes change between
 * sweeps, GUIDs do not). */
static inline uint64_t pkey_port_key(const struct fabric *f, uint32_t p)
{
	return f->nodes[f->ports[p].node].guid << 8 | f->ports[p].num;
}

/* Should the port (key, its capacity in blocks, ACTIVE or not) be read? */
typedef int (*pkey_read_wanted_fn)(void *ctx, uint64_t key, uint32_t nblocks,
				   int active);

struct pkey_reads {
	struct pkey_read *e;        /* sorted by key once the sweep is done */
	uint32_t n, cap;
	uint8_t *asked;             /* per working port index of the sweep */
	uint32_t cap_asked;
	pkey_read_wanted_fn wanted;
	void *wanted_ctx;
	uint64_t sent, answered;    /* block Gets */
	int nomem;
	int sorted;
};

void pkey_reads_init(struct pkey_reads *s);
void pkey_reads_free(struct pkey_reads *s);
/* Forget what was read and arm for a sweep: h is what to pass to
 * sweep_discover_hooked. */
void pkey_reads_start(struct pkey_reads *s, pkey_read_wanted_fn wanted,
		      void *ctx, struct sweep_hook *h);
/* The table read for key during the last sweep, or NULL. */
const struct pkey_read *pkey_reads_find(struct pkey_reads *s, uint64_t key);

/* A P_KeyTable block on the wire: 32 big-endian 16-bit entries (IBA
 * 14.2.5.7; libibmad has no field for them). */
void pkey_block_get(const uint8_t *d, uint16_t k[32]);
void pkey_block_put(uint8_t *d, const uint16_t k[32]);

#endif
