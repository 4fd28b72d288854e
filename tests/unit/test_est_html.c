// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the HTML report's pictures: the colour scale, the block
 * averaging of the shift matrix (hand-computed on known matrices), the
 * image, the PNG encoder (signature, header, pixels read back with
 * libpng) and the report as a whole on a routed fabric. Also the
 * estimate's opensm.conf keys (croute_estimate, croute_patterns,
 * croute_penalty_factors) and the default sampling of large fabrics.
 */
#include <math.h>
#include <png.h>
#include <string.h>

#include <croute/io/conf.h>
#include <croute/tune/conf_check.h>
#include <croute/estimate/est_setup.h>
#include <croute/report/est_html.h>

#include "testutil.h"

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void test_colour(void **state)
{
	uint8_t c[3], d[3];

	cr_est_colour(0, c);
	assert_int_equal(c[0], 68);
	assert_int_equal(c[1], 1);
	assert_int_equal(c[2], 84);
	cr_est_colour(1, c);
	assert_int_equal(c[0], 253);
	assert_int_equal(c[1], 231);
	assert_int_equal(c[2], 37);
	/* clamped above 1; no flow is grey, unlike any rate */
	cr_est_colour(7, d);
	assert_memory_equal(c, d, 3);
	cr_est_colour(-1, c);
	assert_int_equal(c[0], c[1]);
	assert_int_equal(c[1], c[2]);
	/* halfway between the anchors 0.5 and 0.75 */
	cr_est_colour(0.625, c);
	assert_int_equal(c[0], 64);
	assert_int_equal(c[1], 173);
	assert_int_equal(c[2], 119);
}

/* cr_matrix_reduce() on a matrix m of dim cells of block of hosts hosts. */
static int reduce(const float *m, uint32_t dim, uint32_t block, uint32_t hosts,
		  uint32_t max_cells, float **out, uint32_t *out_dim)
{
	struct cr_est_result res = {.hosts = hosts,
				    .mat_dim = dim,
				    .mat_block = block,
				    .matrix = (float *)m};

	return cr_matrix_reduce(&res, max_cells, out, out_dim);
}

/* 4 hosts, exact cells, reduced to 2 x 2: diagonal cells do not count. */
static void test_reduce_exact(void **state)
{
	const float m[16] = {
		-1,    0.5f,  0.25f, 1, /**/ 1, -1, 0.5f, 0.5f,
		0.75f, 0.25f, -1,    1, /**/ 1, 1,  0.5f, -1,
	};
	float *o;
	uint32_t od;

	assert_int_equal(reduce(m, 4, 1, 4, 2, &o, &od), 0);
	assert_int_equal(od, 2);
	assert_float_equal(o[0], (0.5 + 1) / 2, 1e-6);
	assert_float_equal(o[1], (0.25 + 1 + 0.5 + 0.5) / 4, 1e-6);
	assert_float_equal(o[2], (0.75 + 0.25 + 1 + 1) / 4, 1e-6);
	assert_float_equal(o[3], (1 + 0.5) / 2, 1e-6);
	free(o);

	/* Room for every cell: unchanged. */
	assert_int_equal(reduce(m, 4, 1, 4, 1024, &o, &od), 0);
	assert_int_equal(od, 4);
	assert_memory_equal(o, m, sizeof(m));
	free(o);

	/* 4 cells into at most 3: squares of 2, so 2 x 2 again. */
	assert_int_equal(reduce(m, 4, 1, 4, 3, &o, &od), 0);
	assert_int_equal(od, 2);
	free(o);
}

/*
 * A matrix already in blocks of 2 of 3 hosts (the estimator's own blocks
 * past matrix_max): block 0 has 2 hosts, block 1 one. Cells weigh their
 * host pairs: (0,0) 2*2-2 = 2, (0,1) 2, (1,0) 2, (1,1) 1-1 = 0.
 */
