// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Incremental re-routing for cr-minhop, cr-updn and cr-ftree
 * (doc/design.md, "Incremental re-routing"; ftree's labels and port rules
 * are in ftree_incr.c, and it is treated as updn with its ranks as the
 * order, plus its turns: fill_turns()).
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
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/buf.h>
#include <croute/check.h>
#include <croute/clock.h>
#include <croute/hops.h>
#include <croute/incremental.h>
#include <croute/log.h>
#include <croute/node_match.h>
#include <croute/parallel.h>
#include <croute/portsel.h>

#include "ft_incr.h"
#include "ftree_int.h"
#include "incr_lab.h"
#include "updn_int.h"

/* Labels of every (destination, switch): at most 64 MB. */
#define MAX_SWITCHES 8192

enum kind { K_NONE, K_MINHOP, K_UPDN, K_FTREE };

struct cr_incr_base {
	const struct cr_engine *e;
	enum kind kind;
	uint64_t digest;
	struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_byproducts by; /* updn: the roots */
	uint32_t ns;
	uint8_t *lab; /* [destination * ns + switch], switch indices */
	uint32_t *rank; /* updn, ftree: the ranks (ftree: UINT32_MAX none) */
	/* ftree: the leaves in CA order, by GUID */
	uint64_t *leaf_guid;
	uint32_t nleaves;
	/*
	 * ftree: the base's channel dependencies (check.c's graph, which a
	 * full run searched for credit loops): bit (y * stride + in port) *
	 * stride + out port of switch index y. NULL: not kept.
	 */
	uint8_t *cdg;
	/* Routes counted per switch port, as port selection counts them. */
	uint32_t *cnt; /* [switch * stride + port] */
	size_t stride;
	uint8_t *hops; /* cr_routing_hop_table's, once an install gave it */
	/*
	 * ftree: per destination switch, how many switches with a rank have
	 * no up/down path to it (turn entries), for a repair that does not
	 * visit them; NULL: not counted.
	 */
	uint32_t *nones;
	uint32_t turn; /* ftree: the turn leaf (switch index), CR_NO_NODE */
};

static enum kind engine_kind(const struct cr_engine *e)
{
	if (e && e == cr_engine_find("minhop"))
		return K_MINHOP;
	if (e && e == cr_engine_find("updn"))
		return K_UPDN;
	if (e && e == cr_engine_find("ftree"))
		return K_FTREE;
	return K_NONE;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t fnv_list(uint64_t h, const struct cr_guid_list *l)
{
	h = fnv(h, &l->count, sizeof(l->count));
	return l->count ? fnv(h, l->guids, l->count * sizeof(*l->guids)) : h;
}

uint64_t cr_options_digest(const struct cr_options *o)
{
	uint8_t flags[] = {o->port_shifting,	  o->remote_guid_sorting,
			   o->lash_start_vl,	  o->max_vls,
			   o->lash_balance,	  o->balance_global,
			   (uint8_t)o->updn_roots};
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, flags, sizeof(flags));
	h = fnv(h, &o->scatter_ports, sizeof(o->scatter_ports));
	h = fnv_list(h, &o->root_guids);
	h = fnv_list(h, &o->cn_guids);
	h = fnv_list(h, &o->io_guids);
	h = fnv_list(h, &o->guid_order);
	h = fnv(h, &o->num_port_orders, sizeof(o->num_port_orders));
	for (size_t i = 0; i < o->num_port_orders; i++) {
		const struct cr_port_order *po = &o->port_orders[i];

		h = fnv(h, &po->guid, sizeof(po->guid));
		h = fnv(h, &po->num, 1);
		h = fnv(h, po->ports, po->num);
	}
	return h;
}

void cr_incr_base_free(struct cr_incr_base *base)
{
	if (!base)
		return;
	cr_fabric_free(base->f);
	cr_routing_free(base->r);
	cr_byproducts_release(&base->by);
	free(base->lab);
	free(base->rank);
	free(base->leaf_guid);
	free(base->cdg);
	free(base->cnt);
	free(base->hops);
	free(base->nones);
	free(base);
}

const struct cr_fabric *cr_incr_base_fabric(const struct cr_incr_base *base)
{
	return base->f;
}

