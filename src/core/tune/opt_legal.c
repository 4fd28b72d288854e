// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which moves the improvement pass (optimize.c) may keep: a new path must
 * keep the guarantees of the engine that routed, so that the tables stay
 * ones it could have given.
 *
 * Legality, per engine, of the new path from w (followed through the
 * LFTs, which must arrive at the LID's switch without revisiting one):
 *   cr-minhop, cr-lash, cr-ftree: as long as the shortest path (hop
 *   distances by BFS), so every route stays minimal (on trees, minimal
 *   paths are the tree's up-then-down paths); cr-minhop may take
 *   max_extra_hops more.
 *   cr-updn: up*-down* under the key order cr-updn uses (BFS rank from its
 *   roots, node GUID, index): no up hop after a down hop, and all-down
 *   when w's present route is all-down (a packet may have entered w from
 *   above), no longer than the present route plus max_extra_hops.
 *   cr-lash and every routing without credit loops at the start (but
 *   cr-updn, whose rule excludes them): a move is kept only when it
 *   closes no cycle in the channel dependency graph of any VL, as cr_check
 *   builds it on the path SLs (opt_cdg.c keeps the graphs with counts and
 *   searches from the dependencies a move adds). For cr-lash, a move that
 *   would close one is kept when moving every source switch whose route
 *   now crosses the moved entry into one other layer in use (SLs in
 *   order) closes none: those sources' SLs change; with keep_sls it is
 *   refused, so that no path's SL moves.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>

#include "opt_cdg.h"
#include "opt_int.h"

/* BFS hop distances of every switch to switch index d (cached). */
const uint8_t *opt_dist_to(struct opt *o, uint32_t d)
{
	const struct cr_fabric *f = o->f;
	uint8_t *dist;
	uint32_t head = 0, tail = 0;

	if (o->dist[d])
		return o->dist[d];
	dist = malloc(o->ns);
	if (!dist)
		return NULL;
	memset(dist, 255, o->ns);
	dist[d] = 0;
	o->stack[tail++] = d;
	while (head < tail) {
		uint32_t s = o->stack[head++], n = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t m = cr_remote(f, n, p);

			if (m == CR_NO_NODE || !cr_is_switch(f, m) ||
			    dist[sw_of(o, m)] != 255 || dist[s] >= 254)
				continue;
			dist[sw_of(o, m)] = dist[s] + 1;
			o->stack[tail++] = sw_of(o, m);
		}
	}
	o->dist[d] = dist;
	return dist;
}

/*
 * Walks from switch node w out of port p toward lid: the switch indices
 * (w first) into sws[]. The hop count, or -1 when it does not arrive at
 * dsw or revisits a switch.
 */
int opt_walk(struct opt *o, uint32_t w, unsigned p, uint16_t lid, uint32_t dsw,
	     uint32_t *sws)
{
	const struct cr_fabric *f = o->f;
	uint32_t n = w;
	int len = 0;

	if (++o->gen == 0) {
		memset(o->stamp, 0, o->ns * sizeof(*o->stamp));
		o->gen = 1;
	}
	sws[0] = sw_of(o, w);
	o->stamp[sws[0]] = o->gen;
	while (sw_of(o, n) != dsw) {
		uint32_t m;

		if (!p || p == CR_NO_PATH || p > f->nodes[n].num_ports)
			return -1;
		m = cr_remote(f, n, p);
		if (m == CR_NO_NODE || !cr_is_switch(f, m))
			return -1;
		len++;
		if (o->stamp[sw_of(o, m)] == o->gen)
			return -1;
		o->stamp[sw_of(o, m)] = o->gen;
		sws[len] = sw_of(o, m);
		n = m;
		if (!o->r->lft[n])
			return -1;
		p = o->r->lft[n][lid];
	}
	return len;
}

/* up*-down*: no up hop (to a smaller key) after a down hop. */
static bool updn_ok(const struct opt *o, const uint32_t *sws, int len,
		    bool all_down)
{
	bool down = all_down;

	for (int i = 0; i < len; i++) {
		bool up = o->key[sws[i + 1]] < o->key[sws[i]];

		if (up && down)
			return false;
		if (!up)
			down = true;
	}
	return true;
}

