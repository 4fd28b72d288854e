// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HTML report's link loads on the fabric (src/core/report/html_int.h).
 * Switches are levelled from the leaves up (cr_switch_levels, as the Slurm
 * export does), so on trees every cable goes between two rows. Load is
 * the most flows a directed link carries at once in one phase: 1 is
 * contention free, more is sharing. Any fabric gets the table, which is
 * as long as the tree is high, whatever its width; only small fabrics get
 * the drawing, where each cable is a line to hover over.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/sched.h>

#include "html_int.h"

#define DRAW_MAX_SWITCHES 64
#define DRAW_MAX_HOSTS 512
#define TABLE_MAX_COLUMNS 12

struct links {
	const struct cr_fabric *f;
	const struct cr_est_result *r;
	uint32_t *base; /* per node: its port 0's link index */
	uint32_t *level; /* per switch index */
	uint32_t max_level; /* of levelled switches */
	uint32_t max_load;
};

static uint32_t load(const struct links *L, uint32_t n, unsigned p)
{
	uint32_t i = L->base[n] + p;

	return i < L->r->num_links ? L->r->link_max_flows[i] : 0;
}

static uint64_t total(const struct links *L, uint32_t n, unsigned p)
{
	uint32_t i = L->base[n] + p;

	return i < L->r->num_links ? L->r->link_total_flows[i] : 0;
}

/* Grey for idle, green for one flow, through yellow to red at the max. */
static void load_colour(uint32_t v, uint32_t max, char out[8])
{
	static const int c[3][3] = {
		{26, 152, 80}, {254, 224, 139}, {215, 48, 39}};
	double t, x;
	int i;

	if (!v) {
		strcpy(out, "#d9d9d9");
		return;
	}
	t = max > 1 ? (double)(v - 1) / (max - 1) : 0;
	if (t > 1)
		t = 1;
	i = t < 0.5 ? 0 : 1;
	x = t < 0.5 ? t * 2 : (t - 0.5) * 2;
	snprintf(out, 8, "#%02x%02x%02x",
		 (int)(c[i][0] + x * (c[i + 1][0] - c[i][0]) + 0.5),
		 (int)(c[i][1] + x * (c[i + 1][1] - c[i][1]) + 0.5),
		 (int)(c[i][2] + x * (c[i + 1][2] - c[i][2]) + 0.5));
}

static uint32_t sw_level(const struct links *L, uint32_t n)
{
	return L->level[L->f->nodes[n].sw_index];
}

/*
 * Row of the table for the directed link leaving port p of node n:
 * 0 host to leaf, 1 leaf to host, then per level l: 2 + 3l up to l+1,
 * 3 + 3l down from l+1, 4 + 3l within l; the last row: the rest.
 */
static uint32_t row_of(const struct links *L, uint32_t n, unsigned p,
		       uint32_t nrows)
{
	const struct cr_fabric *f = L->f;
	uint32_t m = f->nodes[n].ports[p].remote, a, b;

	if (!cr_is_switch(f, n))
		return cr_is_switch(f, m) ? 0 : nrows - 1;
	if (!cr_is_switch(f, m))
		return 1;
	a = sw_level(L, n);
	b = sw_level(L, m);
	if (a == CR_NO_LEVEL || b == CR_NO_LEVEL)
		return nrows - 1;
	if (a == b)
		return 4 + 3 * a;
	return a < b ? 2 + 3 * a : 3 + 3 * b;
}

static void row_name(FILE *out, uint32_t row, uint32_t nrows)
{
	if (row == 0)
		fputs("host &rarr; leaf switch", out);
	else if (row == 1)
		fputs("leaf switch &rarr; host", out);
	else if (row == nrows - 1)
		fputs("other (no level)", out);
	else if ((row - 2) % 3 == 0)
		fprintf(out, "level %u &rarr; %u (up)", (row - 2) / 3,
			(row - 2) / 3 + 1);
	else if ((row - 2) % 3 == 1)
		fprintf(out, "level %u &rarr; %u (down)", (row - 3) / 3 + 1,
			(row - 3) / 3);
	else
		fprintf(out, "within level %u", (row - 4) / 3);
}

