/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An index by name over records the caller keeps in an array: open
 * addressing on record numbers, at most half full, so that a reader finds
 * a node or system by its name in constant time. The index stores no
 * names; key(ctx, i) gives record i's.
 */
#ifndef CROUTE_STRINDEX_H
#define CROUTE_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

typedef const char *cr_strindex_key(const void *ctx, uint32_t i);

/* Empty when zeroed with key and ctx set: {.key = k, .ctx = records}. */
struct cr_strindex {
	uint32_t *slots; /* record numbers, UINT32_MAX where free */
	size_t mask;
	cr_strindex_key *key;
	const void *ctx;
};

void cr_strindex_release(struct cr_strindex *x);
/* Makes room for record n (records 0..n-1 are indexed). 0, or -1. */
int cr_strindex_reserve(struct cr_strindex *x, size_t n);
/* Indexes record i, after cr_strindex_reserve(x, i). */
void cr_strindex_insert(struct cr_strindex *x, uint32_t i);
/* The record named name, or UINT32_MAX. */
uint32_t cr_strindex_find(const struct cr_strindex *x, const char *name);

#endif
