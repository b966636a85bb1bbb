/* The heavy sweep's programming phases (sweep.h): PortInfo, the SA's
 * table caches, P_Keys, SL2VL/VLArb, LFTs, activation. Each calls its
 * module in sm/program/ and logs what it did; the "program" line sums up
 * PortInfo to LFTs, as it did before the sweep was a table. */
#include "sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../program/vl_program.h"
#include "../sm_qos.h"

int sweep_phase_portinfo(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	const struct ibsm_config *cfg = c->cfg;
	int rc;

	c->po = (struct portcfg_opts){
		.gid_prefix = cfg->subnet_prefix,
		.sm_lid = sm->lid,
		.subnet_timeout = cfg->subnet_timeout,
		.m_key = cfg->m_key,
		.mkey_prot = (uint8_t)cfg->m_key_protect_bits,
		.mkey_lease = (uint16_t)cfg->m_key_lease_period,
		.mkey_not_kept = &sm->mkey_not_kept,
		.down = &sm->down,
		.wake = &sm->wake,
		/* IBA 14.4.11: the first sweep as master (at start, after a
		 * takeover or a handover) asks every end port's clients to
		 * re-register; until one such sweep reached every port. */
		.client_rereg = cfg->client_reregister && !sm->rereg_done,
		.set_timers = 1,
		.hoq_life = cfg->hoq_life,
		.leaf_hoq_life = cfg->leaf_hoq_life,
		.vl_stall = cfg->vl_stall,
		.leaf_vl_stall = cfg->leaf_vl_stall,
	};
	if (cfg->qos) {
		for (unsigned t = 0; t < QOS_PT_NUM; t++) {
			struct qos_vl_table tb;

			qos_vl_build(&tb, cfg->qos_vl, (enum qos_port_type)t);
			c->vl_high_limit[t] = tb.high_limit;
		}
		c->po.vl_high_limit = c->vl_high_limit;
		c->po.vl_high_limit_not_kept = &sm->vl_high_limit_not_kept;
	}
	rc = portcfg_configure(c->t, &c->nr, &c->po, &c->ps);
	if (rc < 0)
		return rc;
	if (c->po.client_rereg) {
		/* Sets lost to MAD loss: again next sweep, three times at
		 * most (a port that never answers must not make every host
		 * re-register on every sweep). */
		sm->rereg_done = !c->ps.failed || ++sm->rereg_tries >= 3;
		log_info("sweep %u: ClientReregister set on %u end ports (first sweep as master; %u advertise IsClientReregistrationSupported)%s",
			 c->n, c->ps.rereg, c->ps.rereg_capable,
			 sm->rereg_done ? "" : "; some Sets failed: again next sweep");
	}
	return SWEEP_NEXT;
}

/* The SA's SL2VL tables follow this view of the fabric (by GUID): before
 * programming, so the tables written below are kept. */
int sweep_phase_sa_tables(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	struct sa_sl2vl_cache *tc[] = { &sm->sa.ctx.sl2vl, &sm->sa.ctx.vlarb };

	if (!c->cfg->sa_enabled)
		return SWEEP_NEXT;
	for (unsigned k = 0; k < 2; k++) {
		int dropped = sa_sl2vl_sweep(tc[k], &c->nr);

		if (dropped < 0)
			log_err("sweep %u: SA %s tables: out of memory", c->n,
				sa_tbl_name(tc[k]));
		else if (dropped)
			log_info("sweep %u: SA %s tables: %d dropped (their ports changed), %llu to read",
				 c->n, sa_tbl_name(tc[k]), dropped,
				 (unsigned long long)tc[k]->wanted);
	}
	return SWEEP_NEXT;
}

/* Partitions (IBA 10.9): P_Key tables before any port goes ACTIVE, as
 * OpenSM's partition manager does. */
int sweep_phase_pkeys(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	struct part_build_stats pb;
	struct pkeyprog_stats ks = { 0 };
	double tk = now_seconds();
	int rc;

	rc = part_tables_build(&c->npt, c->cfg->partitions, &c->nr, &pb);
	if (rc < 0)
		return rc;
	if (pb.dropped || pb.enforce_off_full || pb.unknown_guids)
		log_warn("sweep %u: partitions: %u P_Key entries past a port's PartitionCap dropped, %u switch ports without enforcement (table too large), %u configured GUIDs not in the fabric",
			 c->n, pb.dropped, pb.enforce_off_full, pb.unknown_guids);
	rc = pkeyprog_program(c->t, &c->nr, &c->npt, &sm->pkeys, &ks);
	if (rc < 0)
		return rc;
	log_info("sweep %u: P_Keys: %u ports, %u switch ports facing end ports without a table (their switch cannot enforce); P_KeyTable blocks %llu written, %llu unchanged, %llu read (%llu in the discovery window); enforcement %u set; %u failed (%.3f s)",
		 c->n, ks.ports, pb.enforce_no_cap, (unsigned long long)ks.written,
		 (unsigned long long)ks.unchanged, (unsigned long long)ks.read,
		 (unsigned long long)ks.read_early, ks.enforce_set, ks.failed,
		 now_seconds() - tk);
	return SWEEP_NEXT;
}

/* SL n on VL n before any table that uses SL n is in place (old
 * single-layer routes use SL 0, which stays on VL 0). */
