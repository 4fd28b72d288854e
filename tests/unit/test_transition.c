// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cr_transition_check(): changes whose old and new tables
 * are each sound but whose mixes are not, a safe change, SL changes.
 */
#include <string.h>

#include <croute/model/check.h>
#include <croute/model/transition.h>

#include "testutil.h"
#include "transition.h"

/*
 * Ring tables (tu_ring: port 1 clockwise, port 2 counter-clockwise, the
 * host on port 3): toward each LID one hop when a neighbour holds it,
 * else clockwise, unless ccw(s, t) says otherwise for the switch s and
 * the destination's switch t.
 */
static struct cr_routing *ring_tables(const struct cr_fabric *f, unsigned n,
				      bool (*ccw)(uint32_t s, uint32_t t))
{
	struct cr_routing *r = cr_routing_new(f);

	assert_non_null(r);
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint8_t deliver;
			uint32_t t = cr_lid_switch(f, (uint16_t)lid, &deliver);
			uint32_t cw = (t + n - s) % n;

			if (t == CR_NO_NODE)
				continue;
			if (t == s)
				r->lft[s][lid] = deliver;
			else if (cw == 1)
				r->lft[s][lid] = 1;
			else if (cw == n - 1)
				r->lft[s][lid] = 2;
			else
				r->lft[s][lid] = ccw(s, t) ? 2 : 1;
		}
	return r;
}

static uint16_t host_lid(const struct cr_fabric *f, uint32_t sw)
{
	return f->nodes[f->nodes[sw].ports[3].remote].ports[1].lid;
}

/* Each table alone: every LID reached, no loop, no credit loop. */
static void assert_sound(const struct cr_fabric *f, const struct cr_routing *r)
{
	struct cr_check_report rep;

	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &rep), 0);
	assert_int_equal(rep.unreachable + rep.loops, 0);
	assert_int_equal(rep.credit_loops, 0);
}

static bool never(uint32_t s, uint32_t t)
{
	(void)s;
	(void)t;
	return false;
}

/*
 * A ring of 4 without the clockwise turn at switch 0 for one pair (3 to
 * 1 goes 3-2-1), and the same turn removed at switch 2 for another (1 to
 * 3 goes 1-0-3): each table leaves one of the four clockwise turns
 * unused, so each is free of credit loops; together they use all four.
 */
static bool old_ccw(uint32_t s, uint32_t t)
{
	return s == 3 && t == 1;
}

static bool new_ccw(uint32_t s, uint32_t t)
{
	return s == 1 && t == 3;
}

static void test_union_of_dependencies_refused(void **state)
{
	struct cr_fabric *f = tu_ring(4);
	struct cr_routing *a = ring_tables(f, 4, old_ccw);
	struct cr_routing *b = ring_tables(f, 4, new_ccw);
	struct cr_transition_report rep;

	(void)state;
	assert_sound(f, a);
	assert_sound(f, b);
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_CREDIT);
	assert_int_equal(rep.vl, 0);
	assert_int_equal(rep.cycle, 4);
	assert_int_equal(cr_transition_check(f, b, a, NULL, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_CREDIT);
	/* Either table to itself: nothing changes, nothing unsafe. */
	assert_int_equal(cr_transition_check(f, a, a, NULL, &rep), 0);
	assert_int_equal(rep.fault, CR_TRANSITION_SAFE);
	assert_int_equal(rep.changed, 0);
	assert_int_equal(cr_transition_check(f, b, b, NULL, &rep), 0);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);
}

/*
 * Toward the host of switch 2 on a ring of 4: the old tables send
 * switch 1's traffic 1-0-3-2, the new ones switch 0's 0-1-2. Switch 1 on
 * its old entry and switch 0 on its new one bounce packets between them.
 */
static void test_mixed_loop_refused(void **state)
{
	struct cr_fabric *f = tu_ring(4);
	struct cr_routing *a = ring_tables(f, 4, never);
	struct cr_routing *b = ring_tables(f, 4, never);
	struct cr_transition_report rep;
	uint16_t h2 = host_lid(f, 2);

	(void)state;
	/* Only one LID, so that credit loops stay out of the picture. */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (lid != h2)
			for (uint32_t s = 0; s < 4; s++)
				a->lft[s][lid] = b->lft[s][lid] = CR_NO_PATH;
	a->lft[1][h2] = 2;
	a->lft[0][h2] = 2;
	{
		struct cr_check_report c;

		assert_int_equal(cr_check(f, a, 0, NULL, 0, &c), 0);
		assert_int_equal(c.loops, 0);
		assert_int_equal(cr_check(f, b, 0, NULL, 0, &c), 0);
		assert_int_equal(c.loops, 0);
	}
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_LOOP);
	assert_int_equal(rep.lid, h2);
	assert_int_equal(rep.cycle, 2);
	assert_true(rep.sw == 0 || rep.sw == 1);
	assert_int_equal(rep.changed, 2);
	assert_int_equal(cr_transition_check(f, b, a, NULL, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_LOOP);
	/* Switch 0 keeps its old entry: no mix loops any more. */
	b->lft[0][h2] = 2;
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 0);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);
}

