// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the file formats and the generators: the topology reader
 * on both dialects and on malformed files (with the line it blames), the
 * writer against the reader, guid2lid, LFT dumps and ibroute output, the
 * temporary-file protocol, and the size and shape of generated fabrics.
 */
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "testutil.h"

#include <croute/io/gen.h>
#include <croute/io/topo.h>

/* The first error the core reports, for tests that check the message. */
static char first_error[1024];

static void capture(void *arg, enum cr_log_level level, const char *msg)
{
	if (level == CR_LOG_ERROR && !first_error[0])
		snprintf(first_error, sizeof(first_error), "%s", msg);
}

static int setup(void **state)
{
	first_error[0] = 0;
	cr_log_set(capture, NULL, CR_LOG_ERROR);
	return 0;
}

static struct cr_fabric *read_text(const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct cr_fabric *f;

	assert_non_null(in);
	f = cr_topo_read_file(in, "t.topo");
	fclose(in);
	return f;
}

static uint32_t by_guid(const struct cr_fabric *f, uint64_t guid)
{
	uint32_t n = cr_fabric_find_guid(f, guid);

	assert_int_not_equal(n, CR_NO_NODE);
	return n;
}

/* Nodes are sorted by GUID on reading: tests find them by description. */
static uint32_t by_desc(const struct cr_fabric *f, const char *desc)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!strcmp(f->nodes[n].desc, desc))
			return n;
	fail_msg("no node '%s'", desc);
	return CR_NO_NODE;
}

/* What ibnetdiscover printed for ibsim's net.2sw2path4hca2port example. */
static const char discovered[] =
	"#\n# Topology file: generated on Mon Nov 30 04:51:11 2026\n#\n"
	"# Initiated from node 0000000000200000 port 0000000000200000\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x200001\n"
	"switchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 0"
	" lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 0 4xSDR\n"
	"[2]\t\"H-0000000000100003\"[2](100005) \t\t# \"Hca2\" lid 0 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 0 4xSDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 0 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x200000\n"
	"switchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 0"
	" lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 0 4xSDR\n"
	"[2]\t\"H-0000000000100000\"[2](100002) \t\t# \"Hca1\" lid 0 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 0 4xSDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 0 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100003\ncaguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 0 lmc 0 \"Switch2\""
	" lid 0 4xSDR\n"
	"[2](100005) \t\"S-0000000000200001\"[2]\t\t# lid 0 lmc 0 \"Switch2\""
	" lid 0 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100000\ncaguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 0 lmc 0 \"Switch1\""
	" lid 0 4xSDR\n"
	"[2](100002) \t\"S-0000000000200000\"[2]\t\t# lid 0 lmc 0 \"Switch1\""
	" lid 0 4xSDR\n";

/* The same fabric as ibsim's plain net file: ibsim gave the GUIDs above. */
static const char plain[] =
	"# ibsim example\n"
	"Switch\t8 \"Switch1\"\n"
	"[1]\t\"Hca1\"[1]\n[2]\t\"Hca1\"[2]\n"
	"[3]\t\"Switch2\"[3]\n[5]\t\"Switch2\"[5]\n\n"
	"Switch 8 \"Switch2\"\n"
	"[1]\t\"Hca2\"[1]\n[2]\t\"Hca2\"[2]\n"
	"[3]\t\"Switch1\"[3]\n[5]\t\"Switch1\"[5]\n\n"
	"Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n[2]\t\"Switch1\"[2]\n\n"
	"Hca\t2 \"Hca2\"\n[1]\t\"Switch2\"[1]\n[2]\t\"Switch2\"[2]\n";

static void check_example(const struct cr_fabric *f)
{
	uint32_t s1 = by_guid(f, 0x200000), s2 = by_guid(f, 0x200001);
	uint32_t h1 = by_guid(f, 0x100000), h2 = by_guid(f, 0x100003);

	assert_int_equal(f->num_nodes, 4);
	assert_int_equal(f->num_switches, 2);
	assert_string_equal(f->nodes[s1].desc, "Switch1");
	assert_string_equal(f->nodes[h2].desc, "Hca2");
	assert_int_equal(f->nodes[s1].num_ports, 8);
	assert_int_equal(f->nodes[h1].type, CR_NODE_CA);
	assert_int_equal(f->nodes[h2].ports[2].guid, 0x100005);
	assert_int_equal(cr_remote(f, s1, 2), h1);
	assert_int_equal(f->nodes[s1].ports[2].remote_port, 2);
	assert_int_equal(cr_remote(f, s2, 5), s1);
	assert_int_equal(f->nodes[s2].ports[5].remote_port, 5);
	assert_int_equal(cr_remote(f, s1, 4), CR_NO_NODE);
	/* ibsim's defaults, which ibnetdiscover then printed */
	assert_int_equal(f->nodes[s1].ports[3].width, 4);
	assert_int_equal(f->nodes[s1].ports[3].speed, CR_SPEED_SDR);
	assert_int_equal(f->max_lid, 0);
}

