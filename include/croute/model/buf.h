/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A growing memory buffer (text or bytes), for output assembled before it
 * is known how long it gets: Slurm hostlists, PNG images.
 */
#ifndef CROUTE_BUF_H
#define CROUTE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cr_buf {
	char *p; /* NUL-terminated after len once anything was put */
	size_t len, cap;
	bool oom; /* a put failed: later puts do nothing, p is kept */
};

/* Appends n bytes; on failure sets b->oom (not logged). */
void cr_buf_put(struct cr_buf *b, const void *data, size_t n);

/*
 * Growable arrays. arrp points at the array's pointer; makes room for at
 * least need elements of size bytes, doubling the capacity *cap (counted
 * in elements, from 16 when the array is new). Returns 0, or -1 when the
 * size overflows or the allocation fails, with the array and *cap left as
 * they were (not logged).
 */
int cr_grow(void *arrp, size_t *cap, size_t need, size_t size);
/* The same for a capacity kept as a 32-bit count. */
int cr_grow32(void *arrp, uint32_t *cap, size_t need, size_t size);

#endif
