// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto: routes the fabric with every candidate (engine, toggles, root
 * set), keeps those that meet the deadlock rule, scores them with the
 * contention estimator on the objective and installs the best.
 *
 * Deadlock rule (cr_check with credit-loop detection, or for cr-dfp and
 * cr-hyperx their own check of every path against their VL rankings, as
 * complete): a candidate must
 * reach every LID from every CA port without loops; without QoS it must
 * have no credit loop on its single VL; layered candidates (cr-lash)
 * qualify only with QoS (their SLs need OpenSM's SL2VL tables), and never
 * with more layers than VLs (the engine refuses then), nor on a
 * dragonfly+ with more than cr-dfp needs (vl_limit()); any candidate
 * with credit loops qualifies only with allow_credit_loops.
 *
 * Choice: the objective's terms compared in order (later ones break
 * ties), then the candidate order: the result depends only on the fabric,
 * the options and the candidate list. Scoring uses the default host order
 * for every candidate (not cr-ftree's own CA order) so that all are
 * judged on the same flows, as `croute estimate --lfts` judges a dump.
 *
 * Two steps (cr_auto_fast, cr_auto_improve), so that the plugin can
 * install the first in OpenSM's sweep and run the second on a thread:
 * the fast step plans to half of twice cr-updn's routing work plus a
 * quarter second of work, the improve step to the budget; the improvement pass
 * runs in the improve step only, whose result replaces the fast step's
 * only when better by a threshold on held-out samples (auto_improve.c).
 *
 * Budget, in work: before anything runs, every candidate's cost is
 * estimated from the fabric's size alone (switches x LIDs for routing and
 * the check, flows for scoring; work_of()), in units of about a
 * nanosecond of one thread here. The plan takes the candidates in list
 * order (cheap and likely best first) while their work fits the budget,
 * the first that needs work always (a refusal costs none); the rest are
 * "skipped: budget". Shift's sample is
 * then sized to the work left: the same phases for every candidate, so
 * that all are judged on the same flows. Plan and sample depend on the
 * fabric and the options only, never on timing.
 *
 * Early stop: once the winner scores 1.0 (the maximum, rates are
 * fractions of injection) on every term, no later candidate can beat it
 * (ties keep the list order): the rest are skipped, and say so.
 *
 * Wall clock: in the fast step only as a guard. A planned candidate is
 * cut when the time spent plus its estimate (scaled by how much slower
 * than its estimate the run went so far) passes the budget; that is
 * logged as a warning, since only then can the choice depend on timing.
 * While no candidate has qualified, the fast step runs the next one past
 * its plan and its guard: a refusal (cr-ftree on a graph that is no
 * tree) costs little of the work planned for it, and the sweep needs a
 * routing.
 * The improve step is never cut: its caller's stop (cr_options.stop)
 * makes it give up whole.
 *
 * Cost: the sum of the candidates' routing, check and estimate times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/tune/auto.h>
#include <croute/model/buf.h>
#include <croute/model/check.h>
#include <croute/model/clock.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/estimate/host_order.h>

#include "auto_int.h"

/*
 * Work units per (switch, LID) entry, per switch x (switch, LID) entry
 * for lash, per scored flow. Measured on one thread (croute route -e auto
 * --threads 1 on fat-tree 48, the torus, random 64; doc/design.md), a
 * little above what was seen: a plan that is too short is better than a
 * run that is too long.
 */
#define WORK_FTREE 12
#define WORK_MINHOP 25
#define WORK_UPDN 25
#define WORK_GLOB_FACTOR 10
#define WORK_LASH_PER_SW 5
#define WORK_CHECK 12
#define WORK_CHECK_LAYERED 15 /* x WORK_CHECK: the SL sets per LID */
#define WORK_FLOW 700
/* Shift's smallest sample when budget is short. */
#define MIN_PHASES 16

struct work {
	double fixed; /* routing and check */
	double flows_fixed; /* flows of the terms other than shift */
	double shift_terms; /* shift terms whose phases the plan sizes */
};

/* The destinations a host in all-to-all, as cr_objective_pattern() sizes. */
static double alltoall_dests(const struct cr_pattern *p,
			     const struct cr_objective *obj, double n)
{
	if (p->count && p->count < n - 1)
		return p->count;
	if (!p->count && obj->max_flows && n * (n - 1) > obj->max_flows)
		return (double)(obj->max_flows / (uint64_t)n);
	return n - 1;
}

