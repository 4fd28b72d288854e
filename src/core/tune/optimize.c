// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The improvement pass: local search on an engine's LFTs, judged by the
 * contention estimator.
 *
 * Algorithm. A load model says where to look: every (host, host LID) pair
 * routed (all-to-all, what shift sweeps over its phases) gives each
 * directed switch link a load; for one LID the routes form an in-tree, so
 * the sources crossing switch w toward it are counted in O(switches). The
 * most loaded links (load over capacity) are taken in turn; for each LID
 * that leaves switch w by such a link, every other port of w whose path is
 * legal for the engine is a candidate move, ranked by how much it lowers
 * the sum of squared link utilisations. Moving LID l at w re-routes every
 * source whose route to l crosses w (the whole subtree), which the model
 * accounts exactly. The best-ranked untried moves are applied one at a
 * time and kept only when the objective (cr_objective_score(), the same
 * estimate cr-auto ranks by) is strictly better; a rejected move is undone
 * and not tried again until another move is kept. The pass ends when no
 * candidate is left on the hottest links, after CR_OPT_MAX_EVALS
 * estimates, or when the budget is spent.
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
 *   cr-lash: every kept move is followed by cr_check on the SLs; one that
 *   would close a cycle in a layer is undone (layers are not reassigned).
 *   Other engines: a kept move that adds a credit loop is undone too when
 *   the start had none.
 * Guarantees. The objective never decreases (moves are kept only when it
 * improves); after the pass, cr_check must find no more unreachable pairs,
 * loops or credit loops than before, else every move is undone. The order
 * of everything is fixed (ties by switch, LID, port), so the result
 * depends only on the inputs, unless the budget stops the pass (logged).
 *
 * Cost: the load model O(host LIDs x switches), then per estimate the
 * objective's cost (the pass makes at most CR_OPT_MAX_EVALS of them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/check.h>
#include <croute/estimate.h>
#include <croute/log.h>
#include <croute/optimize.h>

#define NONE UINT32_MAX
#define HOT_LINKS 4 /* links whose candidates are gathered a round */
#define MAX_BATCH 256 /* moves estimated at once, at most */

enum legality { LEG_MINIMAL, LEG_UPDN };

struct move {
	uint32_t sw; /* node */
	uint16_t lid;
	uint8_t from, to;
	double delta; /* change of the squared utilisations */
};

