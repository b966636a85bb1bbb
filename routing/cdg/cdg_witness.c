/* The witness index of taken dependencies by key (cdg_witness.h). */
#include <stdlib.h>
#include <string.h>

#include "cdg_witness.h"

void cdg_witness_init(struct cdg_witness *w)
{
	memset(w, 0, sizeof(*w));
}

void cdg_witness_free(struct cdg_witness *w)
{
	free(w->rec);
	free(w->key);
	free(w->head);
	memset(w, 0, sizeof(*w));
}

static uint32_t slot_of(uint64_t key, uint32_t cap)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ULL;
	return (uint32_t)(h >> 32) & (cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static uint32_t lookup(const struct cdg_witness *w, uint64_t key)
{
	uint32_t i = slot_of(key, w->key_cap);
	while (w->head[i] != CDG_WIT_END && w->key[i] != key)
		i = (i + 1) & (w->key_cap - 1);
	return i;
}

static int grow_table(struct cdg_witness *w)
{
	uint32_t cap = w->key_cap ? 2 * w->key_cap : 256;
	uint64_t *key = malloc(cap * sizeof(uint64_t));
	uint32_t *head = malloc(cap * sizeof(uint32_t));
	if (!key || !head) {
		free(key);
		free(head);
		return -1;
	}
	uint64_t *okey = w->key;
	uint32_t *ohead = w->head, ocap = w->key_cap;
	w->key = key;
	w->head = head;
	w->key_cap = cap;
	for (uint32_t i = 0; i < cap; i++)
		head[i] = CDG_WIT_END;
	for (uint32_t i = 0; i < ocap; i++)
		if (ohead[i] != CDG_WIT_END) {
			uint32_t j = lookup(w, okey[i]);
			key[j] = okey[i];
			head[j] = ohead[i];
		}
	free(okey);
	free(ohead);
	return 0;
}

void cdg_witness_add(struct cdg_witness *w, uint64_t key, uint32_t v,
		     uint32_t a, uint32_t b)
{
	if (w->nrec == w->rec_cap) {
		uint32_t cap = w->rec_cap ? 2 * w->rec_cap : 1024;
		struct cdg_wit *r = realloc(w->rec, cap * sizeof(*r));
		if (!r)
			return;
		w->rec = r;
		w->rec_cap = cap;
	}
	if (2 * (w->nkey + 1) > w->key_cap && grow_table(w))
		return;
	uint32_t i = lookup(w, key);
	if (w->head[i] == CDG_WIT_END) {
		w->key[i] = key;
		w->nkey++;
	}
	w->rec[w->nrec] = (struct cdg_wit){ .v = v, .a = a, .b = b,
					    .next = w->head[i] };
	w->head[i] = w->nrec++;
}

uint32_t cdg_witness_first(const struct cdg_witness *w, uint64_t key)
{
	if (!w->key_cap)
		return CDG_WIT_END;
	return w->head[lookup(w, key)];
}