bool opt_updn_all_down(const struct opt *o, const uint32_t *sws, int len)
{
	for (int i = 0; i < len; i++)
		if (o->key[sws[i + 1]] < o->key[sws[i]])
			return false;
	return true;
}

/*
 * Ranks switches for up/down as cr-updn does: BFS rank from its roots,
 * then node GUID, then index; a smaller key is "up".
 */
int opt_updn_keys(struct opt *o)
{
	const struct cr_fabric *f = o->f;
	uint32_t *rank = malloc((o->ns + 1) * sizeof(*rank));
	uint32_t head = 0, tail = 0;

	o->key = malloc((o->ns + 1) * sizeof(*o->key));
	if (!rank || !o->key) {
		free(rank);
		return -1;
	}
	for (uint32_t s = 0; s < o->ns; s++)
		rank[s] = NONE;
	for (uint32_t i = 0; i < o->by->num_roots; i++) {
		uint32_t s = sw_of(o, o->by->roots[i]);

		if (rank[s] == NONE) {
			rank[s] = 0;
			o->stack[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t s = o->stack[head++], n = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t m = cr_remote(f, n, p);

			if (m == CR_NO_NODE || !cr_is_switch(f, m) ||
			    rank[sw_of(o, m)] != NONE)
				continue;
			rank[sw_of(o, m)] = rank[s] + 1;
			o->stack[tail++] = sw_of(o, m);
		}
	}
	/* sort index: (rank, GUID, index) as one 64-bit order via ranks */
	for (uint32_t s = 0; s < o->ns; s++)
		o->stack[s] = s;
	for (uint32_t i = 1; i < o->ns; i++) {
		uint32_t v = o->stack[i], j = i;

		while (j) {
			uint32_t u = o->stack[j - 1];
			uint64_t gu = f->nodes[f->switches[u]].guid;
			uint64_t gv = f->nodes[f->switches[v]].guid;

			if (rank[u] < rank[v] ||
			    (rank[u] == rank[v] &&
			     (gu < gv || (gu == gv && u < v))))
				break;
			o->stack[j] = u;
			j--;
		}
		o->stack[j] = v;
	}
	for (uint32_t i = 0; i < o->ns; i++)
		o->key[o->stack[i]] = i;
	free(rank);
	return 0;
}

int opt_entry_at(struct opt *o, uint32_t w, uint16_t lid, struct opt_entry *e)
{
	const struct cr_fabric *f = o->f;
	uint8_t p = o->r->lft[w][lid];

	*e = (struct opt_entry){.w = w, .lid = lid};
	e->dsw = sw_of(o, cr_lid_switch(f, lid, NULL));
	if (sw_of(o, w) == e->dsw || !p || p > f->nodes[w].num_ports)
		return 0;
	e->dist = opt_dist_to(o, e->dsw);
	if (!e->dist)
		return -1;
	e->na = opt_walk(o, w, p, lid, e->dsw, o->sws);
	if (e->na < 0)
		return 0;
	if (o->leg == LEG_UPDN)
		e->all_down = opt_updn_all_down(o, o->sws, e->na);
	return 1;
}

/* Is the new path of entry e from its switch by port q legal? */
bool opt_legal(struct opt *o, const struct opt_entry *e, unsigned q)
{
	const struct cr_fabric *f = o->f;
	uint32_t w = e->w, v = cr_remote(f, w, q);
	int nb;

	if (v == CR_NO_NODE || !cr_is_switch(f, v))
		return false;
	if (o->leg == LEG_MINIMAL && !o->extra &&
	    e->dist[sw_of(o, v)] + 1 != e->dist[sw_of(o, w)])
		return false;
	nb = opt_walk(o, w, q, e->lid, e->dsw, o->sws);
	if (nb < 0)
		return false;
	if (o->leg == LEG_MINIMAL)
		return nb <= e->dist[sw_of(o, w)] + (int)o->extra;
	return nb <= e->na + (int)o->extra &&
	       updn_ok(o, o->sws, nb, e->all_down);
}

/* Does switch node s's route to lid cross switch node w? */
static bool crosses(struct opt *o, uint32_t s, uint16_t lid, uint32_t w)
{
	const struct cr_fabric *f = o->f;
	uint32_t n = s;

	for (uint32_t hops = 0; hops <= o->ns; hops++) {
		uint8_t p;
		uint32_t m;

		if (n == w)
			return true;
		if (!o->r->lft[n])
			return false;
		p = o->r->lft[n][lid];
		if (!p || p == CR_NO_PATH || p > f->nodes[n].num_ports)
			return false;
		m = cr_remote(f, n, p);
		if (m == CR_NO_NODE || !cr_is_switch(f, m))
			return false;
		n = m;
	}
	return false;
}

static int sl_log_add(struct opt *o, uint32_t sw, uint16_t lid, uint8_t from)
{
	if (cr_grow(&o->sl_log, &o->sl_log_alloc, o->nsl_log + 1,
		    sizeof(*o->sl_log)))
		return -1;
	o->sl_log[o->nsl_log++] =
		(struct sl_change){.sw = sw, .lid = lid, .from = from};
	return 0;
}

int opt_lids_cdg(struct opt *o, const uint16_t *lids, unsigned n, int sign)
{
	for (unsigned k = 0; k < n; k++)
		if (opt_cdg_lid(o->cdg, o->r, lids[k], sign))
			return -1;
	return 0;
}

/*
 * The entries (w, lids[0..n)) were changed in r after their dependencies
 * left the graphs: 1 when they close no credit loop (their dependencies
 * back in), else, for a layered routing, after moving every source whose
 * route now crosses w toward those LIDs into one layer where they close
 * none (the SLs in use, in order; the changes logged for undo); 0 when no
 * layer does (SLs as they were, the dependencies out), -1 on error.
 */
int opt_credit_ok(struct opt *o, uint32_t w, const uint16_t *lids, unsigned n)
{
	const struct cr_fabric *f = o->f;
	size_t nsrc = 0, mark = o->nsl_log;

	if (opt_lids_cdg(o, lids, n, 1))
		return -1;
	if (!opt_cdg_cycle(o->cdg))
		return 1;
	if (opt_lids_cdg(o, lids, n, -1))
		return -1;
	if (!o->r->sl || o->nsls < 2 || o->keep_sls)
		return 0;
	for (unsigned k = 0; k < n; k++)
		for (uint32_t i = 0; i < o->ns; i++) {
			uint32_t s = f->switches[i];

			if (o->r->sl[s] && crosses(o, s, lids[k], w))
				o->srcs[nsrc++] = s | (uint32_t)k << 24;
		}
	for (size_t i = 0; i < nsrc; i++) {
		uint32_t s = o->srcs[i] & 0xffffff;
		uint16_t lid = lids[o->srcs[i] >> 24];

		if (sl_log_add(o, s, lid, o->r->sl[s][lid]))
			return -1;
	}
	for (unsigned y = 0; y < o->nsls; y++) {
		for (size_t i = 0; i < nsrc; i++)
			o->r->sl[o->srcs[i] & 0xffffff]
				[lids[o->srcs[i] >> 24]] = o->sls[y];
		if (opt_lids_cdg(o, lids, n, 1))
			return -1;
		if (!opt_cdg_cycle(o->cdg)) {
			o->relayered++;
			return 1;
		}
		if (opt_lids_cdg(o, lids, n, -1))
			return -1;
	}
	while (o->nsl_log > mark) {
		struct sl_change *c = &o->sl_log[--o->nsl_log];

		o->r->sl[c->sw][c->lid] = c->from;
	}
	return 0;
}

/*
 * (w, lid2) is on port q and may take port p instead (a swap with lid)?
 * Only LIDs with credit at w are taken, at most SWAP_LIDS per port.
 */
bool opt_swap_ok(struct opt *o, uint32_t w, uint32_t li2, unsigned p)
{
	struct opt_entry e;

	return opt_entry_at(o, w, o->lids[li2], &e) > 0 && opt_legal(o, &e, p);
}
