// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-ftree: fat-tree routing, congestion free for shift patterns.
 *
 * ftree_rank.c ranks the switches (roots 0, leaves highest) and refuses
 * anything with a link between non-adjacent ranks. Compute-node ports are
 * then numbered leaf by leaf (leaves in topology order, each leaf padded to
 * the fullest leaf as OpenSM does with its dummy CAs; when leaves have
 * more CAs than up links, to a multiple of the up links: count_cns()),
 * each leaf's ports in port order: that is the CA order, left in the
 * by-products (ca_order).
 *
 * Every destination switch D is routed in one pass over the switches:
 * its ancestors (switches reachable upward from D) go down toward D, every
 * other switch goes up toward the nearest ancestor, counting up-hops u().
 * Among the parents one up-hop closer, the choice is D-mod-k: a switch at
 * height h takes slot (index / divisor[h] + lmc offset) mod slots of its
 * class (above oversubscribed leaves, the LID's arrival number at its
 * switch of that height instead of index / divisor: arrival_digits()), a
 * slot being a parent shared by the whole class, in an order that is the
 * same in every pod (ftree_rank.c). On a full-bisection tree in CA
 * order this is the classic D-mod-k routing: every destination has
 * one spanning tree, all its routes enter the leaf's ancestors through it,
 * and no shift permutation puts two flows on a link. Parallel links count
 * as parents of their own (a parent cabled m times takes m slots, so
 * uneven groups are fine too), and the link down from an ancestor is the
 * cable its child would take up, so a shift never doubles up on one cable
 * either. When the slot's parent is no closer (failed link or switch), the
 * port selection module picks the least loaded of the closer parents'
 * ports, so degraded trees are routed with balance degrading gracefully.
 * The further LIDs of a port (LMC) shift every digit by their offset, and
 * so leave on disjoint upward paths where the tree has the ports.
 *
 * Guarantees: all CA-to-CA routes are minimal up*-down* paths by rank,
 * hence credit-loop free; every CA-attached switch reaches every CA LID,
 * or the engine fails naming the switches, and leaves r clear. Switch LIDs
 * are routed the same way, not counted in the balance; the few switch
 * pairs without an up/down path (two roots, say) go the way to one leaf
 * that reaches every root, as in OpenSM (route_turns()); those turns are
 * checked for credit loops and, if they close one, restricted to that leaf
 * or left out (route_all_turns()). I/O nodes are routed after the compute
 * nodes, with indexes of their own, so they do not move compute-node
 * routes.
 *
 * Cost: O(links) per destination switch plus O(switches) per LID, with no
 * scan over the ports of every switch per LID, then one pass over the LFTs
 * for the credit-loop check (bench/ftree/offline.sh times the largest
 * 3-level tree of 48-port switches).
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include <croute/route/portsel.h>

#include "ftree_int.h"

struct ft_router {
	struct ft ft;
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_byproducts *by; /* the CA order */
	struct cr_portsel *ps;
	uint32_t *stamp; /* == cur: an ancestor of D */
	uint32_t cur;
	uint8_t *u; /* up-hops to the nearest ancestor */
	uint32_t *dfirst; /* ancestors: a group down toward D */
	uint16_t *dcount; /* ancestors: how many such groups */
	uint32_t *queue;
	bool *done; /* switch LIDs routed */
	bool need_turn; /* some switch has no up/down path somewhere */
	bool parallel; /* switches may route concurrently (portsel.h) */
	/*
	 * Threads for the whole run: a round per destination switch. With
	 * threads started per round (cr_parallel()), each of thousands of
	 * rounds would wait to join a thread that a busy machine had not
	 * scheduled yet.
	 */
	struct cr_team *team;
	struct ft_dest *dests;
	unsigned ndests;
	uint32_t cap_dests;
	/* route_turns()'s entries, when they may have to be taken back */
	bool record;
	struct ft_fill {
		uint32_t node;
		uint16_t lid;
	} * fills;
	size_t nfills;
	size_t cap_fills;
	uint32_t *memo_stamp; /* route_turns(strict): walk results */
	uint8_t *memo;
	/* ft_index_lids(): the LIDs' CA indexes are kept, nothing routed */
	struct ft_lid *collect;
};

