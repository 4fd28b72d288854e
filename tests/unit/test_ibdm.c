// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the ibdm plan reader on definitions of its own (a
 * --ibnl-dir): link attributes, format detection, expansion of boards
 * and their CFG flavours, names, the GUIDs documented in
 * include/croute/io/ibdm.h, rates, the plan's port names, and errors with
 * the line they blame.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include <croute/io/ibdm.h>

#include "../../src/core/io/ibdm_int.h"

static char first_error[1024];
static char dir[] = "/tmp/croute-ibdm-XXXXXX";

static void capture(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	if (level == CR_LOG_ERROR && !first_error[0])
		snprintf(first_error, sizeof(first_error), "%s", msg);
}

static const char box_ibnl[] = "SYSTEM CARD\n"
			       "NODE SW 4 X U1\n"
			       "   1 -> P1\n"
			       "   2 -> P2\n"
			       "   3 -10G-> U2 3\n"
			       "NODE SW 4 X U2\n"
			       "   1 -4x-> P3\n"
			       "\n"
			       "SYSTEM CARD:half\n"
			       "NODE SW 4 X U1\n"
			       "   1 -> P1\n"
			       "\n"
			       "TOPSYSTEM UBox,UB\n"
			       "card1/U1=attr\n"
			       "SUBSYSTEM CARD card1\n"
			       "   P1 -> A1\n"
			       "   P2 -> A2\n"
			       "   P3 -5G-> A3\n"
			       "SUBSYSTEM CARD leaf2\n"
			       "   P1 -> A4\n";
static const char host_ibnl[] = "TOPSYSTEM UHost\n"
				"NODE CA 2 X U1\n"
				"   1 -> P1\n"
				"   2 -> P2\n";

static int group_setup(void **state)
{
	char path[512];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/Box.ibnl", dir);
	f = fopen(path, "w");
	fputs(box_ibnl, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/Host.ibnl", dir);
	f = fopen(path, "w");
	fputs(host_ibnl, f);
	fclose(f);
	return cr_ibdm_add_dir(dir);
}

static int group_teardown(void **state)
{
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/Box.ibnl", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/Host.ibnl", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	first_error[0] = 0;
	cr_log_set(capture, NULL, CR_LOG_ERROR);
	return 0;
}

static struct cr_fabric *read_plan(const char *text, struct cr_ibdm_plan **pl)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct cr_fabric *f;

	assert_non_null(in);
	f = cr_ibdm_read_file(in, "t.topo", pl);
	fclose(in);
	return f;
}

static void test_arrows(void **state)
{
	uint8_t w;
	enum cr_speed s;

	(void)state;
	assert_int_equal(ibnl_parse_arrow("->", &w, &s), 0);
	assert_int_equal(w, 0);
	assert_int_equal(s, CR_SPEED_UNKNOWN);
	assert_int_equal(ibnl_parse_arrow("-4X->", &w, &s), 0);
	assert_int_equal(w, 4);
	assert_int_equal(ibnl_parse_arrow("-8X-5G->", &w, &s), 0);
	assert_int_equal(w, 8);
	assert_int_equal(s, CR_SPEED_DDR);
	assert_int_equal(ibnl_parse_arrow("-12x-2.5G->", &w, &s), 0);
	assert_int_equal(w, 12);
	assert_int_equal(s, CR_SPEED_SDR);
	assert_int_equal(ibnl_parse_arrow("-10G->", &w, &s), 0);
	assert_int_equal(w, 0);
	assert_int_equal(s, CR_SPEED_QDR);
	assert_int_equal(ibnl_parse_arrow("-4Y->", &w, &s), -1);
	assert_int_equal(ibnl_parse_arrow("-3x->", &w, &s), -1);
	assert_int_equal(ibnl_parse_arrow("--->", &w, &s), -1);
	assert_int_equal(ibnl_parse_arrow("-4X-", &w, &s), -1);
	assert_int_equal(ibnl_parse_arrow("-7G->", &w, &s), -1);
}

static bool detect(const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	bool yes;

	assert_non_null(in);
	yes = cr_ibdm_is_topo(in);
	fclose(in);
	return yes;
}

static void test_detect(void **state)
{
	(void)state;
	assert_true(detect("# plan\n\nUBox B1\n  A1 -> UHost H-1 P1\n"));
	assert_true(detect("UBox B1 CFG: card1=half\n  A1 -> UHost H P1\n"));
	assert_false(detect("Switch 8 \"sw1\"\n[1] \"h1\"[1]\n"));
	assert_false(detect("switchguid=0x1\nSwitch 8 \"S-1\"\n"));
	assert_false(detect("{ SW Ports:04 NodeGUID:0001 }\n"));
	assert_false(detect("UBox B1\n\n  A1 -> UHost H-1 P1\n"));
	assert_false(detect(""));
}

static uint32_t by_desc(const struct cr_fabric *f, const char *desc)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!strcmp(f->nodes[n].desc, desc))
			return n;
	fail_msg("no node %s", desc);
	return CR_NO_NODE;
}

