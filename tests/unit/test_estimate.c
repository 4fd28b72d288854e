// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the contention estimator against hand-computed figures.
 * Factors are the defaults (βe 0.965, βs 0.925, γr 1.35) unless a test
 * says otherwise; 4x QDR links carry 32000 Mb/s, 4x SDR 8000. LFTs are
 * filled by hand so that the estimator is tested on its own.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <croute/estimate/est_report.h>
#include <croute/estimate/host_order.h>

#include "testutil.h"
#include "../../src/core/estimate/maxmin.h"

#define QDR 32000.0
#define BE 0.965
#define BS 0.925
#define GR 1.35

#define assert_near(a, b) assert_near_(a, b, __FILE__, __LINE__)

static void assert_near_(double a, double b, const char *file, int line)
{
	if (fabs(a - b) <= 1e-9 * fmax(1, fabs(b)))
		return;
	fail_msg("%s:%d: %.12g != %.12g", file, line, a, b);
}

/*
 * Switches in a row, sw[i] - sw[i+1] cabled on ports 1 (right) and 2
 * (left), each with `hosts` hosts from port 3 on; host h of switch i is
 * f->nodes[host[i * hosts + h]]. LFTs: local hosts to their port, others
 * right or left.
 */
struct line {
	struct cr_fabric *f;
	struct cr_routing *r;
	uint32_t sw[4];
	uint32_t host[16];
	unsigned nsw, hosts;
};

static void line_build(struct line *t, unsigned nsw, unsigned hosts)
{
	memset(t, 0, sizeof(*t));
	t->f = cr_fabric_new();
	t->nsw = nsw;
	t->hosts = hosts;
	for (unsigned i = 0; i < nsw; i++)
		t->sw[i] = tu_switch(t->f, 2 + hosts, i + 1);
	for (unsigned i = 0; i + 1 < nsw; i++)
		tu_link(t->f, t->sw[i], 1, t->sw[i + 1], 2);
	for (unsigned i = 0; i < nsw; i++)
		for (unsigned h = 0; h < hosts; h++) {
			t->host[i * hosts + h] = tu_host(t->f, i * hosts + h);
			tu_link(t->f, t->sw[i], 3 + h, t->host[i * hosts + h],
				1);
		}
}

static uint16_t hlid(const struct line *t, unsigned h)
{
	return t->f->nodes[t->host[h]].ports[1].lid;
}

static void line_route(struct line *t)
{
	assert_int_equal(cr_fabric_assign_lids(t->f, 0), 0);
	t->r = cr_routing_new(t->f);
	assert_non_null(t->r);
	for (unsigned i = 0; i < t->nsw; i++) {
		for (unsigned h = 0; h < t->nsw * t->hosts; h++) {
			unsigned at = h / t->hosts;

			t->r->lft[t->sw[i]][hlid(t, h)] =
				at == i	 ? 3 + h % t->hosts
				: at > i ? 1
					 : 2;
		}
		t->r->lft[t->sw[i]][t->f->nodes[t->sw[i]].ports[0].lid] = 0;
	}
}

static void line_free(struct line *t)
{
	cr_routing_free(t->r);
	cr_fabric_free(t->f);
}

/* Host a sends to host b. */
static struct cr_flow fl(const struct line *t, unsigned a, unsigned b)
{
	struct cr_flow x = {
		.src_node = t->host[a], .src_port = 1, .dst_lid = hlid(t, b)};
	return x;
}

/*
 * Runs one phase with the given factors (NULL: defaults); returns the
 * number of flows that do not arrive.
 */
static long phase(const struct line *t, const struct cr_flow *flows, size_t n,
		  const char *factors, struct cr_flow_est *out)
{
	struct cr_est_params par;
	struct cr_est *e;
	long unrouted;

	cr_est_params_init(&par);
	if (factors)
		assert_int_equal(cr_penalty_parse(factors, "test", &par.pen),
				 0);
	e = cr_est_new(t->f, t->r, &par);
	assert_non_null(e);
	unrouted = cr_est_phase(e, flows, n, out);
	assert_true(unrouted >= 0);
	cr_est_free(e);
	return unrouted;
}

