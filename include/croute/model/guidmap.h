/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * GUID -> 32-bit value hash map for the file readers: fabrics of tens of
 * thousands of nodes are looked up once per line, where the linear
 * cr_fabric_find_guid() would make reading quadratic. Internal to the core.
 */
#ifndef CROUTE_GUIDMAP_H
#define CROUTE_GUIDMAP_H

#include <stddef.h>
#include <stdint.h>

#define CR_GUIDMAP_NONE UINT32_MAX

struct cr_guidmap {
	uint64_t *keys;
	uint32_t *vals; /* CR_GUIDMAP_NONE marks a free slot */
	size_t mask;
	size_t count;
};

int cr_guidmap_init(struct cr_guidmap *m, size_t expect);
void cr_guidmap_release(struct cr_guidmap *m);
/* 0 when added, 1 when the key was there (value unchanged), -1 no memory. */
int cr_guidmap_put(struct cr_guidmap *m, uint64_t key, uint32_t val);
uint32_t cr_guidmap_get(const struct cr_guidmap *m, uint64_t key);

/* Values naming a port: node index and port number in one word. */
static inline uint32_t cr_guidmap_port(uint32_t node, unsigned port)
{
	return node << 8 | port;
}

struct cr_fabric;
/*
 * The first port GUID two ports of f share, among those that get a LID
 * (switch port 0, cabled CA ports), in node and port order: 1 with the
 * earlier port in *first and the later in *again (cr_guidmap_port()
 * words), 0 when every one is unique, -1 out of memory (not logged:
 * the reader says which file).
 */
int cr_guidmap_port_clash(const struct cr_fabric *f, uint32_t *first,
			  uint32_t *again);

#endif
