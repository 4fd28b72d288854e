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
 * Budget: candidates run in list order (the cheap, usually good ones
 * first); one is skipped when the time spent so far plus the slowest
 * candidate's time so far would pass the budget. The first always runs.
 * Shift's phases are sampled to about CR_AUTO_MAX_FLOWS flows, a number
 * that depends on the host count only. A skip is logged: only then can
 * the choice depend on timing.
 *
 * Cost: the sum of the candidates' routing, check and estimate times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/auto.h>
#include <croute/check.h>
#include <croute/log.h>

/* Every engine and toggle worth trying, cheap and likely first. */
static const char *const all_candidates =
	"ftree,updn+ps,updn+ps+rgs,updn,minhop+ps,minhop+ps+rgs,minhop,"
	"updn+glob,minhop+glob,updn+roots=ecc+ps,updn+roots=ecc+glob,"
	"updn+roots=top+ps,updn+roots=top+glob,"
	"updn+roots=file+ps,lash+ps+rgs+bal,lash+bal,lash+ps+bal,lash+ps,lash,"
	"lash+glob,lash+bal+glob";

struct cand {
	const struct cr_engine *e;
	bool ps, rgs, bal, glob;
	enum cr_updn_roots roots;
	bool roots_file; /* updn: root_guid_file's roots */
	char name[48];
	/* results */
	bool ran, routed, ok;
	char why[160];
	double *score;
	uint64_t credit_loops;
	double route_s, total_s;
};