static void test_read_discovered(void **state)
{
	struct cr_fabric *f = read_text(discovered);

	assert_non_null(f);
	check_example(f);
	assert_int_equal(f->nodes[by_guid(f, 0x100003)].sysimg_guid, 0x100003);
	cr_fabric_free(f);
}

static void test_read_plain(void **state)
{
	struct cr_fabric *f = read_text(plain);

	assert_non_null(f);
	check_example(f);
	cr_fabric_free(f);
}

static void test_guid_bases(void **state)
{
	/* switchguid= sets, switchguid+ moves from the last base; a CA takes
	 * 1 + its port count; routers start at 0 as in ibsim, which is no
	 * node's GUID: a file with routers sets rtguid=. */
	struct cr_fabric *f = read_text(
		"switchguid=0x1000\nSwitch 4 \"a\"\n[1] \"b\"[1]\n\n"
		"Switch 4 \"c\"\n\nswitchguid+0x10\nSwitch 4 \"d\"\n\n"
		"Ca 3 \"b\"\n[1] \"a\"[1]\n\nHca 1 \"e\"\n\n"
		"caguid=0x5000\nCa 2 \"f\"\n\nrtguid=0x10\nRt 1 \"g\"\n");

	assert_null(read_text("Rt 1 \"g\"\n"));

	assert_non_null(f);
	assert_int_equal(f->nodes[by_desc(f, "a")].guid, 0x1000);
	assert_int_equal(f->nodes[by_desc(f, "c")].guid, 0x1001);
	assert_int_equal(f->nodes[by_desc(f, "d")].guid, 0x1010);
	assert_int_equal(f->nodes[by_desc(f, "b")].guid, 0x100000);
	assert_int_equal(f->nodes[by_desc(f, "b")].ports[3].guid, 0x100003);
	assert_int_equal(f->nodes[by_desc(f, "e")].guid, 0x100004);
	assert_int_equal(f->nodes[by_desc(f, "f")].guid, 0x5000);
	assert_int_equal(f->nodes[by_desc(f, "g")].guid, 0x10);
	assert_int_equal(f->nodes[by_desc(f, "g")].type, CR_NODE_ROUTER);
	/* ... and the nodes are in GUID order. */
	for (uint32_t n = 1; n < f->num_nodes; n++)
		assert_true(f->nodes[n - 1].guid < f->nodes[n].guid);
	cr_fabric_free(f);
}

static void test_one_sided_and_rates(void **state)
{
	/* Links from one side only; the slower mask sets the rate; the far
	 * side's "lid" fills a port without a line; ibsim's w=/s= masks. */
	struct cr_fabric *f = read_text(
		"Switch 4 \"s\" # \"sw\" enhanced port 0 lid 1 lmc 0\n"
		"[1] \"h\"[1] # \"host\" lid 4 4xEDR\n"
		"[2] \"t\"[3]\n"
		"[3] \"t\"[4] w=4 s=2\n"
		"Switch 4 \"t\" # \"sw2\" base port 0 lid 2 lmc 0\n"
		"[3] \"s\"[2] # \"sw\" lid 1 12xFDR\n"
		"Ca 1 \"h\" # \"host\"\n");

	assert_non_null(f);
	uint32_t sw = by_desc(f, "sw"), sw2 = by_desc(f, "sw2"),
		 host = by_desc(f, "host");

	assert_int_equal(f->nodes[sw].ports[1].speed, CR_SPEED_EDR);
	assert_int_equal(f->nodes[host].ports[1].width, 4);
	assert_int_equal(f->nodes[host].ports[1].lid, 4);
	/* no rate on one end, 12x FDR on the other: the rate given wins
	 * (a line cut short must not slow the link to the default) */
	assert_int_equal(f->nodes[sw].ports[2].width, 12);
	assert_int_equal(f->nodes[sw2].ports[3].speed, CR_SPEED_FDR);
	assert_int_equal(f->nodes[sw2].ports[4].width, 8);
	assert_int_equal(f->nodes[sw2].ports[4].speed, CR_SPEED_DDR);
	assert_int_equal(f->lid_node[4], host);
	assert_int_equal(f->lid_node[2], sw2);
	cr_fabric_free(f);
}

