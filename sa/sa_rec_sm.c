/* The SA's own class: ClassPortInfo (IBA 13.4.8.1, 15.2.5.1) and
 * SMInfoRecord (15.2.5.9) for the SMs the SA knows (today: itself). */
#include <string.h>
#include <infiniband/mad.h>

#include "../mad/gmp.h"
#include "sa_rec.h"

static int cpi_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	uint8_t rec[REC_MAX];

	if (q->method != SA_METHOD_GET)
		return GMP_STATUS_METHOD_ATTR_UNSUPP;
	memset(rec, 0, REC_MAX);
	mad_set_field(rec, 0, IB_CPI_BASEVER_F, 1);
	mad_set_field(rec, 0, IB_CPI_CLASSVER_F, GMP_SA_CLASS_VERSION);
	/* CapabilityMask and CapabilityMask2 (IBA 15.2.1.1 Table 184): what
	 * this SA serves. Clients read them before using a feature (saquery
	 * -s relies on PortInfoCapMaskMatch, rdma_cm and ibacm on MultiPath). */
	mad_set_field(rec, 0, IB_CPI_CAPMASK_F, SA_CAP_SERVED);
	mad_set_field(rec, 0, IB_CPI_CAPMASK2_F, SA_CAP2_SERVED);
	/* RespTimeValue: the subnet timeout the SM gives every port. */
	mad_set_field(rec, 0, IB_CPI_RESP_TIME_VALUE_F, c->subnet_timeout);
	/* No redirection (RedirectLID 0): clients keep using QP1 with the
	 * GSI Q_Key, which the redirect fields then name (IBA 13.4.8.1). */
	mad_set_field(rec, 0, IB_CPI_REDIRECT_QP_F, 1);
	mad_set_field(rec, 0, IB_CPI_REDIRECT_QKEY_F, GMP_QP1_QKEY);
	mad_set_field(rec, 0, IB_CPI_TRAP_QKEY_F, GMP_QP1_QKEY);
	return sa_answer_add(a, rec) < 0 ? SA_STATUS_NO_RESOURCES : 0;
}

const struct sa_attr_ops sa_classportinfo_ops = {
	.attr_id = 0x0001,
	.name = "ClassPortInfo",
	.rec_len = 72,
	.query = cpi_query,
};

static int smir_query(struct sa_ctx *c, const struct sa_query *q,
		      struct sa_answer *a)
{
	uint8_t rec[REC_MAX];

	if (!c->db.r || !c->sm.lid)
		return 0;
	memset(rec, 0, REC_MAX);
	sa_put(&sa_sminfo_rec, rec, SMIR_LID, c->sm.lid);
	sa_put(&sa_sminfo_rec, rec, SMIR_GUID, c->sm.guid);
	/* SM_Key only to a requester that presented it (IBA 15.2.5.9). */
	sa_put(&sa_sminfo_rec, rec, SMIR_SMKEY, q->trusted ? c->sm.sm_key : 0);
	sa_put(&sa_sminfo_rec, rec, SMIR_ACTCOUNT, c->sm.act_count);
	sa_put(&sa_sminfo_rec, rec, SMIR_PRIORITY, c->sm.priority);
	sa_put(&sa_sminfo_rec, rec, SMIR_STATE, c->sm.state);
	if (sa_offer(&sa_sminfo_rec, q, q->comp_mask & ~(1ull << SMIR_SMKEY),
		     rec, a) < 0)
		return SA_STATUS_NO_RESOURCES;
	return 0;
}

const struct sa_attr_ops sa_sminforecord_ops = {
	.attr_id = 0x0018,
	.name = "SMInfoRecord",
	.rec_len = 25,
	.query = smir_query,
};