static void table(FILE *out, const struct links *L)
{
	const struct cr_fabric *f = L->f;
	uint32_t nrows = 3 * (L->max_level + 1) + 3, width = 1, ncols;
	uint64_t *cnt, *sum;
	uint32_t *links, *max;

	while ((L->max_load + width - 1) / width > TABLE_MAX_COLUMNS)
		width++;
	ncols = 1 + (L->max_load + width - 1) / width;
	cnt = calloc((size_t)nrows * ncols, sizeof(*cnt));
	sum = calloc(nrows, sizeof(*sum));
	links = calloc(nrows, sizeof(*links));
	max = calloc(nrows, sizeof(*max));
	if (!cnt || !sum || !links || !max)
		goto out;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t v = load(L, n, p), row;

			if (f->nodes[n].ports[p].remote == CR_NO_NODE)
				continue;
			row = row_of(L, n, p, nrows);
			cnt[(size_t)row * ncols + (v + width - 1) / width]++;
			sum[row] += v;
			links[row]++;
			if (v > max[row])
				max[row] = v;
		}
	fputs("<table class=\"loads\">\n<tr><th>directed links</th>"
	      "<th>links</th><th>most</th><th>mean</th>",
	      out);
	for (uint32_t c = 0; c < ncols; c++) {
		uint32_t lo = c ? (c - 1) * width + 1 : 0, hi = c * width;

		if (hi > lo)
			fprintf(out, "<th>%u-%u</th>", lo, hi);
		else
			fprintf(out, "<th>%u</th>", lo);
	}
	fputs("</tr>\n", out);
	for (uint32_t row = 0; row < nrows; row++) {
		if (!links[row])
			continue;
		fprintf(out, "<tr data-row=\"%u\"><td>", row);
		row_name(out, row, nrows);
		fprintf(out,
			"</td><td class=\"n\">%u</td><td class=\"n\">%u</td>"
			"<td class=\"n\">%.2f</td>",
			links[row], max[row], (double)sum[row] / links[row]);
		for (uint32_t c = 0; c < ncols; c++) {
			uint64_t k = cnt[(size_t)row * ncols + c];
			char col[8];

			load_colour(c * width, L->max_load, col);
			if (k)
				fprintf(out,
					"<td class=\"n\" style=\"background:"
					"%s\">%" PRIu64 "</td>",
					col, k);
			else
				fputs("<td></td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
out:
	free(cnt);
	free(sum);
	free(links);
	free(max);
}

/* Where the drawing puts things. */
struct layout {
	double *x, *y; /* per node: the centre of its box or mark */
	unsigned width, height;
};

#define BOX_W 70
#define BOX_H 20
#define ROW_H 80

/* A host's first cabled port, whose LID names it. */
static unsigned host_port(const struct cr_fabric *f, uint32_t n)
{
	for (unsigned p = 1; p <= f->nodes[n].num_ports; p++)
		if (f->nodes[n].ports[p].remote != CR_NO_NODE)
			return p;
	return 0;
}

static void cable_title(FILE *out, const struct links *L, uint32_t a,
			unsigned pa, uint32_t b, unsigned pb)
{
	fputs("<title>", out);
	cr_html_node(out, L->f, a, pa);
	fprintf(out, " port %u &rarr; ", pa);
	cr_html_node(out, L->f, b, pb);
	fprintf(out,
		" port %u: %u flows at most in one phase, %" PRIu64
		" in all; back: %u at most, %" PRIu64 " in all</title>",
		pb, load(L, a, pa), total(L, a, pa), load(L, b, pb),
		total(L, b, pb));
}

static int place(const struct links *L, struct layout *lay)
{
	const struct cr_fabric *f = L->f;
	uint32_t rows = L->max_level + 3; /* levels, hosts, unlevelled */
	uint32_t *count = calloc(rows, sizeof(*count));
	uint32_t *seen = calloc(rows, sizeof(*seen));
	uint32_t widest = 1;

	lay->x = calloc(f->num_nodes + 1, sizeof(*lay->x));
	lay->y = calloc(f->num_nodes + 1, sizeof(*lay->y));
	if (!count || !seen || !lay->x || !lay->y) {
		free(count);
		free(seen);
		return -1;
	}
	/* Row 0 at the top: the highest level; hosts below level 0. */
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t l = L->level[i];
		uint32_t row = l == CR_NO_LEVEL ? rows - 1 : L->max_level - l;

		count[row]++;
	}
	for (uint32_t r = 0; r < rows; r++)
		if (count[r] > widest)
			widest = count[r];
	lay->width = widest * (BOX_W + 16) + 40;
	if (lay->width < 640)
		lay->width = 640;
	lay->height = (count[rows - 1] ? rows : rows - 1) * ROW_H + 40;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t l = L->level[i], n = f->switches[i];
		uint32_t row = l == CR_NO_LEVEL ? rows - 1 : L->max_level - l;
		double slot = (double)(lay->width - 40) / count[row];

		lay->x[n] = 20 + slot * (seen[row]++ + 0.5);
		/* the unlevelled row goes below the hosts */
		lay->y[n] = 30 + ROW_H * row;
	}
	/* Hosts spread under their leaf, in port order. */
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i], nh = 0, k = 0;
		double slot;

		if (L->level[i] != 0)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t m = f->nodes[n].ports[p].remote;

			nh += m != CR_NO_NODE && !cr_is_switch(f, m);
		}
		slot = (double)(lay->width - 40) / count[L->max_level] / nh;
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t m = f->nodes[n].ports[p].remote;

			if (m == CR_NO_NODE || cr_is_switch(f, m))
				continue;
			lay->x[m] = lay->x[n] + slot * (k++ - (nh - 1) / 2.0);
			lay->y[m] = lay->y[n] + ROW_H * 0.75;
		}
	}
	free(count);
	free(seen);
	return 0;
}