static void test_one_flow(void **state)
{
	struct line t;
	struct cr_flow_est o[1];

	line_build(&t, 2, 2);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 3)};

	phase(&t, f, 1, NULL, o);
	assert_int_equal(o[0].status, CR_FLOW_OK);
	assert_int_equal(o[0].hops, 3); /* CA->sw1, sw1->sw2, sw2->CA */
	assert_near(o[0].penalty, 1);
	assert_near(o[0].bottleneck, QDR);
	assert_near(o[0].rate, QDR);
	assert_near(o[0].inject, QDR);
	line_free(&t);
}

/* h0 -> h2 and h1 -> h3 share sw1 -> sw2; no penalty (Δs = Δe = 1). */
static void test_two_flows_share_link(void **state)
{
	struct line t;
	struct cr_flow_est o[2];

	line_build(&t, 2, 2);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 2), fl(&t, 1, 3)};

	phase(&t, f, 2, NULL, o);
	for (int i = 0; i < 2; i++) {
		assert_near(o[i].penalty, 1);
		assert_near(o[i].bound, QDR);
		assert_near(o[i].rate, QDR / 2);
	}
	line_free(&t);
}

/*
 * Δs = 2 without Δe >= 3: ps = 2 βs = 1.85, bound 32000 / 1.85 =
 * 17297.3, above the 16000 each gets of h0's injection link: the link
 * decides (bound above the link share).
 */
static void test_fanout_two(void **state)
{
	struct line t;
	struct cr_flow_est o[2];

	line_build(&t, 1, 3);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 1), fl(&t, 0, 2)};

	phase(&t, f, 2, NULL, o);
	for (int i = 0; i < 2; i++) {
		assert_near(o[i].penalty, 2 * BS);
		assert_near(o[i].bound, QDR / (2 * BS));
		assert_near(o[i].rate, QDR / 2);
	}
	line_free(&t);
}

/*
 * Δs(h0) = 2 with Δe(h2) = 3 (h0, h3, h4 -> h2; h0 -> h1):
 *  ps(h0->h2) = 2 βs γr = 2.4975 = Pout(h0); ps(h0->h1) = 1.85
 *  pe(x->h2) = Φ βe Ω = 3 x 0.965 = 2.895; pe(h0->h1) = 1
 *  p(h0->h1) = 2.4975: bound 12812.8, below its link share (16000)
 *  p(* -> h2) = 2.895: bound 11053.5, above the 10666.7 each gets of the
 *  link into h2, which decides.
 */
static void test_fanout_gamma(void **state)
{
	struct line t;
	struct cr_flow_est o[4];

	line_build(&t, 1, 5);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 1), fl(&t, 0, 2), fl(&t, 3, 2),
			      fl(&t, 4, 2)};

	phase(&t, f, 4, NULL, o);
	assert_near(o[0].penalty, 2 * BS * GR);
	assert_near(o[0].rate, QDR / (2 * BS * GR));
	for (int i = 1; i < 4; i++) {
		assert_near(o[i].penalty, 3 * BE);
		assert_near(o[i].bound, QDR / (3 * BE));
		assert_near(o[i].rate, QDR / 3);
	}
	line_free(&t);
}

/*
 * Incast from three nodes: pe = 3 βe = 2.895, bound 11053.5 > 10666.7:
 * the link into the receiver decides. With βe = 1.2, pe = 3.6 and the
 * bound 8888.9 decides instead.
 */
static void test_incast_three(void **state)
{
	struct line t;
	struct cr_flow_est o[3];

	line_build(&t, 1, 4);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 1, 0), fl(&t, 2, 0), fl(&t, 3, 0)};

	phase(&t, f, 3, NULL, o);
	for (int i = 0; i < 3; i++) {
		assert_near(o[i].penalty, 3 * BE);
		assert_near(o[i].rate, QDR / 3);
	}
	phase(&t, f, 3, "1.2;0.925;1.35", o);
	for (int i = 0; i < 3; i++) {
		assert_near(o[i].penalty, 3.6);
		assert_near(o[i].rate, QDR / 3.6);
	}
	line_free(&t);
}

/*
 * Ω > 1: h0 sends two flows to h1, h2 one. Δe(h1) = 3, Φ(h1) = 2.
 *  h0's flows: ps = 2 βs γr = 2.4975, pe = Φ βe Ω = 2 x 0.965 x 2 = 3.86;
 *  p = 3.86, bound 8290.16: below the link share, they stop there.
 *  h2's flow: Pout 1, pe = 2 x 0.965 = 1.93, bound 16580.3; the link into
 *  h1 has 32000 - 2 x 8290.16 = 15419.7 left: the link decides.
 */