struct opt {
	const struct cr_fabric *f;
	struct cr_routing *r;
	const struct cr_objective *obj;
	enum legality leg;
	bool check_credit; /* cr_check after each kept move */
	unsigned extra;
	uint64_t credit0;
	uint32_t ns;
	uint32_t *base; /* node -> first link id */
	uint32_t nlinks;
	double *cap; /* Gb/s; 0: not a switch-to-switch link */
	double *load;
	double *scratch;
	uint32_t *link_node; /* link -> node */
	uint16_t *lids; /* host LIDs */
	uint32_t nlids;
	uint32_t *hosts_at; /* switch index -> hosts cabled to it */
	uint8_t **dist; /* switch index -> BFS hops to it, lazily */
	/* one LID's in-tree */
	uint32_t *nh, *through, *rd, *stack, *bucket;
	uint32_t *stamp, gen;
	/* up/down */
	uint64_t *key;
	/* walks */
	uint32_t *path_a, *path_b, *sws;
	/* moves */
	struct move *cand;
	size_t ncand, cand_alloc;
	struct move *kept;
	size_t nkept, kept_alloc;
	uint64_t *tried;
	size_t tried_size, ntried;
	uint8_t *exhausted; /* per link */
	struct cr_hosts *hosts;
	double *score, *trial;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void cr_opt_params_init(struct cr_opt_params *p)
{
	memset(p, 0, sizeof(*p));
	p->budget = CR_OPT_BUDGET_DEFAULT;
}

static uint32_t sw_of(const struct opt *o, uint32_t node)
{
	return o->f->nodes[node].sw_index;
}

/* BFS hop distances of every switch to switch index d (cached). */
static const uint8_t *dist_to(struct opt *o, uint32_t d)
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
 * The in-tree of lid: nh[s] the next switch index (NONE: delivers or no
 * path), through[s] the sources whose route crosses s.
 */
static void lid_tree(struct opt *o, uint16_t lid, uint32_t dsw)
{
	const struct cr_fabric *f = o->f;
	uint32_t maxd = 0, dst_node = f->lid_node[lid];

	for (uint32_t s = 0; s < o->ns; s++) {
		uint32_t n = f->switches[s];
		uint8_t p = o->r->lft[n] ? o->r->lft[n][lid] : CR_NO_PATH;
		uint32_t m;

		o->nh[s] = NONE;
		o->rd[s] = NONE;
		o->through[s] = o->hosts_at[s];
		if (s == dsw || p == CR_NO_PATH || p == 0 ||
		    p > f->nodes[n].num_ports)
			continue;
		m = cr_remote(f, n, p);
		if (m != CR_NO_NODE && cr_is_switch(f, m))
			o->nh[s] = sw_of(o, m);
	}
	/* the destination does not send to itself */
	if (dst_node != CR_NO_NODE && !cr_is_switch(f, dst_node) &&
	    o->through[dsw])
		o->through[dsw]--;
	/* routed distances, memoised; a loop leaves its switches NONE */
	o->rd[dsw] = 0;
	for (uint32_t s = 0; s < o->ns; s++) {
		uint32_t top = 0, v = s, d;

		while (o->rd[v] == NONE && o->nh[v] != NONE && top < o->ns) {
			o->stack[top++] = v;
			v = o->nh[v];
		}
		d = o->rd[v];
		while (top) {
			v = o->stack[--top];
			o->rd[v] = d == NONE ? NONE : ++d;
			if (d != NONE && d > maxd)
				maxd = d;
		}
	}
	/* farthest first: a subtree is counted before its parent */
	memset(o->bucket, 0, (maxd + 2) * sizeof(uint32_t));
	for (uint32_t s = 0; s < o->ns; s++)
		if (o->rd[s] != NONE)
			o->bucket[o->rd[s]]++;
	for (uint32_t d = maxd; d > 0; d--)
		o->bucket[d - 1] += o->bucket[d];
	for (uint32_t s = 0; s < o->ns; s++)
		if (o->rd[s] != NONE)
			o->stack[--o->bucket[o->rd[s]]] = s;
	/* stack now holds the switches by decreasing distance */
	for (uint32_t i = 0; i < o->ns; i++) {
		uint32_t s = o->stack[i];

		if (o->rd[s] == NONE || o->rd[s] == 0)
			break;
		o->through[o->nh[s]] += o->through[s];
	}
}

/*
 * Walks from switch node w out of port p toward lid: the switch-to-switch
 * links into links[], the switch indices (w first) into sws[]. The hop
 * count, or -1 when it does not arrive at dsw or revisits a switch.
 */
static int walk(struct opt *o, uint32_t w, unsigned p, uint16_t lid,
		uint32_t dsw, uint32_t *links, uint32_t *sws)
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
		links[len++] = o->base[n] + p;
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

static bool updn_all_down(const struct opt *o, const uint32_t *sws, int len)
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
static int updn_keys(struct opt *o)
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
	for (uint32_t i = 0; i < o->r->num_roots; i++) {
		uint32_t s = sw_of(o, o->r->roots[i]);

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

/* ---- the load model --------------------------------------------------- */

static int model_init(struct opt *o)
{
	const struct cr_fabric *f = o->f;
	uint64_t links = 0;

	o->ns = f->num_switches;
	o->base = malloc((f->num_nodes + 1) * sizeof(*o->base));
	if (!o->base)
		return -1;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		o->base[n] = (uint32_t)links;
		links += f->nodes[n].num_ports + 1;
	}
	o->nlinks = (uint32_t)links;
	o->cap = calloc(links + 1, sizeof(double));
	o->load = calloc(links + 1, sizeof(double));
	o->scratch = calloc(links + 1, sizeof(double));
	o->link_node = malloc((links + 1) * sizeof(uint32_t));
	o->exhausted = calloc(links + 1, 1);
	o->hosts_at = calloc(o->ns + 1, sizeof(uint32_t));
	o->dist = calloc(o->ns + 1, sizeof(*o->dist));
	o->nh = malloc((o->ns + 1) * sizeof(uint32_t));
	o->through = malloc((o->ns + 1) * sizeof(uint32_t));
	o->rd = malloc((o->ns + 1) * sizeof(uint32_t));
	o->stack = malloc((o->ns + 1) * sizeof(uint32_t));
	o->bucket = malloc((o->ns + 258) * sizeof(uint32_t));
	o->stamp = calloc(o->ns + 1, sizeof(uint32_t));
	o->path_a = malloc((o->ns + 1) * sizeof(uint32_t));
	o->path_b = malloc((o->ns + 1) * sizeof(uint32_t));
	o->sws = malloc((o->ns + 2) * sizeof(uint32_t));
	o->lids = malloc((o->hosts->count + 1) * sizeof(uint16_t));
	if (!o->cap || !o->load || !o->scratch || !o->link_node ||
	    !o->exhausted || !o->hosts_at || !o->dist || !o->nh ||
	    !o->through || !o->rd || !o->stack || !o->bucket || !o->stamp ||
	    !o->path_a || !o->path_b || !o->sws || !o->lids)
		return -1;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
			o->link_node[o->base[n] + p] = n;
		if (!cr_is_switch(f, n))
			continue;
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t m = cr_remote(f, n, p);
			const struct cr_port *a = &f->nodes[n].ports[p], *b;
			uint32_t ra, rb;

			if (m == CR_NO_NODE || !cr_is_switch(f, m) || m == n)
				continue;
			b = &f->nodes[m].ports[a->remote_port];
			ra = cr_link_rate_mbps(a->width, a->speed);
			rb = cr_link_rate_mbps(b->width, b->speed);
			/* unknown rates count as one unit: only ratios matter */
			o->cap[o->base[n] + p] = (!ra	    ? rb
						  : !rb	    ? ra
						  : ra < rb ? ra
							    : rb) /
						 1e3;
			if (o->cap[o->base[n] + p] <= 0)
				o->cap[o->base[n] + p] = 1;
		}
	}
	for (uint32_t i = 0; i < o->hosts->count; i++) {
		const struct cr_endpoint *ep = &o->hosts->ep[i];
		uint32_t s = cr_remote(f, ep->node, ep->port);

		if (s != CR_NO_NODE && cr_is_switch(f, s))
			o->hosts_at[sw_of(o, s)]++;
		if (ep->lid && ep->lid <= o->r->max_lid &&
		    cr_lid_switch(f, ep->lid, NULL) != CR_NO_NODE)
			o->lids[o->nlids++] = ep->lid;
	}
	for (uint32_t i = 0; i < o->nlids; i++) {
		uint16_t lid = o->lids[i];
		uint32_t dsw = sw_of(o, cr_lid_switch(f, lid, NULL));

		lid_tree(o, lid, dsw);
		for (uint32_t s = 0; s < o->ns; s++)
			if (o->nh[s] != NONE && o->through[s])
				o->load[o->base[f->switches[s]] +
					o->r->lft[f->switches[s]][lid]] +=
					o->through[s];
	}
	return 0;
}