/*
 * A ring of 4 (port 1 clockwise, 2 counter-clockwise) and a fifth switch
 * E on port 4 of switches 2 and 3.
 */
static struct cr_fabric *ring_and_e(void)
{
	struct cr_fabric *f = cr_fabric_new();

	for (unsigned i = 0; i < 5; i++)
		tu_switch(f, 4, i + 1);
	for (unsigned i = 0; i < 4; i++)
		tu_link(f, i, 1, (i + 1) % 4, 2);
	tu_link(f, 2, 4, 4, 1);
	tu_link(f, 3, 4, 4, 2);
	tu_link(f, 0, 3, tu_host(f, 0), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static void set_path(struct cr_routing *r, uint16_t lid, const uint32_t *sw,
		     const uint8_t *ports, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		r->lft[sw[i]][lid] = ports[i];
}

/*
 * A dependency no table makes alone: the old tables send switch 1's
 * traffic to E by 1-2-E, the new ones by 1-0-3-E and switch 2's by
 * 2-3-E. A packet that left switch 1 on the old entry and meets switch
 * 2's new one turns from cable 1-2 into 2-3, the one clockwise turn of
 * the ring neither table has; switch LIDs of 0, 1 and 2 reached along the
 * ring give the other three. Each table is free of credit loops, and so
 * is the union of their two dependency graphs; the mixes are not.
 */
static void test_crossed_dependency_refused(void **state)
{
	struct cr_fabric *f = ring_and_e();
	struct cr_routing *a = cr_routing_new(f), *b = cr_routing_new(f);
	struct cr_transition_report rep;
	uint16_t lid[5];

	(void)state;
	for (unsigned i = 0; i < 5; i++)
		lid[i] = f->nodes[i].ports[0].lid;
	for (unsigned k = 0; k < 2; k++) {
		struct cr_routing *r = k ? b : a;

		set_path(r, lid[0], (uint32_t[]){2, 3, 0}, (uint8_t[]){1, 1, 0},
			 3);
		set_path(r, lid[1], (uint32_t[]){3, 0, 1}, (uint8_t[]){1, 1, 0},
			 3);
		set_path(r, lid[2], (uint32_t[]){0, 1, 2}, (uint8_t[]){1, 1, 0},
			 3);
		r->lft[3][lid[4]] = 4;
		r->lft[4][lid[4]] = 0;
	}
	set_path(a, lid[4], (uint32_t[]){1, 2}, (uint8_t[]){1, 4}, 2);
	set_path(b, lid[4], (uint32_t[]){1, 0, 2}, (uint8_t[]){2, 2, 1}, 3);
	assert_int_equal(cr_credit_loop_any(f, a), 0);
	assert_int_equal(cr_credit_loop_any(f, b), 0);
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_CREDIT);
	assert_int_equal(rep.cycle, 4);
	/* Switch 2 keeps its way to E: no crossed turn, safe. */
	b->lft[2][lid[4]] = 4;
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 0);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);
}

/* Up/down on a tree stays up/down whatever the mix: accepted. */
static void test_safe_change_accepted(void **state)
{
	struct cr_fabric *f = tu_two_level(6, 3, 3, NULL, 1);
	struct cr_options o;
	struct cr_routing *a = tu_route(f, "updn", NULL), *b;
	struct cr_transition_report rep;

	(void)state;
	cr_options_init(&o);
	o.scatter_ports = 7;
	b = tu_route(f, "updn", &o);
	assert_sound(f, a);
	assert_sound(f, b);
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 0);
	assert_int_equal(rep.fault, CR_TRANSITION_SAFE);
	assert_true(rep.changed > 0);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);
}

/* The first LID of a CA port. */
static uint16_t a_host_lid(const struct cr_fabric *f)
{
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (f->lid_node[lid] != CR_NO_NODE &&
		    !cr_is_switch(f, f->lid_node[lid]))
			return (uint16_t)lid;
	fail();
	return 0;
}

/*
 * The same tables, but one pair's path moves to another SL, or an SL's
 * packets to another VL: refused before any loop search.
 */
