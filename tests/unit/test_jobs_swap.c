// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Whole-route swaps (src/core/tune/jobs_swap.c): only whole routes are
 * exchanged (at every switch but theirs, two destinations of one switch
 * trade entries, nothing else changes), the tables stay complete, free of
 * loops and credit loops, every SL is kept, the objective rises as the
 * full estimate says, and the same inputs give the same tables.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/clock.h>
#include <croute/io/jobs.h>
#include <croute/model/check.h>
#include <croute/io/gen.h>
#include <croute/tune/jobs_tune.h>

#include "testutil.h"
#include "../../src/core/tune/jobs_swap.h"

static uint32_t sw_of_lid(const struct cr_fabric *f, uint16_t lid)
{
	const struct cr_node *n = &f->nodes[f->lid_node[lid]];

	return n->type == CR_NODE_SWITCH ? f->lid_node[lid]
					 : n->ports[f->lid_port[lid]].remote;
}

static int cmp_u8(const void *a, const void *b)
{
	return *(const uint8_t *)a - *(const uint8_t *)b;
}

/*
 * Whether b is a from whole-route swaps alone: a destination's own switch
 * keeps every entry, and at every other switch the entries toward the CAs
 * of one switch are the same ports, permuted the same way everywhere.
 */
static bool whole_routes(const struct cr_fabric *f, const struct cr_routing *a,
			 const struct cr_routing *b)
{
	uint16_t *to = calloc((size_t)f->max_lid + 1, sizeof(*to));
	bool ok = true;

	assert_non_null(to);
	/* b's route to l is a's route to to[l]: found at any other switch
	 * (the first whose entries tell them apart), checked at all */
	for (uint16_t l = 1; l <= f->max_lid; l++) {
		uint32_t m = sw_of_lid(f, l);

		to[l] = l;
		if (f->nodes[f->lid_node[l]].type == CR_NODE_SWITCH)
			continue;
		for (uint16_t k = 1; k <= f->max_lid; k++) {
			bool same =
				f->nodes[f->lid_node[k]].type == CR_NODE_CA &&
				sw_of_lid(f, k) == m;

			for (uint32_t i = 0; same && i < f->num_switches; i++) {
				uint32_t n = f->switches[i];

				if (n != m && b->lft[n][l] != a->lft[n][k])
					same = false;
			}
			if (same) {
				to[l] = k;
				break;
			}
		}
	}
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];
		uint8_t x[512], y[512];
		unsigned c = 0;

		for (uint16_t l = 1; l <= f->max_lid; l++) {
			if (sw_of_lid(f, l) == n || to[l] == l) {
				ok &= a->lft[n][l] == b->lft[n][l];
				continue;
			}
			ok &= b->lft[n][l] == a->lft[n][to[l]];
			assert_true(c < 512);
			x[c] = a->lft[n][l];
			y[c++] = b->lft[n][l];
		}
		qsort(x, c, 1, cmp_u8);
		qsort(y, c, 1, cmp_u8);
		ok &= !memcmp(x, y, c);
	}
	free(to);
	return ok;
}

static bool same_sls(const struct cr_fabric *f, const struct cr_routing *a,
		     const struct cr_routing *b)
{
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		if (!a->sl != !b->sl)
			return false;
		if (a->sl && memcmp(a->sl[n], b->sl[n], (size_t)f->max_lid + 1))
			return false;
	}
	return true;
}

/* Swaps on r (engine name) with jobs text; checks all but the gain. */
static struct cr_routing *swapped(const struct cr_fabric *f,
				  const struct cr_routing *r, const char *jobs,
				  struct jobs_swap_stats *st)
{
	struct cr_jobs *j = cr_jobs_parse(f, NULL, jobs, strlen(jobs), "t");
	struct cr_routing *t = cr_routing_copy(r), *t2 = cr_routing_copy(r);
	const struct cr_stop far = {.deadline = cr_now() + 86400};
	struct jobs_swap_stats st2;
	struct cr_check_report rep;
	struct cr_objective obj;
	double s[8];

	assert_non_null(j);
	assert_non_null(t);
	assert_non_null(t2);
	assert_int_equal(
		cr_objective_parse(CR_JOBS_OBJECTIVE_DEFAULT, "t", &obj), 0);
	obj.jobs = j;
	assert_int_equal(cr_jobs_swap(f, t, j, &obj, 100000000, &far, st), 0);
	/* the same inputs, the same tables */
	assert_int_equal(cr_jobs_swap(f, t2, j, &obj, 100000000, &far, &st2),
			 0);
	assert_true(tu_same_lfts(f, t, t2));
	assert_true(whole_routes(f, r, t));
	assert_true(same_sls(f, r, t));
	assert_int_equal(cr_check(f, t, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
	/* the figures are the tables' */
	assert_true(obj.num_terms <= 8);
	{
		struct cr_hosts *h = cr_hosts_default(f);

		assert_int_equal(cr_objective_score(f, t, &obj, h, s), 0);
		assert_true(s[0] == st->after);
		cr_hosts_free(h);
	}
	cr_objective_release(&obj);
	cr_routing_free(t2);
	cr_jobs_free(j);
	return t;
}

/* A two-level tree: hosts of one job on a leaf get different spines. */
static void test_two_level(void **state)
{
	struct cr_fabric *f = tu_two_level(8, 4, 4, NULL, 0);
	struct cr_byproducts by = {0};
	struct cr_routing *r = tu_route_by(f, "minhop", NULL, &by), *t;
	struct jobs_swap_stats st;

	(void)state;
	t = swapped(f, r,
		    "1 h[0000,0001,0004,0005,0008,0009,0012,0013]\n"
		    "2 h[0002,0006,0010,0014,0018,0022]\n"
		    "3 h[0016,0017,0020,0021,0024-0031]\n",
		    &st);
	assert_true(st.swaps > 0);
	assert_true(st.after > st.before);
	assert_false(tu_same_lfts(f, r, t));
	cr_routing_free(t);
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_fabric_free(f);
}

/* A layered routing (cr-lash on a torus): every SL kept, no credit loop. */
static void test_layered(void **state)
{
	struct cr_gen_params gp = {0};
	unsigned dims[] = {4, 4};
	struct cr_fabric *f = cr_gen_torus(dims, 2, true, 2, &gp);
	struct cr_byproducts by = {0};
	struct cr_routing *r, *t;
	struct jobs_swap_stats st;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route_by(f, "lash", NULL, &by);
	assert_non_null(r->sl);
	t = swapped(f, r,
		    "1 h[0001-0004,0009-0012]\n2 h[0005-0008,0017-0020]\n"
		    "3 h[0013-0016,0021-0032]\n",
		    &st);
	assert_true(st.after >= st.before);
	cr_routing_free(t);
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_level),
		cmocka_unit_test(test_layered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
