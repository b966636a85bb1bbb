/* Growing arrays: the one doubling realloc every append-to-an-array in
 * the tree shares, so its overflow and failure rules live in one place. */
#ifndef IBSM_CORE_GROW_H
#define IBSM_CORE_GROW_H

#include <stddef.h>
#include <stdint.h>

/* Make room for `need` elements of `elem` bytes in *arr, whose capacity
 * (in elements) is *cap: double it, starting from `first` when it is 0,
 * until need fit. Returns 0 (also when they already fit), or -ENOMEM
 * with *arr and *cap unchanged (a capacity past UINT32_MAX elements or
 * SIZE_MAX bytes counts as out of memory). Call as
 * grow_array((void **)&v, &cap, n + 1, sizeof(*v), 16). */
int grow_array(void **arr, uint32_t *cap, uint32_t need, size_t elem,
	       uint32_t first);

/* For arrays that share one capacity `cap` (parallel arrays indexed
 * alike): grow_array of *arr from cap, its new capacity into *got, the
 * same for every array of the set. The caller sets the shared capacity
 * to *got once every array has grown; one that grew before another
 * failed is simply grown to that size again next time. */
int grow_array_shared(void **arr, uint32_t cap, uint32_t *got, uint32_t need,
		      size_t elem, uint32_t first);

#endif
