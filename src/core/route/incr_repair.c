// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The label repair of incremental re-routing (incremental.c describes the
 * method). Per destination switch whose labels a dead link can change:
 * the switches that lost their support, found level by level from the
 * dead links' ends; their new labels, by a bucketed BFS from the others;
 * the entries that may have become wrong, checked and cleared. Then the
 * cleared entries are chosen again in the full run's LID order, each
 * switch's port counters starting from the routes it keeps, and walked to
 * their LIDs. Per destination, only the dead links' ends, the affected
 * switches and their neighbours are visited.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/route/portsel.h>

#include "ft_incr.h"
#include "incr_int.h"

static int push(struct bucket *bk, uint32_t s)
{
	if (cr_grow32(&bk->v, &bk->cap, (size_t)bk->n + 1, sizeof(*bk->v)))
		return -1;
	bk->v[bk->n++] = s;
	return 0;
}

/* The step w -> y (both labelled) is one the engine may take. */
static inline bool step_ok(const struct incr_repair *rep, uint32_t w,
			   uint8_t lw, uint32_t y, uint8_t ly)
{
	if (LAB_DIST(ly) + 1 != LAB_DIST(lw))
		return false;
	if (rep->kind == K_MINHOP)
		return true;
	return LAB_DOWN(lw) ? rep->ord[y] > rep->ord[w] && LAB_DOWN(ly)
			    : rep->ord[y] < rep->ord[w];
}

/*
 * Whether w (labelled) may reach y: an up step, or a down step into a
 * DOWN switch (label_into()'s rule, before w has a mode).
 */
static inline bool may_enter(const struct incr_repair *rep, uint32_t w,
			     uint32_t y, uint8_t ly)
{
	return rep->kind == K_MINHOP || rep->ord[y] < rep->ord[w] ||
	       LAB_DOWN(ly);
}

void incr_clear_lost_lids(struct incr_repair *rep)
{
	const struct cr_fabric *f = rep->f, *bf = rep->base->f;

	for (uint32_t lid = 1; lid <= bf->max_lid; lid++) {
		bool any = false;

		if ((lid <= f->max_lid && rep->lid_dsw[lid] != CR_NO_NODE) ||
		    cr_lid_switch(bf, (uint16_t)lid, NULL) == CR_NO_NODE)
			continue;
		for (uint32_t s = 0; s < rep->ns; s++) {
			uint32_t n = f->switches[s];
			uint8_t old = rep->base->r->lft[rep->n2o[n]][lid];

			if (old == CR_NO_PATH)
				continue;
			if (incr_counted(bf, rep->sw2o[s], (uint16_t)lid, old))
				rep->delta[(size_t)s * rep->base->stride +
					   old]--;
			/* Beyond f's LIDs: not in the rows, cut off. */
			if (lid <= f->max_lid)
				rep->r->lft[n][lid] = CR_NO_PATH;
			rep->st->entries++;
			rep->churn++;
			any = true;
		}
		rep->st->lids += any;
	}
}

static bool supported(const struct incr_repair *rep, const uint8_t *row,
		      uint32_t gen, uint32_t w)
{
	uint8_t lw = row[w];

	for (uint32_t k = rep->adj_start[w]; k < rep->adj_start[w + 1]; k++) {
		uint32_t y = rep->adj_sw[k];

		if (row[y] != LAB_NONE && rep->gen_aff[y] != gen &&
		    step_ok(rep, w, lw, y, row[y]))
			return true;
	}
	return false;
}

