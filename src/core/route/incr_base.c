// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The base of incremental re-routing (incremental.c describes the
 * method): what a full run of cr-minhop, cr-updn or cr-ftree leaves for
 * later repairs. Copies of its fabric and tables; every switch's label
 * toward every destination switch (minhop: the BFS distance; updn:
 * cr_updn_label()'s distance and mode; ftree: ft_incr_labels()), one byte
 * a pair, so at most 64 MB under MAX_SWITCHES; the ranks; the routes per
 * switch port that port selection counts, for repairs to start from; and
 * for cr-ftree its leaves, its channel dependencies and its switch pairs
 * without an up/down path. The labels and counts are computed in
 * parallel, by ranges of destinations or switches.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

#include "ft_incr.h"
#include "incr_int.h"

/* Labels of every (destination, switch): at most 64 MB. */
#define MAX_SWITCHES 8192

static enum incr_kind engine_kind(const struct cr_engine *e)
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

uint64_t incr_options_digest(const struct cr_options *o)
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

/*
 * cr-ftree: the switch pairs without an up/down path, counted by
 * destination. A repair that skips a destination's turn entries (see
 * ft_incr_fill_turns()) still needs to know whether there are any; -1 out of
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
			ft_incr_shape(&ft, base->rank, base->leaf_guid);
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

bool incr_counted(const struct cr_fabric *f, uint32_t w, uint16_t lid,
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

uint32_t *incr_counted_lids(const struct cr_fabric *f)
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

void incr_count_row(const struct cr_fabric *f, const uint32_t *lc, uint32_t w,
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
	const uint32_t *lc; /* incr_counted_lids() */
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
		incr_count_row(j->f, j->lc, w, j->r->lft[j->f->switches[w]],
			       j->cnt + (size_t)w * j->stride);
	return 0;
}

/* The base's route counts per switch port, from its tables. */
static int base_counts(struct cr_incr_base *base)
{
	const struct cr_fabric *f = base->f;
	uint32_t *lc = incr_counted_lids(f);
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
			bit = incr_cdg_bit(j->base, f->nodes[m].sw_index,
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
	base->cdg =
		calloc(incr_cdg_bit(base, f->num_switches, 0, 0) / 8 + 1, 1);
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
	enum incr_kind kind = engine_kind(e);
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
	base->digest = incr_options_digest(o);
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
