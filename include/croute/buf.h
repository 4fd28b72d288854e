/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A growing memory buffer (text or bytes), for output assembled before it
 * is known how long it gets: Slurm hostlists, PNG images.
 */
#ifndef CROUTE_BUF_H
#define CROUTE_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct cr_buf {
	char *p; /* NUL-terminated after len once anything was put */
	size_t len, cap;
	bool oom; /* a put failed: later puts do nothing, p is kept */
};

/* Appends n bytes; on failure sets b->oom (not logged). */
void cr_buf_put(struct cr_buf *b, const void *data, size_t n);

#endif