static void test_read_lids(void **state)
{
	struct cr_fabric *f = read_text(
		"switchguid=0x10\nSwitch 2 \"s\" # \"sw\" base port 0 lid 3 lmc"
		" 0\n[1] \"h\"[1](21) # \"h\" lid 4 4xQDR\n\n"
		"caguid=0x20\nCa 1 \"h\" # \"h\"\n[1](21) \"s\"[1] # lid 4 lmc "
		"2"
		" \"sw\" lid 3 4xQDR\n");

	assert_non_null(f);
	assert_int_equal(f->max_lid, 7);
	assert_int_equal(f->lid_node[3], 0);
	assert_int_equal(f->lid_node[7], 1);
	assert_int_equal(f->nodes[1].ports[1].lmc, 2);
	cr_fabric_free(f);
}

static void test_read_errors(void **state)
{
	static const struct {
		const char *text, *where;
	} cases[] = {
		{"Swtich 4 \"a\"\n", "t.topo:1:"},
		{"Switch x \"a\"\n", "t.topo:1:"},
		{"Switch 0 \"a\"\n", "t.topo:1:"},
		{"Switch 300 \"a\"\n", "t.topo:1:"},
		{"Switch 4 a\n", "t.topo:1:"},
		{"Switch 4 \"a\n", "t.topo:1:"},
		{"Switch 4 \"a\"\n\nSwitch 4 \"a\"\n", "t.topo:3:"},
		{"[1] \"a\"[1]\n", "t.topo:1:"},
		{"Switch 4 \"a\"\n[5] \"a\"[1]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[0] \"a\"[1]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[x] \"a\"[1]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[1] \"a\"[2]\n[1] \"a\"[3]\n", "t.topo:3:"},
		{"Switch 4 \"a\"\n[1] \"b\"[1]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[1] \"a\"[9]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[1] \"a\"[1]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[1] a[1]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[1] \"b\"[0]\n\nSwitch 4 \"b\"\n",
		 "t.topo:2:"},
		/* both sides listed, disagreeing */
		{"Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n"
		 "[1] \"a\"[2]\n",
		 "t.topo:5:"},
		{"Switch 4 \"a\" # \"x\" base port 0 lid z lmc 0\n",
		 "t.topo:1:"},
		{"Switch 4 \"a\" # \"x\" base port 0 lid 1 lmc 9\n",
		 "t.topo:1:"},
		/* LIDs are all or nothing */
		{"Switch 4 \"a\" # \"x\" base port 0 lid 1 lmc 0\n\n"
		 "Switch 4 \"b\" # \"y\" base port 0 lid 0 lmc 0\n",
		 "t.topo:3:"},
		{"switchguid=0x5\nSwitch 4 \"a\"\n\nswitchguid=0x5\n"
		 "Switch 4 \"b\"\n",
		 "t.topo:5:"},
		{"Switch 4 \"a\"\n@[1] \"x\"\n", "t.topo:2:"},
		{"include \"other\"\n", "t.topo:1:"},
		{"switchguid=zz\n", "t.topo:1:"},
		{"Switch 4 \"a\"\n[1](zz) \"a\"[2]\n", "t.topo:2:"},
		{"Switch 4 \"a\"\n[1] \"a\"[2] w=x\n", "t.topo:2:"},
		{"# nothing\n", "t.topo"},
		{"", "t.topo"},
		/* duplicate LIDs: the model's check, named by file */
		{"Switch 4 \"a\" # \"x\" base port 0 lid 1 lmc 0\n\n"
		 "Switch 4 \"b\" # \"y\" base port 0 lid 1 lmc 0\n",
		 "LID 1"},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cr_fabric *f;

		first_error[0] = 0;
		f = read_text(cases[i].text);
		if (f || !strstr(first_error, cases[i].where))
			fail_msg("case %u: fabric %p, error '%s', expected"
				 " '%s'",
				 i, (void *)f, first_error, cases[i].where);
	}
	/* a contradiction names both lines */
	first_error[0] = 0;
	assert_null(read_text("Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n"
			      "[1] \"a\"[2]\n"));
	assert_non_null(strstr(first_error, "t.topo:5:"));
	assert_non_null(strstr(first_error, "line 2"));
}

static struct cr_fabric *round_trip(const struct cr_fabric *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct cr_fabric *g;

	assert_non_null(out);
	assert_int_equal(cr_topo_write(out, f), 0);
	fclose(out);
	g = read_text(buf);
	free(buf);
	assert_non_null(g);
	return g;
}