/* D-mod-k digits of a LID with CA index idx and LMC offset offset. */
static void dest_digits(const struct ft *ft, struct ft_dest *d, uint64_t idx,
			uint8_t offset)
{
	const uint32_t *a = NULL;

	if (idx < ft->narrival)
		a = ft->arrival + idx * (uint32_t)(ft->max_rank + 1);
	for (int h = 0; h <= ft->max_rank; h++) {
		uint32_t c = ft->common_slots[h];

		d->digit[h] = (a ? a[h] : (uint32_t)(idx / ft->radix_div[h])) +
			      offset;
		d->slot[h] = c ? d->digit[h] % c : 0;
	}
}

/* A destination as like says: its LID, port, offset, kind, flags, index. */
static int add_dest(struct ft_router *rt, const struct ft_dest *like)
{
	struct ft_dest *d;

	if (cr_grow32(&rt->dests, &rt->cap_dests, (size_t)rt->ndests + 1,
		      sizeof(*rt->dests))) {
		cr_err("cr-ftree: out of memory");
		return -1;
	}
	d = &rt->dests[rt->ndests++];
	d->lid = like->lid;
	d->dport = like->dport;
	d->offset = like->offset;
	d->is_ca = like->is_ca;
	d->flags = like->flags;
	d->idx = like->idx;
	dest_digits(&rt->ft, d, d->idx, d->offset);
	return 0;
}

/*
 * All LIDs of port p of node n, delivered by D's port like->dport, with
 * like's kind, flags and CA index.
 */
static int add_port(struct ft_router *rt, uint32_t n, unsigned p,
		    const struct ft_dest *like)
{
	const struct cr_port *port = &rt->f->nodes[n].ports[p];
	struct ft_dest d = *like;

	if (!port->lid)
		return 0;
	for (unsigned k = 0; k < (1u << port->lmc); k++) {
		d.lid = port->lid + k;
		d.offset = k;
		if (port->lid + k <= rt->f->max_lid && add_dest(rt, &d))
			return -1;
	}
	return 0;
}

/* Marks D's ancestors and counts everyone's up-hops to the nearest one. */
static void mark_ancestors(struct ft_router *rt, uint32_t d)
{
	struct ft *ft = &rt->ft;
	uint32_t n = 0;

	rt->cur++;
	rt->stamp[d] = rt->cur;
	rt->dcount[d] = 0;
	rt->queue[n++] = d;
	for (uint32_t head = 0; head < n; head++) {
		uint32_t x = rt->queue[head];
		const struct ft_group *g = ft_up(ft, x);

		for (unsigned i = 0; i < ft->sw[x].nup; i++) {
			uint32_t p = g[i].remote;

			if (rt->stamp[p] != rt->cur) {
				rt->stamp[p] = rt->cur;
				rt->dcount[p] = 0;
				rt->queue[n++] = p;
			}
			rt->dcount[p]++;
			rt->dfirst[p] = g[i].rev;
		}
	}
	for (uint32_t i = 0; i < ft->nranked; i++) {
		uint32_t s = ft->by_rank[i];
		const struct ft_group *g = ft_up(ft, s);
		unsigned best = FT_INF;

		if (rt->stamp[s] == rt->cur) {
			rt->u[s] = 0;
			continue;
		}
		for (unsigned j = 0; j < ft->sw[s].nup; j++)
			if (rt->u[g[j].remote] + 1u < best)
				best = rt->u[g[j].remote] + 1u;
		rt->u[s] = best;
	}
}

/* Ports of s's groups (up or down) leading to switches with u == want. */
static unsigned gather(const struct ft_router *rt, uint32_t s, bool up,
		       unsigned want, uint8_t *cands)
{
	const struct ft *ft = &rt->ft;
	const struct ft_group *g = up ? ft_up(ft, s) : ft_down(ft, s);
	unsigned ng = up ? ft->sw[s].nup : ft->sw[s].ndown, n = 0;

	for (unsigned i = 0; i < ng; i++) {
		if (rt->u[g[i].remote] != want)
			continue;
		if (!up && rt->stamp[g[i].remote] != rt->cur)
			continue;
		memcpy(cands + n, ft->ports + g[i].first, g[i].nports);
		n += g[i].nports;
	}
	return n;
}

