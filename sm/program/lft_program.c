/* LFT programming: learn what each switch holds, then send the blocks
 * that differ. */
#include "lft_program.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../../core/log.h"

enum { K_READ = 1, K_SWINFO, K_WRITE };

struct lp_ctx {
	const struct subnet *r;
	uint8_t *cur;               /* what the switch holds: [sw][block][64] */
	uint8_t *known;             /* [sw][block]: cur is valid */
	uint32_t nblocks;
	uint8_t *sw_ok;
	struct lftprog_stats *st;
};

static uint64_t ck(unsigned kind, uint32_t sw, uint32_t block)
{
	return ((uint64_t)kind << 56) | ((uint64_t)sw << 16) | block;
}

void lft_held_init(struct lft_held *h)
{
	memset(h, 0, sizeof(*h));
	fab_init(&h->fab);
}

void lft_held_free(struct lft_held *h)
{
	fab_free(&h->fab);
	lft_free(&h->lft);
	route_memo_free(&h->memo);
	free(h->ok);
	lft_held_init(h);
}

int lft_held_take(struct lft_held *h, const struct fabric *f,
		  struct lft_set *t, struct route_memo *memo, const uint8_t *sw_ok,
		  struct lft_set *spare)
{
	struct lft_held n;

	lft_held_init(&n);
	if (fab_clone(&n.fab, f) < 0 ||
	    !(n.ok = malloc(t->num_switches ? t->num_switches : 1))) {
		lft_held_free(&n);
		return -ENOMEM;
	}
	memcpy(n.ok, sw_ok, t->num_switches);
	n.lft = *t;
	memset(t, 0, sizeof(*t));
	if (memo) {
		n.memo = *memo;
		memset(memo, 0, sizeof(*memo));
	}
	n.valid = 1;
	/* The tables held until now become the spare the next route is
	 * built in (warm memory: see lft_alloc_reuse). */
	if (spare && !spare->port) {
		*spare = h->lft;
		memset(&h->lft, 0, sizeof(h->lft));
	} else if (spare) {
		/* of tables no longer held: a copy under way starts over
		 * even if the next tables land at the same address */
		spare->copy_of = spare->copying = NULL;
		spare->copied = 0;
	}
	lft_held_free(h);
	*h = n;
	return 0;
}

static void on_answer(void *ctx, uint64_t cookie, const uint8_t *req,
		      const uint8_t *resp)
{
	struct lp_ctx *c = ctx;
	unsigned kind = (unsigned)(cookie >> 56);
	uint32_t sw = (uint32_t)(cookie >> 16) & 0xffffffffu;
	uint32_t block = (uint32_t)(cookie & 0xffff);
	const struct fab_node *n = &c->r->fab.nodes[c->r->fab.switches[sw]];

	(void)req;
	if (!resp || smp_status(resp)) {
		if (kind == K_READ)
			return;     /* unknown: the block will be written */
		c->st->failed++;
		c->sw_ok[sw] = 0;
		log_warn("switch 0x%016llx \"%s\": %s %s", (unsigned long long)n->guid,
			 n->desc, kind == K_SWINFO ? "SwitchInfo Set" : "LFT block Set",
			 resp ? "refused" : "not answered");
		return;
	}
	if (kind == K_READ) {
		smp_get_lft_block(resp + 64,
				  c->cur + ((size_t)sw * c->nblocks + block) * LFT_BLOCK);
		c->known[(size_t)sw * c->nblocks + block] = 1;
		c->st->blocks_read++;
	} else if (kind == K_SWINFO) {
		/* The answer to a Set is the SwitchInfo now in force (IBA
		 * 14.2.5.4 with the new LinearFDBTop, LifeTimeValue and
		 * PortStateChange cleared): keep it, so SwitchInfoRecord
		 * shows what the switch holds, not what the sweep read. */
		memcpy(c->r->sw_info[c->r->fab.switches[sw]], resp + 64, 64);
		c->st->swinfo_sets++;
	} else {
		c->st->blocks_written++;
	}
}

