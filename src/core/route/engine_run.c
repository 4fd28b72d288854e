// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Running an engine: nothing half-done is left behind on failure. */
#include <inttypes.h>

#include <croute/route/engine.h>
#include <croute/model/log.h>

/*
 * A switch holds LFT entries 0..lft_cap - 1 (LinearFDBCap). An entry the
 * engine set beyond that cannot be programmed: truncating the table would
 * silently cut LIDs off, so the run is refused and the switch named.
 */
static int check_lft_cap(const struct cr_engine *e, const struct cr_fabric *f,
			 const struct cr_routing *r)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];
		const uint8_t *lft = r->lft[f->switches[s]];

		if (!n->lft_cap || !lft)
			continue;
		for (uint32_t lid = n->lft_cap; lid <= r->max_lid; lid++) {
			if (lft[lid] == CR_NO_PATH)
				continue;
			cr_err("cr-%s: switch 0x%016" PRIx64 " ('%s') holds %u"
			       " LFT entries, but LID %u (highest %u) needs"
			       " one: cannot route this fabric",
			       e->name, n->guid, n->desc, n->lft_cap, lid,
			       r->max_lid);
			return -1;
		}
	}
	return 0;
}

int cr_route_by(const struct cr_engine *e, const struct cr_fabric *f,
		const struct cr_options *o, struct cr_routing *r,
		struct cr_byproducts *by)
{
	struct cr_byproducts scratch = {0};
	int ret;

	if (!by)
		by = &scratch;
	cr_routing_clear(r);
	cr_byproducts_release(by);
	ret = e->route(f, o, r, by);
	if (!ret)
		ret = check_lft_cap(e, f, r);
	cr_byproducts_release(&scratch);
	if (ret) {
		cr_routing_clear(r);
		cr_byproducts_release(by);
		return ret < 0 ? ret : -1;
	}
	return 0;
}

int cr_route(const struct cr_engine *e, const struct cr_fabric *f,
	     const struct cr_options *o, struct cr_routing *r)
{
	return cr_route_by(e, f, o, r, NULL);
}