/*
 * Link number `digit` (mod the group's size) of a group, in the port
 * selection order. D-mod-k choices are not counted in the port selection
 * module: its least-loaded picks only settle what D-mod-k cannot (failed
 * links), and every slot carries the same D-mod-k load anyway.
 */
static inline uint8_t take(const struct ft *ft, const struct ft_group *g,
			   uint32_t digit)
{
	if (g->nports == 1)
		return ft->ports[g->first];
	return ft->ports[g->first + digit % g->nports];
}

/*
 * The child's D-mod-k slot for t, at height h - 1 (below an ancestor at
 * height h): group << 8 | link on the child, or -1.
 */
static int32_t child_slot(const struct ft *ft, const struct ft_sw *c,
			  const struct ft_dest *t, int h)
{
	uint32_t v = t->slot[h - 1];

	if (!c->nslots)
		return -1;
	if (c->nslots != ft->common_slots[h - 1])
		v = t->digit[h - 1] % c->nslots;
	return ft->slots[c->slot + v];
}

/*
 * The port down group g for t: the cable the child would take up for t,
 * so that the flows a shift brings down stay on distinct cables; else by
 * the digit.
 */
uint8_t ft_route_down(const struct ft *ft, const struct ft_group *g,
		      const struct ft_dest *t, int h)
{
	const struct ft_sw *c = &ft->sw[g->remote];
	const struct ft_group *back = &ft->groups[g->rev];
	int32_t e = child_slot(ft, c, t, h);

	if (e >= 0 && ft_up(ft, g->remote) + (e >> 8) == back) {
		uint8_t up_port = ft->ports[back->first + (e & 0xff)];

		return ft->f->nodes[c->node].ports[up_port].remote_port;
	}
	return take(ft, g, c->nslots ? t->digit[h - 1] / c->nslots : 0);
}

static int route_switch(const struct ft_router *rt, uint32_t d, uint32_t s,
			bool *need_turn)
{
	const struct ft *ft = &rt->ft;
	const struct ft_sw *sw = &ft->sw[s];
	uint8_t *lft = rt->r->lft[sw->node];
	uint8_t cands[CR_MAX_PORTS + 1];
	unsigned nc = 0, us = rt->u[s];
	int h = ft_height(ft, s);
	const struct ft_group *up = ft_up(ft, s);
	const int32_t *slots = ft->slots + sw->slot;
	bool gathered = false;

	if (s == d) {
		for (unsigned i = 0; i < rt->ndests; i++)
			lft[rt->dests[i].lid] = rt->dests[i].dport;
		return 0;
	}
	if (us == 0) {
		const struct ft_group *g = &ft->groups[rt->dfirst[s]];

		if (rt->dcount[s] == 1) {
			for (unsigned i = 0; i < rt->ndests; i++)
				lft[rt->dests[i].lid] =
					ft_route_down(ft, g, &rt->dests[i], h);
			return 0;
		}
		/*
		 * Several children lead to D: the one on t's main path (its
		 * spanning tree's trunk), else the least loaded.
		 */
		nc = gather(rt, s, false, 0, cands);
		for (unsigned i = 0; i < rt->ndests; i++) {
			const struct ft_dest *t = &rt->dests[i];
			const struct ft_group *dg = ft_down(ft, s);
			unsigned j = 0;

			while (j < sw->ndown && dg[j].remote != t->trunk[h - 1])
				j++;
			lft[t->lid] = j < sw->ndown
					      ? ft_route_down(ft, &dg[j], t, h)
					      : cr_portsel_pick(
							rt->ps, sw->node, cands,
							nc, t->lid, t->flags);
		}
		return 0;
	}
	if (us == FT_INF) {
		for (unsigned i = 0; i < rt->ndests && sw->has_ca; i++) {
			if (!rt->dests[i].is_ca)
				continue;
			cr_err("cr-ftree: switch '%s' (0x%016llx, rank %d) has CAs but no up/down path to LID %u on switch '%s' (0x%016llx, rank %d): not a routable fat tree",
			       ft_name(ft, s),
			       (unsigned long long)ft_guid(ft, s), sw->rank,
			       rt->dests[i].lid, ft_name(ft, d),
			       (unsigned long long)ft_guid(ft, d),
			       ft->sw[d].rank);
			return -1;
		}
		*need_turn = true;
		return 0;
	}
	for (unsigned i = 0; i < rt->ndests; i++) {
		const struct ft_dest *t = &rt->dests[i];
		uint32_t v = t->slot[h];

		if (sw->nslots && sw->nslots != ft->common_slots[h])
			v = t->digit[h] % sw->nslots;
		if (sw->nslots && slots[v] >= 0) {
			const struct ft_group *g = up + (slots[v] >> 8);

			if (rt->u[g->remote] == us - 1) {
				lft[t->lid] =
					ft->ports[g->first + (slots[v] & 0xff)];
				continue;
			}
		}
		if (!gathered) {
			nc = gather(rt, s, true, us - 1, cands);
			gathered = true;
		}
		lft[t->lid] = cr_portsel_pick(rt->ps, sw->node, cands, nc,
					      t->lid, t->flags);
	}
	return 0;
}

