/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An indexed binary min-heap of item numbers keyed by key[item], for the
 * bound's shortest paths (the max-min solver makes these sifts with the
 * keys in its slots; test_maxmin holds it to this heap's bits). pos[]
 * lets a caller lower or raise one item's key and re-sift it in
 * O(log n). Equal keys keep whatever order the sifts leave, which
 * depends only on the sequence of calls, so results stay deterministic.
 * Inline: its users sift in their innermost loops.
 */
#ifndef CROUTE_IHEAP_H
#define CROUTE_IHEAP_H

#include <stdint.h>

#define CR_IHEAP_OUT UINT32_MAX /* pos[] of an item not in the heap */

struct cr_iheap {
	uint32_t *slot; /* items in heap order; room for every item */
	uint32_t *pos; /* per item: its index in slot[], or CR_IHEAP_OUT */
	const double *key; /* per item; owned by the caller */
	uint32_t len;
};

static inline void cr_iheap_put(struct cr_iheap *h, uint32_t i, uint32_t v)
{
	h->slot[i] = v;
	h->pos[v] = i;
}

static inline void cr_iheap_up(struct cr_iheap *h, uint32_t i)
{
	uint32_t v = h->slot[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (h->key[h->slot[p]] <= h->key[v])
			break;
		cr_iheap_put(h, i, h->slot[p]);
		i = p;
	}
	cr_iheap_put(h, i, v);
}

static inline void cr_iheap_down(struct cr_iheap *h, uint32_t i)
{
	uint32_t v = h->slot[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->len)
			break;
		if (c + 1 < h->len &&
		    h->key[h->slot[c + 1]] < h->key[h->slot[c]])
			c++;
		if (h->key[v] <= h->key[h->slot[c]])
			break;
		cr_iheap_put(h, i, h->slot[c]);
		i = c;
	}
	cr_iheap_put(h, i, v);
}

static inline void cr_iheap_push(struct cr_iheap *h, uint32_t v)
{
	cr_iheap_put(h, h->len++, v);
	cr_iheap_up(h, h->len - 1);
}

/* Re-establishes the order after items were put in any order. */
static inline void cr_iheap_heapify(struct cr_iheap *h)
{
	for (uint32_t i = h->len / 2; i-- > 0;)
		cr_iheap_down(h, i);
}

static inline void cr_iheap_remove(struct cr_iheap *h, uint32_t v)
{
	uint32_t i = h->pos[v];
	uint32_t last = h->slot[--h->len];

	h->pos[v] = CR_IHEAP_OUT;
	if (last == v)
		return;
	cr_iheap_put(h, i, last);
	/* the moved key may belong either above or below slot i */
	cr_iheap_down(h, i);
	cr_iheap_up(h, h->pos[last]);
}

/* Removes and returns the smallest; the heap must not be empty. */
static inline uint32_t cr_iheap_pop(struct cr_iheap *h)
{
	uint32_t v = h->slot[0];

	cr_iheap_remove(h, v);
	return v;
}

#endif
