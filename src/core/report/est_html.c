// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The estimate as one HTML file (see include/croute/report/est_html.h). The
 * matrix is a PNG rather than SVG because it can hold a million cells; the
 * histograms are SVG because they are a few dozen bars and stay sharp.
 * Rates are shown as fractions of the injection rate on a fixed 0..1
 * scale, so pictures of two routings compare at a glance.
 */
#include <inttypes.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/report/est_html.h>
#include <croute/model/log.h>

#include "html_int.h"

void cr_image_release(struct cr_image *img)
{
	free(img->rgb);
	img->rgb = NULL;
	img->width = img->height = 0;
}

/*
 * A perceptually ordered ramp (viridis' anchor colours): readable in grey
 * print and by colour-blind readers, unlike a rainbow.
 */
static const uint8_t ramp[][3] = {
	{68, 1, 84},   {59, 82, 139},  {33, 145, 140},
	{94, 201, 98}, {253, 231, 37},
};
#define RAMP_STEPS (sizeof(ramp) / sizeof(ramp[0]) - 1)

void cr_est_colour(double v, uint8_t rgb[3])
{
	double x;
	unsigned i;

	if (v < 0 || isnan(v)) {
		rgb[0] = rgb[1] = rgb[2] = 215;
		return;
	}
	if (v > 1)
		v = 1;
	x = v * RAMP_STEPS;
	i = (unsigned)x;
	if (i >= RAMP_STEPS)
		i = RAMP_STEPS - 1;
	x -= i;
	for (unsigned c = 0; c < 3; c++)
		rgb[c] = (uint8_t)lround(ramp[i][c] +
					 x * (ramp[i + 1][c] - ramp[i][c]));
}

/* Hosts in block i of a matrix with blocks of b of n hosts. */
static uint32_t block_size(uint32_t i, uint32_t b, uint32_t n)
{
	uint32_t lo = i * b, hi = lo + b;

	if (lo >= n)
		return 0;
	return (hi > n ? n : hi) - lo;
}

int cr_matrix_reduce(const struct cr_est_result *res, uint32_t max_cells,
		     float **out, uint32_t *out_dim)
{
	const float *m = res->matrix;
	uint32_t dim = res->mat_dim, block = res->mat_block, hosts = res->hosts;
	uint32_t r, od;
	double *sum, *wsum;
	float *o;

	if (!max_cells)
		max_cells = 1;
	if (!block)
		block = 1;
	if (!hosts)
		hosts = dim * block;
	r = (dim + max_cells - 1) / max_cells;
	if (!r)
		r = 1;
	od = (dim + r - 1) / r;
	o = malloc((size_t)od * od * sizeof(*o) + 1);
	sum = calloc((size_t)od * od + 1, sizeof(*sum));
	wsum = calloc((size_t)od * od + 1, sizeof(*wsum));
	if (!o || !sum || !wsum) {
		free(o);
		free(sum);
		free(wsum);
		cr_err("out of memory drawing the matrix");
		return -1;
	}
	for (uint32_t i = 0; i < dim; i++) {
		double si = block_size(i, block, hosts);

		for (uint32_t j = 0; j < dim; j++) {
			float v = m[(size_t)i * dim + j];
			double w = si * block_size(j, block, hosts);
			size_t c = (size_t)(i / r) * od + j / r;

			if (i == j)
				w -= si; /* a host does not send to itself */
			if (v < 0 || w <= 0)
				continue;
			sum[c] += w * v;
			wsum[c] += w;
		}
	}
	for (size_t c = 0; c < (size_t)od * od; c++)
		o[c] = wsum[c] > 0 ? (float)(sum[c] / wsum[c]) : -1.0f;
	free(sum);
	free(wsum);
	*out = o;
	*out_dim = od;
	return 0;
}

int cr_est_matrix_image(const struct cr_est_result *res, uint32_t max_cells,
			uint32_t min_px, struct cr_image *img)
{
	uint32_t od, scale = 1;
	float *m;

	memset(img, 0, sizeof(*img));
	if (!res->matrix || !res->mat_dim)
		return -1;
	if (cr_matrix_reduce(res, max_cells ? max_cells : CR_HTML_MATRIX_PX, &m,
			     &od))
		return -1;
	if (min_px > od)
		scale = min_px / od;
	img->width = img->height = od * scale;
	img->rgb = malloc((size_t)img->width * img->height * 3);
	if (!img->rgb) {
		free(m);
		cr_err("out of memory drawing the matrix");
		return -1;
	}
	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++)
			cr_est_colour(m[(size_t)(y / scale) * od + x / scale],
				      img->rgb +
					      ((size_t)y * img->width + x) * 3);
	free(m);
	return 0;
}

