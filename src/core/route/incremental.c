// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Incremental re-routing for cr-minhop, cr-updn and cr-ftree
 * (doc/design.md, "Incremental re-routing"; ftree's labels and port rules
 * are in ftree_incr.c, and it is treated as updn with its ranks as the
 * order, plus its turns: ft_incr_fill_turns()).
 *
 * Both engines give every switch W a label toward each destination switch
 * D, and route every LID of D over a port to a neighbour one label step
 * closer: minhop's label is the hop distance; updn's is the distance over
 * legal up*-down* steps plus a mode (DOWN: the route only goes down), with
 * the steps allowed by the ranks (updn.c). A base keeps the labels of its
 * full run. When links or nodes go away, with the ranks unchanged, labels
 * can only grow: a switch keeps its label while one neighbour one step
 * closer, reached by an allowed step, keeps its own (its "support"). The
 * switches without support (the affected ones) are found level by level
 * from the ends of the dead links, and labelled again by a bucketed BFS
 * from the unaffected ones (Ramalingam and Reps' scheme for unit
 * weights). This gives the labels a full run on the new fabric computes.
 *
 * An entry is kept when its port is up and leads one allowed step closer
 * under the new labels; only the ends of dead links and the affected
 * switches and their neighbours can fail that. The others are chosen again
 * by the engine's rules through the port-selection module, in the full
 * run's LID order, each switch's counters starting from the entries it
 * keeps. So every path is one the engine could have chosen: minimal for
 * minhop; up*-down* over unchanged ranks for updn (no credit loops), of
 * least legal length; every switch labelled toward a LID reaches it. The
 * LIDs that got a new entry are walked from every switch to check it.
 * What may differ from a full run is the choice among equal ports, and
 * only where the full run would move routes that stay valid.
 *
 * This file checks that the new fabric is a subset of the base's (nodes
 * matched by GUID, node_match.c), with the same ranks or tree, prepares
 * the new fabric's tables, copies the base's rows and runs the steps:
 * incr_base.c keeps the base, incr_repair.c repairs labels and entries,
 * ftree_incr_turns.c fills cr-ftree's turns.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/clock.h>
#include <croute/route/engine.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/node_match.h>
#include <croute/model/parallel.h>

#include "ft_incr.h"
#include "incr_int.h"

int incr_reason(struct cr_incr_stats *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->reason, sizeof(st->reason), fmt, ap);
	va_end(ap);
	return 1;
}

/*
 * The log names a link that went away by both ends (name, GUID, LID and
 * port), so the administrator can find the cable the repair routed around.
 */
static void name_link(const struct cr_fabric *bf, uint32_t n, unsigned p,
		      struct cr_incr_stats *st)
{
	char a[CR_NODE_LABEL_MAX], b[CR_NODE_LABEL_MAX];
	const struct cr_port *pt = &bf->nodes[n].ports[p];

	snprintf(st->link_down, sizeof(st->link_down),
		 "%s port %u to %s port %u",
		 cr_node_label(bf, n, p, a, sizeof(a)), p,
		 cr_node_label(bf, pt->remote, pt->remote_port, b, sizeof(b)),
		 pt->remote_port);
}

/*
 * Compares the new fabric with the base's: every node of f must be in the
 * base with the same type, ports, GUIDs and LIDs, and every link of f in
 * the base. Collects the surviving ends of the links that went away.
 */