/* Routing and check work of c, and the flows it scores per shift phase. */
static struct work work_of(const struct cr_fabric *f, const struct cand *c,
			   const struct cr_objective *obj, uint32_t nhosts,
			   bool qos)
{
	double sl = (double)f->num_switches * f->max_lid;
	double route, check = WORK_CHECK * sl;
	struct work w = {0};

	/* Refused before any work. */
	if ((c->e->layered && !qos) || c->not_here)
		return w;
	if (!strcmp(c->e->name, "ftree"))
		route = WORK_FTREE * sl;
	else if (!strcmp(c->e->name, "updn"))
		route = WORK_UPDN * sl;
	/* layered, but shortest paths per destination as minhop's */
	else if (!strcmp(c->e->name, "dfp") || !strcmp(c->e->name, "hyperx"))
		route = WORK_MINHOP * sl;
	else if (c->e->layered)
		route = WORK_LASH_PER_SW * sl * f->num_switches;
	else
		route = WORK_MINHOP * sl;
	if (c->glob && !c->e->layered)
		route *= WORK_GLOB_FACTOR;
	/* rip-up and reroute: every LID taken out and routed again */
	if (c->rr)
		route *= 1 + cr_rr_rounds(c->e);
	/* Eccentricities: a BFS from every switch. */
	if (c->roots == CR_ROOTS_ECC)
		route += WORK_UPDN * (double)f->num_switches * f->num_nodes;
	if (c->e->layered)
		check *= WORK_CHECK_LAYERED;
	w.fixed = route + check;
	for (unsigned i = 0; i < obj->num_terms; i++) {
		const struct cr_pattern *p = &obj->terms[i].pat;
		/* "@K": the pattern runs on K + 1 host orders */
		double n = nhosts, k = 1.0 + obj->terms[i].orders;

		if (p->kind == CR_PAT_SHIFT && !p->count)
			w.shift_terms += k;
		else if (p->kind == CR_PAT_SHIFT)
			w.flows_fixed += k * n * p->count;
		else if (p->kind == CR_PAT_BISECT)
			w.flows_fixed += k * n * (p->count ? p->count : 10);
		else if (p->kind == CR_PAT_ALLTOALL)
			w.flows_fixed += k * n * alltoall_dests(p, obj, n);
		else
			w.flows_fixed += k * n;
	}
	return w;
}

static double work_total(const struct work *w, uint32_t nhosts, uint32_t phases)
{
	return w->fixed +
	       WORK_FLOW * (w->flows_fixed + w->shift_terms * nhosts * phases);
}

/*
 * The plan: which candidates run (a->planned[i], a->work[i]) and shift's
 * phases, with the work of held held-out scorings (a->held_work). First
 * every candidate that fits at the smallest sample, in list order, then
 * the phases the work left allows, up to CR_AUTO_MAX_FLOWS flows (or all
 * phases when fewer). Returns the phases (0: no shift term sized).
 */
static uint32_t plan_run(struct run *a, unsigned held)
{
	const struct cr_fabric *f = a->f;
	const struct cr_objective *obj = &a->obj;
	struct cand *v = a->v;
	uint32_t nhosts = a->hosts->count;
	double budget_work = a->budget_work, *work = a->work;
	bool *planned = a->planned;
	int n = a->n;
	uint64_t nn = nhosts;
	uint32_t all = nhosts > 1 ? nhosts - 1 : 1;
	uint32_t lo = all < MIN_PHASES ? all : MIN_PHASES, hi;
	double used = 0, per_phase = 0;
	bool any = false;
	struct work *w = calloc((size_t)n + 1, sizeof(*w));
	uint32_t phases = lo;

	if (nn * (nn - 1) <= CR_AUTO_MAX_FLOWS)
		hi = all;
	else
		hi = (uint32_t)(CR_AUTO_MAX_FLOWS / nn) > lo
			     ? (uint32_t)(CR_AUTO_MAX_FLOWS / nn)
			     : lo;
	/*
	 * The held-out scorings (auto_rank.c) first: a scoring's flows,
	 * without routing or check; the choice needs them more than it
	 * needs the last candidates of the list.
	 */
	if (w && held) {
		w[n] = work_of(f, &v[0], obj, nhosts, true);
		w[n].fixed = 0;
		used = held * work_total(&w[n], nhosts, lo);
		per_phase = held * WORK_FLOW * w[n].shift_terms * nhosts;
	}
	for (int i = 0; i < n; i++) {
		if (w)
			w[i] = work_of(f, &v[i], obj, nhosts, a->ac->qos);
		work[i] = w ? work_total(&w[i], nhosts, lo) : 0;
		/* The first that needs work always runs (refusals cost none). */
		planned[i] = !work[i] || !any || used + work[i] <= budget_work;
		any |= planned[i] && work[i] > 0;
		if (planned[i]) {
			used += work[i];
			if (w)
				per_phase +=
					WORK_FLOW * w[i].shift_terms * nhosts;
		}
	}
	if (per_phase > 0 && budget_work > used) {
		double more = (budget_work - used) / per_phase;

		phases = more >= hi - lo ? hi : lo + (uint32_t)more;
	} else if (per_phase <= 0) {
		phases = hi;
	}
	for (int i = 0; w && i < n; i++)
		work[i] = work_total(&w[i], nhosts, phases);
	a->held_work = w && held ? held * work_total(&w[n], nhosts, phases) : 0;
	free(w);
	return phases;
}

/* Every term at 1.0, the maximum: no later candidate can win. */
static bool unbeatable(const struct cr_objective *obj, const double *score)
{
	for (unsigned i = 0; i < obj->num_terms; i++)
		if (score[i] < 1.0 - 1e-9)
			return false;
	return true;
}

/* While a candidate runs: its chatter only at verbose, its first error. */
struct capture {
	cr_log_fn fn;
	void *arg;
	enum cr_log_level level;
	char first_err[160];
};