static double util2(const struct opt *o, uint32_t l, double load)
{
	double u = load / o->cap[l];

	return u * u;
}

/* The change of sum (load/cap)^2 when c sources leave a for b. */
static double move_delta(struct opt *o, const uint32_t *a, int na,
			 const uint32_t *b, int nb, double c)
{
	double d = 0;

	for (int i = 0; i < na; i++)
		o->scratch[a[i]] -= c;
	for (int i = 0; i < nb; i++)
		o->scratch[b[i]] += c;
	for (int i = 0; i < na; i++) {
		uint32_t l = a[i];

		if (o->scratch[l] == 0)
			continue;
		d += util2(o, l, o->load[l] + o->scratch[l]) -
		     util2(o, l, o->load[l]);
		o->scratch[l] = 0;
	}
	for (int i = 0; i < nb; i++) {
		uint32_t l = b[i];

		if (o->scratch[l] == 0)
			continue;
		d += util2(o, l, o->load[l] + o->scratch[l]) -
		     util2(o, l, o->load[l]);
		o->scratch[l] = 0;
	}
	return d;
}

/* ---- tried moves: a set of (switch, LID, port) ------------------------ */

static uint64_t move_key(const struct move *m)
{
	return (uint64_t)m->sw << 24 | (uint64_t)m->lid << 8 | m->to;
}

