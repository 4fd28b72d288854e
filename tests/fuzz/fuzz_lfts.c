// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LFT reader (opensm-lfts.dump and ibroute formats) against a fixed
 * fabric. Tables read from a file are whatever the file says: loops, dead
 * ports, holes; the checker and the dump writer must take them, so they
 * run on every table that was accepted, and the dump must read back as
 * the same tables.
 */
#include "fuzz.h"

#include <croute/model/check.h>

/* A dump croute writes reads back as the same tables. */
static void round_trip(const struct cr_fabric *f, const struct cr_routing *r)
{
	static struct cr_routing *again;
	const char *path;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	if (!again) {
		again = cr_routing_new(f);
		if (!again)
			abort();
	}
	out = open_memstream(&buf, &len);
	if (!out)
		return;
	if (cr_lft_write_dump(out, f, r)) {
		fclose(out);
		free(buf);
		return;
	}
	fclose(out);
	path = fuzz_memfd_path((const uint8_t *)buf, len);
	/* No table at all is an error for the reader, not for the writer. */
	if (path && cr_lft_read(path, f, again) == 0) {
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint32_t n = f->switches[s];

			if (memcmp(r->lft[n], again->lft[n],
				   (size_t)f->max_lid + 1)) {
				fprintf(stderr,
					"fuzz_lfts: the dump reads back"
					" differently:\n%.*s\n",
					(int)len, buf);
				abort();
			}
		}
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cr_fabric *f;
	static struct cr_routing *r;
	struct cr_check_report rep;
	const char *path;

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
	round_trip(f, r);
	return 0;
}
