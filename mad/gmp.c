/* General MAD headers through libibmad's field accessors. */
#include "gmp.h"

#include <string.h>
#include <infiniband/mad.h>

#define RO(m) ((void *)(uintptr_t)(m))

void gmp_init_request(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version,
		      uint8_t method, uint16_t attr, uint32_t mod, uint64_t tid)
{
	memset(mad, 0, GMP_SIZE);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, mgmt_class);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, class_version);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, method);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, mod);
}

void gmp_make_response(uint8_t *mad, uint16_t status)
{
	unsigned method = mad_get_field(mad, 0, IB_MAD_METHOD_F);

	/* IBA 13.4.5: Get and Set are both answered by GetResp; the SA's
	 * GetTable/GetMulti/Delete have their own response methods (method
	 * with bit 7 set, which is the R bit). */
	if (method == IB_MAD_METHOD_GET || method == IB_MAD_METHOD_SET)
		method = IB_MAD_METHOD_GET_RESPONSE;
	mad_set_field(mad, 0, IB_MAD_METHOD_F, method & 0x7f);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(mad, 0, IB_MAD_STATUS_F, status);
}

void sa_hdr_set(uint8_t *mad, uint16_t attr_offset_words, uint64_t comp_mask)
{
	mad_set_field(mad, 0, IB_SA_ATTROFFS_F, attr_offset_words);
	mad_set_field64(mad, 0, IB_SA_COMPMASK_F, comp_mask);
}

void sa_req_decode(const uint8_t *mad, struct sa_req_hdr *h)
{
	void *m = RO(mad);

	memcpy(h->common, mad, GMP_COMMON_HDR_LEN);
	h->method = (uint8_t)mad_get_field(m, 0, IB_MAD_METHOD_F);
	h->response = (uint8_t)mad_get_field(m, 0, IB_MAD_RESPONSE_F);
	h->class_version = (uint8_t)mad_get_field(m, 0, IB_MAD_CLASSVER_F);
	h->attr_id = (uint16_t)mad_get_field(m, 0, IB_MAD_ATTRID_F);
	h->attr_mod = mad_get_field(m, 0, IB_MAD_ATTRMOD_F);
	h->rmpp_flags = (uint8_t)mad_get_field(m, 0, IB_SA_RMPP_FLAGS_F);
	/* The type means nothing unless RMPP is active (IBA 13.6.2.1). */
	h->rmpp_type = h->rmpp_flags & RMPP_FLAG_ACTIVE ?
		(uint8_t)mad_get_field(m, 0, IB_SA_RMPP_TYPE_F) : 0;
	h->sm_key = mad_get_field64(m, 0, IB_SA_MKEY_F);
	h->comp_mask = mad_get_field64(m, 0, IB_SA_COMPMASK_F);
}

/* sa_resp_hdr but for the SubnAdm header's AttributeOffset and
 * ComponentMask (base's, or zero). */
static inline void resp_hdr(const struct sa_req_hdr *h, const uint8_t *base,
			    uint16_t attr_id, uint16_t status, uint8_t *mad)
{
	memcpy(mad, h->common, GMP_COMMON_HDR_LEN);
	if (base)
		memcpy(mad + GMP_COMMON_HDR_LEN, base + GMP_COMMON_HDR_LEN,
		       GMP_SA_DATA_OFFS - GMP_COMMON_HDR_LEN);
	else
		memset(mad + GMP_COMMON_HDR_LEN, 0,
		       GMP_SA_DATA_OFFS - GMP_COMMON_HDR_LEN);
	/* The response method as gmp_make_response makes it: GetResp has
	 * Get's method bits, Method|R keeps them, so only Set's change. */
	if (h->method == IB_MAD_METHOD_SET)
		mad_set_field(mad, 0, IB_MAD_METHOD_F,
			      IB_MAD_METHOD_GET_RESPONSE & 0x7f);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(mad, 0, IB_MAD_STATUS_F, status);
	if (attr_id)
		mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr_id);
}

void sa_resp_hdr(const struct sa_req_hdr *h, const uint8_t *base,
		 uint16_t attr_id, uint16_t status, uint16_t attr_offset_words,
		 uint8_t *mad)
{
	resp_hdr(h, base, attr_id, status, mad);
	mad_set_field(mad, 0, IB_SA_ATTROFFS_F, attr_offset_words);
	mad_set_field64(mad, 0, IB_SA_COMPMASK_F, h->comp_mask);
}

void sa_resp_hdr_sa(const struct sa_req_hdr *h, const uint8_t *base,
		    uint16_t attr_id, uint16_t status, uint8_t *mad)
{
	resp_hdr(h, base, attr_id, status, mad);
}

void rmpp_get(const uint8_t *mad, struct rmpp_hdr *h)
{
	h->version = (uint8_t)mad_get_field(RO(mad), 0, IB_SA_RMPP_VERS_F);
	h->type = (uint8_t)mad_get_field(RO(mad), 0, IB_SA_RMPP_TYPE_F);
	h->flags = (uint8_t)mad_get_field(RO(mad), 0, IB_SA_RMPP_FLAGS_F);
	h->status = (uint8_t)mad_get_field(RO(mad), 0, IB_SA_RMPP_STATUS_F);
	h->seg_num = mad_get_field(RO(mad), 0, IB_SA_RMPP_D1_F);
	h->len_or_window = mad_get_field(RO(mad), 0, IB_SA_RMPP_D2_F);
}

void rmpp_set(uint8_t *mad, const struct rmpp_hdr *h)
{
	mad_set_field(mad, 0, IB_SA_RMPP_VERS_F, h->version);
	mad_set_field(mad, 0, IB_SA_RMPP_TYPE_F, h->type);
	/* RRespTime 0x1F: no time value given (IBA 13.6.2.1). */
	mad_set_field(mad, 0, IB_SA_RMPP_RESP_F, 0x1f);
	mad_set_field(mad, 0, IB_SA_RMPP_FLAGS_F, h->flags);
	mad_set_field(mad, 0, IB_SA_RMPP_STATUS_F, h->status);
	mad_set_field(mad, 0, IB_SA_RMPP_D1_F, h->seg_num);
	mad_set_field(mad, 0, IB_SA_RMPP_D2_F, h->len_or_window);
}