static bool tried_has(const struct opt *o, uint64_t k)
{
	size_t h;

	if (!o->tried_size)
		return false;
	h = (size_t)((k + 1) * 0x9e3779b97f4a7c15ULL >> 11) % o->tried_size;
	while (o->tried[h]) {
		if (o->tried[h] == k + 1)
			return true;
		h = (h + 1) % o->tried_size;
	}
	return false;
}

static int tried_add(struct opt *o, uint64_t k)
{
	size_t h;

	if (2 * (o->ntried + 1) > o->tried_size) {
		size_t old = o->tried_size, ns = old ? 2 * old : 1024;
		uint64_t *t = calloc(ns, sizeof(*t)), *prev = o->tried;

		if (!t)
			return -1;
		o->tried = t;
		o->tried_size = ns;
		o->ntried = 0;
		for (size_t i = 0; i < old; i++)
			if (prev[i])
				tried_add(o, prev[i] - 1);
		free(prev);
	}
	h = (size_t)((k + 1) * 0x9e3779b97f4a7c15ULL >> 11) % o->tried_size;
	while (o->tried[h])
		h = (h + 1) % o->tried_size;
	o->tried[h] = k + 1;
	o->ntried++;
	return 0;
}

static void tried_clear(struct opt *o)
{
	if (o->tried)
		memset(o->tried, 0, o->tried_size * sizeof(*o->tried));
	o->ntried = 0;
}

/* ---- candidates ------------------------------------------------------- */

static int cand_push(struct opt *o, const struct move *m)
{
	if (o->ncand == o->cand_alloc) {
		size_t na = o->cand_alloc ? 2 * o->cand_alloc : 256;
		struct move *g = realloc(o->cand, na * sizeof(*g));

		if (!g)
			return -1;
		o->cand = g;
		o->cand_alloc = na;
	}
	o->cand[o->ncand++] = *m;
	return 0;
}

