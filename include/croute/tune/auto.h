/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-auto: the contention estimator picks the routing. Each candidate (an
 * engine, a set of port-selection toggles and, for cr-updn, a root set)
 * routes the fabric; cr_check() applies the deadlock rule; the estimator
 * scores the ones that qualify on an objective (cr_objective); the best
 * is installed. doc/design.md, "cr-auto", gives the rules.
 *
 * The objective is also what the optimizer (croute_optimize) improves, so
 * its parser is public.
 */
#ifndef CROUTE_AUTO_H
#define CROUTE_AUTO_H

#include <croute/io/conf.h>
#include <croute/route/engine.h>
#include <croute/estimate/estimate.h>
#include <croute/model/routing.h>

/* ---- objectives ------------------------------------------------------- */

enum cr_stat {
	CR_STAT_AVG, /* average flow rate, fraction of injection */
	CR_STAT_MIN, /* the worst flow */
};

struct cr_objective_term {
	struct cr_pattern pat;
	enum cr_stat stat;
	double tol; /* "~N%": scores this close (relative) tie; 0: exact */
	/*
	 * "@K": also on K random host orders (0: the hosts' own order
	 * only); the term is the mean over the own order and the K, or
	 * with ":worst" the lowest of them.
	 */
	uint32_t orders;
	bool worst;
	/*
	 * "*W": the terms with a weight make the first of them one score,
	 * their weighted mean (sum of W_i s_i over sum of W_i); the others
	 * keep their own score for the ties. 0: no weight.
	 */
	double weight;
};

/* Terms in order: the first decides, the next ones break ties. */
struct cr_objective {
	struct cr_objective_term *terms;
	unsigned num_terms;
	/*
	 * When set, shift (all phases asked) samples as many phases as keep
	 * its flows below this (at least 16); 0: as the report samples.
	 */
	uint64_t max_flows;
	/*
	 * When set, shift (all phases asked) samples exactly this many
	 * phases (cr-auto sizes it to its budget); wins over max_flows.
	 */
	uint32_t shift_phases;
	/* the random orders of "@K" terms: cr_hosts_random_order()'s seed */
	uint64_t order_seed;
	/*
	 * The hosts' own order: a host list file (cr_hosts_read(), read
	 * again at each run: croute_auto_hosts, a scheduler's order), or
	 * NULL for the default order (cr_hosts_default()).
	 */
	const char *hosts_file;
	/*
	 * Without a file: the own order is the rail order of the default
	 * one (cr_hosts_rail()), on fabrics of multi-HCA servers.
	 */
	bool rail_order;
	/*
	 * The running jobs a "jobs" term scores (include/croute/io/jobs.h;
	 * not owned): that term runs on the jobs' hosts, Slurm's order its
	 * own, "@K" random orders within each job.
	 */
	const struct cr_jobs *jobs;
	/*
	 * How flows use their port's LIDs at LMC > 0 (croute_paths), and
	 * at most how many (0: all): the estimator's path model.
	 */
	enum cr_est_paths paths;
	uint32_t lanes;
};

/*
 * "TERM[,TERM...]", TERM "PATTERN[:STAT][@K[:worst]][*W][~N%]": PATTERN
 * as cr_pattern_parse() reads it (shift, shift:K, bisect:R, alltoall,
 * fanin:K, flows:FILE, jobs), STAT avg or min (avg when left out); "*W"
 * (0 < W <= 1000) a weight (struct cr_objective_term); "@K"
 * (1 <= K <= CR_OBJECTIVE_MAX_ORDERS; not for flows) scores the pattern
 * on the hosts' own order and on K random orders and takes the mean of
 * the K + 1, ":worst" their lowest; "~N%" (0 <= N <= 50) makes scores
 * within N% of each other a tie, for the next term to break. order_seed
 * starts at 1. -1 (logged, naming what) on error.
 */
int cr_objective_parse(const char *spec, const char *what,
		       struct cr_objective *obj);
#define CR_OBJECTIVE_MAX_ORDERS 64
void cr_objective_release(struct cr_objective *obj);

/*
 * Scores routing r on every term into score[] (num_terms entries), the
 * hosts in the default order (cr_hosts_default), shift's phases sampled
 * as the report samples them on large fabrics. The same estimator as the
 * report. 0, or -1 (logged).
 */
int cr_objective_score(const struct cr_fabric *f, const struct cr_routing *r,
		       const struct cr_objective *obj,
		       const struct cr_hosts *hosts, double *score);

/*
 * Which samples a score is taken on. Choices (candidates, moves) are made
 * on the training samples; acceptance also asks the held-out ones, drawn
 * with other seeds, not to drop, so that a routing tuned to the samples
 * it saw is not installed when it loses on the ones it did not.
 */