const struct cr_routing *cr_incr_base_routing(const struct cr_incr_base *base)
{
	return base->r;
}

void cr_incr_base_keep_hops(struct cr_incr_base *base, uint8_t *hops)
{
	free(base->hops);
	base->hops = hops;
}

const uint8_t *cr_incr_base_hops(const struct cr_incr_base *base)
{
	return base->hops;
}

struct label_job {
	const struct updn *u;
	uint8_t *lab;
	uint32_t ns;
	int too_long; /* set by any part: a label beyond LAB_MAX_DIST */
};

static int label_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	struct label_job *j = arg;
	uint32_t ns = j->ns;
	uint16_t *dist = malloc((ns + 1) * sizeof(*dist));
	uint8_t *mode = malloc(ns + 1);
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));
	int ret = -1;

	(void)part;
	(void)nparts;
	if (!dist || !mode || !queue)
		goto out;
	for (uint32_t d = begin; d < end; d++) {
		uint8_t *row = j->lab + (size_t)d * ns;

		cr_updn_label(j->u, d, dist, mode, queue);
		for (uint32_t w = 0; w < ns; w++) {
			if (dist[w] == CR_UPDN_NO_LABEL) {
				row[w] = LAB_NONE;
			} else if (dist[w] > LAB_MAX_DIST) {
				__atomic_store_n(&j->too_long, 1,
						 __ATOMIC_RELAXED);
				row[w] = LAB_NONE;
			} else {
				row[w] = LAB(dist[w], mode[w] == CR_UPDN_DOWN);
			}
		}
	}
	ret = 0;
out:
	free(dist);
	free(mode);
	free(queue);
	return ret;
}

/* cr-minhop's labels: one BFS per destination switch, in parallel. */
struct bfs_job {
	const struct cr_fabric *f;
	uint32_t *start, *adj;
	uint8_t *lab;
	uint32_t ns;
	int too_long;
};

static int bfs_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	struct bfs_job *j = arg;
	uint32_t *queue = malloc((j->ns + 1) * sizeof(*queue));

	(void)part;
	(void)nparts;
	if (!queue)
		return -1;
	for (uint32_t d = begin; d < end; d++) {
		uint8_t *row = j->lab + (size_t)d * j->ns;
		uint32_t head = 0, tail = 0;

		memset(row, LAB_NONE, j->ns);
		row[d] = LAB(0, 1);
		queue[tail++] = d;
		while (head < tail) {
			uint32_t v = queue[head++];
			unsigned next = LAB_DIST(row[v]) + 1;

			for (uint32_t k = j->start[v]; k < j->start[v + 1];
			     k++) {
				uint32_t y = j->adj[k];

				if (row[y] != LAB_NONE)
					continue;
				if (next > LAB_MAX_DIST) {
					__atomic_store_n(&j->too_long, 1,
							 __ATOMIC_RELAXED);
					continue;
				}
				row[y] = LAB(next, 1);
				queue[tail++] = y;
			}
		}
	}
	free(queue);
	return 0;
}

/* cr-ftree's ranks by switch index, and its leaves by GUID. */
static void ft_shape(const struct ft *ft, uint32_t *rank, uint64_t *leaf_guid)
{
	for (uint32_t s = 0; s < ft->ns; s++)
		rank[s] = ft->sw[s].rank < 0 ? UINT32_MAX
					     : (uint32_t)ft->sw[s].rank;
	for (uint32_t i = 0; i < ft->nleaves; i++)
		leaf_guid[i] = ft_guid(ft, ft->leaves[i]);
}

/*
 * cr-ftree: the switch pairs without an up/down path, counted by
 * destination. A repair that skips a destination's turn entries (see
 * fill_turns()) still needs to know whether there are any; -1 out of
 * memory.
 */
static int base_none_counts(struct cr_incr_base *base)
{
	uint32_t ns = base->ns;

	base->nones = calloc(ns + 1, sizeof(*base->nones));
	if (!base->nones)
		return -1;
	for (uint32_t d = 0; d < ns; d++) {
		const uint8_t *row = base->lab + (size_t)d * ns;

		for (uint32_t s = 0; s < ns; s++)
			base->nones[d] += row[s] == LAB_NONE &&
					  base->rank[s] != UINT32_MAX;
	}
	return 0;
}