static void test_omega(void **state)
{
	struct line t;
	struct cr_flow_est o[3];
	double b;

	line_build(&t, 1, 3);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 1), fl(&t, 0, 1), fl(&t, 2, 1)};

	phase(&t, f, 3, NULL, o);
	b = QDR / (2 * BE * 2);
	assert_near(o[0].penalty, 2 * BE * 2);
	assert_near(o[0].rate, b);
	assert_near(o[1].rate, b);
	assert_near(o[2].penalty, 2 * BE);
	assert_near(o[2].bound, QDR / (2 * BE));
	assert_near(o[2].rate, QDR - 2 * b);
	line_free(&t);
}

/*
 * The penalty decides: h0 sends three flows to h1. Δs = Δe = 3: ps =
 * 3 βs γr = 3.74625, pe = 1 x βe x 3 = 2.895; p = 3.74625, bound 8541.8,
 * below the 10666.7 link share, for all three.
 */
static void test_penalty_bound_pattern(void **state)
{
	struct line t;
	struct cr_flow_est o[3];

	line_build(&t, 1, 2);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 1), fl(&t, 0, 1), fl(&t, 0, 1)};

	phase(&t, f, 3, NULL, o);
	for (int i = 0; i < 3; i++) {
		assert_near(o[i].penalty, 3 * BS * GR);
		assert_near(o[i].rate, QDR / (3 * BS * GR));
		assert_true(o[i].rate < QDR / 3);
	}
	line_free(&t);
}

/*
 * The links decide: four disjoint pairs across sw1 -> sw2 -> sw3, no
 * penalty, the two middle links shared by four flows: 8000 each.
 */
static void test_link_bound_pattern(void **state)
{
	struct line t;
	struct cr_flow_est o[4];

	line_build(&t, 3, 4);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 8), fl(&t, 1, 9), fl(&t, 2, 10),
			      fl(&t, 3, 11)};

	phase(&t, f, 4, NULL, o);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(o[i].hops, 4);
		assert_near(o[i].bound, QDR);
		assert_near(o[i].rate, QDR / 4);
	}
	line_free(&t);
}

/*
 * A 4x SDR link between the switches: B = 8000. Alone, h0 -> h3 gets
 * 8000 (0.25 of its injection rate). With h0 -> h1 beside it, Δs = 2:
 * both bounds are their bottleneck over 1.85, 4324.3 and 17297.3, and
 * h0's injection link (32000) holds both.
 */
static void test_bottleneck_link(void **state)
{
	struct line t;
	struct cr_flow_est o[2];

	line_build(&t, 2, 2);
	t.f->nodes[t.sw[0]].ports[1].speed = CR_SPEED_SDR;
	t.f->nodes[t.sw[1]].ports[2].speed = CR_SPEED_SDR;
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 3), fl(&t, 0, 1)};

	phase(&t, f, 1, NULL, o);
	assert_near(o[0].bottleneck, 8000);
	assert_near(o[0].rate, 8000);
	assert_near(o[0].rate / o[0].inject, 0.25);
	phase(&t, f, 2, NULL, o);
	assert_near(o[0].bound, 8000 / (2 * BS));
	assert_near(o[0].rate, 8000 / (2 * BS));
	assert_near(o[1].rate, QDR / (2 * BS));
	line_free(&t);
}

/* No path and loops are reported, rate 0, and left out of the counts. */
static void test_unrouted(void **state)
{
	struct line t;
	struct cr_flow_est o[3];

	line_build(&t, 3, 1);
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 2), fl(&t, 1, 0), fl(&t, 2, 0)};

	t.r->lft[t.sw[1]][hlid(&t, 2)] = CR_NO_PATH; /* h0 -> h2 dies */
	t.r->lft[t.sw[1]][hlid(&t, 0)] = 1; /* sw2 <-> sw3 loop */
	assert_int_equal(phase(&t, f, 3, NULL, o), 3);
	assert_int_equal(o[0].status, CR_FLOW_NO_PATH);
	assert_int_equal(o[0].stop_node, t.sw[1]);
	assert_int_equal(o[1].status, CR_FLOW_LOOP);
	assert_int_equal(o[2].status, CR_FLOW_LOOP);
	for (int i = 0; i < 3; i++)
		assert_near(o[i].rate, 0);

	/* h1 -> h0 routed again: h0 receives one counted flow only */
	t.r->lft[t.sw[1]][hlid(&t, 0)] = 2;
	t.r->lft[t.sw[2]][hlid(&t, 0)] = CR_NO_PATH;
	assert_int_equal(phase(&t, f, 3, NULL, o), 2);
	assert_int_equal(o[1].status, CR_FLOW_OK);
	assert_near(o[1].penalty, 1);
	assert_near(o[1].rate, QDR);
	line_free(&t);
}

