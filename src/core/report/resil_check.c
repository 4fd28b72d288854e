// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute resilience's check of a cable failure without the whole hop
 * table. A LID none of whose entries changed, and none of whose entries
 * leads into the failed cable, has the intact fabric's paths from every
 * switch, so its (CA port, LID) pairs count as they did: only the other
 * LIDs are walked again (a few hundred of 4,176 on clos24). The counts
 * are cr_check_each()'s, LID by LID, so their sums are its report's; the
 * credit-loop search, on one VL, is cr_credit_loop_any()'s, which is
 * cr_check_each()'s without path SLs, and is not made twice: a cr-updn
 * repair that made detours searched the same tables. Anything else (nodes lost, path
 * SLs, other LIDs) is checked in full.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/check.h>
#include <croute/model/log.h>

#include "resil_int.h"

/* Per LID: pairs, unreachable, loops. */
enum { C_PAIRS, C_UNREACH, C_LOOPS, C_N };

struct cr_resil_check {
	uint32_t ns, max_lid, num_nodes;
	uint32_t *cas; /* CA ports per switch index */
	uint64_t *cnt; /* [lid * C_N + what], the intact routing's */
	struct cr_check_report all; /* their sums */
};

/* The counts of lids[0..n) into c[i * C_N ..], as cr_check_each() counts. */
static int count_lids(const struct cr_fabric *f, const struct cr_routing *r,
		      const uint32_t *cas, const uint16_t *lids, uint32_t n,
		      uint64_t *c)
{
	uint32_t ns = f->num_switches;
	uint8_t *hops = malloc((size_t)ns * n + 1);
	struct cr_hop_ctx *j = cr_hop_ctx_new(f, r);
	int ret = -1;

	if (!hops || !j || cr_hop_ctx_lids(j, lids, n, hops, n))
		goto out;
	memset(c, 0, (size_t)n * C_N * sizeof(*c));
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t sw = f->switches[s];

		if (!cas[s])
			continue;
		for (uint32_t i = 0; i < n; i++) {
			uint16_t lid = lids[i];
			uint32_t dst = f->lid_node[lid];
			uint64_t pairs = cas[s];

			if (dst == CR_NO_NODE)
				continue;
			if (!cr_is_switch(f, dst) &&
			    f->nodes[dst].ports[f->lid_port[lid]].remote == sw)
				pairs--;
			if (!pairs)
				continue;
			c[i * C_N + C_PAIRS] += pairs;
			if (hops[(size_t)s * n + i] != CR_NO_PATH)
				continue;
			c[i * C_N + (cr_path_loops(f, r, sw, lid)
					     ? C_LOOPS
					     : C_UNREACH)] += pairs;
		}
	}
	ret = 0;
out:
	if (ret)
		cr_err("out of memory checking the routing");
	cr_hop_ctx_free(j);
	free(hops);
	return ret;
}

static void count_cas(const struct cr_fabric *f, uint32_t *cas)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *sw = &f->nodes[f->switches[s]];

		cas[s] = 0;
		for (unsigned p = 1; p <= sw->num_ports; p++)
			cas[s] += sw->ports[p].remote != CR_NO_NODE &&
				  !cr_is_switch(f, sw->ports[p].remote);
	}
}

struct cr_resil_check *cr_resil_check_new(const struct cr_fabric *f,
					  const struct cr_routing *r)
{
	struct cr_resil_check *x = calloc(1, sizeof(*x));
	uint16_t *lids = NULL;

	if (!x || r->sl)
		goto fail;
	x->ns = f->num_switches;
	x->max_lid = f->max_lid;
	x->num_nodes = f->num_nodes;
	x->cas = malloc((x->ns + 1) * sizeof(*x->cas));
	x->cnt = calloc(((size_t)f->max_lid + 1) * C_N, sizeof(*x->cnt));
	lids = malloc(((size_t)f->max_lid + 1) * sizeof(*lids));
	if (!x->cas || !x->cnt || !lids)
		goto fail;
	count_cas(f, x->cas);
	for (uint32_t l = 1; l <= f->max_lid; l++)
		lids[l - 1] = (uint16_t)l;
	if (f->max_lid &&
	    count_lids(f, r, x->cas, lids, f->max_lid, x->cnt + C_N))
		goto fail;
	for (uint32_t l = 1; l <= f->max_lid; l++) {
		x->all.pairs += x->cnt[l * C_N + C_PAIRS];
		x->all.unreachable += x->cnt[l * C_N + C_UNREACH];
		x->all.loops += x->cnt[l * C_N + C_LOOPS];
	}
	free(lids);
	return x;
fail:
	free(lids);
	cr_resil_check_free(x);
	return NULL;
}