static void capture_log(void *arg, enum cr_log_level level, const char *msg)
{
	struct capture *c = arg;

	if (level == CR_LOG_ERROR && !c->first_err[0])
		snprintf(c->first_err, sizeof(c->first_err), "%s", msg);
	if (level > CR_LOG_INFO && level <= c->level) {
		if (c->fn)
			c->fn(c->arg, level, msg);
		else
			fprintf(stderr, "croute: %s\n", msg);
	}
}

/* A candidate's toggles over the run's options. */
void auto_cand_options(const struct cand *c, struct cr_options *o)
{
	o->port_shifting = c->ps;
	o->remote_guid_sorting = c->rgs;
	o->lash_balance = c->bal;
	o->balance_global = c->glob;
	o->balance_first = c->first;
	o->balance_rounds = c->rr ? cr_rr_rounds(c->e) : 0;
	o->updn_roots = c->roots;
	o->engine_conf = NULL; /* cr-auto's, not the candidate's */
}

/*
 * Routes, checks and scores one candidate; on success *out holds its
 * routing (the caller frees it). Never fails the whole run: a problem is
 * the candidate's rejection reason.
 */
void auto_run_one(const struct run *a, struct cand *c, struct cr_routing **out,
		  struct cr_byproducts *by)
{
	const struct cr_options *base = a->o;
	struct cr_options o = *base;
	struct cr_routing *r = NULL;
	struct cr_check_report rep;
	struct capture cap = {0};
	double t0 = cr_now(), t1;
	int rc;

	*out = NULL;
	c->ran = true;
	auto_cand_options(c, &o);
	/* The file's roots only for the candidate that asks for them. */
	if (!strcmp(c->e->name, "updn") && !c->roots_file)
		o.root_guids.count = 0;
	if (c->roots_file && !base->root_guids.count) {
		snprintf(c->why, sizeof(c->why), "no root_guid_file given");
		goto out;
	}
	if (c->e->layered && !a->ac->qos) {
		snprintf(c->why, sizeof(c->why),
			 "layered: needs qos TRUE for its SL2VL tables");
		goto out;
	}
	if (c->not_here) {
		snprintf(c->why, sizeof(c->why),
			 "not a dragonfly+: tried there only");
		goto out;
	}
	/* After the refusals above: a fabric's LFTs can be large. */
	r = cr_routing_new(a->f);
	if (!r) {
		snprintf(c->why, sizeof(c->why), "out of memory");
		goto out;
	}
	cr_log_get(&cap.fn, &cap.arg, &cap.level);
	/* This thread's messages only: the plugin's others log meanwhile. */
	cr_log_set_thread(capture_log, &cap);
	rc = cr_route_by(c->e, a->f, &o, r, by);
	cr_log_set_thread(NULL, NULL);
	c->route_s = cr_now() - t0;
	c->routed = rc == 0;
	c->path_loads = rc == 0 && by->path_loads;
	if (rc < 0) {
		snprintf(c->why, sizeof(c->why), "refused: %.140s",
			 cap.first_err[0] ? cap.first_err : "(no reason)");
		goto out;
	}
	t1 = cr_now();
	/*
	 * A ranked engine checked every path of these tables against its
	 * VL rankings (by->vls_ranked): a proof that no VL has a credit
	 * loop, linear in the tables, where the dependency graphs would
	 * cost a third of a routing run at 16,896 hosts. Reachability and
	 * loops are checked here all the same.
	 */
	if (cr_check(a->f, r, by->vls_ranked ? 0 : CR_CHECK_CREDIT, NULL, 0,
		     &rep) < 0) {
		snprintf(c->why, sizeof(c->why), "the check could not run");
		goto out;
	}
	c->check_s = cr_now() - t1;
	c->credit_loops = rep.credit_loops;
	if (rep.unreachable || rep.loops) {
		snprintf(c->why, sizeof(c->why),
			 "%llu (CA port, LID) pairs unreachable or looping",
			 (unsigned long long)(rep.unreachable + rep.loops));
		goto out;
	}
	if (rep.credit_loops && !a->ac->allow_credit_loops) {
		snprintf(c->why, sizeof(c->why),
			 "credit loops on %llu VL(s)"
			 " (croute_auto_allow_credit_loops FALSE)",
			 (unsigned long long)rep.credit_loops);
		goto out;
	}
	t1 = cr_now();
	if (!c->no_score &&
	    cr_objective_score(a->f, r, &a->obj, a->hosts, c->score) < 0) {
		snprintf(c->why, sizeof(c->why), "the estimate could not run");
		goto out;
	}
	c->score_s = cr_now() - t1;
	c->ok = true;
	*out = r;
	r = NULL;
out:
	cr_routing_free(r);
	c->total_s = cr_now() - t0;
}

/* The objective given, else the default for a known or unknown order. */
static const char *auto_objective(const struct cr_auto_conf *ac, bool rails)
{
	if (ac->objective)
		return ac->objective;
	return ac->hosts || rails ? CR_AUTO_OBJECTIVE_HOSTS
				  : CR_AUTO_OBJECTIVE_DEFAULT;
}

