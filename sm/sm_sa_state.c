/* The SA's client state file, driven by the SM (sm_sa_state.h). */
#include "sm_sa_state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sm_state.h"
#include "sm_service.h"
#include "../core/log.h"
#include "../sa/sa_persist.h"

static void view(struct sm *sm, struct sa_persist_view *v)
{
	v->mcast = &sm->mcast.db;
	v->services = &sm->sa.ctx.services;
	v->informs = &sm->sa.ctx.informs;
}

static void generations(const struct sm *sm, uint32_t g[3])
{
	g[0] = sm->mcast.db.generation;
	g[1] = sm->sa.ctx.services.generation;
	g[2] = sm->sa.ctx.informs.generation;
}

void sm_sa_state_load(struct sm *sm)
{
	struct sa_persist_view v;
	struct sa_persist_stats st;
	int rc;

	if (!sm->cfg->cache_dir[0] ||
	    snprintf(sm->sa_state_path, sizeof(sm->sa_state_path), "%s/sa-state",
		     sm->cfg->cache_dir) >= (int)sizeof(sm->sa_state_path)) {
		sm->sa_state_path[0] = 0;
		return;
	}
	view(sm, &v);
	rc = sa_persist_load(sm->sa_state_path, &v, now_seconds(), &st);
	if (rc == 0)
		log_info("SA state: %s: %u multicast groups (%u members, %u MLIDs taken here: moved), %u ServiceRecords (%u leases ended while stopped), %u subscriptions restored",
			 sm->sa_state_path, st.groups, st.members, st.mlids_moved,
			 st.services, st.services_expired, st.informs);
	else if (rc == -ENOMEM)
		log_err("SA state: %s: out of memory: partly restored", sm->sa_state_path);
	/* What was loaded is on disk already. */
	generations(sm, sm->sa_state_gen);
}

double sm_sa_state_next_deadline(const struct sm *sm, double now)
{
	uint32_t g[3];

	(void)now;
	if (!sm->sa_state_path[0] || sm->state != SMP_SM_MASTER)
		return SM_NEVER;
	generations(sm, g);
	if (!memcmp(g, sm->sa_state_gen, sizeof(g)) && !sm->sa_state_failed)
		return SM_NEVER;
	return sm->sa_state_at + (sm->sa_state_failed ? 10.0 : 1.0);
}

int sm_sa_state_tick(struct sm *sm, int force)
{
	struct sa_persist_view v;
	uint32_t g[3];
	double now = now_seconds();
	int rc;

	if (!sm->sa_state_path[0] || sm->state != SMP_SM_MASTER)
		return 0;
	generations(sm, g);
	if (!force && !memcmp(g, sm->sa_state_gen, sizeof(g)) && !sm->sa_state_failed)
		return 0;
	/* At most once a second (a join storm is one write), and a failing
	 * disk is retried every 10 s, not every loop. */
	if (!force && now - sm->sa_state_at < (sm->sa_state_failed ? 10.0 : 1.0))
		return 0;
	sm->sa_state_at = now;
	view(sm, &v);
	rc = sa_persist_save(sm->sa_state_path, &v, now);
	sm_persist_note(sm, SM_PERSIST_SA_STATE, rc == 0);
	if (rc < 0) {
		sm->sa_state_failed = 1;
		return rc;
	}
	if (sm->sa_state_failed)
		log_info("SA state: %s written again", sm->sa_state_path);
	sm->sa_state_failed = 0;
	memcpy(sm->sa_state_gen, g, sizeof(g));
	return 0;
}