static void test_write_read(void **state)
{
	struct cr_gen_params p = {
		.speed = CR_SPEED_EDR, .width = 12, .hca_ports = 2};
	struct cr_fabric *f = cr_gen_kary_ntree(4, 3, &p), *g;

	assert_non_null(f);
	g = round_trip(f);
	tu_assert_same_fabric(f, g, false);
	cr_fabric_free(g);
	assert_int_equal(cr_fabric_assign_lids(f, 2), 0);
	f->nodes[3].sysimg_guid = 0x1234;
	/* a quote cannot survive; everything else must */
	free(f->nodes[5].desc);
	f->nodes[5].desc = strdup("ibcore1 S117B 'x' # y lid 3");
	g = round_trip(f);
	tu_assert_same_fabric(f, g, false);
	cr_fabric_free(g);
	cr_fabric_free(f);
}

/* The one description quoting, in both styles; a tab or newline keeps the
 * line whole in either. */
static void test_put_desc(void **state)
{
	static const char *const want[] = {
		[CR_DESC_ESCAPE] = "\"a \\\"q\\\" b\\\\c d e\"",
		[CR_DESC_BLANK] = "\"a  q  b\\c d e\"",
	};

	(void)state;
	for (int style = CR_DESC_ESCAPE; style <= CR_DESC_BLANK; style++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		assert_non_null(out);
		cr_put_desc(out, "a \"q\" b\\c\td\ne", style);
		fclose(out);
		assert_string_equal(buf, want[style]);
		free(buf);
	}
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	setup(state);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/croute-test-topo-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) ? -1 : 0;
}

static const char *tmp_path(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_guid2lid(void **state)
{
	struct cr_fabric *f = read_text(plain);
	const char *path = tmp_path("guid2lid");

	assert_non_null(f);
	/* OpenSM's layout: records apart by blank lines; a stale port. */
	write_file(path, "0x0000000000200000 0x0001 0x0001\n\n"
			 "0x0000000000200001 0x0002 0x0002\n\n"
			 "0x0000000000100001 0x0004 0x0007\n\n"
			 "0x0000000000100002 0x0008 0x000b\n\n"
			 "0x0000000000100004 0x000c 0x000f\n\n"
			 "0x0000000000100005 0x0010 0x0013\n\n"
			 "0x00000000deadbeef 0x0020 0x0020\n\n");
	assert_int_equal(cr_lids_read_guid2lid(path, f), 0);
	assert_int_equal(f->max_lid, 0x13);
	assert_int_equal(f->nodes[by_guid(f, 0x100000)].ports[2].lid, 8);
	assert_int_equal(f->nodes[by_guid(f, 0x100000)].ports[2].lmc, 2);
	assert_int_equal(f->lid_node[0x11], by_guid(f, 0x100003));
	assert_int_equal(f->lid_port[0x11], 2);

	/* a cabled port without a LID: the first in node (GUID) order */
	write_file(path, "0x0000000000200000 0x0001 0x0001\n");
	first_error[0] = 0;
	assert_int_equal(cr_lids_read_guid2lid(path, f), -1);
	assert_non_null(strstr(first_error, "0x0000000000100001"));
	/* ranges that no LMC makes */
	write_file(path, "0x0000000000200000 0x0001 0x0001\n\n"
			 "0x0000000000200001 0x0005 0x0007\n");
	first_error[0] = 0;
	assert_int_equal(cr_lids_read_guid2lid(path, f), -1);
	assert_non_null(strstr(first_error, ":3:"));
	write_file(path, "0x0000000000200000 1\n");
	first_error[0] = 0;
	assert_int_equal(cr_lids_read_guid2lid(path, f), -1);
	assert_non_null(strstr(first_error, ":1:"));
	first_error[0] = 0;
	assert_int_equal(cr_lids_read_guid2lid(tmp_path("none"), f), -1);
	assert_non_null(strstr(first_error, "none"));
	cr_fabric_free(f);
}

static void assert_same_lfts(const struct cr_fabric *f,
			     const struct cr_routing *a,
			     const struct cr_routing *b)
{
	for (uint32_t i = 0; i < f->num_switches; i++)
		assert_memory_equal(a->lft[f->switches[i]],
				    b->lft[f->switches[i]], f->max_lid + 1);
}

static void test_lft_dump(void **state)
{
	struct cr_fabric *f = cr_gen_two_level(4, 3, 4, 2, true, NULL);
	const char *path = tmp_path("lfts.dump");
	struct cr_routing *r, *s;
	FILE *out;
	char line[256];

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 1), 0);
	r = tu_route(f, "minhop", NULL);
	/* an entry OpenSM would print as unknown */
	r->lft[f->switches[0]][0] = 1;
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(cr_lft_write_dump(out, f, r), 0);
	fclose(out);
	s = cr_routing_new(f);
	assert_int_equal(cr_lft_read(path, f, s), 0);
	assert_same_lfts(f, r, s);

	/* OpenSM's layout, switches in GUID order */
	out = fopen(path, "r");
	assert_non_null(fgets(line, sizeof(line), out));
	assert_string_equal(line, "Unicast lids [0-31] of switch Lid 1 guid"
				  " 0x0002c90200000000 ('spine-0'):\n");
	assert_non_null(fgets(line, sizeof(line), out));
	assert_string_equal(line, "0x0000 001 # unknown node and type\n");
	assert_non_null(fgets(line, sizeof(line), out));
	assert_string_equal(line, "0x0001 000 # Switch portguid"
				  " 0x0002c90200000000: 'spine-0'\n");
	fclose(out);
	cr_routing_free(r);
	cr_routing_free(s);
	cr_fabric_free(f);
}