static void png_mem_write(png_structp png, png_bytep data, png_size_t len)
{
	cr_buf_put(png_get_io_ptr(png), data, len);
}

static void png_mem_flush(png_structp png)
{
}

int cr_png_encode(const struct cr_image *img, uint8_t **buf, size_t *len)
{
	struct cr_buf b = {0};
	png_structp png;
	png_infop info = NULL;

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (png)
		info = png_create_info_struct(png);
	if (!png || !info) {
		png_destroy_write_struct(&png, NULL);
		cr_err("out of memory encoding a PNG image");
		return -1;
	}
	/* libpng reports its errors by longjmp, here. */
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		free(b.p);
		cr_err("libpng could not encode a %" PRIu32 "x%" PRIu32
		       " image",
		       img->width, img->height);
		return -1;
	}
	png_set_write_fn(png, &b, png_mem_write, png_mem_flush);
	png_set_IHDR(png, info, img->width, img->height, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (uint32_t y = 0; y < img->height; y++)
		png_write_row(png, img->rgb + (size_t)y * img->width * 3);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	if (b.oom) {
		free(b.p);
		cr_err("out of memory encoding a PNG image");
		return -1;
	}
	*buf = (uint8_t *)b.p;
	*len = b.len;
	return 0;
}

static void put_base64(FILE *out, const uint8_t *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | p[i + 1] << 8 | p[i + 2];

		fputc(tab[v >> 18], out);
		fputc(tab[(v >> 12) & 63], out);
		fputc(tab[(v >> 6) & 63], out);
		fputc(tab[v & 63], out);
		if ((i / 3) % 19 == 18)
			fputc('\n', out); /* 76 columns, as MIME has it */
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= p[i + 1] << 8;
		fputc(tab[v >> 18], out);
		fputc(tab[(v >> 12) & 63], out);
		fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', out);
		fputc('=', out);
	}
}

static void html_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>croute: ",
	      out);
	cr_html_put(out, title);
	fputs("</title>\n<style>\n"
	      "body { font-family: sans-serif; margin: 2em; color: #222; }\n"
	      "table { border-collapse: collapse; margin: 1em 0; }\n"
	      "th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; }\n"
	      "td.n { text-align: right; font-family: monospace; }\n"
	      "img.matrix { image-rendering: pixelated;"
	      " image-rendering: crisp-edges; border: 1px solid #888; }\n"
	      ".fig { display: flex; align-items: flex-start; gap: 1.5em; }\n"
	      ".note { color: #555; font-size: 90%; }\n"
	      ".mx { display: grid; grid-template-columns: auto auto; }\n"
	      ".mxi { position: relative; }\n"
	      ".tip { display: none; position: absolute; background: #fff;"
	      " border: 1px solid #888; padding: 0.3em; white-space: pre;"
	      " font-size: 85%; pointer-events: none; }\n"
	      ".xlab, .ylab { display: flex; font-size: 11px; }\n"
	      ".xlab { align-items: flex-end; }\n"
	      ".xlab span { writing-mode: vertical-rl; transform:"
	      " rotate(180deg); text-align: left; overflow: hidden;"
	      " max-height: 10em; }\n"
	      ".ylab { flex-direction: column; text-align: right;"
	      " padding-right: 4px; }\n"
	      ".ylab span { display: flex; align-items: center;"
	      " justify-content: flex-end; overflow: hidden; }\n"
	      "span.sw { display: inline-block; width: 1em; height: 1em;"
	      " vertical-align: middle; margin: 0 0.2em 0 0.6em;"
	      " border: 1px solid #888; }\n"
	      "table.loads td { min-width: 2.5em; }\n"
	      /* a 1280-pixel window: the drawing shrinks, the page not */
	      "svg.fabric { max-width: 100%; height: auto; }\n"
	      "</style>\n</head>\n<body>\n<h1>Contention estimate</h1>\n<p>",
	      out);
	cr_html_put(out, title);
	fputs("</p>\n<p class=\"note\">InfiniBand penalty model (max-min"
	      " fair rates under the penalties of J. Vienne's model, as in"
	      " SimGrid's network/model:IB). Rates are fractions of each"
	      " flow's injection rate.</p>\n",
	      out);
}

