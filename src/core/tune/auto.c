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
#include <croute/buf.h>
#include <croute/check.h>
#include <croute/clock.h>
#include <croute/log.h>

/* Every engine and toggle worth trying, cheap and likely first. */
static const char *const all_candidates =
	"ftree,dfp,updn+ps,updn+ps+rgs,updn,minhop+ps,minhop+ps+rgs,minhop,"
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
	size_t cap = 0;
	int n = 0;

	if (!list || !strcmp(list, "all") || !*list)
		list = all_candidates;
	copy = strdup(list);
	if (!copy)
		goto oom;
	for (tok = strtok_r(copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		bool dflt = list == all_candidates;

		if (cr_grow(&v, &cap, (size_t)n + 1, sizeof(*v)))
			goto oom;
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
 * leaves out its setup (holding every phase), so a counted second takes
 * longer than a second (the pass's seconds against its work are in the
 * log of bench/auto/run.sh "gen:torus 4 4 4 --hosts 2"); this keeps the
 * whole run in the budget.
 */
#define AUTO_PASS_SHARE 0.7
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
	o->engine_conf = NULL; /* cr-auto's, not the candidate's */
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

/* A term as the table names it: "@K" says its figure is over K + 1 orders. */
static void term_name(const struct cr_objective_term *t, char *buf, size_t len)
{
	const struct cr_pattern *p = &t->pat;
	const char *stat = t->stat == CR_STAT_MIN ? "min" : "avg";
	char orders[32] = "";
	size_t k;

	if (t->orders)
		snprintf(orders, sizeof(orders), "@%u%s", t->orders,
			 t->worst ? ":worst" : "");
	if (p->kind == CR_PAT_FLOWS)
		k = (size_t)snprintf(buf, len, "flows:%s", stat);
	else if (p->count)
		k = (size_t)snprintf(buf, len, "%s:%u:%s",
				     cr_pattern_kind_name(p->kind), p->count,
				     stat);
	else
		k = (size_t)snprintf(buf, len, "%s:%s",
				     cr_pattern_kind_name(p->kind), stat);
	if (k < len)
		snprintf(buf + k, len - k, "%s", orders);
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

/*
 * A line after the winner's row when the next one ties with it on every
 * term (with the tolerances): then list order chose. 0: no tie.
 */
static int tie_note(const struct cand *v, const unsigned *order,
		    const struct cr_objective *obj, char *buf, size_t len)
{
	const struct cand *w = &v[order[0]], *b = &v[order[1]];

	if (!b->ok || cmp_rank(w, b, obj))
		return 0;
	snprintf(buf, len, "# %s ties with %s on every term%s", w->name,
		 b->name,
		 order[0] < order[1] ? ": chosen as first in list order" : "");
	return 1;
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
		if (have_winner && !i && n > 1 &&
		    tie_note(v, order, obj, row, sizeof(row))) {
			cr_info("cr-auto: %s", row + 2);
			if (m)
				fprintf(m, "%s\n", row);
		}
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
 * The winner's held-out figures before (kept) and after (now) the pass,
 * every term, as " (held-out A -> B)" in buf ("" when the objective holds nothing
 * out). 1 when they drop, 0 when not, -1 (logged) on error.
 */
static int heldout_drop(const struct cr_fabric *f,
			const struct cr_objective *obj,
			const struct cr_hosts *hosts,
			const struct cr_routing *kept,
			const struct cr_routing *now, char *buf, size_t len)
{
	double *h = calloc(2 * (obj->num_terms + 1), sizeof(*h));
	double *h1 = h ? h + obj->num_terms + 1 : NULL;
	char t0[128], t1[128];
	int ret = -1;

	buf[0] = '\0';
	if (!cr_objective_holds_out(obj, hosts)) {
		free(h);
		return 0;
	}
	if (!h ||
	    cr_objective_score_set(f, kept, obj, hosts, CR_SCORE_HELDOUT, h) ||
	    cr_objective_score_set(f, now, obj, hosts, CR_SCORE_HELDOUT, h1))
		goto out;
	scores_text(obj, h, t0, sizeof(t0));
	scores_text(obj, h1, t1, sizeof(t1));
	snprintf(buf, len, " (held-out %s -> %s)", t0, t1);
	ret = cr_objective_cmp(h1, h, obj->num_terms) < 0;
out:
	free(h);
	return ret;
}

/*
 * The optimizer (croute_optimize) on the winner *best. Its moves must
 * not make the winner worse on cr-auto's own judgement, the objective
 * with its tolerances (the pass compares terms strictly, so a gain on
 * the first term below its tolerance may cost more than that on the
 * next): then the winner stays as routed. The winner's
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
	char a[128], b[128], h[300] = "";

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
	    cr_objective_cmp_tol(obj, w->score, before) < 0 ||
	    heldout_drop(f, obj, hosts, kept, *best, h, sizeof(h))) {
		struct cr_routing *t = *best;

		scores_text(obj, w->score, b, sizeof(b));
		cr_info("cr-auto: the improvement pass took %s from %s to %s%s:"
			" worse on the objective with its tolerances or on"
			" held-out samples, the winner stays as routed",
			w->name, a, b, h);
		*best = kept;
		kept = t;
		memcpy(w->score, before, obj->num_terms * sizeof(*before));
		goto out;
	}
	scores_text(obj, w->score, b, sizeof(b));
	cr_info("cr-auto: the improvement pass took %s from %s to %s%s",
		w->name, a, b, h);
out:
	cr_routing_free(kept);
	free(before);
	return cr_now() - t1;
}

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

/*
 * The pass raises the winner's first term and keeps the later ones where
 * they were, so a candidate ahead on the last term can end ahead once
 * improved (test_second_chance has such a fabric). So when another
 * candidate (b) leads on the last term, the winner's pass stops at its
 * first local optimum (no kicks), b is routed again and its pass gets the
 * work left, the better of the two is kept, and kicks on it take what
 * remains. Where the winner's climb needs the whole budget, b gets none
 * and the winner is as its pass left it. Returns the seconds it took.
 */
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

/* One run's state, shared by its steps. */
struct run {
	const struct cr_fabric *f;
	const struct cr_options *o;
	const struct cr_auto_conf *ac;
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

/* The objective given, else the default for a known or unknown order. */
static const char *auto_objective(const struct cr_auto_conf *ac)
{
	if (ac->objective)
		return ac->objective;
	return ac->hosts ? CR_AUTO_OBJECTIVE_HOSTS : CR_AUTO_OBJECTIVE_DEFAULT;
}

/* Which host order the routing is tuned for. */
static void log_hosts(const struct run *a)
{
	if (a->ac->hosts)
		cr_info("cr-auto: tuned for the host order of %s"
			" (croute_auto_hosts, %u hosts)",
			a->ac->hosts, a->hosts->count);
	else
		cr_info("cr-auto: tuned for the default host order (node"
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

	if (cr_objective_parse(auto_objective(ac), "croute_auto_objective",
			       &a->obj))
		return -1;
	a->obj.hosts_file = ac->hosts;
	a->obj.max_flows = CR_AUTO_MAX_FLOWS;
	a->n = parse_candidates(ac->candidates, "croute_auto_candidates",
				a->o->root_guids.count > 0, &a->v);
	if (a->n < 0)
		return -1;
	/*
	 * With QoS, "all" tries the layered candidates right after ftree:
	 * on tori and random graphs only they match min-hop's bandwidth
	 * without credit loops, and the budget must not skip them.
	 */
	if (ac->qos && (!ac->candidates || !strcmp(ac->candidates, "all")))
		layered_first(a->v, a->n);
	a->scores = calloc((size_t)a->n * a->obj.num_terms, sizeof(*a->scores));
	a->order = calloc(a->n, sizeof(*a->order));
	a->work = calloc(a->n, sizeof(*a->work));
	a->planned = calloc(a->n, sizeof(*a->planned));
	a->hosts = cr_objective_hosts(a->f, &a->obj);
	if (!a->scores || !a->order || !a->work || !a->planned || !a->hosts) {
		cr_err("cr-auto: out of memory, or no hosts to score");
		return -1;
	}
	log_hosts(a);
	return 0;
}

/* Plans the run (plan_run) and logs the plan. */
static void plan(struct run *a)
{
	unsigned budget_skips = 0, free_refusals = 0;
	uint32_t phases;

	phases = plan_run(a->f, a->v, a->n, &a->obj, a->hosts->count,
			  a->ac->qos, a->budget_work, a->planned, a->work);
	a->obj.shift_phases = phases;
	for (int i = 0; i < a->n; i++) {
		budget_skips += !a->planned[i];
		free_refusals += !a->work[i];
	}
	/* Refusals known before any work (lash without QoS) apart. */
	cr_info("cr-auto: plan: %u of %u candidates fit the budget of %.1f s"
		" (work estimated from %u switches, %u LIDs, %u hosts),"
		" shift sampled to %u phases; %u refused at no cost",
		a->n - free_refusals - budget_skips, a->n - free_refusals,
		a->budget, a->f->num_switches, (unsigned)a->f->max_lid,
		a->hosts->count, phases, free_refusals);
}

/*
 * Candidate i not run: outside the plan, unable to beat the winner, or
 * cut by the wall-clock guard. Says why in its row.
 */
static bool skipped(struct run *a, int i)
{
	struct cand *c = &a->v[i];
	double spent = cr_now() - a->t0, slow = 1, work = a->work[i];

	if (!a->planned[i]) {
		snprintf(c->why, sizeof(c->why),
			 "budget (about %.2f s of work; the plan had no room"
			 " for it)",
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
	/* The guard: how much slower than the work estimate so far. */
	if (a->work_done > 0 && spent > a->work_done / WORK_PER_S)
		slow = spent / (a->work_done / WORK_PER_S);
	if (a->work_done > 0 && work > 0 &&
	    spent + slow * work / WORK_PER_S > a->budget) {
		snprintf(c->why, sizeof(c->why),
			 "budget (wall clock: %.3f s spent, about %.3f s"
			 " more)",
			 spent, slow * work / WORK_PER_S);
		a->wall_cuts++;
		return true;
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
		run_one(a->f, a->o, a->ac, &a->obj, a->hosts, c, &cr,
			&a->cand_by);
		a->work_done += a->work[i];
		if (!cr)
			continue;
		if (a->win < 0 ||
		    cr_objective_cmp_tol(&a->obj, c->score,
					 a->v[a->win].score) > 0) {
			cr_routing_free(a->best);
			a->best = cr;
			cr_byproducts_move(&a->best_by, &a->cand_by);
			a->win = i;
		} else {
			cr_routing_free(cr);
		}
	}
	if (a->wall_cuts)
		cr_warn("cr-auto: the wall clock cut %u planned"
			" candidate(s) (the run went slower than its work"
			" estimate): this choice depends on timing",
			a->wall_cuts);
}

/*
 * The improvement pass on the winner: with its own budget, or with the
 * work the candidates left, shared with the runner-up on the last term
 * when there is one (second_chance()).
 */
static void improve(struct run *a)
{
	/* The rest of the budget, in work: deterministic. */
	double rest = AUTO_PASS_SHARE * (a->budget_work - a->work_done) /
		      WORK_PER_S,
	       spent = 0, more = 0;
	int b;

	if (!a->ac->improve_rest) {
		a->improve_s = improve_winner(
			a->f, a->o, a->ac, &a->obj, a->hosts, &a->v[a->win], 0,
			&a->best, &a->best_by, true, &spent);
		return;
	}
	if (rest < AUTO_PASS_MIN_S) {
		cr_info("cr-auto: no budget left for the improvement pass"
			" (%.3f s of work)",
			rest > 0 ? rest : 0);
		return;
	}
	b = runner_up(a->v, a->n, &a->obj, a->win);
	/* kicks only once both climbs are done */
	a->improve_s = improve_winner(a->f, a->o, a->ac, &a->obj, a->hosts,
				      &a->v[a->win], rest, &a->best,
				      &a->best_by, b < 0, &spent);
	if (b < 0)
		return;
	a->improve_s += second_chance(a->f, a->o, a->ac, &a->obj, a->hosts,
				      a->v, b, &a->win, rest - spent, &a->best,
				      &a->best_by, &more);
	spent += more;
	if (rest - spent >= AUTO_PASS_MIN_S)
		a->improve_s += improve_winner(
			a->f, a->o, a->ac, &a->obj, a->hosts, &a->v[a->win],
			rest - spent, &a->best, &a->best_by, true, &more);
}

/*
 * Ranks and reports the candidates, then moves the winner's LFTs, SLs
 * and by-products into r and by, the table with them. -1 (logged) when
 * none qualifies.
 */
static int install_winner(struct run *a, struct cr_routing *r,
			  struct cr_byproducts *by)
{
	const struct cr_auto_conf *ac = a->ac;
	double secs, fastest = 0;
	struct cr_routing tmp;
	char *table;

	rank_candidates(a->v, a->n, &a->obj, a->win, a->order);
	secs = cr_now() - a->t0;
	table = report(a->v, a->n, &a->obj, a->order, a->win >= 0,
		       secs - a->improve_s, a->budget);
	if (a->win < 0) {
		free(table);
		cr_err("cr-auto: no candidate qualifies (see the lines above);"
		       " OpenSM's next engine applies");
		return -1;
	}
	for (int i = 0; i < a->n; i++)
		if (a->v[i].routed && (!fastest || a->v[i].route_s < fastest))
			fastest = a->v[i].route_s;
	tmp = *r;
	*r = *a->best;
	*a->best = tmp;
	cr_byproducts_move(by, &a->best_by);
	by->auto_table = table;
	cr_info("cr-auto: chose %s (%.4f on %s) of %d candidates in %.3f s,"
		" budget %.1f s (candidates %.3f s, fastest candidate's"
		" routing %.3f s; improvement pass %.3f s, %s)",
		a->v[a->win].name, a->v[a->win].score[0], auto_objective(ac),
		a->n, ac->improve_rest ? secs : secs - a->improve_s, a->budget,
		secs - a->improve_s, fastest, a->improve_s,
		!ac->improve	   ? "off"
		: ac->improve_rest ? "in the budget"
				   : "its own budget");
	return 0;
}

static void run_release(struct run *a)
{
	cr_routing_free(a->best);
	cr_byproducts_release(&a->best_by);
	cr_byproducts_release(&a->cand_by);
	cr_hosts_free(a->hosts);
	cr_objective_release(&a->obj);
	free(a->scores);
	free(a->order);
	free(a->work);
	free(a->planned);
	free(a->v);
}

static int auto_route(const struct cr_fabric *f, const struct cr_options *o,
		      struct cr_routing *r, struct cr_byproducts *by)
{
	static const struct cr_auto_conf defaults = {0};
	struct run a = {.f = f, .o = o, .t0 = cr_now(), .win = -1};
	int ret = -1;

	a.ac = o->engine_conf ? o->engine_conf : &defaults;
	a.budget = a.ac->budget > 0 ? a.ac->budget : CR_AUTO_BUDGET_DEFAULT;
	a.budget_work = a.budget * WORK_PER_S;
	if (parse_run(&a) == 0) {
		plan(&a);
		run_candidates(&a);
		if (a.win >= 0 && a.ac->improve)
			improve(&a);
		ret = install_winner(&a, r, by);
	}
	run_release(&a);
	return ret;
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
