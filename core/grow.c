/* Growing arrays (grow.h). */
#include <errno.h>
#include <stdlib.h>

#include "grow.h"

int grow_array(void **arr, uint32_t *cap, uint32_t need, size_t elem,
	       uint32_t first)
{
	if (need <= *cap)
		return 0;
	uint64_t ncap = *cap ? *cap : first ? first : 1;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX || (elem && ncap > SIZE_MAX / elem))
		return -ENOMEM;
	void *p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = (uint32_t)ncap;
	return 0;
}

int grow_array_shared(void **arr, uint32_t cap, uint32_t *got, uint32_t need,
		      size_t elem, uint32_t first)
{
	*got = cap;
	return grow_array(arr, got, need, elem, first);
}