static int base_labels(struct cr_incr_base *base, const struct cr_options *o)
{
	uint32_t ns = base->ns;

	base->lab = malloc((size_t)ns * ns + 1);
	if (!base->lab)
		return -1;
	if (base->kind == K_FTREE) {
		struct ft ft;
		int ret = -1;

		if (ft_build(&ft, base->f, o)) {
			ft_release(&ft);
			return -1;
		}
		base->rank = malloc((ns + 1) * sizeof(*base->rank));
		base->leaf_guid =
			malloc((ft.nleaves + 1) * sizeof(*base->leaf_guid));
		base->nleaves = ft.nleaves;
		if (base->rank && base->leaf_guid &&
		    !ft_incr_labels(&ft, base->lab)) {
			ft_shape(&ft, base->rank, base->leaf_guid);
			base->turn = ft_turn_leaf(&ft);
			ret = base_none_counts(base);
		}
		ft_release(&ft);
		return ret;
	}
	if (base->kind == K_MINHOP) {
		struct bfs_job j = {.f = base->f, .lab = base->lab, .ns = ns};
		int ret = -1;

		if (cr_switch_adjacency(base->f, &j.start, &j.adj, NULL))
			goto bfs_out;
		if (cr_parallel(ns, cr_parallel_parts(ns, 16), bfs_range, &j))
			goto bfs_out;
		ret = j.too_long ? 1 : 0;
	bfs_out:
		free(j.start);
		free(j.adj);
		return ret;
	} else {
		struct updn *u = cr_updn_open(base->f, base->by.roots,
					      base->by.num_roots);
		struct label_job j = {.u = u, .lab = base->lab, .ns = ns};
		int ret = -1;

		base->rank = malloc((ns + 1) * sizeof(*base->rank));
		if (!u || !base->rank)
			goto out;
		memcpy(base->rank, cr_updn_ranks(u), ns * sizeof(*base->rank));
		if (cr_parallel(ns, cr_parallel_parts(ns, 16), label_range, &j))
			goto out;
		ret = j.too_long ? 1 : 0;
	out:
		cr_updn_close(u);
		return ret;
	}
}

/*
 * Whether the entry of switch index w for lid counts in port selection's
 * balance: a CA or router LID of another switch (cr_portsel_pick() with
 * CR_PS_NOCOUNT for switch LIDs; a LID's own switch does not pick).
 */
static bool counted(const struct cr_fabric *f, uint32_t w, uint16_t lid,
		    uint8_t port)
{
	uint32_t d;

	if (port == CR_NO_PATH || port == 0 || lid > f->max_lid ||
	    f->lid_node[lid] == CR_NO_NODE || cr_is_switch(f, f->lid_node[lid]))
		return false;
	d = cr_lid_switch(f, lid, NULL);
	return d != CR_NO_NODE && f->nodes[d].sw_index != w &&
	       port <= f->nodes[f->switches[w]].num_ports;
}

/*
 * Per LID, 1 + the index of the switch whose CA or router holds it when
 * its entries count in the balance (counted()), else 0: rows are then
 * counted without a node lookup per entry.
 */
static uint32_t *counted_lids(const struct cr_fabric *f)
{
	uint32_t *lc = calloc((size_t)f->max_lid + 1, sizeof(*lc));

	for (uint32_t lid = 1; lc && lid <= f->max_lid; lid++) {
		uint32_t m = f->lid_node[lid], d;

		if (m == CR_NO_NODE || cr_is_switch(f, m))
			continue;
		d = cr_lid_switch(f, (uint16_t)lid, NULL);
		if (d != CR_NO_NODE)
			lc[lid] = f->nodes[d].sw_index + 1;
	}
	return lc;
}

/* Adds to c the routes switch index w's row lft counts, as counted(). */
static void count_row(const struct cr_fabric *f, const uint32_t *lc, uint32_t w,
		      const uint8_t *lft, uint32_t *c)
{
	unsigned np = f->nodes[f->switches[w]].num_ports;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (lc[lid] && lc[lid] != w + 1 && lft[lid] != CR_NO_PATH &&
		    lft[lid] != 0 && lft[lid] <= np)
			c[lft[lid]]++;
}

