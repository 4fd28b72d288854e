// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's ranked table: the candidates in rank order, one row each
 * with its scores (training, and held-out for the finalists), its times
 * and why it won, qualified or not; the same rows go to the log and to
 * croute-auto.dump, so that an administrator reads one account of the
 * choice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/tune/auto.h>
#include <croute/model/log.h>

#include "auto_int.h"

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

/*
 * The figures beyond the objective's: the scores before the pass, the
 * held-out ones (after: the winner's as installed, when the pass changed
 * it).
 */
static size_t format_extra(const struct cand *c, const struct cr_objective *obj,
			   const double *after, char *buf, size_t len)
{
	char t[160], u[160];
	size_t k = 0;

	if (c->ok && c->pre) {
		auto_scores_text(obj, c->pre, t, sizeof(t));
		k += (size_t)snprintf(buf, len, " (before the pass %s)", t);
	}
	if (k < len && c->ok && c->held) {
		auto_scores_text(obj, c->held, t, sizeof(t));
		if (after && c->pre) {
			auto_scores_text(obj, after, u, sizeof(u));
			k += (size_t)snprintf(buf + k, len - k,
					      " | held-out %s, after the pass"
					      " %s",
					      t, u);
		} else {
			k += (size_t)snprintf(buf + k, len - k,
					      " | held-out %s", t);
		}
	} else if (k < len && c->ok && after) {
		/* not a finalist: won by the pass (second_chance()) */
		auto_scores_text(obj, after, u, sizeof(u));
		k += (size_t)snprintf(buf + k, len - k,
				      " | held-out after the pass %s", u);
	}
	return k;
}

/* The winner's held-out figures after the pass, or NULL. */
static const double *held_after(const struct run *a)
{
	return a->passed ? a->win_held : NULL;
}

/*
 * The row of rank pos + 1 (a->order[pos]) of the table and of the log,
 * without a newline.
 */
static void format_row(const struct run *a, unsigned pos, char *buf, size_t len)
{
	const struct cr_objective *obj = &a->obj;
	const struct cand *c = &a->v[a->order[pos]];
	bool winner = a->win >= 0 && !pos;
	size_t k;

	k = (size_t)snprintf(buf, len, "%2u %-3u %-22s", pos + 1,
			     a->order[pos] + 1, c->name);
	for (unsigned i = 0; i < obj->num_terms && k < len; i++) {
		char name[48];

		term_name(&obj->terms[i], name, sizeof(name));
		if (c->ok && !c->no_score)
			k += (size_t)snprintf(buf + k, len - k, " %s %.4f",
					      name, c->score[i]);
		else
			k += (size_t)snprintf(buf + k, len - k, " %s -", name);
	}
	if (k < len)
		k += format_extra(c, obj, winner ? held_after(a) : NULL,
				  buf + k, len - k);
	if (k >= len)
		return;
	if (!c->ran)
		snprintf(buf + k, len - k, " | skipped: %s", c->why);
	else if (c->same_as)
		snprintf(buf + k, len - k,
			 " | VLs %u, credit loops %llu, the tables of %s"
			 " (not routed again) | %s",
			 c->vls, (unsigned long long)c->credit_loops,
			 a->v[c->same_as - 1].name,
			 winner ? "WINNER" : "qualifies");
	else if (!c->routed)
		snprintf(buf + k, len - k, " | %.4f s | rejected: %s",
			 c->total_s, c->why);
	else
		snprintf(buf + k, len - k,
			 " | VLs %u, credit loops %llu, routed in %.4f s,"
			 " checked in %.4f s, scored in %.4f s, %.4f s in all"
			 " | %s%s",
			 c->vls, (unsigned long long)c->credit_loops,
			 c->route_s, c->check_s, c->score_s, c->total_s,
			 winner	 ? "WINNER"
			 : c->ok ? "qualifies"
				 : "rejected: ",
			 c->ok ? "" : c->why);
}

