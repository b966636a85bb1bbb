/* The SM's side of multicast: the groups it keeps (the IPoIB broadcast
 * group from the start, others as the SA creates them), and bringing the
 * switches' MFTs in line with them after every heavy sweep and every
 * membership change. */
#ifndef IBSM_SM_SM_MULTICAST_H
#define IBSM_SM_SM_MULTICAST_H

#include <stdint.h>
#include "../core/subnet.h"
#include "../mad/mad_transport.h"
#include "../multicast/mcast_db.h"
#include "../multicast/mft_program.h"

struct sm_mcast {
	struct mcast_db db;
	struct mft_held held;
	uint32_t programmed_gen;        /* db.generation last programmed */
	uint32_t topo_gen;              /* bumped when the fabric changed */
	uint32_t programmed_topo;
};

/* Groups as configured: the IPoIB broadcast group of the default
 * partition, and the predefined ones of the mcast_groups key (a
 * ';'-separated list, multicast/mcast_spec.h). 0, -ENOMEM, or -EINVAL
 * (logged) for a bad or clashing entry. */
struct part_conf;
/* Groups made at start: the IPoIB broadcast group of the default
 * partition, one per partition with `ipoib`, and mcast_groups. */
int sm_mcast_init(struct sm_mcast *m, const char *groups,
		  const struct part_conf *parts);
void sm_mcast_free(struct sm_mcast *m);
/* Whether the MFTs are behind the groups or the fabric. */
int sm_mcast_dirty(const struct sm_mcast *m);
/* Drop members whose ports are gone, fit the broadcast group to the links
 * while it has no member, compute every group's tree and program the MFT
 * blocks that changed. Logs what it did. 0 or a negative errno. */
int sm_mcast_update(struct sm_mcast *m, struct mad_transport *t,
		    const struct subnet *r);

#endif