static int compare_fabrics(struct incr_repair *rep)
{
	const struct cr_fabric *f = rep->f, *bf = rep->base->f;
	struct cr_incr_stats *st = rep->st;
	size_t cap = 0;

	rep->n2o = malloc((f->num_nodes + 1) * sizeof(*rep->n2o));
	rep->o2n = malloc((bf->num_nodes + 1) * sizeof(*rep->o2n));
	if (!rep->n2o || !rep->o2n)
		return -1;
	if (cr_match_nodes(f, bf, rep->n2o, rep->o2n))
		return incr_reason(st, "duplicate node GUIDs");
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *a = &f->nodes[n];
		uint32_t bo = rep->n2o[n];
		const struct cr_node *o;

		if (bo == CR_NO_NODE)
			return incr_reason(st, "node 0x%016" PRIx64 " is new",
					   a->guid);
		o = &bf->nodes[bo];
		if (a->type != o->type || a->num_ports != o->num_ports)
			return incr_reason(st, "node 0x%016" PRIx64 " changed",
					   a->guid);
		for (unsigned p = 0; p <= a->num_ports; p++) {
			const struct cr_port *np = &a->ports[p];
			const struct cr_port *op = &o->ports[p];

			if (np->guid != op->guid || np->lid != op->lid ||
			    np->lmc != op->lmc)
				return incr_reason(st,
						   "port %u of 0x%016" PRIx64
						   " changed its GUID or LID",
						   p, a->guid);
			if (np->remote != CR_NO_NODE) {
				if (op->remote != rep->n2o[np->remote] ||
				    op->remote_port != np->remote_port)
					return incr_reason(
						st,
						"a link appeared at port"
						" %u of 0x%016" PRIx64,
						p, a->guid);
				continue;
			}
			if (op->remote == CR_NO_NODE ||
			    a->type != CR_NODE_SWITCH ||
			    !cr_is_switch(bf, op->remote))
				continue;
			if (cr_grow(&rep->dead, &cap, rep->ndead + 1,
				    sizeof(*rep->dead)))
				return -1;
			rep->dead[rep->ndead++] = (struct dead_end){
				a->sw_index, (uint8_t)p,
				bf->nodes[op->remote].sw_index};
		}
	}
	/* What went away, each link counted once. */
	for (uint32_t bo = 0; bo < bf->num_nodes; bo++) {
		const struct cr_node *o = &bf->nodes[bo];
		uint32_t n = rep->o2n[bo];

		if (n == CR_NO_NODE) {
			st->nodes_gone++;
			st->switches_gone += o->type == CR_NODE_SWITCH;
		}
		for (unsigned p = 1; p <= o->num_ports; p++) {
			uint32_t bm = o->ports[p].remote;
			uint8_t bq = o->ports[p].remote_port;

			if (bm == CR_NO_NODE || bm < bo || (bm == bo && bq < p))
				continue;
			if (n != CR_NO_NODE && rep->o2n[bm] != CR_NO_NODE &&
			    f->nodes[n].ports[p].remote == rep->o2n[bm])
				continue;
			if (!st->links_down && !st->host_links_down)
				name_link(bf, bo, p, st);
			if (cr_is_switch(bf, bo) && cr_is_switch(bf, bm))
				st->links_down++;
			else
				st->host_links_down++;
		}
	}
	st->same = !st->nodes_gone && !st->links_down && !st->host_links_down;
	rep->sw2o = malloc((rep->ns + 1) * sizeof(*rep->sw2o));
	if (!rep->sw2o)
		return -1;
	rep->identity = rep->ns == rep->base->ns;
	for (uint32_t s = 0; s < rep->ns; s++) {
		rep->sw2o[s] = bf->nodes[rep->n2o[f->switches[s]]].sw_index;
		rep->identity = rep->identity && rep->sw2o[s] == s;
	}
	return 0;
}

