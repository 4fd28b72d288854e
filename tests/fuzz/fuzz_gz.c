// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * gzip input: a topology read by path, as --topo reads it, with the
 * command's gzip support registered, so compressed input (magic bytes
 * 1f 8b: truncated, corrupt, several members, a bomb of blank lines) goes
 * through zlib into the readers. Plain text takes the usual way.
 */
#include "fuzz.h"

#include <croute/report/gzfile.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	struct cr_fabric *f;
	const char *path;

	fuzz_quiet();
	if (!registered) {
		cr_gz_register();
		registered = true;
	}
	path = fuzz_memfd_path(data, size);
	f = path && size ? cr_topo_read_format(path, NULL) : NULL;
	cr_fabric_free(f);
	return 0;
}