/*
 * AI jobs on servers of several HCAs run in the rail order (rank =
 * server x rails + rail): a known order, tuned to as a host file's.
 */
static bool rail_fabric(const struct cr_fabric *f,
			const struct cr_auto_conf *ac)
{
	struct cr_hosts *h;
	bool rails;

	if (ac->hosts)
		return false;
	h = cr_hosts_default(f);
	rails = h && cr_hosts_have_rails(f, h);
	cr_hosts_free(h);
	return rails;
}

/*
 * Which host order the routing is tuned for: a note once, with the step
 * whose tables are final when it runs (the improve step; the fast step
 * alone in the sweep is logged at info).
 */
static void log_hosts(const struct run *a)
{
	enum cr_log_level l = a->fast ? CR_LOG_INFO : CR_LOG_NOTE;

	if (a->ac->hosts)
		cr_log(l,
		       "cr-auto: tuned for the host order of %s"
		       " (croute_auto_hosts, %u hosts)",
		       a->ac->hosts, a->hosts->count);
	else if (a->rails)
		cr_log(l,
		       "cr-auto: tuned for the rail order (servers of"
		       " several HCAs: rank = server x rails + rail, %u"
		       " hosts)",
		       a->hosts->count);
	else
		cr_log(l,
		       "cr-auto: tuned for the default host order (node"
		       " descriptions, natural sort, %u hosts)%s",
		       a->hosts->count,
		       cr_objective_has_orders(&a->obj)
			       ? " and random orders of it"
			       : "");
}

/* The objective and the candidates, in the order they are tried. */
static int parse_run(struct run *a)
{
	const struct cr_auto_conf *ac = a->ac;

	a->rails = rail_fabric(a->f, ac);
	if (cr_objective_parse(auto_objective(ac, a->rails),
			       "croute_auto_objective", &a->obj))
		return -1;
	a->obj.hosts_file = ac->hosts;
	a->obj.rail_order = a->rails;
	a->obj.paths = ac->paths;
	a->obj.lanes = ac->lanes;
	a->obj.max_flows = CR_AUTO_MAX_FLOWS;
	for (unsigned i = 0; ac->shift_seed && i < a->obj.num_terms; i++)
		if (a->obj.terms[i].pat.kind == CR_PAT_SHIFT)
			a->obj.terms[i].pat.seed = ac->shift_seed;
	a->n = auto_parse_candidates(ac->candidates, "croute_auto_candidates",
				     a->o->root_guids.count > 0, &a->v);
	if (a->n < 0)
		return -1;
	if (auto_mark_not_here(a->f, a->v, a->n) < 0)
		return -1;
	/*
	 * With QoS, "all" tries the layered candidates right after ftree:
	 * on tori and random graphs only they match min-hop's bandwidth
	 * without credit loops, and the budget must not skip them. Not in
	 * the fast step: a layered routing costs switches times more than
	 * cr-updn's, more than the sweep's budget; the improve step has
	 * room for them.
	 */
	if (ac->qos && !a->fast &&
	    (!ac->candidates || !strcmp(ac->candidates, "all")))
		auto_layered_first(a->v, a->n);
	auto_dfp_before_lash(a->v, a->n);
	a->scores = calloc((size_t)a->n * a->obj.num_terms, sizeof(*a->scores));
	a->order = calloc(a->n, sizeof(*a->order));
	a->work = calloc(a->n, sizeof(*a->work));
	a->planned = calloc(a->n, sizeof(*a->planned));
	a->held_scores = calloc((size_t)AUTO_FINALISTS * a->obj.num_terms,
				sizeof(*a->held_scores));
	a->pre_scores =
		calloc((size_t)a->n * a->obj.num_terms, sizeof(*a->pre_scores));
	a->win_held = calloc(a->obj.num_terms, sizeof(*a->win_held));
	a->hosts = cr_objective_hosts(a->f, &a->obj);
	if (!a->scores || !a->order || !a->work || !a->planned || !a->hosts ||
	    !a->held_scores || !a->pre_scores || !a->win_held) {
		cr_err("cr-auto: out of memory, or no hosts to score");
		return -1;
	}
	if (!a->quiet)
		log_hosts(a);
	return 0;
}

/*
 * The fast step with one candidate that needs work in its plan: that one
 * is checked but not scored, there is nothing to rank it against (on
 * fat-tree 48 scoring takes four times its routing). Logged.
 */
static void sole_unscored(struct run *a)
{
	int only = -1;

	for (int i = 0; i < a->n; i++) {
		if (!a->planned[i] || !a->work[i])
			continue;
		if (only >= 0)
			return;
		only = i;
	}
	if (only < 0)
		return;
	a->v[only].no_score = true;
	cr_info("cr-auto: fast step: %s is the only candidate that fits: it"
		" is checked, not scored; the improve step scores it",
		a->v[only].name);
}

/*
 * The held-out objective: with the host order unknown, "@K" terms on as
 * many times K orders as keep the held scorings within AUTO_HELD_SHARE
 * of the budget (at most AUTO_HELD_MULT_MAX). The plan's held work, at
 * K orders, times the multiple bounds their work then (the own order's
 * part does not grow); the pass gets what is left.
 */