/* cr-updn: the base's roots must survive and give the same ranks. */
static int same_ranks(struct incr_repair *rep, struct cr_byproducts *by)
{
	const struct cr_byproducts *br = &rep->base->by;
	const uint32_t *rank;

	by->roots = malloc((br->num_roots + 1) * sizeof(*by->roots));
	if (!by->roots)
		return -1;
	by->num_roots = br->num_roots;
	for (uint32_t i = 0; i < br->num_roots; i++) {
		by->roots[i] = rep->o2n[br->roots[i]];
		if (by->roots[i] == CR_NO_NODE)
			return incr_reason(
				rep->st, "root 0x%016" PRIx64 " is gone",
				rep->base->f->nodes[br->roots[i]].guid);
	}
	rep->updn = cr_updn_open(rep->f, by->roots, by->num_roots);
	if (!rep->updn)
		return -1;
	rank = cr_updn_ranks(rep->updn);
	for (uint32_t s = 0; s < rep->ns; s++)
		if (rank[s] != rep->base->rank[rep->sw2o[s]])
			return incr_reason(
				rep->st,
				"the up*/down* rank of 0x%016" PRIx64
				" changed",
				rep->f->nodes[rep->f->switches[s]].guid);
	rep->ord = cr_updn_order(rep->updn);
	return 0;
}

/*
 * cr-updn's min-hop detours off up*-down* (top-level roots, updn_detour.c)
 * made again on the repaired tables, as a full run with the same roots
 * makes them: the labels only grew, so every pair the base detoured
 * still lacks a legal path, and the pairs that lost theirs take one too.
 * Also when the base took no detours but the repair left CA switches
 * without a legal path to a switch LID (a fat tree's leaf to a middle
 * switch or a root it lost its cable to): a full run on the new fabric
 * takes these roots as the top level and detours them. A credit loop on
 * VL 0, or a CA switch still without a path, ends the repair: a full run
 * would then choose other roots. When the base took detours, those of
 * every destination are made again (one labelling per switch), not only
 * the repaired ones': a detour of an untouched destination may cross a
 * dead link. Else only the destinations a CA switch lost get detours,
 * those CA traffic needs (a full run's fall-back when all of them close
 * a loop, as they do on fat trees): one labelling each.
 */
static int repair_detours(struct incr_repair *rep, struct cr_byproducts *by)
{
	uint64_t totals[3] = {UINT64_MAX / 2, UINT64_MAX / 2, 0};
	int ret;

	ret = updn_detours(
		rep->updn, rep->r, rep->dst_lids, (int)rep->dst_start[rep->ns],
		rep->base->by.updn_detours ? NULL : rep->lost_dest, totals, by);
	/* The pairs a detour reaches are not lost: count those left. */
	rep->st->lost_pairs = 0;
	for (uint32_t s = 0; !ret && s < rep->ns; s++) {
		const uint8_t *lft = rep->r->lft[rep->f->switches[s]];

		for (uint32_t i = 0;
		     rep->has_ca[s] && i < rep->dst_start[rep->ns]; i++)
			rep->st->lost_pairs +=
				lft[rep->dst_lids[i]] == CR_NO_PATH &&
				rep->lid_dsw[rep->dst_lids[i]] != s;
	}
	if (ret > 0)
		return incr_reason(rep->st,
				   "the min-hop detours off up*/down*"
				   " (top-level roots) close a credit loop"
				   " on the repaired tables; a full run"
				   " chooses other roots");
	rep->st->loop_free = !ret;
	if (!ret && rep->st->lost_pairs)
		return incr_reason(rep->st,
				   "%" PRIu64 " (CA switch, LID) pairs have"
				   " no path with the full run's roots, even"
				   " with detours; a full run chooses others",
				   rep->st->lost_pairs);
	return ret;
}

/*
 * cr-ftree: the new fabric must be a fat tree with the base's ranks and
 * leaves (in CA order); its LIDs numbered as a full run numbers them (the
 * CA order goes into by), its turn leaf found as a full run finds it.
 */
static int same_tree(struct incr_repair *rep, const struct cr_options *o,
		     struct cr_byproducts *by)
{
	const struct cr_incr_base *base = rep->base;
	uint64_t *leaves;
	int ret;