static void test_lft_ibroute(void **state)
{
	struct cr_fabric *f = read_text(plain);
	const char *path = tmp_path("ibroute.out");
	struct cr_routing *r;

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = cr_routing_new(f);
	/* ibroute -a output for one switch; the other has no table */
	write_file(path,
		   "Unicast lids [0x0-0x6] of switch Lid 1 guid"
		   " 0x0000000000200000 (Switch1):\n"
		   "  Lid  Out   Destination\n"
		   "       Port     Info \n"
		   "0x0000 255 : (illegal port)\n"
		   "0x0001 000 : (Switch portguid 0x0000000000200000:"
		   " 'Switch1')\n"
		   "0x0002 255 : (illegal port)\n"
		   "0x0003 001 : (Switch portguid 0x0000000000200001:"
		   " 'Switch2')\n"
		   "0x0004 002 : (Channel Adapter portguid 0x0000000000100002:"
		   " 'Hca1')\n"
		   "0x0005 005 : (Channel Adapter portguid 0x0000000000100004:"
		   " 'Hca2')\n"
		   "0x0006 003 : (path #1 out of 1: portguid"
		   " 0x0000000000100005)\n"
		   "7 lids dumped \n");
	assert_int_equal(cr_lft_read(path, f, r), 0);
	uint32_t s1 = by_guid(f, 0x200000), s2 = by_guid(f, 0x200001);

	assert_int_equal(r->lft[s1][1], 0);
	assert_int_equal(r->lft[s1][3], 1);
	assert_int_equal(r->lft[s1][5], 5);
	assert_int_equal(r->lft[s1][6], 3);
	assert_int_equal(r->lft[s1][2], CR_NO_PATH);
	assert_int_equal(r->lft[s2][1], CR_NO_PATH);

	/* errors name the line; tables of other LIDs say so */
	write_file(path, "Unicast lids [0x0-0x6] of switch Lid 1 guid"
			 " 0x0000000000200000 (Switch1):\n"
			 "0x0003 001 : (Channel Adapter portguid"
			 " 0x0000000000100001: 'Hca1')\n");
	first_error[0] = 0;
	assert_int_equal(cr_lft_read(path, f, r), -1);
	assert_non_null(strstr(first_error, "ibroute.out:2:"));
	assert_non_null(strstr(first_error, "made for other LIDs"));
	write_file(path, "0x0001 001 : x\n");
	first_error[0] = 0;
	assert_int_equal(cr_lft_read(path, f, r), -1);
	assert_non_null(strstr(first_error, "ibroute.out:1:"));
	write_file(path, "Unicast lids [0-6] of switch Lid 1 guid"
			 " 0x0000000000200000 ('Switch1'):\n0x0001 009 # x\n");
	first_error[0] = 0;
	assert_int_equal(cr_lft_read(path, f, r), -1);
	assert_non_null(strstr(first_error, "ibroute.out:2:"));
	write_file(path, "Unicast lids [0-6] of switch Lid 1 guid"
			 " 0x0000000000999999 ('x'):\n");
	first_error[0] = 0;
	assert_int_equal(cr_lft_read(path, f, r), -1);
	assert_non_null(strstr(first_error, "ibroute.out:1:"));
	write_file(path, "Multicast mlids [0xc000-0xc3ff] of switch\n");
	assert_int_equal(cr_lft_read(path, f, r), -1);
	write_file(path, "\n");
	assert_int_equal(cr_lft_read(path, f, r), -1);
	cr_routing_free(r);
	cr_fabric_free(f);
}

