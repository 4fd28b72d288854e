// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fabrics at the edges of what InfiniBand allows, through every engine:
 * each must be routed (and the result must check out) or refused with an
 * error message, never crash or leave a half-written table. Run under ASan
 * and UBSan in scripts/check's sanitizer build.
 */
#include <string.h>

#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/io/topo.h>

#include "testutil.h"

static unsigned num_errors;
static char last_error[512];

/* Counts errors, keeping the last, so a refusal can be seen to say why. */
static void sink(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	if (level != CR_LOG_ERROR)
		return;
	num_errors++;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	if (getenv("EDGES_VERBOSE"))
		fprintf(stderr, "  error: %s\n", msg);
}

static int setup(void **state)
{
	(void)state;
	cr_log_set(sink, NULL, CR_LOG_ERROR);
	return 0;
}

struct outcome {
	bool routed;
	struct cr_check_report rep;
	char reason[512]; /* the refusal's last error */
};

/* Every LFT entry is a real port, 0 (own LID) or CR_NO_PATH. */
static void assert_sane_lfts(const struct cr_fabric *f,
			     const struct cr_routing *r)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];

		for (uint32_t lid = 0; lid <= r->max_lid; lid++) {
			uint8_t p = r->lft[n][lid];

			assert_true(p == CR_NO_PATH ||
				    p <= f->nodes[n].num_ports);
		}
	}
}

static void assert_cleared(const struct cr_fabric *f,
			   const struct cr_routing *r)
{
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 0; lid <= r->max_lid; lid++)
			assert_int_equal(r->lft[f->switches[s]][lid],
					 CR_NO_PATH);
}

/* Runs one engine on f: routed and checked, or refused with a message. */
static struct outcome route_one(const struct cr_fabric *f, const char *name)
{
	const struct cr_engine *e = cr_engine_find(name);
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct outcome out = {0};

	assert_non_null(e);
	assert_non_null(r);
	cr_options_init(&o);
	num_errors = 0;
	last_error[0] = '\0';
	if (!cr_route(e, f, &o, r)) {
		out.routed = true;
		assert_sane_lfts(f, r);
		assert_int_equal(cr_check(f, r,
					  CR_CHECK_CREDIT | CR_CHECK_SWITCHES,
					  NULL, 0, &out.rep),
				 0);
		assert_int_equal(out.rep.loops, 0);
	} else {
		/* Refused: said why, and left nothing behind. */
		assert_true(num_errors > 0);
		assert_cleared(f, r);
		snprintf(out.reason, sizeof(out.reason), "%s", last_error);
	}
	if (getenv("EDGES_VERBOSE"))
		fprintf(stderr, "  %s: %s, %llu unreachable\n", name,
			out.routed ? "routed" : "refused",
			(unsigned long long)out.rep.unreachable);
	cr_options_release(&o);
	cr_routing_free(r);
	return out;
}

static const char *const engines[] = {"minhop", "updn", "ftree", "lash"};
#define NUM_ENGINES (sizeof(engines) / sizeof(engines[0]))

/* Every engine; returns how many routed with everything reachable. */
static unsigned route_all(const struct cr_fabric *f, struct outcome *out)
{
	unsigned full = 0;

	for (unsigned i = 0; i < NUM_ENGINES; i++) {
		out[i] = route_one(f, engines[i]);
		if (out[i].routed && !out[i].rep.unreachable)
			full++;
	}
	return full;
}

/*
 * Exactly the engines named in refusers refused, each with a message that
 * names the engine and contains why.
 */
static void assert_refused(const struct outcome *out, const char *refusers,
			   const char *why)
{
	for (unsigned i = 0; i < NUM_ENGINES; i++) {
		bool expected = strstr(refusers, engines[i]) != NULL;
		char tag[32];

		assert_int_equal(out[i].routed, !expected);
		if (!expected)
			continue;
		snprintf(tag, sizeof(tag), "cr-%s: ", engines[i]);
		assert_non_null(strstr(out[i].reason, tag));
		assert_non_null(strstr(out[i].reason, why));
	}
}

/* The fabric survives being written and read back. */
static void assert_round_trip(const struct cr_fabric *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct cr_fabric *g;
	FILE *in;

	assert_non_null(out);
	assert_int_equal(cr_topo_write(out, f), 0);
	fclose(out);
	in = fmemopen(buf, len, "r");
	assert_non_null(in);
	g = cr_topo_read_file(in, "round trip");
	fclose(in);
	assert_non_null(g);
	assert_int_equal(g->num_nodes, f->num_nodes);
	assert_int_equal(g->num_switches, f->num_switches);
	assert_int_equal(g->max_lid, f->max_lid);
	cr_fabric_free(g);
	free(buf);
}