static int parse_one(char *tok, struct cand *c, const char *what)
{
	char *save = NULL, *part = strtok_r(tok, "+", &save);

	memset(c, 0, sizeof(*c));
	c->e = cr_engine_find(part);
	if (!c->e) {
		cr_err("%s: unknown engine '%s' (minhop, updn, ftree, lash)",
		       what, part);
		return -1;
	}
	snprintf(c->name, sizeof(c->name), "%s", c->e->name);
	while ((part = strtok_r(NULL, "+", &save))) {
		if (!strcmp(part, "ps")) {
			c->ps = true;
		} else if (!strcmp(part, "rgs")) {
			c->rgs = true;
		} else if (!strcmp(part, "bal") && c->e->layered) {
			c->bal = true;
		} else if (!strcmp(part, "glob") &&
			   strcmp(c->e->name, "ftree")) {
			c->glob = true;
		} else if (!strcmp(c->e->name, "updn") &&
			   !strncmp(part, "roots=", 6)) {
			const char *v = part + 6;

			if (!strcmp(v, "ecc"))
				c->roots = CR_ROOTS_ECC;
			else if (!strcmp(v, "top"))
				c->roots = CR_ROOTS_TOP;
			else if (!strcmp(v, "file"))
				c->roots_file = true;
			else if (strcmp(v, "auto"))
				goto bad;
		} else {
			goto bad;
		}
		strncat(c->name, "+", sizeof(c->name) - strlen(c->name) - 1);
		strncat(c->name, part, sizeof(c->name) - strlen(c->name) - 1);
	}
	return 0;
bad:
	cr_err("%s: '%s' is no toggle of %s (ps, rgs; glob but for ftree;"
	       " bal for lash; roots=auto|ecc|top|file for updn)",
	       what, part, c->e->name);
	return -1;
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

/*
 * Routes, checks and scores one candidate; on success *out holds its
 * routing (the caller frees it). Never fails the whole run: a problem is
 * the candidate's rejection reason.
 */
static void run_one(const struct cr_fabric *f, const struct cr_options *base,
		    const struct cr_auto_conf *ac,
		    const struct cr_objective *obj,
		    const struct cr_hosts *hosts, struct cand *c,
		    struct cr_routing **out)
{
	struct cr_options o = *base;
	struct cr_routing *r = cr_routing_new(f);
	struct cr_check_report rep;
	struct capture cap = {0};
	double t0 = now_s();
	int rc;

	*out = NULL;
	c->ran = true;
	o.port_shifting = c->ps;
	o.remote_guid_sorting = c->rgs;
	o.lash_balance = c->bal;
	o.balance_global = c->glob;
	o.updn_roots = c->roots;
	o.auto_conf = NULL;
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
	if (!r) {
		snprintf(c->why, sizeof(c->why), "out of memory");
		goto out;
	}
	cr_log_get(&cap.fn, &cap.arg, &cap.level);
	cr_log_set(capture_log, &cap, cap.level);
	rc = cr_route(c->e, f, &o, r);
	cr_log_set(cap.fn, cap.arg, cap.level);
	c->route_s = now_s() - t0;
	c->routed = rc == 0;
	if (rc < 0) {
		snprintf(c->why, sizeof(c->why), "refused: %.140s",
			 cap.first_err[0] ? cap.first_err : "(no reason)");
		goto out;
	}
	if (cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep) < 0) {
		snprintf(c->why, sizeof(c->why), "the check could not run");
		goto out;
	}
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
	if (cr_objective_score(f, r, obj, hosts, c->score) < 0) {
		snprintf(c->why, sizeof(c->why), "the estimate could not run");
		goto out;
	}
	c->ok = true;
	*out = r;
	r = NULL;
out:
	cr_routing_free(r);
	c->total_s = now_s() - t0;
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
			 " | credit loops %llu, routed in %.4f s, %.4f s in"
			 " all | %s%s",
			 (unsigned long long)c->credit_loops, c->route_s,
			 c->total_s,
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

static int auto_route(const struct cr_fabric *f, const struct cr_options *o,
		      struct cr_routing *r)
{
	static const struct cr_auto_conf defaults = {0};
	const struct cr_auto_conf *ac = o->auto_conf ? o->auto_conf : &defaults;
	double budget = ac->budget > 0 ? ac->budget : CR_AUTO_BUDGET_DEFAULT;
	struct cr_objective obj = {0};
	struct cr_routing *best = NULL;
	struct cr_hosts *hosts = NULL;
	struct cand *v = NULL;
	unsigned *order = NULL;
	double t0 = now_s(), slowest = 0, *scores = NULL;
	int n, ret = -1;
	int win = -1;

	if (cr_objective_parse(ac->objective, "croute_auto_objective", &obj))
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
	hosts = cr_hosts_default(f);
	if (!scores || !order || !hosts) {
		cr_err("cr-auto: out of memory, or no hosts to score");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct cand *c = &v[i];
		struct cr_routing *cr;
		double spent = now_s() - t0, guess = slowest;

		c->score = scores + (size_t)i * obj.num_terms;
		if (i && spent + guess > budget) {
			snprintf(c->why, sizeof(c->why),
				 "budget (%.3f s spent, about %.3f s more)",
				 spent, guess);
			continue;
		}
		run_one(f, o, ac, &obj, hosts, c, &cr);
		if (c->total_s > slowest)
			slowest = c->total_s;
		if (!cr)
			continue;
		if (win < 0 ||
		    cr_objective_cmp_tol(&obj, c->score, v[win].score) > 0) {
			cr_routing_free(best);
			best = cr;
			win = i;
		} else {
			cr_routing_free(cr);
		}
	}
	rank_candidates(v, n, &obj, win, order);
	if (win >= 0 && ac->improve) {
		/* The optimizer (croute_optimize) refines the winner. */
		struct cr_options wo = *o;

		wo.port_shifting = v[win].ps;
		wo.remote_guid_sorting = v[win].rgs;
		wo.lash_balance = v[win].bal;
		wo.balance_global = v[win].glob;
		wo.updn_roots = v[win].roots;
		wo.auto_conf = NULL;
		if (ac->improve(f, &wo, v[win].e, &obj, best, ac->improve_arg) <
		    0)
			cr_info("cr-auto: the improvement pass left %s as it"
				" was",
				v[win].name);
	}
	{
		double secs = now_s() - t0;
		char *table = report(v, n, &obj, order, win >= 0, secs, budget);

		if (win < 0) {
			free(table);
			cr_err("cr-auto: no candidate qualifies (see the"
			       " lines above); OpenSM's next engine applies");
			goto out;
		}
		/* Hand the winner over: its LFTs, SLs and by-products. */
		{
			struct cr_routing tmp = *r;

			*r = *best;
			*best = tmp;
		}
		r->auto_table = table;
		cr_info("cr-auto: chose %s (%.4f on %s%s) of %d candidates"
			" in %.3f s, budget %.1f s",
			v[win].name, v[win].score[0],
			ac->objective ? ac->objective : CR_OBJECTIVE_DEFAULT,
			"", n, secs, budget);
	}
	ret = 0;
out:
	cr_routing_free(best);
	cr_hosts_free(hosts);
	cr_objective_release(&obj);
	free(scores);
	free(order);
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
