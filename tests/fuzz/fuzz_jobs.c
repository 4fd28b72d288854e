// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The jobs file (cr_jobs_parse, Slurm hostlists): any bytes, against a
 * fixed fabric; the jobs read, when two hosts share one, are scored with
 * the jobs pattern on a min-hop routing.
 */
#include "fuzz.h"

#include <croute/io/jobs.h>
#include <croute/route/engine.h>
#include <croute/estimate/estimate.h>

static struct cr_fabric *f;
static struct cr_est *est;

static void setup(void)
{
	struct cr_options o;
	struct cr_est_params p;
	struct cr_routing *r;

	f = fuzz_fabric();
	r = cr_routing_new(f);
	cr_options_init(&o);
	if (!r || cr_route(cr_engine_find("minhop"), f, &o, r))
		abort();
	cr_est_params_init(&p);
	/* the estimator keeps r: it lives as long as the process */
	est = cr_est_new(f, r, &p);
	if (!est)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_pattern p = {.kind = CR_PAT_JOBS, .seed = 1};
	struct cr_jobs *j;
	bool pair = false;

	if (!f)
		setup();
	j = cr_jobs_parse(f, NULL, (const char *)data, size, "fuzz");
	if (!j)
		return 0;
	for (uint32_t k = 0; k < j->num_jobs; k++) {
		if (j->job[k].first + j->job[k].count > j->hosts.count)
			abort();
		pair |= j->job[k].count > 1;
	}
	if (pair) {
		p.jobs = j;
		cr_est_result_free(cr_est_run(est, &p, &j->hosts));
	}
	cr_jobs_free(j);
	return 0;
}
