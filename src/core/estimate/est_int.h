/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The estimator's context, shared by estimate.c (one phase) and
 * est_run.c (patterns and their results). Internal to the core.
 */
#ifndef CROUTE_EST_INT_H
#define CROUTE_EST_INT_H

#include <croute/estimate/estimate.h>

struct cr_maxmin;

struct cr_est {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	struct cr_est_params par;
	uint32_t *base; /* node -> its port 0's link number */
	uint32_t num_links;
	double *cap; /* Mb/s; 0 for ports without a cable */
	/* the walk's working set, flat: no pointer chasing per hop */
	uint32_t *far; /* link -> node at its end, or CR_NO_NODE */
	uint8_t *far_port; /* link -> port at its end */
	uint8_t *is_switch; /* node -> 1 for switches */

	/* per node, valid when stamp == gen */
	uint32_t gen;
	uint32_t *stamp;
	uint32_t *ds, *de, *phi; /* Δs, Δe, Φ */
	uint32_t *gfill; /* destination groups in by_dst[] */
	uint32_t *pair_stamp, *pair_cnt; /* Ω of (sender, group) */
	uint32_t pair_gen;
	double *pout;

	/*
	 * per phase, grown to the largest phase; after cr_est_phase() they
	 * hold its flows' detail (fe) and paths (path[start[i]..]) until
	 * the next call
	 */
	size_t alloc;
	uint32_t *start; /* n + 1 */
	uint32_t *dst; /* destination node; CR_NO_NODE: not counted */
	uint32_t *by_dst;
	uint32_t *dsts; /* distinct destination nodes */
	double *bound, *rate;
	struct cr_flow_est *fe;
	uint32_t *path;
	size_t path_alloc;

	struct cr_maxmin *mm;

	/* multipath phases (est_multi.c), allocated on first use */
	double *share; /* path-parallel: the flow's share on the link */
	size_t share_alloc;
	uint32_t *lstamp, *lcnt; /* per link: the current flow's lanes */
	uint32_t lgen;
	uint32_t *lane_path; /* one flow's lanes, walked */
	uint32_t *lane_start;
	double *lane_bneck;
	struct cr_est_sub *sub; /* indep: one flow per lane */
};

/*
 * The indep model's flows: one per lane, with their own paths; grown to
 * the largest phase.
 */
struct cr_est_sub {
	size_t alloc, path_alloc;
	uint32_t *start, *path, *owner;
	double *bound, *rate;
};

/* Room for n flows, and for need path entries (not logged). */
int cr_est_reserve_flows(struct cr_est *e, size_t n);
int cr_est_reserve_path(struct cr_est *e, size_t need);

/* The penalty model's degrees and bounds of a phase (estimate.c). */
void cr_est_degrees(struct cr_est *e, const struct cr_flow *flows, size_t n);

/*
 * cr_est_phase() for the split and indep path models (est_multi.c):
 * e->fe, e->start and e->path as cr_est_phase() leaves them, a flow's
 * path being the union of its lanes' links.
 */
long cr_est_phase_multi(struct cr_est *e, const struct cr_flow *flows,
			size_t n);
void cr_est_multi_free(struct cr_est *e);

/*
 * One flow's walk through the LFTs, as cr_est_phase() does it: its links
 * appended to path[*used..] (room for num_switches + 2), its detail in
 * out. The destination node, or CR_NO_NODE when it does not arrive.
 */
uint32_t cr_est_walk(struct cr_est *e, const struct cr_flow *fl,
		     struct cr_flow_est *out, uint32_t *path, size_t *used);

/*
 * Grows count parallel arrays (arr[k] points at array k's pointer, its
 * elements size[k] bytes) to room for need elements each, one capacity
 * *cap for all. 0, or -1 out of memory (not logged) with *cap unchanged:
 * every array still holds at least *cap elements.
 */
int cr_est_grow_parallel(void *const arr[], const size_t size[], size_t count,
			 size_t *cap, size_t need);

#endif