static void draw(FILE *out, const struct links *L)
{
	const struct cr_fabric *f = L->f;
	struct layout lay = {0};

	if (place(L, &lay))
		goto out;
	fprintf(out,
		"<svg class=\"fabric\" width=\"%u\" height=\"%u\""
		" viewBox=\"0 0 %u %u\" role=\"img\""
		" aria-label=\"links by load\" font-size=\"10\">\n",
		lay.width, lay.height, lay.width, lay.height);
	/* Cables first, boxes on top; each cable once, from its lower end. */
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			const struct cr_port *pt = &f->nodes[n].ports[p];
			uint32_t m = pt->remote, v;
			double ya, yb, w;
			char col[8];
			bool up;

			if (m == CR_NO_NODE ||
			    (!cr_is_switch(f, n) && !cr_is_switch(f, m)))
				continue;
			/* one end only: the host, else the lower switch */
			if (cr_is_switch(f, n) && !cr_is_switch(f, m))
				continue;
			up = !cr_is_switch(f, n) ||
			     sw_level(L, n) < sw_level(L, m);
			if (cr_is_switch(f, n) && !up &&
			    (sw_level(L, n) != sw_level(L, m) || m < n ||
			     (m == n && pt->remote_port < p)))
				continue;
			v = load(L, n, p);
			if (load(L, m, pt->remote_port) > v)
				v = load(L, m, pt->remote_port);
			load_colour(v, L->max_load, col);
			w = 1.5 + 3.0 * v / (L->max_load ? L->max_load : 1);
			ya = lay.y[n] + (cr_is_switch(f, n) ? -BOX_H / 2 : 0);
			yb = lay.y[m] + BOX_H / 2;
			if (cr_is_switch(f, n) && !up) /* within a level */
				fprintf(out,
					"<path d=\"M%.1f %.1f Q%.1f %.1f %.1f"
					" %.1f\" fill=\"none\"",
					lay.x[n], lay.y[n] - BOX_H / 2,
					(lay.x[n] + lay.x[m]) / 2,
					lay.y[n] - BOX_H * 2.5, lay.x[m],
					lay.y[m] - BOX_H / 2);
			else
				fprintf(out,
					"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
					" y2=\"%.1f\"",
					lay.x[n] + ((int)(p % 5) - 2) * 1.5, ya,
					lay.x[m] +
						(pt->remote_port % 5 - 2) * 1.5,
					yb);
			fprintf(out,
				" stroke=\"%s\" stroke-width=\"%.1f\""
				" data-load=\"%u\">",
				col, w, v);
			cable_title(out, L, n, p, m, pt->remote_port);
			fputs(cr_is_switch(f, n) && !up ? "</path>\n"
							: "</line>\n",
			      out);
		}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const char *d = f->nodes[n].desc;

		if (!cr_is_switch(f, n)) {
			if (!lay.y[n])
				continue;
			fprintf(out,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"6\""
				" height=\"6\" fill=\"#555\"><title>",
				lay.x[n] - 3, lay.y[n] - 3);
			cr_html_node(out, f, n, host_port(f, n));
			fputs("</title></rect>\n", out);
			continue;
		}
		fprintf(out,
			"<g><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\""
			" height=\"%d\" rx=\"3\" fill=\"#f4f4f4\""
			" stroke=\"#555\"/><text x=\"%.1f\" y=\"%.1f\""
			" text-anchor=\"middle\">",
			lay.x[n] - BOX_W / 2, lay.y[n] - BOX_H / 2, BOX_W,
			BOX_H, lay.x[n], lay.y[n] + 3.5);
		/* long names are cut in the box, whole on hover */
		if (strlen(d) > 12) {
			char cut[16];

			snprintf(cut, sizeof(cut), "%.11s~", d);
			cr_html_put(out, cut);
		} else {
			cr_html_put(out, d);
		}
		fputs("</text><title>", out);
		cr_html_node(out, f, n, 0);
		fputs("</title></g>\n", out);
	}
	fputs("</svg>\n", out);
