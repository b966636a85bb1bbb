/* Background SL2VL and VLArb reads (sm/program/sl2vl_read.h). */
#include "sl2vl_read.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../../core/log.h"
#include "../../mad/smp.h"

void sl2vl_reader_init(struct sl2vl_reader *rd, struct sa_sl2vl_cache *c,
		       double rate, int all)
{
	memset(rd, 0, sizeof(*rd));
	rd->c = c;
	rd->rate = rate;
	rd->all = all;
	rd->gen = c->gen;
}

void sl2vl_reader_free(struct sl2vl_reader *rd)
{
	free(rd->fnode);
	rd->fnode = NULL;
}

/* cookie: generation (high 24 bits), cache node (24), table index (16). */
#define COOKIE(g, n, i) ((uint64_t)((g) & 0xffffff) << 40 | (uint64_t)(n) << 16 | (i))

static void on_read(void *ctx, uint64_t cookie, const uint8_t *req,
		    const uint8_t *resp)
{
	struct sl2vl_reader *rd = ctx;
	uint32_t node = (uint32_t)(cookie >> 16) & 0xffffff, idx = cookie & 0xffff;

	(void)req;
	rd->in_flight--;
	if ((cookie >> 40) != (rd->c->gen & 0xffffff))
		return;                 /* the fabric changed since */
	if (!resp || smp_status(resp)) {
		rd->failed++;
		sa_sl2vl_store_at(rd->c, node, idx, NULL, SL2VL_FAILED);
		return;
	}
	rd->read++;
	sa_sl2vl_store_at(rd->c, node, idx, resp + 64, SL2VL_READ);
}

/* A new generation: map cache nodes to the fabric's and walk from the
 * start. */