static void held_orders(struct run *a, unsigned held)
{
	unsigned m = 1;

	a->held_obj = a->obj;
	a->held_terms = NULL;
	a->held_mult = 1;
	if (!held || a->held_work <= 0 || a->ac->hosts || a->rails ||
	    !cr_objective_has_orders(&a->obj))
		return;
	while (m < AUTO_HELD_MULT_MAX &&
	       (m + 1) * a->held_work <= AUTO_HELD_SHARE * a->budget_work)
		m++;
	if (m == 1)
		return;
	a->held_terms = malloc(a->obj.num_terms * sizeof(*a->held_terms));
	if (!a->held_terms)
		return; /* K orders, as planned */
	memcpy(a->held_terms, a->obj.terms,
	       a->obj.num_terms * sizeof(*a->held_terms));
	for (unsigned i = 0; i < a->obj.num_terms; i++)
		a->held_terms[i].orders *= m;
	a->held_obj.terms = a->held_terms;
	a->held_mult = m;
	a->held_work *= m;
}

/* Plans the run (plan_run) and logs the plan. */
static void plan(struct run *a)
{
	unsigned budget_skips = 0, free_refusals = 0, held = 0;
	uint32_t phases;

	/*
	 * The improve step chooses on held-out samples among the best few
	 * on training ones, and scores the winner again after the pass.
	 */
	a->nfin = 1;
	if (!a->fast && cr_objective_holds_out(&a->obj, a->hosts)) {
		a->nfin = AUTO_FINALISTS < a->n ? AUTO_FINALISTS : a->n;
		held = a->nfin + (a->ac->improve ? 1 : 0);
	}
	phases = plan_run(a, held);
	if (a->ac->shift_phases && a->hosts->count > 1)
		phases = a->ac->shift_phases < a->hosts->count - 1
				 ? a->ac->shift_phases
				 : a->hosts->count - 1;
	a->obj.shift_phases = phases;
	held_orders(a, held);
	for (int i = 0; i < a->n; i++) {
		budget_skips += !a->planned[i];
		free_refusals += !a->work[i];
	}
	if (a->fast)
		sole_unscored(a);
	if (a->quiet)
		return;
	/* Refusals known before any work (lash without QoS) apart. */
	cr_info("cr-auto: %splan: of %u candidates, %u cannot run here"
		" (not made for this fabric or configuration, e.g. layered"
		" without QoS; no work spent on them); of the other %u, %u"
		" will be scored within the budget of %.2f s of work"
		" (estimated from %u switches, %u LIDs, %u hosts) and %u are"
		" left out for time; shift sampled to %u phases",
		a->fast ? "fast step: " : "", a->n, free_refusals,
		a->n - free_refusals, a->n - free_refusals - budget_skips,
		a->budget, a->f->num_switches, (unsigned)a->f->max_lid,
		a->hosts->count, budget_skips, phases);
	if (held)
		cr_info("cr-auto: the best %u on training samples are ranked"
			" on held-out samples (%u scorings, %.2f s of work%s)",
			a->nfin, held, a->held_work / WORK_PER_S,
			a->held_mult > 1 ? ", \"@K\" terms on more orders"
					 : "");
}

/*
 * Candidate i not run: outside the plan, unable to beat the winner, cut
 * by the fast step's wall-clock guard, or the improve step giving up.
 * Says why in its row.
 */
/* Whether a planned candidate that needs work comes after i. */
static bool planned_after(const struct run *a, int i)
{
	for (int j = i + 1; j < a->n; j++)
		if (a->planned[j] && a->work[j] > 0)
			return true;
	return false;
}

/*
 * Candidate i runs beyond the plan when every planned one was refused
 * (cr-ftree, first and cheap, refuses every fabric that is no fat tree):
 * the next in list order until one qualifies. Refusals depend on the
 * fabric alone, so this does not depend on timing either. In the fast
 * step it is then the only one: checked, not scored (sole_unscored()).
 */
static bool rescued(struct run *a, int i)
{
	struct cand *c = &a->v[i];

	if (a->win >= 0 || !a->work[i] || planned_after(a, i))
		return false;
	cr_info("cr-auto: %sno planned candidate qualified: %s runs beyond"
		" the plan",
		a->fast ? "fast step: " : "", c->name);
	c->no_score = a->fast;
	return true;
}

