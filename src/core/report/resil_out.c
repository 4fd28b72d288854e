// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute resilience's report as text (worst failure first) or JSON lines
 * (list order), each followed by the summary. Both are written from the
 * rows alone, so that a report merged from shards equals the one process
 * writes; figures only appear rounded here, never in the shards.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/json.h>
#include <croute/report/resil.h>

#include "resil_int.h"

double cr_resil_frac(const struct cr_resil_report *rep,
		     const struct cr_resil_row *r)
{
	return rep->intact_bw > 0 ? r->bw / rep->intact_bw : 0;
}

/* Worst first: nothing routes, pairs lost, credit loops, bandwidth. */
static const struct cr_resil_report *sort_rep;

static int worse(const void *pa, const void *pb)
{
	const struct cr_resil_row *a = &sort_rep->rows[*(const uint32_t *)pa];
	const struct cr_resil_row *b = &sort_rep->rows[*(const uint32_t *)pb];

	if ((a->engine < 0) != (b->engine < 0))
		return a->engine < 0 ? -1 : 1;
	if (a->unreachable != b->unreachable)
		return a->unreachable > b->unreachable ? -1 : 1;
	if (a->credit_loops != b->credit_loops)
		return a->credit_loops > b->credit_loops ? -1 : 1;
	if (a->loops != b->loops)
		return a->loops > b->loops ? -1 : 1;
	if (a->bw != b->bw)
		return a->bw < b->bw ? -1 : 1;
	if (a->blocks != b->blocks)
		return a->blocks > b->blocks ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

uint32_t *cr_resil_worst_first(const struct cr_resil_report *rep)
{
	uint32_t *ix = malloc((rep->total + 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < rep->total; i++)
		ix[i] = i;
	/* one report at a time: the command is the only caller */
	sort_rep = rep;
	qsort(ix, rep->total, sizeof(*ix), worse);
	sort_rep = NULL;
	return ix;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int cr_resil_summarize(const struct cr_resil_report *rep,
		       struct cr_resil_summary *s)
{
	double *v = malloc((rep->total + 1) * sizeof(*v));

	memset(s, 0, sizeof(*s));
	if (!v)
		return -1;
	s->worst = s->churn_at = UINT32_MAX;
	for (uint32_t i = 0; i < rep->total; i++) {
		const struct cr_resil_row *r = &rep->rows[i];

		s->unrouted += r->engine < 0;
		s->unreachable += r->unreachable > 0;
		s->credit += r->credit_loops > 0;
		s->loops += r->loops > 0;
		v[i] = cr_resil_frac(rep, r);
		if (s->worst == UINT32_MAX || v[i] < s->worst_frac) {
			s->worst = i;
			s->worst_frac = v[i];
		}
		if (s->churn_at == UINT32_MAX || r->blocks > s->churn_blocks) {
			s->churn_at = i;
			s->churn_blocks = r->blocks;
			s->churn_entries = r->entries;
		}
	}
	if (rep->total) {
		qsort(v, rep->total, sizeof(*v), cmp_double);
		s->median_frac =
			(v[(rep->total - 1) / 2] + v[rep->total / 2]) / 2;
	}
	free(v);
	return 0;
}

static const char *kind_name(const struct cr_resil_row *r)
{
	return r->kind == CR_FAULT_CABLE ? "cable" : "switch";
}

void cr_resil_what(FILE *out, const struct cr_resil_row *r)
{
	fprintf(out, "%s 0x%016" PRIx64, r->name, r->guid);
	if (r->kind == CR_FAULT_CABLE)
		fprintf(out, " port %u - %s 0x%016" PRIx64 " port %u", r->port,
			r->rname, r->rguid, r->rport);
}

static const char *engine_name(const struct cr_resil_report *rep,
			       const struct cr_resil_row *r)
{
	return r->engine < 0 || (unsigned)r->engine >= rep->nchain
		       ? "none"
		       : rep->engines[r->engine];
}

static void header(FILE *out, const struct cr_resil_report *rep)
{
	fprintf(out, "# croute resilience: %s\n# settings: %s\n", rep->title,
		rep->config);
	fprintf(out,
		"# %" PRIu32 " failures; bandwidth: the mean over %" PRIu32
		" random host orders (seed %" PRIu64 ") of the per-flow"
		" average of",
		rep->total, rep->orders, rep->seed);
	for (unsigned i = 0; i < rep->npat; i++)
		fprintf(out, "%s %s", i ? "," : "", rep->pat_name[i]);
	fprintf(out,
		", averaged over the patterns, as a fraction of the"
		" intact fabric's %.4f\n",
		rep->intact_bw);
}

static void summary_text(FILE *out, const struct cr_resil_report *rep,
			 const struct cr_resil_summary *s)
{
	fprintf(out, "\nfailures:                    %" PRIu32 "\n",
		rep->total);
	fprintf(out, "no engine routes:            %" PRIu32 "\n", s->unrouted);
	fprintf(out, "leave pairs unreachable:     %" PRIu32 "\n",
		s->unreachable);
	fprintf(out, "leave credit loops:          %" PRIu32 "\n", s->credit);
	fprintf(out, "leave forwarding loops:      %" PRIu32 "\n", s->loops);
	if (!rep->total)
		return;
	fprintf(out,
		"bandwidth after a failure:   worst %.4f, median %.4f"
		" of the intact fabric's\n",
		s->worst_frac, s->median_frac);
	fprintf(out, "worst for bandwidth:         %s ", "failure");
	fprintf(out, "%" PRIu32 ": ", s->worst);
	cr_resil_what(out, &rep->rows[s->worst]);
	fprintf(out,
		"\nlargest churn:               %" PRIu64
		" LFT blocks (%" PRIu64 " entries), failure %" PRIu32 ": ",
		s->churn_blocks, s->churn_entries, s->churn_at);
	cr_resil_what(out, &rep->rows[s->churn_at]);
	fputc('\n', out);
}

int cr_resil_write_text(FILE *out, const struct cr_resil_report *rep)
{
	struct cr_resil_summary s;
	uint32_t *ix = cr_resil_worst_first(rep);

	if (!ix || cr_resil_summarize(rep, &s)) {
		free(ix);
		return -1;
	}
	header(out, rep);
	fprintf(out, "%7s %-6s %-10s %5s %11s %9s %6s %7s %7s %8s%s  %s\n",
		"failure", "kind", "routed by", "repair", "unreachable",
		"fwd loops", "credit", "bw", "blocks", "entries",
		rep->times ? "  seconds" : "", "what");
	for (uint32_t k = 0; k < rep->total; k++) {
		const struct cr_resil_row *r = &rep->rows[ix[k]];

		fprintf(out,
			"%7" PRIu32 " %-6s %-10s %5s %11" PRIu64 " %9" PRIu64
			" %6" PRIu64 " %7.4f %7" PRIu64 " %8" PRIu64,
			r->index, kind_name(r), engine_name(rep, r),
			r->incremental ? "yes" : "no", r->unreachable, r->loops,
			r->credit_loops, cr_resil_frac(rep, r), r->blocks,
			r->entries);
		if (rep->times)
			fprintf(out, " %8.3f", r->seconds);
		fputs("  ", out);
		cr_resil_what(out, r);
		fputc('\n', out);
	}
	summary_text(out, rep, &s);
	free(ix);
	return ferror(out) ? -1 : 0;
}

static void json_end(FILE *out, const char *key, const char *name,
		     uint64_t guid, unsigned port, bool with_port)
{
	fprintf(out, ", \"%s\": {\"name\": ", key);
	cr_json_str(out, name);
	fprintf(out, ", \"guid\": \"0x%016" PRIx64 "\"", guid);
	if (with_port)
		fprintf(out, ", \"port\": %u", port);
	fputc('}', out);
}

int cr_resil_write_json(FILE *out, const struct cr_resil_report *rep)
{
	struct cr_resil_summary s;

	if (cr_resil_summarize(rep, &s))
		return -1;
	for (uint32_t i = 0; i < rep->total; i++) {
		const struct cr_resil_row *r = &rep->rows[i];
		bool cable = r->kind == CR_FAULT_CABLE;

		fprintf(out, "{\"failure\": %" PRIu32 ", \"kind\": \"%s\"",
			r->index, kind_name(r));
		json_end(out, cable ? "from" : "switch", r->name, r->guid,
			 r->port, cable);
		if (cable)
			json_end(out, "to", r->rname, r->rguid, r->rport, true);
		fputs(", \"routed_by\": ", out);
		if (r->engine < 0)
			fputs("null", out);
		else
			cr_json_str(out, engine_name(rep, r));
		fprintf(out,
			", \"incremental\": %s, \"nodes_lost\": %" PRIu32
			", \"pairs\": %" PRIu64 ", \"unreachable\": %" PRIu64
			", \"forwarding_loops\": %" PRIu64
			", \"credit_loop_vls\": %" PRIu64 ", \"patterns\": {",
			r->incremental ? "true" : "false", r->nodes_lost,
			r->pairs, r->unreachable, r->loops, r->credit_loops);
		for (unsigned p = 0; p < rep->npat; p++) {
			fputs(p ? ", " : "", out);
			cr_json_str(out, rep->pat_name[p]);
			fprintf(out,
				": {\"mean_avg\": %.6g, \"mean_min\": %.6g}",
				r->avg[p], r->min[p]);
		}
		fprintf(out,
			"}, \"bandwidth\": %.6g, \"lft_blocks\": %" PRIu64
			", \"lft_entries\": %" PRIu64,
			cr_resil_frac(rep, r), r->blocks, r->entries);
		if (rep->times)
			fprintf(out, ", \"seconds\": %.3f", r->seconds);
		fputs("}\n", out);
	}
	fprintf(out,
		"{\"summary\": {\"failures\": %" PRIu32
		", \"unrouted\": %" PRIu32 ", \"unreachable\": %" PRIu32
		", \"credit_loops\": %" PRIu32
		", \"forwarding_loops\": %" PRIu32
		", \"intact_bandwidth\": %.6g, \"worst_bandwidth\": %.6g"
		", \"median_bandwidth\": %.6g, \"worst_failure\": %" PRId64
		", \"largest_churn_blocks\": %" PRIu64
		", \"largest_churn_failure\": %" PRId64 "}}\n",
		rep->total, s.unrouted, s.unreachable, s.credit, s.loops,
		rep->intact_bw, rep->total ? s.worst_frac : 1,
		rep->total ? s.median_frac : 1,
		rep->total ? (int64_t)s.worst : -1, s.churn_blocks,
		rep->total ? (int64_t)s.churn_at : -1);
	return ferror(out) ? -1 : 0;
}