static int cmp_move(const void *a, const void *b)
{
	const struct move *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta < y->delta ? -1 : 1;
	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Every legal, untried move of the LIDs leaving by link l. */
static int gather(struct opt *o, uint32_t l, unsigned *found)
{
	const struct cr_fabric *f = o->f;
	uint32_t w = o->link_node[l];
	unsigned p = l - o->base[w];

	*found = 0;
	for (uint32_t i = 0; i < o->nlids; i++) {
		uint16_t lid = o->lids[i];
		uint32_t dsw = sw_of(o, cr_lid_switch(f, lid, NULL));
		const uint8_t *dist;
		int na, nb;
		bool all_down = false;
		double c;

		if (o->r->lft[w][lid] != p)
			continue;
		dist = dist_to(o, dsw);
		if (!dist)
			return -1;
		na = walk(o, w, p, lid, dsw, o->path_a, o->sws);
		if (na < 0)
			continue;
		if (o->leg == LEG_UPDN)
			all_down = updn_all_down(o, o->sws, na);
		lid_tree(o, lid, dsw);
		c = o->through[sw_of(o, w)];
		if (!c)
			continue;
		for (unsigned q = 1; q <= f->nodes[w].num_ports; q++) {
			struct move m = {.sw = w,
					 .lid = lid,
					 .from = (uint8_t)p,
					 .to = (uint8_t)q};
			uint32_t v = cr_remote(f, w, q);

			if (q == p || v == CR_NO_NODE || !cr_is_switch(f, v) ||
			    o->cap[o->base[w] + q] <= 0)
				continue;
			if (o->leg == LEG_MINIMAL && !o->extra &&
			    dist[sw_of(o, v)] + 1 != dist[sw_of(o, w)])
				continue;
			if (tried_has(o, move_key(&m)))
				continue;
			nb = walk(o, w, q, lid, dsw, o->path_b, o->sws);
			if (nb < 0)
				continue;
			if (o->leg == LEG_MINIMAL &&
			    nb > dist[sw_of(o, w)] + (int)o->extra)
				continue;
			if (o->leg == LEG_UPDN &&
			    (nb > na + (int)o->extra ||
			     !updn_ok(o, o->sws, nb, all_down)))
				continue;
			m.delta =
				move_delta(o, o->path_a, na, o->path_b, nb, c);
			if (m.delta >= -1e-12)
				continue;
			if (cand_push(o, &m))
				return -1;
			(*found)++;
		}
	}
	return 0;
}

/* Applies m (or its inverse), keeping the load model exact. */
static void apply(struct opt *o, const struct move *m, bool undo)
{
	const struct cr_fabric *f = o->f;
	uint32_t dsw = sw_of(o, cr_lid_switch(f, m->lid, NULL));
	uint8_t from = undo ? m->to : m->from, to = undo ? m->from : m->to;
	int na, nb;
	double c;

	lid_tree(o, m->lid, dsw);
	c = o->through[sw_of(o, m->sw)];
	na = walk(o, m->sw, from, m->lid, dsw, o->path_a, o->sws);
	o->r->lft[m->sw][m->lid] = to;
	nb = walk(o, m->sw, to, m->lid, dsw, o->path_b, o->sws);
	for (int i = 0; i < na; i++)
		o->load[o->path_a[i]] -= c;
	for (int i = 0; i < nb; i++)
		o->load[o->path_b[i]] += c;
}

static int check_counts(const struct cr_fabric *f, const struct cr_routing *r,
			struct cr_check_report *rep)
{
	return cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, rep);
}

static int keep(struct opt *o, const struct move *m)
{
	if (o->nkept == o->kept_alloc) {
		size_t na = o->kept_alloc ? 2 * o->kept_alloc : 64;
		struct move *g = realloc(o->kept, na * sizeof(*g));

		if (!g)
			return -1;
		o->kept = g;
		o->kept_alloc = na;
	}
	o->kept[o->nkept++] = *m;
	return 0;
}

static void opt_free(struct opt *o)
{
	free(o->base);
	free(o->cap);
	free(o->load);
	free(o->scratch);
	free(o->link_node);
	free(o->exhausted);
	free(o->hosts_at);
	for (uint32_t s = 0; o->dist && s < o->ns; s++)
		free(o->dist[s]);
	free(o->dist);
	free(o->nh);
	free(o->through);
	free(o->rd);
	free(o->stack);
	free(o->bucket);
	free(o->stamp);
	free(o->path_a);
	free(o->path_b);
	free(o->sws);
	free(o->lids);
	free(o->key);
	free(o->cand);
	free(o->kept);
	free(o->tried);
	free(o->score);
	free(o->trial);
	cr_hosts_free(o->hosts);
}