void cr_resil_check_free(struct cr_resil_check *x)
{
	if (!x)
		return;
	free(x->cas);
	free(x->cnt);
	free(x);
}

/* The switch end (node, port) of the failed cable leads lid's traffic. */
static bool into(const struct cr_fabric *g, const struct cr_routing *r,
		 uint32_t n, unsigned p, uint32_t lid)
{
	return n < g->num_nodes && cr_is_switch(g, n) && r->lft[n] &&
	       r->lft[n][lid] == p;
}

int cr_resil_check_cable(const struct cr_resil_check *x,
			 const struct cr_fabric *f, const struct cr_routing *r0,
			 const struct cr_fabric *g, const struct cr_routing *r,
			 const struct cr_fault *ft, bool loop_free,
			 struct cr_check_report *rep)
{
	uint16_t *lids = NULL;
	uint64_t *c = NULL;
	uint32_t *cas = NULL, n = 0;
	int ret = 1, loop;

	if (!x || ft->kind != CR_FAULT_CABLE || r->sl ||
	    g->num_nodes != x->num_nodes || g->max_lid != x->max_lid ||
	    g->num_switches != x->ns || r->max_lid != r0->max_lid)
		return 1;
	cas = malloc((x->ns + 1) * sizeof(*cas));
	lids = malloc(((size_t)x->max_lid + 1) * sizeof(*lids));
	if (!cas || !lids)
		goto oom;
	count_cas(g, cas);
	for (uint32_t s = 0; s < x->ns; s++)
		if (cas[s] != x->cas[s] || g->switches[s] != f->switches[s])
			goto out;
	/* lids[] first marks the changed LIDs, switch row by switch row */
	memset(lids, 0, ((size_t)x->max_lid + 1) * sizeof(*lids));
	for (uint32_t s = 0; s < x->ns; s++) {
		const uint8_t *a = r->lft[g->switches[s]];
		const uint8_t *b = r0->lft[g->switches[s]];

		for (uint32_t lid = 1;; lid++) {
			lid = cr_resil_next_diff(a, b, lid, x->max_lid + 1);
			if (lid > x->max_lid)
				break;
			lids[lid] = 1;
		}
	}
	for (uint32_t lid = 1; lid <= x->max_lid; lid++)
		if (lids[lid] || g->lid_node[lid] != f->lid_node[lid] ||
		    into(g, r, ft->node, ft->port, lid) ||
		    into(g, r, ft->rnode, ft->rport, lid))
			lids[n++] = (uint16_t)lid;
	c = malloc(((size_t)n + 1) * C_N * sizeof(*c));
	if (!c || (n && count_lids(g, r, cas, lids, n, c)))
		goto oom;
	*rep = (struct cr_check_report){.pairs = x->all.pairs,
					.unreachable = x->all.unreachable,
					.loops = x->all.loops};
	for (uint32_t i = 0; i < n; i++) {
		const uint64_t *o = x->cnt + (size_t)lids[i] * C_N;

		rep->pairs += c[i * C_N + C_PAIRS] - o[C_PAIRS];
		rep->unreachable += c[i * C_N + C_UNREACH] - o[C_UNREACH];
		rep->loops += c[i * C_N + C_LOOPS] - o[C_LOOPS];
	}
	loop = loop_free ? 0 : cr_credit_loop_any(g, r);
	if (loop < 0)
		goto oom;
	rep->credit_loops = (uint64_t)loop;
	ret = 0;
	goto out;
oom:
	ret = -1;
out:
	free(cas);
	free(lids);
	free(c);
	return ret;
}