static int restart(struct sl2vl_reader *rd, struct subnet *r, double now)
{
	uint32_t *m = calloc(rd->c->num_nodes ? rd->c->num_nodes : 1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (uint32_t i = 0; i < rd->c->num_nodes; i++)
		m[i] = fab_find_node_guid(&r->fab, rd->c->nodes[i].guid);
	free(rd->fnode);
	rd->fnode = m;
	rd->gen = rd->c->gen;
	rd->node = rd->idx = 0;
	rd->read = rd->failed = rd->logged_read = 0;
	rd->started = now;
	rd->asks = rd->c->asks;
	rd->walking = rd->all && rd->c->wanted > 0;
	rd->done_logged = !rd->walking;
	return 0;
}

static int submit(struct sl2vl_reader *rd, struct mad_transport *t,
		  struct subnet *r, uint32_t cn, uint32_t idx)
{
	const struct sa_sl2vl_node *n = &rd->c->nodes[cn];
	uint32_t fn = rd->fnode[cn], mod = 0, attr = IB_ATTR_SLVL_TABLE;
	unsigned port = idx;
	const struct smp_path *path;
	int rc;

	if (fn == FAB_NONE)
		return 1;
	if (rd->c->kind == SA_TBL_VLARB) {
		/* IBA 14.2.5.9: block in bits 31-16, a switch's port in 15-0. */
		attr = IB_ATTR_VL_ARBITRATION;
		port = idx / SA_VLARB_BLOCKS;
		mod = (idx % SA_VLARB_BLOCKS + 1u) << 16 | (n->is_switch ? port : 0);
	} else if (n->is_switch) {
		mod = (idx / (n->num_ports + 1u)) << 8 | idx % (n->num_ports + 1u);
	}
	if (n->is_switch)
		path = &r->node_path[fn];
	else
		path = &r->port_path[fab_port_idx(&r->fab, fn, port)];
	rc = mt_submit_dr(t, path, IB_MAD_METHOD_GET, attr, mod,
			  NULL, on_read, rd, COOKIE(rd->gen, cn, idx));
	if (rc < 0)
		return rc;
	sa_sl2vl_reading(rd->c, cn, idx);
	rd->in_flight++;
	rd->tokens -= 1;
	return 0;
}

/* The next table to read: one an SA query asked for, else the walk's. */
static int next(struct sl2vl_reader *rd, uint32_t *cn, uint32_t *idx)
{
	struct sa_sl2vl_cache *c = rd->c;

	while (c->want_len) {
		unsigned k = c->want_head;

		c->want_head = (c->want_head + 1) % SL2VL_WANT_RING;
		c->want_len--;
		if (c->want[k].gen == c->gen && c->want[k].node < c->num_nodes &&
		    c->nodes[c->want[k].node].state[c->want[k].idx] == SL2VL_WANTED) {
			*cn = c->want[k].node;
			*idx = c->want[k].idx;
			return 1;
		}
	}
	/* On demand: a node newly asked for may lie behind the cursor. */
	if (!rd->all && rd->asks != c->asks) {
		rd->asks = c->asks;
		rd->node = rd->idx = 0;
	}
	for (; rd->node < c->num_nodes; rd->node++, rd->idx = 0) {
		const struct sa_sl2vl_node *n = &c->nodes[rd->node];
		unsigned nt = sa_tbl_count(c, n);

		if (!rd->all && !n->asked)
			continue;
		for (; rd->idx < nt; rd->idx++)
			if (n->state[rd->idx] == SL2VL_WANTED) {
				*cn = rd->node;
				*idx = rd->idx++;
				return 1;
			}
	}
	return 0;
}

double sl2vl_reader_next_deadline(const struct sl2vl_reader *rd, double now)
{
	const struct sa_sl2vl_cache *c = rd->c;
	int work;

	if (rd->rate <= 0)
		return HUGE_VAL;
	if (rd->gen != c->gen || !rd->fnode)
		return now;
	/* The two progress lines sl2vl_reader_tick logs when reads end. */
	if (rd->in_flight == 0 &&
	    ((!rd->all && rd->read + rd->failed != rd->logged_read) ||
	     (rd->walking && !rd->done_logged && rd->node >= c->num_nodes)))
		return now;
	work = c->want_len || (!rd->all && rd->asks != c->asks) ||
	       rd->node < c->num_nodes;
	if (!work || rd->in_flight >= SL2VL_READ_INFLIGHT)
		return HUGE_VAL;        /* an answer or an ask wakes the loop */
	return rd->tokens >= 1 ? now : rd->last + (1 - rd->tokens) / rd->rate;
}

int sl2vl_reader_tick(struct sl2vl_reader *rd, struct mad_transport *t,
		      struct subnet *r, double now)
{
	uint32_t cn, idx;

	if (rd->rate <= 0 || !r)
		return 0;
	if (rd->gen != rd->c->gen || !rd->fnode) {
		int rc = restart(rd, r, now);

		if (rc < 0)
			return rc;
		rd->last = now;
	}
	rd->tokens += (now - rd->last) * rd->rate;
	rd->last = now;
	/* At most a fifth of a second's worth at once. */
	if (rd->tokens > rd->rate / 5 + 1)
		rd->tokens = rd->rate / 5 + 1;
	while (rd->tokens >= 1 && rd->in_flight < SL2VL_READ_INFLIGHT &&
	       next(rd, &cn, &idx)) {
		int rc = submit(rd, t, r, cn, idx);

		if (rc < 0)
			return rc;
	}
	if (!rd->all && rd->in_flight == 0 && rd->read + rd->failed != rd->logged_read) {
		log_info("%s tables for the SA: %llu read on demand, %llu failed since the last sweep (%.2f s); %llu known in all",
			 sa_tbl_name(rd->c), (unsigned long long)rd->read, (unsigned long long)rd->failed,
			 now - rd->started, (unsigned long long)rd->c->known);
		rd->logged_read = rd->read + rd->failed;
	}
	if (rd->walking && !rd->done_logged && rd->in_flight == 0 &&
	    rd->node >= rd->c->num_nodes) {
		rd->done_logged = 1;
		log_info("%s tables for the SA: %llu read, %llu failed in %.2f s (background, at most %.0f/s); %llu known in all",
			 sa_tbl_name(rd->c), (unsigned long long)rd->read, (unsigned long long)rd->failed,
			 now - rd->started, rd->rate,
			 (unsigned long long)rd->c->known);
	}
	return 0;
}
