// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto: routes the fabric with every candidate (engine, toggles, root
 * set), keeps those that meet the deadlock rule, scores them with the
 * contention estimator on the objective and installs the best.
 *
 * Deadlock rule (cr_check with credit-loop detection): a candidate must
 * reach every LID from every CA port without loops; without QoS it must
 * have no credit loop on its single VL; layered candidates (cr-lash)
 * qualify only with QoS (their SLs need OpenSM's SL2VL tables), and never
 * with more layers than VLs (the engine refuses then); any candidate with
 * credit loops qualifies only with allow_credit_loops.
 *
 * Choice: the objective's terms compared in order (later ones break
 * ties), then the candidate order: the result depends only on the fabric,
 * the options and the candidate list. Scoring uses the default host order
 * for every candidate (not cr-ftree's own CA order) so that all are
 * judged on the same flows, as `croute estimate --lfts` judges a dump.
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
 * Wall clock: only as a guard. A planned candidate is cut when the time
 * spent plus its estimate (scaled by how much slower than its estimate
 * the run went so far) passes the budget; that is logged as a warning,
 * since only then can the choice depend on timing.
 *
 * Cost: the sum of the candidates' routing, check and estimate times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/auto.h>
#include <croute/check.h>
#include <croute/clock.h>
#include <croute/log.h>

/* Every engine and toggle worth trying, cheap and likely first. */
static const char *const all_candidates =
	"ftree,updn+ps,updn+ps+rgs,updn,minhop+ps,minhop+ps+rgs,minhop,"
	"updn+glob,minhop+glob,updn+roots=ecc+ps,updn+roots=ecc+glob,"
	"updn+roots=top+ps,updn+roots=top+glob,"
	"updn+roots=file+ps,lash+ps+rgs+bal,lash+bal,lash+ps+bal,lash+ps,lash,"
	"lash+glob,lash+bal+glob,minhop+first,lash+first";

struct cand {
	const struct cr_engine *e;
	bool ps, rgs, bal, glob, first;
	enum cr_updn_roots roots;
	bool roots_file; /* updn: root_guid_file's roots */
	char name[48];
	/* results */
	bool ran, routed, ok;
	char why[160];
	double *score;
	uint64_t credit_loops;
	double route_s, check_s, score_s, total_s;
};

static int parse_one(char *tok, struct cand *c, const char *what)
{
	struct cr_engine_set s;

	memset(c, 0, sizeof(*c));
	if (cr_engine_set_parse(tok, &s, what))
		return -1;
	c->e = s.e;
	c->ps = s.ps;
	c->rgs = s.rgs;
	c->bal = s.bal;
	c->glob = s.glob;
	c->first = s.first;
	c->roots = s.roots;
	c->roots_file = s.roots_file;
	memcpy(c->name, s.name, sizeof(c->name));
	return 0;
}

/* Parses the list ("all" expands); *out allocated. Count or -1. */
static int parse_candidates(const char *list, const char *what,
			    bool have_root_file, struct cand **out)
{
	char *copy, *save = NULL, *tok;
	struct cand *v = NULL;
	int n = 0;

	if (!list || !strcmp(list, "all") || !*list)
		list = all_candidates;
	copy = strdup(list);
	if (!copy)
		goto oom;
	for (tok = strtok_r(copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		struct cand *grow;
		bool dflt = list == all_candidates;

		grow = realloc(v, (n + 1) * sizeof(*v));
		if (!grow)
			goto oom;
		v = grow;
		if (parse_one(tok, &v[n], what) < 0)
			goto fail;
		/* "all": the root file's set only when there is one. */
		if (dflt && v[n].roots_file && !have_root_file)
			continue;
		n++;
	}
	if (!n) {
		cr_err("%s: no candidate", what);
		goto fail;
	}
	free(copy);
	*out = v;
	return n;
oom:
	cr_err("%s: out of memory", what);
fail:
	free(copy);
	free(v);
	return -1;
}

int cr_auto_candidates_check(const char *list, const char *what)
{
	struct cand *v = NULL;
	int n = parse_candidates(list, what, true, &v);

	free(v);
	return n < 0 ? -1 : 0;
}

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
#define WORK_PER_S 1e9
/* Less of the budget than this is not worth the pass's setup. */
#define AUTO_PASS_MIN_S 0.05
/*
 * The share of the budget's rest the pass's work may take: its count
 * leaves out its setup (holding every phase), and a counted second took
 * 1.28 s of CPU on a 4x4x4 torus, so the whole run stays in the budget.
 */
#define AUTO_PASS_SHARE 0.7
/* Shift's smallest sample when budget is short. */
#define MIN_PHASES 16

struct work {
	double fixed; /* routing and check */
	double flows_fixed; /* flows of the terms other than shift */
	double shift_terms; /* shift terms whose phases the plan sizes */
};

/* Routing and check work of c, and the flows it scores per shift phase. */
static struct work work_of(const struct cr_fabric *f, const struct cand *c,
			   const struct cr_objective *obj, uint32_t nhosts,
			   bool qos)
{
	double sl = (double)f->num_switches * f->max_lid;
	double route, check = WORK_CHECK * sl;
	struct work w = {0};

	/* Refused before any work. */
	if (c->e->layered && !qos)
		return w;
	if (!strcmp(c->e->name, "ftree"))
		route = WORK_FTREE * sl;
	else if (!strcmp(c->e->name, "updn"))
		route = WORK_UPDN * sl;
	else if (c->e->layered)
		route = WORK_LASH_PER_SW * sl * f->num_switches;
	else
		route = WORK_MINHOP * sl;
	if (c->glob && !c->e->layered)
		route *= WORK_GLOB_FACTOR;
	/* Eccentricities: a BFS from every switch. */
	if (c->roots == CR_ROOTS_ECC)
		route += WORK_UPDN * (double)f->num_switches * f->num_nodes;
	if (c->e->layered)
		check *= WORK_CHECK_LAYERED;
	w.fixed = route + check;
	for (unsigned i = 0; i < obj->num_terms; i++) {
		const struct cr_pattern *p = &obj->terms[i].pat;
		double n = nhosts;

		if (p->kind == CR_PAT_SHIFT && !p->count)
			w.shift_terms++;
		else if (p->kind == CR_PAT_SHIFT)
			w.flows_fixed += n * p->count;
		else if (p->kind == CR_PAT_BISECT)
			w.flows_fixed += n * (p->count ? p->count : 10);
		else if (p->kind == CR_PAT_ALLTOALL)
			w.flows_fixed += n * (n - 1);
		else
			w.flows_fixed += n;
	}
	return w;
}

static double work_total(const struct work *w, uint32_t nhosts, uint32_t phases)
{
	return w->fixed +
	       WORK_FLOW * (w->flows_fixed + w->shift_terms * nhosts * phases);
}

/*
 * The plan: which candidates run (planned[i]) and shift's phases. First
 * every candidate that fits at the smallest sample, in list order, then
 * the phases the work left allows, up to CR_AUTO_MAX_FLOWS flows (or all
 * phases when fewer). Returns the phases (0: no shift term sized).
 */
static uint32_t plan_run(const struct cr_fabric *f, struct cand *v, int n,
			 const struct cr_objective *obj, uint32_t nhosts,
			 bool qos, double budget_work, bool *planned,
			 double *work)
{
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
	for (int i = 0; i < n; i++) {
		if (w)
			w[i] = work_of(f, &v[i], obj, nhosts, qos);
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
static void cand_options(const struct cand *c, struct cr_options *o)
{
	o->port_shifting = c->ps;
	o->remote_guid_sorting = c->rgs;
	o->lash_balance = c->bal;
	o->balance_global = c->glob;
	o->balance_first = c->first;
	o->updn_roots = c->roots;
	o->auto_conf = NULL;
}

/*
 * Routes, checks and scores one candidate; on success *out holds its
 * routing (the caller frees it). Never fails the whole run: a problem is
 * the candidate's rejection reason.
 */
static void run_one(const struct cr_fabric *f, const struct cr_options *base,
		    const struct cr_auto_conf *ac,
		    const struct cr_objective *obj,
		    const struct cr_hosts *hosts, struct cand *c,
		    struct cr_routing **out, struct cr_byproducts *by)
{
	struct cr_options o = *base;
	struct cr_routing *r = NULL;
	struct cr_check_report rep;
	struct capture cap = {0};
	double t0 = cr_now(), t1;
	int rc;

	*out = NULL;
	c->ran = true;
	cand_options(c, &o);
	/* The file's roots only for the candidate that asks for them. */
	if (!strcmp(c->e->name, "updn") && !c->roots_file)
		o.root_guids.count = 0;
	if (c->roots_file && !base->root_guids.count) {
		snprintf(c->why, sizeof(c->why), "no root_guid_file given");
		goto out;
	}
	if (c->e->layered && !ac->qos) {
		snprintf(c->why, sizeof(c->why),
			 "layered: needs qos TRUE for its SL2VL tables");
		goto out;
	}
	/* After the refusals above: a fabric's LFTs can be large. */
	r = cr_routing_new(f);
	if (!r) {
		snprintf(c->why, sizeof(c->why), "out of memory");
		goto out;
	}
	cr_log_get(&cap.fn, &cap.arg, &cap.level);
	cr_log_set(capture_log, &cap, cap.level);
	rc = cr_route_by(c->e, f, &o, r, by);
	cr_log_set(cap.fn, cap.arg, cap.level);
	c->route_s = cr_now() - t0;
	c->routed = rc == 0;
	if (rc < 0) {
		snprintf(c->why, sizeof(c->why), "refused: %.140s",
			 cap.first_err[0] ? cap.first_err : "(no reason)");
		goto out;
	}
	t1 = cr_now();
	if (cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep) < 0) {
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
	if (rep.credit_loops && !ac->allow_credit_loops) {
		snprintf(c->why, sizeof(c->why),
			 "credit loops on %llu VL(s)"
			 " (croute_auto_allow_credit_loops FALSE)",
			 (unsigned long long)rep.credit_loops);
		goto out;
	}
	t1 = cr_now();
	if (cr_objective_score(f, r, obj, hosts, c->score) < 0) {
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

static void term_name(const struct cr_objective_term *t, char *buf, size_t len)
{
	const struct cr_pattern *p = &t->pat;
	const char *stat = t->stat == CR_STAT_MIN ? "min" : "avg";

	if (p->kind == CR_PAT_FLOWS)
		snprintf(buf, len, "flows:%s", stat);
	else if (p->count)
		snprintf(buf, len, "%s:%u:%s", cr_pattern_kind_name(p->kind),
			 p->count, stat);
	else
		snprintf(buf, len, "%s:%s", cr_pattern_kind_name(p->kind),
			 stat);
}

/* One row of the table and of the log, without a newline. */
static void format_row(const struct cand *c, unsigned rank, unsigned idx,
		       const struct cr_objective *obj, bool winner, char *buf,
		       size_t len)
{
	size_t k;

	k = (size_t)snprintf(buf, len, "%2u %-3u %-22s", rank, idx + 1,
			     c->name);
	for (unsigned i = 0; i < obj->num_terms && k < len; i++) {
		char name[48];

		term_name(&obj->terms[i], name, sizeof(name));
		if (c->ok)
			k += (size_t)snprintf(buf + k, len - k, " %s %.4f",
					      name, c->score[i]);
		else
			k += (size_t)snprintf(buf + k, len - k, " %s -", name);
	}
	if (k >= len)
		return;
	if (!c->ran)
		snprintf(buf + k, len - k, " | skipped: %s", c->why);
	else if (!c->routed)
		snprintf(buf + k, len - k, " | %.4f s | rejected: %s",
			 c->total_s, c->why);
	else
		snprintf(buf + k, len - k,
			 " | credit loops %llu, routed in %.4f s, checked in"
			 " %.4f s, scored in %.4f s, %.4f s in all | %s%s",
			 (unsigned long long)c->credit_loops, c->route_s,
			 c->check_s, c->score_s, c->total_s,
			 winner	 ? "WINNER"
			 : c->ok ? "qualifies"
				 : "rejected: ",
			 c->ok ? "" : c->why);
}

static int cmp_rank(const struct cand *a, const struct cand *b,
		    const struct cr_objective *obj)
{
	if (a->ok != b->ok)
		return a->ok ? 1 : -1;
	if (!a->ok)
		return 0;
	return cr_objective_cmp_tol(obj, a->score, b->score);
}

/*
 * Candidate indices, best first; ties keep the list order. The winner
 * (chosen as the list ran) goes first: with tolerances, ties are not
 * transitive and the sort alone could put another first.
 */
static void rank_candidates(const struct cand *v, unsigned n,
			    const struct cr_objective *obj, int win,
			    unsigned *order)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;

		while (j && ((int)i == win ||
			     ((int)order[j - 1] != win &&
			      cmp_rank(&v[i], &v[order[j - 1]], obj) > 0))) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
}

/* The ranked table, logged a line a candidate and kept in r. */
static char *report(const struct cand *v, unsigned n,
		    const struct cr_objective *obj, const unsigned *order,
		    bool have_winner, double secs, double budget)
{
	char *text = NULL, row[512];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m)
		fprintf(m,
			"# cr-auto: %u candidates in %.3f s (budget %.1f s);"
			" best first\n# rank, candidate number, candidate,"
			" objective scores (fractions of injection) | credit"
			" loops, times | verdict\n",
			n, secs, budget);
	for (unsigned i = 0; i < n; i++) {
		const struct cand *c = &v[order[i]];

		format_row(c, i + 1, order[i], obj, have_winner && !i, row,
			   sizeof(row));
		cr_info("cr-auto: %s", row);
		if (m)
			fprintf(m, "%s\n", row);
	}
	if (!m || fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

/* Stable: ftree first, then the layered candidates, then the rest. */
static void layered_first(struct cand *v, int n)
{
	for (int pass = 0, k = 0; pass < 2; pass++)
		for (int i = k; i < n; i++) {
			bool first = pass == 0 ? !strcmp(v[i].e->name, "ftree")
					       : v[i].e->layered;

			if (first) {
				struct cand c = v[i];

				memmove(&v[k + 1], &v[k],
					(size_t)(i - k) * sizeof(*v));
				v[k++] = c;
			}
		}
}

/* The scores of every term, "a/b/c", for the log. */
static void scores_text(const struct cr_objective *obj, const double *sc,
			char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < obj->num_terms && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%.4f", i ? "/" : "",
				      sc[i]);
}

/*
 * The optimizer (croute_optimize) on the winner *best. Its moves must
 * not make the winner worse on cr-auto's own judgement, the objective
 * with its tolerances (the pass compares terms strictly: +0.1% on shift
 * can cost 1% on bisect): then the winner stays as routed. The winner's
 * scores become those of the routing installed. budget: the pass's
 * seconds of work (0: its own). The pass's seconds.
 */
static double
improve_winner(const struct cr_fabric *f, const struct cr_options *o,
	       const struct cr_auto_conf *ac, const struct cr_objective *obj,
	       const struct cr_hosts *hosts, struct cand *w, double budget,
	       struct cr_routing **best, struct cr_byproducts *best_by,
	       bool kicks, double *spent)
{
	struct cr_options wo = *o;
	struct cr_routing *kept = cr_routing_copy(*best);
	double *before = calloc(obj->num_terms + 1, sizeof(*before));
	double t1 = cr_now();
	char a[128], b[128];

	cand_options(w, &wo);
	if (!kept || !before) {
		cr_info("cr-auto: out of memory: no improvement pass");
		goto out;
	}
	memcpy(before, w->score, obj->num_terms * sizeof(*before));
	scores_text(obj, before, a, sizeof(a));
	*spent = 0;
	if (ac->improve(f, &wo, w->e, obj, *best, best_by, budget, kicks,
			ac->improve_arg, spent) < 0) {
		cr_info("cr-auto: the improvement pass left %s as it was",
			w->name);
		goto out;
	}
	if (cr_objective_score(f, *best, obj, hosts, w->score) ||
	    cr_objective_cmp_tol(obj, w->score, before) < 0) {
		struct cr_routing *t = *best;

		scores_text(obj, w->score, b, sizeof(b));
		cr_info("cr-auto: the improvement pass took %s from %s to %s:"
			" worse on the objective with its tolerances, the"
			" winner stays as routed",
			w->name, a, b);
		*best = kept;
		kept = t;
		memcpy(w->score, before, obj->num_terms * sizeof(*before));
		goto out;
	}
	scores_text(obj, w->score, b, sizeof(b));
	cr_info("cr-auto: the improvement pass took %s from %s to %s", w->name,
		a, b);
out:
	cr_routing_free(kept);
	free(before);
	return cr_now() - t1;
}

/*
 * The pass raises the winner's first term and keeps the later ones where
 * they were, so a candidate ahead on the last term can end ahead once
 * improved (torus 5x5, 2 hosts a switch: lash+first .3664/.5477 became
 * .3895/.5500, past the winner's .3873/.5298). So when another candidate
 * leads on the last term, the winner's pass stops at its first local
 * optimum (no kicks), the other candidate's pass gets the work left, the
 * better of the two is kept, and kicks on it take what remains. Where
 * the winner's climb needs the whole budget (prod-tree, random 64) the
 * result is the same as before. Returns the seconds it took.
 */
/* The qualified candidate first on the last term, if not the winner: -1. */
static int runner_up(const struct cand *v, int n,
		     const struct cr_objective *obj, int win)
{
	unsigned last = obj->num_terms - 1;
	int b = -1;

	if (!last)
		return -1;
	for (int i = 0; i < n; i++)
		if (v[i].ok && i != win &&
		    (b < 0 || v[i].score[last] > v[b].score[last]))
			b = i;
	if (b < 0 || v[b].score[last] <= v[win].score[last] + 1e-9)
		return -1;
	return b;
}

static double second_chance(const struct cr_fabric *f,
			    const struct cr_options *o,
			    const struct cr_auto_conf *ac,
			    const struct cr_objective *obj,
			    const struct cr_hosts *hosts, struct cand *v, int b,
			    int *win, double budget, struct cr_routing **best,
			    struct cr_byproducts *best_by, double *spent)
{
	struct cr_byproducts by = {0};
	struct cr_routing *cr = NULL;
	double t1 = cr_now();

	*spent = 0;
	if (budget < AUTO_PASS_MIN_S)
		return 0;
	cr_info("cr-auto: %s, first on the last term, gets the pass too"
		" (%.3f s of work)",
		v[b].name, budget);
	run_one(f, o, ac, obj, hosts, &v[b], &cr, &by);
	if (!cr)
		goto out;
	improve_winner(f, o, ac, obj, hosts, &v[b], budget, &cr, &by, false,
		       spent);
	if (cr_objective_cmp_tol(obj, v[b].score, v[*win].score) > 0) {
		struct cr_routing *t = *best;

		cr_info("cr-auto: improved, %s beats %s", v[b].name,
			v[*win].name);
		*best = cr;
		cr = t;
		cr_byproducts_release(best_by);
		cr_byproducts_move(best_by, &by);
		*win = b;
	} else {
		cr_info("cr-auto: improved, %s still trails %s", v[b].name,
			v[*win].name);
	}
out:
	cr_routing_free(cr);
	cr_byproducts_release(&by);
	return cr_now() - t1;
}

static int auto_route(const struct cr_fabric *f, const struct cr_options *o,
		      struct cr_routing *r, struct cr_byproducts *by)
{
	static const struct cr_auto_conf defaults = {0};
	const struct cr_auto_conf *ac = o->auto_conf ? o->auto_conf : &defaults;
	double budget = ac->budget > 0 ? ac->budget : CR_AUTO_BUDGET_DEFAULT;
	struct cr_objective obj = {0};
	struct cr_routing *best = NULL;
	struct cr_byproducts best_by = {0}, cand_by = {0};
	struct cr_hosts *hosts = NULL;
	struct cand *v = NULL;
	unsigned *order = NULL;
	double t0 = cr_now(), *scores = NULL, *work = NULL;
	double budget_work = budget * WORK_PER_S, work_done = 0;
	bool *planned = NULL;
	unsigned wall_cuts = 0, budget_skips = 0, free_refusals = 0;
	double improve_s = 0;
	uint32_t phases;
	int n, ret = -1;
	int win = -1;

	if (cr_objective_parse(ac->objective ? ac->objective
					     : CR_AUTO_OBJECTIVE_DEFAULT,
			       "croute_auto_objective", &obj))
		return -1;
	obj.max_flows = CR_AUTO_MAX_FLOWS;
	n = parse_candidates(ac->candidates, "croute_auto_candidates",
			     o->root_guids.count > 0, &v);
	if (n < 0)
		goto out;
	/*
	 * With QoS, "all" tries the layered candidates right after ftree:
	 * on tori and random graphs only they match min-hop's bandwidth
	 * without credit loops, and the budget must not skip them.
	 */
	if (ac->qos && (!ac->candidates || !strcmp(ac->candidates, "all")))
		layered_first(v, n);
	scores = calloc((size_t)n * obj.num_terms, sizeof(*scores));
	order = calloc(n, sizeof(*order));
	work = calloc(n, sizeof(*work));
	planned = calloc(n, sizeof(*planned));
	hosts = cr_hosts_default(f);
	if (!scores || !order || !work || !planned || !hosts) {
		cr_err("cr-auto: out of memory, or no hosts to score");
		goto out;
	}
	phases = plan_run(f, v, n, &obj, hosts->count, ac->qos, budget_work,
			  planned, work);
	obj.shift_phases = phases;
	for (int i = 0; i < n; i++) {
		budget_skips += !planned[i];
		free_refusals += !work[i];
	}
	/* Refusals known before any work (lash without QoS) apart. */
	cr_info("cr-auto: plan: %u of %u candidates fit the budget of %.1f s"
		" (work estimated from %u switches, %u LIDs, %u hosts),"
		" shift sampled to %u phases; %u refused at no cost",
		n - free_refusals - budget_skips, n - free_refusals, budget,
		f->num_switches, (unsigned)f->max_lid, hosts->count, phases,
		free_refusals);
	for (int i = 0; i < n; i++) {
		struct cand *c = &v[i];
		struct cr_routing *cr;
		double spent = cr_now() - t0, slow = 1;

		c->score = scores + (size_t)i * obj.num_terms;
		if (!planned[i]) {
			snprintf(c->why, sizeof(c->why),
				 "budget (about %.2f s of work; the plan"
				 " had no room for it)",
				 work[i] / WORK_PER_S);
			continue;
		}
		/* Refusals that cost nothing still say why. */
		if (win >= 0 && work[i] > 0 && unbeatable(&obj, v[win].score)) {
			snprintf(c->why, sizeof(c->why),
				 "cannot win (%s scores 1.0, the maximum, on"
				 " every term)",
				 v[win].name);
			continue;
		}
		/* The guard: how much slower than the work estimate so far. */
		if (work_done > 0 && spent > work_done / WORK_PER_S)
			slow = spent / (work_done / WORK_PER_S);
		if (work_done > 0 && work[i] > 0 &&
		    spent + slow * work[i] / WORK_PER_S > budget) {
			snprintf(c->why, sizeof(c->why),
				 "budget (wall clock: %.3f s spent, about"
				 " %.3f s more)",
				 spent, slow * work[i] / WORK_PER_S);
			wall_cuts++;
			continue;
		}
		run_one(f, o, ac, &obj, hosts, c, &cr, &cand_by);
		work_done += work[i];
		if (!cr)
			continue;
		if (win < 0 ||
		    cr_objective_cmp_tol(&obj, c->score, v[win].score) > 0) {
			cr_routing_free(best);
			best = cr;
			cr_byproducts_move(&best_by, &cand_by);
			win = i;
		} else {
			cr_routing_free(cr);
		}
	}
	if (wall_cuts)
		cr_warn("cr-auto: the wall clock cut %u planned"
			" candidate(s) (the run went slower than its work"
			" estimate): this choice depends on timing",
			wall_cuts);
	if (win >= 0 && ac->improve) {
		/* The rest of the budget, in work: deterministic. */
		double rest = AUTO_PASS_SHARE * (budget_work - work_done) /
			      WORK_PER_S,
		       spent = 0;

		if (!ac->improve_rest) {
			improve_s = improve_winner(f, o, ac, &obj, hosts,
						   &v[win], 0, &best, &best_by,
						   true, &spent);
		} else if (rest >= AUTO_PASS_MIN_S) {
			int b = runner_up(v, n, &obj, win);
			double more = 0;

			/* kicks only once both climbs are done */
			improve_s = improve_winner(f, o, ac, &obj, hosts,
						   &v[win], rest, &best,
						   &best_by, b < 0, &spent);
			if (b >= 0) {
				improve_s += second_chance(
					f, o, ac, &obj, hosts, v, b, &win,
					rest - spent, &best, &best_by, &more);
				spent += more;
				if (rest - spent >= AUTO_PASS_MIN_S)
					improve_s += improve_winner(
						f, o, ac, &obj, hosts, &v[win],
						rest - spent, &best, &best_by,
						true, &more);
			}
		} else {
			cr_info("cr-auto: no budget left for the improvement"
				" pass (%.3f s of work)",
				rest > 0 ? rest : 0);
		}
	}
	rank_candidates(v, n, &obj, win, order);
	{
		double secs = cr_now() - t0, fastest = 0;
		char *table = report(v, n, &obj, order, win >= 0,
				     secs - improve_s, budget);

		if (win < 0) {
			free(table);
			cr_err("cr-auto: no candidate qualifies (see the"
			       " lines above); OpenSM's next engine applies");
			goto out;
		}
		for (int i = 0; i < n; i++)
			if (v[i].routed && (!fastest || v[i].route_s < fastest))
				fastest = v[i].route_s;
		/* Hand the winner over: its LFTs, SLs and by-products. */
		{
			struct cr_routing tmp = *r;

			*r = *best;
			*best = tmp;
		}
		cr_byproducts_move(by, &best_by);
		by->auto_table = table;
		cr_info("cr-auto: chose %s (%.4f on %s) of %d candidates"
			" in %.3f s, budget %.1f s (candidates %.3f s, fastest"
			" candidate's routing %.3f s; improvement pass %.3f s,"
			" %s)",
			v[win].name, v[win].score[0],
			ac->objective ? ac->objective
				      : CR_AUTO_OBJECTIVE_DEFAULT,
			n, ac->improve_rest ? secs : secs - improve_s, budget,
			secs - improve_s, fastest, improve_s,
			!ac->improve	   ? "off"
			: ac->improve_rest ? "in the budget"
					   : "its own budget");
	}
	ret = 0;
out:
	cr_routing_free(best);
	cr_byproducts_release(&best_by);
	cr_byproducts_release(&cand_by);
	cr_hosts_free(hosts);
	cr_objective_release(&obj);
	free(scores);
	free(order);
	free(work);
	free(planned);
	free(v);
	return ret;
}

const struct cr_engine cr_auto_engine = {
	"auto",
	"routes with every candidate engine, installs the estimator's best",
	auto_route,
	false,
};

const struct cr_engine *cr_engine_find_any(const char *name)
{
	if (name && (!strcmp(name, "auto") || !strcmp(name, "cr-auto")))
		return &cr_auto_engine;
	return cr_engine_find(name);
}
