/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the contention estimate's opensm.conf keys (include/croute/io/
 * est_conf.h, stored as written) mean: their checks, the penalty factors
 * and the patterns for a fabric of a given size.
 */
#ifndef CROUTE_EST_SETUP_H
#define CROUTE_EST_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include <croute/io/est_conf.h>
#include <croute/estimate/pattern.h>
#include <croute/estimate/estimate.h>
#include <croute/estimate/penalty.h>

/*
 * The checks of cr_conf_check (include/croute/tune/conf_check.h), which
 * logs file, line, key and value: 0, or -1 with nothing logged. The
 * patterns must be a pattern list; the penalty, three factors.
 */
int cr_est_conf_check_patterns(const struct cr_est_conf *c);
int cr_est_conf_check_penalty(const struct cr_est_conf *c);
/* The penalty factors: croute_penalty_factors (checked), else defaults. */
void cr_est_conf_penalty(const struct cr_est_conf *c, struct cr_penalty *p);

/*
 * croute_paths, "MODEL[:LANES]" (include/croute/estimate/estimate.h):
 * 0, or -1 when it is neither empty nor such a value.
 */
int cr_est_conf_check_paths(const struct cr_est_conf *c);
/* The path model and lanes of croute_paths (checked), else base, 0. */
void cr_est_conf_paths(const struct cr_est_conf *c, enum cr_est_paths *paths,
		       uint32_t *lanes);

/*
 * The patterns to estimate on a fabric of `hosts` hosts: croute_patterns,
 * else the default, where shift samples cr_est_sample_phases(hosts)
 * phases when hosts > CR_EST_LARGE_HOSTS (*sampled is then set: say so in
 * the log).
 * Returns the count, or -1 (logged).
 */
int cr_est_conf_patterns_for(const struct cr_est_conf *c, uint32_t hosts,
			     struct cr_pattern **pats, bool *sampled);

#endif