int sweep_phase_vls(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	const struct ibsm_config *cfg = c->cfg;
	struct vlprog_stats vs = { 0 };
	const struct qos_sl_space *qs;
	int rc;

	if (!c->routed || sm->sl_next.vls_used <= 1)
		return SWEEP_NEXT;
	/* qoslayer28: QoS classes x layers, each (class, layer) SL on its
	 * VL (sm_qos_layers_check planned and checked the map). */
	qs = sm_qos_layered(sm) ? &sm->qos_space_next : NULL;
	rc = vlprog_program_map(c->t, &c->nr, qs ? qs->vls : sm->sl_next.vls_used,
				qs ? qs->sl2vl : NULL,
				cfg->sa_enabled ? &sm->sa.ctx.sl2vl : NULL,
				cfg->sa_enabled ? &sm->sa.ctx.vlarb : NULL, &vs);
	if (rc < 0)
		return rc;
	log_info("sweep %u: VLs: %u layers; SL2VL/VLArb tables %llu written, %llu unchanged, %llu read, %u failed",
		 c->n, sm->sl_next.vls_used, (unsigned long long)vs.written,
		 (unsigned long long)vs.unchanged, (unsigned long long)vs.read,
		 vs.failed);
	if (vs.failed) {
		log_err("sweep %u: %u SL2VL/VLArb MADs failed: layered tables not programmed this sweep (a layer without its VL could deadlock)", c->n, vs.failed);
		c->routed = 0;
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now_seconds() + 1.0;
	}
	return SWEEP_NEXT;
}

/* QoS on without layered routes: SL2VL and VLArb from the qos_* keys on
 * every port type (sm/program/vl_program.h), before the LFTs, as the
 * layers'. With layers, QoS classes x layers went into the vls phase's
 * map (sm_qos_layered, qos/qos_sl_space.h). */
int sweep_phase_qos(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	const struct ibsm_config *cfg = c->cfg;
	struct vlprog_qos q;
	struct vlprog_stats vs = { 0 };
	double t0 = now_seconds();
	int rc;

	if (!c->routed || !cfg->qos || sm->sl_next.vls_used > 1)
		return SWEEP_NEXT;
	vlprog_qos_init(&q, cfg->qos_vl);
	rc = vlprog_program_qos(c->t, &c->nr, &q,
				cfg->sa_enabled ? &sm->sa.ctx.sl2vl : NULL,
				cfg->sa_enabled ? &sm->sa.ctx.vlarb : NULL, &vs);
	if (rc < 0)
		return rc;
	log_info("sweep %u: QoS tables: SL2VL/VLArb %llu written, %llu unchanged, %llu read, %u failed (%.3f s)",
		 c->n, (unsigned long long)vs.written, (unsigned long long)vs.unchanged,
		 (unsigned long long)vs.read, vs.failed, now_seconds() - t0);
	if (vs.failed) {
		/* A table that did not take: try again at the next sweep. */
		log_warn("sweep %u: %u SL2VL/VLArb MADs failed: QoS tables again next sweep",
			 c->n, vs.failed);
		sm->heavy_wanted = 1;
		sm->next_heavy_at = now_seconds() + 1.0;
	}
	return SWEEP_NEXT;
}

int sweep_phase_lfts(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	const struct ibsm_config *cfg = c->cfg;
	double now;
	int rc;

	if (c->routed) {
		c->sw_ok = calloc(c->nr.fab.num_switches + 1, 1);
		if (!c->sw_ok)
			return -ENOMEM;
		rc = lftprog_program(c->t, &c->nr, &c->nl, &sm->held, c->sw_ok,
				     cfg->packet_life_time > 31 ? 31 : cfg->packet_life_time,
				     &c->ls);
		if (rc < 0)
			return rc;
		/* The path SLs the SA answers are now the tables'. */
		path_sl_free(&sm->sl);
		sm->sl = sm->sl_next;
		memset(&sm->sl_next, 0, sizeof(sm->sl_next));
		sm->sa.ctx.path_sl = sm->sl.vls_used > 1 ? path_sl_hook : NULL;
		sm->sa.ctx.path_sl_arg = &sm->sl;
		/* ... and with QoS, class base + layer (sm_qos.h). */
		sm->qos_space = sm->qos_space_next;
		sm->sa.ctx.sl_space = sm->sa.ctx.path_sl && sm_qos_layered(sm) ?
			&sm->qos_space : NULL;
	}
	now = now_seconds();
	log_info("sweep %u: program %.3f s: PortInfo %u set, %u unchanged, %u failed; LFT blocks %llu written, %llu unchanged, %llu read back; SwitchInfo %u set; %u switches failed",
		 c->n, now - c->mark, c->ps.sets, c->ps.unchanged, c->ps.failed,
		 (unsigned long long)c->ls.blocks_written,
		 (unsigned long long)c->ls.blocks_unchanged,
		 (unsigned long long)c->ls.blocks_read, c->ls.swinfo_sets,
		 c->ls.switches_failed);
	c->mark = now;
	if (c->ps.timer_ports || c->ls.life_time_sets)
		log_info("sweep %u: timers: HOQLife/VLStallCount set on %u switch ports, LifeTimeValue on %u switches",
			 c->n, c->ps.timer_ports, c->ls.life_time_sets);
	return SWEEP_NEXT;
}

int sweep_phase_activate(struct sweep_ctx *c)
{
	double now;
	int rc;

	if (c->routed) {
		rc = portcfg_activate(c->t, &c->nr, &c->po, &c->ps);
		if (rc >= 0)
			rc = portcfg_disable(c->t, &c->nr, &c->po, &c->ps);
		if (rc < 0)
			return rc;
	}
	now = now_seconds();
	log_info("sweep %u: activate %.3f s: %u ports ACTIVE, %u not", c->n,
		 now - c->mark, c->ps.active, c->ps.not_active);
	c->mark = now;
	if (c->ps.disabled)
		log_info("sweep %u: %u link end%s taken down by the disable action", c->n,
			 c->ps.disabled, c->ps.disabled == 1 ? "" : "s");
	return SWEEP_NEXT;
}
