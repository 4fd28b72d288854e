// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-ftree's turns in an incremental repair (incremental.c, ftree.c's
 * route_turns()): a switch without an up/down path toward a destination
 * routes its LIDs the way it routes the turn leaf's LID, else the first
 * leaf's in CA order that has a path, as a full run fills them after its
 * up/down routes. Where the turn leaf and its labels are the base's, only
 * the switches whose entry toward the turn leaf changed, or whose labels
 * or entries the repair changed, are visited; the others keep the base's
 * entries, which are what a full run gives them. Then, when entries
 * changed on a fabric a full run would search (FT_VERIFY_MAX), the tables
 * are searched for credit loops, unless the base kept its channel
 * dependencies and no changed entry adds one.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/check.h>
#include <croute/model/clock.h>

#include "incr_int.h"

/* The new label of switch s toward d (new switch indices). */
static inline uint8_t label_of(const struct incr_repair *rep, uint32_t d,
			       uint32_t s)
{
	const struct cr_incr_base *base = rep->base;

	if (rep->rows[d])
		return rep->rows[d][s];
	return base->lab[(size_t)rep->sw2o[d] * base->ns + rep->sw2o[s]];
}

/*
 * Does the entry of switch index w for lid make a channel dependency the
 * base did not have: from a switch forwarding lid to w into it, or from
 * it into the next switch's entry?
 */
static bool new_dependency(const struct incr_repair *rep, uint32_t w,
			   uint16_t lid)
{
	const struct cr_fabric *f = rep->f;
	const struct cr_incr_base *base = rep->base;
	uint32_t wn = f->switches[w], m;
	const struct cr_node *n = &f->nodes[wn];
	uint8_t q = rep->r->lft[wn][lid], q2;
	size_t bit;

	if (q == 0 || q == CR_NO_PATH || q > n->num_ports)
		return false;
	/* The base's bit first: it is near, a neighbour's row is not. */
	for (unsigned p = 1; p <= n->num_ports; p++) {
		bit = incr_cdg_bit(base, rep->sw2o[w], p, q);
		if (base->cdg[bit >> 3] & (1u << (bit & 7)))
			continue;
		m = n->ports[p].remote;
		if (m != CR_NO_NODE && cr_is_switch(f, m) &&
		    rep->r->lft[m][lid] == n->ports[p].remote_port)
			return true;
	}
	m = n->ports[q].remote;
	if (m == CR_NO_NODE || !cr_is_switch(f, m))
		return false;
	q2 = rep->r->lft[m][lid];
	if (q2 == 0 || q2 == CR_NO_PATH || q2 > f->nodes[m].num_ports)
		return false;
	bit = incr_cdg_bit(base, rep->sw2o[f->nodes[m].sw_index],
			   n->ports[q].remote_port, q2);
	return !(base->cdg[bit >> 3] & (1u << (bit & 7)));
}

/*
 * Whether the repaired tables need the credit-loop search: the base's
 * tables had none (a full run searched them, or took no turns), so only
 * a dependency the base did not have can close one, and any new one must
 * start or end at an entry that changed.
 */
static bool needs_search(const struct incr_repair *rep)
{
	if (!rep->base->cdg)
		return true;
	for (size_t i = 0; i < rep->ntodo; i++)
		if (new_dependency(rep, rep->todo[i].sw, rep->todo[i].lid))
			return true;
	for (size_t i = 0; i < rep->nchg; i++)
		if (new_dependency(rep, rep->chg[i].sw, rep->chg[i].lid))
			return true;
	return false;
}

static int add_chg(struct incr_repair *rep, uint32_t w, uint16_t lid)
{
	if (cr_grow(&rep->chg, &rep->cap_chg, rep->nchg + 1, sizeof(*rep->chg)))
		return -1;
	rep->chg[rep->nchg++] = (struct turn_chg){w, lid};
	return 0;
}

/* d's labels are the base's (a repair may have relabelled them alike). */
static bool labels_kept(const struct incr_repair *rep, uint32_t d)
{
	if (!rep->identity)
		return false;
	return !rep->rows[d] ||
	       !memcmp(rep->rows[d], rep->base->lab + (size_t)d * rep->base->ns,
		       rep->ns);
}

/*
 * The turn leaf as the base had it (same leaf, same labels), and the
 * switches whose entry toward its LID the repair changed (in *chg, *n;
 * switch index order). A destination whose labels are the base's turns
 * over that leaf as the base did, so only those switches' turn entries
 * toward it can differ from the base's, which were copied: route_turns()
 * sets them to the entry toward the turn leaf's LID. False: fill as a
 * full run does.
 */
static bool turn_column(const struct incr_repair *rep, uint32_t **chg,
			uint32_t *n)
{
	const struct cr_fabric *f = rep->f, *bf = rep->base->f;
	uint16_t tlid;

	*chg = NULL;
	*n = 0;
	if (!rep->identity || !rep->base->nones || rep->turn == CR_NO_NODE ||
	    rep->turn != rep->base->turn || !labels_kept(rep, rep->turn))
		return false;
	tlid = f->nodes[f->switches[rep->turn]].ports[0].lid;
	if (!tlid || tlid > bf->max_lid)
		return false;
	*chg = malloc((rep->ns + 1) * sizeof(**chg));
	if (!*chg)
		return false;
	for (uint32_t s = 0; s < rep->ns; s++)
		if (rep->r->lft[f->switches[s]][tlid] !=
		    rep->base->r->lft[bf->switches[s]][tlid])
			(*chg)[(*n)++] = s;
	return true;
}