/* Fill cur/known for switch sw from the held tables, if they still apply. */
static int from_held(struct lp_ctx *c, struct lft_held *held, uint32_t sw,
		     uint16_t top)
{
	const struct fab_node *n = &c->r->fab.nodes[c->r->fab.switches[sw]];
	uint32_t hn, hsw;

	if (!held || !held->valid)
		return 0;
	hn = fab_find_node_guid(&held->fab, n->guid);
	if (hn == FAB_NONE || !fab_is_switch(&held->fab, hn))
		return 0;
	hsw = held->fab.nodes[hn].sw_index;
	if (!held->ok[hsw] || top != held->lft.max_lid)
		return 0;
	/* Blocks above the top we programmed were never written. */
	for (uint32_t b = 0; b < c->nblocks && b * LFT_BLOCK <= top; b++) {
		uint8_t *dst = c->cur + ((size_t)sw * c->nblocks + b) * LFT_BLOCK;

		for (uint32_t i = 0; i < LFT_BLOCK; i++)
			dst[i] = lft_get(&held->lft, hsw, b * LFT_BLOCK + i);
		c->known[(size_t)sw * c->nblocks + b] = 1;
	}
	return 1;
}

int lftprog_program(struct mad_transport *t, const struct subnet *r,
		    const struct lft_set *want, struct lft_held *held,
		    uint8_t *sw_ok, int life_time, struct lftprog_stats *st)
{
	const struct fabric *f = &r->fab;
	struct lp_ctx c = { .r = r, .sw_ok = sw_ok, .st = st };
	size_t limit = (size_t)mt_window(t) * 8;
	int rc = 0;

	c.nblocks = want->max_lid / LFT_BLOCK + 1;
	c.cur = malloc((size_t)f->num_switches * c.nblocks * LFT_BLOCK + 1);
	c.known = calloc((size_t)f->num_switches * c.nblocks + 1, 1);
	if (!c.cur || !c.known) {
		rc = -ENOMEM;
		goto out;
	}
	memset(sw_ok, 1, f->num_switches);

	/* 1: what the switches hold. */
	for (uint32_t sw = 0; sw < f->num_switches && !rc; sw++) {
		uint32_t n = f->switches[sw];
		struct smp_switchinfo si;

		smp_get_switchinfo(r->sw_info[n], &si);
		if (from_held(&c, held, sw, si.lft_top) || !si.lft_top)
			continue;
		for (uint32_t b = 0; b < c.nblocks && b * LFT_BLOCK <= si.lft_top; b++) {
			rc = mt_throttle(t, limit);
			if (!rc)
				rc = mt_submit_dr(t, &r->node_path[n], IB_MAD_METHOD_GET,
						  IB_ATTR_LINEARFORWTBL, b, NULL,
						  on_answer, &c, ck(K_READ, sw, b));
			if (rc)
				break;
		}
	}
	if (!rc)
		rc = mt_drain(t);

	/* 2: LinearFDBTop (and clear PortStateChange), then differing blocks. */
	for (uint32_t sw = 0; sw < f->num_switches && !rc; sw++) {
		uint32_t n = f->switches[sw];
		struct smp_switchinfo si;
		const uint8_t *row = lft_row(want, sw);

		smp_get_switchinfo(r->sw_info[n], &si);
		if (si.lft_cap && want->max_lid >= si.lft_cap) {
			log_err("switch 0x%016llx \"%s\": LinearFDBCap %u is below the top LID %u",
				(unsigned long long)f->nodes[n].guid, f->nodes[n].desc,
				si.lft_cap, want->max_lid);
			sw_ok[sw] = 0;
			continue;
		}
		int lt_differs = life_time >= 0 && si.life_time != life_time;

		if (si.lft_top != want->max_lid || si.port_state_change || lt_differs) {
			uint8_t data[64];

			if (lt_differs)
				st->life_time_sets++;
			smp_build_switchinfo_set(data, r->sw_info[n],
						 (uint16_t)want->max_lid, 1, life_time);
			rc = mt_submit_dr(t, &r->node_path[n], IB_MAD_METHOD_SET,
					  IB_ATTR_SWITCH_INFO, 0, data, on_answer,
					  &c, ck(K_SWINFO, sw, 0));
		}
		for (uint32_t b = 0; b < c.nblocks && !rc; b++) {
			size_t k = (size_t)sw * c.nblocks + b;
			const uint8_t *newb = row + (size_t)b * LFT_BLOCK;
			uint8_t data[64] = { 0 };

			if (c.known[k] &&
			    !memcmp(c.cur + k * LFT_BLOCK, newb, LFT_BLOCK)) {
				st->blocks_unchanged++;
				continue;
			}
			rc = mt_throttle(t, limit);
			if (rc)
				break;
			smp_set_lft_block(data, newb);
			rc = mt_submit_dr(t, &r->node_path[n], IB_MAD_METHOD_SET,
					  IB_ATTR_LINEARFORWTBL, b, data, on_answer,
					  &c, ck(K_WRITE, sw, b));
		}
	}
	if (!rc)
		rc = mt_drain(t);
	for (uint32_t sw = 0; sw < f->num_switches; sw++)
		if (!sw_ok[sw])
			st->switches_failed++;
out:
	free(c.cur);
	free(c.known);
	return rc;
}

