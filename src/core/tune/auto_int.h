/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-auto's inside, shared by its candidates and plan (auto.c) and its
 * improve step (auto_improve.c).
 */
#ifndef CROUTE_AUTO_INT_H
#define CROUTE_AUTO_INT_H

#include <croute/tune/auto.h>
#include <croute/model/clock.h>
#include <croute/route/engine.h>

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

/*
 * How many of the best on training samples the improve step scores on
 * held-out samples to choose the winner: a few, since each costs a
 * scoring of every term and the plan counts that work.
 */
#define AUTO_FINALISTS 3
/*
 * With the host order unknown, the held-out scorings take "@K" terms on
 * up to AUTO_HELD_MULT_MAX x K orders, while those scorings cost at most
 * AUTO_HELD_SHARE of the budget: on a small fabric a bisect mean over K
 * orders moves more from one seed to the next than the finalists
 * differ, and the pass's gains there mostly do not carry to other
 * orders. With a known order the pass's gains are real: it keeps the
 * budget.
 */
#define AUTO_HELD_MULT_MAX 8
#define AUTO_HELD_SHARE 0.4

struct cand {
	const struct cr_engine *e;
	bool ps, rgs, bal, glob, first, rr;
	enum cr_updn_roots roots;
	bool roots_file; /* updn: root_guid_file's roots */
	/*
	 * "all": tried on a dragonfly+ only; not_here, refused before any
	 * work because the fabric is not one.
	 */
	bool dfly_only, not_here;
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
	/*
	 * The finalists (the best few on training samples): their scores
	 * on held-out samples, and fin, their rank on those (1: the
	 * winner); 0: not a finalist. pre: the scores before the pass.
	 */
	double *held, *pre;
	unsigned fin;
	uint64_t credit_loops;
	unsigned vls; /* the VLs its routing uses (1 without layers) */
	/* cr-dfp chose path loads itself (cr_byproducts.path_loads) */
	bool path_loads;
	/*
	 * 1 + the index of the earlier candidate whose tables this one
	 * would route again: its results are that one's, not routed
	 * again (auto_same.c); 0: none.
	 */
	int same_as;
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
	/*
	 * The best few on training samples so far, best first, with their
	 * routings: the held-out samples choose among them
	 * (auto_rank.c). nfin: how many the step keeps (1: training
	 * alone chooses).
	 */
	unsigned nfin, kept;
	int fin_idx[AUTO_FINALISTS];
	struct cr_routing *fin_r[AUTO_FINALISTS];
	struct cr_byproducts fin_by[AUTO_FINALISTS];
	double held_work; /* the plan's work for the held-out scorings */
	/*
	 * The objective the held-out scorings use: obj with the orders of
	 * its "@K" terms times held_mult (held_terms: its own copy, NULL
	 * when held_mult is 1 and it shares obj's).
	 */
	struct cr_objective held_obj;
	struct cr_objective_term *held_terms;
	unsigned held_mult;
	double *held_scores, *pre_scores;
	bool passed; /* the pass ran on the winner */
	double *win_held; /* the winner's held-out scores as installed */
	double improve_s; /* the improvement pass's seconds */
	/*
	 * On a dragonfly+, cr-dfp's VLs (0: none yet, or another fabric)
	 * and its name: no candidate after it may use more (vl_limit()).
	 */
	unsigned vl_cap;
	const char *vl_cap_by;
};

/* auto_cands.c: list ("all" or NULL: every candidate) -> *out; count. */
int auto_parse_candidates(const char *list, const char *what,
			  bool have_root_file, struct cand **out);
/* Marks not_here the candidates the fabric rules out; -1 out of memory. */
int auto_mark_not_here(const struct cr_fabric *f, struct cand *v, int n);
/* Stable: ftree first, then the layered candidates, then the rest. */
void auto_layered_first(struct cand *v, int n);
/* cr-dfp before the first cr-lash, whose VLs it caps (vl_limit()). */
void auto_dfp_before_lash(struct cand *v, int n);
void auto_cand_options(const struct cand *c, struct cr_options *o);
/*
 * auto_report.c: candidate indices best first (auto_cmp() with thr), the
 * winner first
 */
void auto_rank_candidates(const struct cand *v, unsigned n,
			  const struct cr_objective *obj, double thr, int win,
			  unsigned *order);
/*
 * a's ranked table (a->order, from auto_rank_candidates()), logged row by
 * row; returned for croute-auto.dump (NULL out of memory). secs: the
 * step's seconds so far.
 */
char *auto_report(const struct run *a, double secs);
/* auto.c: routes, checks and scores candidate c of a (*out: its routing) */
void auto_run_one(const struct run *a, struct cand *c, struct cr_routing **out,
		  struct cr_byproducts *by);
/* The scores of every term, "a/b/c", for the log. */
void auto_scores_text(const struct cr_objective *obj, const double *sc,
		      char *buf, size_t len);
/*
 * -1, 0, 1: a worse than, within thr of, better than b (n terms, each
 * relative to b's), the first term beyond thr deciding.
 */
int auto_cmp_thr(const double *a, const double *b, unsigned n, double thr);
/* The improvement threshold of ac (its default where ac gives none). */
double auto_threshold(const struct cr_auto_conf *ac);
/*
 * The comparison every choice between two candidates uses: scores a on
 * va VLs against b on vb (0 counts as 1). Within thr of each other on
 * every term, fewer VLs is better; else cr_objective_cmp_tol(). 1: a
 * better, -1: b better, 0: a tie.
 */
int auto_cmp(const struct cr_objective *obj, double thr, const double *a,
	     unsigned va, const double *b, unsigned vb);
/*
 * Keeps candidate i's routing r (and *by) among the finalists when it is
 * one (better than a kept one on training by auto_cmp(); ties keep
 * the list order): a->win is the best of them. Takes r and *by.
 */
void auto_keep(struct run *a, int i, struct cr_routing *r,
	       struct cr_byproducts *by);
/* Where auto_keep() would put scores sc on vls VLs (>= cap: not kept). */
unsigned auto_keep_pos(const struct run *a, const double *sc, unsigned vls);
/*
 * auto_same.c: when candidate i would route the tables of an earlier
 * one again, takes that one's results (and a copy of its routing where
 * it is kept) instead of routing: true. False: route it.
 */
bool auto_take_same(struct run *a, int i);
/*
 * Scores the finalists on held-out samples and makes the best there the
 * winner (a->best, a->best_by, a->win); ties keep the training order.
 * 0, or -1 (logged; the training winner stays).
 */
int auto_choose_heldout(struct run *a);
/*
 * The order among finalists by their held-out scores h and VLs vls (k of
 * them, in training order, each num_terms long; auto_cmp() with thr):
 * rank[j] 1.. (1: the winner).
 */
void auto_rank_heldout(const struct cr_objective *obj, double thr,
		       const double *const *h, const unsigned *vls, unsigned k,
		       unsigned *rank);
void auto_fin_release(struct run *a);

/* The improvement pass on a->best (auto_improve.c). */
void auto_improve(struct run *a);
/*
 * Whether a's winner beats the installed tables was (routed on a->f) by
 * the threshold on held-out samples (without losing on training ones
 * when a->nfin is 1: nothing ranked it on held-out ones):
 * 1 yes, 0 no (both logged), -1 (logged) on error. *score: the first
 * term of the tables that stay, on the training samples.
 */
int auto_accept(const struct run *a, const struct cr_routing *was,
		double *score);

#endif
