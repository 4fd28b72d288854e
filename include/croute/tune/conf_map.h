/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One parsed opensm.conf as a routing run uses it: the engines' options,
 * cr-auto's settings and the improvement pass's parameters. The plugin
 * (at every routing run) and the command's -F both go through
 * cr_conf_map(), so that the two route alike under one file; where they
 * legitimately differ is a flag of it, not a second mapping.
 */
#ifndef CROUTE_CONF_MAP_H
#define CROUTE_CONF_MAP_H

#include <stdbool.h>

#include <croute/tune/auto.h>
#include <croute/io/conf.h>
#include <croute/tune/optimize.h>
#include <croute/io/osm_conf.h>
#include <croute/model/routing.h>

/*
 * cr-auto's improve step runs in OpenSM's sweep (the plugin with
 * croute_auto_background FALSE), which waits for it: croute_auto_budget's
 * default is then CR_AUTO_BUDGET_DEFAULT with croute_auto_hosts too, not
 * the CR_AUTO_BUDGET_HOSTS_DEFAULT a thread or the command spends on a
 * known order (croute(8), croute_auto_budget).
 */
#define CR_CONF_IN_SWEEP 0x1

/*
 * k and c into a run's settings:
 *  - o: port_shifting, scatter_ports, lash_start_vl where k sets them (a
 *    key not set leaves o's value), remote_guid_sorting, lash_balance,
 *    balance_global, balance_first; o->engine_conf becomes ac. The GUID
 *    and port order files k's file keys name are the caller's to read.
 *  - ac: every field but shift_phases and shift_seed, which stay; its
 *    strings point into c, which must outlive it; its improve step is the
 *    improvement pass with par (cr_conf_improve()).
 *  - par: cr_opt_params_init()'s, with croute_optimize_budget and
 *    croute_optimize_max_extra_hops.
 * flags: CR_CONF_IN_SWEEP or 0.
 */
void cr_conf_map(const struct cr_osm_keys *k, const struct cr_conf *c,
		 unsigned flags, struct cr_options *o, struct cr_auto_conf *ac,
		 struct cr_opt_params *par);

/*
 * The jobs file as the plugin's watcher uses it (croute_jobs_*, and
 * croute_auto_max_churn for job-driven changes); file points into c.
 */
struct cr_jobs_conf {
	const char *file; /* NULL: the feature is off */
	double threshold; /* least predicted gain on the jobs */
	double max_churn; /* largest share of LFT entries changed */
	double min_interval; /* least seconds between two readings */
	unsigned wait; /* croute-slurm's wait, reported in the state file */
	double budget; /* the tuning's, as --jobs-budget; 0: the default */
	/* the tuning's, as --jobs-objective (points into the conf); NULL */
	const char *objective;
	double refine; /* the refine stage's, as --jobs-refine; 0: none */
	/* the least gain of the refine stage's over the installed tables */
	double refine_threshold;
};
void cr_conf_jobs(const struct cr_conf *c, struct cr_jobs_conf *jc);

/*
 * cr-auto's improve step from croute_optimize and croute_auto_optimize
 * (or --optimize and --no-auto-optimize): the improvement pass on the
 * winner, with par; with optimize within par's own budget, else with
 * what the candidates left of cr-auto's.
 */
void cr_conf_improve(struct cr_auto_conf *ac, bool optimize, bool auto_optimize,
		     struct cr_opt_params *par);

#endif
