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
 * Any routing's max-min rates form a feasible unsplit flow (every link on
 * a path, host links included, is shared up to its capacity; penalties
 * only lower a flow's cap), so its figures are at most these.
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

#include <croute/estimate/estimate.h>

/*
 * Which routings the bound covers. minimal: only switch-hop-minimal paths
 * (what cr-minhop, cr-lash and OpenSM's minhop take), the LPs restricted
 * to each destination switch's shortest-path DAG. unsplittable: each flow
 * on one path (any LFT routing is such a choice), a GLPK MIP per phase
 * for the avg bound, over the minimal paths, or with !minimal the simple
 * paths at most max_extra_hops longer than the fewest: it then bounds only
 * routings within that limit. The min bound stays the splittable one.
 */
struct cr_bound_opts {
	bool minimal;
	bool unsplittable;
	/*
	 * one routing for every phase: the avg bound from one LP over all
	 * phases in which each (source switch, destination LID) splits its
	 * flows in the same shares of the candidate paths in every phase
	 * (an LFT routing is the case of one path at share 1)
	 */
	bool one_routing;
	unsigned max_extra_hops;
	/*
	 * unsplittable: each flow on at most this many paths, each at most
	 * this share of its injection (a port's LIDs striped as estimate's
	 * split and indep models do); 0 or 1: one path
	 */
	unsigned lanes;
	double mip_seconds; /* per phase; 0: no limit */
	/*
	 * the statistics to solve (CR_BOUND_STAT_*), each its own LP a
	 * phase; one left out is NAN in the results. 0: both.
	 */
	unsigned stats;
	/*
	 * cr_bound_phase (not cr_bound_run): when not NULL, the edge
	 * formulation of the avg LP is written there in CPLEX LP format,
	 * for cross-checks with another solver (glpsol, clp)
	 */
	const char *lp_path;
	/*
	 * Called by cr_bound_run after each phase with the phases done and
	 * the pattern's count (a progress line); NULL: none.
	 */
	void (*on_phase)(void *arg, uint32_t done, uint32_t total);
	void *on_phase_arg;
};

/* Size limits of the MIP: candidate paths of one switch pair, and of one
 * phase (each a binary and a rate column). */
#define CR_BOUND_MIP_MAX_PATHS 512
#define CR_BOUND_MIP_MAX_COLS 40000
/* --one-routing: candidate (flow, path) pairs over all phases */
#define CR_BOUND_JOINT_MAX_COLS 1000000

#define CR_BOUND_STAT_AVG 0x1
#define CR_BOUND_STAT_MIN 0x2

void cr_bound_opts_init(struct cr_bound_opts *o); /* all paths, split */
/* o's statistics, both when o is NULL or its stats 0 */
unsigned cr_bound_stats(const struct cr_bound_opts *o);

struct cr_bound_phase {
	uint32_t label; /* as in the estimate */
	uint32_t flows;
	double avg_frac; /* bound on the phase's average fraction */
	double min_frac; /* bound on its smallest fraction */
	uint32_t rows, cols; /* of the avg LP (path form: final columns) */
	uint32_t rounds; /* of column generation, avg LP */
	/* unsplittable: the MIP's best routing found (a lower figure),
	 * whether avg_frac is its proved optimum, its binaries and nodes */
	double incumbent_frac;
	bool proved;
	uint32_t binaries, nodes;
	double seconds;
};

struct cr_bound_result {
	char name[64]; /* "shift", "shift:8" */
	uint32_t hosts;
	uint32_t num_phases, phases_total;
	uint64_t flows;
	double avg_frac; /* flow-weighted mean of the phases' avg bounds */
	double min_frac; /* smallest of the phases' min bounds */
	double incumbent_frac; /* unsplittable: the same mean of incumbents */
	/* one_routing: the per-phase bounds' mean (avg_frac is the one LP's
	 * dual bound) and the LP's own objective */
	double phase_avg_frac, joint_primal;
	uint32_t unproved; /* unsplittable: phases not solved to optimality */
	double seconds;
	struct cr_bound_phase *phase;
};

/* Solve the edge formulation (one commodity per source switch, or with
 * minimal per destination switch), not column generation over paths:
 * slow, for cross-checks only. */
#define CR_BOUND_EDGE_LP 0x1

/*
 * Bounds one phase of n flows on e's fabric (e gives the link rates; its
 * routing is not used); o NULL: all paths, splittable. 0, -1 (logged)
 * when the solver fails or memory runs out, or -2 (logged) when the MIP
 * would exceed its size limits.
 */
int cr_bound_phase(const struct cr_fabric *f, const struct cr_est *e,
		   const struct cr_flow *flows, size_t n, unsigned flags,
		   const struct cr_bound_opts *o, struct cr_bound_phase *out);

/*
 * Whether the MIP of o fits every phase of p: 0, or -1 with a message
 * saying which limit is passed (-2 is not used: the caller exits 2).
 */
int cr_bound_mip_check(const struct cr_fabric *f, const struct cr_est *e,
		       const struct cr_pattern *p, const struct cr_hosts *hosts,
		       const struct cr_bound_opts *o);

/*
 * The one-routing LP over every phase of p (o->minimal, max_extra_hops):
 * res->avg_frac its dual bound, res->joint_primal its objective, as
 * fractions. 0 or -1.
 */
int cr_bound_joint(const struct cr_fabric *f, const struct cr_est *e,
		   const struct cr_pattern *p, const struct cr_hosts *hosts,
		   const struct cr_bound_opts *o, struct cr_bound_result *res);

/* Every phase of p over hosts (o as above). NULL (logged) on error. */
struct cr_bound_result *cr_bound_run(const struct cr_fabric *f,
				     const struct cr_est *e,
				     const struct cr_pattern *p,
				     const struct cr_hosts *hosts,
				     const struct cr_bound_opts *o);
void cr_bound_result_free(struct cr_bound_result *b);

#endif