/*
 * The trunk of t's spanning tree: from D up by t's digits, the switches
 * an ancestor with several children toward D sends t down through.
 */
static void find_trunk(const struct ft *ft, uint32_t d, struct ft_dest *t)
{
	int h = ft_height(ft, d);

	for (int i = 0; i <= FT_MAX_HEIGHT; i++)
		t->trunk[i] = CR_NO_NODE;
	if (ft->sw[d].rank < 0)
		return; /* left out of the tree */
	t->trunk[h] = d;
	while (h < ft->max_rank) {
		const struct ft_sw *sw = &ft->sw[d];
		uint32_t v = t->slot[h];
		int32_t e;

		if (!sw->nslots)
			break;
		if (sw->nslots != ft->common_slots[h])
			v = t->digit[h] % sw->nslots;
		e = ft->slots[sw->slot + v];
		if (e < 0)
			break;
		d = ft_up(ft, d)[e >> 8].remote;
		t->trunk[++h] = d;
	}
}

struct ft_part {
	struct ft_router *rt;
	uint32_t d;
	bool need_turn[CR_MAX_THREADS];
};

/*
 * Switches [begin, end) toward d. Each reads only the ancestor marks and
 * its own port loads, so ranges run in parallel with the tables of one
 * thread.
 */
static int switch_range(void *arg, unsigned part, unsigned nparts,
			uint32_t begin, uint32_t end)
{
	struct ft_part *x = arg;

	(void)nparts;
	for (uint32_t s = begin; s < end; s++)
		if (route_switch(x->rt, x->d, s, &x->need_turn[part]))
			return -1;
	return 0;
}

/* Routes rt->dests, all delivered by switch d, on every switch. */
static int route_dests(struct ft_router *rt, uint32_t d)
{
	struct ft_part x = {.rt = rt, .d = d};
	unsigned nparts = rt->parallel ? cr_parallel_parts(rt->ft.ns, 64) : 1;

	if (!rt->ndests)
		return 0;
	if (rt->collect) {
		for (unsigned i = 0; i < rt->ndests; i++)
			rt->collect[rt->dests[i].lid] =
				(struct ft_lid){rt->dests[i].idx,
						rt->dests[i].dport,
						rt->dests[i].offset,
						(uint8_t)rt->dests[i].flags,
						rt->dests[i].is_ca,
						true};
		rt->ndests = 0;
		return 0;
	}
	mark_ancestors(rt, d);
	for (unsigned i = 0; i < rt->ndests; i++)
		find_trunk(&rt->ft, d, &rt->dests[i]);
	if (cr_team_ranges(rt->team, rt->ft.ns, nparts, switch_range, &x))
		return -1;
	for (unsigned i = 0; i < nparts; i++)
		rt->need_turn |= x.need_turn[i];
	rt->ndests = 0;
	return 0;
}

