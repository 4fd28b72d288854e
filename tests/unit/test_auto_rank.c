// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's choice on held-out samples: the finalists kept on training
 * scores, their order on held-out ones, and a fabric where the two
 * orders differ, so that the candidate first on training loses.
 */
#include <string.h>

#include "testutil.h"

#include <croute/tune/auto.h>
#include <croute/model/clock.h>
#include <croute/route/engine.h>
#include <croute/io/gen.h>
#include <croute/tune/optimize.h>

#include "../../src/core/tune/auto_int.h"

static void quiet(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

/* Five candidates' training scores: the best three are kept, in order. */
static void test_keep(void **state)
{
	static double sc[5][2] = {
		{0.50, 0.9}, {0.70, 0.1}, {0.704, 0.5}, {0.60, 0.2}, {0.80, 0}};
	struct cand v[5];
	struct run a;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(v, 0, sizeof(v));
	assert_int_equal(cr_objective_parse("shift:avg~1%,bisect", "t", &a.obj),
			 0);
	a.v = v;
	a.n = 5;
	a.nfin = 3;
	a.win = -1;
	for (int i = 0; i < 5; i++) {
		struct cr_byproducts by = {0};

		v[i].score = sc[i];
		v[i].ok = true;
		auto_keep(&a, i, NULL, &by);
	}
	assert_int_equal(a.kept, 3);
	/* 0.80 first; 0.704 ties 0.70 on shift, wins on bisect */
	assert_int_equal(a.fin_idx[0], 4);
	assert_int_equal(a.fin_idx[1], 2);
	assert_int_equal(a.fin_idx[2], 1);
	assert_int_equal(a.win, 4);
	auto_fin_release(&a);
	cr_objective_release(&a.obj);
}

/* Training order A, B, C; held-out: B best, A and C tied (A first). */
static void test_rank_heldout(void **state)
{
	struct cr_objective obj;
	double ha[1] = {0.600}, hb[1] = {0.650}, hc[1] = {0.603};
	const double *h[3] = {ha, hb, hc};
	static const unsigned vls[3] = {1, 1, 1};
	unsigned rank[3];

	(void)state;
	assert_int_equal(cr_objective_parse("shift:avg~1%", "t", &obj), 0);
	auto_rank_heldout(&obj, 0.01, h, vls, 3, rank);
	assert_int_equal(rank[0], 2);
	assert_int_equal(rank[1], 1);
	assert_int_equal(rank[2], 3);
	/* exact: C above A */
	obj.terms[0].tol = 0;
	auto_rank_heldout(&obj, 0.01, h, vls, 3, rank);
	assert_int_equal(rank[0], 3);
	assert_int_equal(rank[1], 1);
	assert_int_equal(rank[2], 2);
	cr_objective_release(&obj);
}

/*
 * Within the improvement threshold (1%) of each other, the candidate on
 * fewer VLs ranks first though the other scores higher beyond the
 * objective's tolerance; beyond the threshold, the score decides. The
 * same in the finalists kept on training samples and in the held-out
 * order.
 */
static void test_fewer_vls(void **state)
{
	/* A: 0.700 on 4 VLs; B: 0.695 on 2 (0.7% less); C: 0.650 on 1 */
	static double sc[3][1] = {{0.700}, {0.695}, {0.650}};
	static const unsigned vls[3] = {4, 2, 1};
	const double *h[3] = {sc[0], sc[1], sc[2]};
	struct cr_auto_conf ac = {.threshold = 0.01};
	unsigned rank[3];
	struct cand v[3];
	struct run a;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(v, 0, sizeof(v));
	assert_int_equal(cr_objective_parse("shift:avg", "t", &a.obj), 0);
	assert_int_equal(auto_cmp(&a.obj, 0.01, sc[1], 2, sc[0], 4), 1);
	assert_int_equal(auto_cmp(&a.obj, 0.01, sc[0], 4, sc[1], 2), -1);
	/* the same VLs: the objective alone */
	assert_int_equal(auto_cmp(&a.obj, 0.01, sc[1], 2, sc[0], 2), -1);
	/* beyond the threshold: the score */
	assert_int_equal(auto_cmp(&a.obj, 0.01, sc[2], 1, sc[1], 2), -1);
	assert_int_equal(auto_cmp(&a.obj, 0.001, sc[1], 2, sc[0], 4), -1);
	a.ac = &ac;
	a.v = v;
	a.n = 3;
	a.nfin = 3;
	a.win = -1;
	for (int i = 0; i < 3; i++) {
		struct cr_byproducts by = {0};

		v[i].score = sc[i];
		v[i].vls = vls[i];
		v[i].ok = true;
		auto_keep(&a, i, NULL, &by);
	}
	assert_int_equal(a.fin_idx[0], 1);
	assert_int_equal(a.fin_idx[1], 0);
	assert_int_equal(a.fin_idx[2], 2);
	assert_int_equal(a.win, 1);
	auto_fin_release(&a);
	auto_rank_heldout(&a.obj, 0.01, h, vls, 3, rank);
	assert_int_equal(rank[0], 2);
	assert_int_equal(rank[1], 1);
	assert_int_equal(rank[2], 3);
	cr_objective_release(&a.obj);
}

/* A candidate row's field after "name": its training shift score. */
static double row_score(const char *table, const char *name, bool *held)
{
	char key[64];
	const char *s;
	double x = -1;

	snprintf(key, sizeof(key), " %s ", name);
	s = strstr(table, key);
	assert_non_null(s);
	s = strstr(s, "shift:avg@2 ");
	assert_non_null(s);
	assert_int_equal(sscanf(s, "shift:avg@2 %lf", &x), 1);
	*held = strstr(s, "| held-out ") &&
		strstr(s, "| held-out ") < strchr(s, '\n');
	return x;
}

/* cr-auto on f with ac: its table (the caller frees it) and winner. */
static char *route_with(const struct cr_fabric *f, struct cr_routing *r,
			const struct cr_auto_conf *ac, char *winner, size_t len)
{
	struct cr_byproducts by = {0};
	struct cr_stop stop = {0};
	struct cr_options o;
	char *table;

	cr_options_init(&o);
	cr_auto_conf_use(&o, ac);
	stop.deadline = cr_now() + 3600;
	o.stop = &stop;
	cr_log_set(quiet, NULL, CR_LOG_DEBUG);
	assert_int_equal(cr_route_by(&cr_auto_engine, f, &o, r, &by), 0);
	cr_log_set(NULL, NULL, CR_LOG_INFO);
	assert_non_null(by.auto_table);
	table = strdup(by.auto_table);
	snprintf(winner, len, "%s", by.auto_winner);
	cr_byproducts_release(&by);
	return table;
}

static char *route(const struct cr_fabric *f, struct cr_routing *r,
		   char *winner, size_t len)
{
	static const struct cr_auto_conf ac = {
		.candidates = "lash+ps+rgs+bal,lash+ps,lash",
		.objective = "shift:avg@2~1%,bisect:avg",
		.qos = true,
	};

	return route_with(f, r, &ac, winner, len);
}

/*
 * On this random graph lash+ps+rgs+bal leads on the training samples
 * (shift on the own order and 2 random ones, bisect's matchings) and
 * trails lash+ps on held-out ones: lash+ps is installed, first in the
 * table, the training leader second; both show both figures. The same
 * tables on a second run.
 */
static void test_heldout_winner(void **state)
{
	struct cr_gen_params gp = {.seed = 4};
	struct cr_fabric *f = cr_gen_random(8, 4, 2, &gp);
	struct cr_routing *r, *r2;
	char w[48], w2[48], *t, *t2;
	bool held_a, held_b;
	double a, b;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = cr_routing_new(f);
	r2 = cr_routing_new(f);
	t = route(f, r, w, sizeof(w));
	assert_string_equal(w, "lash+ps");
	a = row_score(t, "lash+ps+rgs+bal", &held_a);
	b = row_score(t, "lash+ps", &held_b);
	assert_true(a > b * 1.01);
	assert_true(held_a && held_b);
	assert_true(strstr(t, " lash+ps ") < strstr(t, " lash+ps+rgs+bal "));
	assert_non_null(strstr(t, " | WINNER"));
	t2 = route(f, r2, w2, sizeof(w2));
	assert_string_equal(w2, w);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (r->lft[n])
			assert_memory_equal(r->lft[n], r2->lft[n],
					    r->max_lid + 1u);
	free(t);
	free(t2);
	cr_routing_free(r);
	cr_routing_free(r2);
	cr_fabric_free(f);
}

/*
 * The sweep's plan on a random graph holds cr-ftree alone, which refuses
 * a graph that is no tree: the fast step goes on past its plan until a
 * candidate qualifies, rather than leave the fabric to OpenSM's next
 * engine.
 */
static void test_fast_past_refusal(void **state)
{
	struct cr_gen_params gp = {.seed = 1};
	struct cr_fabric *f = cr_gen_random(64, 8, 4, &gp);
	struct cr_auto_conf ac = {.qos = true};
	struct cr_byproducts by = {0};
	struct cr_routing *r;
	struct cr_options o;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = cr_routing_new(f);
	cr_options_init(&o);
	cr_auto_conf_use(&o, &ac);
	cr_log_set(quiet, NULL, CR_LOG_DEBUG);
	assert_int_equal(cr_auto_fast(f, &o, r, &by), 0);
	cr_log_set(NULL, NULL, CR_LOG_INFO);
	assert_string_not_equal(by.auto_winner, "ftree");
	assert_non_null(strstr(by.auto_table, "ftree"));
	assert_non_null(strstr(by.auto_table, "refused"));
	cr_byproducts_release(&by);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * The pass raises the winner on this graph: its row gives the scores it
 * was chosen on (before the pass) beside those installed, and the
 * held-out figures after the pass.
 */
static void test_before_after_pass(void **state)
{
	struct cr_gen_params gp = {.seed = 3};
	struct cr_fabric *f = cr_gen_random(8, 4, 2, &gp);
	struct cr_opt_params p;
	struct cr_auto_conf ac = {.improve = cr_optimize_hook,
				  .improve_arg = &p,
				  .improve_rest = true,
				  /* any held-out gain installs */
				  .threshold = 1e-9};
	struct cr_byproducts by = {0};
	struct cr_stop stop = {0};
	struct cr_routing *r;
	struct cr_options o;
	double after, before;
	const char *s;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = cr_routing_new(f);
	cr_opt_params_init(&p);
	cr_options_init(&o);
	cr_auto_conf_use(&o, &ac);
	stop.deadline = cr_now() + 3600;
	o.stop = &stop;
	p.stop = &stop;
	cr_log_set(quiet, NULL, CR_LOG_DEBUG);
	assert_int_equal(cr_route_by(&cr_auto_engine, f, &o, r, &by), 0);
	cr_log_set(NULL, NULL, CR_LOG_INFO);
	s = by.auto_table;
	while (*s == '#')
		s = strchr(s, '\n') + 1;
	/* the winner's row, first */
	assert_non_null(strstr(s, "WINNER"));
	assert_true(strstr(s, "WINNER") < strchr(s, '\n'));
	assert_int_equal(
		sscanf(strstr(s, "shift:avg@8 "), "shift:avg@8 %lf", &after),
		1);
	s = strstr(s, "(before the pass ");
	assert_non_null(s);
	assert_int_equal(sscanf(s, "(before the pass %lf", &before), 1);
	assert_true(after > before);
	assert_non_null(strstr(s, "after the pass "));
	cr_byproducts_release(&by);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void more_orders(void *arg, enum cr_log_level level, const char *msg)
{
	(void)level;
	if (strstr(msg, "\"@K\" terms on more orders"))
		*(bool *)arg = true;
}

/* Whether cr-auto ranked its finalists on more than K held-out orders. */
static bool ranked_on_more(const char *objective)
{
	struct cr_gen_params gp = {.seed = 5};
	struct cr_fabric *f = cr_gen_random(8, 4, 2, &gp);
	struct cr_auto_conf ac = {.candidates = "updn,minhop,updn+ps",
				  .objective = objective};
	struct cr_byproducts by = {0};
	struct cr_stop stop = {0};
	struct cr_routing *r;
	struct cr_options o;
	bool more = false;

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = cr_routing_new(f);
	cr_options_init(&o);
	cr_auto_conf_use(&o, &ac);
	stop.deadline = cr_now() + 3600;
	o.stop = &stop;
	cr_log_set(more_orders, &more, CR_LOG_INFO);
	assert_int_equal(cr_route_by(&cr_auto_engine, f, &o, r, &by), 0);
	cr_log_set(NULL, NULL, CR_LOG_INFO);
	cr_byproducts_release(&by);
	cr_routing_free(r);
	cr_fabric_free(f);
	return more;
}

/*
 * With the order unknown and a small fabric, the finalists are ranked on
 * more random orders than the objective's K (cheap there, and K orders
 * cannot tell them apart); an objective without "@K" has none to add.
 */
static void test_more_held_orders(void **state)
{
	(void)state;
	assert_true(ranked_on_more(NULL));
	assert_false(ranked_on_more("shift:avg~1%,bisect:avg"));
}

/* cr-auto on f with these candidates and VL cap: the winner. */
static void winner_of(const struct cr_fabric *f, const char *cands,
		      unsigned max_vls, char *winner, size_t len)
{
	const struct cr_auto_conf ac = {
		.candidates = cands,
		.objective = "shift:avg@2~1%,bisect:avg",
		.qos = true,
		.max_vls = max_vls,
	};
	struct cr_routing *r = cr_routing_new(f);
	char *table;

	assert_non_null(r);
	table = route_with(f, r, &ac, winner, len);
	assert_non_null(strstr(table, "| VLs 2, "));
	free(table);
	cr_routing_free(r);
}

/*
 * On a 4 x 4 torus lash+ps+bal (2 VLs) leads updn+ps+rgs (1 VL) by about
 * 2%: it wins, unless croute_auto_max_vls 1 rejects its layers; the
 * ranking shows its VLs either way.
 */
static void test_max_vls(void **state)
{
	static const unsigned dims[2] = {4, 4};
	struct cr_gen_params gp = {0};
	struct cr_fabric *f = cr_gen_torus(dims, 2, true, 2, &gp);
	const char *cands = "lash+ps+bal,updn+ps+rgs";
	char w[48];

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	winner_of(f, cands, 0, w, sizeof(w));
	assert_string_equal(w, "lash+ps+bal");
	winner_of(f, cands, 1, w, sizeof(w));
	assert_string_equal(w, "updn+ps+rgs");
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_rank_heldout),
		cmocka_unit_test(test_fewer_vls),
		cmocka_unit_test(test_heldout_winner),
		cmocka_unit_test(test_fast_past_refusal),
		cmocka_unit_test(test_before_after_pass),
		cmocka_unit_test(test_more_held_orders),
		cmocka_unit_test(test_max_vls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