/*
 * shift on two leaves of two hosts under one spine (host order h0..h3):
 * k = 1 and 3 cross the spine once each way: 1.0; k = 2 puts two flows
 * on each uplink: 0.5. Average 10 / 12, minimum 0.5.
 */
static void test_shift_pattern(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 2, 1, NULL, 0);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_hosts *h = cr_hosts_default(f);
	struct cr_est *e = cr_est_new(f, r, NULL);
	struct cr_pattern p;
	struct cr_est_result *res;
	char line[256];

	assert_non_null(h);
	assert_non_null(e);
	assert_int_equal(h->count, 4);
	assert_string_equal(f->nodes[h->ep[0].node].desc, "h0000");
	assert_string_equal(f->nodes[h->ep[3].node].desc, "h0003");
	assert_int_equal(cr_pattern_parse("shift", &p), 0);
	res = cr_est_run(e, &p, h);
	assert_non_null(res);
	assert_int_equal(res->num_phases, 3);
	assert_int_equal(res->flows, 12);
	assert_int_equal(res->unrouted, 0);
	assert_near(res->avg_frac, 10.0 / 12);
	assert_near(res->min_frac, 0.5);
	assert_near(res->min_gbps, 16);
	assert_near(res->phase[0].avg_frac, 1);
	assert_near(res->phase[1].avg_frac, 0.5);
	assert_int_equal(res->phase[1].label, 2);
	assert_int_equal(res->hot[0].max_flows, 2);
	assert_true(cr_is_switch(f, res->hot[0].node));
	assert_int_equal(res->mat_dim, 4);
	assert_near(res->matrix[0 * 4 + 2], 0.5);
	assert_near(res->matrix[0 * 4 + 1], 1);
	assert_true(res->matrix[0] < 0); /* no flow to itself */
	cr_est_summary(res, line, sizeof(line));
	assert_non_null(strstr(line, "shift: 3 phases, 12 flows"));
	{
		/* The text report says what the result holds. */
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		assert_non_null(out);
		assert_int_equal(
			cr_est_write_text(out, f, res, CR_REPORT_PHASES), 0);
		fclose(out);
		assert_non_null(strstr(buf, "pattern shift: 3 of 3 phases,"
					    " 4 hosts, seed 1"));
		assert_non_null(strstr(buf, "  flows          12 (0 without"
					    " path)\n"));
		assert_non_null(strstr(buf, "  average rate   0.8333 of"
					    " injection, 26.667 Gb/s\n"));
		assert_non_null(strstr(buf, "  minimum rate   0.5000 of"
					    " injection, 16.000 Gb/s\n"));
		assert_non_null(strstr(buf, "  hottest links"));
		assert_non_null(strstr(buf, "  matrix         4 x 4 (blocks"
					    " of 1 host)\n"));
		/* per phase: k 1 at full rate, k 2 at half */
		assert_non_null(strstr(buf, "\n  1                4   1.0000"
					    "   1.0000"));
		assert_non_null(strstr(buf, "\n  2                4   0.5000"
					    "   0.5000"));
		free(buf);
	}
	cr_est_result_free(res);
	cr_pattern_release(&p);

	/* a sample of two phases of three, reproducible */
	assert_int_equal(cr_pattern_parse("shift:2", &p), 0);
	res = cr_est_run(e, &p, h);
	assert_non_null(res);
	assert_int_equal(res->num_phases, 2);
	assert_int_equal(res->phases_total, 3);
	assert_true(res->phase[0].label < res->phase[1].label);
	cr_est_result_free(res);

	cr_est_free(e);
	cr_hosts_free(h);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * alltoall:K, the sampled all-to-all: K flows from each host, to K
 * distinct others, never to itself, and another seed another sample.
 */