/* The switches whose label toward d changes (rep->aff). */
static int find_affected(struct incr_repair *rep, uint32_t d, uint8_t *row,
			 const uint8_t *brow)
{
	uint32_t gen = d + 1;

	rep->naff = 0;
	for (uint32_t i = 0; i < rep->ndead; i++) {
		uint32_t s = rep->dead[i].sw;
		uint8_t ls = row[s], lf = brow[rep->dead[i].far];

		if (ls == LAB_NONE || lf == LAB_NONE ||
		    LAB_DIST(lf) + 1 != LAB_DIST(ls) || rep->gen_q[s] == gen)
			continue;
		rep->gen_q[s] = gen;
		if (push(&rep->bk[LAB_DIST(ls)], s))
			return -1;
	}
	for (unsigned lvl = 1; lvl <= LAB_MAX_DIST; lvl++) {
		struct bucket *bk = &rep->bk[lvl];

		for (uint32_t i = 0; i < bk->n; i++) {
			uint32_t w = bk->v[i];

			if (supported(rep, row, gen, w))
				continue;
			rep->gen_aff[w] = gen;
			rep->aff[rep->naff++] = w;
			for (uint32_t k = rep->adj_start[w];
			     k < rep->adj_start[w + 1]; k++) {
				uint32_t z = rep->adj_sw[k];

				if (row[z] == LAB_NONE ||
				    LAB_DIST(row[z]) != lvl + 1 ||
				    rep->gen_q[z] == gen)
					continue;
				rep->gen_q[z] = gen;
				if (push(&rep->bk[lvl + 1], z))
					return -1;
			}
		}
		bk->n = 0;
	}
	return 0;
}

/* New labels for the affected switches: BFS from the unaffected ones. */
static int relabel(struct incr_repair *rep, uint32_t d, uint8_t *row)
{
	uint32_t gen = d + 1;
	bool overflow = false;

	for (uint32_t i = 0; i < rep->naff; i++)
		row[rep->aff[i]] = LAB_NONE;
	for (uint32_t i = 0; i < rep->naff; i++) {
		uint32_t w = rep->aff[i];
		unsigned best = LAB_NONE;

		for (uint32_t k = rep->adj_start[w]; k < rep->adj_start[w + 1];
		     k++) {
			uint32_t y = rep->adj_sw[k];

			if (row[y] != LAB_NONE &&
			    may_enter(rep, w, y, row[y]) &&
			    LAB_DIST(row[y]) + 1 < best)
				best = LAB_DIST(row[y]) + 1;
		}
		rep->tent[w] = (uint8_t)best;
		if (best <= LAB_MAX_DIST && push(&rep->bk[best], w))
			return -1;
		overflow |= best != LAB_NONE && best > LAB_MAX_DIST;
	}
	for (unsigned lvl = 1; lvl <= LAB_MAX_DIST; lvl++) {
		struct bucket *bk = &rep->bk[lvl];

		for (uint32_t i = 0; i < bk->n; i++) {
			uint32_t w = bk->v[i];
			unsigned down = rep->kind == K_MINHOP;

			if (rep->gen_fix[w] == gen || rep->tent[w] != lvl)
				continue;
			rep->gen_fix[w] = gen;
			for (uint32_t k = rep->adj_start[w];
			     !down && k < rep->adj_start[w + 1]; k++) {
				uint32_t y = rep->adj_sw[k];

				down = row[y] != LAB_NONE &&
				       rep->ord[y] > rep->ord[w] &&
				       LAB_DOWN(row[y]) &&
				       LAB_DIST(row[y]) + 1 == lvl;
			}
			row[w] = LAB(lvl, down);
			for (uint32_t k = rep->adj_start[w];
			     k < rep->adj_start[w + 1]; k++) {
				uint32_t z = rep->adj_sw[k];

				if (rep->gen_aff[z] != gen ||
				    rep->gen_fix[z] == gen ||
				    !may_enter(rep, z, w, row[w]) ||
				    lvl + 1 >= rep->tent[z])
					continue;
				rep->tent[z] = (uint8_t)(lvl + 1);
				if (lvl + 1 > LAB_MAX_DIST)
					overflow = true;
				else if (push(&rep->bk[lvl + 1], z))
					return -1;
			}
		}
		bk->n = 0;
	}
	if (overflow)
		return incr_reason(rep->st, "a path longer than %u hops",
				   LAB_MAX_DIST);
	/*
	 * cr-updn: CA switches must keep a legal path to every CA switch.
	 * A lost path to a switch without CAs (a root, whose LID only
	 * management traffic uses) is counted: the full run would rather
	 * choose other roots and move most of the tables.
	 */
	for (uint32_t i = 0; i < rep->naff; i++) {
		uint32_t w = rep->aff[i];

		if (row[w] != LAB_NONE || !rep->has_ca[w])
			continue;
		/* cr-ftree: switch LIDs are routed over the turn leaf */
		if (rep->kind == K_FTREE) {
			if (rep->has_ca[d])
				return incr_reason(
					rep->st,
					"a switch with CAs lost its"
					" up/down path to 0x%016" PRIx64,
					rep->f->nodes[rep->f->switches[d]]
						.guid);
			continue;
		}
		if (rep->kind != K_UPDN)
			continue;
		if (rep->has_ca[d])
			return incr_reason(
				rep->st,
				"a switch with CAs lost its legal"
				" path to 0x%016" PRIx64,
				rep->f->nodes[rep->f->switches[d]].guid);
		rep->st->lost_pairs +=
			rep->dst_start[d + 1] - rep->dst_start[d];
		rep->lost_dest[d] = true;
	}
	return 0;
}