/* The hottest link (load / capacity) not exhausted; NONE when none. */
static uint32_t hottest(const struct opt *o, const uint32_t *skip,
			unsigned nskip)
{
	uint32_t best = NONE;
	double bu = 0;

	for (uint32_t l = 0; l < o->nlinks; l++) {
		double u;
		bool s = false;

		if (o->cap[l] <= 0 || o->exhausted[l] || o->load[l] <= 0)
			continue;
		for (unsigned i = 0; i < nskip; i++)
			s |= skip[i] == l;
		if (s)
			continue;
		u = o->load[l] / o->cap[l];
		if (u > bu) {
			bu = u;
			best = l;
		}
	}
	return best;
}

/*
 * The model's best untried move on the hottest links; m zeroed when
 * there is none. Links without candidates are set aside until a batch is
 * kept.
 */
static int best_move(struct opt *o, struct move *m)
{
	uint32_t hot[HOT_LINKS];
	unsigned nhot = 0;

	memset(m, 0, sizeof(*m));
	o->ncand = 0;
	while (nhot < HOT_LINKS) {
		uint32_t l = hottest(o, hot, nhot);
		unsigned found;

		if (l == NONE)
			break;
		if (gather(o, l, &found))
			return -1;
		if (!found) {
			o->exhausted[l] = 1;
			continue;
		}
		hot[nhot++] = l;
	}
	if (!o->ncand)
		return 0;
	qsort(o->cand, o->ncand, sizeof(*o->cand), cmp_move);
	*m = o->cand[0];
	return 0;
}

static bool engine_is(const struct cr_engine *e, const char *name)
{
	return e && !strcmp(e->name, name);
}

int cr_optimize(const struct cr_fabric *f, const struct cr_engine *e,
		const struct cr_objective *obj, const struct cr_opt_params *p,
		struct cr_routing *r, struct cr_opt_stats *st)
{
	struct cr_opt_params par;
	struct cr_opt_stats s = {0};
	struct cr_check_report rep0, rep1;
	struct opt o = {.f = f, .r = r, .obj = obj};
	double t0 = now_s(), budget;
	unsigned max_evals, batch = 16;
	int ret = -1;