static void html_summary(FILE *out, struct cr_est_result *const *res,
			 unsigned n)
{
	fputs("<table>\n<tr><th>pattern</th><th>phases</th><th>flows</th>"
	      "<th>avg</th><th>min</th><th>avg Gb/s</th><th>min Gb/s</th>"
	      "<th>without path</th><th>hottest link (flows)</th></tr>\n",
	      out);
	for (unsigned i = 0; i < n; i++) {
		const struct cr_est_result *r = res[i];

		fputs("<tr><td>", out);
		cr_html_put(out, r->name);
		fprintf(out,
			"</td><td class=\"n\">%u of %u</td>"
			"<td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%.4f</td><td class=\"n\">%.4f</td>"
			"<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
			"<td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%u</td></tr>\n",
			r->num_phases, r->phases_total, r->flows, r->avg_frac,
			r->min_frac, r->avg_gbps, r->min_gbps, r->unrouted,
			r->num_hot ? r->hot[0].max_flows : 0);
	}
	fputs("</table>\n", out);
}

/* The colour scale: the ramp as an SVG gradient, ticks every quarter. */
static void html_legend(FILE *out, uint32_t height)
{
	const unsigned w = 24, top = 8;
	uint32_t h = height > 64 ? height - 2 * top : 48;

	fprintf(out,
		"<svg width=\"90\" height=\"%u\" role=\"img\""
		" aria-label=\"colour scale\">\n"
		"<defs><linearGradient id=\"ramp\" x1=\"0\" y1=\"1\""
		" x2=\"0\" y2=\"0\">\n",
		h + 2 * top);
	for (unsigned i = 0; i <= 20; i++) {
		uint8_t c[3];

		cr_est_colour(i / 20.0, c);
		fprintf(out,
			"<stop offset=\"%.2f\" "
			"stop-color=\"#%02x%02x%02x\"/>\n",
			i / 20.0, c[0], c[1], c[2]);
	}
	fprintf(out,
		"</linearGradient></defs>\n"
		"<rect x=\"0\" y=\"%u\" width=\"%u\" height=\"%u\""
		" fill=\"url(#ramp)\" stroke=\"#888\"/>\n",
		top, w, h);
	for (unsigned i = 0; i <= 4; i++) {
		double y = top + h - h * i / 4.0;

		fprintf(out,
			"<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\""
			" stroke=\"#222\"/>"
			"<text x=\"%u\" y=\"%.1f\" "
			"font-size=\"12\">%.2f</text>\n",
			w, y, w + 5, y, w + 8, y + 4, i / 4.0);
	}
	fputs("</svg>\n", out);
}

/* A JavaScript string literal, safe inside <script>. */
static void put_js_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = cr_text_char_len((const unsigned char *)s);

		/* A stray byte as its Latin-1 reading, as in the JSON. */
		if (!n || c == '"' || c == '\\' || c == '<' || c == '>' ||
		    c == '&')
			fprintf(out, "\\u%04x", c);
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

/* Hosts per cell of the matrix as drawn, as cr_matrix_reduce groups them. */
static uint32_t hosts_per_cell(const struct cr_est_result *r)
{
	uint32_t red = (r->mat_dim + CR_HTML_MATRIX_PX - 1) / CR_HTML_MATRIX_PX;

	return (red ? red : 1) * (r->mat_block ? r->mat_block : 1);
}

/*
 * Host names along the axes, when every cell is one host and big enough
 * to carry a line of text: receivers on top, senders on the left.
 */
static void matrix_axes(FILE *out, const struct cr_fabric *f,
			const struct cr_hosts *h, uint32_t px, bool top)
{
	fprintf(out, "<div class=\"%s\">", top ? "xlab" : "ylab");
	for (uint32_t i = 0; i < h->count; i++) {
		fprintf(out, "<span style=\"%s:%upx\">",
			top ? "width" : "height", px);
		cr_html_put(out, f->nodes[h->ep[i].node].desc);
		fputs("</span>", out);
	}
	fputs("</div>\n", out);
}

/*
 * The tooltip: the sender and receiver under the pointer (the block of
 * hosts when a cell holds several) and, for matrices of at most 128
 * cells a side, the cell's rate.
 */
