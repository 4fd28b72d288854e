// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LFT reader (opensm-lfts.dump and ibroute formats) against a fixed
 * fabric. Tables read from a file are whatever the file says: loops, dead
 * ports, holes; the checker and the dump writer must take them, so they
 * run on every table that was accepted.
 */
#include "fuzz.h"

#include <croute/check.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cr_fabric *f;
	static struct cr_routing *r;
	struct cr_check_report rep;
	const char *path;
	FILE *out;

	fuzz_quiet();
	if (!f) {
		f = fuzz_fabric();
		r = cr_routing_new(f);
		if (!r)
			abort();
	}
	path = fuzz_memfd_path(data, size);
	if (!path || cr_lft_read(path, f, r))
		return 0;
	cr_check(f, r, CR_CHECK_MINIMAL | CR_CHECK_CREDIT | CR_CHECK_SWITCHES,
		 NULL, 0, &rep);
	out = fopen("/dev/null", "w");
	if (out) {
		cr_lft_write_dump(out, f, r);
		fclose(out);
	}
	return 0;
}
