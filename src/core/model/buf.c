// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A growing memory buffer and growable arrays (include/croute/model/buf.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>

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

int cr_grow(void *arrp, size_t *cap, size_t need, size_t size)
{
	void **p = arrp;
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return -1;
	q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

int cr_grow32(void *arrp, uint32_t *cap, size_t need, size_t size)
{
	size_t c = *cap;

	if (need > UINT32_MAX)
		return -1;
	if (cr_grow(arrp, &c, need, size))
		return -1;
	*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return 0;
}