struct count_job {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	const uint32_t *lc; /* counted_lids() */
	uint32_t *cnt;
	size_t stride;
};

static int count_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	const struct count_job *j = arg;

	(void)part;
	(void)nparts;
	for (uint32_t w = begin; w < end; w++)
		count_row(j->f, j->lc, w, j->r->lft[j->f->switches[w]],
			  j->cnt + (size_t)w * j->stride);
	return 0;
}

/* The base's route counts per switch port, from its tables. */
static int base_counts(struct cr_incr_base *base)
{
	const struct cr_fabric *f = base->f;
	uint32_t *lc = counted_lids(f);
	struct count_job j = {.f = f, .r = base->r, .lc = lc};
	unsigned max_ports = 0;
	int ret = -1;

	for (uint32_t s = 0; s < f->num_switches; s++)
		if (f->nodes[f->switches[s]].num_ports > max_ports)
			max_ports = f->nodes[f->switches[s]].num_ports;
	base->stride = max_ports + 1;
	base->cnt = calloc((size_t)f->num_switches * base->stride + 1,
			   sizeof(*base->cnt));
	if (!lc || !base->cnt)
		goto out;
	j.cnt = base->cnt;
	j.stride = base->stride;
	ret = cr_parallel(f->num_switches,
			  cr_parallel_parts(f->num_switches, 16), count_range,
			  &j);
out:
	free(lc);
	return ret;
}

static inline size_t cdg_bit(const struct cr_incr_base *base, uint32_t y,
			     unsigned in, unsigned out)
{
	return ((size_t)y * base->stride + in) * base->stride + out;
}

struct cdg_job {
	const struct cr_incr_base *base;
	uint8_t *bits;
};

static int cdg_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	const struct cdg_job *j = arg;
	const struct cr_fabric *f = j->base->f;
	const struct cr_routing *r = j->base->r;

	(void)part;
	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		const struct cr_node *sn = &f->nodes[f->switches[s]];
		const uint8_t *row = r->lft[f->switches[s]];

		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint8_t p = row[lid], q;
			uint32_t m;
			size_t bit;

			if (p == 0 || p == CR_NO_PATH || p > sn->num_ports)
				continue;
			m = sn->ports[p].remote;
			if (m == CR_NO_NODE || !cr_is_switch(f, m))
				continue;
			q = r->lft[m][lid];
			if (q == 0 || q == CR_NO_PATH ||
			    q > f->nodes[m].num_ports)
				continue;
			bit = cdg_bit(j->base, f->nodes[m].sw_index,
				      sn->ports[p].remote_port, q);
			/* Parts share bytes: read atomically too (TSan). */
			if (!(__atomic_load_n(&j->bits[bit >> 3],
					      __ATOMIC_RELAXED) &
			      (1u << (bit & 7))))
				__atomic_fetch_or(&j->bits[bit >> 3],
						  (uint8_t)(1u << (bit & 7)),
						  __ATOMIC_RELAXED);
		}
	}
	return 0;
}

/*
 * cr-ftree: the base's channel dependencies, when a full run of it
 * searches its tables for credit loops (FT_VERIFY_MAX): a repair that
 * adds none needs no search of its own.
 */
static int base_cdg(struct cr_incr_base *base)
{
	const struct cr_fabric *f = base->f;
	struct cdg_job j = {base, NULL};

	if ((uint64_t)f->num_switches * (f->max_lid + 1u) > FT_VERIFY_MAX)
		return 0;
	base->cdg = calloc(cdg_bit(base, f->num_switches, 0, 0) / 8 + 1, 1);
	if (!base->cdg)
		return -1;
	j.bits = base->cdg;
	return cr_parallel(f->num_switches,
			   cr_parallel_parts(f->num_switches, 16), cdg_range,
			   &j);
}

