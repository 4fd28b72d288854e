// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The jobs pattern (include/croute/estimate/pattern.h): what a busy
 * machine's traffic looks like when the batch system says who runs
 * where. Every job runs shift among its own hosts and all jobs run at
 * once, phase k of each together, so that jobs sharing a link contend
 * as they would. A job takes its hosts in the order they have in the
 * hosts run on: the jobs' own list gives Slurm's order, a random order
 * of that list a random order within each job (a uniform permutation,
 * grouped stably by job, is uniform within each group).
 */
#include <stdlib.h>
#include <string.h>

#include <croute/io/jobs.h>
#include <croute/model/log.h>
#include "phases.h"

int cr_jobs_pattern_start(struct cr_pattern_run *pr, const struct cr_fabric *f,
			  const struct cr_pattern *p, const struct cr_hosts *h)
{
	const struct cr_jobs *j = p->jobs;
	uint32_t *job_of = NULL, *count = NULL, largest = 0, in_jobs = 0;

	if (!j) {
		cr_err("pattern jobs: no jobs given (a jobs file)");
		return -1;
	}
	job_of = malloc(((size_t)f->max_lid + 1) * sizeof(*job_of));
	count = calloc(j->num_jobs + 1, sizeof(*count));
	pr->job_start = calloc(j->num_jobs + 1, sizeof(*pr->job_start));
	pr->perm = malloc((h->count + 1) * sizeof(*pr->perm));
	if (!job_of || !count || !pr->job_start || !pr->perm)
		goto oom;
	memset(job_of, 0xff, ((size_t)f->max_lid + 1) * sizeof(*job_of));
	for (uint32_t k = 0; k < j->num_jobs; k++)
		for (uint32_t i = 0; i < j->job[k].count; i++) {
			uint16_t lid = j->hosts.ep[j->job[k].first + i].lid;

			if (lid <= f->max_lid)
				job_of[lid] = k;
		}
	for (uint32_t i = 0; i < h->count; i++)
		if (job_of[h->ep[i].lid] != UINT32_MAX)
			count[job_of[h->ep[i].lid]]++;
	for (uint32_t k = 0; k < j->num_jobs; k++) {
		pr->job_start[k + 1] = pr->job_start[k] + count[k];
		if (count[k] > largest)
			largest = count[k];
		if (count[k] > 1)
			in_jobs += count[k];
		count[k] = pr->job_start[k];
	}
	for (uint32_t i = 0; i < h->count; i++) {
		uint32_t k = job_of[h->ep[i].lid];

		if (k != UINT32_MAX)
			pr->perm[count[k]++] = i;
	}
	pr->num_jobs = j->num_jobs;
	free(job_of);
	free(count);
	if (largest < 2) {
		cr_err("pattern jobs: no job has two hosts in the fabric");
		cr_pattern_stop(pr);
		return -1;
	}
	pr->n = largest;
	if (cr_shift_labels(pr))
		goto oom_only;
	pr->phases_total = largest - 1;
	pr->n = h->count;
	pr->max_flows = in_jobs;
	return 0;
oom:
	free(job_of);
	free(count);
oom_only:
	cr_err("out of memory preparing pattern jobs");
	cr_pattern_stop(pr);
	return -1;
}

size_t cr_jobs_pattern_phase(struct cr_pattern_run *pr, uint32_t i,
			     struct cr_flow *out, uint32_t *label)
{
	const struct cr_endpoint *ep = pr->h->ep;
	uint32_t k = pr->labels[i];
	size_t m = 0;

	*label = k;
	for (uint32_t j = 0; j < pr->num_jobs; j++) {
		const uint32_t *host = pr->perm + pr->job_start[j];
		uint32_t n = pr->job_start[j + 1] - pr->job_start[j], s;

		if (n < 2)
			continue;
		s = (k - 1) % (n - 1) + 1;
		for (uint32_t a = 0; a < n; a++) {
			const struct cr_endpoint *src = &ep[host[a]];
			const struct cr_endpoint *dst = &ep[host[(a + s) % n]];

			out[m].src_node = src->node;
			out[m].src_port = src->port;
			out[m].dst_lid = dst->lid;
			m++;
		}
	}
	return m;
}