static int add_todo(struct incr_repair *rep, uint32_t w, uint16_t lid,
		    uint8_t old)
{
	if (cr_grow(&rep->todo, &rep->todo_cap, rep->ntodo + 1,
		    sizeof(*rep->todo)))
		return -1;
	rep->todo[rep->ntodo++] = (struct todo){rep->pos[lid], w, lid, old};
	return 0;
}

/* An entry of switch index w is cleared: its route no longer counts. */
static void uncount(struct incr_repair *rep, uint32_t w, uint16_t lid,
		    uint8_t old)
{
	if (incr_counted(rep->f, w, lid, old))
		rep->delta[(size_t)w * rep->base->stride + old]--;
}

static void set_add(struct incr_repair *rep, uint32_t gen, uint32_t w)
{
	if (rep->gen_set[w] == gen)
		return;
	rep->gen_set[w] = gen;
	rep->set[rep->nset++] = w;
}

static int add_clr(struct incr_repair *rep, uint32_t d, uint32_t w)
{
	if (cr_grow(&rep->clr, &rep->cap_clr, rep->nclr + 1, sizeof(*rep->clr)))
		return -1;
	rep->clr[rep->nclr++] = (struct turn_clr){d, w};
	return 0;
}

/*
 * The entries toward d that can have become wrong: at the ends of dead
 * links, at affected switches and at their neighbours. Invalid ones are
 * cleared and listed; returns how many, or -1.
 */
static long check_entries(struct incr_repair *rep, uint32_t d,
			  const uint8_t *row)
{
	const struct cr_fabric *f = rep->f;
	uint32_t gen = d + 1;
	long n = 0;

	rep->nset = 0;
	for (uint32_t i = 0; i < rep->ndead; i++)
		set_add(rep, gen, rep->dead[i].sw);
	for (uint32_t i = 0; i < rep->naff; i++) {
		uint32_t w = rep->aff[i];

		set_add(rep, gen, w);
		for (uint32_t k = rep->adj_start[w]; k < rep->adj_start[w + 1];
		     k++)
			set_add(rep, gen, rep->adj_sw[k]);
	}
	for (uint32_t i = 0; i < rep->nset; i++) {
		uint32_t w = rep->set[i], wn = f->switches[w];
		const struct cr_node *node = &f->nodes[wn];
		uint8_t lw = row[w];
		bool cleared = false;

		if (w == d)
			continue;
		for (uint32_t k = rep->dst_start[d]; k < rep->dst_start[d + 1];
		     k++) {
			uint16_t lid = rep->dst_lids[k];
			uint8_t *e = &rep->r->lft[wn][lid];
			uint32_t y;

			if (lw == LAB_NONE) {
				if (*e != CR_NO_PATH) {
					uncount(rep, w, lid, *e);
					*e = CR_NO_PATH;
					rep->st->entries++;
					rep->churn++;
					cleared = true;
				}
				continue;
			}
			if (*e != CR_NO_PATH && *e >= 1 &&
			    *e <= node->num_ports) {
				y = node->ports[*e].remote;
				if (y != CR_NO_NODE && cr_is_switch(f, y) &&
				    row[f->nodes[y].sw_index] != LAB_NONE &&
				    step_ok(rep, w, lw, f->nodes[y].sw_index,
					    row[f->nodes[y].sw_index]))
					continue;
			}
			if (add_todo(rep, w, lid, *e))
				return -1;
			uncount(rep, w, lid, *e);
			*e = CR_NO_PATH;
			n++;
		}
		if (cleared && rep->kind == K_FTREE && add_clr(rep, d, w))
			return -1;
	}
	return n;
}