static void test_alltoall_sampled(void **state)
{
	struct line t;
	struct cr_hosts *h;
	struct cr_pattern p;
	struct cr_phases *ph;
	struct cr_flow fl[64];
	uint32_t label, diff = 0;
	uint16_t first[64];
	size_t n;

	(void)state;
	line_build(&t, 1, 8);
	line_route(&t);
	h = cr_hosts_default(t.f);
	assert_int_equal(cr_pattern_parse("alltoall:3", &p), 0);
	for (int run = 0; run < 2; run++) {
		p.seed = 1 + (uint64_t)run;
		ph = cr_phases_start(t.f, &p, h);
		assert_non_null(ph);
		assert_int_equal(cr_phases_count(ph), 1);
		assert_int_equal(cr_phases_max_flows(ph), 24);
		n = cr_phases_get(ph, 0, fl, &label);
		assert_int_equal(n, 24);
		for (size_t i = 0; i < n; i++) {
			const struct cr_endpoint *src = &h->ep[i / 3];

			assert_int_equal(fl[i].src_node, src->node);
			assert_int_not_equal(fl[i].dst_lid, src->lid);
			for (size_t j = i / 3 * 3; j < i; j++)
				assert_int_not_equal(fl[j].dst_lid,
						     fl[i].dst_lid);
			if (!run)
				first[i] = fl[i].dst_lid;
			else
				diff += first[i] != fl[i].dst_lid;
		}
		cr_phases_stop(ph);
	}
	assert_true(diff > 0);
	cr_hosts_free(h);
	line_free(&t);
}

/* bisect, alltoall and fanin on one switch: all flows well formed. */
static void test_other_patterns(void **state)
{
	struct line t;
	struct cr_hosts *h;
	struct cr_est *e;
	struct cr_pattern *pats;
	struct cr_est_result *res[3];
	int n;

	line_build(&t, 1, 6);
	line_route(&t);
	h = cr_hosts_default(t.f);
	e = cr_est_new(t.f, t.r, NULL);
	n = cr_pattern_list_parse("bisect:3, alltoall,fanin:4", &pats);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		res[i] = cr_est_run(e, &pats[i], h);
		assert_non_null(res[i]);
		assert_int_equal(res[i]->unrouted, 0);
	}
	/* bisect: a perfect matching, each host one flow out and one in */
	assert_int_equal(res[0]->num_phases, 3);
	assert_int_equal(res[0]->flows, 18);
	assert_near(res[0]->min_frac, 1);
	/* alltoall: Δs = Δe = 5, ps = 5 βs γr = 6.24375 */
	assert_int_equal(res[1]->flows, 30);
	assert_near(res[1]->min_gbps, QDR / 1000 / (5 * BS * GR));
	/* fanin: 4 senders: link share 8000 < bound 32000 / (4 βe) */
	assert_int_equal(res[2]->num_phases, 2);
	assert_near(res[2]->phase[0].min_gbps, 8);
	/* fanout: Δs = 4, Δe = 1: ps = 3.7, bound 8648.6 > 8000 */
	assert_near(res[2]->phase[1].min_gbps, 8);
	{
		/* The JSON holds the same figures, one object a pattern. */
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		assert_non_null(out);
		assert_int_equal(
			cr_est_write_json(out, t.f, res, 3,
					  CR_REPORT_PHASES | CR_REPORT_MATRIX),
			0);
		fclose(out);
		/* The command writes the object's header (croute(1)). */
		assert_true(!strncmp(buf, "\"patterns\": [", 13));
		assert_non_null(strstr(buf, "\"name\": \"bisect:3\""));
		assert_non_null(strstr(buf, "\"name\": \"alltoall\""));
		assert_non_null(strstr(buf, "\"name\": \"fanin:4\""));
		assert_non_null(strstr(buf, "\"flows\": 18, \"unrouted\": 0"));
		assert_non_null(strstr(buf, "\"flows\": 30, \"unrouted\": 0"));
		assert_non_null(strstr(buf, "\"min_gbps\": 8,"));
		assert_non_null(strstr(buf, "\"phase_stats\": ["));
		free(buf);
	}
	for (int i = 0; i < n; i++)
		cr_est_result_free(res[i]);
	cr_pattern_list_free(pats, n);
	cr_est_free(e);
	cr_hosts_free(h);
	line_free(&t);
}

