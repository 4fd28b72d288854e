// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Offline study of the port-selection toggles with cr-updn and cr-minhop:
 * plain, remote_guid_sorting, port_shifting and both, on generated fabrics,
 * scored by the contention estimator (shift: every phase; bisect: 10
 * seeded random matchings), hosts in natural order of their names (leaf
 * order). OpenSM's own rotation is compared under ibsim by run.sh.
 *
 * usage: study [fabric...]   fabrics: director, underpop, oversub,
 *        ktree3, ktree4, torus, random (default: all, small sizes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/route/engine.h>
#include <croute/estimate/estimate.h>
#include <croute/io/gen.h>
#include <croute/model/log.h>
#include <croute/model/routing.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct cr_fabric *make(const char *name, struct cr_gen_params *p)
{
	static const unsigned dims[] = {6, 6};

	p->seed = 1;
	if (!strcmp(name, "director")) /* 648-port director, scrambled */
		return cr_gen_two_level(36, 18, 18, 18, true, p);
	if (!strcmp(name, "underpop")) /* 16 of 18 hosts, 17 leaves */
		return cr_gen_two_level(17, 16, 18, 18, true, p);
	if (!strcmp(name, "oversub")) /* 3:2 */
		return cr_gen_two_level(12, 18, 12, 12, true, p);
	if (!strcmp(name, "ktree3"))
		return cr_gen_kary_ntree(6, 3, p);
	if (!strcmp(name, "ktree4"))
		return cr_gen_kary_ntree(3, 4, p);
	if (!strcmp(name, "torus"))
		return cr_gen_torus(dims, 2, true, 2, p);
	if (!strcmp(name, "random"))
		return cr_gen_random(40, 8, 2, p);
	fprintf(stderr, "unknown fabric %s\n", name);
	return NULL;
}

static int study(const char *name)
{
	static const char *const engines[] = {"updn", "minhop"};
	static const char *const toggles[] = {"plain", "sorting", "shifting",
					      "both"};
	struct cr_gen_params p = {0};
	struct cr_fabric *f = make(name, &p);
	struct cr_est_params ep;
	struct cr_hosts *hosts;

	if (!f || cr_fabric_assign_lids(f, 0))
		return -1;
	hosts = cr_hosts_default(f);
	if (!hosts)
		return -1;
	cr_est_params_init(&ep);
	printf("%s: %u switches, %u hosts\n", name, f->num_switches,
	       hosts->count);
	for (unsigned e = 0; e < 2; e++) {
		for (unsigned t = 0; t < 4; t++) {
			struct cr_pattern shift = {.kind = CR_PAT_SHIFT};
			struct cr_pattern bisect = {
				.kind = CR_PAT_BISECT, .count = 10, .seed = 1};
			struct cr_routing *r = cr_routing_new(f);
			struct cr_est_result *rs, *rb;
			struct cr_options o;
			struct cr_est *est;
			double t0;

			cr_options_init(&o);
			o.remote_guid_sorting = t & 1;
			o.port_shifting = t & 2;
			t0 = now();
			if (!r ||
			    cr_route(cr_engine_find(engines[e]), f, &o, r)) {
				cr_routing_free(r);
				continue;
			}
			t0 = now() - t0;
			est = cr_est_new(f, r, &ep);
			rs = est ? cr_est_run(est, &shift, hosts) : NULL;
			rb = est ? cr_est_run(est, &bisect, hosts) : NULL;
			if (rs && rb)
				printf("  cr-%-7s %-9s shift avg %.3f min %.3f "
				       "  bisect avg %.3f min %.3f   %.3f s\n",
				       engines[e], toggles[t], rs->avg_frac,
				       rs->min_frac, rb->avg_frac, rb->min_frac,
				       t0);
			cr_est_result_free(rs);
			cr_est_result_free(rb);
			cr_est_free(est);
			cr_routing_free(r);
		}
	}
	cr_hosts_free(hosts);
	cr_fabric_free(f);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const all[] = {"director", "underpop", "oversub",
					  "ktree3",   "ktree4",	  "torus",
					  "random"};
	int ret = 0;

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			ret |= study(argv[i]);
	} else {
		for (unsigned i = 0; i < sizeof(all) / sizeof(*all); i++)
			ret |= study(all[i]);
	}
	return ret ? 1 : 0;
}
