// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An index by name over the caller's records (include/croute/model/strindex.h). */
#include <stdlib.h>
#include <string.h>

#include <croute/model/strindex.h>

#define FREE_SLOT UINT32_MAX

/* FNV-1a: names are short strings. */
static size_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return (size_t)(h ^ h >> 32);
}

void cr_strindex_release(struct cr_strindex *x)
{
	free(x->slots);
	x->slots = NULL;
	x->mask = 0;
}

void cr_strindex_insert(struct cr_strindex *x, uint32_t i)
{
	size_t s = hash(x->key(x->ctx, i)) & x->mask;

	while (x->slots[s] != FREE_SLOT)
		s = (s + 1) & x->mask;
	x->slots[s] = i;
}

int cr_strindex_reserve(struct cr_strindex *x, size_t n)
{
	size_t size = x->mask + 1;
	uint32_t *slots;

	if (x->slots && 2 * (n + 1) <= size)
		return 0;
	size = x->slots ? size * 2 : 256;
	while (2 * (n + 1) > size)
		size *= 2;
	slots = malloc(size * sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t s = 0; s < size; s++)
		slots[s] = FREE_SLOT;
	free(x->slots);
	x->slots = slots;
	x->mask = size - 1;
	for (size_t i = 0; i < n; i++)
		cr_strindex_insert(x, (uint32_t)i);
	return 0;
}

uint32_t cr_strindex_find(const struct cr_strindex *x, const char *name)
{
	if (!x->slots)
		return UINT32_MAX;
	for (size_t s = hash(name) & x->mask; x->slots[s] != FREE_SLOT;
	     s = (s + 1) & x->mask)
		if (!strcmp(x->key(x->ctx, x->slots[s]), name))
			return x->slots[s];
	return UINT32_MAX;
}
