// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of cr_check(): every kind of fault it must find. */
#include <string.h>

#include <croute/model/check.h>

#include "testutil.h"

#define ALL (CR_CHECK_MINIMAL | CR_CHECK_CREDIT | CR_CHECK_SWITCHES)

static void test_tree_is_clean(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 2, 2, NULL, 1);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_check_report rep;
	unsigned hosts = 8, lids = 8 * 2 + 6;

	assert_int_equal(cr_check(f, r, ALL, stderr, 5, &rep), 0);
	/* Every host to every LID but its own two; and from both spines. */
	assert_int_equal(rep.pairs, hosts * (lids - 2) + 2 * lids);
	assert_int_equal(rep.unreachable + rep.loops + rep.non_minimal, 0);
	assert_int_equal(rep.credit_loops, 0);
	assert_int_equal(rep.max_hops, 3);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static uint16_t host_lid(const struct cr_fabric *f, uint32_t sw, unsigned p)
{
	return f->nodes[f->nodes[sw].ports[p].remote].ports[1].lid;
}

static void test_faults_found(void **state)
{
	struct cr_fabric *f = tu_ring(6);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_check_report rep;
	uint16_t h3 = host_lid(f, 3, 3);

	assert_int_equal(cr_check(f, r, CR_CHECK_MINIMAL, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable + rep.loops + rep.non_minimal, 0);

	/* Switch 2 sends host 3 the long way round: 2->1->0->5->4->3. */
	r->lft[2][h3] = 2;
	r->lft[1][h3] = 2;
	r->lft[0][h3] = 2;
	assert_int_equal(cr_check(f, r, CR_CHECK_MINIMAL, NULL, 0, &rep), 0);
	/* Sources at switches 2, 1 and 0 take detours; switch 0's 3-hop
	 * route the other way was minimal too, so it stays minimal. */
	assert_int_equal(rep.non_minimal, 2);
	assert_int_equal(rep.unreachable + rep.loops, 0);

	/* A loop 1 <-> 2 and a dead entry on switch 5. */
	r->lft[1][h3] = 1;
	r->lft[5][h3] = CR_NO_PATH;
	assert_int_equal(cr_check(f, r, 0, NULL, 0, &rep), 0);
	assert_int_equal(rep.loops, 2);
	/* Switch 5 itself, and switch 0 which now forwards through it. */
	assert_int_equal(rep.unreachable, 2);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_ring_credit_loop(void **state)
{
	struct cr_fabric *f = tu_ring(5);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_check_report rep;

	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.credit_loops, 1);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/* Does the path from switch s to lid cross the cable between 4 and 0? */
static bool crosses_dateline(const struct cr_fabric *f,
			     const struct cr_routing *r, uint32_t s,
			     uint16_t lid)
{
	for (unsigned i = 0; i < 5; i++) {
		uint8_t p = r->lft[s][lid];
		uint32_t m;

		if (p == 0 || p == CR_NO_PATH)
			return false;
		m = f->nodes[s].ports[p].remote;
		if ((s == 4 && m == 0) || (s == 0 && m == 4))
			return true;
		if (!cr_is_switch(f, m))
			return false;
		s = m;
	}
	return false;
}

/*
 * Paths that cross the dateline on SL 1, the others on SL 0: each layer
 * is acyclic, unless SL2VL folds both SLs onto one VL.
 */
static void test_layers_break_loops(void **state)
{
	struct cr_fabric *f = tu_ring(5);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_check_report rep;

	assert_int_equal(cr_routing_alloc_sl(f, r), 0);
	for (uint32_t s = 0; s < 5; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			r->sl[s][lid] = crosses_dateline(f, r, s, lid);
	r->sl2vl[1] = 1;
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.credit_loops, 0);
	r->sl2vl[1] = 0;
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.credit_loops, 1);
	/*
	 * SL sets (paths of one switch's ports on several SLs): the dateline
	 * layering as sets is clean; one crossing path of one switch also
	 * on SL 0 closes the loop again.
	 */
	r->sl2vl[1] = 1;
	assert_int_equal(cr_routing_alloc_sl_set(f, r), 0);
	for (uint32_t s = 0; s < 5; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			r->sl_set[s][lid] = (uint16_t)(1u << r->sl[s][lid]);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.credit_loops, 0);
	for (uint32_t s = 0; s < 5; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			if (r->sl[s][lid]) {
				r->sl_set[s][lid] |= 1;
				break;
			}
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.credit_loops, 1);
	for (uint32_t s = 0; s < 5; s++)
		free(r->sl_set[s]);
	free(r->sl_set);
	r->sl_set = NULL;
	r->sl2vl[1] = 0;
	/* One path moved to another VL leaves the loop on the first. */
	for (uint32_t s = 0; s < 5; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			r->sl[s][lid] = 2;
	r->sl[0][1] = 3;
	r->sl2vl[2] = 2;
	r->sl2vl[3] = 3;
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.credit_loops, 1);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * The same layering on SLs 8 and 9 (the upper half of the SL set, mapped
 * through its own table): clean while SL 9 has a VL of its own, one loop,
 * reported on that VL, once SL2VL folds it onto SL 8's.
 */
static void test_high_sls(void **state)
{
	struct cr_fabric *f = tu_ring(5);
	struct cr_routing *r = tu_route(f, "minhop", NULL);
	struct cr_check_report rep;
	char buf[4096] = "";
	FILE *out = fmemopen(buf, sizeof(buf) - 1, "w");

	assert_non_null(out);
	assert_int_equal(cr_routing_alloc_sl(f, r), 0);
	for (uint32_t s = 0; s < 5; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			r->sl[s][lid] =
				(uint8_t)(8 + crosses_dateline(f, r, s, lid));
	r->sl2vl[8] = 5;
	r->sl2vl[9] = 6;
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.credit_loops, 0);
	r->sl2vl[9] = 5;
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, out, 1, &rep), 0);
	fclose(out);
	assert_int_equal(rep.credit_loops, 1);
	assert_non_null(strstr(buf, "credit loop: VL 5,"));
	cr_routing_free(r);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_is_clean),
		cmocka_unit_test(test_faults_found),
		cmocka_unit_test(test_ring_credit_loop),
		cmocka_unit_test(test_layers_break_loops),
		cmocka_unit_test(test_high_sls),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
