/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* qsort and bsearch comparators of plain integers, for every layer. */
#ifndef CROUTE_CMP_H
#define CROUTE_CMP_H

#include <stdint.h>

static inline int cr_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static inline int cr_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