static int add_own_lids(struct ft_router *rt, uint32_t s)
{
	struct ft_dest own = {.flags = CR_PS_NOCOUNT, .idx = s};

	if (rt->done[s])
		return 0;
	rt->done[s] = true;
	return add_port(rt, rt->ft.sw[s].node, 0, &own);
}

/* Compute nodes, leaf by leaf in CA order; each leaf's own LID with them. */
static int route_cns(struct ft_router *rt)
{
	struct ft *ft = &rt->ft;
	const struct cr_fabric *f = rt->f;
	uint32_t *order = malloc(((size_t)f->max_lid + 1) * sizeof(*order));
	uint32_t norder = 0;

	if (!order) {
		cr_err("cr-ftree: out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < ft->nleaves; i++) {
		uint32_t s = ft->leaves[i];
		const struct cr_node *n = &f->nodes[ft->sw[s].node];
		uint64_t idx = (uint64_t)i * ft->cn_stride;

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;
			uint8_t rp = n->ports[p].remote_port;
			struct ft_dest ca = {.dport = (uint8_t)p,
					     .is_ca = true};

			if (m == CR_NO_NODE || cr_is_switch(f, m) ||
			    !ft_is_cn(ft, m, rp))
				continue;
			if (f->nodes[m].ports[rp].lid)
				order[norder++] = f->nodes[m].ports[rp].lid;
			ca.idx = idx++;
			if (add_port(rt, m, rp, &ca))
				goto fail;
		}
		if (add_own_lids(rt, s) || route_dests(rt, s))
			goto fail;
	}
	rt->by->ca_order = order;
	rt->by->num_ca_order = norder;
	return 0;
fail:
	free(order);
	return -1;
}

/* I/O and other non-compute ports, after the compute nodes; then switches. */
static int route_rest(struct ft_router *rt)
{
	struct ft *ft = &rt->ft;
	const struct cr_fabric *f = rt->f;
	uint64_t idx = (uint64_t)ft->nleaves * ft->cn_stride;

	for (uint32_t s = 0; s < ft->ns; s++) {
		const struct cr_node *n = &f->nodes[ft->sw[s].node];

		for (unsigned p = 1; p <= n->num_ports && ft->sw[s].has_ca;
		     p++) {
			uint32_t m = n->ports[p].remote;
			uint8_t rp = n->ports[p].remote_port;
			struct ft_dest ca = {.dport = (uint8_t)p,
					     .is_ca = true};

			if (m == CR_NO_NODE || cr_is_switch(f, m) ||
			    ft_is_cn(ft, m, rp))
				continue;
			ca.idx = idx++;
			if (add_port(rt, m, rp, &ca))
				return -1;
		}
		if (rt->ndests && (add_own_lids(rt, s) || route_dests(rt, s)))
			return -1;
	}
	for (uint32_t s = 0; s < ft->ns; s++)
		if (add_own_lids(rt, s) || route_dests(rt, s))
			return -1;
	return 0;
}

/* Number of root switches reachable upward from switch s. */
static uint32_t roots_above(struct ft_router *rt, uint32_t s)
{
	struct ft *ft = &rt->ft;
	uint32_t n = 0, roots = 0;

	rt->cur++;
	rt->stamp[s] = rt->cur;
	rt->queue[n++] = s;
	for (uint32_t head = 0; head < n; head++) {
		uint32_t x = rt->queue[head];
		const struct ft_group *g = ft_up(ft, x);

		roots += ft->sw[x].rank == 0;
		for (unsigned i = 0; i < ft->sw[x].nup; i++)
			if (rt->stamp[g[i].remote] != rt->cur) {
				rt->stamp[g[i].remote] = rt->cur;
				rt->queue[n++] = g[i].remote;
			}
	}
	return roots;
}

