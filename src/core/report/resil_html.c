// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute resilience's HTML page: the summary, the distribution of the
 * bandwidth left after each failure (an inline SVG histogram, as the
 * estimate's report draws link loads) and the worst failures named by
 * name, GUID and port. Self-contained, like the estimate's page.
 */
#include <inttypes.h>
#include <stdlib.h>

#include <croute/report/resil.h>

#include "html_int.h"
#include "resil_int.h"

#define BINS 20u
#define WORST 25u
#define BAR_W 24u
#define PLOT_H 160u

static void what_html(FILE *out, const struct cr_resil_row *r)
{
	cr_html_put(out, r->name);
	fprintf(out, " 0x%016" PRIx64, r->guid);
	if (r->kind != CR_FAULT_CABLE)
		return;
	fprintf(out, " port %u &ndash; ", r->port);
	cr_html_put(out, r->rname);
	fprintf(out, " 0x%016" PRIx64 " port %u", r->rguid, r->rport);
}

/* Failures by bandwidth left, in bins of 5% (the last: 95% and more). */
static void histogram(FILE *out, const struct cr_resil_report *rep)
{
	uint32_t bin[BINS] = {0}, top = 1;
	unsigned w = BINS * BAR_W + 60, h = PLOT_H + 50;

	for (uint32_t i = 0; i < rep->total; i++) {
		double v = cr_resil_frac(rep, &rep->rows[i]) * BINS;
		unsigned b = v < 0 ? 0 : v >= BINS - 1 ? BINS - 1 : (unsigned)v;

		if (++bin[b] > top)
			top = bin[b];
	}
	fprintf(out,
		"<svg width=\"%u\" height=\"%u\" role=\"img\""
		" aria-label=\"failures by bandwidth left\">\n",
		w, h);
	for (unsigned b = 0; b < BINS; b++) {
		unsigned bh = (unsigned)((uint64_t)bin[b] * PLOT_H / top);

		fprintf(out,
			"<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\""
			" fill=\"#4a7ab5\"><title>%u%% to %u%%: %" PRIu32
			" failures</title></rect>\n",
			40 + b * BAR_W, 10 + PLOT_H - bh, BAR_W - 2, bh,
			b * 100 / BINS, (b + 1) * 100 / BINS, bin[b]);
		if (!(b % 4))
			fprintf(out,
				"<text x=\"%u\" y=\"%u\" font-size=\"11\">"
				"%u%%</text>\n",
				40 + b * BAR_W, PLOT_H + 25, b * 100 / BINS);
	}
	fprintf(out,
		"<text x=\"4\" y=\"20\" font-size=\"11\">%" PRIu32 "</text>\n"
		"<text x=\"40\" y=\"%u\" font-size=\"11\">bandwidth left,"
		" of the intact fabric's</text>\n</svg>\n",
		top, PLOT_H + 42);
}

int cr_resil_write_html(FILE *out, const struct cr_resil_report *rep)
{
	struct cr_resil_summary s;
	uint32_t *ix = cr_resil_worst_first(rep);

	if (!ix || cr_resil_summarize(rep, &s)) {
		free(ix);
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<title>croute resilience</title>\n<style>body{font-family:"
	      "sans-serif}td,th{padding:2px 8px;text-align:left}"
	      "</style></head><body>\n<h1>What one failure does</h1>\n<p>",
	      out);
	cr_html_put(out, rep->title);
	fputs("<br>", out);
	cr_html_put(out, rep->config);
	fprintf(out,
		"</p>\n<table>\n<tr><td>failures tried</td><td>%" PRIu32
		"</td></tr>\n<tr><td>no engine routes</td><td>%" PRIu32
		"</td></tr>\n<tr><td>leave pairs unreachable</td><td>%" PRIu32
		"</td></tr>\n<tr><td>leave credit loops</td><td>%" PRIu32
		"</td></tr>\n<tr><td>leave forwarding loops</td><td>%" PRIu32
		"</td></tr>\n",
		rep->total, s.unrouted, s.unreachable, s.credit, s.loops);
	if (rep->total)
		fprintf(out,
			"<tr><td>bandwidth left</td><td>worst %.4f, median"
			" %.4f of the intact fabric's %.4f</td></tr>\n"
			"<tr><td>largest churn</td><td>%" PRIu64
			" LFT blocks (%" PRIu64 " entries)</td></tr>\n",
			s.worst_frac, s.median_frac, rep->intact_bw,
			s.churn_blocks, s.churn_entries);
	fputs("</table>\n<h2>Bandwidth left after each failure</h2>\n", out);
	histogram(out, rep);
	fputs("<h2>The worst failures</h2>\n<table>\n<tr><th>failure</th>"
	      "<th>what</th><th>routed by</th><th>unreachable</th>"
	      "<th>credit loops</th><th>bandwidth</th><th>LFT blocks</th>"
	      "</tr>\n",
	      out);
	for (uint32_t k = 0; k < rep->total && k < WORST; k++) {
		const struct cr_resil_row *r = &rep->rows[ix[k]];

		fprintf(out, "<tr><td>%" PRIu32 "</td><td>", r->index);
		what_html(out, r);
		fputs("</td><td>", out);
		cr_html_put(out,
			    r->engine < 0 ? "none" : rep->engines[r->engine]);
		fprintf(out,
			"</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%.4f</td><td>%" PRIu64 "</td></tr>\n",
			r->unreachable, r->credit_loops, cr_resil_frac(rep, r),
			r->blocks);
	}
	fputs("</table>\n</body></html>\n", out);
	free(ix);
	return ferror(out) ? -1 : 0;
}
