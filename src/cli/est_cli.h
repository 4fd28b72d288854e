/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What `croute estimate` and `croute compare` share: the pattern, penalty,
 * host order and link rate options, and turning them into patterns, host
 * orders and estimator parameters.
 */
#ifndef CROUTE_EST_CLI_H
#define CROUTE_EST_CLI_H

#include <croute/estimate/estimate.h>
#include <croute/io/jobs.h>

#include "cli.h"

/* Long-only keys, clear of the commands' own (CLI_KEY_CMD on). */
enum {
	EST_KEY_PATTERN = CLI_KEY_CMD + 100,
	EST_KEY_PHASES,
	EST_KEY_SEED,
	EST_KEY_PENALTY,
	EST_KEY_HOSTS,
	EST_KEY_CA_ORDER,
	EST_KEY_DEFAULT_RATE,
	EST_KEY_ORDERS,
	EST_KEY_RAIL_ORDER,
	EST_KEY_PATHS,
	EST_KEY_LANES,
	EST_KEY_JOBS,
};

extern const struct cli_opt est_cli_opts[];
extern const struct cli_opt est_more_opts[];

struct est_setup {
	const struct cli_cmd *cmd;
	struct cr_est_params par;
	char *patterns; /* the --pattern lists, joined by commas */
	size_t patterns_cap; /* bytes allocated (cr_grow) */
	unsigned long phases; /* 0: not given */
	unsigned long long seed;
	bool seed_set;
	const char *penalty; /* the text, for reports */
	const char *hosts; /* host list file */
	const char *ca_order; /* croute-ftree-ca-order.dump */
	bool rail_order; /* that order regrouped: server x rails + rail */
	unsigned long orders; /* random host orders (--orders) */
	const char *jobs_file; /* --jobs: the running jobs */
	struct cr_jobs *jobs; /* read by est_setup_jobs() */
};

/* Commands without the jobs: a jobs pattern is a usage error (-1). */
int est_setup_no_jobs(struct est_setup *s, const struct cr_pattern *pats,
		      int n);
void est_setup_init(struct est_setup *s, const struct cli_cmd *cmd);
void est_setup_release(struct est_setup *s);
/*
 * cli_setup_opt(), then the estimate options: the one handler estimating
 * commands need before their own options. 0 when taken, 1 when key is
 * neither's, -1 on a bad value.
 */
int est_cli_opt(struct cli_setup *cs, struct est_setup *es, int key,
		const char *arg);
/*
 * The patterns (default "shift,bisect"), with --phases and --seed applied
 * (--seed also seeds the random host orders of --orders).
 * Returns the count, or -1 (reported).
 */
int est_setup_patterns(struct est_setup *s, struct cr_pattern **pats);
/*
 * --jobs: reads the jobs file on f and hands the jobs to the patterns
 * that score them ("jobs"); a "jobs" pattern without --jobs is an error.
 * 0, or -1 (reported).
 */
int est_setup_jobs(struct est_setup *s, const struct cr_fabric *f,
		   struct cr_pattern *pats, int n);
/*
 * The host order: --hosts, else --ca-order, else the routing's own CA
 * order (its by-products; by may be NULL), else node descriptions. *how
 * says which. NULL (reported).
 */
struct cr_hosts *est_setup_hosts(struct est_setup *s, const struct cr_fabric *f,
				 const struct cr_byproducts *by,
				 const char **how);

#endif
