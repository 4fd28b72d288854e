// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A parsed opensm.conf into a routing run's settings, for the plugin and
 * the command's -F alike (include/croute/tune/conf_map.h).
 */
#include <croute/estimate/est_setup.h>
#include <croute/tune/conf_map.h>
#include <croute/tune/jobs_tune.h>

void cr_conf_improve(struct cr_auto_conf *ac, bool optimize, bool auto_optimize,
		     struct cr_opt_params *par)
{
	ac->improve = optimize || auto_optimize ? cr_optimize_hook : NULL;
	ac->improve_arg = par;
	ac->improve_rest = !optimize && auto_optimize;
}

/* OpenSM's keys where set: OpenSM's own defaults are cr_options_init()'s. */
static void map_osm_keys(const struct cr_osm_keys *k, struct cr_options *o)
{
	if (k->port_shifting >= 0)
		o->port_shifting = k->port_shifting;
	if (k->scatter_ports >= 0)
		o->scatter_ports = (uint32_t)k->scatter_ports;
	if (k->lash_start_vl >= 0)
		o->lash_start_vl = (uint8_t)k->lash_start_vl;
}

static void map_auto(const struct cr_osm_keys *k, const struct cr_conf *c,
		     unsigned flags, struct cr_auto_conf *ac)
{
	ac->candidates = c->auto_candidates[0] ? c->auto_candidates : NULL;
	ac->objective = c->auto_objective[0] ? c->auto_objective : NULL;
	ac->hosts = c->auto_hosts[0] ? c->auto_hosts : NULL;
	ac->budget = c->auto_budget;
	if ((flags & CR_CONF_IN_SWEEP) && ac->budget <= 0)
		ac->budget = CR_AUTO_BUDGET_DEFAULT;
	/* Layers need OpenSM to program SL2VL: only with QoS. */
	ac->qos = k->qos > 0;
	ac->allow_credit_loops = c->auto_allow_credit_loops;
	ac->max_vls = c->auto_max_vls;
	ac->threshold = c->auto_improve_threshold;
	cr_est_conf_paths(&c->est, &ac->paths, &ac->lanes);
}

void cr_conf_map(const struct cr_osm_keys *k, const struct cr_conf *c,
		 unsigned flags, struct cr_options *o, struct cr_auto_conf *ac,
		 struct cr_opt_params *par)
{
	map_osm_keys(k, o);
	o->remote_guid_sorting = c->remote_guid_sorting;
	o->lash_balance = c->lash_balance;
	o->balance_global = c->balance_global;
	o->balance_first = c->balance_first;
	cr_opt_params_init(par);
	if (c->optimize_budget > 0)
		par->budget = c->optimize_budget;
	par->max_extra_hops = c->optimize_max_extra_hops;
	map_auto(k, c, flags, ac);
	cr_conf_improve(ac, c->optimize, c->auto_optimize, par);
	cr_auto_conf_use(o, ac);
}

void cr_conf_jobs(const struct cr_conf *c, struct cr_jobs_conf *jc)
{
	jc->file = c->jobs_file[0] ? c->jobs_file : NULL;
	jc->threshold = c->jobs_threshold;
	jc->max_churn = c->auto_max_churn;
	jc->min_interval = c->jobs_min_interval;
	jc->wait = c->jobs_wait;
	jc->budget = c->jobs_budget;
	jc->objective = c->jobs_objective[0] ? c->jobs_objective : NULL;
	jc->refine = c->jobs_refine < 0 ? CR_JOBS_REFINE_DEFAULT
					: (double)c->jobs_refine;
	jc->refine_threshold = c->jobs_refine_threshold;
}