static void test_expand(void **state)
{
	static const char plan[] = "UBox B1\n"
				   "  A1 -> UHost H-1 P1\n"
				   "  A3 -> UB B2 A1\n"
				   "  A4 -12X-> UHost H-1 P2\n"
				   "\n"
				   "UB B2 CFG: card1=half, leaf2=R\n"
				   "  A1 -> UBox B1 A3\n";
	struct cr_ibdm_plan *pl;
	struct cr_fabric *f = read_plan(plan, &pl);
	uint32_t u1, u2, h, l2, b2;
	uint64_t fnv = 0xcbf29ce484222325ULL;

	(void)state;
	assert_non_null(f);
	/* B1: card1 (U1, U2) and leaf2 (U1, U2); B2: card1's U1; H-1. */
	assert_int_equal(f->num_nodes, 6);
	assert_int_equal(f->num_switches, 5);
	u1 = by_desc(f, "B1/card1/U1");
	u2 = by_desc(f, "B1/card1/U2");
	l2 = by_desc(f, "B1/L2/U1");
	b2 = by_desc(f, "B2");
	h = by_desc(f, "H-1");
	assert_int_equal(f->nodes[h].type, CR_NODE_CA);
	/* The documented GUID: FNV-1a 64 of the name, low byte 0, top 03. */
	for (const char *s = "H-1"; *s; s++)
		fnv = (fnv ^ (unsigned char)*s) * 0x100000001b3ULL;
	assert_true(f->nodes[h].guid ==
		    (0x0300000000000000ULL | (fnv & 0x00ffffffffffff00ULL)));
	for (uint32_t n = 1; n < f->num_nodes; n++)
		assert_true(f->nodes[n - 1].guid < f->nodes[n].guid);
	/* Inside: U1 3 - U2 3 at the line's 10G, 4x by default. */
	assert_int_equal(f->nodes[u1].ports[3].remote, u2);
	assert_int_equal(f->nodes[u1].ports[3].speed, CR_SPEED_QDR);
	assert_int_equal(f->nodes[u1].ports[3].width, 4);
	/* A3: U2's port 1 says 4x, the board's line 5G: both count. */
	assert_int_equal(f->nodes[u2].ports[1].remote, b2);
	assert_int_equal(f->nodes[u2].ports[1].width, 4);
	assert_int_equal(f->nodes[u2].ports[1].speed, CR_SPEED_DDR);
	/* The file's -12X- wins; no speed anywhere: SDR. */
	assert_int_equal(f->nodes[l2].ports[1].remote, h);
	assert_int_equal(f->nodes[l2].ports[1].width, 12);
	assert_int_equal(f->nodes[l2].ports[1].speed, CR_SPEED_SDR);
	assert_string_equal(cr_ibdm_port_name(pl, l2, 1), "B1 A4");
	assert_string_equal(cr_ibdm_port_name(pl, h, 2), "H-1 P2");
	assert_null(cr_ibdm_port_name(pl, u1, 3));
	assert_int_equal(cr_ibdm_port_line(pl, l2, 1), 4);
	assert_true(cr_ibdm_port_listed(pl, l2, 1));
	assert_false(cr_ibdm_port_listed(pl, h, 2));
	{
		uint8_t w;
		enum cr_speed s;

		cr_ibdm_port_rate(pl, h, 2, &w, &s);
		assert_int_equal(w, 12);
		assert_int_equal(s, CR_SPEED_UNKNOWN);
	}
	cr_ibdm_plan_free(pl);
	cr_fabric_free(f);
}

static void expect_error(const char *plan, const char *msg)
{
	first_error[0] = 0;
	assert_null(read_plan(plan, NULL));
	if (!strstr(first_error, msg))
		fail_msg("expected \"%s\", got \"%s\"", msg, first_error);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("UBox B1\n  A1 -> Nope H P1\n",
		     "t.topo:2: unknown system type \"Nope\"");
	expect_error("UBox B1\n  A9 -> UHost H P1\n",
		     "t.topo:2: B1 (UBox) has no port A9");
	expect_error("UBox B1\n  A1 -> UHost H P1\n  A2 -> UHost H P1\n",
		     "t.topo:3: H P1 is already cabled on line 2");
	expect_error("UBox B1\n  A1 -> UHost H\n", "t.topo:2: truncated");
	expect_error("UBox B1\n  A1 -> UHost H P1\nUBox B2\n",
		     "t.topo:3: truncated");
	expect_error("UBox B1\n  A1 -> UHost H P1\n\n  A2 -> UHost H P2\n",
		     "t.topo:4: a cable outside a system's block");
	expect_error("UBox B1 CFG: card1=quarter\n  A1 -> UHost H P1\n",
		     "t.topo:1: UBox has no board CARD:quarter");
	expect_error("UBox B1\n  A1 -> UHost B1 P1\n",
		     "t.topo:2: B1 is a UHost here, a UBox on line 1");
	expect_error(
		"UBox B1\n  A1 -> UHost H P1\n\nUB B1\n  A2 -> UHost G P1\n",
		"t.topo:4: B1 already has its block on line 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_arrows, setup),
		cmocka_unit_test_setup(test_detect, setup),
		cmocka_unit_test_setup(test_expand, setup),
		cmocka_unit_test_setup(test_errors, setup),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
