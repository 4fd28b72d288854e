// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The jobs pattern (every job's shift, all jobs at once, hosts in no job
 * silent; a job's order from the hosts run on), objective weights, and
 * cr_jobs_tune(): complete, loop-free, credit-loop-free tables, the same
 * on every run, never below the tables in use nor any other start that
 * qualifies on the objective it climbs, every path SL kept.
 */
#include <math.h>
#include <string.h>

#include <croute/model/clock.h>
#include <croute/io/jobs.h>
#include <croute/model/check.h>
#include <croute/io/gen.h>
#include <croute/tune/jobs_tune.h>

#include "testutil.h"

static struct cr_jobs *jobs_of(const struct cr_fabric *f, const char *text)
{
	struct cr_jobs *j = cr_jobs_parse(f, NULL, text, strlen(text), "t");

	assert_non_null(j);
	return j;
}

/* "src>dst " for each flow of phase i, by host name. */
static void phase_text(const struct cr_fabric *f, struct cr_phases *ph,
		       uint32_t i, char *buf, size_t cap)
{
	struct cr_flow fl[64];
	uint32_t label;
	size_t n = cr_phases_get(ph, i, fl, &label), len = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < n; k++)
		len += (size_t)snprintf(
			buf + len, cap - len, "%s>%s ",
			f->nodes[fl[k].src_node].desc,
			f->nodes[f->lid_node[fl[k].dst_lid]].desc);
}

static void test_pattern(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 4, 2, NULL, 0);
	struct cr_jobs *j = jobs_of(f, "7 h[0003,0001,0002]\n8 h0010,h0005\n"
				       "9 h0007\n");
	struct cr_pattern p = {.kind = CR_PAT_JOBS, .seed = 1, .jobs = j};
	struct cr_hosts *all = cr_hosts_default(f);
	struct cr_phases *ph;
	char buf[1024];

	(void)state;
	ph = cr_phases_start(f, &p, &j->hosts);
	assert_non_null(ph);
	assert_int_equal(cr_phases_count(ph), 2);
	phase_text(f, ph, 0, buf, sizeof(buf));
	assert_string_equal(buf, "h0003>h0001 h0001>h0002 h0002>h0003 "
				 "h0010>h0005 h0005>h0010 ");
	phase_text(f, ph, 1, buf, sizeof(buf));
	assert_string_equal(buf, "h0003>h0002 h0001>h0003 h0002>h0001 "
				 "h0010>h0005 h0005>h0010 ");
	cr_phases_stop(ph);
	/* on all hosts in natural order: each job in that order, h0007 and
	 * the hosts in no job silent */
	ph = cr_phases_start(f, &p, all);
	assert_non_null(ph);
	phase_text(f, ph, 0, buf, sizeof(buf));
	assert_string_equal(buf, "h0001>h0002 h0002>h0003 h0003>h0001 "
				 "h0005>h0010 h0010>h0005 ");
	cr_phases_stop(ph);
	/* no jobs attached, or no job of two hosts: an error */
	p.jobs = NULL;
	assert_null(cr_phases_start(f, &p, all));
	cr_jobs_free(j);
	j = jobs_of(f, "1 h0001\n");
	p.jobs = j;
	assert_null(cr_phases_start(f, &p, all));
	cr_jobs_free(j);
	cr_hosts_free(all);
	cr_fabric_free(f);
}

static void test_weights(void **state)
{
	struct cr_objective obj;
	double s[3] = {0.5, 0.9, 0.2};

	(void)state;
	assert_int_equal(
		cr_objective_parse("jobs:avg@4*3,shift*1~1%,bisect", "t", &obj),
		0);
	assert_int_equal(obj.num_terms, 3);
	assert_int_equal(obj.terms[0].orders, 4);
	assert_true(obj.terms[0].weight == 3);
	assert_true(obj.terms[1].weight == 1);
	assert_true(obj.terms[1].tol > 0.0099 && obj.terms[1].tol < 0.0101);
	cr_objective_blend(&obj, s);
	assert_true(fabs(s[0] - (3 * 0.5 + 0.9) / 4) < 1e-12);
	assert_true(s[1] == 0.9 && s[2] == 0.2);
	cr_objective_release(&obj);
	assert_int_equal(cr_objective_parse("shift*0", "t", &obj), -1);
	assert_int_equal(cr_objective_parse("shift*x", "t", &obj), -1);
	assert_int_equal(cr_objective_parse("shift*2000", "t", &obj), -1);
}

