// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Random host orders: a scheduler hands a job its hosts in an order the
 * routing never saw, so a pattern is also scored on seeded random
 * permutations of the hosts. Each order is a full cr_est_run(): cost n
 * times the pattern's.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/estimate/estimate.h>
#include <croute/model/log.h>
#include <croute/model/rand.h>

struct cr_hosts *cr_hosts_random_order(const struct cr_hosts *h, uint64_t seed,
				       uint32_t j)
{
	struct cr_hosts *o = calloc(1, sizeof(*o));
	uint64_t st = seed, state = 0;

	if (o && h->count)
		o->ep = malloc(h->count * sizeof(*o->ep));
	if (!o || (h->count && !o->ep)) {
		free(o);
		cr_err("out of memory");
		return NULL;
	}
	for (uint32_t k = 0; k <= j; k++)
		state = cr_rand_next(&st);
	if (h->count)
		memcpy(o->ep, h->ep, h->count * sizeof(*o->ep));
	o->count = h->count;
	for (uint32_t i = o->count; i > 1; i--) {
		uint32_t k = (uint32_t)(cr_rand_next(&state) % i);
		struct cr_endpoint t = o->ep[i - 1];

		o->ep[i - 1] = o->ep[k];
		o->ep[k] = t;
	}
	return o;
}

int cr_est_run_orders(struct cr_est *e, const struct cr_pattern *p,
		      const struct cr_hosts *hosts, uint32_t n, uint64_t seed,
		      struct cr_est_orders *out)
{
	memset(out, 0, sizeof(*out));
	out->seed = seed;
	if (p->kind == CR_PAT_FLOWS || !hosts)
		return 0;
	for (uint32_t j = 0; j < n; j++) {
		struct cr_hosts *o = cr_hosts_random_order(hosts, seed, j);
		struct cr_est_result *res = o ? cr_est_run(e, p, o) : NULL;

		cr_hosts_free(o);
		if (!res)
			return -1;
		if (!j || res->avg_frac < out->worst_avg)
			out->worst_avg = res->avg_frac;
		if (!j || res->min_frac < out->worst_min)
			out->worst_min = res->min_frac;
		out->mean_avg += res->avg_frac;
		out->mean_min += res->min_frac;
		cr_est_result_free(res);
	}
	out->count = n;
	if (n) {
		out->mean_avg /= n;
		out->mean_min /= n;
	}
	return 0;
}