static bool skipped(struct run *a, int i)
{
	struct cand *c = &a->v[i];
	double spent = cr_now() - a->t0, slow = 1, work = a->work[i];

	if (!a->planned[i] && rescued(a, i))
		return false;
	if (!a->planned[i]) {
		snprintf(c->why, sizeof(c->why),
			 a->fast ? "left to the improve step (about %.2f s"
				   " of work)"
				 : "budget (about %.2f s of work; the plan had"
				   " no room for it)",
			 work / WORK_PER_S);
		return true;
	}
	/* Refusals that cost nothing still say why. */
	if (a->win >= 0 && work > 0 &&
	    unbeatable(&a->obj, a->v[a->win].score)) {
		snprintf(c->why, sizeof(c->why),
			 "cannot win (%s scores 1.0, the maximum, on every"
			 " term)",
			 a->v[a->win].name);
		return true;
	}
	if (!a->fast) {
		a->gave_up |= cr_stop_now(a->o->stop);
		if (a->gave_up)
			snprintf(c->why, sizeof(c->why), "the step gave up");
		return a->gave_up;
	}
	/* Nothing qualified yet: the sweep needs this one, guard or not. */
	if (a->win < 0)
		return false;
	/* The guard: how much slower than the work estimate so far. */
	if (a->work_done > 0 && spent > a->work_done / WORK_PER_S)
		slow = spent / (a->work_done / WORK_PER_S);
	if (a->work_done > 0 && work > 0 &&
	    spent + slow * work / WORK_PER_S > CR_AUTO_FAST_GUARD * a->budget) {
		snprintf(c->why, sizeof(c->why),
			 "budget (wall clock: %.3f s spent, about %.3f s"
			 " more)",
			 spent, slow * work / WORK_PER_S);
		a->wall_cuts++;
		return true;
	}
	return false;
}

/*
 * On a dragonfly+ cr-dfp promises deadlock freedom in two VLs and leaves
 * the rest to QoS. A candidate that spends more (cr-lash takes three or
 * four on most, two on some) is refused, so that the VLs cr-auto uses
 * there never depend on the scores; so is one over croute_auto_max_vls.
 * True when candidate c's routing r is refused; cr-dfp's routing sets
 * the cap (it runs before any cr-lash: dfp_before_lash()).
 */
static bool vl_limit(struct run *a, struct cand *c, const struct cr_routing *r,
		     const struct cr_byproducts *by)
{
	unsigned key = a->ac->max_vls;

	c->vls = r->num_layers > 1 ? r->num_layers : 1;
	if (key && c->vls > key) {
		snprintf(c->why, sizeof(c->why),
			 "uses %u VLs, more than croute_auto_max_vls %u",
			 c->vls, key);
		c->ok = false;
		return true;
	}
	if (a->vl_cap && c->vls > a->vl_cap) {
		snprintf(c->why, sizeof(c->why),
			 "uses %u VLs, more than the %u of %s on this fabric",
			 c->vls, a->vl_cap, a->vl_cap_by);
		c->ok = false;
		return true;
	}
	if (by->native_vls && (!a->vl_cap || by->native_vls < a->vl_cap)) {
		a->vl_cap = by->native_vls;
		a->vl_cap_by = c->e->name;
	}
	return false;
}

/* Each candidate in list order; the best so far is kept (ties: the first). */
static void run_candidates(struct run *a)
{
	for (int i = 0; i < a->n; i++) {
		struct cand *c = &a->v[i];
		struct cr_routing *cr;

		c->score = a->scores + (size_t)i * a->obj.num_terms;
		if (skipped(a, i))
			continue;
		if (auto_take_same(a, i)) {
			a->work_done += a->work[i];
			continue;
		}
		auto_run_one(a, c, &cr, &a->cand_by);
		a->work_done += a->work[i];
		if (cr && vl_limit(a, c, cr, &a->cand_by)) {
			cr_routing_free(cr);
			cr_byproducts_release(&a->cand_by);
			cr = NULL;
		}
		if (cr)
			auto_keep(a, i, cr, &a->cand_by);
	}
	if (!a->gave_up) {
		auto_choose_heldout(a);
		a->work_done += a->held_work;
	}
	if (a->wall_cuts)
		cr_warn("cr-auto: the wall clock cut %u planned"
			" candidate(s) (the run went slower than its work"
			" estimate): this choice depends on timing",
			a->wall_cuts);
}

/* Ranks the candidates and reports them: the table (or NULL). */
static char *rank_report(struct run *a)
{
	auto_rank_candidates(a->v, a->n, &a->obj, auto_threshold(a->ac), a->win,
			     a->order);
	return auto_report(a, cr_now() - a->t0 - a->improve_s);
}

/* Moves the winner's LFTs, SLs and by-products into r and by. */
static void take_winner(struct run *a, struct cr_routing *r,
			struct cr_byproducts *by, char *table)
{
	struct cr_routing tmp = *r;

	*r = *a->best;
	*a->best = tmp;
	cr_byproducts_release(by);
	cr_byproducts_move(by, &a->best_by);
	by->auto_table = table;
	snprintf(by->auto_winner, sizeof(by->auto_winner), "%s",
		 a->v[a->win].name);
	by->auto_passed = a->v[a->win].pre != NULL;
}

/*
 * The pass on the winner, its scores before it kept (c->pre) for the
 * table, and the winner's held-out figures as installed.
 */