struct cr_incr_base *cr_incr_base_new(const struct cr_engine *e,
				      const struct cr_fabric *f,
				      const struct cr_options *o,
				      const struct cr_routing *r,
				      const struct cr_byproducts *by)
{
	struct cr_incr_base *base;
	enum kind kind = engine_kind(e);
	int ret;

	if (kind == K_NONE) {
		cr_info("incremental: cr-%s always routes in full",
			e ? e->name : "?");
		return NULL;
	}
	if (kind == K_FTREE && (!by || by->ftree_turns_restricted)) {
		cr_info("incremental: cr-ftree restricted its switch routes"
			" without an up/down path (credit loops): every run is"
			" a full one");
		return NULL;
	}
	if (o->scatter_ports || o->balance_global) {
		cr_info("incremental: with %s every run is a full one",
			o->scatter_ports ? "scatter_ports" : "global balance");
		return NULL;
	}
	if (f->num_switches > MAX_SWITCHES) {
		cr_info("incremental: %u switches, more than %u: every run is"
			" a full one",
			f->num_switches, MAX_SWITCHES);
		return NULL;
	}
	base = calloc(1, sizeof(*base));
	if (!base)
		goto oom;
	base->e = e;
	base->kind = kind;
	base->digest = cr_options_digest(o);
	base->ns = f->num_switches;
	base->f = cr_fabric_copy(f);
	base->r = cr_routing_copy(r);
	if (!base->f || !base->r || (by && cr_byproducts_copy(&base->by, by)))
		goto oom;
	ret = base_labels(base, o);
	if (!ret && base_counts(base))
		ret = -1;
	if (!ret && kind == K_FTREE && base_cdg(base))
		ret = -1;
	if (ret > 0) {
		cr_info("incremental: paths longer than %u hops: every run is"
			" a full one",
			LAB_MAX_DIST);
		cr_incr_base_free(base);
		return NULL;
	}
	if (ret < 0)
		goto oom;
	return base;
oom:
	cr_err("incremental: out of memory keeping the full run");
	cr_incr_base_free(base);
	return NULL;
}

/* ---- the repair ------------------------------------------------------- */

struct dead_end {
	uint32_t sw; /* switch index (new) of the surviving end */
	uint8_t port;
	uint32_t far; /* switch index (base) of the other end, or CR_NO_NODE */
};

struct todo {
	uint32_t pos; /* the LID's place in cr_lid_order() */
	uint32_t sw; /* switch index (new) */
	uint16_t lid;
	uint8_t old; /* the base's entry */
};

struct bucket {
	uint32_t *v;
	uint32_t n, cap;
};

struct incr_repair {
	const struct cr_incr_base *base;
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_incr_stats *st;
	enum kind kind;
	uint32_t ns;
	uint32_t *n2o; /* node (new) -> node (base) */
	uint32_t *o2n;
	uint32_t *sw2o; /* switch index (new) -> switch index (base) */
	bool identity; /* sw2o[s] == s */
	uint32_t *adj_start, *adj_sw; /* live switch links (new) */
	uint8_t *adj_port;
	struct dead_end *dead;
	uint32_t ndead;
	struct updn *u;
	const uint32_t *ord; /* updn: the order of the switches; ftree: ranks */
	/* ftree: the new fabric's tree, its LIDs numbered, its turn leaf */
	struct ft ft;
	bool have_ft;
	struct ft_lid *ftl;
	uint32_t *ftrank;
	uint32_t turn; /* switch index, CR_NO_NODE */
	uint64_t turn_entries; /* entries without an up/down path changed */
	struct turn_chg {
		uint32_t sw;
		uint16_t lid;
	} * chg; /* those entries, but the cleared ones */
	size_t nchg, cap_chg;
	/*
	 * ftree: (destination, switch) pairs, in destination order, whose
	 * turn entries check_entries() cleared (the switch has no up/down
	 * path to the destination): fill_turns() fills them again.
	 */
	struct turn_clr {
		uint32_t d, sw;
	} * clr;
	size_t nclr, cap_clr;
	double ms_check;
	bool *has_ca;
	/* LIDs (new) by destination switch */
	uint32_t *lid_dsw; /* [lid]: switch index, CR_NO_NODE */
	uint32_t *dst_start;
	uint16_t *dst_lids;
	uint32_t *pos; /* [lid]: place in cr_lid_order() */
	uint8_t **rows; /* [destination]: new labels, when it has work */
	/* scratch, per destination (stamped with destination + 1) */
	uint32_t *gen_q, *gen_aff, *gen_fix, *gen_set;
	uint8_t *tent;
	uint32_t *aff, naff;
	uint32_t *set, nset;
	struct bucket bk[LAB_MAX_DIST + 2];
	struct todo *todo;
	size_t ntodo, todo_cap;
	uint64_t churn;
	/* Counted routes cleared, per switch port, against the base's. */
	int32_t *delta; /* [switch * base stride + port] */
};

