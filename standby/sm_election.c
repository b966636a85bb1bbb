/* SM election (standby/sm_election.h). */
#include "sm_election.h"

#include "../mad/smp.h"

int sm_better(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb)
{
	if (pa != pb)
		return pa > pb;
	return ga < gb;
}

/* Index of the best peer in state `state`, -1 if none. */
static int best_in(const struct sm_peer *p, uint32_t n, uint8_t state)
{
	int best = -1;

	for (uint32_t i = 0; i < n; i++) {
		if (p[i].state != state)
			continue;
		if (best < 0 || sm_better(p[i].priority, p[i].guid,
					  p[best].priority, p[best].guid))
			best = (int)i;
	}
	return best;
}

int sm_elect(const struct sm_peer *peers, uint32_t n, uint8_t our_priority,
	     uint64_t our_guid, int we_are_master)
{
	int m = best_in(peers, n, SMP_SM_MASTER);

	if (we_are_master)
		return m >= 0 && sm_better(peers[m].priority, peers[m].guid,
					   our_priority, our_guid) ? m : -1;
	if (m >= 0)
		return m;
	/* No master yet: the best of us all becomes it. */
	{
		int d = best_in(peers, n, SMP_SM_DISCOVERING);
		int s = best_in(peers, n, SMP_SM_STANDBY);
		int b = d;

		if (s >= 0 && (b < 0 || sm_better(peers[s].priority, peers[s].guid,
						   peers[b].priority, peers[b].guid)))
			b = s;
		if (b >= 0 && sm_better(peers[b].priority, peers[b].guid,
					our_priority, our_guid))
			return b;
	}
	return -1;
}

int sm_handover_to(const struct sm_peer *peers, uint32_t n,
		   uint8_t our_priority, uint64_t our_guid)
{
	int d = best_in(peers, n, SMP_SM_DISCOVERING);
	int s = best_in(peers, n, SMP_SM_STANDBY);
	int b = s;

	/* A STANDBY SM is ready to take over; a DISCOVERING one is still
	 * sweeping, and will go STANDBY under us first. */
	(void)d;
	if (b >= 0 && sm_better(peers[b].priority, peers[b].guid,
				our_priority, our_guid))
		return b;
	return -1;
}
