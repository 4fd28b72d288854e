// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every engine on whatever small fabric a topology file describes: each
 * must route it (the result is then checked) or refuse it, never crash,
 * hang or leave a half-written table behind. Fabrics are kept small so
 * that an input takes milliseconds.
 */
#include "fuzz.h" /* first: it sets _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>

#include <croute/model/check.h>
#include <croute/route/engine.h>

static void route_all(const struct cr_fabric *f)
{
	struct cr_routing *r = cr_routing_new(f);
	struct cr_check_report rep;
	struct cr_options o;

	if (!r)
		return;
	cr_options_init(&o);
	for (unsigned i = 0; cr_engines[i]; i++) {
		if (cr_route(cr_engines[i], f, &o, r)) {
			/* Refused: nothing may be left in the tables. */
			for (uint32_t s = 0; s < f->num_switches; s++)
				for (uint32_t l = 0; l <= r->max_lid; l++)
					if (r->lft[f->switches[s]][l] !=
					    CR_NO_PATH)
						abort();
			continue;
		}
		/*
		 * What every engine promises on any fabric it routes: no
		 * path loops back, and all but cr-minhop are free of credit
		 * loops. Unreachable LIDs are allowed (the fabric may be
		 * cut in pieces).
		 */
		if (cr_check(f, r, CR_CHECK_CREDIT | CR_CHECK_SWITCHES, NULL, 0,
			     &rep))
			continue; /* out of memory */
		if (rep.loops)
			abort();
		if (rep.credit_loops && strcmp(cr_engines[i]->name, "minhop"))
			abort();
	}
	cr_options_release(&o);
	cr_routing_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_fabric *f;

	fuzz_quiet();
	f = fuzz_topo_read(data, size, "fuzz");
	if (!f)
		return 0;
	if (f->num_nodes <= 64 && (f->max_lid || !cr_fabric_assign_lids(f, 0)))
		route_all(f);
	cr_fabric_free(f);
	return 0;
}
