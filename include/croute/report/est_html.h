/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contention estimate as a self-contained HTML page: the shift
 * pattern's sender x receiver matrix as a PNG image (the picture mpiGraph
 * draws) with its colour scale and its rate per phase, a histogram of link
 * loads per pattern and the hottest links. Everything is inline (the PNG
 * as a base64 data URI, the charts as SVG), so the file can be mailed or
 * archived alone.
 */
#ifndef CROUTE_EST_HTML_H
#define CROUTE_EST_HTML_H

#include <stdio.h>
#include <croute/estimate/estimate.h>

/* The matrix image holds at most this many cells a side (then blocks). */
#define CR_HTML_MATRIX_PX 1024
/* Small matrices are magnified to about this many pixels a side. */
#define CR_HTML_MATRIX_MIN_PX 512

/* An RGB image: 3 bytes a pixel, rows top to bottom. */
struct cr_image {
	uint32_t width, height;
	uint8_t *rgb;
};

void cr_image_release(struct cr_image *img);

/*
 * The colour of a rate on the report's scale: v is a fraction of the
 * injection rate, 0 (dark) to 1 (bright), clamped; v < 0 (no flow
 * between those hosts, e.g. a host to itself) is light grey.
 */
void cr_est_colour(double v, uint8_t rgb[3]);

/*
 * Averages res's matrix (mat_dim x mat_dim cells, each the average of
 * the flows between blocks of mat_block of the res->hosts hosts, < 0
 * when none) in squares of cells so that at most max_cells remain a
 * side. Each cell weighs as many host pairs as it covers, so that the
 * result is the average over host pairs whatever the block sizes; a
 * square without any flow is -1. *out (out_dim squared floats) is
 * allocated. 0 or -1 (memory).
 */
int cr_matrix_reduce(const struct cr_est_result *res, uint32_t max_cells,
		     float **out, uint32_t *out_dim);

/*
 * The matrix of a shift result as an image: reduced to max_cells a side
 * (0: CR_HTML_MATRIX_PX), each cell drawn as a square of whole pixels
 * magnified up to about min_px (0: no magnification). -1 when res has no
 * matrix or memory runs out.
 */
int cr_est_matrix_image(const struct cr_est_result *res, uint32_t max_cells,
			uint32_t min_px, struct cr_image *img);

/* PNG (8-bit RGB) in memory: *buf is allocated. 0 or -1 (logged). */
int cr_png_encode(const struct cr_image *img, uint8_t **buf, size_t *len);

/*
 * The HTML report of n results; title says what was estimated (engine,
 * topology). hosts (may be NULL) is the order the patterns ran over: it
 * names the matrix's hosts on its axes (when each cell is one host and
 * large enough) and in a tooltip. Each pattern also gets the fabric's
 * links coloured by load: a table by level and load for any fabric, and a
 * drawing of switches by level for fabrics of at most 64 switches.
 * 0, or -1 on an error (logged).
 */
int cr_est_write_html(FILE *out, const struct cr_fabric *f,
		      const struct cr_hosts *hosts,
		      struct cr_est_result *const *res, unsigned n,
		      const char *title);

#endif