static char last_err[1024];

static void capture(void *arg, enum cr_log_level level, const char *msg)
{
	if (level == CR_LOG_ERROR)
		snprintf(last_err, sizeof(last_err), "%s", msg);
}

static void test_penalty_parse(void **state)
{
	struct cr_penalty p;

	cr_log_set(capture, NULL, CR_LOG_ERROR);
	assert_int_equal(cr_penalty_parse(CR_PENALTY_DEFAULT, "k", &p), 0);
	assert_near(p.be, BE);
	assert_near(p.bs, BS);
	assert_near(p.gr, GR);
	assert_int_equal(cr_penalty_parse("1; 2 ;3", "k", &p), 0);
	assert_near(p.bs, 2);
	assert_int_equal(
		cr_penalty_parse("0.9;x;1", "croute_penalty_factors", &p), -1);
	assert_non_null(strstr(last_err, "croute_penalty_factors"));
	assert_non_null(strstr(last_err, "\"x\""));
	assert_int_equal(cr_penalty_parse("1;2", "k", &p), -1);
	assert_int_equal(cr_penalty_parse("1;2;3;4", "k", &p), -1);
	assert_int_equal(cr_penalty_parse("-1;1;1", "k", &p), -1);
	assert_non_null(strstr(last_err, "\"-1\""));
	assert_near(p.be, 1); /* unchanged by the failures */
	cr_log_set(NULL, NULL, CR_LOG_INFO);
}

static void test_pattern_parse(void **state)
{
	struct cr_pattern p;
	struct cr_pattern *list;

	cr_log_set(capture, NULL, CR_LOG_ERROR);
	assert_int_equal(cr_pattern_parse("shift:64", &p), 0);
	assert_int_equal(p.kind, CR_PAT_SHIFT);
	assert_int_equal(p.count, 64);
	assert_int_equal(cr_pattern_parse("flows:/tmp/x y", &p), 0);
	assert_string_equal(p.path, "/tmp/x y");
	cr_pattern_release(&p);
	assert_int_equal(cr_pattern_parse("shift:0", &p), -1);
	/* alltoall:K: K destinations a host, sampled */
	assert_int_equal(cr_pattern_parse("alltoall:3", &p), 0);
	assert_int_equal(p.kind, CR_PAT_ALLTOALL);
	assert_int_equal(p.count, 3);
	assert_int_equal(cr_pattern_parse("alltoall:0", &p), -1);
	assert_int_equal(cr_pattern_parse("rail-ring:3", &p), -1);
	assert_int_equal(cr_pattern_parse("flows", &p), -1);
	assert_int_equal(cr_pattern_parse("ring", &p), -1);
	assert_non_null(strstr(last_err, "ring"));
	assert_int_equal(cr_pattern_list_parse("shift,bisect", &list), 2);
	cr_pattern_list_free(list, 2);
	assert_int_equal(cr_pattern_list_parse("shift,bogus", &list), -1);
	cr_log_set(NULL, NULL, CR_LOG_INFO);
}

