// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rail-optimized two-level trees, as AI clusters are built: N servers of
 * R HCAs each, in scalable units of U servers (the last unit may be
 * short). A unit has R leaves, and leaf r takes HCA r of every server of
 * the unit; every leaf has U/S cables to each of the S spines, as many
 * uplinks as hosts, so the tree has full bisection.
 *
 * Server i's HCAs are "serverNNN HCA-1" .. "HCA-R" and share a system
 * image GUID (HCA-1's node GUID): how croute tells the server and the
 * rail of an HCA, on generated fabrics as on real ones. Nodes and GUIDs
 * go spines, leaves (unit by unit, rail by rail), then the HCAs server by
 * server, so GUID order, node order and the natural order of the names
 * are all rank = server x R + rail.
 *
 * Ports: a leaf's server i of the unit on port i + 1, then spine s on
 * ports U + s U/S + 1 .. U + (s + 1) U/S; a spine's leaf l on ports
 * l U/S + 1 .. (l + 1) U/S.
 */
#include <stdio.h>

#include <croute/model/log.h>
#include "gen_build.h"

static int rail_check(unsigned servers, unsigned rails, unsigned unit,
		      unsigned spines, const struct cr_gen_params *p)
{
	unsigned long long units, nodes;

	if (!servers || !rails || !unit || !spines) {
		cr_err("gen: a rail tree needs servers, rails, a unit size and"
		       " spines");
		return -1;
	}
	if (unit % spines) {
		cr_err("gen: %u spines do not divide a unit of %u servers",
		       spines, unit);
		return -1;
	}
	if (p && p->hca_ports > 1) {
		cr_err("gen: rail-tree HCAs have one port each");
		return -1;
	}
	units = (servers + unit - 1ull) / unit;
	nodes = spines + units * rails + (unsigned long long)servers * rails;
	if (nodes > CR_GEN_MAX_NODES) {
		cr_err("gen: a rail tree of %llu nodes is too large (%lu at"
		       " most)",
		       nodes, CR_GEN_MAX_NODES);
		return -1;
	}
	return cr_genb_check_ports("a rail-tree leaf", 2ull * unit) ||
	       cr_genb_check_ports("a rail-tree spine",
				   units * rails * (unit / spines));
}

static int rail_servers(struct cr_genb *g, unsigned servers, unsigned rails,
			unsigned unit, uint32_t leaves)
{
	unsigned sd = cr_genb_digits(servers);

	if (sd < 3)
		sd = 3;
	for (unsigned i = 0; i < servers; i++) {
		uint64_t sysimg = g->ca_guid;

		for (unsigned r = 0; r < rails; r++) {
			char desc[64];
			uint32_t n, leaf = leaves + (i / unit) * rails + r;

			snprintf(desc, sizeof(desc), "server%0*u HCA-%u",
				 (int)sd, i + 1, r + 1);
			n = cr_genb_ca(g, 1, desc);
			if (n == CR_NO_NODE ||
			    cr_genb_cable(g, leaf, i % unit + 1, n, 1))
				return -1;
			g->f->nodes[n].sysimg_guid = sysimg;
		}
	}
	return 0;
}

struct cr_fabric *cr_gen_rail_tree(unsigned servers, unsigned rails,
				   unsigned unit, unsigned spines,
				   const struct cr_gen_params *p)
{
	unsigned units = (servers + unit - 1) / unit, per;
	unsigned ud, rd, sd;
	uint32_t leaves = spines;
	struct cr_genb g;
	int err = 0;

	if (rail_check(servers, rails, unit, spines, p) ||
	    cr_genb_init(&g, p, (unsigned long)servers * rails))
		return NULL;
	per = unit / spines;
	ud = cr_genb_digits(units - 1);
	rd = cr_genb_digits(rails);
	sd = cr_genb_digits(spines - 1);
	for (unsigned s = 0; s < spines && !err; s++)
		err = cr_genb_switch(&g, units * rails * per, "spine-%0*u",
				     (int)sd, s) == CR_NO_NODE;
	for (unsigned u = 0; u < units && !err; u++)
		for (unsigned r = 0; r < rails && !err; r++)
			err = cr_genb_switch(&g, 2 * unit, "su%0*u-rail%0*u",
					     (int)ud, u, (int)rd,
					     r + 1) == CR_NO_NODE;
	for (uint32_t l = 0; l < units * rails && !err; l++)
		for (unsigned s = 0; s < spines && !err; s++)
			for (unsigned t = 0; t < per && !err; t++)
				err = cr_genb_cable(&g, leaves + l,
						    unit + s * per + t + 1, s,
						    l * per + t + 1);
	if (!err)
		err = rail_servers(&g, servers, rails, unit, leaves);
	return cr_genb_done(&g, err);
}
