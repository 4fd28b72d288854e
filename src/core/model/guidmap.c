// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Open addressing with linear probing, kept at most half full. */
#include <stdlib.h>

#include <croute/model/fabric.h>
#include <croute/model/guidmap.h>

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

int cr_guidmap_port_clash(const struct cr_fabric *f, uint32_t *first,
			  uint32_t *again)
{
	struct cr_guidmap m = {0};
	int ret = 0;

	if (cr_guidmap_init(&m, 2 * (size_t)f->num_nodes))
		return -1;
	for (uint32_t n = 0; n < f->num_nodes && !ret; n++) {
		const struct cr_node *node = &f->nodes[n];
		bool sw = node->type == CR_NODE_SWITCH;

		for (unsigned p = sw ? 0 : 1;
		     p <= (sw ? 0 : node->num_ports) && !ret; p++) {
			uint64_t g = node->ports[p].guid;
			uint32_t other;

			if (!sw && node->ports[p].remote == CR_NO_NODE)
				continue;
			other = cr_guidmap_get(&m, g);
			if (other != CR_GUIDMAP_NONE) {
				*first = other;
				*again = cr_guidmap_port(n, p);
				ret = 1;
			} else if (cr_guidmap_put(&m, g,
						  cr_guidmap_port(n, p)) < 0) {
				ret = -1;
			}
		}
	}
	cr_guidmap_release(&m);
	return ret;
}