static void test_reduce_weighted(void **state)
{
	const float m[4] = {0.9f, 0.3f, 0.6f, 0.2f};
	float *o;
	uint32_t od;

	assert_int_equal(reduce(m, 2, 2, 3, 1, &o, &od), 0);
	assert_int_equal(od, 1);
	assert_float_equal(o[0], (2 * 0.9 + 2 * 0.3 + 2 * 0.6) / 6, 1e-6);
	free(o);

	/* 5 cells in squares of 2: the last square is a partial one. */
	float n[25];

	for (unsigned i = 0; i < 25; i++)
		n[i] = i % 6 ? (float)(i % 5) / 4 : -1; /* diagonal -1 */
	assert_int_equal(reduce(n, 5, 1, 5, 3, &o, &od), 0);
	assert_int_equal(od, 3);
	/* the corner square is only the diagonal cell (4,4): no flow */
	assert_true(o[8] < 0);
	/* (row 4, columns 0-1): cells 20 and 21 */
	assert_float_equal(o[6], (0.0 + 0.25) / 2, 1e-6);
	free(o);
}

static struct cr_est_result *fake_shift(uint32_t hosts, const float *m)
{
	struct cr_est_result *res = calloc(1, sizeof(*res));

	assert_non_null(res);
	res->kind = CR_PAT_SHIFT;
	res->hosts = hosts;
	res->mat_dim = hosts;
	res->mat_block = 1;
	res->matrix = malloc(hosts * hosts * sizeof(float));
	assert_non_null(res->matrix);
	memcpy(res->matrix, m, hosts * hosts * sizeof(float));
	snprintf(res->name, sizeof(res->name), "shift");
	return res;
}

static void test_image(void **state)
{
	const float m[9] = {-1, 1, 0, 0.5f, -1, 1, 1, 0.25f, -1};
	struct cr_est_result *res = fake_shift(3, m);
	struct cr_image img;

	/* magnified: 3 cells of 10 pixels */
	assert_int_equal(cr_est_matrix_image(res, 0, 32, &img), 0);
	assert_int_equal(img.width, 30);
	assert_int_equal(img.height, 30);
	for (uint32_t y = 0; y < 30; y++)
		for (uint32_t x = 0; x < 30; x++) {
			uint8_t c[3];

			cr_est_colour(m[(y / 10) * 3 + x / 10], c);
			assert_memory_equal(img.rgb + (y * 30 + x) * 3, c, 3);
		}
	cr_image_release(&img);

	/* no magnification, at most 2 cells: one pixel, the average */
	assert_int_equal(cr_est_matrix_image(res, 2, 0, &img), 0);
	assert_int_equal(img.width, 2);
	assert_int_equal(img.height, 2);
	{
		uint8_t c[3];

		cr_est_colour((1 + 0.5) / 2, c);
		assert_memory_equal(img.rgb, c, 3);
	}
	cr_image_release(&img);

	/* no matrix (not shift): no image */
	free(res->matrix);
	res->matrix = NULL;
	assert_int_equal(cr_est_matrix_image(res, 0, 0, &img), -1);
	cr_est_result_free(res);
}

static void test_png(void **state)
{
	struct cr_image img = {.width = 5, .height = 3};
	png_image rd;
	uint8_t *buf, *back;
	size_t len;

	img.rgb = malloc(5 * 3 * 3);
	assert_non_null(img.rgb);
	for (unsigned i = 0; i < 5 * 3 * 3; i++)
		img.rgb[i] = (uint8_t)(i * 17);
	assert_int_equal(cr_png_encode(&img, &buf, &len), 0);
	assert_true(len > 33);
	assert_memory_equal(buf, png_sig, 8);
	/* the first chunk is IHDR: width, height, depth 8, RGB */
	assert_memory_equal(buf + 12, "IHDR", 4);
	assert_int_equal(be32(buf + 16), 5);
	assert_int_equal(be32(buf + 20), 3);
	assert_int_equal(buf[24], 8);
	assert_int_equal(buf[25], PNG_COLOR_TYPE_RGB);

	/* and libpng reads back the same pixels */
	memset(&rd, 0, sizeof(rd));
	rd.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_memory(&rd, buf, len));
	assert_int_equal(rd.width, 5);
	assert_int_equal(rd.height, 3);
	rd.format = PNG_FORMAT_RGB;
	back = malloc(PNG_IMAGE_SIZE(rd));
	assert_non_null(back);
	assert_true(png_image_finish_read(&rd, NULL, back, 0, NULL));
	assert_memory_equal(back, img.rgb, 5 * 3 * 3);
	free(back);
	free(buf);
	cr_image_release(&img);
}