static void test_tune(void **state)
{
	/* 8 leaves of 4 hosts, 2 spines: jobs across leaves contend */
	struct cr_fabric *f = tu_two_level(8, 4, 2, NULL, 0);
	struct cr_jobs *j = jobs_of(f, "1 h[0000,0004,0008,0012]\n"
				       "2 h[0001,0005,0009,0013,0017]\n"
				       "3 h[0020-0023,0002]\n");
	struct cr_byproducts by = {0};
	struct cr_routing *r = tu_route_by(f, "updn", NULL, &by);
	struct cr_routing *t1, *t2;
	struct cr_options o;
	const struct cr_jobs_start st = {f, cr_engine_find("updn"), &o, r, &by};
	/* a far deadline replaces the wall-clock guard: the work decides,
	 * however slow the machine (or a sanitizer) makes it */
	const struct cr_stop far = {.deadline = cr_now() + 86400};
	struct cr_jobs_tune_params par = {.budget = 1, .stop = &far};
	struct cr_jobs_gain g1, g2;
	struct cr_check_report rep;

	(void)state;
	cr_options_init(&o);
	assert_int_equal(cr_jobs_tune(&st, j, &par, &t1, &g1), 0);
	assert_int_equal(cr_jobs_tune(&st, j, &par, &t2, &g2), 0);
	assert_true(tu_same_lfts(f, t1, t2));
	assert_true(g1.jobs_after == g2.jobs_after);
	assert_int_equal(cr_check(f, t1, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	/* the figures are the tables' */
	assert_true(g1.jobs_before > 0 && g1.jobs_after > 0);
	assert_true(fabs(g1.gain - (g1.jobs_after / g1.jobs_before - 1)) <
		    1e-12);
	assert_int_equal(g1.churn == 0, tu_same_lfts(f, r, t1));
	cr_routing_free(t1);
	cr_routing_free(t2);
	cr_jobs_free(j);
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_fabric_free(f);
}

/* No job of two hosts (an idle machine): the tables in use, unchanged. */
static void test_no_pair(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 4, 2, NULL, 0);
	struct cr_byproducts by = {0};
	struct cr_routing *r = tu_route_by(f, "updn", NULL, &by);
	struct cr_routing *t;
	struct cr_options o;
	const struct cr_jobs_start st = {f, cr_engine_find("updn"), &o, r, &by};
	const struct cr_stop far = {.deadline = cr_now() + 86400};
	struct cr_jobs_tune_params par = {.budget = 1, .stop = &far};
	const char *const texts[] = {"", "# none\n", "4 h0001\n5 h0007\n"};
	struct cr_jobs_gain g;

	(void)state;
	cr_options_init(&o);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct cr_jobs *j = jobs_of(f, texts[i]);

		assert_int_equal(cr_jobs_tune(&st, j, &par, &t, &g), 0);
		assert_true(tu_same_lfts(f, r, t));
		assert_int_equal(g.churn, 0);
		assert_true(g.gain == 0);
		cr_routing_free(t);
		cr_jobs_free(j);
	}
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_fabric_free(f);
}

/* The default objective's first term (blended) on r, hosts in order. */
static double objective(const struct cr_fabric *f, const struct cr_routing *r,
			const struct cr_jobs *j)
{
	struct cr_hosts *h = cr_hosts_default(f);
	struct cr_objective obj;
	double s[8];

	assert_non_null(h);
	assert_int_equal(
		cr_objective_parse(CR_JOBS_OBJECTIVE_DEFAULT, "t", &obj), 0);
	assert_true(obj.num_terms <= 8);
	obj.jobs = j;
	assert_int_equal(cr_objective_score(f, r, &obj, h, s), 0);
	cr_objective_blend(&obj, s);
	cr_objective_release(&obj);
	cr_hosts_free(h);
	return s[0];
}

/*
 * The refine stage: the pass again from the first stage's tables. Its
 * tables are cr_jobs_tune()'s with that refine budget, to the bit; the
 * first stage alone is cr_jobs_tune()'s without one; the refined tables
 * are never below the first stage's on the objective, keep the SLs and
 * the checks, and here (a first stage cut short) move on from them.
 */