static void test_single_switch(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct outcome out[NUM_ENGINES];
	uint32_t sw = tu_switch(f, 8, 1);

	(void)state;
	for (unsigned h = 0; h < 4; h++)
		tu_link(f, sw, h + 1, tu_host(f, h + 1), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	route_all(f, out);
	assert_refused(out, "", "");
	/* Nothing to choose: min-hop, up/down and LASH reach everything. */
	for (unsigned i = 0; i < NUM_ENGINES; i++)
		if (strcmp(engines[i], "ftree"))
			assert_true(out[i].routed && !out[i].rep.unreachable);
	assert_round_trip(f);
	cr_fabric_free(f);
}

/* Two 254-port switches, each with 253 hosts, one cable between them. */
static void test_254_ports(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct outcome out[NUM_ENGINES];
	uint32_t a = tu_switch(f, CR_MAX_PORTS, 1);
	uint32_t b = tu_switch(f, CR_MAX_PORTS, 2);

	(void)state;
	for (unsigned p = 1; p < CR_MAX_PORTS; p++) {
		tu_link(f, a, p, tu_host(f, p), 1);
		tu_link(f, b, p, tu_host(f, 1000 + p), 1);
	}
	tu_link(f, a, CR_MAX_PORTS, b, CR_MAX_PORTS);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	route_all(f, out);
	assert_refused(out, "ftree", "not a fat tree");
	assert_true(out[0].routed && !out[0].rep.unreachable);
	assert_round_trip(f);
	/* 255 ports is more than a node has: refused, with a message. */
	num_errors = 0;
	assert_int_equal(cr_fabric_add_node(f, CR_NODE_SWITCH, 0x999,
					    CR_MAX_PORTS + 1, "too-big"),
			 CR_NO_NODE);
	assert_true(num_errors > 0);
	cr_fabric_free(f);
}

/* A leaf/spine tree plus a switch cabled to nothing. */
static void test_isolated_switch(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 2, 2, NULL, 0);
	struct outcome out[NUM_ENGINES];

	(void)state;
	tu_switch(f, 4, 77);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	route_all(f, out);
	assert_refused(out, "", "");
	for (unsigned i = 0; i < NUM_ENGINES; i++)
		if (out[i].routed)
			/* Only paths to and from the lone switch fail. */
			assert_true(out[i].rep.unreachable > 0);
	cr_fabric_free(f);
}