/*
 * The LIDs a switch has no up/down path to go the way to the turn leaf,
 * else to the first leaf in CA order with a route, exactly as
 * route_turns() (ftree.c) fills them after a full run's up/down routes:
 * LID by LID, a switch taking its entry toward that leaf as it stands
 * then. Then, as a full run does on fabrics it can afford to, the tables
 * are searched for credit loops when anything changed (1: a full run).
 */
int ft_incr_fill_turns(struct incr_repair *rep)
{
	const struct cr_fabric *f = rep->f;
	uint32_t ns = rep->ns, *tl = malloc((ns + 1) * sizeof(*tl));
	uint32_t *start = malloc((ns + 2) * sizeof(*start)), *list = NULL;
	size_t n = 0, cap = 0;
	uint32_t *col = NULL, ncol = 0;
	bool turn_kept = turn_column(rep, &col, &ncol);
	bool *in_col = calloc(ns + 1, sizeof(*in_col));
	/* [switch]: d + 1 when check_entries() cleared its entries toward d */
	uint32_t *cleared = calloc(ns + 1, sizeof(*cleared));
	size_t ci = 0;
	bool pairs = false; /* any switch pair without an up/down path */
	int ret = -1;

	if (!tl || !start || !in_col || !cleared)
		goto out;
	for (uint32_t k = 0; k < ncol; k++)
		in_col[col[k]] = true;
	for (uint32_t d = 0; d < ns; d++) {
		/*
		 * Which switches to look at: all, or, when d turns over the
		 * base's turn leaf now and in the base, only those whose
		 * entry toward that leaf changed and, if d's labels changed,
		 * those that lost their up/down path to d or whose entries
		 * check_entries() cleared. The other switches without a path
		 * had none in the base either, and their copied entries are
		 * what a full run gives them. A repair's labels only grow, so
		 * a turn leaf with a path to d now had one in the base; the
		 * test of blab guards that all the same.
		 */
		uint32_t t = rep->turn;
		bool kept = labels_kept(rep, d);
		const uint8_t *blab =
			turn_kept ? rep->base->lab + (size_t)d * ns : NULL;
		bool column = turn_kept && label_of(rep, d, t) != LAB_NONE &&
			      (kept || blab[t] != LAB_NONE);
		bool scan = !column || !kept;
		uint32_t k_end = scan ? ns : ncol;

		for (; ci < rep->nclr && rep->clr[ci].d == d; ci++)
			cleared[rep->clr[ci].sw] = d + 1;
		start[d] = (uint32_t)n;
		pairs = pairs || (column && rep->base->nones[d]);
		for (uint32_t k = 0; k < k_end; k++) {
			uint32_t s = scan ? k : col[k];

			if (rep->ftrank[s] == UINT32_MAX ||
			    label_of(rep, d, s) != LAB_NONE)
				continue;
			if (column && scan && blab[s] == LAB_NONE &&
			    !in_col[s] && cleared[s] != d + 1)
				continue;
			if (cr_grow(&list, &cap, n + 1, sizeof(*list)))
				goto out;
			list[n++] = s;
		}
		for (uint32_t i = 0; i <= rep->ft.nleaves; i++) {
			if (t != CR_NO_NODE && label_of(rep, d, t) != LAB_NONE)
				break;
			t = i < rep->ft.nleaves ? rep->ft.leaves[i]
						: CR_NO_NODE;
			if (t != CR_NO_NODE &&
			    !f->nodes[f->switches[t]].ports[0].lid)
				t = CR_NO_NODE;
		}
		tl[d] = t;
	}
	start[ns] = (uint32_t)n;
	pairs = pairs || n;
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t d = rep->lid_dsw[lid], t;
		uint16_t tlid = 0;

		if (d == CR_NO_NODE || start[d] == start[d + 1])
			continue;
		t = tl[d];
		if (t != CR_NO_NODE)
			tlid = f->nodes[f->switches[t]].ports[0].lid;
		for (uint32_t i = start[d]; i < start[d + 1]; i++) {
			uint32_t s = list[i];
			uint8_t *e = &rep->r->lft[f->switches[s]][lid];
			uint8_t want = CR_NO_PATH;

			if (t != CR_NO_NODE &&
			    (tlid < lid || label_of(rep, t, s) != LAB_NONE))
				want = rep->r->lft[f->switches[s]][tlid];
			if (*e == want)
				continue;
			*e = want;
			rep->turn_entries++;
			rep->st->entries++;
			if (want != CR_NO_PATH &&
			    add_chg(rep, s, (uint16_t)lid))
				goto out;
		}
	}
	ret = 0;
	if (rep->base->cdg && (rep->turn_entries || rep->ntodo))
		rep->st->new_dependency = needs_search(rep);
	if (pairs && (rep->turn_entries || rep->ntodo) &&
	    (uint64_t)ns * (f->max_lid + 1u) <= FT_VERIFY_MAX &&
	    (!rep->base->cdg || rep->st->new_dependency)) {
		double t0 = cr_now();
		int loop = cr_credit_loop_any(f, rep->r);

		rep->ms_check = (cr_now() - t0) * 1e3;
		rep->st->searched = true;
		if (loop)
			ret = loop < 0 ? -1
				       : incr_reason(
						 rep->st,
						 "the switch routes without an"
						 " up/down path would close a"
						 " credit loop");
	}
out:
	free(tl);
	free(start);
	free(list);
	free(col);
	free(in_col);
	free(cleared);
	return ret;
}