static void matrix_hover(FILE *out, const struct cr_fabric *f,
			 const struct cr_est_result *r,
			 const struct cr_hosts *h, unsigned id)
{
	uint32_t od = 0;
	float *m = NULL;

	if (cr_matrix_reduce(r, CR_HTML_MATRIX_PX, &m, &od))
		return;
	fprintf(out, "<script>\n(function () {\nvar H = [");
	for (uint32_t i = 0; i < h->count; i++) {
		if (i)
			fputs(i % 8 ? ", " : ",\n", out);
		put_js_string(out, f->nodes[h->ep[i].node].desc);
	}
	fprintf(out, "];\nvar od = %u, hpc = %u, V = ", od, hosts_per_cell(r));
	if (od <= 128) {
		fputc('[', out);
		for (size_t c = 0; c < (size_t)od * od; c++)
			fprintf(out, "%s%.4g", c ? (c % 16 ? "," : ",\n") : "",
				m[c]);
		fputs("];\n", out);
	} else {
		fputs("null;\n", out);
	}
	fprintf(out,
		"var img = document.getElementById(\"mx%u\");\n"
		"var tip = document.getElementById(\"tip%u\");\n",
		id, id);
	fputs("function name(c) {\n"
	      "\tvar a = c * hpc, z = Math.min(H.length, a + hpc) - 1;\n"
	      "\treturn a == z ? H[a] : H[a] + \" \\u2026 \" + H[z] +\n"
	      "\t\t\" (\" + (z - a + 1) + \" hosts)\";\n}\n"
	      "img.addEventListener(\"mousemove\", function (e) {\n"
	      "\tvar b = img.getBoundingClientRect();\n"
	      "\tvar x = Math.floor((e.clientX - b.left) / b.width * od);\n"
	      "\tvar y = Math.floor((e.clientY - b.top) / b.height * od);\n"
	      "\tif (x < 0 || y < 0 || x >= od || y >= od) return;\n"
	      "\tvar t = \"sender: \" + name(y) + \"\\nreceiver: \" +"
	      " name(x);\n"
	      "\tif (V) t += \"\\nrate: \" + (V[y * od + x] < 0 ?"
	      " \"no flow\" : V[y * od + x].toFixed(3));\n"
	      "\ttip.textContent = t;\n\ttip.style.display = \"block\";\n"
	      "\ttip.style.left = (e.clientX - b.left + 14) + \"px\";\n"
	      "\ttip.style.top = (e.clientY - b.top + 14) + \"px\";\n});\n"
	      "img.addEventListener(\"mouseleave\", function () {\n"
	      "\ttip.style.display = \"none\";\n});\n})();\n</script>\n",
	      out);
	free(m);
}

static int html_matrix(FILE *out, const struct cr_fabric *f,
		       const struct cr_est_result *r, const struct cr_hosts *h,
		       unsigned id)
{
	struct cr_image img;
	uint8_t *png = NULL;
	uint32_t cell;
	bool named, axes;
	size_t len;

	if (cr_est_matrix_image(r, CR_HTML_MATRIX_PX, CR_HTML_MATRIX_MIN_PX,
				&img))
		return -1;
	if (cr_png_encode(&img, &png, &len)) {
		cr_image_release(&img);
		return -1;
	}
	/* The hosts the matrix was made over, or no names at all. */
	named = h && h->count == r->hosts;
	cell = r->mat_dim ? img.width / r->mat_dim : 0;
	axes = named && hosts_per_cell(r) == 1 && cell >= 12;
	fputs("<h2>", out);
	cr_html_put(out, r->name);
	fprintf(out,
		": sender &times; receiver bandwidth</h2>\n"
		"<p class=\"note\">Row: sender, column: receiver, hosts in"
		" the pattern's order (%u hosts",
		r->hosts);
	if (r->mat_block > 1 || (uint64_t)img.width < r->mat_dim)
		fprintf(out, "; each pixel the average over a block of hosts");
	fprintf(out, "). Grey: no flow (a host to itself%s).%s</p>\n",
		r->num_phases < r->phases_total ? ", or a phase not sampled"
						: "",
		named ? " Hover over the matrix for the hosts." : "");
	fputs("<div class=\"fig\"><div class=\"mx\">", out);
	if (axes) {
		fputs("<div></div>", out);
		matrix_axes(out, f, h, cell, true);
		matrix_axes(out, f, h, cell, false);
	}
	fprintf(out,
		"<div class=\"mxi\"><img class=\"matrix\" id=\"mx%u\""
		" width=\"%u\" height=\"%u\" alt=\"sender x receiver matrix\""
		" src=\"data:image/png;base64,\n",
		id, img.width, img.height);
	put_base64(out, png, len);
	fprintf(out, "\"><div class=\"tip\" id=\"tip%u\"></div></div></div>\n",
		id);
	html_legend(out, img.height);
	fputs("</div>\n", out);
	if (named)
		matrix_hover(out, f, r, h, id);
	free(png);
	cr_image_release(&img);
	return 0;
}