static void test_natural_sort(void **state)
{
	assert_true(cr_natural_cmp("h2", "h10") < 0);
	assert_true(cr_natural_cmp("h10", "h2") > 0);
	assert_true(cr_natural_cmp("h02", "h2") == 0);
	assert_true(cr_natural_cmp("rack1 h9", "rack2 h1") < 0);
	assert_true(cr_natural_cmp("h", "h1") < 0);
	assert_true(cr_natural_cmp("a10b2", "a10b10") < 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Flows files: every endpoint syntax, and errors naming file:line. */
static void test_flows_file(void **state)
{
	struct line t;
	char path[] = "/tmp/croute-flowsXXXXXX";
	int fd = mkstemp(path);
	char text[512];
	struct cr_flow *flows;
	size_t n;
	struct cr_pattern p = {.kind = CR_PAT_FLOWS, .path = path};
	struct cr_est *e;
	struct cr_est_result *res;

	assert_true(fd >= 0);
	close(fd);
	line_build(&t, 1, 4);
	free(t.f->nodes[t.host[3]].desc);
	t.f->nodes[t.host[3]].desc = strdup("node 3 HCA-1");
	line_route(&t);
	snprintf(text, sizeof(text),
		 "# three ways to name an endpoint\n"
		 "h0000 \"node 3 HCA-1\"\n"
		 "\n"
		 "0x%llx %u  # port GUID, then LID\n"
		 "0x%llx sw0001\n",
		 (unsigned long long)t.f->nodes[t.host[1]].ports[1].guid,
		 hlid(&t, 3), (unsigned long long)t.f->nodes[t.host[2]].guid);
	write_file(path, text);
	assert_int_equal(cr_flows_read(t.f, path, &flows, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(flows[0].src_node, t.host[0]);
	assert_int_equal(flows[0].dst_lid, hlid(&t, 3));
	assert_int_equal(flows[1].src_node, t.host[1]);
	assert_int_equal(flows[1].dst_lid, hlid(&t, 3));
	assert_int_equal(flows[2].src_node, t.host[2]);
	assert_int_equal(flows[2].dst_lid, t.f->nodes[t.sw[0]].ports[0].lid);
	free(flows);

	/* h0, h1 -> h3 and h2 -> the switch itself */
	e = cr_est_new(t.f, t.r, NULL);
	res = cr_est_run(e, &p, NULL);
	assert_non_null(res);
	assert_int_equal(res->flows, 3);
	assert_int_equal(res->unrouted, 0);
	assert_near(res->min_frac, 0.5);
	cr_est_result_free(res);
	cr_est_free(e);

	cr_log_set(capture, NULL, CR_LOG_ERROR);
	write_file(path, "h0000 h0001\nh0000 nosuch\n");
	assert_int_equal(cr_flows_read(t.f, path, &flows, &n), -1);
	snprintf(text, sizeof(text), "%s:2:", path);
	assert_non_null(strstr(last_err, text));
	assert_non_null(strstr(last_err, "nosuch"));
	write_file(path, "h0000\n");
	assert_int_equal(cr_flows_read(t.f, path, &flows, &n), -1);
	write_file(path, "\"h0000 h0001\n");
	assert_int_equal(cr_flows_read(t.f, path, &flows, &n), -1);
	write_file(path, "sw0001 h0001\n");
	assert_int_equal(cr_flows_read(t.f, path, &flows, &n), -1);
	assert_non_null(strstr(last_err, "not a cabled CA port"));
	write_file(path, "h0000 99\n");
	assert_int_equal(cr_flows_read(t.f, path, &flows, &n), -1);
	cr_log_set(NULL, NULL, CR_LOG_INFO);

	/* a host list: the same syntax, one a line */
	write_file(path, "h0002\n\"node 3 HCA-1\"\n");
	struct cr_hosts *h = cr_hosts_for(t.f, NULL, path);

	assert_non_null(h);
	assert_int_equal(h->count, 2);
	assert_int_equal(h->ep[0].node, t.host[2]);
	assert_int_equal(h->ep[1].node, t.host[3]);
	cr_hosts_free(h);
	unlink(path);
	line_free(&t);
}

/* An unknown link rate is an error unless a default rate is given. */
static void test_unknown_rate(void **state)
{
	struct line t;
	struct cr_est_params par;
	struct cr_est *e;
	struct cr_flow_est o[1];

	line_build(&t, 2, 1);
	t.f->nodes[t.sw[0]].ports[1].width = 0;
	t.f->nodes[t.sw[1]].ports[2].width = 0;
	line_route(&t);
	struct cr_flow f[] = {fl(&t, 0, 1)};

	cr_log_set(capture, NULL, CR_LOG_ERROR);
	cr_est_params_init(&par);
	assert_null(cr_est_new(t.f, t.r, &par));
	assert_non_null(strstr(last_err, "default rate"));
	cr_log_set(NULL, NULL, CR_LOG_INFO);
	par.default_rate_mbps = 10000;
	e = cr_est_new(t.f, t.r, &par);
	assert_non_null(e);
	assert_int_equal(cr_est_phase(e, f, 1, o), 0);
	assert_near(o[0].rate, 10000);
	cr_est_free(e);
	line_free(&t);
}

/*
 * The heap-based solver against the textbook progressive filling (raise
 * every unfrozen flow together to the next event, freeze, repeat) on
 * random instances, ties and equal capacities included.
 */
/* The level at which link l fills, given the flows frozen so far. */
static double fill_level(unsigned l, const double *cap, unsigned n,
			 const uint32_t *start, const uint32_t *path,
			 const bool *frozen, const double *rate)
{
	double used = 0;
	unsigned cnt = 0;

	for (unsigned i = 0; i < n; i++) {
		for (uint32_t k = start[i]; k < start[i + 1]; k++) {
			if (path[k] != l)
				continue;
			if (frozen[i])
				used += rate[i];
			else
				cnt++;
		}
	}
	return cnt ? (cap[l] - used) / cnt : INFINITY;
}

static void reference_maxmin(unsigned nl, const double *cap, unsigned n,
			     const uint32_t *start, const uint32_t *path,
			     const double *bound, double *rate)
{
	bool *frozen = calloc(n, sizeof(*frozen));
	double *level = calloc(nl, sizeof(*level));

	for (unsigned left = n; left;) {
		double t = INFINITY;

		for (unsigned i = 0; i < n; i++)
			if (!frozen[i] && bound[i] < t)
				t = bound[i];
		for (unsigned l = 0; l < nl; l++) {
			level[l] = fill_level(l, cap, n, start, path, frozen,
					      rate);
			if (level[l] < t)
				t = level[l];
		}
		/* freeze whatever stops at t: its bound or a full link */
		for (unsigned i = 0; i < n; i++) {
			bool stop = bound[i] <= t * (1 + 1e-12);

			for (uint32_t k = start[i]; k < start[i + 1]; k++)
				stop |= level[path[k]] <= t * (1 + 1e-12);
			if (frozen[i] || !stop)
				continue;
			rate[i] = bound[i] < t ? bound[i] : t;
			frozen[i] = true;
			left--;
		}
	}
	free(level);
	free(frozen);
}

static void test_maxmin_random(void **state)
{
	enum { NL = 24, N = 60 };
	struct cr_maxmin *m = cr_maxmin_new(NL);
	uint64_t s = 12345;

	assert_non_null(m);
	for (int round = 0; round < 200; round++) {
		double cap[NL], bound[N], got[N], want[N];
		uint32_t start[N + 1], path[N * 5];
		unsigned n = 1 + round % N, used = 0;

		for (unsigned l = 0; l < NL; l++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			cap[l] = 1000 * (1 + (s >> 33) % 4); /* ties */
		}
		for (unsigned i = 0; i < n; i++) {
			unsigned len;

			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			len = (s >> 40) % 6; /* 0: no link at all */
			bound[i] = 100 * (1 + (s >> 20) % 30);
			start[i] = used;
			for (unsigned k = 0; k < len; k++) {
				uint32_t l = (uint32_t)((s >> (3 * k)) % NL);
				bool dup = false;

				for (unsigned q = start[i]; q < used; q++)
					dup |= path[q] == l;
				if (!dup)
					path[used++] = l;
			}
		}
		start[n] = used;
		assert_int_equal(
			cr_maxmin_solve(m, cap, n, start, path, bound, got), 0);
		reference_maxmin(NL, cap, n, start, path, bound, want);
		for (unsigned i = 0; i < n; i++)
			assert_near(got[i], want[i]);
	}
	cr_maxmin_free(m);
}

/* An empty phase is not an error. */
static void test_empty_phase(void **state)
{
	struct line t;

	line_build(&t, 1, 2);
	line_route(&t);
	assert_int_equal(phase(&t, NULL, 0, NULL, NULL), 0);
	line_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow),
		cmocka_unit_test(test_two_flows_share_link),
		cmocka_unit_test(test_fanout_two),
		cmocka_unit_test(test_fanout_gamma),
		cmocka_unit_test(test_incast_three),
		cmocka_unit_test(test_omega),
		cmocka_unit_test(test_penalty_bound_pattern),
		cmocka_unit_test(test_link_bound_pattern),
		cmocka_unit_test(test_bottleneck_link),
		cmocka_unit_test(test_unrouted),
		cmocka_unit_test(test_shift_pattern),
		cmocka_unit_test(test_other_patterns),
		cmocka_unit_test(test_alltoall_sampled),
		cmocka_unit_test(test_penalty_parse),
		cmocka_unit_test(test_pattern_parse),
		cmocka_unit_test(test_natural_sort),
		cmocka_unit_test(test_flows_file),
		cmocka_unit_test(test_unknown_rate),
		cmocka_unit_test(test_maxmin_random),
		cmocka_unit_test(test_empty_phase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