int incr_find_work(struct incr_repair *rep)
{
	const struct cr_incr_base *base = rep->base;
	uint8_t *row = NULL;

	for (uint32_t d = 0; d < rep->ns; d++) {
		const uint8_t *brow =
			base->lab + (size_t)rep->sw2o[d] * base->ns;
		bool work = false;
		long n;
		int ret;

		for (uint32_t i = 0; i < rep->ndead && !work; i++) {
			uint8_t ls = brow[rep->sw2o[rep->dead[i].sw]];
			uint8_t lf = brow[rep->dead[i].far];

			work = ls != LAB_NONE && lf != LAB_NONE &&
			       LAB_DIST(lf) + 1 == LAB_DIST(ls);
		}
		if (!work)
			continue;
		if (!row && !(row = malloc(rep->ns + 1)))
			return -1;
		if (rep->identity)
			memcpy(row, brow, rep->ns);
		else
			for (uint32_t w = 0; w < rep->ns; w++)
				row[w] = brow[rep->sw2o[w]];
		if (find_affected(rep, d, row, brow) < 0)
			return -1;
		ret = relabel(rep, d, row);
		if (ret)
			return ret;
		rep->st->dests += rep->naff > 0;
		n = check_entries(rep, d, row);
		if (n < 0)
			return -1;
		/* cr-ftree's turns read every changed label */
		if (n || (rep->kind == K_FTREE && rep->naff)) {
			rep->rows[d] = row;
			row = NULL;
		}
	}
	free(row);
	return 0;
}

static int cmp_todo(const void *pa, const void *pb)
{
	const struct todo *ta = pa, *tb = pb;

	if (ta->pos != tb->pos)
		return ta->pos < tb->pos ? -1 : 1;
	if (ta->lid != tb->lid)
		return ta->lid < tb->lid ? -1 : 1;
	return ta->sw < tb->sw ? -1 : ta->sw > tb->sw;
}

/*
 * The routes a switch keeps weigh on its picks, as in a full run: the
 * base's counts less the entries cleared. With lc (incr_counted_lids()), the
 * switch is also counted from its row, which must agree (-1 when not).
 */
static int seed_counts(struct incr_repair *rep, struct cr_portsel *ps,
		       uint32_t w, const uint32_t *lc)
{
	const struct cr_fabric *f = rep->f;
	uint32_t wn = f->switches[w];
	const uint32_t *bc =
		rep->base->cnt + (size_t)rep->sw2o[w] * rep->base->stride;
	const int32_t *dc = rep->delta + (size_t)w * rep->base->stride;
	unsigned np = f->nodes[wn].num_ports;
	uint32_t cnt[CR_MAX_PORTS + 1] = {0};

	if (lc)
		incr_count_row(f, lc, w, rep->r->lft[wn], cnt);
	for (unsigned p = 1; p <= np; p++) {
		int64_t n = (int64_t)bc[p] + dc[p];

		if (n < 0 || (lc && n != cnt[p])) {
			cr_err("incremental: switch index %u port %u counts %" PRId64
			       " routes, its table %u",
			       w, p, n, cnt[p]);
			return -1;
		}
		if (n)
			cr_portsel_add_count(ps, wn, p, (uint32_t)n);
	}
	return 0;
}