static void test_refine(void **state)
{
	struct cr_fabric *f = tu_two_level(8, 4, 2, NULL, 0);
	struct cr_jobs *j = jobs_of(f, "1 h[0000,0004,0008,0012]\n"
				       "2 h[0001,0005,0009,0013,0017]\n"
				       "3 h[0020-0023,0002]\n"
				       "4 h[0003,0010,0019,0027]\n");
	struct cr_byproducts by = {0};
	struct cr_routing *r = tu_route_by(f, "updn", NULL, &by);
	struct cr_routing *t1, *t0, *t2, *t3;
	struct cr_options o;
	const struct cr_jobs_start st = {f, cr_engine_find("updn"), &o, r, &by};
	const struct cr_stop far = {.deadline = cr_now() + 86400};
	struct cr_jobs_tune_params par = {
		.budget = 0.005, .refine = 1, .bases = "", .stop = &far};
	struct cr_jobs_gain g1, g0, g2, g3;
	struct cr_jobs_stage *stage = NULL;
	struct cr_check_report rep;

	(void)state;
	cr_options_init(&o);
	assert_int_equal(cr_jobs_tune_first(&st, j, &par, &t1, &g1, &stage), 0);
	assert_non_null(stage);
	par.refine = 0;
	assert_int_equal(cr_jobs_tune(&st, j, &par, &t0, &g0), 0);
	assert_true(tu_same_lfts(f, t0, t1));
	assert_true(g0.jobs_after == g1.jobs_after);
	par.refine = 1;
	assert_int_equal(cr_jobs_refine(stage, &par, &t2, &g2), 0);
	assert_int_equal(cr_jobs_tune(&st, j, &par, &t3, &g3), 0);
	assert_true(tu_same_lfts(f, t2, t3));
	assert_true(g2.jobs_after == g3.jobs_after && g2.moves == g3.moves);
	assert_false(tu_same_lfts(f, t1, t2));
	assert_true(g2.moves > g1.moves);
	assert_true(objective(f, t2, j) > objective(f, t1, j));
	assert_true(g2.jobs_before == g1.jobs_before);
	assert_true(fabs(g2.gain - (g2.jobs_after / g2.jobs_before - 1)) <
		    1e-12);
	assert_int_equal(cr_check(f, t2, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable + rep.loops + rep.credit_loops, 0);
	cr_jobs_stage_free(stage);
	cr_routing_free(t0);
	cr_routing_free(t1);
	cr_routing_free(t2);
	cr_routing_free(t3);
	cr_jobs_free(j);
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_fabric_free(f);
}

/* Candidate name's tables, or NULL when they have loops or credit loops. */
static struct cr_routing *route_cand(const struct cr_fabric *f,
				     const struct cr_options *o,
				     const char *name, struct cr_byproducts *by,
				     const struct cr_engine **e)
{
	struct cr_options co;
	struct cr_routing *r = cr_routing_new(f);
	struct cr_check_report rep;

	assert_non_null(r);
	assert_int_equal(cr_auto_candidate(name, o, e, &co), 0);
	assert_int_equal(cr_route_by(*e, f, &co, r, by), 0);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	if (rep.unreachable || rep.loops || rep.credit_loops) {
		cr_routing_free(r);
		return NULL;
	}
	return r;
}

/*
 * From poor tables in use (cr-minhop, every flow on the first uplink)
 * and a pass with almost no work: the result is still at least as good
 * as the start and as every other starting point that qualifies.
 */
static void test_never_below_bases(void **state)
{
	static const char *const names[] = {"minhop", "updn", "minhop+ps"};
	struct cr_fabric *f = tu_two_level(8, 4, 2, NULL, 0);
	struct cr_jobs *j = jobs_of(f, "1 h[0000,0004,0008,0012]\n"
				       "2 h[0001,0005,0009,0013,0017]\n"
				       "3 h[0020-0023,0002,0006]\n");
	struct cr_byproducts by = {0};
	const struct cr_engine *e;
	struct cr_routing *r, *t;
	struct cr_options o;
	const struct cr_stop far = {.deadline = cr_now() + 86400};
	struct cr_jobs_tune_params par = {
		.budget = 1e-6, .stop = &far, .bases = "minhop,updn,minhop+ps"};
	struct cr_jobs_gain g;
	double start, best, got;

	(void)state;
	cr_options_init(&o);
	r = route_cand(f, &o, "minhop+first", &by, &e);
	assert_non_null(r);
	start = objective(f, r, j);
	best = start;
	for (unsigned i = 0; i < 3; i++) {
		struct cr_byproducts b2 = {0};
		const struct cr_engine *e2;
		struct cr_routing *x = route_cand(f, &o, names[i], &b2, &e2);

		if (x && objective(f, x, j) > best)
			best = objective(f, x, j);
		cr_routing_free(x);
		cr_byproducts_release(&b2);
	}
	/* the fixture means something: a base beats the start */
	assert_true(best > start + 0.01);
	{
		const struct cr_jobs_start st = {f, e, &o, r, &by};

		assert_int_equal(cr_jobs_tune(&st, j, &par, &t, &g), 0);
	}
	got = objective(f, t, j);
	assert_true(got >= best - 1e-12);
	/* the tables in use alone: never below them either */
	par.bases = "";
	cr_routing_free(t);
	{
		const struct cr_jobs_start st = {f, e, &o, r, &by};

		assert_int_equal(cr_jobs_tune(&st, j, &par, &t, &g), 0);
	}
	assert_true(objective(f, t, j) >= start - 1e-12);
	cr_routing_free(t);
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_jobs_free(j);
	cr_fabric_free(f);
}

static bool same_sl_rows(const struct cr_fabric *f, const struct cr_routing *a,
			 const struct cr_routing *b)
{
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		if (memcmp(a->sl[n], b->sl[n], (size_t)f->max_lid + 1))
			return false;
	}
	return true;
}

