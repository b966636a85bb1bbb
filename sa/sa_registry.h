/* The table of SA attributes served, for the server. */
#ifndef IBSM_SA_SA_REGISTRY_H
#define IBSM_SA_SA_REGISTRY_H

#include <stdint.h>
#include "sa_handler.h"

/* Ops for attr_id and its slot in the table (for statistics). */
const struct sa_attr_ops *sa_registry_find(uint16_t attr_id, int *slot);
/* Ops in slot i, NULL past the end. */
const struct sa_attr_ops *sa_registry_slot(int i);

/* The handlers, one per attribute (sa/sa_rec_*.c, sa/sa_path.c). */
extern const struct sa_attr_ops sa_classportinfo_ops, sa_noderecord_ops,
	sa_portinforecord_ops, sa_linkrecord_ops, sa_switchinforecord_ops,
	sa_lftrecord_ops, sa_guidinforecord_ops, sa_pkeyrecord_ops,
	sa_sminforecord_ops, sa_pathrecord_ops, sa_mcmember_ops,
	sa_servicerecord_ops, sa_mftrecord_ops, sa_informinfo_ops,
	sa_informinforecord_ops, sa_multipathrecord_ops, sa_sl2vlrecord_ops,
	sa_vlarbrecord_ops;

#endif