/* The leaf whose upward paths reach the most roots (all, in a fat tree). */
static uint32_t turn_leaf(struct ft_router *rt)
{
	struct ft *ft = &rt->ft;
	uint32_t nroots = 0, best = 0, turn = CR_NO_NODE;

	for (uint32_t s = 0; s < ft->ns; s++)
		nroots += ft->sw[s].rank == 0;
	for (uint32_t i = 0; i < ft->nleaves && best < nroots; i++) {
		uint32_t l = ft->leaves[i], n = roots_above(rt, l);

		if (n > best && rt->f->nodes[ft->sw[l].node].ports[0].lid) {
			best = n;
			turn = l;
		}
	}
	return turn;
}

static int fill(struct ft_router *rt, uint32_t node, uint16_t lid, uint8_t port)
{
	rt->r->lft[node][lid] = port;
	if (!rt->record)
		return 0;
	if (cr_grow(&rt->fills, &rt->cap_fills, rt->nfills + 1,
		    sizeof(*rt->fills))) {
		cr_err("cr-ftree: out of memory");
		return -1;
	}
	rt->fills[rt->nfills].node = node;
	rt->fills[rt->nfills++].lid = lid;
	return 0;
}

static void undo_fills(struct ft_router *rt)
{
	while (rt->nfills) {
		const struct ft_fill *x = &rt->fills[--rt->nfills];

		rt->r->lft[x->node][x->lid] = CR_NO_PATH;
	}
}

/*
 * Strict turns: does the way from s toward turn leaf t (by t's LID tlid)
 * reach t through switches that have no route to lid either, so that the
 * one turn down-to-up is at t itself? Memoised per LID in rt->memo.
 */
static bool reaches_turn(struct ft_router *rt, uint32_t s, uint32_t t,
			 uint16_t lid, uint16_t tlid)
{
	const struct ft *ft = &rt->ft;
	uint32_t depth = 0, x = s;
	uint8_t val = 2; /* 1 yes, 2 no */

	while (x != t) {
		const uint8_t *lft = rt->r->lft[ft->sw[x].node];
		uint32_t next;

		if (rt->memo_stamp[x] == lid) {
			val = rt->memo[x];
			break;
		}
		if (lft[lid] != CR_NO_PATH || lft[tlid] == CR_NO_PATH ||
		    depth >= ft->ns)
			break;
		next = rt->f->nodes[ft->sw[x].node].ports[lft[tlid]].remote;
		if (next == CR_NO_NODE || !cr_is_switch(rt->f, next))
			break;
		rt->queue[depth++] = x;
		x = rt->f->nodes[next].sw_index;
	}
	if (x == t)
		val = 1;
	while (depth--) {
		rt->memo_stamp[rt->queue[depth]] = lid;
		rt->memo[rt->queue[depth]] = val;
	}
	return val == 1;
}

/*
 * Switch pairs without an up/down path (a root toward another root, say)
 * take the way toward one leaf that reaches every root, as in OpenSM, or,
 * for LIDs that leaf cannot reach either (a switch cut off from all the
 * roots), toward the first leaf that can; until a switch on that way has
 * an up/down path of its own, or with strict, only when that way turns at
 * the leaf itself. Only switch LIDs, or switches without CAs, are routed
 * so.
 */
