// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Exports for schedulers (include/croute/io/sched.h): hostlist compression,
 * export names (first word, node-name map, collisions to GUIDs) and the
 * host order without a CA order (leaf by leaf, by LID).
 */
#include <string.h>

#include <croute/io/sched.h>

#include "testutil.h"

static void expect_list(const char *const *names, size_t n, const char *want)
{
	char *got;

	assert_int_equal(cr_hostlist_compress(names, n, &got), 0);
	assert_string_equal(got, want);
	free(got);
}

static void test_hostlist(void **state)
{
	const char *a[] = {"h0003", "h0001", "h0002", "h0007", "sw",   "h0009",
			   "h0008", "n1",    "n10",   "n9",    "h0001"};
	const char *b[] = {"x", "x.y", "a-1-2"};
	/* one name given twice: no one-element brackets */
	const char *c[] = {"SL1-3_L7_U1", "SL1-3_L7_U1", "SL1-3_L7_U2"};

	(void)state;
	expect_list(a, 11, "h[0001-0003,0007-0009],n[1,9],n10,sw");
	expect_list(b, 3, "a-1-2,x,x.y");
	expect_list(b, 0, "");
	expect_list(c, 2, "SL1-3_L7_U1");
	expect_list(c, 3, "SL1-3_L7_U[1-2]");
}

/* Two leaves of two hosts, one spine; host LIDs out of leaf order. */
static struct cr_fabric *small(void)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t sp = tu_switch(f, 4, 0), l[2], h[4];
	const uint16_t lids[4] = {9, 3, 5, 7};

	for (unsigned i = 0; i < 2; i++) {
		l[i] = tu_switch(f, 4, i + 1);
		tu_link(f, l[i], 4, sp, i + 1);
	}
	for (unsigned i = 0; i < 4; i++) {
		h[i] = tu_host(f, i + 1);
		tu_link(f, h[i], 1, l[i / 2], i % 2 + 1);
	}
	f->nodes[sp].ports[0].lid = 1;
	f->nodes[l[0]].ports[0].lid = 2;
	f->nodes[l[1]].ports[0].lid = 4;
	for (unsigned i = 0; i < 4; i++)
		f->nodes[h[i]].ports[1].lid = lids[i];
	assert_int_equal(cr_fabric_finalize(f), 0);
	return f;
}

static void test_names(void **state)
{
	struct cr_fabric *f = small();
	const char *map[7] = {NULL};
	struct cr_names *nm;

	(void)state;
	free(f->nodes[3].desc);
	f->nodes[3].desc = strdup("node1 mlx5_0");
	free(f->nodes[4].desc);
	f->nodes[4].desc = strdup("node1 mlx5_1"); /* another system */
	free(f->nodes[5].desc);
	f->nodes[5].desc = strdup("  we;ird  HCA-1");
	nm = cr_names_new(f, NULL);
	assert_non_null(nm);
	assert_string_equal(cr_names_get(nm, 0), "sw0000");
	assert_string_equal(cr_names_get(nm, 3), "0x0000000000200004");
	assert_string_equal(cr_names_get(nm, 4), "0x0000000000200008");
	assert_string_equal(cr_names_get(nm, 5), "we_ird");
	cr_names_free(nm);
	/* One system: two HCAs of one host share its name. */
	f->nodes[3].sysimg_guid = f->nodes[4].sysimg_guid = 0x77;
	map[5] = "compute-5 mlx5_0";
	nm = cr_names_new(f, map);
	assert_string_equal(cr_names_get(nm, 3), "node1");
	assert_string_equal(cr_names_get(nm, 4), "node1");
	assert_string_equal(cr_names_get(nm, 5), "compute-5");
	cr_names_free(nm);
	cr_fabric_free(f);
}

static void test_leaf_order(void **state)
{
	struct cr_fabric *f = small();
	struct cr_byproducts by = {0}; /* no CA order */
	struct cr_names *nm = cr_names_new(f, NULL);
	const uint16_t want[4] = {3, 9, 5, 7}; /* leaf 0 has LID 3 */
	struct cr_hosts *h;
	char buf[256] = {0};
	FILE *mem = fmemopen(buf, sizeof(buf) - 1, "w");
	const char *how;

	(void)state;
	h = cr_hosts_shift_order(f, &by, &how);
	assert_non_null(h);
	assert_string_equal(how, "leaf by leaf, by LID");
	assert_int_equal(h->count, 4);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(h->ep[i].lid, want[i]);
	assert_int_equal(cr_hostfile_write(mem, nm, h, "c"), 4);
	fclose(mem);
	assert_string_equal(buf, "# c\nh0002\nh0001\nh0003\nh0004\n");
	cr_hosts_free(h);
	cr_names_free(nm);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_leaf_order),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
