/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What croute resilience and its merge share: the report's outputs (-o,
 * --json, --html, --times) and the shard files.
 */
#ifndef CROUTE_RESIL_CLI_H
#define CROUTE_RESIL_CLI_H

#include <croute/report/resil.h>

#include "cli.h"

struct resil_out {
	const char *output; /* -o; NULL or "-": stdout */
	const char *html;
	bool json, times;
};

/* The report (and the HTML page); an exit status. */
int resil_write(const struct resil_out *o, struct cr_resil_report *rep);
/* Rows [begin, end) as part k of n into o->output; an exit status. */
int resil_write_shard(const struct resil_out *o,
		      const struct cr_resil_report *rep, uint32_t begin,
		      uint32_t end, unsigned k, unsigned n);
/* croute resilience merge SHARD...: argv[0] is "merge". */
int resil_merge(int argc, char **argv);

#endif