enum cr_score_set {
	CR_SCORE_TRAIN, /* cr_objective_score(): own order, @K of order_seed */
	CR_SCORE_OWN, /* the hosts' own order alone: "@K" left out */
	/*
	 * other seeds: the patterns' sampled phases and matchings, and for
	 * "@K" terms K other random orders without the own one (a term
	 * with every phase of a known order has nothing to hold out)
	 */
	CR_SCORE_HELDOUT,
};
int cr_objective_score_set(const struct cr_fabric *f,
			   const struct cr_routing *r,
			   const struct cr_objective *obj,
			   const struct cr_hosts *hosts, enum cr_score_set set,
			   double *score);
/*
 * The hosts' own order the objective scores on: obj->hosts_file's, else
 * the default order. NULL (logged, naming file and line) on error.
 */
struct cr_hosts *cr_objective_hosts(const struct cr_fabric *f,
				    const struct cr_objective *obj);
/*
 * The hosts term i runs on: the jobs' hosts for a "jobs" term with jobs
 * attached, else hosts.
 */
const struct cr_hosts *cr_objective_term_hosts(const struct cr_objective *obj,
					       unsigned i,
					       const struct cr_hosts *hosts);
/* Folds the weighted terms into the first of them (see "*W"). */
void cr_objective_blend(const struct cr_objective *obj, double *score);
/* Whether a term has "@K" random orders. */
bool cr_objective_has_orders(const struct cr_objective *obj);
/*
 * Whether CR_SCORE_HELDOUT differs from training on these hosts: "@K"
 * orders, bisect's matchings or a sample of shift's phases.
 */
bool cr_objective_holds_out(const struct cr_objective *obj,
			    const struct cr_hosts *hosts);

/*
 * Term i's pattern as cr_objective_score() runs it on these hosts (shift
 * sampled on large fabrics): for tools that score it their own way.
 */
void cr_objective_pattern(const struct cr_objective *obj, unsigned i,
			  const struct cr_hosts *hosts, struct cr_pattern *p);

/* -1, 0, 1: a worse, tied with, better than b (lexicographic). */
int cr_objective_cmp(const double *a, const double *b, unsigned n);
/* The same, with each term's tolerance. */
int cr_objective_cmp_tol(const struct cr_objective *obj, const double *a,
			 const double *b);

/* ---- cr-auto ---------------------------------------------------------- */

#define CR_AUTO_CANDIDATES_DEFAULT "all"
/*
 * cr-auto's objective when none is given: the optimizer's. Candidates
 * within 1% of each other on shift (a sampled estimate tells them apart
 * no better) are told apart by bisect.
 */
#define CR_AUTO_OBJECTIVE_DEFAULT CR_OBJECTIVE_DEFAULT
/*
 * With a known host order (croute_auto_hosts): shift on that order, the
 * traffic named; bisect and the sampled all-to-all still stand for the
 * jobs not in that order.
 */
#define CR_AUTO_OBJECTIVE_HOSTS "shift:avg~1%,bisect:avg@8,alltoall:avg"
#define CR_AUTO_BUDGET_DEFAULT 5.0
/*
 * The improve step's budget with a known host order (croute_auto_hosts):
 * there the pass's gains are real, not fitted to samples, and they keep
 * growing with its work; the step runs off the sweep.
 */
#define CR_AUTO_BUDGET_HOSTS_DEFAULT 160.0
/* cr-auto's shift sample: about this many flows per candidate. */
#define CR_AUTO_MAX_FLOWS 65536

/* The winner the improve hook works on, and the hook's limits. */
struct cr_auto_pass {
	const struct cr_fabric *f;
	const struct cr_options *o; /* the winner's; o->stop */
	const struct cr_engine *e; /* the winner's engine */
	const struct cr_objective *obj; /* cr-auto's */
	struct cr_routing *r; /* the winner's tables */
	const struct cr_byproducts *by; /* its by-products (roots) */
	double budget; /* the seconds of work it may take; 0: its own */
	bool kicks; /* may search past its first local optimum */
};

/*
 * Called on the winner before it is installed (the optimizer's hook):
 * may change p->r's LFTs, must keep the engine's guarantees (p->by:
 * cr-updn's roots). 0, or -1 to keep the winner as it was (p->r must
 * then be unchanged), CR_AUTO_IMPROVE_GAVE_UP (p->r unchanged too) when
 * it gave up (p->o->stop, or its own wall-clock guard): the improve step
 * then gives up whole, so that its result never depends on timing.
 * *spent: the seconds of budget work it did (or 0).
 */
#define CR_AUTO_IMPROVE_GAVE_UP (-2)
typedef int (*cr_auto_improve_fn)(const struct cr_auto_pass *p, void *arg,
				  double *spent);

