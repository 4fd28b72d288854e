/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contention estimate's opensm.conf keys (croute_estimate,
 * croute_patterns, croute_penalty_factors) as the key table of
 * src/core/io/conf_parse.c stores them: as written. The estimate's layer
 * checks them and says what they mean (include/croute/estimate/
 * est_setup.h), where they are used. The plugin runs the estimate
 * (src/plugin/estimate.c). conf.h embeds struct cr_est_conf; this header
 * knows nothing of struct cr_conf.
 */
#ifndef CROUTE_EST_CONF_H
#define CROUTE_EST_CONF_H

#include <stdbool.h>
#include <stdint.h>

/* croute_estimate; zero is the default, so that a zeroed conf is right. */
enum cr_est_mode {
	CR_EST_MODE_SUMMARY = 0, /* a log line per pattern, the dump */
	CR_EST_MODE_NONE, /* nothing at all */
	CR_EST_MODE_FULL, /* the dump also lists every phase */
};

#define CR_EST_PATTERNS_DEFAULT "shift,bisect"
/* The penalty model's factors (βe;βs;γr) when croute_penalty_factors is
 * not set (include/croute/estimate/penalty.h). */
#define CR_PENALTY_DEFAULT "0.965;0.925;1.35"
#define CR_EST_PATTERNS_LEN 512
/*
 * The default patterns estimate shift on about this many flows at most:
 * every phase up to CR_EST_LARGE_HOSTS hosts (N (N - 1) flows), beyond
 * that a sample of CR_EST_SAMPLE_FLOWS / N phases, never fewer than
 * CR_EST_LARGE_PHASES (doc/design.md, "The contention estimator", has
 * the measured times this follows from).
 */
#define CR_EST_SAMPLE_FLOWS 4000000u
#define CR_EST_LARGE_HOSTS 2000
#define CR_EST_LARGE_PHASES 64

/*
 * Shift's default sample on `hosts` hosts: 0 for every phase. Inline:
 * cr-auto's objective (tune) samples the same way, below io's layer.
 */
static inline uint32_t cr_est_sample_phases(uint32_t hosts)
{
	uint64_t n = hosts, k;

	if (n < 2 || n * (n - 1) <= CR_EST_SAMPLE_FLOWS)
		return 0;
	k = CR_EST_SAMPLE_FLOWS / n;
	return k < CR_EST_LARGE_PHASES ? CR_EST_LARGE_PHASES : (uint32_t)k;
}

/* All-zero means every default. */
struct cr_est_conf {
	enum cr_est_mode mode;
	char patterns[CR_EST_PATTERNS_LEN]; /* "": the default */
	char penalty[128]; /* croute_penalty_factors as written; "": none */
	char paths[32]; /* croute_paths as written; "": base */
};

#endif
