// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Incremental repair (cr_route_incremental). The input's first line is
 * "ENGINE N N ...": minhop, updn or ftree, then cables to cut, each the
 * index (modulo their count) of a cable in node and port order; the rest
 * is a small topology. The full run of the topology is the base; the
 * fabric minus the cuts, without the nodes the SM's port no longer
 * reaches (as the command loads it), is repaired. A repair either is
 * refused with its tables cleared, or has no forwarding loop.
 */
#include "fuzz.h"

#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/route/incremental.h>
#include <croute/model/routing.h>

#define MAX_CUTS 8

/* Cuts cable k (node and port order, counted from its lower end). */
static void cut(struct cr_fabric *g, unsigned long k, unsigned long count)
{
	k %= count;
	for (uint32_t n = 0; n < g->num_nodes; n++) {
		struct cr_node *a = &g->nodes[n];

		for (unsigned p = 1; p <= a->num_ports; p++) {
			struct cr_port *x = &a->ports[p];
			struct cr_port *y;

			if (x->remote == CR_NO_NODE || x->remote < n ||
			    (x->remote == n && x->remote_port < p) || k--)
				continue;
			y = &g->nodes[x->remote].ports[x->remote_port];
			y->remote = CR_NO_NODE;
			y->remote_port = 0;
			x->remote = CR_NO_NODE;
			x->remote_port = 0;
			return;
		}
	}
}

static unsigned long cables(const struct cr_fabric *f)
{
	unsigned long count = 0;

	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++)
			count += f->nodes[n].ports[p].remote != CR_NO_NODE;
	return count / 2;
}

static void repair(const struct cr_incr_base *b, const struct cr_engine *e,
		   const struct cr_fabric *g)
{
	struct cr_routing *r = cr_routing_new_raw(g);
	struct cr_byproducts by = {0};
	struct cr_check_report rep;
	struct cr_incr_stats st;
	struct cr_options o;
	int ret;

	if (!r)
		return;
	cr_options_init(&o);
	ret = cr_route_incremental(b, e, g, &o, r, &by, &st);
	if (ret == 0 && !cr_check(g, r, CR_CHECK_SWITCHES, NULL, 0, &rep) &&
	    rep.loops)
		abort();
	for (uint32_t s = 0; ret && s < g->num_switches; s++)
		for (uint32_t l = 0; l <= g->max_lid; l++)
			if (r->lft[g->switches[s]][l] != CR_NO_PATH)
				abort();
	cr_byproducts_release(&by);
	cr_options_release(&o);
	cr_routing_free(r);
}

static void base_and_cuts(struct cr_fabric *f, const struct cr_engine *e,
			  const unsigned long *cuts, unsigned ncuts)
{
	struct cr_routing *r = cr_routing_new(f);
	struct cr_byproducts by = {0};
	struct cr_incr_base *b = NULL;
	struct cr_fabric *g = NULL;
	unsigned long count = cables(f);
	struct cr_options o;

	cr_options_init(&o);
	if (r && !cr_route_by(e, f, &o, r, &by))
		b = cr_incr_base_new(e, f, &o, r, &by);
	if (b)
		g = cr_fabric_copy(f);
	for (unsigned i = 0; g && count && i < ncuts; i++)
		cut(g, cuts[i], count);
	if (g && !cr_fabric_keep_sm_part(g) && !cr_fabric_finalize(g))
		repair(b, e, g);
	cr_fabric_free(g);
	cr_incr_base_free(b);
	cr_byproducts_release(&by);
	cr_options_release(&o);
	cr_routing_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	unsigned long cuts[MAX_CUTS];
	const struct cr_engine *e;
	struct cr_fabric *f;
	unsigned ncuts = 0;
	char *line, *tok, *save;

	fuzz_quiet();
	if (!nl)
		return 0;
	line = fuzz_strdup(data, (size_t)(nl - data));
	if (!line)
		return 0;
	tok = strtok_r(line, " ", &save);
	e = tok ? cr_engine_find(tok) : NULL;
	while (e && ncuts < MAX_CUTS && (tok = strtok_r(NULL, " ", &save)))
		cuts[ncuts++] = strtoul(tok, NULL, 10);
	free(line);
	if (!e)
		return 0;
	f = fuzz_topo_read(nl + 1, size - (size_t)(nl + 1 - data), "fuzz");
	if (f && f->num_nodes <= 64 &&
	    (f->max_lid || !cr_fabric_assign_lids(f, 0)))
		base_and_cuts(f, e, cuts, ncuts);
	cr_fabric_free(f);
	return 0;
}