static int route_turns(struct ft_router *rt, bool strict)
{
	struct ft *ft = &rt->ft;
	const struct cr_fabric *f = rt->f;
	uint8_t *hole = calloc((size_t)f->max_lid + 1, 1);
	uint32_t turn = turn_leaf(rt);
	uint64_t filled = 0;
	int ret = -1;

	if (!hole) {
		cr_err("cr-ftree: out of memory");
		return -1;
	}
	for (uint32_t s = 0; s < ft->ns; s++) {
		const uint8_t *lft = rt->r->lft[ft->sw[s].node];

		for (uint32_t lid = 1; lid <= f->max_lid && ft->sw[s].rank >= 0;
		     lid++)
			hole[lid] |= lft[lid] == CR_NO_PATH;
	}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t t = turn, n = 0;
		uint16_t tlid;

		if (!hole[lid] || cr_lid_switch(f, lid, NULL) == CR_NO_NODE)
			continue;
		for (uint32_t i = 0; i < ft->nleaves; i++) {
			if (t != CR_NO_NODE &&
			    rt->r->lft[ft->sw[t].node][lid] != CR_NO_PATH)
				break;
			t = ft->leaves[i];
			if (!f->nodes[ft->sw[t].node].ports[0].lid)
				t = CR_NO_NODE;
		}
		if (t == CR_NO_NODE ||
		    rt->r->lft[ft->sw[t].node][lid] == CR_NO_PATH)
			continue;
		tlid = f->nodes[ft->sw[t].node].ports[0].lid;
		/* Decide first: filling changes what the walks see. */
		for (uint32_t s = 0; s < ft->ns; s++) {
			uint8_t *lft = rt->r->lft[ft->sw[s].node];

			if (s == t || ft->sw[s].rank < 0 ||
			    lft[lid] != CR_NO_PATH || lft[tlid] == CR_NO_PATH)
				continue;
			if (strict && !reaches_turn(rt, s, t, lid, tlid))
				continue;
			rt->queue[n++] = s;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t node = ft->sw[rt->queue[i]].node;

			if (fill(rt, node, lid, rt->r->lft[node][tlid]))
				goto out;
		}
		filled += n;
	}
	if (turn != CR_NO_NODE)
		cr_verbose(
			"cr-ftree: %llu routes without an up/down path go by leaf 0x%016llx",
			(unsigned long long)filled,
			(unsigned long long)ft_guid(ft, turn));
	ret = 0;
out:
	free(hole);
	return ret;
}

/*
 * Is there a credit loop? cr_check's own search (src/core/model/check.c)
 * on the LFTs as they are. Up/down routes alone never close one: only the
 * turns can. Out of memory counts as a loop: assume the worst.
 */
static bool closes_credit_loop(struct ft_router *rt)
{
	return cr_credit_loop_any(rt->f, rt->r) != 0;
}

/*
 * Routes for pairs without an up/down path. Their down-to-up turns can
 * close a credit loop (in degraded pods, or where roots have several links
 * into a pod), so they are checked when the check is affordable (up to
 * FT_VERIFY_MAX switch-LID pairs: `croute gen fat-tree 48` has 88
 * million), and if they close one, made to turn at the turn leaf only, or
 * else left out, as OpenSM's updn leaves such pairs without connect_roots.
 */
static int route_all_turns(struct ft_router *rt)
{
	const struct cr_fabric *f = rt->f;
	bool verify =
		(uint64_t)f->num_switches * (f->max_lid + 1u) <= FT_VERIFY_MAX;

	rt->record = verify;
	if (route_turns(rt, false))
		return -1;
	if (!verify && rt->nfills)
		cr_verbose(
			"cr-ftree: fabric too large to check its switch routes without an up/down path for credit loops");
	if (!verify || !rt->nfills || !closes_credit_loop(rt))
		return 0;
	undo_fills(rt);
	rt->by->ftree_turns_restricted = true;
	rt->memo_stamp = calloc(rt->ft.ns, sizeof(*rt->memo_stamp));
	rt->memo = malloc(rt->ft.ns);
	if (!rt->memo_stamp || !rt->memo) {
		cr_err("cr-ftree: out of memory");
		return -1;
	}
	if (route_turns(rt, true))
		return -1;
	if (!closes_credit_loop(rt)) {
		cr_info("cr-ftree: switch routes without an up/down path turn only at the turn leaf, to stay free of credit loops");
		return 0;
	}
	cr_info("cr-ftree: %zu switch routes without an up/down path would close a credit loop: left out",
		rt->nfills);
	undo_fills(rt);
	return 0;
}

int cr_ftree_route(const struct cr_fabric *f, const struct cr_options *o,
		   struct cr_routing *r, struct cr_byproducts *by)
{
	struct ft_router rt = {.f = f, .r = r, .by = by};
	uint32_t ns = f->num_switches;
	int ret = -1;

