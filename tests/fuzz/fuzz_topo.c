// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The topology reader on arbitrary bytes. What it accepts must be a model
 * the rest of croute can use, so an accepted fabric is also written back
 * out and LIDs are assigned when it has none.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_fabric *f;
	FILE *in, *out;

	fuzz_quiet();
	/* fmemopen() of zero bytes fails with EINVAL. */
	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	f = cr_topo_read_file(in, "fuzz");
	fclose(in);
	if (!f)
		return 0;
	if (!f->max_lid && f->num_nodes < 512)
		cr_fabric_assign_lids(f, 0);
	out = fopen("/dev/null", "w");
	if (out) {
		cr_topo_write(out, f);
		fclose(out);
	}
	cr_fabric_free(f);
	return 0;
}