static void test_file_commit(void **state)
{
	const char *path = tmp_path("out");
	char target[128], *tmp;
	struct stat st;
	FILE *fp;

	snprintf(target, sizeof(target), "%s", path);
	write_file(target, "old\n");
	fp = cr_file_create(target, &tmp);
	assert_non_null(fp);
	fputs("new\n", fp);
	cr_file_abort(fp, tmp);
	/* the old file stays, nothing else is left behind */
	fp = fopen(target, "r");
	assert_non_null(fp);
	assert_int_equal(fgetc(fp), 'o');
	fclose(fp);
	fp = cr_file_create(target, &tmp);
	assert_non_null(fp);
	assert_int_equal(stat(tmp, &st), 0);
	fputs("new\n", fp);
	assert_int_equal(cr_file_commit(fp, tmp, target), 0);
	fp = fopen(target, "r");
	assert_non_null(fp);
	assert_int_equal(fgetc(fp), 'n');
	fclose(fp);
	assert_null(cr_file_create("/nonexistent/dir/x", &tmp));
	assert_null(tmp);
}

/* Nodes reachable from node 0 over cables. */
static uint32_t reachable(const struct cr_fabric *f)
{
	uint32_t *queue = malloc(f->num_nodes * sizeof(*queue));
	bool *seen = calloc(f->num_nodes, sizeof(*seen));
	uint32_t head = 0, tail = 0;

	queue[tail++] = 0;
	seen[0] = true;
	while (head < tail) {
		const struct cr_node *n = &f->nodes[queue[head++]];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m != CR_NO_NODE && !seen[m]) {
				seen[m] = true;
				queue[tail++] = m;
			}
		}
	}
	free(queue);
	free(seen);
	return tail;
}

/*
 * Hosts come after the switches, named h0001... in node order, leaf by
 * leaf in port order, with GUIDs rising in the same order.
 */
static void check_hosts(const struct cr_fabric *f, unsigned expect)
{
	unsigned hosts = 0;
	uint32_t last_leaf = 0;
	unsigned last_port = 0;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];
		char want[32];

		if (n)
			assert_true(node->guid > f->nodes[n - 1].guid);
		if (node->type == CR_NODE_SWITCH) {
			assert_int_equal(hosts, 0);
			continue;
		}
		snprintf(want, sizeof(want), "h%04u HCA-1", ++hosts);
		assert_string_equal(node->desc, want);
		assert_true(node->ports[1].remote > last_leaf ||
			    (node->ports[1].remote == last_leaf &&
			     node->ports[1].remote_port > last_port));
		last_leaf = node->ports[1].remote;
		last_port = node->ports[1].remote_port;
	}
	assert_int_equal(hosts, expect);
	assert_int_equal(reachable(f), f->num_nodes);
}

static void test_gen_ktree(void **state)
{
	struct cr_fabric *f = cr_gen_kary_ntree(4, 3, NULL);

	assert_non_null(f);
	assert_int_equal(f->num_switches, 48);
	check_hosts(f, 64);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *sw = &f->nodes[f->switches[s]];

		assert_int_equal(sw->num_ports, 8);
		/* roots use their 4 down ports, the rest all 8 */
		for (unsigned p = 1; p <= (s < 16 ? 4u : 8u); p++)
			assert_int_not_equal(sw->ports[p].remote, CR_NO_NODE);
		assert_int_equal(sw->ports[1].speed, CR_SPEED_QDR);
	}
	cr_fabric_free(f);
	assert_null(cr_gen_kary_ntree(1, 3, NULL));
	assert_null(cr_gen_kary_ntree(200, 2, NULL));
}

