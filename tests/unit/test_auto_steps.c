// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's two steps: the fast step and then the improve step give the
 * tables cr_auto_engine gives in one call (the plugin's background and
 * the command agree), run after run; an improve step that is cancelled
 * or past its deadline gives up and leaves the tables as they were; and
 * an improvement is kept only when it beats the threshold; a fast step
 * with one candidate does not score it, and an improve step with nothing
 * new to try does not run.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include <croute/tune/auto.h>
#include <croute/model/clock.h>
#include <croute/route/engine.h>
#include <croute/io/gen.h>
#include <croute/tune/optimize.h>

static void quiet(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

/* A 4x4 torus with two hosts a switch: the pass finds something there. */
static struct cr_fabric *torus(void)
{
	const unsigned dims[] = {4, 4};
	struct cr_gen_params gp = {.seed = 1};
	struct cr_fabric *f = cr_gen_torus(dims, 2, true, 2, &gp);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static void same_lfts(const struct cr_fabric *f, const struct cr_routing *a,
		      const struct cr_routing *b)
{
	for (uint32_t s = 0; s < f->num_switches; s++)
		assert_memory_equal(a->lft[f->switches[s]],
				    b->lft[f->switches[s]], f->max_lid + 1);
}

static bool same(const struct cr_fabric *f, const struct cr_routing *a,
		 const struct cr_routing *b)
{
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (memcmp(a->lft[f->switches[s]], b->lft[f->switches[s]],
			   f->max_lid + 1))
			return false;
	return true;
}

/*
 * A deadline far off: it replaces the pass's own wall-clock guard, which
 * a sanitizer's build can pass on this budget.
 */
static struct cr_stop far_off;

static void conf(struct cr_auto_conf *ac, struct cr_opt_params *p)
{
	far_off.deadline = cr_now() + 3600;
	cr_opt_params_init(p);
	*ac = (struct cr_auto_conf){.candidates = "updn,minhop+ps",
				    .allow_credit_loops = true,
				    .budget = 0.5,
				    .improve = cr_optimize_hook,
				    .improve_arg = p,
				    .improve_rest = true};
}

/* What every test routes: the torus, cr-auto's conf, the tables. */
struct steps {
	struct cr_fabric *f;
	struct cr_auto_conf ac; /* read through o at each call */
	struct cr_opt_params p;
	struct cr_options o;
	struct cr_byproducts by, by2;
	struct cr_routing *r, *fast, *one;
};

static int setup(void **state)
{
	struct steps *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->f = torus();
	x->r = cr_routing_new(x->f);
	assert_non_null(x->r);
	conf(&x->ac, &x->p);
	cr_options_init(&x->o);
	cr_auto_conf_use(&x->o, &x->ac);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct steps *x = *state;

	cr_routing_free(x->r);
	cr_routing_free(x->fast);
	cr_routing_free(x->one);
	cr_byproducts_release(&x->by);
	cr_byproducts_release(&x->by2);
	cr_fabric_free(x->f);
	free(x);
	return 0;
}

/* The fast step, its tables kept in x->fast. */
static void fast_step(struct steps *x)
{
	assert_int_equal(cr_auto_fast(x->f, &x->o, x->r, &x->by), 0);
	x->fast = cr_routing_copy(x->r);
	assert_non_null(x->fast);
}

/* fast + improve = the engine in one call, twice over. */
static void test_steps_equal_one_call(void **state)
{
	struct steps *x = *state;
	int rc;

	x->o.stop = &far_off;
	fast_step(x);
	rc = cr_auto_improve(x->f, &x->o, x->r, &x->by);
	assert_true(rc == 0 || rc == 1);
	/* unchanged unless an improvement was accepted */
	assert_true(rc == 1 ? !same(x->f, x->r, x->fast)
			    : same(x->f, x->r, x->fast));
	for (int i = 0; i < 2; i++) {
		cr_routing_free(x->one);
		x->one = cr_routing_new(x->f);
		assert_int_equal(cr_route_by(&cr_auto_engine, x->f, &x->o,
					     x->one, &x->by2),
				 0);
		same_lfts(x->f, x->r, x->one);
	}
	assert_string_equal(x->by.auto_winner, x->by2.auto_winner);
}

/* A cancel flag set, or a deadline past: -1, tables and table as before. */
static void test_give_up(void **state)
{
	struct steps *x = *state;
	bool cancel = true;
	struct cr_stop stop = {.cancel = &cancel};
	char *table;

	fast_step(x);
	table = strdup(x->by.auto_table);
	assert_non_null(table);
	x->o.stop = &stop;
	assert_int_equal(cr_auto_improve(x->f, &x->o, x->r, &x->by), -1);
	same_lfts(x->f, x->r, x->fast);
	assert_string_equal(x->by.auto_table, table);
	cancel = false;
	stop.deadline = cr_now() - 1;
	assert_int_equal(cr_auto_improve(x->f, &x->o, x->r, &x->by), -1);
	same_lfts(x->f, x->r, x->fast);
	assert_string_equal(x->by.auto_table, table);
	free(table);
}

/* A threshold no gain reaches: the fast step's tables stay. */
static void test_threshold(void **state)
{
	struct steps *x = *state;

	x->ac.threshold = 1; /* twice as good, at least */
	x->o.stop = &far_off;
	fast_step(x);
	assert_int_equal(cr_auto_improve(x->f, &x->o, x->r, &x->by), 0);
	same_lfts(x->f, x->r, x->fast);
}

/*
 * One candidate and no pass: the fast step checks it without scoring it,
 * the improve step has nothing new to try (idle) and leaves the tables,
 * and the engine in one call gives the same.
 */
static void test_idle(void **state)
{
	struct steps *x = *state;

	x->ac.candidates = "updn";
	x->ac.improve = NULL;
	x->o.stop = &far_off;
	x->one = cr_routing_new(x->f);
	assert_int_equal(cr_auto_fast(x->f, &x->o, x->r, &x->by), 0);
	assert_string_equal(x->by.auto_winner, "updn");
	/* checked, not scored: its row has no figure, and wins */
	assert_non_null(strstr(x->by.auto_table, "shift:avg@8 - "));
	assert_non_null(strstr(x->by.auto_table, "WINNER"));
	assert_true(cr_auto_improve_idle(x->f, &x->o, &x->by));
	x->fast = cr_routing_copy(x->r);
	assert_non_null(x->fast);
	assert_int_equal(cr_auto_improve(x->f, &x->o, x->r, &x->by), 0);
	same_lfts(x->f, x->r, x->fast);
	assert_int_equal(
		cr_route_by(&cr_auto_engine, x->f, &x->o, x->one, &x->by2), 0);
	same_lfts(x->f, x->one, x->fast);
	/* a second candidate, or the pass with room: not idle */
	x->ac.candidates = "updn,minhop+ps";
	assert_false(cr_auto_improve_idle(x->f, &x->o, &x->by));
	x->ac.candidates = "updn";
	x->ac.improve = cr_optimize_hook;
	assert_false(cr_auto_improve_idle(x->f, &x->o, &x->by));
}

/* No candidate qualifies: -1, and the caller's tables are back, empty. */
static void test_fast_fails_clean(void **state)
{
	struct steps *x = *state;
	const struct cr_fabric *f = x->f;

	x->ac.candidates = "lash"; /* refused: qos is off */
	assert_int_equal(cr_auto_fast(x->f, &x->o, x->r, &x->by), -1);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const uint8_t *row = x->r->lft[f->switches[s]];

		assert_non_null(row);
		for (uint32_t lid = 0; lid <= f->max_lid; lid++)
			assert_int_equal(row[lid], CR_NO_PATH);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_steps_equal_one_call,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_give_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threshold, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_fails_clean, setup,
						teardown),
	};

	cr_log_set(quiet, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