int incr_pick_again(struct incr_repair *rep, const struct cr_options *o)
{
	const struct cr_fabric *f = rep->f;
	struct cr_portsel *ps;
	bool *seeded = calloc(rep->ns + 1, sizeof(*seeded));
	uint32_t *lc = NULL;
	uint16_t last_lid = 0;
	unsigned nseeded = 0;
	int ret = -1;

	ps = cr_portsel_new(f, o, rep->r);
	if (!ps || !seeded)
		goto out;
	if (rep->kind == K_FTREE)
		ft_incr_order_ports(&rep->ft, ps);
	if (rep->ntodo) /* todo is NULL when nothing is left to re-pick */
		qsort(rep->todo, rep->ntodo, sizeof(*rep->todo), cmp_todo);
	for (size_t i = 0; i < rep->ntodo; i++) {
		const struct todo *t = &rep->todo[i];
		uint32_t w = t->sw, wn = f->switches[w];
		uint32_t d = rep->lid_dsw[t->lid];
		const uint8_t *row = rep->rows[d];
		uint8_t cands[CR_MAX_PORTS];
		unsigned nc = 0, flags = CR_PS_SPREAD | CR_PS_SORTED;

		if (!seeded[w]) {
			/* The first few switches are checked. */
			if (nseeded < 8 && !lc &&
			    !(lc = incr_counted_lids(f))) {
				cr_err("incremental: out of memory");
				goto out;
			}
			if (seed_counts(rep, ps, w, nseeded++ < 8 ? lc : NULL))
				goto out;
			seeded[w] = true;
		}
		if (rep->kind == K_FTREE) {
			struct ft_dest dst;

			ft_dest_of(&rep->ft, d, t->lid, &rep->ftl[t->lid],
				   &dst);
			rep->r->lft[wn][t->lid] =
				ft_incr_pick(&rep->ft, ps, w, &dst, row);
			goto picked;
		}
		for (uint32_t k = rep->adj_start[w]; k < rep->adj_start[w + 1];
		     k++) {
			uint32_t y = rep->adj_sw[k];

			if (row[y] != LAB_NONE &&
			    step_ok(rep, w, row[w], y, row[y]))
				cands[nc++] = rep->adj_port[k];
		}
		if (!nc) {
			cr_err("incremental: no port left at switch index %u"
			       " toward LID %u",
			       w, t->lid);
			goto out;
		}
		cr_portsel_order(ps, wn, cands, nc);
		if (cr_is_switch(f, f->lid_node[t->lid]))
			flags |= CR_PS_NOCOUNT;
		if (cr_lid_is_base(f, t->lid))
			flags |= CR_PS_BASE;
		rep->r->lft[wn][t->lid] =
			cr_portsel_pick(ps, wn, cands, nc, t->lid, flags);
	picked:
		rep->churn += rep->r->lft[wn][t->lid] != t->old;
		rep->st->entries++;
		rep->st->lids += t->lid != last_lid;
		last_lid = t->lid;
	}
	ret = 0;
out:
	if (!ps)
		cr_err("incremental: out of memory");
	cr_portsel_free(ps);
	free(lc);
	free(seeded);
	return ret;
}

/*
 * Every entry chosen again, walked to its LID: each step one label closer,
 * arriving in the label's hop count (plus one for a CA). The entries the
 * walks cross were kept or checked; the others lead to them.
 */
int incr_verify(struct incr_repair *rep)
{
	const struct cr_fabric *f = rep->f;

	for (size_t i = 0; i < rep->ntodo; i++) {
		uint16_t lid = rep->todo[i].lid;
		uint32_t w = rep->todo[i].sw;
		const uint8_t *row = rep->rows[rep->lid_dsw[lid]];
		int extra = !cr_is_switch(f, f->lid_node[lid]);
		int h = cr_routing_hops(f, rep->r, f->switches[w], lid);
		int want = (int)LAB_DIST(row[w]) + extra;

		if (h != want) {
			cr_err("incremental: switch index %u reaches LID %u in"
			       " %d hops, not %d",
			       w, lid, h, want);
			return -1;
		}
	}
	return 0;
}