static int push(struct bucket *bk, uint32_t s)
{
	if (cr_grow32(&bk->v, &bk->cap, (size_t)bk->n + 1, sizeof(*bk->v)))
		return -1;
	bk->v[bk->n++] = s;
	return 0;
}

static int reason(struct cr_incr_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int reason(struct cr_incr_stats *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->reason, sizeof(st->reason), fmt, ap);
	va_end(ap);
	return 1;
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
		return reason(st, "duplicate node GUIDs");
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *a = &f->nodes[n];
		uint32_t bo = rep->n2o[n];
		const struct cr_node *o;

		if (bo == CR_NO_NODE)
			return reason(st, "node 0x%016" PRIx64 " is new",
				      a->guid);
		o = &bf->nodes[bo];
		if (a->type != o->type || a->num_ports != o->num_ports)
			return reason(st, "node 0x%016" PRIx64 " changed",
				      a->guid);
		for (unsigned p = 0; p <= a->num_ports; p++) {
			const struct cr_port *np = &a->ports[p];
			const struct cr_port *op = &o->ports[p];

			if (np->guid != op->guid || np->lid != op->lid ||
			    np->lmc != op->lmc)
				return reason(st,
					      "port %u of 0x%016" PRIx64
					      " changed its GUID or LID",
					      p, a->guid);
			if (np->remote != CR_NO_NODE) {
				if (op->remote != rep->n2o[np->remote] ||
				    op->remote_port != np->remote_port)
					return reason(st,
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

	if (br->updn_detours)
		return reason(
			rep->st,
			"the full run took min-hop detours off up*/down* (top-level roots)");
	by->roots = malloc((br->num_roots + 1) * sizeof(*by->roots));
	if (!by->roots)
		return -1;
	by->num_roots = br->num_roots;
	for (uint32_t i = 0; i < br->num_roots; i++) {
		by->roots[i] = rep->o2n[br->roots[i]];
		if (by->roots[i] == CR_NO_NODE)
			return reason(rep->st, "root 0x%016" PRIx64 " is gone",
				      rep->base->f->nodes[br->roots[i]].guid);
	}
	rep->u = cr_updn_open(rep->f, by->roots, by->num_roots);
	if (!rep->u)
		return -1;
	rank = cr_updn_ranks(rep->u);
	for (uint32_t s = 0; s < rep->ns; s++)
		if (rank[s] != rep->base->rank[rep->sw2o[s]])
			return reason(rep->st,
				      "the up*/down* rank of 0x%016" PRIx64
				      " changed",
				      rep->f->nodes[rep->f->switches[s]].guid);
	rep->ord = cr_updn_order(rep->u);
	return 0;
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
		return reason(rep->st, "cr-ftree does not take the new fabric");
	}
	rep->have_ft = true;
	rep->ftrank = malloc((rep->ns + 1) * sizeof(*rep->ftrank));
	leaves = malloc((rep->ft.nleaves + 1) * sizeof(*leaves));
	rep->ftl = calloc((size_t)rep->f->max_lid + 1, sizeof(*rep->ftl));
	if (!rep->ftrank || !leaves || !rep->ftl) {
		free(leaves);
		return -1;
	}
	ft_shape(&rep->ft, rep->ftrank, leaves);
	ret = 0;
	for (uint32_t s = 0; s < rep->ns && !ret; s++)
		if (rep->ftrank[s] != base->rank[rep->sw2o[s]])
			ret = reason(rep->st,
				     "the cr-ftree rank of 0x%016" PRIx64
				     " changed",
				     rep->f->nodes[rep->f->switches[s]].guid);
	if (!ret &&
	    (rep->ft.nleaves != base->nleaves ||
	     memcmp(leaves, base->leaf_guid, base->nleaves * sizeof(*leaves))))
		ret = reason(rep->st, "the leaves or their order changed");
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
	if (!rep->delta || !rep->has_ca || !rep->lid_dsw || !rep->pos ||
	    !rep->dst_start || !rep->dst_lids || !rep->rows || !rep->gen_q ||
	    !rep->gen_aff || !rep->gen_fix || !rep->gen_set || !rep->tent ||
	    !rep->aff || !rep->set)
		return -1;
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m != CR_NO_NODE && !cr_is_switch(f, m))
				rep->has_ca[s] = true;
		}
	}
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