/* A CA whose two ports go to different switches. */
static void test_dual_port_ca(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct outcome out[NUM_ENGINES];
	uint32_t a = tu_switch(f, 4, 1);
	uint32_t b = tu_switch(f, 4, 2);
	uint32_t ca = cr_fabric_add_node(f, CR_NODE_CA, 0x5000, 2, "dual");

	(void)state;
	assert_int_not_equal(ca, CR_NO_NODE);
	tu_link(f, a, 1, b, 1);
	tu_link(f, a, 2, ca, 1);
	tu_link(f, b, 2, ca, 2);
	tu_link(f, a, 3, tu_host(f, 1), 1);
	tu_link(f, b, 3, tu_host(f, 2), 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	route_all(f, out);
	assert_refused(out, "ftree", "not a fat tree");
	assert_true(out[0].routed && !out[0].rep.unreachable);
	assert_round_trip(f);
	cr_fabric_free(f);
}

/* LIDs at the top of the unicast range: tables of 0xC000 entries. */
static void test_top_lids(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct outcome out[NUM_ENGINES];
	uint32_t a = tu_switch(f, 4, 1);
	uint32_t b = tu_switch(f, 4, 2);
	uint32_t h1 = tu_host(f, 1), h2 = tu_host(f, 2), h3 = tu_host(f, 3);

	(void)state;
	tu_link(f, a, 1, b, 1);
	tu_link(f, a, 2, h1, 1);
	tu_link(f, b, 2, h2, 1);
	tu_link(f, b, 3, h3, 1);
	f->nodes[a].ports[0].lid = 1;
	f->nodes[b].ports[0].lid = 0xBF00;
	f->nodes[h1].ports[1].lid = 0xBFFE;
	f->nodes[h2].ports[1].lid = CR_MAX_UCAST_LID;
	f->nodes[h3].ports[1].lid = 0xBE80; /* 128 LIDs, up to 0xBEFF */
	f->nodes[h3].ports[1].lmc = 7;
	assert_int_equal(cr_fabric_finalize(f), 0);
	assert_int_equal(f->max_lid, CR_MAX_UCAST_LID);
	assert_int_equal(route_all(f, out) > 0, true);
	assert_refused(out, "ftree", "not a fat tree");
	assert_true(out[0].routed && !out[0].rep.unreachable);
	assert_round_trip(f);
	/* One past the top is multicast space: refused. */
	f->nodes[h2].ports[1].lid = CR_MAX_UCAST_LID + 1;
	num_errors = 0;
	assert_int_not_equal(cr_fabric_finalize(f), 0);
	assert_true(num_errors > 0);
	cr_fabric_free(f);
}

/* LMC 7 on a small tree, and LMC 7 on more ports than LIDs exist for. */
static void test_lmc7(void **state)
{
	struct cr_fabric *f = tu_two_level(3, 2, 2, NULL, 7);
	struct outcome out[NUM_ENGINES];

	(void)state;
	assert_int_equal(route_all(f, out) > 0, true);
	assert_refused(out, "", "");
	assert_true(out[0].routed && !out[0].rep.unreachable);
	assert_round_trip(f);
	cr_fabric_free(f);

	/* 400 ports x 128 LIDs > 0xBFFF: assigning must fail, and say so. */
	f = cr_fabric_new();
	{
		uint32_t sw[2] = {tu_switch(f, CR_MAX_PORTS, 1),
				  tu_switch(f, CR_MAX_PORTS, 2)};

		for (unsigned h = 0; h < 400; h++)
			tu_link(f, sw[h & 1], h / 2 + 1, tu_host(f, h + 1), 1);
		tu_link(f, sw[0], CR_MAX_PORTS, sw[1], CR_MAX_PORTS);
	}
	num_errors = 0;
	assert_int_not_equal(cr_fabric_assign_lids(f, 7), 0);
	assert_true(num_errors > 0);
	cr_fabric_free(f);
}

/*
 * A switch whose LFT (LinearFDBCap) is smaller than the highest LID: no
 * engine may hand it entries it cannot hold. Every engine must refuse and
 * name the switch.
 */
static void test_lft_cap(void **state)
{
	struct cr_fabric *f = tu_two_level(2, 2, 1, NULL, 0);
	struct outcome out[NUM_ENGINES];
	uint32_t leaf = CR_NO_NODE;
	char guid[32];

	(void)state;
	for (uint32_t s = 0; s < f->num_switches && leaf == CR_NO_NODE; s++)
		if (f->nodes[f->switches[s]].num_ports > 2)
			leaf = f->switches[s];
	assert_int_not_equal(leaf, CR_NO_NODE);
	f->nodes[leaf].lft_cap = f->max_lid; /* one entry short */
	snprintf(guid, sizeof(guid), "0x%016llx",
		 (unsigned long long)f->nodes[leaf].guid);
	for (unsigned i = 0; i < NUM_ENGINES; i++) {
		out[i] = route_one(f, engines[i]);
		assert_false(out[i].routed);
		assert_non_null(strstr(last_error, guid));
		assert_non_null(strstr(last_error, f->nodes[leaf].desc));
	}
	/* Exactly big enough: routed. */
	f->nodes[leaf].lft_cap = f->max_lid + 1;
	out[0] = route_one(f, "minhop");
	assert_true(out[0].routed && !out[0].rep.unreachable);
	cr_fabric_free(f);
}

/* A ring of switches and nothing else: only switch LIDs to route. */
static void test_ring_no_cas(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct outcome out[NUM_ENGINES];

	(void)state;
	for (unsigned i = 0; i < 5; i++)
		tu_switch(f, 2, i + 1);
	for (unsigned i = 0; i < 5; i++)
		tu_link(f, i, 1, (i + 1) % 5, 2);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	route_all(f, out);
	assert_refused(out, "ftree", "no compute node");
	assert_true(out[0].routed && !out[0].rep.unreachable);
	assert_round_trip(f);
	cr_fabric_free(f);
}

/* Switches only, no links at all; and one lone CA-less switch. */
static void test_no_links(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	struct outcome out[NUM_ENGINES];

	(void)state;
	tu_switch(f, 4, 1);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	route_all(f, out);
	assert_refused(out, "ftree", "no compute node");
	tu_switch(f, 4, 2);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	route_all(f, out);
	assert_refused(out, "ftree", "no compute node");
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_switch),
		cmocka_unit_test(test_254_ports),
		cmocka_unit_test(test_isolated_switch),
		cmocka_unit_test(test_dual_port_ca),
		cmocka_unit_test(test_top_lids),
		cmocka_unit_test(test_lmc7),
		cmocka_unit_test(test_lft_cap),
		cmocka_unit_test(test_ring_no_cas),
		cmocka_unit_test(test_no_links),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