	if (p)
		par = *p;
	else
		cr_opt_params_init(&par);
	budget = par.budget > 0 ? par.budget : CR_OPT_BUDGET_DEFAULT;
	max_evals = par.max_evals ? par.max_evals : CR_OPT_MAX_EVALS;
	o.leg = engine_is(e, "updn") ? LEG_UPDN : LEG_MINIMAL;
	/* longer paths only where the engine's guarantee allows them */
	o.extra = engine_is(e, "minhop") || engine_is(e, "updn")
			  ? par.max_extra_hops
			  : 0;
	o.check_credit = !engine_is(e, "updn");
	if (o.leg == LEG_UPDN && !r->num_roots) {
		cr_info("optimize: cr-%s left no roots: nothing to move",
			e->name);
		ret = 0;
		goto out;
	}
	o.hosts = cr_hosts_for(f, r, NULL);
	o.score = calloc(obj->num_terms + 1, sizeof(double));
	o.trial = calloc(obj->num_terms + 1, sizeof(double));
	if (!o.hosts || !o.score || !o.trial)
		goto oom;
	if (o.hosts->count < 2) {
		ret = 0;
		goto out;
	}
	if (cr_objective_score(f, r, obj, o.hosts, o.score))
		goto out;
	s.evals = 1;
	s.before = s.after = o.score[0];
	if (o.score[0] >= 1 - 1e-12) {
		/* every flow at its injection rate: nothing to gain (and no
		 * check to pay for, which on large fabrics is the cost) */
		ret = 0;
		goto done;
	}
	if (check_counts(f, r, &rep0))
		goto out;
	o.credit0 = rep0.credit_loops;
	if (model_init(&o) || (o.leg == LEG_UPDN && updn_keys(&o)))
		goto oom;
	for (;;) {
		size_t first = o.nkept;
		unsigned made = 0;
		int cmp;

		if (s.evals >= max_evals)
			break;
		if (now_s() - t0 >= budget) {
			s.budget_hit = true;
			break;
		}
		/*
		 * A batch: the model's best move on the hottest links, again
		 * and again on the updated loads (each lowers the squared
		 * utilisations, so the batch cannot cycle), then one
		 * estimate for all of it.
		 */
		while (made < batch) {
			struct move m;

			if (best_move(&o, &m))
				goto oom;
			if (!m.sw && !m.lid)
				break;
			apply(&o, &m, false);
			if (keep(&o, &m))
				goto oom;
			made++;
		}
		if (!made)
			break; /* converged: nothing left on the hot links */
		if (cr_objective_score(f, r, obj, o.hosts, o.trial))
			goto undo;
		s.evals++;
		cmp = cr_objective_cmp(o.trial, o.score, obj->num_terms);
		if (cmp > 0 && o.check_credit) {
			if (check_counts(f, r, &rep1))
				goto undo;
			if (rep1.credit_loops > o.credit0)
				cmp = 0;
		}
		if (cmp > 0) {
			memcpy(o.score, o.trial,
			       obj->num_terms * sizeof(*o.score));
			/* the loads moved: everything may be worth a try */
			tried_clear(&o);
			memset(o.exhausted, 0, o.nlinks);
			if (batch < MAX_BATCH)
				batch *= 2;
			continue;
		}
		/* undo the batch; a single move that failed is not retried */
		while (o.nkept > first)
			apply(&o, &o.kept[--o.nkept], true);
		if (made == 1) {
			struct move m = o.kept[first];

			if (tried_add(&o, move_key(&m)))
				goto oom;
		} else {
			batch = made / 2;
		}
	}
	s.after = o.score[0];
	s.moves = (unsigned)o.nkept;
	if (o.nkept) {
		if (check_counts(f, r, &rep1))
			goto undo;
		if (rep1.unreachable > rep0.unreachable ||
		    rep1.loops > rep0.loops ||
		    rep1.credit_loops > rep0.credit_loops) {
			cr_err("optimize: cr_check found more problems after"
			       " the pass (unreachable %llu, loops %llu,"
			       " credit loops %llu); every move undone",
			       (unsigned long long)rep1.unreachable,
			       (unsigned long long)rep1.loops,
			       (unsigned long long)rep1.credit_loops);
			for (size_t i = o.nkept; i-- > 0;)
				o.r->lft[o.kept[i].sw][o.kept[i].lid] =
					o.kept[i].from;
			s.reverted = true;
			s.after = s.before;
			s.moves = 0;
		}
	}
done:
	s.seconds = now_s() - t0;
	cr_info("optimize: cr-%s %s%s %.4f -> %.4f (%+.1f%%), %u move%s kept"
		" of %u estimates, %.2f s%s",
		e ? e->name : "?", cr_pattern_kind_name(obj->terms[0].pat.kind),
		obj->terms[0].stat == CR_STAT_MIN ? ":min" : ":avg", s.before,
		s.after,
		s.before > 0 ? 100 * (s.after - s.before) / s.before : 0.0,
		s.moves, s.moves == 1 ? "" : "s", s.evals, s.seconds,
		s.budget_hit ? " (stopped by the budget: a rerun may differ)"
			     : "");
	ret = 0;
	goto out;
oom:
	cr_err("optimize: out of memory");
undo:
	/* an error: r as it came */
	for (size_t i = o.nkept; i-- > 0;)
		o.r->lft[o.kept[i].sw][o.kept[i].lid] = o.kept[i].from;
	s.after = s.before;
	s.moves = 0;
out:
	if (st)
		*st = s;
	opt_free(&o);
	return ret;
}

int cr_optimize_hook(const struct cr_fabric *f, const struct cr_options *o,
		     const struct cr_engine *e, const struct cr_objective *obj,
		     struct cr_routing *r, void *arg)
{
	return cr_optimize(f, e, obj, arg, r, NULL);
}