static int cmp_rank(const struct cand *a, const struct cand *b,
		    const struct cr_objective *obj, double thr)
{
	if (a->ok != b->ok)
		return a->ok ? 1 : -1;
	if (!a->ok)
		return 0;
	/* The finalists first, in their held-out order. */
	if (a->fin && b->fin)
		return a->fin < b->fin ? 1 : a->fin > b->fin ? -1 : 0;
	if (a->fin || b->fin)
		return a->fin ? 1 : -1;
	return auto_cmp(obj, thr, a->score, a->vls, b->score, b->vls);
}

/*
 * Candidate indices, best first; ties keep the list order. The winner
 * (chosen as the list ran) goes first: with tolerances, ties are not
 * transitive and the sort alone could put another first.
 */
void auto_rank_candidates(const struct cand *v, unsigned n,
			  const struct cr_objective *obj, double thr, int win,
			  unsigned *order)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;

		while (j && ((int)i == win || ((int)order[j - 1] != win &&
					       cmp_rank(&v[i], &v[order[j - 1]],
							obj, thr) > 0))) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
}

/* The scores c was chosen on: held-out, else training before the pass. */
static const double *chosen_on(const struct cand *c)
{
	if (c->held)
		return c->held;
	return c->pre ? c->pre : c->score;
}

/*
 * A line after the winner's row when the next one ties with it on every
 * term (with the tolerances) on the samples the choice was made on: then
 * the training order, or the list order, chose. 0: no tie.
 */
static int tie_note(const struct cand *v, const unsigned *order,
		    const struct cr_objective *obj, char *buf, size_t len)
{
	const struct cand *w = &v[order[0]], *b = &v[order[1]];
	bool held = w->held && b->held;

	if (!b->ok || (!held && (w->held || b->held)) ||
	    cr_objective_cmp_tol(obj, chosen_on(w), chosen_on(b)))
		return 0;
	snprintf(buf, len, "# %s ties with %s on every term%s%s%s", w->name,
		 b->name, held ? " on held-out samples" : "",
		 w->pre ? ", before the pass" : "",
		 held ? ": chosen as first on the training samples"
		 : order[0] < order[1] ? ": chosen as first in list order"
				       : "");
	return 1;
}

/* The ranked table, logged a line a candidate and returned. */
char *auto_report(const struct run *a, double secs)
{
	const struct cr_objective *obj = &a->obj;
	uint32_t nhosts = a->hosts->count;
	unsigned n = a->n;
	char *text = NULL, row[1024], phases[64] = "every phase";
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	/*
	 * A row per candidate is detail once one won (croute-auto.dump keeps
	 * the table); when none did, the rows are the reasons.
	 */
	enum cr_log_level lv = a->win >= 0 ? CR_LOG_VERBOSE : CR_LOG_INFO;

	/* what `croute compare --auto` must say its rows do not share */
	if (obj->shift_phases && obj->shift_phases + 1 < nhosts)
		snprintf(phases, sizeof(phases), "%u sampled phases",
			 obj->shift_phases);
	if (m)
		fprintf(m,
			"# cr-auto: %u candidates in %.3f s (budget %.1f s);"
			" shift on %s of %u hosts; best first\n# rank,"
			" candidate number, candidate,"
			" objective scores (fractions of injection) on the"
			" training samples [| held-out scores, which rank the"
			" best few] | credit loops, times | verdict\n",
			n, secs, a->budget, phases, nhosts);
	for (unsigned i = 0; i < n; i++) {
		format_row(a, i, row, sizeof(row));
		cr_log(lv, "cr-auto: %s", row);
		if (m)
			fprintf(m, "%s\n", row);
		if (a->win >= 0 && !i && n > 1 &&
		    tie_note(a->v, a->order, obj, row, sizeof(row))) {
			cr_log(lv, "cr-auto: %s", row + 2);
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
