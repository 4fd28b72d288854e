// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * HyperX: switches on an S1 x S2 (x S3) grid, K cables ("a trunk")
 * between every two switches that share all coordinates but one, so each
 * dimension is a complete graph; H hosts a switch.
 *
 * Switch (x, y, z) is node x + S1 (y + S2 z), named sw-x-y-z. Its hosts
 * come first; then dimension by dimension, the other coordinates in
 * increasing order (skipping its own), K ports each: the t-th cable
 * toward coordinate c in dimension d lands on the same t-th port of the
 * trunk at the far end.
 */
#include <croute/model/log.h>
#include "gen_build.h"

struct hx {
	unsigned n, d[3], hp, trunk, ports;
	unsigned long stride[3], count;
};

/* The port of the t-th cable toward coordinate to, from coordinate at. */
static unsigned hx_port(const struct hx *x, unsigned dim, unsigned at,
			unsigned to, unsigned t)
{
	unsigned base = x->hp;

	for (unsigned e = 0; e < dim; e++)
		base += (x->d[e] - 1) * x->trunk;
	return base + (to < at ? to : to - 1) * x->trunk + t + 1;
}

static int hx_check(struct hx *x, const unsigned *dims, unsigned ndims,
		    unsigned hosts)
{
	unsigned long long ports = x->hp;

	if (ndims < 2 || ndims > 3) {
		cr_err("gen: a HyperX has 2 or 3 dimensions");
		return -1;
	}
	if (!x->trunk) {
		cr_err("gen: a HyperX needs --trunk >= 1");
		return -1;
	}
	x->n = ndims;
	x->count = 1;
	for (unsigned i = 0; i < ndims; i++) {
		if (dims[i] < 2) {
			cr_err("gen: HyperX dimension %u is %u: at least 2",
			       i + 1, dims[i]);
			return -1;
		}
		x->d[i] = dims[i];
		x->stride[i] = x->count;
		x->count *= dims[i];
		ports += (unsigned long long)(dims[i] - 1) * x->trunk;
		if (x->count * (1ull + hosts) > CR_GEN_MAX_NODES) {
			cr_err("gen: the HyperX is too large (%lu nodes at"
			       " most)",
			       CR_GEN_MAX_NODES);
			return -1;
		}
	}
	x->ports = (unsigned)ports;
	return cr_genb_check_ports("a HyperX switch", ports);
}

struct cr_fabric *cr_gen_hyperx(const unsigned *dims, unsigned ndims,
				unsigned hosts, unsigned trunk,
				const struct cr_gen_params *p)
{
	unsigned np = p && p->hca_ports ? p->hca_ports : 1;
	struct hx x = {.hp = hosts * np, .trunk = trunk};
	unsigned dd[3];
	struct cr_genb g;
	int err = 0;

	if (hx_check(&x, dims, ndims, hosts) ||
	    cr_genb_init(&g, p, x.count * hosts))
		return NULL;
	for (unsigned i = 0; i < x.n; i++)
		dd[i] = cr_genb_digits(x.d[i] - 1);
	for (unsigned long i = 0; i < x.count && !err; i++) {
		unsigned a = i % x.d[0], b = i / x.stride[1] % x.d[1];

		if (x.n == 3)
			err = cr_genb_switch(&g, x.ports, "sw-%0*u-%0*u-%0*u",
					     (int)dd[0], a, (int)dd[1], b,
					     (int)dd[2],
					     (unsigned)(i / x.stride[2])) ==
			      CR_NO_NODE;
		else
			err = cr_genb_switch(&g, x.ports, "sw-%0*u-%0*u",
					     (int)dd[0], a, (int)dd[1],
					     b) == CR_NO_NODE;
	}
	for (unsigned long i = 0; i < x.count && !err; i++)
		for (unsigned e = 0; e < x.n && !err; e++) {
			unsigned c = i / x.stride[e] % x.d[e];

			for (unsigned to = c + 1; to < x.d[e] && !err; to++) {
				unsigned long j = i + (to - c) * x.stride[e];

				for (unsigned t = 0; t < trunk && !err; t++)
					err = cr_genb_cable(
						&g, i, hx_port(&x, e, c, to, t),
						j, hx_port(&x, e, to, c, t));
			}
		}
	for (unsigned long i = 0; i < x.count && !err; i++)
		err = cr_genb_hosts(&g, i, 1, hosts);
	return cr_genb_done(&g, err);
}