/* Decodes the first data URI's base64 into buf; its length. */
static size_t first_png(const char *html, uint8_t *buf, size_t cap)
{
	static const char key[] = "data:image/png;base64,";
	const char *s = strstr(html, key);
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t n = 0;

	assert_non_null(s);
	for (s += sizeof(key) - 1; *s && *s != '"' && *s != '='; s++) {
		const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				  "qrstuvwxyz0123456789+/";
		const char *p = strchr(tab, *s);

		if (*s == '\n')
			continue;
		assert_non_null(p);
		acc = acc << 6 | (uint32_t)(p - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			assert_true(n < cap);
			buf[n++] = (uint8_t)(acc >> bits);
		}
	}
	return n;
}

static void test_html_report(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 4, 2, NULL, 0);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_est_params par;
	struct cr_est *e;
	struct cr_hosts *h;
	struct cr_pattern *pats;
	struct cr_est_result *res[2];
	static uint8_t png[1 << 20];
	char *html = NULL;
	size_t len = 0, n;
	FILE *out;

	cr_est_params_init(&par);
	e = cr_est_new(f, r, &par);
	assert_non_null(e);
	h = cr_hosts_default(f);
	assert_non_null(h);
	assert_int_equal(cr_pattern_list_parse("shift,bisect:2", &pats), 2);
	for (int i = 0; i < 2; i++) {
		res[i] = cr_est_run(e, &pats[i], h);
		assert_non_null(res[i]);
	}
	out = open_memstream(&html, &len);
	assert_non_null(out);
	assert_int_equal(
		cr_est_write_html(out, f, h, res, 2, "a <test> & more"), 0);
	fclose(out);
	assert_non_null(strstr(html, "<!DOCTYPE html>"));
	assert_non_null(strstr(html, "a &lt;test&gt; &amp; more"));
	assert_null(strstr(html, "<test>"));
	/* one matrix (shift's), histograms for both patterns */
	assert_non_null(strstr(html, "bisect:2: link loads"));
	assert_non_null(strstr(html, "shift: link loads"));
	/* the per-phase chart is shift's alone */
	assert_non_null(strstr(html, "shift: rate per phase"));
	assert_null(strstr(html, "bisect:2: rate per phase"));
	assert_null(strstr(strstr(html, "base64,") + 1, "base64,"));
	assert_non_null(strstr(html, "</html>"));
	n = first_png(html, png, sizeof(png));
	assert_memory_equal(png, png_sig, 8);
	/* 16 hosts, magnified to whole pixels: 16 * 32 */
	assert_int_equal(be32(png + 16), 16 * (CR_HTML_MATRIX_MIN_PX / 16));
	assert_true(n > 100);
	free(html);
	for (int i = 0; i < 2; i++)
		cr_est_result_free(res[i]);
	cr_pattern_list_free(pats, 2);
	cr_hosts_free(h);
	cr_est_free(e);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * Host names and link loads on a small fabric: two leaves of two hosts,
 * one spine. Shift over h0000..h0003 (leaf sw0001 holds h0000 and h0001):
 * phase 1 sends h0001 -> h0002 up sw0001's uplink, phase 2 both of its
 * hosts, phase 3 h0000 -> h0003: at most 2 flows at once, 4 in all, and
 * the same down the other way; every host link carries 1 flow a phase.
 */