/* Every port of every switch is used; k^3/4 hosts; 5k^2/4 switches. */
static void test_gen_fat_tree(void **state)
{
	struct cr_fabric *f = cr_gen_fat_tree(8, NULL);

	assert_non_null(f);
	assert_int_equal(f->num_switches, 80);
	check_hosts(f, 128);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *sw = &f->nodes[f->switches[s]];

		assert_int_equal(sw->num_ports, 8);
		for (unsigned p = 1; p <= 8; p++)
			assert_int_not_equal(sw->ports[p].remote, CR_NO_NODE);
	}
	/* A root reaches every pod once: its ports go to 8 middle switches
	 * of 8 different pods, all with the same index in their pod. */
	for (unsigned p = 1; p <= 8; p++)
		assert_int_equal(f->nodes[f->nodes[0].ports[p].remote].desc[7],
				 '0' + (p - 1));
	cr_fabric_free(f);
	assert_null(cr_gen_fat_tree(7, NULL));
	assert_null(cr_gen_fat_tree(0, NULL));
	{
		/* Fewer hosts per leaf: every switch stays, leaves have
		 * free ports, the hosts are on the leaves' first ports. */
		struct cr_gen_params p = {.leaf_hosts = 3};

		f = cr_gen_fat_tree(8, &p);
		assert_non_null(f);
		assert_int_equal(f->num_switches, 80);
		check_hosts(f, 96);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			const struct cr_node *sw = &f->nodes[f->switches[s]];
			unsigned hosts = 0, free_ports = 0;

			for (unsigned q = 1; q <= 8; q++) {
				uint32_t m = sw->ports[q].remote;

				free_ports += m == CR_NO_NODE;
				hosts += m != CR_NO_NODE && !cr_is_switch(f, m);
			}
			assert_int_equal(
				hosts, strncmp(sw->desc, "sw-leaf", 7) ? 0 : 3);
			assert_int_equal(free_ports, hosts ? 1 : 0);
		}
		cr_fabric_free(f);
		p.leaf_hosts = 5; /* a leaf has 4 ports for hosts */
		assert_null(cr_gen_fat_tree(8, &p));
	}
	{
		/*
		 * Oversubscribed: 3 uplinks a leaf, to the 3 middle switches
		 * of its pod, 5 hosts; 3 x 4 roots, 8 x 3 middles, 8 x 4
		 * leaves, every port used.
		 */
		struct cr_gen_params p = {.leaf_uplinks = 3};

		f = cr_gen_fat_tree(8, &p);
		assert_non_null(f);
		assert_int_equal(f->num_switches, 12 + 24 + 32);
		check_hosts(f, 160);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			const struct cr_node *sw = &f->nodes[f->switches[s]];
			unsigned hosts = 0, up = 0;

			for (unsigned q = 1; q <= 8; q++) {
				uint32_t m = sw->ports[q].remote;

				assert_int_not_equal(m, CR_NO_NODE);
				hosts += !cr_is_switch(f, m);
				if (cr_is_switch(f, m) &&
				    !strncmp(sw->desc, "sw-leaf", 7)) {
					/* a middle switch of the same pod */
					assert_memory_equal(f->nodes[m].desc,
							    "sw-mid-", 7);
					assert_int_equal(f->nodes[m].desc[7],
							 sw->desc[8]);
					up++;
				}
			}
			if (!strncmp(sw->desc, "sw-leaf", 7)) {
				assert_int_equal(hosts, 5);
				assert_int_equal(up, 3);
			} else {
				assert_int_equal(hosts, 0);
			}
		}
		cr_fabric_free(f);
		p.leaf_uplinks = 8; /* no port left for a host */
		assert_null(cr_gen_fat_tree(8, &p));
		p.leaf_uplinks = 3;
		p.leaf_hosts = 6;
		assert_null(cr_gen_fat_tree(8, &p));
	}
}

static bool same_wiring(const struct cr_fabric *a, const struct cr_fabric *b)
{
	if (a->num_nodes != b->num_nodes)
		return false;
	for (uint32_t n = 0; n < a->num_nodes; n++)
		for (unsigned p = 1; p <= a->nodes[n].num_ports; p++)
			if (a->nodes[n].ports[p].remote !=
				    b->nodes[n].ports[p].remote ||
			    a->nodes[n].ports[p].remote_port !=
				    b->nodes[n].ports[p].remote_port)
				return false;
	return true;
}