	if (ft_build(&rep->ft, rep->f, o)) {
		ft_release(&rep->ft);
		return incr_reason(rep->st,
				   "cr-ftree does not take the new fabric");
	}
	rep->have_ft = true;
	rep->ftrank = malloc((rep->ns + 1) * sizeof(*rep->ftrank));
	leaves = malloc((rep->ft.nleaves + 1) * sizeof(*leaves));
	rep->ftl = calloc((size_t)rep->f->max_lid + 1, sizeof(*rep->ftl));
	if (!rep->ftrank || !leaves || !rep->ftl) {
		free(leaves);
		return -1;
	}
	ft_incr_shape(&rep->ft, rep->ftrank, leaves);
	ret = 0;
	for (uint32_t s = 0; s < rep->ns && !ret; s++)
		if (rep->ftrank[s] != base->rank[rep->sw2o[s]])
			ret = incr_reason(
				rep->st,
				"the cr-ftree rank of 0x%016" PRIx64 " changed",
				rep->f->nodes[rep->f->switches[s]].guid);
	if (!ret &&
	    (rep->ft.nleaves != base->nleaves ||
	     memcmp(leaves, base->leaf_guid, base->nleaves * sizeof(*leaves))))
		ret = incr_reason(rep->st, "the leaves or their order changed");
	free(leaves);
	if (ret)
		return ret;
	rep->turn = ft_turn_leaf(&rep->ft);
	rep->ord = rep->ftrank;
	return ft_index_lids(&rep->ft, rep->ftl, by) ? -1 : 0;
}

static int prepare(struct incr_repair *rep, const struct cr_options *o)
{
	const struct cr_fabric *f = rep->f;
	uint32_t ns = rep->ns;
	uint16_t *lids = NULL;
	int nlids;

	rep->has_ca = calloc(ns + 1, sizeof(*rep->has_ca));
	rep->lost_dest = calloc(ns + 1, sizeof(*rep->lost_dest));
	rep->lid_dsw = malloc(((size_t)f->max_lid + 1) * sizeof(*rep->lid_dsw));
	rep->pos = calloc((size_t)f->max_lid + 1, sizeof(*rep->pos));
	rep->dst_start = calloc(ns + 2, sizeof(*rep->dst_start));
	rep->dst_lids =
		malloc(((size_t)f->max_lid + 1) * sizeof(*rep->dst_lids));
	rep->rows = calloc(ns + 1, sizeof(*rep->rows));
	rep->gen_q = calloc(ns + 1, sizeof(*rep->gen_q));
	rep->gen_aff = calloc(ns + 1, sizeof(*rep->gen_aff));
	rep->gen_fix = calloc(ns + 1, sizeof(*rep->gen_fix));
	rep->gen_set = calloc(ns + 1, sizeof(*rep->gen_set));
	rep->tent = malloc(ns + 1);
	rep->aff = malloc((ns + 1) * sizeof(*rep->aff));
	rep->set = malloc((ns + 1) * sizeof(*rep->set));
	rep->delta =
		calloc((size_t)ns * rep->base->stride + 1, sizeof(*rep->delta));
	if (!rep->delta || !rep->has_ca || !rep->lost_dest || !rep->lid_dsw ||
	    !rep->pos || !rep->dst_start || !rep->dst_lids || !rep->rows ||
	    !rep->gen_q || !rep->gen_aff || !rep->gen_fix || !rep->gen_set ||
	    !rep->tent || !rep->aff || !rep->set)
		return -1;
	for (uint32_t s = 0; s < ns; s++)
		rep->has_ca[s] = cr_switch_num_cas(f, s) > 0;
	if (cr_switch_adjacency(f, &rep->adj_start, &rep->adj_sw,
				&rep->adj_port))
		return -1;
	/* LIDs grouped by destination switch (counting sort). */
	rep->lid_dsw[0] = CR_NO_NODE;
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t d = cr_lid_switch(f, (uint16_t)lid, NULL);

		rep->lid_dsw[lid] =
			d == CR_NO_NODE ? CR_NO_NODE : f->nodes[d].sw_index;
		if (d != CR_NO_NODE)
			rep->dst_start[f->nodes[d].sw_index + 1]++;
	}
	for (uint32_t s = 0; s < ns; s++)
		rep->dst_start[s + 1] += rep->dst_start[s];
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (rep->lid_dsw[lid] != CR_NO_NODE)
			rep->dst_lids[rep->dst_start[rep->lid_dsw[lid]]++] =
				(uint16_t)lid;
	for (uint32_t s = ns; s > 0; s--)
		rep->dst_start[s] = rep->dst_start[s - 1];
	rep->dst_start[0] = 0;
	nlids = cr_lid_order(f, o, &lids);
	if (nlids < 0)
		return -1;
	for (int i = 0; i < nlids; i++)
		rep->pos[lids[i]] = (uint32_t)i;
	free(lids);
	return 0;
}

