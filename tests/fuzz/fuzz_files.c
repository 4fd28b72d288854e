// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The files of a subnet manager's dump directory and of infiniband-diags,
 * read as `croute check --dump-dir` (or --topo/--lfts/--sl/--sl2vl and
 * --node-name-map) reads them. The input is up to five parts, each ended
 * by a line "%%":
 *   1  the topology: opensm-subnet.lst or ibnetdiscover output
 *   2  the LFTs: opensm-lfts.dump, opensm.fdbs, dump_fts, dump_lfts or
 *      ibroute output (with subnet.lst, its LMCs widened from them)
 *   3  croute-lash-sl.dump (path SLs), 4  its SL2VL tables (croute's or
 *      opensm-sl2vl.dump), 5  a node name map
 * Every table accepted is checked, as check does with it.
 */
#include "fuzz.h"

#include <string.h>

#include <croute/model/check.h>
#include <croute/io/lash.h>

#define PARTS 5

/* Part i's bytes behind a path of its own (readers open them by name). */
static const char *part_path(unsigned i, const uint8_t *data, size_t size)
{
	static char path[PARTS][64];
	static int fd[PARTS] = {-1, -1, -1, -1, -1};

	if (fd[i] < 0) {
		fd[i] = memfd_create("croute-fuzz-part", MFD_CLOEXEC);
		if (fd[i] < 0)
			return NULL;
		snprintf(path[i], sizeof(path[i]), "/proc/self/fd/%d", fd[i]);
	}
	if (ftruncate(fd[i], 0) ||
	    (size && pwrite(fd[i], data, size, 0) != (ssize_t)size))
		return NULL;
	return path[i];
}

/* Splits data at "%%" lines; returns how many parts there are. */
static unsigned split(const uint8_t *data, size_t size,
		      const uint8_t *part[PARTS], size_t len[PARTS])
{
	unsigned n = 0;
	size_t start = 0, i = 0;

	while (n < PARTS && start <= size) {
		/* the next "%%" line from start: at a line's beginning */
		for (i = start; i + 2 <= size; i++)
			if ((i == start || data[i - 1] == '\n') &&
			    data[i] == '%' && data[i + 1] == '%' &&
			    (i + 2 == size || data[i + 2] == '\n'))
				break;
		if (i + 2 > size)
			i = size;
		part[n] = data + start;
		len[n] = i - start;
		n++;
		if (i >= size)
			break;
		start = i + 3 > size ? size : i + 3;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[PARTS] = {0};
	size_t len[PARTS] = {0};
	unsigned n = split(data, size, part, len);
	const char *path[PARTS] = {0}, *format = NULL;
	struct cr_fabric *f;
	struct cr_routing *r = NULL;
	struct cr_check_report rep;

	fuzz_quiet();
	for (unsigned i = 0; i < n; i++)
		if (!(path[i] = part_path(i, part[i], len[i])))
			return 0;
	if (!path[0])
		return 0;
	f = cr_topo_read_format(path[0], &format);
	if (!f)
		return 0;
	if (n >= 5 && cr_name_map_apply(path[4], f))
		goto out;
	if (n < 2)
		goto out;
	/* base LIDs only: the LMC shows in the LFTs (as cli_load does) */
	if (!strcmp(format, "opensm-subnet.lst") && cr_lids_widen(path[1], f))
		goto out;
	if (!f->max_lid)
		goto out;
	r = cr_routing_new(f);
	if (!r)
		abort();
	if (cr_lft_read_format(path[1], f, r, &format))
		goto out;
	if (n >= 3 && cr_lash_read(path[2], n >= 4 ? path[3] : NULL, f, r))
		goto out;
	cr_check(f, r, CR_CHECK_MINIMAL | CR_CHECK_CREDIT | CR_CHECK_SWITCHES,
		 NULL, 0, &rep);
out:
	cr_routing_free(r);
	cr_fabric_free(f);
	return 0;
}