	ret = ft_build(&rt.ft, f, o);
	if (ret)
		goto out; /* not a fat tree: CR_ROUTE_NOT_ITS_FABRIC */
	ret = -1;
	rt.ps = cr_portsel_new(f, o, r);
	rt.stamp = calloc(ns, sizeof(*rt.stamp));
	rt.u = malloc(ns); /* FT_INF for switches left out of the tree */
	rt.dfirst = malloc(ns * sizeof(*rt.dfirst));
	rt.dcount = malloc(ns * sizeof(*rt.dcount));
	rt.queue = malloc(ns * sizeof(*rt.queue));
	rt.done = calloc(ns, sizeof(*rt.done));
	if (!rt.ps || !rt.stamp || !rt.u || !rt.dfirst || !rt.dcount ||
	    !rt.queue || !rt.done) {
		cr_err("cr-ftree: out of memory");
		goto out;
	}
	memset(rt.u, FT_INF, ns);
	rt.parallel = cr_portsel_parallel(rt.ps);
	if (rt.parallel && cr_parallel_parts(ns, 64) > 1) {
		rt.team = cr_team_start(cr_threads_get());
		if (!rt.team) {
			cr_err("cr-ftree: out of memory");
			goto out;
		}
	}
	/* Parallel links in the port selection order, for take(). */
	for (uint32_t s = 0; s < ns; s++) {
		const struct ft_sw *sw = &rt.ft.sw[s];
		const struct ft_group *g = ft_up(&rt.ft, s);

		for (unsigned i = 0; i < (unsigned)sw->nup + sw->ndown; i++)
			cr_portsel_order(rt.ps, sw->node,
					 rt.ft.ports + g[i].first, g[i].nports);
	}
	cr_verbose(
		"cr-ftree: %u switches in %d ranks, %u leaves, up to %u compute ports per leaf",
		ns, rt.ft.max_rank + 1, rt.ft.nleaves, rt.ft.max_cn_per_leaf);
	if (route_cns(&rt) || route_rest(&rt))
		goto out;
	if (rt.need_turn && route_all_turns(&rt))
		goto out;
	ret = 0;
out:
	if (ret)
		cr_routing_clear(r);
	cr_team_stop(rt.team);
	ft_release(&rt.ft);
	cr_portsel_free(rt.ps);
	free(rt.stamp);
	free(rt.u);
	free(rt.dfirst);
	free(rt.dcount);
	free(rt.queue);
	free(rt.done);
	free(rt.dests);
	free(rt.fills);
	free(rt.memo_stamp);
	free(rt.memo);
	return ret;
}

int ft_index_lids(const struct ft *ft, struct ft_lid *lids,
		  struct cr_byproducts *by)
{
	/* A router that only numbers: no tables, no loads. */
	struct ft_router rt = {
		.ft = *ft, .f = ft->f, .by = by, .collect = lids};
	int ret = -1;

	rt.done = calloc(ft->ns + 1, sizeof(*rt.done));
	if (!rt.done)
		cr_err("cr-ftree: out of memory");
	else if (!route_cns(&rt) && !route_rest(&rt))
		ret = 0;
	free(rt.done);
	free(rt.dests);
	return ret;
}

uint32_t ft_turn_leaf(const struct ft *ft)
{
	struct ft_router rt = {.ft = *ft, .f = ft->f};
	uint32_t t = CR_NO_NODE;

	rt.stamp = calloc(ft->ns + 1, sizeof(*rt.stamp));
	rt.queue = malloc((ft->ns + 1) * sizeof(*rt.queue));
	if (rt.stamp && rt.queue)
		t = turn_leaf(&rt);
	else
		cr_err("cr-ftree: out of memory");
	free(rt.stamp);
	free(rt.queue);
	return t;
}

void ft_dest_of(const struct ft *ft, uint32_t d, uint16_t lid,
		const struct ft_lid *l, struct ft_dest *t)
{
	t->lid = lid;
	t->dport = l->dport;
	t->offset = l->offset;
	t->is_ca = l->is_ca;
	t->flags = l->flags;
	t->idx = l->idx;
	dest_digits(ft, t, l->idx, l->offset);
	find_trunk(ft, d, t);
}
