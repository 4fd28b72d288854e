/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Traffic patterns (shift, bisect, alltoall, fanin, flows files,
 * rail-ring) and the flows they are made of. The estimator runs them
 * (estimate.h); the phase generator is internal to the core
 * (src/core/estimate/phases.h).
 */
#ifndef CROUTE_PATTERN_H
#define CROUTE_PATTERN_H

#include <croute/model/hosts.h>

enum cr_pattern_kind {
	CR_PAT_SHIFT, /* phase k: host i sends to host i + k mod N */
	CR_PAT_BISECT, /* random perfect matchings, both directions */
	CR_PAT_ALLTOALL, /* one phase, every host to every other */
	CR_PAT_FANIN, /* k hosts to one, then that one to the k */
	CR_PAT_FLOWS, /* one phase read from a file */
	CR_PAT_RAIL_RING, /* one phase: each rail's servers in a ring */
	/*
	 * shift within each running job, all jobs at once: phase k, job
	 * host i sends to job host i + k mod its size (k taken mod size - 1
	 * in jobs smaller than the largest); hosts in no job send nothing
	 */
	CR_PAT_JOBS,
};

struct cr_jobs;

struct cr_pattern {
	enum cr_pattern_kind kind;
	/*
	 * shift: phases to sample (0: all N - 1); bisect: matchings (0: 10);
	 * fanin: senders (0: min(16, N - 1)); alltoall: destinations a host
	 * (0: all N - 1).
	 */
	uint32_t count;
	uint32_t root; /* fanin: the receiver's index in the hosts */
	uint64_t seed; /* shift sample, bisect matchings */
	char *path; /* flows: the file (owned) */
	/*
	 * jobs: the running jobs (not owned; include/croute/io/jobs.h). A
	 * job's hosts take the order they have in the hosts the pattern
	 * runs on, so a random order of the jobs' hosts is a random order
	 * within each job.
	 */
	const struct cr_jobs *jobs;
};

/*
 * "shift", "shift:K", "bisect", "bisect:R", "alltoall", "alltoall:K" (each
 * host to K others drawn with the seed, all at once), "fanin",
 * "fanin:K", "flows:FILE", "rail-ring", "jobs", "jobs:K" (K phases
 * sampled; the jobs are attached by the caller). seed starts at 1. -1 (logged) on
 * error.
 */
int cr_pattern_parse(const char *spec, struct cr_pattern *p);
/*
 * A comma-separated list of those ("shift,bisect"); *pats is allocated.
 * Returns the count, or -1 (logged, nothing allocated).
 */
int cr_pattern_list_parse(const char *list, struct cr_pattern **pats);
void cr_pattern_release(struct cr_pattern *p);
void cr_pattern_list_free(struct cr_pattern *pats, int n);
const char *cr_pattern_kind_name(enum cr_pattern_kind kind);

struct cr_flow {
	uint32_t src_node; /* a CA or router */
	uint8_t src_port;
	uint16_t dst_lid;
};

/* Reads a flows file ("src dst" per line). Errors name file:line. */
int cr_flows_read(const struct cr_fabric *f, const char *path,
		  struct cr_flow **flows, size_t *n);

/*
 * A pattern's phases one at a time, as cr_est_run() runs them: for tools
 * that score phases their own way (croute bound, the optimizer). The
 * pattern and hosts must outlive the iterator. NULL (logged) on error.
 */
struct cr_phases;
struct cr_phases *cr_phases_start(const struct cr_fabric *f,
				  const struct cr_pattern *p,
				  const struct cr_hosts *hosts);
uint32_t cr_phases_count(const struct cr_phases *ph); /* phases to run */
uint32_t cr_phases_total(const struct cr_phases *ph); /* in the pattern */
size_t cr_phases_max_flows(const struct cr_phases *ph);
/* Writes phase i's flows (max_flows at most) and its label; the count. */
size_t cr_phases_get(struct cr_phases *ph, uint32_t i, struct cr_flow *out,
		     uint32_t *label);
void cr_phases_stop(struct cr_phases *ph);

#endif