/* LIDs the base routed that lead nowhere now: no entry anywhere. */
static void clear_lost_lids(struct incr_repair *rep)
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
			if (counted(bf, rep->sw2o[s], (uint16_t)lid, old))
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
		return reason(rep->st, "a path longer than %u hops",
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
				return reason(rep->st,
					      "a switch with CAs lost its"
					      " up/down path to 0x%016" PRIx64,
					      rep->f->nodes[rep->f->switches[d]]
						      .guid);
			continue;
		}
		if (rep->kind != K_UPDN)
			continue;
		if (rep->has_ca[d])
			return reason(rep->st,
				      "a switch with CAs lost its legal"
				      " path to 0x%016" PRIx64,
				      rep->f->nodes[rep->f->switches[d]].guid);
		rep->st->lost_pairs +=
			rep->dst_start[d + 1] - rep->dst_start[d];
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
	if (counted(rep->f, w, lid, old))
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

/* Per destination switch: labels, affected switches, entries to redo. */
static int find_work(struct incr_repair *rep)
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
 * base's counts less the entries cleared. With lc (counted_lids()), the
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
		count_row(f, lc, w, rep->r->lft[wn], cnt);
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

static int pick_again(struct incr_repair *rep, const struct cr_options *o)
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
			if (nseeded < 8 && !lc && !(lc = counted_lids(f))) {
				cr_err("incremental: out of memory");
				goto out;
			}
			if (seed_counts(rep, ps, w, nseeded++ < 8 ? lc : NULL))
				goto out;
			seeded[w] = true;
		}
		if (rep->kind == K_FTREE) {
			rep->r->lft[wn][t->lid] =
				ft_incr_pick(&rep->ft, &rep->ftl[t->lid], ps, w,
					     d, t->lid, row);
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
static int verify(struct incr_repair *rep)
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

/* The new label of switch s toward d (new switch indices). */
static inline uint8_t label_of(const struct incr_repair *rep, uint32_t d,
			       uint32_t s)
{
	if (rep->rows[d])
		return rep->rows[d][s];
	return rep->base
		->lab[(size_t)rep->sw2o[d] * rep->base->ns + rep->sw2o[s]];
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
		bit = cdg_bit(base, rep->sw2o[w], p, q);
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
	bit = cdg_bit(base, rep->sw2o[f->nodes[m].sw_index],
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

/*
 * cr-ftree: the LIDs a switch has no up/down path to go the way to the
 * turn leaf, else to the first leaf in CA order with a route, exactly as
 * route_turns() (ftree.c) fills them after a full run's up/down routes:
 * LID by LID, a switch taking its entry toward that leaf as it stands
 * then. Then, as a full run does on fabrics it can afford to, the tables
 * are searched for credit loops when anything changed (1: a full run).
 */
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

static int fill_turns(struct incr_repair *rep)
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
				       : reason(rep->st,
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

static void incr_release(struct incr_repair *rep)
{
	free(rep->n2o);
	free(rep->o2n);
	free(rep->sw2o);
	free(rep->adj_start);
	free(rep->adj_sw);
	free(rep->adj_port);
	free(rep->dead);
	cr_updn_close(rep->u);
	free(rep->has_ca);
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
		ret = reason(st, "no full run to start from");
	else if (e != base->e)
		ret = reason(st, "the full run was cr-%s's", base->e->name);
	else if (cr_options_digest(o) != base->digest)
		ret = reason(st, "the options changed since the full run");
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
	if (!ret) {
		clear_lost_lids(&rep);
		ms[2] = now_ms();
		ret = find_work(&rep);
	}
	ms[3] = now_ms();
	if (!ret)
		ret = pick_again(&rep, o);
	ms[4] = now_ms();
	if (!ret)
		ret = verify(&rep);
	ms[5] = now_ms();
	if (!ret && rep.kind == K_FTREE)
		ret = fill_turns(&rep);
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
