// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Open addressing with linear probing, kept at most half full. */
#include <stdlib.h>

#include <croute/guidmap.h>

static size_t slot_of(const struct cr_guidmap *m, uint64_t key)
{
	/* splitmix64's finalizer: GUIDs differ mostly in their low bits. */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key & m->mask;
}

static int alloc_slots(struct cr_guidmap *m, size_t size)
{
	m->keys = malloc(size * sizeof(*m->keys));
	m->vals = malloc(size * sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		m->keys = NULL;
		m->vals = NULL;
		return -1;
	}
	for (size_t i = 0; i < size; i++)
		m->vals[i] = CR_GUIDMAP_NONE;
	m->mask = size - 1;
	m->count = 0;
	return 0;
}

int cr_guidmap_init(struct cr_guidmap *m, size_t expect)
{
	size_t size = 16;

	while (size < 2 * expect)
		size *= 2;
	return alloc_slots(m, size);
}

void cr_guidmap_release(struct cr_guidmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->mask = 0;
	m->count = 0;
}

static int grow(struct cr_guidmap *m)
{
	struct cr_guidmap old = *m;

	if (alloc_slots(m, (old.mask + 1) * 2)) {
		*m = old;
		return -1;
	}
	for (size_t i = 0; i <= old.mask; i++)
		if (old.vals[i] != CR_GUIDMAP_NONE)
			cr_guidmap_put(m, old.keys[i], old.vals[i]);
	cr_guidmap_release(&old);
	return 0;
}

int cr_guidmap_put(struct cr_guidmap *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (!m->vals || 2 * (m->count + 1) > m->mask + 1) {
		if (!m->vals ? cr_guidmap_init(m, 8) : grow(m))
			return -1;
	}
	for (i = slot_of(m, key); m->vals[i] != CR_GUIDMAP_NONE;
	     i = (i + 1) & m->mask)
		if (m->keys[i] == key)
			return 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return 0;
}

uint32_t cr_guidmap_get(const struct cr_guidmap *m, uint64_t key)
{
	if (!m->vals)
		return CR_GUIDMAP_NONE;
	for (size_t i = slot_of(m, key); m->vals[i] != CR_GUIDMAP_NONE;
	     i = (i + 1) & m->mask)
		if (m->keys[i] == key)
			return m->vals[i];
	return CR_GUIDMAP_NONE;
}
