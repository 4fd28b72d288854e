// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A growing memory buffer (include/croute/buf.h). */
#include <stdlib.h>
#include <string.h>

#include <croute/buf.h>

void cr_buf_put(struct cr_buf *b, const void *data, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}