/* What cr-auto reads beyond the engines' own options. */
struct cr_auto_conf {
	const char *candidates; /* NULL: CR_AUTO_CANDIDATES_DEFAULT */
	/* NULL: CR_AUTO_OBJECTIVE_DEFAULT, or with hosts ..._HOSTS */
	const char *objective;
	/* croute_auto_hosts: the order to tune for (NULL: the default) */
	const char *hosts;
	double budget; /* seconds; <= 0: cr_auto_budget()'s default */
	bool qos; /* layered candidates may qualify */
	/*
	 * The most VLs a candidate may use (croute_auto_max_vls); 0: no
	 * cap beyond cr-dfp's on a dragonfly+ and the fabric's.
	 */
	unsigned max_vls;
	bool allow_credit_loops;
	cr_auto_improve_fn improve; /* NULL: none */
	void *improve_arg;
	/*
	 * improve() gets what the candidates left of the budget
	 * (croute_auto_optimize, the plugin's and the command's default),
	 * not its own budget (croute_optimize).
	 */
	bool improve_rest;
	/*
	 * The improve step replaces the installed tables only when better
	 * by this (relative) on held-out samples; <= 0:
	 * CR_AUTO_THRESHOLD_DEFAULT
	 */
	double threshold;
	/*
	 * Shift's sample, for a caller that shows its own shift figures
	 * beside the ranking (compare --auto): phases 0 sizes it to the
	 * budget, UINT32_MAX is every phase; seed 0 keeps the pattern's.
	 */
	uint32_t shift_phases;
	uint64_t shift_seed;
	/* croute_paths: the path model the candidates are scored with */
	enum cr_est_paths paths;
	uint32_t lanes;
};

/*
 * The fast step's limit: twice cr-updn's routing work, plus this; it
 * plans to CR_AUTO_FAST_SHARE of it, leaving the rest to the import and
 * the install (which cr-updn's sweep has too) and to a machine slower
 * than the work estimates.
 */
#define CR_AUTO_FAST_EXTRA_S 0.25
#define CR_AUTO_FAST_SHARE 0.5
/*
 * The wall clock cuts the fast step's planned candidates only past this
 * many times its planned work: on a busy machine (runs 1.5x slower than
 * the estimates are common under load) the choice stays the plan's, so
 * the tables stay those of `croute route -e auto`; only a machine this
 * much slower makes it depend on timing, and the log says so.
 */
#define CR_AUTO_FAST_GUARD 4.0

/*
 * The cr-auto engine for the plugin and the command: reads the
 * configuration cr_auto_conf_use() gave its options (none: every
 * default), logs one line per candidate, leaves
 * the winner's by-products and the ranked table (by->auto_table) in its
 * by-products. Fails when no candidate qualifies.
 */
extern const struct cr_engine cr_auto_engine;

/*
 * Makes ac cr-auto's configuration in o (NULL: every default). o keeps
 * the pointer: ac must outlive the runs that use o.
 */
void cr_auto_conf_use(struct cr_options *o, const struct cr_auto_conf *ac);

/*
 * cr-auto in two steps, so that a subnet manager need not wait for the
 * second (cr_auto_engine runs both, one after the other).
 *
 * The fast step: the candidates that fit CR_AUTO_FAST_SHARE of twice
 * cr-updn's routing work on f plus CR_AUTO_FAST_EXTRA_S seconds (in work
 * units, so the choice depends on the fabric only; the wall clock only
 * guards it, logged); the best qualifying one goes into r and by. The
 * rest is left to the improve step, and logged. 0, or -1 (logged) when
 * none qualifies.
 */
int cr_auto_fast(const struct cr_fabric *f, const struct cr_options *o,
		 struct cr_routing *r, struct cr_byproducts *by);
/*
 * The improve step, on r and by as the fast step left them (installed):
 * every candidate the budget's work allows, then the improvement pass,
 * bounded in work only, so the result depends on the inputs only. It
 * replaces r and by when the result beats them by the threshold on
 * held-out samples (and, when nothing ranked it on those, is not worse
 * on training ones): 1; else 0 (r and by
 * unchanged). o->stop makes it give up whole: -1 (logged), r and by
 * unchanged, as on an error.
 */
int cr_auto_improve(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by);

/*
 * Whether the improve step on the tables the fast step left (by names
 * its winner) would route those tables again: its plan holds no other
 * candidate and no room for the pass. Then it need not run (it returns
 * 0 at once): the plugin keeps no copies for it. Logs nothing.
 */
bool cr_auto_improve_idle(const struct cr_fabric *f, const struct cr_options *o,
			  const struct cr_byproducts *by);

/*
 * The improve step's budget in seconds of work: croute_auto_budget, else
 * CR_AUTO_BUDGET_HOSTS_DEFAULT with croute_auto_hosts, else
 * CR_AUTO_BUDGET_DEFAULT.
 */
double cr_auto_budget(const struct cr_auto_conf *ac);

/*
 * Candidate name's engine (cr-auto's winner, by->auto_winner) into *e,
 * and o with its toggles into *co (sharing o's lists): how it was
 * routed, for croute_incremental to repair its tables. 0, or -1 when
 * name is no candidate.
 */
int cr_auto_candidate(const char *name, const struct cr_options *o,
		      const struct cr_engine **e, struct cr_options *co);

/* cr_engine_find(), plus "auto" / "cr-auto". */
const struct cr_engine *cr_engine_find_any(const char *name);

/* Checks a candidate list without a fabric: 0, or -1 (logged). */
int cr_auto_candidates_check(const char *list, const char *what);

#endif