static void test_gen_two_level(void **state)
{
	struct cr_gen_params p1 = {.seed = 1}, p2 = {.seed = 2};
	struct cr_fabric *f = cr_gen_two_level(6, 5, 4, 3, false, NULL);
	struct cr_fabric *a = cr_gen_two_level(6, 5, 4, 3, true, &p1);
	struct cr_fabric *b = cr_gen_two_level(6, 5, 4, 3, true, &p1);
	struct cr_fabric *c = cr_gen_two_level(6, 5, 4, 3, true, &p2);

	assert_non_null(f);
	assert_int_equal(f->num_switches, 9);
	check_hosts(f, 30);
	/* 4 uplinks over 3 spines: spine 0 takes two links per leaf */
	assert_int_equal(f->nodes[0].num_ports, 12);
	assert_int_equal(f->nodes[1].num_ports, 6);
	assert_int_equal(f->nodes[3].num_ports, 9);
	assert_int_equal(cr_remote(f, 3, 6), 0);
	assert_int_equal(cr_remote(f, 3, 9), 0);
	assert_int_equal(f->nodes[0].ports[1].remote, 3);
	assert_int_equal(f->nodes[0].ports[2].remote, 3);
	check_hosts(a, 30);
	assert_true(same_wiring(a, b));
	assert_false(same_wiring(a, c));
	assert_false(same_wiring(a, f));
	cr_fabric_free(f);
	cr_fabric_free(a);
	cr_fabric_free(b);
	cr_fabric_free(c);
	assert_null(cr_gen_two_level(2, 2, 1, 2, false, NULL));
}

static void test_gen_torus(void **state)
{
	unsigned dims[3] = {3, 4, 2};
	struct cr_fabric *t = cr_gen_torus(dims, 3, true, 2, NULL);
	struct cr_fabric *m = cr_gen_torus(dims, 2, false, 1, NULL);
	unsigned links = 0;

	assert_non_null(t);
	assert_int_equal(t->num_switches, 24);
	check_hosts(t, 48);
	/* every torus port is used (a ring of 2 gets two links) */
	for (uint32_t s = 0; s < 24; s++) {
		assert_int_equal(t->nodes[s].num_ports, 8);
		for (unsigned p = 1; p <= 8; p++)
			assert_int_not_equal(t->nodes[s].ports[p].remote,
					     CR_NO_NODE);
	}
	assert_non_null(m);
	check_hosts(m, 12);
	for (uint32_t s = 0; s < 12; s++)
		for (unsigned p = 2; p <= 5; p++)
			links += m->nodes[s].ports[p].remote != CR_NO_NODE;
	/* a 3x4 mesh has 2*4 + 3*3 links, each seen from both ends */
	assert_int_equal(links, 2 * 17);
	cr_fabric_free(t);
	cr_fabric_free(m);
}

static void test_gen_random(void **state)
{
	struct cr_gen_params p = {.seed = 42}, q = {.seed = 43};
	struct cr_fabric *a = cr_gen_random(50, 4, 2, &p);
	struct cr_fabric *b = cr_gen_random(50, 4, 2, &p);
	struct cr_fabric *c = cr_gen_random(50, 4, 2, &q);

	assert_non_null(a);
	assert_int_equal(a->num_switches, 50);
	check_hosts(a, 100);
	assert_true(same_wiring(a, b));
	assert_false(same_wiring(a, c));
	for (uint32_t s = 0; s < 50; s++) {
		const struct cr_node *sw = &a->nodes[s];

		assert_int_equal(sw->num_ports, 6);
		/* no switch is cabled twice to the same neighbour */
		for (unsigned x = 3; x <= 6; x++)
			for (unsigned y = x + 1; y <= 6; y++)
				if (sw->ports[x].remote != CR_NO_NODE)
					assert_int_not_equal(
						sw->ports[x].remote,
						sw->ports[y].remote);
	}
	cr_fabric_free(a);
	cr_fabric_free(b);
	cr_fabric_free(c);
	a = cr_gen_random(2, 1, 0, &p);
	assert_non_null(a);
	assert_int_equal(reachable(a), 2);
	cr_fabric_free(a);
	assert_null(cr_gen_random(5, 1, 1, &p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_read_discovered, setup),
		cmocka_unit_test_setup(test_read_plain, setup),
		cmocka_unit_test_setup(test_guid_bases, setup),
		cmocka_unit_test_setup(test_one_sided_and_rates, setup),
		cmocka_unit_test_setup(test_read_lids, setup),
		cmocka_unit_test_setup(test_read_errors, setup),
		cmocka_unit_test_setup(test_write_read, setup),
		cmocka_unit_test_setup(test_put_desc, setup),
		cmocka_unit_test_setup(test_guid2lid, setup),
		cmocka_unit_test_setup(test_lft_dump, setup),
		cmocka_unit_test_setup(test_lft_ibroute, setup),
		cmocka_unit_test_setup(test_file_commit, setup),
		cmocka_unit_test_setup(test_gen_ktree, setup),
		cmocka_unit_test_setup(test_gen_fat_tree, setup),
		cmocka_unit_test_setup(test_gen_two_level, setup),
		cmocka_unit_test_setup(test_gen_torus, setup),
		cmocka_unit_test_setup(test_gen_random, setup),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
