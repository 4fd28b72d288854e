/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Phase generation for the estimator: a pattern over a host order becomes
 * phases of concurrent flows, one phase at a time, so that memory holds
 * only one phase. Internal to the core.
 */
#ifndef CROUTE_PHASES_H
#define CROUTE_PHASES_H

#include <croute/estimate/pattern.h>

struct cr_pattern_run {
	const struct cr_pattern *p;
	const struct cr_hosts *h;
	uint32_t n; /* hosts */
	uint32_t num_phases;
	uint32_t phases_total; /* shift: N - 1 even when sampled */
	size_t max_flows; /* the largest phase */
	uint32_t *labels; /* shift: the k of each phase */
	uint32_t *perm; /* bisect: scratch permutation */
	uint32_t fan; /* fanin: senders; alltoall: destinations a host */
	uint32_t *ring_next; /* rail-ring: host i's receiver, or UINT32_MAX */
	uint32_t *job_start; /* jobs: perm[] of job j from job_start[j] */
	uint32_t num_jobs;
	struct cr_flow *file_flows;
	size_t num_file_flows;
};

/* -1 (logged) on error: bad flows file, fewer than two hosts, memory. */
int cr_pattern_start(struct cr_pattern_run *pr, const struct cr_fabric *f,
		     const struct cr_pattern *p, const struct cr_hosts *h);
/* Writes phase i's flows (at most max_flows) and its label; the count. */
size_t cr_pattern_phase(struct cr_pattern_run *pr, uint32_t i,
			struct cr_flow *out, uint32_t *label);
void cr_pattern_stop(struct cr_pattern_run *pr);
/* shift's phase labels for pr->n hosts: 1..n-1 or p->count of them */
int cr_shift_labels(struct cr_pattern_run *pr);
/* The jobs pattern (jobs_pattern.c); start frees what it took on error. */
int cr_jobs_pattern_start(struct cr_pattern_run *pr, const struct cr_fabric *f,
			  const struct cr_pattern *p, const struct cr_hosts *h);
size_t cr_jobs_pattern_phase(struct cr_pattern_run *pr, uint32_t i,
			     struct cr_flow *out, uint32_t *label);
/*
 * rail-ring's receiver of each host (next[i], UINT32_MAX for none), by the
 * rule in rail_ring.c. -1 out of memory (not logged).
 */
int cr_rail_ring_next(const struct cr_fabric *f, const struct cr_hosts *h,
		      uint32_t *next);

#endif
