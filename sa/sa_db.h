/* The SA database: what the SA answers from, built from the swept fabric
 * after each heavy sweep (the sweep result with the PortInfo/SwitchInfo as
 * last read or set, and the LFTs as programmed) and indexed so that every
 * query by LID or GUID is a lookup, not a walk. It borrows the sweep
 * result and tables (owned by the SM) and is rebuilt whenever they are
 * replaced; between rebuilds they do not change (the SM programs the next
 * view, never the one the SA answers from), which is what lets it keep
 * copies made from them (the PortInfoRecords below). A caller that
 * changes the view in place rebuilds. */
#ifndef IBSM_SA_SA_DB_H
#define IBSM_SA_SA_DB_H

#include <stdint.h>
#include "../core/subnet.h"
#include "../routing/lft.h"

struct sa_port_guid {
	uint64_t guid;
	uint32_t port;
};

struct sa_db {
	const struct subnet *r;       /* NULL: nothing swept yet */
	const struct fabric *lft_fab;       /* fabric the tables were made for */
	const struct lft_set *lft;
	uint32_t *port_of_lid;              /* LID -> endpoint port, FAB_NONE */
	uint32_t max_lid;
	uint32_t *lft_row;                  /* node -> switch ordinal in lft_fab */
	struct sa_port_guid *by_guid;       /* endpoint port GUIDs, sorted */
	uint32_t num_guids;
	uint64_t subnet_prefix;
	uint32_t builds;
	/* Every port's PortInfoRecord (IBA 15.2.5.3) as all but a trusted
	 * requester see it, SA_DB_PIR_LEN bytes a port (M_Key 0): nothing
	 * in it changes between builds, so a query by LID is a lookup and
	 * one copy (issue 27: building it each time cost ~100 instructions
	 * of ours and a libibmad call). 68 bytes a port beside the view's
	 * 64 of PortInfo. */
	uint8_t *pir;
};

#define SA_DB_PIR_LEN 68

void sa_db_init(struct sa_db *db);
void sa_db_free(struct sa_db *db);
/* Rebuild from a sweep result and the tables programmed for lft_fab
 * (lft may be NULL: no routes yet). Returns 0 or -ENOMEM (db emptied). */
int sa_db_build(struct sa_db *db, const struct subnet *r,
		struct fabric *lft_fab, const struct lft_set *lft,
		uint64_t subnet_prefix);

/* Endpoint port owning lid (within its LMC range), FAB_NONE if none.
 * Inline, as sa_db_portinfo: every query by LID asks (issue 27). */
static inline uint32_t sa_db_port_of_lid(const struct sa_db *db, uint32_t lid)
{
	if (!db->r || lid == 0 || lid > db->max_lid)
		return FAB_NONE;
	return db->port_of_lid[lid];
}

/* Endpoint port with this port GUID, FAB_NONE if none. */
uint32_t sa_db_port_of_guid(const struct sa_db *db, uint64_t guid);
/* LFT egress port of switch node n for lid, LFT_NO_PATH if unknown. */
uint8_t sa_db_lft(const struct sa_db *db, uint32_t node, uint32_t lid);
/* Port p's PortInfoRecord with the M_Key 0 (see struct sa_db): EndportLID
 * (a switch port's: port 0's), PortNum, and the PortInfo as read (zeros
 * if never read). */
static inline const uint8_t *sa_db_pir(const struct sa_db *db, uint32_t p)
{
	return db->pir + (size_t)p * SA_DB_PIR_LEN;
}

/* Raw PortInfo of port p (64 bytes) or NULL if never read. */
static inline const uint8_t *sa_db_portinfo(const struct sa_db *db, uint32_t p)
{
	if (!db->r || p >= db->r->cap_ports || !db->r->port_info_ok ||
	    db->r->port_info_ok[p] != 1)
		return NULL;
	return db->r->port_info[p];
}

#endif