static void test_html_hosts_links(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 2, 1, NULL, 0);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_pattern p = {.kind = CR_PAT_SHIFT, .seed = 1};
	struct cr_est_result *res;
	struct cr_est *e;
	struct cr_hosts *h;
	char *html = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	e = cr_est_new(f, r, NULL);
	h = cr_hosts_default(f);
	assert_non_null(e);
	assert_non_null(h);
	res = cr_est_run(e, &p, h);
	assert_non_null(res);
	out = open_memstream(&html, &len);
	assert_int_equal(cr_est_write_html(out, f, h, &res, 1, "t"), 0);
	fclose(out);
	/* names on both axes (4 cells of 128 pixels) and in the tooltip */
	assert_non_null(strstr(html, "<div class=\"xlab\"><span style=\"width:"
				     "128px\">h0000</span><span style=\"width:"
				     "128px\">h0001</span>"));
	assert_non_null(strstr(html, "<div class=\"ylab\"><span style=\""
				     "height:128px\">h0000</span>"));
	assert_non_null(strstr(html, "var H = [\"h0000\", \"h0001\", "
				     "\"h0002\", \"h0003\"];"));
	/* the link section: table rows and the cables' loads */
	assert_non_null(strstr(html, "shift: the fabric's links by load"));
	assert_non_null(strstr(html, "<td>level 0 &rarr; 1 (up)</td><td "
				     "class=\"n\">2</td><td class=\"n\">2</td>"
				     "<td class=\"n\">2.00</td>"));
	assert_non_null(strstr(html,
			       "<td>host &rarr; leaf switch</td><td "
			       "class=\"n\">4</td><td class=\"n\">1</td>"));
	/* each end by description, GUID and LID */
	assert_non_null(strstr(html, "<title>sw0001 0x"));
	assert_non_null(strstr(html, " port 3 &rarr; sw1000 0x"));
	assert_non_null(strstr(html, " port 1: 2 flows at most in one phase,"
				     " 4 in all; back: 2 at most, 4 in all"));
	assert_non_null(strstr(html, "<title>h0000 0x"));
	assert_non_null(strstr(html, " port 1 &rarr; sw0001 0x"));
	assert_non_null(strstr(html, " port 1: 1 flows at most in one phase,"
				     " 3 in all"));
	assert_non_null(strstr(html, "data-load=\"2\""));
	/* without the host order: no names, the rest unchanged */
	free(html);
	html = NULL;
	out = open_memstream(&html, &len);
	assert_int_equal(cr_est_write_html(out, f, NULL, &res, 1, "t"), 0);
	fclose(out);
	assert_null(strstr(html, "var H ="));
	assert_null(strstr(html, "class=\"xlab\""));
	assert_non_null(strstr(html, " port 3 &rarr; sw1000 0x"));
	free(html);
	cr_est_result_free(res);
	cr_hosts_free(h);
	cr_est_free(e);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static int conf_line(struct cr_conf *c, const char *text)
{
	char line[256];

	snprintf(line, sizeof(line), "%s", text);
	if (cr_conf_parse_line(c, "test.conf", 1, line))
		return -1;
	return cr_conf_check(c) ? -1 : 0;
}