int lftprog_read(struct mad_transport *t, const struct subnet *r,
		 struct lft_set *out, struct lftprog_stats *st)
{
	const struct fabric *f = &r->fab;
	uint32_t max_lid = fab_max_lid(f);
	struct lp_ctx c = { .r = r, .st = st };
	size_t limit = (size_t)mt_window(t) * 8;
	int rc;

	if (lft_alloc(out, f->num_switches, max_lid) < 0)
		return -ENOMEM;
	c.nblocks = max_lid / LFT_BLOCK + 1;
	c.cur = malloc((size_t)f->num_switches * c.nblocks * LFT_BLOCK + 1);
	c.known = calloc((size_t)f->num_switches * c.nblocks + 1, 1);
	c.sw_ok = calloc(f->num_switches + 1, 1);
	rc = c.cur && c.known && c.sw_ok ? 0 : -ENOMEM;
	for (uint32_t sw = 0; sw < f->num_switches && !rc; sw++) {
		struct smp_switchinfo si;
		uint32_t n = f->switches[sw];

		smp_get_switchinfo(r->sw_info[n], &si);
		for (uint32_t b = 0; b < c.nblocks && b * LFT_BLOCK <= si.lft_top && !rc; b++) {
			rc = mt_throttle(t, limit);
			if (!rc)
				rc = mt_submit_dr(t, &r->node_path[n], IB_MAD_METHOD_GET,
						  IB_ATTR_LINEARFORWTBL, b, NULL,
						  on_answer, &c, ck(K_READ, sw, b));
		}
	}
	if (!rc)
		rc = mt_drain(t);
	/* What was read, up to each switch's LinearFDBTop; the rest stays
	 * "no path" (the verifier then calls the tables incomplete). */
	for (uint32_t sw = 0; sw < f->num_switches && !rc; sw++) {
		struct smp_switchinfo si;

		smp_get_switchinfo(r->sw_info[f->switches[sw]], &si);
		for (uint32_t b = 0; b < c.nblocks; b++) {
			const uint8_t *blk = c.cur + ((size_t)sw * c.nblocks + b) * LFT_BLOCK;

			if (!c.known[(size_t)sw * c.nblocks + b])
				continue;
			for (uint32_t i = 0; i < LFT_BLOCK; i++) {
				uint32_t lid = b * LFT_BLOCK + i;

				if (lid <= max_lid && lid <= si.lft_top)
					lft_set_port(out, sw, lid, blk[i]);
			}
		}
	}
	free(c.cur);
	free(c.known);
	free(c.sw_ok);
	if (rc)
		lft_free(out);
	return rc;
}
