/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The improvement pass (croute_optimize, --optimize): starting from an
 * engine's tables, it moves destination LIDs off the links that bound the
 * objective onto other paths legal for that engine, keeping a move only
 * when the estimator says the objective (cr_objective, as cr-auto judges)
 * improved. Never worse than its start, keeps the engine's guarantees
 * (checked with cr_check before and after), deterministic unless the
 * budget stops it (then logged). src/core/tune/optimize.c says how.
 */
#ifndef CROUTE_OPTIMIZE_H
#define CROUTE_OPTIMIZE_H

#include <croute/tune/auto.h>
#include <croute/route/engine.h>

#define CR_OPT_BUDGET_DEFAULT 5.0
/*
 * The budget is spent in work (cr_est_inc_work: path entries and flows
 * solved), CR_OPT_WORK_PER_S per second, the rate of one core of an idle
 * 2-core Debian 12 machine measured on the random and prod-tree fabrics of
 * bench/optimize. So a budget gives the same tables under any load; the
 * wall clock only makes a pass that runs CR_OPT_WALL_GUARD times over,
 * plus CR_OPT_WALL_SLACK seconds (so that a small budget on a slow build,
 * a sanitizer's say, is not stopped by the clock), give up: every move is
 * undone, never kept up to a point that depends on timing.
 */
#define CR_OPT_WORK_PER_S 50e6
#define CR_OPT_WALL_GUARD 4.0
#define CR_OPT_WALL_SLACK 2.0
/* Moves tried at most (the limit that does not depend on the machine). */
#define CR_OPT_MAX_EVALS 1000000

struct cr_opt_params {
	double budget; /* seconds; <= 0: CR_OPT_BUDGET_DEFAULT */
	unsigned max_extra_hops; /* min-hop and up/down: longer paths, 0 */
	unsigned max_evals; /* 0: CR_OPT_MAX_EVALS */
	/*
	 * Score on the hosts in node-description order (cr_hosts_default()),
	 * as cr-auto ranks its candidates, not in the engine's CA order.
	 */
	bool natural_hosts;
	/*
	 * Keep a move only when no term of the objective falls below its
	 * value at the start (cr-auto: its winner then stays at least as good
	 * as it was on every term; the first term only ever rises)
	 */
	bool pareto;
	bool no_kicks; /* the climb alone, no iterated local search */
	bool no_swap_memo; /* solve swaps known to fail again (tests) */
	/*
	 * Layered routings (cr-lash): a move that would close a credit loop
	 * is refused rather than kept by moving sources to another layer,
	 * so every path keeps its SL (running queue pairs keep theirs).
	 */
	bool keep_sls;
	/*
	 * the pass gives up (every move undone) when it says so; NULL:
	 * never; its deadline, when set, replaces the wall-clock guard
	 */
	const struct cr_stop *stop;
};

struct cr_opt_stats {
	double before, after; /* the first objective term */
	/*
	 * The same on held-out samples (cr_objective_holds_out()); after:
	 * the tables the pass reached, kept or not. tried: their first
	 * term on the training samples, kept or not.
	 */
	double held_before, held_after, tried;
	unsigned moves; /* kept */
	unsigned evals; /* moves tried */
	unsigned relayered; /* cr-lash: moves kept with sources re-layered */
	unsigned kicks; /* iterated local search: kicks tried */
	unsigned kicks_kept; /* kicks that led to better tables */
	double seconds;
	bool work_hit; /* stopped when the budget's work was done */
	uint64_t work; /* work units done (CR_OPT_WORK_PER_S a second) */
	bool budget_hit; /* gave up: wall clock or cr_opt_params.stop */
	bool reverted; /* a check failed after the pass: start restored */
};

void cr_opt_params_init(struct cr_opt_params *p);

/*
 * Improves r (routed by engine e on f, with by-products by: cr-updn's
 * roots, cr-ftree's CA order as the host order) on obj. Logs the
 * objective before and after, the moves and the time. 0 (r improved or
 * unchanged), or -1 (logged) on error, -2 (logged) when it gave up
 * (cr_opt_params.stop or the wall-clock guard), r then unchanged.
 */
int cr_optimize(const struct cr_fabric *f, const struct cr_engine *e,
		const struct cr_objective *obj, const struct cr_opt_params *p,
		struct cr_routing *r, const struct cr_byproducts *by,
		struct cr_opt_stats *st);

/*
 * cr-auto's improve hook; arg is a const struct cr_opt_params *, whose
 * budget a p->budget above 0 replaces.
 */
int cr_optimize_hook(const struct cr_auto_pass *p, void *arg, double *spent);

#endif