static void test_sl_change_refused(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 2, 2, NULL, 0);
	struct cr_routing *a = tu_route(f, "minhop", NULL);
	struct cr_routing *b = cr_routing_copy(a);
	struct cr_transition_report rep;
	uint32_t spine = f->switches[0];
	uint16_t h = a_host_lid(f);

	(void)state;
	assert_non_null(b);
	assert_int_equal(cr_routing_alloc_sl(f, a), 0);
	assert_int_equal(cr_routing_alloc_sl(f, b), 0);
	a->sl2vl[1] = b->sl2vl[1] = 1;
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 0);
	/* A switch's own LID has no SL to keep. */
	b->sl[spine][f->nodes[spine].ports[0].lid] = 1;
	assert_int_equal(cr_transition_check(f, a, b, NULL, &rep), 0);
	b->sl[spine][h] = 1;
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_SL);
	assert_int_equal(rep.sw, spine);
	assert_int_equal(rep.lid, h);
	assert_int_equal(rep.changed, 0);
	b->sl[spine][h] = 0;
	/* SL 0 goes to VL 1 after: its packets in flight are on VL 0. */
	b->sl2vl[0] = 1;
	assert_int_equal(cr_transition_check(f, a, b, stderr, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_SL2VL);
	assert_int_equal(rep.sl, 0);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);
}

/* A layered routing on its own VLs is checked VL by VL. */
static void test_layers_kept_apart(void **state)
{
	struct cr_fabric *f = tu_ring(5);
	struct cr_routing *a = tu_route(f, "minhop", NULL);
	struct cr_transition_report rep;

	(void)state;
	/* Minhop on a ring of 5 has a credit loop of its own. */
	assert_int_equal(cr_transition_check(f, a, a, stderr, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_CREDIT);
	assert_int_equal(rep.cycle, 5);
	/* Paths leaving switch 0 or later crossing 4-0 on SL 1, VL 1. */
	assert_int_equal(cr_routing_alloc_sl(f, a), 0);
	for (uint32_t s = 0; s < 5; s++)
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t t = cr_lid_switch(f, (uint16_t)lid, NULL);

			/* Clockwise past 4, or counter-clockwise past 0. */
			a->sl[s][lid] = (a->lft[s][lid] == 1 && t < s) ||
					(a->lft[s][lid] == 2 && t > s);
		}
	a->sl2vl[1] = 1;
	assert_int_equal(cr_transition_check(f, a, a, stderr, &rep), 0);
	a->sl2vl[1] = 0;
	assert_int_equal(cr_transition_check(f, a, a, NULL, &rep), 1);
	assert_int_equal(rep.fault, CR_TRANSITION_CREDIT);
	assert_int_equal(rep.vl, 0);
	cr_routing_free(a);
	cr_fabric_free(f);
}

/* The plugin's log, captured. */
static char logged[8192];

static void sink(void *arg, enum cr_log_level level, const char *msg)
{
	size_t n = strlen(logged);

	(void)arg;
	snprintf(logged + n, sizeof(logged) - n, "%d %s\n", (int)level, msg);
}

/*
 * The plugin's gate: false on an unsafe change, with the fault and each
 * switch of the cycle in the log under the engine's name; true on a safe
 * one.
 */
static void test_plugin_gate(void **state)
{
	struct cr_fabric *f = tu_ring(4);
	struct cr_routing *a = ring_tables(f, 4, old_ccw);
	struct cr_routing *b = ring_tables(f, 4, new_ccw);
	char want[64];

	(void)state;
	logged[0] = '\0';
	cr_log_set(sink, NULL, CR_LOG_INFO);
	assert_false(cr_plugin_transition_safe("cr-auto", f, a, b));
	snprintf(want, sizeof(want), "%d cr-auto: the change of ", CR_LOG_INFO);
	assert_non_null(strstr(logged, want));
	assert_non_null(strstr(logged, "is unsafe while OpenSM rewrites the"
				       " switches (credit loop)"));
	assert_non_null(strstr(logged, "cr-auto: credit loop: VL 0"));
	/* Each of the 4 cables of the cycle on a line of its own. */
	for (unsigned s = 1; s <= 4; s++) {
		snprintf(want, sizeof(want), "cr-auto:   cable 'sw%04u'", s);
		assert_non_null(strstr(logged, want));
	}
	logged[0] = '\0';
	assert_true(cr_plugin_transition_safe("cr-auto", f, a, a));
	assert_non_null(strstr(logged, "is safe in every mix"));
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_loop_refused),
		cmocka_unit_test(test_union_of_dependencies_refused),
		cmocka_unit_test(test_crossed_dependency_refused),
		cmocka_unit_test(test_safe_change_accepted),
		cmocka_unit_test(test_sl_change_refused),
		cmocka_unit_test(test_layers_kept_apart),
		cmocka_unit_test(test_plugin_gate),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