/* The base's rows, mapped onto the new switch indices; by switch range. */
static int copy_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct incr_repair *rep = arg;
	const struct cr_fabric *f = rep->f;
	const struct cr_routing *br = rep->base->r;
	size_t width =
		(size_t)(f->max_lid < br->max_lid ? f->max_lid : br->max_lid) +
		1;

	(void)part;
	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		uint32_t n = f->switches[s];

		memcpy(rep->r->lft[n], br->lft[rep->n2o[n]], width);
		/* r may come from cr_routing_new_raw(): every entry set */
		if (width < (size_t)f->max_lid + 1)
			memset(rep->r->lft[n] + width, CR_NO_PATH,
			       (size_t)f->max_lid + 1 - width);
	}
	return 0;
}

static void copy_tables(struct incr_repair *rep)
{
	cr_parallel(rep->ns, cr_parallel_chunks(rep->ns, 64), copy_range, rep);
}

/* The copy as one job beside the new fabric's analysis: one thread. */
static int copy_side(void *arg)
{
	struct incr_repair *rep = arg;

	return copy_range(rep, 0, 1, 0, rep->ns);
}

static void incr_release(struct incr_repair *rep)
{
	free(rep->n2o);
	free(rep->o2n);
	free(rep->sw2o);
	free(rep->adj_start);
	free(rep->adj_sw);
	free(rep->adj_port);
	free(rep->dead);
	cr_updn_close(rep->updn);
	free(rep->has_ca);
	free(rep->lost_dest);
	free(rep->lid_dsw);
	free(rep->dst_start);
	free(rep->dst_lids);
	free(rep->pos);
	if (rep->rows)
		for (uint32_t d = 0; d < rep->ns; d++)
			free(rep->rows[d]);
	free(rep->rows);
	free(rep->gen_q);
	free(rep->gen_aff);
	free(rep->gen_fix);
	free(rep->gen_set);
	free(rep->tent);
	free(rep->aff);
	free(rep->set);
	for (unsigned i = 0; i < LAB_MAX_DIST + 2; i++)
		free(rep->bk[i].v);
	free(rep->todo);
	free(rep->delta);
	if (rep->have_ft)
		ft_release(&rep->ft);
	free(rep->chg);
	free(rep->clr);
	free(rep->ftl);
	free(rep->ftrank);
}

static double now_ms(void)
{
	return cr_now() * 1e3;
}

/* Every node keeps its index: nothing to map. */
static bool same_indices(const struct incr_repair *rep)
{
	if (rep->f->num_nodes != rep->base->f->num_nodes || !rep->identity)
		return false;
	for (uint32_t n = 0; n < rep->f->num_nodes; n++)
		if (rep->n2o[n] != n)
			return false;
	return true;
}

int cr_route_incremental(const struct cr_incr_base *base,
			 const struct cr_engine *e, const struct cr_fabric *f,
			 const struct cr_options *o, struct cr_routing *r,
			 struct cr_byproducts *by, struct cr_incr_stats *st)
{
	struct incr_repair rep = {.base = base, .f = f, .r = r, .st = st};
	double ms[6] = {0}, ms_cmp = 0, ms_shape = 0;
	struct cr_byproducts scratch = {0};
	struct cr_side copy = {0};
	int ret;

