/* PathRecord requests meet the QoS policy (sa/sa_qos.h). */
#include "sa_layout.h"
#include "sa_partition.h"
#include "sa_qos.h"
#include "sa_rec.h"

struct port_arg {
	const struct sa_ctx *c;
	uint32_t p;
};

static int has_pkey(void *arg, uint16_t pkey15)
{
	const struct port_arg *a = arg;

	return sa_port_has_pkey(a->c, a->p, pkey15);
}

static void view(const struct sa_ctx *c, uint32_t p, struct port_arg *a,
		 struct qos_port *qp)
{
	const struct fabric *f = sa_fab(c);
	const struct fab_node *n = &f->nodes[f->ports[p].node];

	a->c = c;
	a->p = p;
	qp->guid = f->ports[p].guid;
	qp->node_type = n->type == FAB_SWITCH ? QOS_NT_SWITCH :
		n->type == FAB_ROUTER ? QOS_NT_ROUTER : QOS_NT_CA;
	if (qp->guid == c->sm.guid)
		qp->node_type |= QOS_NT_SELF;
	qp->port_num = f->ports[p].num;
	qp->node_desc = n->desc;
	qp->has_pkey = has_pkey;
	qp->arg = a;
}

const struct qos_level *sa_qos_level(const struct sa_ctx *c,
				     const struct sa_query *q,
				     uint32_t ps, uint32_t pd)
{
	const struct sa_layout *L = &sa_path_rec;
	uint64_t m = q->comp_mask;
	struct qos_request r = { 0 };
	struct port_arg sa, da;
	struct qos_port s, d;

	if (!c->qos)
		return NULL;
	/* ServiceID is two components: a rule on it needs both (OpenSM). */
	if ((m >> PR_SERVICEID0 & 1) && (m >> (PR_SERVICEID0 + 1) & 1)) {
		r.has_sid = 1;
		r.service_id = sa_get(L, q->record, PR_SERVICEID0) << 32 |
			sa_get(L, q->record, PR_SERVICEID0 + 1);
	}
	if (m >> PR_PKEY & 1) {
		r.has_pkey = 1;
		r.pkey = (uint16_t)sa_get(L, q->record, PR_PKEY);
	}
	if (m >> PR_QOS & 1) {
		r.has_class = 1;
		r.qos_class = (uint16_t)sa_get(L, q->record, PR_QOS);
	}
	view(c, ps, &sa, &s);
	view(c, pd, &da, &d);
	return qos_policy_level(c->qos, &r, &s, &d);
}
