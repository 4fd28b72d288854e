/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The core's one pseudo-random generator, splitmix64: tiny, fast, and the
 * same stream on every libc and platform, so that a seed (scatter_ports,
 * a pattern's seed, `croute gen --seed`) always means the same result.
 */
#ifndef CROUTE_RAND_H
#define CROUTE_RAND_H

#include <stdint.h>

/* The next 64 random bits; *state advances. Any state is valid. */
uint64_t cr_rand_next(uint64_t *state);

#endif