	if (!by)
		by = &scratch;
	memset(st, 0, sizeof(*st));
	cr_byproducts_release(by);
	if (r->num_nodes != f->num_nodes || r->max_lid != f->max_lid) {
		cr_err("incremental: the routing is not the fabric's");
		cr_routing_clear(r);
		return -1;
	}
	ret = 0;
	if (!base)
		ret = incr_reason(st, "no full run to start from");
	else if (e != base->e)
		ret = incr_reason(st, "the full run was cr-%s's",
				  base->e->name);
	else if (incr_options_digest(o) != base->digest)
		ret = incr_reason(st, "the options changed since the full run");
	if (ret) {
		cr_routing_clear(r);
		return ret;
	}
	rep.kind = base->kind;
	rep.ns = f->num_switches;
	ms[0] = now_ms();
	ret = compare_fabrics(&rep);
	if (!ret && st->same && same_indices(&rep)) {
		/*
		 * The base's fabric node for node: a full run would give the
		 * base's tables and by-products, so they are taken as they
		 * are (a cable back after a fault, a sweep after a trap).
		 */
		ms[1] = now_ms();
		copy_tables(&rep);
		ret = cr_byproducts_copy(by, &base->by);
		cr_verbose("incremental: the full run's fabric again: compare"
			   " %.1f ms, copy %.1f",
			   ms[1] - ms[0], now_ms() - ms[1]);
		goto out;
	}
	ms_cmp = now_ms();
	/*
	 * The rows come from memory at its bandwidth while the ranks, the
	 * tree and the LID tables wait on its latency: the copy runs beside
	 * them (it reads only the base and the node map, and writes only
	 * r's rows, which they do not read).
	 */
	if (!ret)
		cr_side_start(&copy, copy_side, &rep);
	if (!ret && rep.kind == K_UPDN)
		ret = same_ranks(&rep, by);
	if (!ret && rep.kind == K_FTREE)
		ret = same_tree(&rep, o, by);
	ms_shape = now_ms();
	if (!ret)
		ret = prepare(&rep, o);
	ms[1] = now_ms();
	if (copy.fn)
		cr_side_join(&copy);
	if (!ret)
		incr_clear_lost_lids(&rep);
	/* every step's clock is read, so a refused run logs no garbage */
	ms[2] = now_ms();
	if (!ret)
		ret = incr_find_work(&rep);
	ms[3] = now_ms();
	if (!ret)
		ret = incr_pick_again(&rep, o);
	ms[4] = now_ms();
	if (!ret)
		ret = incr_verify(&rep);
	ms[5] = now_ms();
	if (!ret && rep.kind == K_FTREE)
		ret = ft_incr_fill_turns(&rep);
	if (!ret && rep.kind == K_UPDN &&
	    (base->by.updn_detours || st->lost_pairs))
		ret = repair_detours(&rep, by);
	cr_verbose("incremental: compare %.1f ms, ranks or tree %.1f, prepare"
		   " %.1f, copy (the wait for it) %.1f, labels and checks"
		   " %.1f, picks %.1f,"
		   " verify %.1f, turns %.1f (credit-loop search %.1f)",
		   ms_cmp - ms[0], ms_shape - ms_cmp, ms[1] - ms_shape,
		   ms[2] - ms[1], ms[3] - ms[2], ms[4] - ms[3], ms[5] - ms[4],
		   now_ms() - ms[5], rep.ms_check);
out:
	if (ret < 0 && !st->reason[0])
		snprintf(st->reason, sizeof(st->reason), "%s",
			 "an error in the incremental run");
	incr_release(&rep);
	if (ret)
		cr_routing_clear(r);
	if (ret || by == &scratch)
		cr_byproducts_release(by);
	return ret;
}
