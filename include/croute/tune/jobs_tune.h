/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Routing for the jobs that run: the tables in use, tuned by the
 * improvement pass (include/croute/tune/optimize.h) on an objective whose
 * first term weighs the running jobs' traffic (the "jobs" pattern)
 * against the oblivious patterns that stand for the jobs still to come.
 * The plugin calls it off the sweep when the jobs change; `croute route
 * --jobs` calls it offline, so both give the same tables.
 */
#ifndef CROUTE_JOBS_TUNE_H
#define CROUTE_JOBS_TUNE_H

#include <croute/io/jobs.h>
#include <croute/tune/optimize.h>

/*
 * The jobs objective: the jobs on Slurm's order, weighed 0.8 against 0.2
 * of shift on 16 sampled phases of the default host order; then bisect
 * breaks ties. Random orders within each job and every phase of shift
 * cost the pass most of its moves at the default budget: on bench/jobs'
 * training mixes and bench/slurm's fabric this scores as high or higher
 * on the jobs term's own random orders (bench/jobs/README).
 */
#define CR_JOBS_OBJECTIVE_DEFAULT "jobs:avg*0.8,shift:16:avg*0.2,bisect:avg@8"
/* The jobs term alone: what the gain is measured on. */
#define CR_JOBS_TERM "jobs:avg@4"
/*
 * The other starting points tried, as cr-auto's candidates name them:
 * unlayered engines whose tables need no SL of their own.
 */
#define CR_JOBS_BASES_DEFAULT \
	"minhop,minhop+ps,minhop+glob,updn,updn+ps,updn+glob,ftree"
/*
 * The budget's unit: the pass's work (cr_est_inc_work) that one core
 * does in about a second of CPU on 256 hosts (bench/slurm/tuned.sh's
 * fabric and jobs), so that budget B is about B seconds of CPU there;
 * cr-auto's CR_OPT_WORK_PER_S was calibrated on smaller phases. Work, not
 * time: the same tables under any load.
 */
#define CR_JOBS_WORK_PER_S 20e6
/*
 * Seconds of the pass's CPU (CR_JOBS_WORK_PER_S a second): the shortest
 * whole budget, so that a job starts on its routes within seconds; a
 * prolog's wait grows with how crowded the SM host is (bench/slurm).
 */
#define CR_JOBS_BUDGET_DEFAULT 1.0
/*
 * Seconds of CPU (the same unit) of the refine stage: the pass goes on
 * from the first stage's tables, which the plugin installs first, so that
 * a job starts on its routes within seconds and gets the better ones
 * later. Chosen on bench/jobs' training mixes (bench/jobs/README).
 */
#define CR_JOBS_REFINE_DEFAULT 10.0

/* The tables in use and how they were made. */
struct cr_jobs_start {
	const struct cr_fabric *f;
	/* the engine that made r; cr-auto: its winner (by->auto_winner) */
	const struct cr_engine *e;
	const struct cr_options *o;
	const struct cr_routing *r;
	const struct cr_byproducts *by;
};

struct cr_jobs_tune_params {
	const char *objective; /* NULL: CR_JOBS_OBJECTIVE_DEFAULT */
	double budget; /* <= 0: CR_JOBS_BUDGET_DEFAULT */
	const struct cr_stop *stop; /* gives up when it says so; NULL */
	/*
	 * Candidates (cr-auto's names) routed afresh as other starting
	 * points; NULL: CR_JOBS_BASES_DEFAULT; "": the tables in use only
	 */
	const char *bases;
	/*
	 * The refine stage's budget (CR_JOBS_REFINE_DEFAULT is the
	 * commands' and the plugin's default); 0: none, the first stage's
	 * tables are the answer
	 */
	double refine;
};

struct cr_jobs_gain {
	/* CR_JOBS_TERM on the tables in use and on the tuned ones */
	double jobs_before, jobs_after;
	/* shift:avg on the default host order, the same two */
	double shift_before, shift_after;
	double gain; /* jobs_after / jobs_before - 1 */
	uint64_t churn; /* LFT entries that differ */
	unsigned moves; /* the pass's moves kept */
};

/*
 * Tunes for jobs into *out (allocated; the caller frees it) and fills
 * *g. The start is the best on the objective of s->r and, when s->r has
 * no SL but 0, of the bases (t->bases) that are complete, free of loops
 * and credit loops and keep every SL 0; ties keep s->r. The pass then
 * climbs from it, keeping its engine's guarantees and every SL (moves
 * that would re-layer are refused). So *out is never below s->r nor any
 * qualifying base on the objective, and its SLs are s->r's. Jobs with
 * no job of two hosts leave *out equal to s->r, gain 0. Deterministic:
 * the pass's work budget, not the clock, bounds it. 0; -1 (logged) on
 * error; -2 (logged) when it gave up (t->stop), *out then NULL.
 * With t->refine above 0, the refine stage (cr_jobs_refine()) follows the
 * first, and *out and *g are its.
 */
int cr_jobs_tune(const struct cr_jobs_start *s, const struct cr_jobs *jobs,
		 const struct cr_jobs_tune_params *t, struct cr_routing **out,
		 struct cr_jobs_gain *g);

/*
 * What the refine stage goes on from: the first stage's tables, engine,
 * by-products and objective. Tied to the cr_jobs_start and jobs it was
 * made for, which must outlive it.
 */
struct cr_jobs_stage;

/*
 * The first stage alone (t->refine is not looked at), as cr_jobs_tune()
 * with t->refine 0 gives it; when stage is not NULL, *stage is what
 * cr_jobs_refine() goes on from (allocated; NULL when no job has two
 * hosts: nothing to refine). Returns as cr_jobs_tune().
 */
int cr_jobs_tune_first(const struct cr_jobs_start *s,
		       const struct cr_jobs *jobs,
		       const struct cr_jobs_tune_params *t,
		       struct cr_routing **out, struct cr_jobs_gain *g,
		       struct cr_jobs_stage **stage);
/*
 * The refine stage: the pass again from the first stage's tables, on its
 * objective, for t->refine (> 0) of budget, t->stop as the first stage's.
 * *out and *g as cr_jobs_tune() (gain and churn against the tables in
 * use, moves of both stages): never below the first stage's tables on the
 * objective, same SLs. The same to the bit as cr_jobs_tune() with that
 * refine.
 */
int cr_jobs_refine(const struct cr_jobs_stage *st,
		   const struct cr_jobs_tune_params *t, struct cr_routing **out,
		   struct cr_jobs_gain *g);
void cr_jobs_stage_free(struct cr_jobs_stage *st);

#endif
