// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The host order croute hosts and croute-hosts.dump export for shift.
 * Least-loaded port choice spreads destinations in the order the engine
 * routes them (cr_lid_order()), so that order, restricted to CA ports, is
 * the one in which consecutive ranks leave a leaf on distinct uplinks;
 * ordering by LID instead scatters them wherever LIDs were not assigned in
 * cabling order. The claim is checked, not trusted: the candidate is
 * scored against the default order and loses to it when it scores below
 * it, so an export is never worse than giving no order at all.
 */
#include <stdio.h>
#include <stdlib.h>

#include <croute/estimate/estimate.h>
#include <croute/estimate/host_order.h>
#include <croute/io/sched.h>
#include <croute/model/log.h>
#include <croute/route/portsel.h>

/* The CA ports in the order the engine routes their LIDs, base LIDs. */
static struct cr_hosts *route_order(const struct cr_fabric *f,
				    const struct cr_options *o)
{
	struct cr_hosts *h;
	uint16_t *lids;
	int n = cr_lid_order(f, o, &lids);

	if (n < 0)
		return NULL;
	h = cr_hosts_new((size_t)n);
	for (int i = 0; h && i < n; i++) {
		uint32_t node = f->lid_node[lids[i]];
		unsigned p = f->lid_port[lids[i]];

		if (!cr_is_host_port(f, node, p) ||
		    f->nodes[node].ports[p].lid != lids[i])
			continue;
		h->ep[h->count++] =
			(struct cr_endpoint){node, (uint8_t)p, lids[i]};
	}
	free(lids);
	return h;
}

/* Shift over h: every phase up to 512 hosts, 64 sampled beyond. */
struct cr_est_result *cr_shift_score(const struct cr_fabric *f,
				     const struct cr_routing *r,
				     const struct cr_hosts *h)
{
	struct cr_pattern p = {.kind = CR_PAT_SHIFT, .seed = 1};
	struct cr_est_result *res;
	struct cr_est *e;

	if (h->count > 512)
		p.count = 64;
	e = cr_est_new(f, r, NULL);
	if (!e)
		return NULL;
	res = cr_est_run(e, &p, h);
	cr_est_free(e);
	return res;
}

/* Whether a scores below b: lower average, or as high and a worse flow. */
static bool below(const struct cr_est_result *a, const struct cr_est_result *b)
{
	if (a->avg_frac < b->avg_frac - 1e-9)
		return true;
	return a->avg_frac <= b->avg_frac + 1e-9 &&
	       a->min_frac < b->min_frac - 1e-9;
}

struct cr_hosts *cr_hosts_shift_export(const struct cr_fabric *f,
				       const struct cr_routing *r,
				       const struct cr_options *o,
				       const struct cr_byproducts *by,
				       char *how, size_t len)
{
	struct cr_hosts *c = NULL, *d = NULL;
	struct cr_est_result *sc = NULL, *sd = NULL;
	const char *what;

	if (by && by->ca_order && by->num_ca_order) {
		what = "the routing's CA order";
		c = cr_hosts_from_lids(f, by->ca_order, by->num_ca_order);
	} else if (o) {
		what = "the order the engine routes destinations in (leaf"
		       " switch by leaf switch, hosts in port order)";
		c = route_order(f, o);
	} else {
		/* OpenSM's unicast manager routes in that order too. */
		struct cr_options none;

		what = "the order OpenSM's engines route destinations in"
		       " (leaf switch by leaf switch, hosts in port order)";
		cr_options_init(&none);
		c = route_order(f, &none);
		cr_options_release(&none);
	}
	snprintf(how, len, "%s", what);
	if (!c || !r)
		return c;
	d = cr_hosts_default(f);
	sc = d ? cr_shift_score(f, r, c) : NULL;
	sd = sc ? cr_shift_score(f, r, d) : NULL;
	if (!sd) {
		cr_hosts_free(c);
		c = NULL;
	} else if (below(sc, sd)) {
		cr_note("host order: shift scores avg %.4f (min %.4f) over %s,"
			" avg %.4f (min %.4f) over the default order: exporting"
			" the default order",
			sc->avg_frac, sc->min_frac, what, sd->avg_frac,
			sd->min_frac);
		snprintf(how, len,
			 "the default order (node descriptions, natural sort),"
			 " which scores better for shift than %s",
			 what);
		cr_hosts_free(c);
		c = d;
		d = NULL;
	}
	cr_est_result_free(sc);
	cr_est_result_free(sd);
	cr_hosts_free(d);
	return c;
}