static void pass_on_winner(struct run *a)
{
	size_t terms = a->obj.num_terms;
	const struct cand *w;

	memcpy(a->pre_scores, a->scores, (size_t)a->n * terms * sizeof(double));
	auto_improve(a);
	if (a->gave_up)
		return;
	for (int i = 0; i < a->n; i++) {
		struct cand *c = &a->v[i];

		if (c->ok && memcmp(c->score, a->pre_scores + i * terms,
				    terms * sizeof(double)))
			c->pre = a->pre_scores + i * terms;
	}
	w = &a->v[a->win];
	a->passed = true;
	if (a->nfin <= 1)
		return;
	if (w->held && !w->pre) {
		memcpy(a->win_held, w->held, terms * sizeof(double));
		return;
	}
	if (cr_objective_score_set(a->f, a->best, &a->held_obj, a->hosts,
				   CR_SCORE_HELDOUT, a->win_held))
		memcpy(a->win_held, w->held, terms * sizeof(double));
}

static double fastest_routing(const struct run *a)
{
	double fastest = 0;

	for (int i = 0; i < a->n; i++)
		if (a->v[i].routed && (!fastest || a->v[i].route_s < fastest))
			fastest = a->v[i].route_s;
	return fastest;
}

static void run_release(struct run *a)
{
	auto_fin_release(a);
	cr_routing_free(a->best);
	cr_byproducts_release(&a->best_by);
	cr_byproducts_release(&a->cand_by);
	free(a->held_scores);
	free(a->pre_scores);
	free(a->win_held);
	cr_hosts_free(a->hosts);
	free(a->held_terms);
	cr_objective_release(&a->obj);
	free(a->scores);
	free(a->order);
	free(a->work);
	free(a->planned);
	free(a->v);
}

static const struct cr_auto_conf *auto_conf_of(const struct cr_options *o)
{
	static const struct cr_auto_conf defaults = {0};

	return o->engine_conf ? o->engine_conf : &defaults;
}

double cr_auto_budget(const struct cr_auto_conf *ac)
{
	if (ac->budget > 0)
		return ac->budget;
	return ac->hosts ? CR_AUTO_BUDGET_HOSTS_DEFAULT
			 : CR_AUTO_BUDGET_DEFAULT;
}

/*
 * The caller's tables are replaced by the winner's: their rows go before
 * the candidates route (on fat-tree 48 a set of LFTs is 88 MB, and the
 * candidates' reuse the memory). On failure they come back empty.
 */
static void shed_rows(struct cr_routing *r)
{
	for (uint32_t i = 0; i < r->num_nodes; i++) {
		free(r->lft[i]);
		r->lft[i] = NULL;
	}
}

static int restore_rows(const struct cr_fabric *f, struct cr_routing *r)
{
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		r->lft[n] = malloc((size_t)r->max_lid + 1);
		if (!r->lft[n])
			return -1;
		memset(r->lft[n], CR_NO_PATH, (size_t)r->max_lid + 1);
	}
	return 0;
}

int cr_auto_fast(const struct cr_fabric *f, const struct cr_options *o,
		 struct cr_routing *r, struct cr_byproducts *by)
{
	struct run a = {.f = f, .o = o, .t0 = cr_now(), .win = -1};
	double sl = (double)f->num_switches * f->max_lid;
	unsigned left = 0;
	char *table;
	int ret = -1;

	a.ac = auto_conf_of(o);
	a.fast = true;
	/* A share of twice cr-updn's routing work and a quarter second. */
	a.budget_work =
		CR_AUTO_FAST_SHARE *
		(2 * WORK_UPDN * sl + CR_AUTO_FAST_EXTRA_S * WORK_PER_S);
	a.budget = a.budget_work / WORK_PER_S;
	if (parse_run(&a) == 0) {
		plan(&a);
		shed_rows(r);
		run_candidates(&a);
		table = rank_report(&a);
		for (int i = 0; i < a.n; i++)
			left += !a.planned[i];
		if (a.win < 0) {
			free(table);
			if (restore_rows(f, r))
				cr_err("cr-auto: out of memory");
			cr_err("cr-auto: no candidate qualifies (see the lines"
			       " above); OpenSM's next engine applies");
		} else {
			char sc[640];

			if (a.v[a.win].no_score)
				snprintf(sc, sizeof(sc), "not scored");
			else
				snprintf(sc, sizeof(sc), "%.4f on %s",
					 a.v[a.win].score[0],
					 auto_objective(a.ac, a.rails));
			cr_info("cr-auto: fast step chose %s (%s) of"
				" %d candidates in %.3f s (sweep budget %.3f s"
				" of work, fastest candidate's routing %.3f s);"
				" %u candidate(s)%s left to the improve step",
				a.v[a.win].name, sc, a.n, cr_now() - a.t0,
				a.budget, fastest_routing(&a), left,
				a.ac->improve ? " and the improvement pass"
					      : "");
			take_winner(&a, r, by, table);
			ret = 0;
		}
	}
	run_release(&a);
	return ret;
}

/*
 * Whether the improve step's plan can only give the installed tables
 * again: its one candidate that needs work is the fast step's winner
 * (same fabric and options: the same tables) and the pass is off or has
 * no room. Then it does not run: on the largest fabrics that saves a
 * second set of LFTs and the scoring.
 */
