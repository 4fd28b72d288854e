// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rail-ring pattern: every flow goes from server s to server s + 1
 * on the same rail, servers and rails told by system image GUIDs, the
 * ring in the order servers first appear in the host order.
 */
#include <string.h>

#include <croute/io/gen.h>
#include <croute/estimate/pattern.h>

#include "testutil.h"

#define SERVERS 6
#define RAILS 3

static struct cr_fabric *rail_fabric(void)
{
	struct cr_fabric *f = cr_gen_rail_tree(SERVERS, RAILS, 2, 1, NULL);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

/* "server004 HCA-2" -> server 4, rail 2. */
static void server_rail(const struct cr_fabric *f, uint32_t node,
			unsigned *server, unsigned *rail)
{
	assert_int_equal(
		sscanf(f->nodes[node].desc, "server%u HCA-%u", server, rail),
		2);
}

/*
 * The flows of the one phase over hosts h; step: +1 when the hosts list
 * servers in increasing order, -1 in decreasing order.
 */
static void check_ring(const struct cr_fabric *f, const struct cr_hosts *h,
		       int step)
{
	struct cr_pattern p;
	struct cr_phases *ph;
	struct cr_flow out[SERVERS * RAILS];
	uint32_t label;
	size_t n;

	assert_int_equal(cr_pattern_parse("rail-ring", &p), 0);
	ph = cr_phases_start(f, &p, h);
	assert_non_null(ph);
	assert_int_equal(cr_phases_count(ph), 1);
	assert_true(cr_phases_max_flows(ph) >= SERVERS * RAILS);
	n = cr_phases_get(ph, 0, out, &label);
	assert_int_equal(n, SERVERS * RAILS);
	for (size_t i = 0; i < n; i++) {
		unsigned s, r, ds, dr;

		server_rail(f, out[i].src_node, &s, &r);
		server_rail(f, f->lid_node[out[i].dst_lid], &ds, &dr);
		assert_int_equal(dr, r);
		assert_int_equal(ds, (s - 1 + SERVERS + step) % SERVERS + 1);
	}
	cr_phases_stop(ph);
}

static void test_ring_default_order(void **state)
{
	struct cr_fabric *f = rail_fabric();
	struct cr_hosts *h = cr_hosts_default(f);

	(void)state;
	assert_non_null(h);
	assert_int_equal(h->count, SERVERS * RAILS);
	check_ring(f, h, 1);
	cr_hosts_free(h);
	cr_fabric_free(f);
}

/* Servers listed last to first: the ring turns the other way. */
static void test_ring_reversed(void **state)
{
	struct cr_fabric *f = rail_fabric();
	struct cr_hosts *h = cr_hosts_default(f);

	(void)state;
	assert_non_null(h);
	for (uint32_t i = 0, j = h->count - 1; i < j; i++, j--) {
		struct cr_endpoint t = h->ep[i];

		h->ep[i] = h->ep[j];
		h->ep[j] = t;
	}
	check_ring(f, h, -1);
	cr_hosts_free(h);
	cr_fabric_free(f);
}

/* Without shared system images, every HCA is a server: one ring of all. */
static void test_ring_no_servers(void **state)
{
	struct cr_fabric *f = rail_fabric();
	struct cr_hosts *h = cr_hosts_default(f);
	struct cr_flow out[SERVERS * RAILS];
	struct cr_pattern p;
	struct cr_phases *ph;
	uint32_t label;

	(void)state;
	for (uint32_t i = 0; i < f->num_nodes; i++)
		f->nodes[i].sysimg_guid = 0;
	assert_int_equal(cr_pattern_parse("rail-ring", &p), 0);
	ph = cr_phases_start(f, &p, h);
	assert_non_null(ph);
	assert_int_equal(cr_phases_get(ph, 0, out, &label), h->count);
	for (uint32_t i = 0; i < h->count; i++) {
		assert_int_equal(out[i].src_node, h->ep[i].node);
		assert_int_equal(out[i].dst_lid, h->ep[(i + 1) % h->count].lid);
	}
	cr_phases_stop(ph);
	cr_hosts_free(h);
	cr_fabric_free(f);
}

static void quiet(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

static void test_ring_parse(void **state)
{
	struct cr_pattern p;

	(void)state;
	cr_log_set(quiet, NULL, CR_LOG_ERROR);
	assert_int_equal(cr_pattern_parse("rail-ring:3", &p), -1);
	cr_log_set(NULL, NULL, CR_LOG_INFO);
	assert_int_equal(cr_pattern_parse("rail-ring", &p), 0);
	assert_int_equal(p.kind, CR_PAT_RAIL_RING);
	assert_string_equal(cr_pattern_kind_name(p.kind), "rail-ring");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_default_order),
		cmocka_unit_test(test_ring_reversed),
		cmocka_unit_test(test_ring_no_servers),
		cmocka_unit_test(test_ring_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