/*
 * Histogram of link loads: for each directed link that carried a flow,
 * the most flows it carried at once in one phase. Up to 40 bars; beyond,
 * bars cover ranges of loads.
 */
static void html_histogram(FILE *out, const struct cr_est_result *r)
{
	const unsigned W = 640, H = 240, L = 56, B = 40, T = 18;
	uint32_t maxload = 0, idle = 0, bins, width = 1, peak = 0;
	uint32_t *count;

	for (uint32_t l = 0; l < r->num_links; l++) {
		if (!r->link_total_flows[l])
			idle++;
		else if (r->link_max_flows[l] > maxload)
			maxload = r->link_max_flows[l];
	}
	fputs("<h3>", out);
	cr_html_put(out, r->name);
	fprintf(out,
		": link loads</h3>\n<p class=\"note\">Directed links by the"
		" most flows they carry at once in one phase; %u of %u links"
		" carry none.</p>\n",
		idle, r->num_links);
	if (!maxload)
		return;
	while ((maxload + width - 1) / width > 40)
		width++;
	bins = (maxload + width - 1) / width;
	count = calloc(bins, sizeof(*count));
	if (!count)
		return;
	for (uint32_t l = 0; l < r->num_links; l++)
		if (r->link_total_flows[l] && r->link_max_flows[l])
			count[(r->link_max_flows[l] - 1) / width]++;
	for (uint32_t b = 0; b < bins; b++)
		if (count[b] > peak)
			peak = count[b];
	fprintf(out,
		"<svg width=\"%u\" height=\"%u\" role=\"img\""
		" aria-label=\"histogram of link loads\""
		" font-size=\"11\">\n"
		"<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\""
		" stroke=\"#222\"/>\n"
		"<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\""
		" stroke=\"#222\"/>\n",
		W, H, L, T, L, H - B, L, H - B, W - 4, H - B);
	for (uint32_t b = 0; b < bins; b++) {
		double bw = (double)(W - L - 8) / bins;
		double h = (double)(H - B - T) * count[b] / peak;
		double x = L + b * bw + 1;
		uint32_t lo = b * width + 1, hi = (b + 1) * width;

		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
			" height=\"%.1f\" fill=\"#3b528b\"><title>%u",
			x, H - B - h, bw - 2, h, lo);
		if (hi > lo)
			fprintf(out, "-%u", hi);
		fprintf(out, " flows: %u links</title></rect>\n", count[b]);
		/* Counts on the bars: a few hot links next to thousands of
		 * quiet ones would not show otherwise. */
		if (count[b] && bins <= 24)
			fprintf(out,
				"<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\""
				" text-anchor=\"middle\">%u</text>\n",
				x + bw / 2 - 1, H - B - h - 3, count[b]);
		if (bins <= 20 || b % ((bins + 9) / 10) == 0)
			fprintf(out,
				"<text x=\"%.1f\" y=\"%u\""
				" text-anchor=\"middle\">%u</text>\n",
				x + bw / 2 - 1, H - B + 14, lo);
	}
	fprintf(out,
		"<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">flows on"
		" the link (most in one phase)</text>\n"
		"<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>\n"
		"<text x=\"%u\" y=\"%u\" text-anchor=\"end\">0</text>\n"
		"<text x=\"12\" y=\"%u\" transform=\"rotate(-90 12 %u)\""
		" text-anchor=\"middle\">links</text>\n</svg>\n",
		(W + L) / 2, H - 6, L - 4, T + 4, peak, L - 4, H - B,
		(H - B + T) / 2, (H - B + T) / 2);
	free(count);
}

