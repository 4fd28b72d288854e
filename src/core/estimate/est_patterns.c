// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A list of patterns estimated on one routing: the sequence the plugin's
 * estimate thread, croute estimate and croute compare share (one
 * estimator for the routing, the hosts, then each pattern in turn), so
 * that they cannot drift apart. Where the hosts come from and what
 * happens to each result is the caller's.
 */
#include <croute/estimate/estimate.h>
#include <croute/io/jobs.h>

/* A jobs pattern runs on its jobs' hosts: Slurm's order is its own. */
static const struct cr_hosts *pattern_hosts(const struct cr_pattern *p,
					    const struct cr_hosts *hosts)
{
	return p->kind == CR_PAT_JOBS && p->jobs ? &p->jobs->hosts : hosts;
}

int cr_est_patterns(const struct cr_fabric *f, const struct cr_routing *r,
		    const struct cr_est_params *par,
		    const struct cr_pattern *pats, int n,
		    const struct cr_est_each *cb, void *arg)
{
	struct cr_est *est = cr_est_new(f, r, par);
	const struct cr_hosts *hosts = NULL;
	int ret = 0;

	/* The estimator first: a fabric it cannot score is the first error. */
	if (est)
		hosts = cb->hosts(arg);
	if (!est || !hosts) {
		cr_est_free(est);
		return -1;
	}
	for (int i = 0; i < n && !ret; i++) {
		const struct cr_hosts *h = pattern_hosts(&pats[i], hosts);
		struct cr_est_result *res = cr_est_run(est, &pats[i], h);

		if (res && par && par->orders &&
		    cr_est_run_orders(est, &pats[i], h, par->orders,
				      par->order_seed, &res->orders)) {
			cr_est_result_free(res);
			res = NULL;
		}
		ret = cb->result(arg, i, res);
	}
	cr_est_free(est);
	return ret;
}
