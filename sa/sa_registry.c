/* Every attribute the SA serves, in one table. A new record type is one
 * line here and one ops struct in its own file. */
#include "sa_registry.h"

#include <stddef.h>

static const struct sa_attr_ops *const table[] = {
	&sa_classportinfo_ops,
	&sa_noderecord_ops,
	&sa_portinforecord_ops,
	&sa_switchinforecord_ops,
	&sa_lftrecord_ops,
	&sa_sminforecord_ops,
	&sa_linkrecord_ops,
	&sa_guidinforecord_ops,
	&sa_pkeyrecord_ops,
	&sa_pathrecord_ops,
	&sa_multipathrecord_ops,
	&sa_mcmember_ops,
	&sa_servicerecord_ops,
	&sa_mftrecord_ops,
	&sa_informinfo_ops,
	&sa_informinforecord_ops,
	&sa_sl2vlrecord_ops,
	&sa_vlarbrecord_ops,
};
#define NUM (int)(sizeof(table) / sizeof(table[0]))

const struct sa_attr_ops *sa_registry_find(uint16_t attr_id, int *slot)
{
	for (int i = 0; i < NUM; i++) {
		if (table[i]->attr_id == attr_id) {
			if (slot)
				*slot = i;
			return table[i];
		}
	}
	return NULL;
}

const struct sa_attr_ops *sa_registry_slot(int i)
{
	return i >= 0 && i < NUM ? table[i] : NULL;
}

const struct sa_attr_ops *sa_attr_find(uint16_t attr_id)
{
	return sa_registry_find(attr_id, NULL);
}
