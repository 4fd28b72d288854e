/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-auto's inside, shared by its candidates and plan (auto.c) and its
 * improve step (auto_improve.c).
 */
#ifndef CROUTE_AUTO_INT_H
#define CROUTE_AUTO_INT_H

#include <croute/auto.h>
#include <croute/clock.h>

#define WORK_PER_S 1e9
/* Less of the budget than this is not worth the pass's setup. */
#define AUTO_PASS_MIN_S 0.05
/*
 * The share of the budget's rest the pass's work may take: its count
 * leaves out its setup (holding every phase), so a counted second takes
 * longer than a second (the pass's seconds against its work are in the
 * log of bench/auto/run.sh "gen:torus 4 4 4 --hosts 2"); this keeps the
 * whole run near its budget.
 */
#define AUTO_PASS_SHARE 0.7

struct cand {
	const struct cr_engine *e;
	bool ps, rgs, bal, glob, first;
	enum cr_updn_roots roots;
	bool roots_file; /* updn: root_guid_file's roots */
	char name[48];
	/*
	 * the fast step's only candidate: checked, not scored (nothing to
	 * compare it with; on the largest fabrics scoring takes longest)
	 */
	bool no_score;
	/* results */
	bool ran, routed, ok;
	char why[160];
	double *score;
	uint64_t credit_loops;
	double route_s, check_s, score_s, total_s;
};

/* One step's state (the fast step or the improve step). */
struct run {
	const struct cr_fabric *f;
	const struct cr_options *o;
	const struct cr_auto_conf *ac;
	/*
	 * The fast step: the sweep's budget, the wall clock guarding it.
	 * The improve step: no wall-clock cut, it gives up whole instead
	 * (o->stop).
	 */
	bool fast;
	bool gave_up;
	/* no host file, and servers of several HCAs: the rail order */
	bool rails;
	bool quiet; /* plans only: no log lines */
	double t0, budget, budget_work;
	struct cr_objective obj;
	struct cr_hosts *hosts;
	struct cand *v;
	int n;
	double *scores, *work;
	bool *planned;
	unsigned *order;
	double work_done; /* the planned work of the candidates run */
	unsigned wall_cuts;
	struct cr_routing *best; /* the winner's routing so far */
	struct cr_byproducts best_by, cand_by;
	int win; /* the winner's index; -1: none yet */
	double improve_s; /* the improvement pass's seconds */
};

void auto_cand_options(const struct cand *c, struct cr_options *o);
void auto_run_one(const struct cr_fabric *f, const struct cr_options *base,
		  const struct cr_auto_conf *ac, const struct cr_objective *obj,
		  const struct cr_hosts *hosts, struct cand *c,
		  struct cr_routing **out, struct cr_byproducts *by);
/* The scores of every term, "a/b/c", for the log. */
void auto_scores_text(const struct cr_objective *obj, const double *sc,
		      char *buf, size_t len);
/* The improvement pass on a->best (auto_improve.c). */
void auto_improve(struct run *a);
/*
 * Whether a's winner beats the installed tables was (routed on a->f) by
 * the threshold on held-out samples without losing on training ones:
 * 1 yes, 0 no (both logged), -1 (logged) on error. *score: the first
 * term of the tables that stay, on the training samples.
 */
int auto_accept(const struct run *a, const struct cr_routing *was,
		double *score);

#endif