static bool nothing_new(const struct run *a, const struct cr_byproducts *by)
{
	int only = -1;
	double rest;

	for (int i = 0; i < a->n; i++) {
		if (!a->planned[i] || !a->work[i])
			continue;
		if (only >= 0)
			return false;
		only = i;
	}
	if (only < 0 || strcmp(a->v[only].name, by->auto_winner))
		return false;
	rest = AUTO_PASS_SHARE * (a->budget_work - a->work[only]) / WORK_PER_S;
	return !a->ac->improve ||
	       (a->ac->improve_rest && rest < AUTO_PASS_MIN_S);
}

bool cr_auto_improve_idle(const struct cr_fabric *f, const struct cr_options *o,
			  const struct cr_byproducts *by)
{
	struct run a = {.f = f, .o = o, .t0 = cr_now(), .win = -1};
	bool idle = false;

	a.ac = auto_conf_of(o);
	a.budget = cr_auto_budget(a.ac);
	a.budget_work = a.budget * WORK_PER_S;
	/* the improve step logs its plan itself when it runs */
	a.quiet = true;
	if (parse_run(&a) == 0) {
		plan(&a);
		idle = nothing_new(&a, by);
	}
	run_release(&a);
	return idle;
}

int cr_auto_improve(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by)
{
	struct run a = {.f = f, .o = o, .t0 = cr_now(), .win = -1};
	double score = 0;
	char *table, held[48] = "";
	int ret = -1;

	a.ac = auto_conf_of(o);
	a.budget = cr_auto_budget(a.ac);
	a.budget_work = a.budget * WORK_PER_S;
	if (parse_run(&a))
		goto out;
	plan(&a);
	if (nothing_new(&a, by)) {
		cr_note("cr-auto: chose %s: the fast step's tables (the"
			" improve step's budget of %.1f s of work holds that"
			" candidate alone and no improvement pass: it would"
			" route the same tables, so it does not run)",
			by->auto_winner, a.budget);
		ret = 0;
		goto out;
	}
	run_candidates(&a);
	if (!a.gave_up && a.win >= 0 && a.ac->improve)
		pass_on_winner(&a);
	if (a.gave_up || cr_stop_now(o->stop)) {
		cr_note("cr-auto: improve step gave up after %.3f s of wall"
			" clock (%s): nothing to install",
			cr_now() - a.t0,
			o->stop && o->stop->cancel &&
					__atomic_load_n(o->stop->cancel,
							__ATOMIC_ACQUIRE)
				? "cancelled"
			: o->stop && o->stop->deadline > 0
				? "past its deadline, croute_auto_give_up or"
				  " 4 x its budget + 30 s"
				: "the pass past 4 x its budget + 2 s");
		goto out;
	}
	table = rank_report(&a);
	if (a.win < 0) {
		free(table);
		ret = 0;
		if (cr_objective_score(f, r, &a.obj, a.hosts, a.scores))
			goto out;
		score = a.scores[0];
	} else {
		ret = auto_accept(&a, r, &score);
		if (ret == 1)
			take_winner(&a, r, by, table);
		else
			free(table);
	}
	if (ret == 1 && a.nfin > 1 && a.v[a.win].held)
		snprintf(held, sizeof(held), ", held-out %.4f",
			 a.passed ? a.win_held[0] : a.v[a.win].held[0]);
	/* the fast step's tables stay: their held-out figure (a report) */
	else if (ret == 0 && a.nfin > 1 &&
		 !cr_objective_score_set(f, r, &a.held_obj, a.hosts,
					 CR_SCORE_HELDOUT, a.win_held))
		snprintf(held, sizeof(held), ", held-out %.4f", a.win_held[0]);
	if (ret >= 0) {
		double took = cr_now() - a.t0;

		/* Work, not seconds: say so when the clock ran longer. */
		cr_note("cr-auto: chose %s (%.4f on %s%s): the %s step's"
			" tables (improve step %.3f s of wall clock for a"
			" budget of %.1f s of work%s, improvement pass %.3f"
			" s%s)",
			by->auto_winner, score, auto_objective(a.ac, a.rails),
			held, ret == 1 ? "improve" : "fast", took, a.budget,
			took > a.budget &&
					(a.ac->improve_rest || !a.ac->improve)
				? ", longer than the budget: the machine ran"
				  " slower than the work model"
				: "",
			a.improve_s,
			!a.ac->improve	     ? ", off"
			: a.ac->improve_rest ? ""
					     : ", its own budget");
	}
out:
	run_release(&a);
	return ret;
}

/* Offline, or the sweep without a background: both steps in one call. */
static int auto_route(const struct cr_fabric *f, const struct cr_options *o,
		      struct cr_routing *r, struct cr_byproducts *by)
{
	if (cr_auto_fast(f, o, r, by) < 0)
		return -1;
	cr_auto_improve(f, o, r, by);
	return 0;
}

const struct cr_engine cr_auto_engine = {
	"auto",
	"routes with every candidate engine, installs the estimator's best",
	auto_route,
	false,
};

void cr_auto_conf_use(struct cr_options *o, const struct cr_auto_conf *ac)
{
	o->engine_conf = ac;
}

const struct cr_engine *cr_engine_find_any(const char *name)
{
	if (name && (!strcmp(name, "auto") || !strcmp(name, "cr-auto")))
		return &cr_auto_engine;
	return cr_engine_find(name);
}