static void html_hot(FILE *out, const struct cr_fabric *f,
		     const struct cr_est_result *r)
{
	if (!r->num_hot)
		return;
	fputs("<table>\n<tr><th>most flows in one phase</th>"
	      "<th>flows in all phases</th><th>capacity</th><th>link</th>"
	      "</tr>\n",
	      out);
	for (unsigned i = 0; i < r->num_hot; i++) {
		const struct cr_est_link *l = &r->hot[i];
		const struct cr_port *p = &f->nodes[l->node].ports[l->port];

		fprintf(out,
			"<tr><td class=\"n\">%u</td><td class=\"n\">%" PRIu64
			"</td><td class=\"n\">%.2f Gb/s</td><td>",
			l->max_flows, l->total_flows, l->capacity / 1000);
		cr_html_node(out, f, l->node, l->port);
		fprintf(out, " port %u &rarr; ", l->port);
		cr_html_node(out, f, p->remote, p->remote_port);
		fprintf(out, " port %u</td></tr>\n", p->remote_port);
	}
	fputs("</table>\n", out);
}

/*
 * Shift's average and minimum rate per phase k: which distances between
 * hosts suffer (mpiGraph's per-offset view). Phases in the order run.
 */
static void html_phases(FILE *out, const struct cr_est_result *r)
{
	const unsigned W = 640, H = 220, L = 48, B = 36, T = 10, R = 8;
	const double pw = W - L - R, ph = H - B - T;
	uint32_t kmax = 1;

	if (r->kind != CR_PAT_SHIFT || r->num_phases < 2)
		return;
	for (uint32_t i = 0; i < r->num_phases; i++)
		if (r->phase[i].label > kmax)
			kmax = r->phase[i].label;
	fputs("<h3>", out);
	cr_html_put(out, r->name);
	fprintf(out,
		": rate per phase</h3>\n<p class=\"note\">Phase k: host i"
		" sends to host i+k. Average (dark) and minimum (light) flow"
		" rate, as fractions of injection.</p>\n"
		"<svg width=\"%u\" height=\"%u\" role=\"img\""
		" aria-label=\"rate per phase\" font-size=\"11\">\n",
		W, H);
	for (unsigned t = 0; t <= 4; t++) {
		double y = T + ph - ph * t / 4;

		fprintf(out,
			"<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\""
			" stroke=\"#ddd\"/><text x=\"%u\" y=\"%.1f\""
			" text-anchor=\"end\">%.2f</text>\n",
			L, y, W - R, y, L - 4, y + 4, t / 4.0);
	}
	for (unsigned m = 0; m < 2; m++) {
		fprintf(out,
			"<polyline fill=\"none\" stroke=\"%s\""
			" stroke-width=\"1.2\" points=\"",
			m ? "#5ec962" : "#3b528b");
		for (uint32_t i = 0; i < r->num_phases; i++) {
			const struct cr_est_phase_stat *st = &r->phase[i];
			double v = m ? st->min_frac : st->avg_frac;

			if (v > 1)
				v = 1;
			fprintf(out, "%s%.1f,%.1f", i ? " " : "",
				L + pw * (kmax > 1 ? (st->label - 1.0) /
							     (kmax - 1)
						   : 0.5),
				T + ph - ph * v);
			if (i % 8 == 7)
				fputc('\n', out);
		}
		fputs("\"/>\n", out);
	}
	fprintf(out,
		"<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\""
		" stroke=\"#222\"/>\n"
		"<text x=\"%u\" y=\"%u\">1</text>"
		"<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>\n"
		"<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">phase k"
		"</text>\n</svg>\n",
		L, T + ph, W - R, T + ph, L, H - B + 14, W - R, H - B + 14,
		kmax, (W + L) / 2, H - 6);
}

int cr_est_write_html(FILE *out, const struct cr_fabric *f,
		      const struct cr_hosts *hosts,
		      struct cr_est_result *const *res, unsigned n,
		      const char *title)
{
	int err = 0;

	html_head(out, title);
	html_summary(out, res, n);
	for (unsigned i = 0; i < n; i++) {
		if (res[i]->matrix && html_matrix(out, f, res[i], hosts, i))
			err = -1;
		html_phases(out, res[i]);
	}
	fputs("<h2>Link loads</h2>\n", out);
	for (unsigned i = 0; i < n; i++) {
		html_histogram(out, res[i]);
		html_hot(out, f, res[i]);
		cr_html_links(out, f, res[i]);
	}
	fputs("</body>\n</html>\n", out);
	if (ferror(out)) {
		cr_err("cannot write the HTML report");
		err = -1;
	}
	return err;
}