static void test_conf_keys(void **state)
{
	struct cr_penalty pen, dflt;
	struct cr_conf c;
	struct cr_pattern *pats;
	bool sampled;
	int n;

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	cr_conf_defaults(&c);
	assert_int_equal(c.est.mode, CR_EST_MODE_SUMMARY);
	assert_string_equal(c.est.penalty, "");
	assert_string_equal(c.est.patterns, "");

	assert_int_equal(conf_line(&c, "croute_estimate full"), 0);
	assert_int_equal(c.est.mode, CR_EST_MODE_FULL);
	assert_int_equal(conf_line(&c, "croute_estimate often"), -1);
	assert_int_equal(c.est.mode, CR_EST_MODE_FULL);
	assert_int_equal(conf_line(&c, "croute_estimate none # off"), 0);
	assert_int_equal(c.est.mode, CR_EST_MODE_NONE);

	assert_int_equal(conf_line(&c, "croute_penalty_factors 0.9; 0.8 ;1.5"),
			 0);
	cr_est_conf_penalty(&c.est, &pen);
	assert_float_equal(pen.be, 0.9, 1e-12);
	assert_float_equal(pen.bs, 0.8, 1e-12);
	assert_float_equal(pen.gr, 1.5, 1e-12);
	cr_conf_defaults(&c);
	assert_int_equal(conf_line(&c, "croute_penalty_factors 0.9;0.8"), -1);
	assert_int_equal(conf_line(&c, "croute_penalty_factors 1;0;1"), -1);
	assert_int_equal(conf_line(&c, "croute_penalty_factors 1;2;3;4"), -1);
	assert_int_equal(conf_line(&c, "croute_penalty_factors a;b;c"), -1);
	assert_string_equal(c.est.penalty, "");
	cr_est_conf_penalty(&c.est, &pen);
	cr_penalty_default(&dflt);
	assert_memory_equal(&pen, &dflt, sizeof(pen));

	assert_int_equal(conf_line(&c, "croute_patterns shift:8,fanin"), 0);
	assert_string_equal(c.est.patterns, "shift:8,fanin");
	/* checked after parsing: back to the default */
	assert_int_equal(conf_line(&c, "croute_patterns shift,nonsense"), -1);
	assert_string_equal(c.est.patterns, "");

	/* the default samples shift on large fabrics, and only then */
	cr_conf_defaults(&c);
	n = cr_est_conf_patterns_for(&c.est, 100, &pats, &sampled);
	assert_int_equal(n, 2);
	assert_false(sampled);
	assert_int_equal(pats[0].kind, CR_PAT_SHIFT);
	assert_int_equal(pats[0].count, 0);
	cr_pattern_list_free(pats, n);
	n = cr_est_conf_patterns_for(&c.est, CR_EST_LARGE_HOSTS + 1, &pats,
				     &sampled);
	assert_true(sampled);
	/* about CR_EST_SAMPLE_FLOWS flows: 1,999 phases, 144 on 27,648 */
	assert_int_equal(pats[0].count, 1999);
	assert_int_equal(pats[1].kind, CR_PAT_BISECT);
	cr_pattern_list_free(pats, n);
	n = cr_est_conf_patterns_for(&c.est, 27648, &pats, &sampled);
	assert_true(sampled);
	assert_int_equal(pats[0].count, 144);
	cr_pattern_list_free(pats, n);
	n = cr_est_conf_patterns_for(&c.est, CR_EST_LARGE_HOSTS, &pats,
				     &sampled);
	assert_false(sampled);
	assert_int_equal(pats[0].count, 0);
	cr_pattern_list_free(pats, n);
	assert_int_equal(cr_est_sample_phases(100000), CR_EST_LARGE_PHASES);
	/* an explicit choice is kept as it is */
	assert_int_equal(conf_line(&c, "croute_patterns shift"), 0);
	n = cr_est_conf_patterns_for(&c.est, 30000, &pats, &sampled);
	assert_int_equal(n, 1);
	assert_false(sampled);
	assert_int_equal(pats[0].count, 0);
	cr_pattern_list_free(pats, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colour),
		cmocka_unit_test(test_reduce_exact),
		cmocka_unit_test(test_reduce_weighted),
		cmocka_unit_test(test_image),
		cmocka_unit_test(test_png),
		cmocka_unit_test(test_html_report),
		cmocka_unit_test(test_html_hosts_links),
		cmocka_unit_test(test_conf_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
