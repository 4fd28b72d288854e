/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Upper bounds on what any routing could give a traffic pattern: for each
 * phase, splittable multi-commodity flow over the fabric with the links'
 * data rates (as the estimator rates them) as capacities, solved as
 * linear programs by GLPK. Two bounds a phase:
 *   - avg: the largest average fraction of injection, each flow carrying
 *     at most its injection rate (bounds the estimator's average);
 *   - min: the largest fraction every flow can carry at once (maximum
 *     concurrent flow; bounds the estimator's minimum).
 * Any routing's max-min rates form a feasible unsplit flow with penalties
 * >= 1, so its figures are at most these.
 *
 * Host links become per-port constraints on the flows and parallel links
 * are merged. The LPs are solved in path form by column generation (rows:
 * flows, switch links, host ports; columns: paths priced by Dijkstra over
 * the link duals), which stays small where the edge formulation (one
 * commodity per source switch, (source switches x links) columns) makes
 * GLPK's simplex take minutes; that formulation is kept for cross-checks.
 * Linked into the command only (libglpk), not the plugin.
 */
#ifndef CROUTE_BOUND_H
#define CROUTE_BOUND_H

#include <croute/estimate.h>

struct cr_bound_phase {
	uint32_t label; /* as in the estimate */
	uint32_t flows;
	double avg_frac; /* bound on the phase's average fraction */
	double min_frac; /* bound on its smallest fraction */
	uint32_t rows, cols; /* of the avg LP (path form: final columns) */
	uint32_t rounds; /* of column generation, avg LP */
	double seconds;
};

struct cr_bound_result {
	char name[64]; /* "shift", "shift:8" */
	uint32_t hosts;
	uint32_t num_phases, phases_total;
	uint64_t flows;
	double avg_frac; /* flow-weighted mean of the phases' avg bounds */
	double min_frac; /* smallest of the phases' min bounds */
	double seconds;
	struct cr_bound_phase *phase;
};

/* Solve the edge formulation (one commodity per source switch), not
 * column generation over paths: slow, for cross-checks only. */
#define CR_BOUND_EDGE_LP 0x1

/*
 * Bounds one phase of n flows on e's fabric (e gives the link rates; its
 * routing is not used). 0, or -1 (logged) when the solver fails or memory
 * runs out. lp_path, when not NULL, receives the edge formulation of the
 * avg LP in CPLEX LP format, for cross-checks with another solver
 * (glpsol, clp).
 */
int cr_bound_phase(const struct cr_fabric *f, const struct cr_est *e,
		   const struct cr_flow *flows, size_t n, unsigned flags,
		   struct cr_bound_phase *out, const char *lp_path);

/* Every phase of p over hosts. NULL (logged) on error. */
struct cr_bound_result *cr_bound_run(const struct cr_fabric *f,
				     const struct cr_est *e,
				     const struct cr_pattern *p,
				     const struct cr_hosts *hosts);
void cr_bound_result_free(struct cr_bound_result *b);

#endif
