/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --bound in `croute estimate` and `croute compare`: the bounds of
 * `croute bound` for the same patterns and phases, computed once per host
 * order, and each score as a fraction of its bound.
 */
#ifndef CROUTE_BOUND_CLI_H
#define CROUTE_BOUND_CLI_H

#include <croute/bound/bound.h>

struct bound_cache;

struct bound_cache *bound_cache_new(const struct cr_fabric *f,
				    const struct cr_est_params *par,
				    const struct cr_pattern *pats, int npat);
void bound_cache_free(struct bound_cache *bc);
/* bound_cache_get() shows its progress on a terminal (cli_progress). */
void bound_cache_show_progress(struct bound_cache *bc);
/* One result per pattern, for this host order. NULL (reported). */
struct cr_bound_result *const *bound_cache_get(struct bound_cache *bc,
					       const struct cr_hosts *h);
/* score / bound; 0 when the bound is 0. */
double bound_ratio(double score, double bound);

#endif