out:
	free(lay.x);
	free(lay.y);
}

static void legend(FILE *out, uint32_t max)
{
	uint32_t step = max > 8 ? (max + 7) / 8 : 1;

	fputs("<p class=\"note\">Load: ", out);
	for (uint32_t v = 0;;) {
		char col[8];

		load_colour(v, max, col);
		fprintf(out,
			"<span class=\"sw\" style=\"background:%s\"></span>"
			"%u ",
			col, v);
		if (v >= max)
			break;
		v = v ? v + step : 1;
		if (v > max)
			v = max; /* the max is always shown */
	}
	fputs("flows at most in one phase.</p>\n", out);
}

void cr_html_links(FILE *out, const struct cr_fabric *f,
		   const struct cr_est_result *r)
{
	struct links L = {f, r, NULL, NULL, 0, 0};
	uint32_t links = 0, hosts = 0;
	int max;

	L.base = calloc(f->num_nodes + 1, sizeof(*L.base));
	L.level = calloc(f->num_switches + 1, sizeof(*L.level));
	if (!L.base || !L.level)
		goto out;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		L.base[n] = links;
		links += f->nodes[n].num_ports + 1;
		hosts += !cr_is_switch(f, n);
	}
	max = cr_switch_levels(f, L.level);
	if (max < 0)
		goto out;
	L.max_level = (uint32_t)max;
	for (uint32_t l = 0; l < r->num_links; l++)
		if (r->link_max_flows[l] > L.max_load)
			L.max_load = r->link_max_flows[l];
	fputs("<h3>", out);
	cr_html_put(out, r->name);
	fputs(": the fabric's links by load</h3>\n<p class=\"note\">Levels"
	      " count from the leaf switches (switches with hosts) up. Load:"
	      " the most flows a directed link carries at once in one phase"
	      " (1: no sharing).",
	      out);
	if (f->num_switches <= DRAW_MAX_SWITCHES && hosts <= DRAW_MAX_HOSTS)
		fputs(" Hover over a cable for its loads both ways.", out);
	fputs("</p>\n", out);
	legend(out, L.max_load);
	table(out, &L);
	if (f->num_switches <= DRAW_MAX_SWITCHES && hosts <= DRAW_MAX_HOSTS)
		draw(out, &L);
	else
		fprintf(out,
			"<p class=\"note\">%u switches: too many to draw;"
			" the table aggregates them.</p>\n",
			f->num_switches);
out:
	free(L.base);
	free(L.level);
}