/* "1 A,B,...\n2 ...": job k + 1 of hosts i with i % jobs == k, by name */
static struct cr_jobs *strided_jobs(const struct cr_fabric *f, unsigned jobs)
{
	struct cr_hosts *h = cr_hosts_default(f);
	char text[4096];
	size_t len = 0;

	assert_non_null(h);
	for (unsigned k = 0; k < jobs; k++) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%u ",
					k + 1);
		for (uint32_t i = k; i < h->count; i += jobs) {
			const char *d = f->nodes[h->ep[i].node].desc;

			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"%s%.*s", i == k ? "" : ",",
						(int)strcspn(d, " "), d);
		}
		len += (size_t)snprintf(text + len, sizeof(text) - len, "\n");
	}
	cr_hosts_free(h);
	return jobs_of(f, text);
}

/*
 * cr-lash on a torus, where the pass keeps some moves only by moving
 * sources to another layer: tuned for jobs, no path's SL moves, and the
 * tables are still complete and free of credit loops on those SLs.
 */
static void test_keeps_sls(void **state)
{
	struct cr_gen_params gp = {0};
	unsigned dims[] = {4, 4};
	struct cr_fabric *f = cr_gen_torus(dims, 2, true, 2, &gp);
	struct cr_byproducts by = {0};
	struct cr_routing *r, *t, *x;
	struct cr_options o;
	struct cr_jobs *j;
	const struct cr_stop far = {.deadline = cr_now() + 86400};
	struct cr_jobs_tune_params par = {.budget = 0.3, .stop = &far};
	struct cr_jobs_gain g;
	struct cr_check_report rep;
	struct cr_objective obj;
	struct cr_opt_params op;
	struct cr_opt_stats os;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	cr_options_init(&o);
	r = tu_route_by(f, "lash", NULL, &by);
	assert_non_null(r->sl);
	j = strided_jobs(f, 3);
	/* the fixture re-layers when allowed to */
	x = cr_routing_copy(r);
	assert_non_null(x);
	assert_int_equal(
		cr_objective_parse(CR_JOBS_OBJECTIVE_DEFAULT, "t", &obj), 0);
	obj.jobs = j;
	cr_opt_params_init(&op);
	op.budget = 0.3;
	op.natural_hosts = true;
	op.stop = &far;
	assert_int_equal(
		cr_optimize(f, cr_engine_find("lash"), &obj, &op, x, &by, &os),
		0);
	assert_true(os.relayered > 0);
	cr_objective_release(&obj);
	cr_routing_free(x);
	{
		const struct cr_jobs_start st = {f, cr_engine_find("lash"), &o,
						 r, &by};

		assert_int_equal(cr_jobs_tune(&st, j, &par, &t, &g), 0);
	}
	assert_true(g.moves > 0);
	assert_true(g.jobs_after >= g.jobs_before);
	assert_non_null(t->sl);
	assert_true(same_sl_rows(f, r, t));
	assert_int_equal(cr_check(f, t, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	cr_routing_free(t);
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_jobs_free(j);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_tune),
		cmocka_unit_test(test_no_pair),
		cmocka_unit_test(test_refine),
		cmocka_unit_test(test_never_below_bases),
		cmocka_unit_test(test_keeps_sls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
