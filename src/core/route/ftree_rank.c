// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-ftree, part one: recognising the fat tree.
 *
 * Links between two switches are bundled into port groups. Switches are
 * ranked by BFS, from the root GUIDs when given (cr_roots_from_guids();
 * roots are rank 0), else upward from the switches with CAs, which get
 * the highest rank; when that breaks the rules and cn/io lists are given
 * (I/O nodes on spines), upward from the leaves only (the switches with
 * compute nodes: include/croute/model/roles.h). A fat tree links only
 * adjacent ranks; anything else (a torus, a random graph) is refused here
 * with the two switches and their ranks named.
 *
 * For the D-mod-k choice, switches of one rank that share a parent form a
 * class (in a k-ary n-tree: the leaves of a pod, or the middle switches of
 * the same position in every pod); the parents of a class, in column
 * order (column_keys(): the same order in every pod, whatever the GUIDs),
 * are its slots. Every member maps slot i to the same parent, whatever its
 * cabling, so the upward choices of all members agree (what makes shift
 * patterns contention free); a member that lost the link to a slot's
 * parent keeps the others' numbering.
 *
 * Leaves are ordered by topology position: grouped by the subtrees below
 * each height (components of the switches up to that height), subtrees
 * ordered by their smallest leaf GUID, so the leaves of a pod are
 * consecutive in the CA order.
 */
/* qsort_r */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/route/engine.h>

#include "ftree_int.h"

struct link {
	uint32_t remote;
	uint8_t port;
};

static int cmp_link(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->remote != y->remote)
		return x->remote < y->remote ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* Bundles each switch's switch-to-switch links into port groups. */
static int build_groups(struct ft *ft)
{
	const struct cr_fabric *f = ft->f;
	size_t total = 0;
	struct link *tmp = malloc((CR_MAX_PORTS + 1) * sizeof(*tmp));

	for (uint32_t s = 0; s < ft->ns; s++)
		total += f->nodes[f->switches[s]].num_ports;
	ft->groups = malloc((total + 1) * sizeof(*ft->groups));
	ft->ports = malloc(total + 1);
	if (!tmp || !ft->groups || !ft->ports) {
		free(tmp);
		return -1;
	}
	ft->ngroups = 0;
	total = 0;
	for (uint32_t s = 0; s < ft->ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];
		struct ft_sw *sw = &ft->sw[s];
		unsigned k = 0;

		sw->node = f->switches[s];
		sw->rank = -1;
		sw->groups = ft->ngroups;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m == CR_NO_NODE)
				continue;
			if (!cr_is_switch(f, m)) {
				sw->has_ca = true;
				continue;
			}
			if (m == sw->node)
				continue; /* loopback cable: unusable */
			tmp[k].remote = f->nodes[m].sw_index;
			tmp[k++].port = p;
		}
		/* Insertion sort: few links, nearly in order already. */
		for (unsigned i = 1; i < k; i++) {
			struct link l = tmp[i];
			unsigned j = i;

			for (; j && cmp_link(&tmp[j - 1], &l) > 0; j--)
				tmp[j] = tmp[j - 1];
			tmp[j] = l;
		}
		for (unsigned i = 0; i < k; i++) {
			struct ft_group *g;

			if (!i || tmp[i].remote != tmp[i - 1].remote) {
				g = &ft->groups[ft->ngroups++];
				g->remote = tmp[i].remote;
				g->first = total;
				g->nports = 0;
				sw->ndown++; /* all "down" until ranked */
			}
			ft->ports[total++] = tmp[i].port;
			ft->groups[ft->ngroups - 1].nports++;
		}
	}
	free(tmp);
	return 0;
}

/* BFS over switch links from the switches already at rank 0 in *queue. */
static void bfs_rank(struct ft *ft, uint32_t *queue, uint32_t n)
{
	for (uint32_t head = 0; head < n; head++) {
		uint32_t s = queue[head];
		struct ft_group *g = &ft->groups[ft->sw[s].groups];

		for (unsigned i = 0; i < ft->sw[s].ndown; i++) {
			struct ft_sw *m = &ft->sw[g[i].remote];

			if (m->rank >= 0)
				continue;
			m->rank = ft->sw[s].rank + 1;
			queue[n++] = g[i].remote;
		}
	}
}

/*
 * Ranks from the root GUIDs, else upward from the switches with CAs (all
 * of them, as OpenSM does, so that I/O-only leaves stay leaves), or with
 * cn_only from those with compute nodes (for I/O nodes on spines).
 */
static int rank_switches(struct ft *ft, bool cn_only)
{
	const struct cr_fabric *f = ft->f;
	const struct cr_guid_list *roots = &ft->o->root_guids;
	uint32_t *queue = malloc((ft->ns + 1) * sizeof(*queue));
	uint32_t n = 0;
	int max = 0;
	int ret = -1;

	if (!queue)
		return -1;
	for (uint32_t s = 0; s < ft->ns; s++)
		ft->sw[s].rank = -1;
	if (roots->count) {
		bool *is_root = calloc(ft->ns + 1, sizeof(*is_root));

		if (!is_root ||
		    cr_roots_from_guids(f, roots, "cr-ftree", is_root) < 0) {
			free(is_root);
			goto fail;
		}
		for (uint32_t s = 0; s < ft->ns; s++)
			if (is_root[s]) {
				ft->sw[s].rank = 0;
				queue[n++] = s;
			}
		free(is_root);
	}
	if (!n) {
		/* Leaves first at "rank" 0, then turned upside down. */
		for (uint32_t s = 0; s < ft->ns; s++)
			if (cn_only ? ft_is_leaf(ft, s) : ft->sw[s].has_ca) {
				ft->sw[s].rank = 0;
				queue[n++] = s;
			}
		if (!n) {
			cr_err("cr-ftree: no compute node is attached to any switch");
			ret = CR_ROUTE_NOT_ITS_FABRIC;
			goto fail;
		}
	}
	bfs_rank(ft, queue, n);
	for (uint32_t s = 0; s < ft->ns; s++) {
		/* As OpenSM does, a switch cut off from the tree is left
		 * out, unless CAs hang on it. */
		if (ft->sw[s].rank < 0 && ft->sw[s].has_ca) {
			cr_err("cr-ftree: switch '%s' (0x%016llx) has CAs but no link to the tree's switches",
			       ft_name(ft, s),
			       (unsigned long long)ft_guid(ft, s));
			ret = CR_ROUTE_NOT_ITS_FABRIC;
			goto fail;
		}
		if (ft->sw[s].rank < 0)
			cr_info("cr-ftree: switch '%s' (0x%016llx) has no link to the tree's switches: left without routes",
				ft_name(ft, s),
				(unsigned long long)ft_guid(ft, s));
		if (ft->sw[s].rank > max)
			max = ft->sw[s].rank;
	}
	if (max > FT_MAX_HEIGHT) {
		cr_err("cr-ftree: %d switch ranks: too deep for a fat tree",
		       max + 1);
		ret = CR_ROUTE_NOT_ITS_FABRIC;
		goto fail;
	}
	if (!roots->count)
		for (uint32_t s = 0; s < ft->ns; s++)
			if (ft->sw[s].rank >= 0)
				ft->sw[s].rank = max - ft->sw[s].rank;
	ft->max_rank = max;
	free(queue);
	return 0;
fail:
	free(queue);
	return ret;
}

/* Do links join adjacent ranks only? Names the first that does not. */
static bool adjacent_ranks(const struct ft *ft, bool report)
{
	for (uint32_t s = 0; s < ft->ns; s++) {
		const struct ft_sw *sw = &ft->sw[s];
		const struct ft_group *g = &ft->groups[sw->groups];

		for (unsigned i = 0; i < sw->ndown && sw->rank >= 0; i++) {
			const struct ft_sw *m = &ft->sw[g[i].remote];
			int d = m->rank - sw->rank;

			if (d == 1 || d == -1)
				continue;
			if (report)
				cr_err("cr-ftree: not a fat tree: switch '%s' (0x%016llx, rank %d) port %u is linked to switch '%s' (0x%016llx, rank %d); links must join adjacent ranks%s",
				       ft_name(ft, s),
				       (unsigned long long)ft_guid(ft, s),
				       sw->rank, ft->ports[g[i].first],
				       ft_name(ft, g[i].remote),
				       (unsigned long long)ft_guid(ft,
								   g[i].remote),
				       m->rank,
				       ft->o->root_guids.count
					       ? ""
					       : " (ranked from the switches with CAs: if CAs hang on spine switches, list them in io_guid_file or give root_guid_file)");
			return false;
		}
	}
	return true;
}

/*
 * Orders each switch's groups upward first, and links every group to its
 * reverse. The ranks are adjacent_ranks().
 */
static void split_groups(struct ft *ft)
{
	struct ft_group tmp[CR_MAX_PORTS];

	for (uint32_t s = 0; s < ft->ns; s++) {
		struct ft_sw *sw = &ft->sw[s];
		struct ft_group *g = &ft->groups[sw->groups];
		unsigned n = sw->ndown, up = 0, k = 0;

		for (unsigned i = 0; i < n; i++)
			if (ft->sw[g[i].remote].rank < sw->rank)
				tmp[k++] = g[i];
		up = k;
		for (unsigned i = 0; i < n; i++)
			if (ft->sw[g[i].remote].rank > sw->rank)
				tmp[k++] = g[i];
		/* k < n only on switches left out of the tree */
		memcpy(g, tmp, k * sizeof(*g));
		sw->nup = up;
		sw->ndown = k - up;
	}
	/*
	 * Each part keeps build_groups()'s order by remote switch, and s is
	 * in the part of m's groups its rank puts it in: a binary search.
	 */
	for (uint32_t s = 0; s < ft->ns; s++) {
		struct ft_sw *sw = &ft->sw[s];
		struct ft_group *g = &ft->groups[sw->groups];

		for (unsigned i = 0; i < (unsigned)sw->nup + sw->ndown; i++) {
			const struct ft_sw *m = &ft->sw[g[i].remote];
			const struct ft_group *h = &ft->groups[m->groups];
			unsigned lo = sw->rank < m->rank ? 0 : m->nup;
			unsigned hi =
				sw->rank < m->rank ? m->nup : m->nup + m->ndown;

			while (lo < hi) {
				unsigned mid = lo + (hi - lo) / 2;

				if (h[mid].remote < s)
					lo = mid + 1;
				else
					hi = mid;
			}
			g[i].rev = m->groups + lo;
		}
	}
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x) {
		uf[x] = uf[uf[x]];
		x = uf[x];
	}
	return x;
}

static void uf_union(uint32_t *uf, uint32_t a, uint32_t b)
{
	a = uf_find(uf, a);
	b = uf_find(uf, b);
	if (a != b)
		uf[a < b ? b : a] = a < b ? a : b;
}

struct column_ctx {
	const struct ft *ft;
	const uint64_t *key;
};

/* By column key, then GUID. qsort_r: no global state, so reentrant. */
static int cmp_column(const void *a, const void *b, void *arg)
{
	const struct column_ctx *c = arg;
	uint32_t p = *(const uint32_t *)a, q = *(const uint32_t *)b;
	uint64_t x = c->key[p], y = c->key[q];

	if (x == y) {
		x = ft_guid(c->ft, p);
		y = ft_guid(c->ft, q);
	}
	return x < y ? -1 : x > y;
}

/*
 * Column keys. In a k-ary n-tree, middle switch j of every pod serves the
 * same roots, so "j" is what a pod's leaves must agree on, whatever the
 * GUIDs: a switch's key is the smallest key among the parents of its
 * class (its own GUID at the top), the same for middle switch j of every
 * pod. Slots sorted by (key, GUID) then come in the same order everywhere.
 */
static void column_keys(const struct ft *ft, const uint32_t *cls,
			const uint32_t *members, const uint32_t *start,
			uint64_t *key, uint64_t *cls_key)
{
	for (uint32_t s = 0; s < ft->ns; s++) {
		key[s] = ft_guid(ft, s);
		cls_key[s] = 0; /* not yet known */
	}
	for (uint32_t i = 0; i < ft->nranked; i++) {
		uint32_t s = ft->by_rank[i], c = cls[s];

		if (!ft->sw[s].nup)
			continue;
		if (!cls_key[c]) {
			uint64_t min = UINT64_MAX;

			for (uint32_t m = start[c]; m < start[c + 1]; m++) {
				const struct ft_group *g =
					ft_up(ft, members[m]);

				for (unsigned j = 0; j < ft->sw[members[m]].nup;
				     j++)
					if (key[g[j].remote] < min)
						min = key[g[j].remote];
			}
			cls_key[c] = min ? min : 1;
		}
		key[s] = cls_key[c];
	}
}

/* Scratch arrays of build_slots, each indexed by switch. */
struct slot_work {
	uint32_t *uf; /* class (union-find root) of each switch */
	uint32_t *members; /* switches grouped by class */
	uint32_t *start; /* class c: members[start[c]..start[c + 1]) */
	uint32_t *parents; /* parents of the class being visited */
	int32_t *pos; /* first slot of each parent in its class */
	uint32_t *stamp; /* parent already seen for the current tag */
	uint16_t *mult; /* links from the class to each parent */
	uint64_t *key; /* column key of each switch */
	uint64_t *cls_key; /* column key of each class */
};

static void slot_work_free(struct slot_work *w)
{
	free(w->uf);
	free(w->members);
	free(w->parents);
	free(w->pos);
	free(w->stamp);
	free(w->start);
	free(w->mult);
	free(w->key);
	free(w->cls_key);
}

static int slot_work_alloc(struct slot_work *w, uint32_t ns)
{
	w->uf = malloc(ns * sizeof(*w->uf));
	w->members = malloc(ns * sizeof(*w->members));
	w->parents = malloc(ns * sizeof(*w->parents));
	w->pos = malloc(ns * sizeof(*w->pos));
	w->stamp = calloc(ns, sizeof(*w->stamp));
	w->start = calloc(ns + 1, sizeof(*w->start));
	w->mult = malloc(ns * sizeof(*w->mult));
	w->key = malloc(ns * sizeof(*w->key));
	w->cls_key = malloc(ns * sizeof(*w->cls_key));
	if (!w->uf || !w->members || !w->parents || !w->pos || !w->stamp ||
	    !w->start || !w->mult || !w->key || !w->cls_key)
		return -1;
	return 0;
}

/* Switches sharing a parent form a class; members of a class together. */
static void group_classes(const struct ft *ft, struct slot_work *w)
{
	uint32_t ns = ft->ns;

	for (uint32_t s = 0; s < ns; s++)
		w->uf[s] = s;
	for (uint32_t s = 0; s < ns; s++) {
		const struct ft_group *g = ft_down(ft, s);

		for (unsigned i = 1; i < ft->sw[s].ndown; i++)
			uf_union(w->uf, g[0].remote, g[i].remote);
	}
	/* Counting sort on the root. */
	for (uint32_t s = 0; s < ns; s++) {
		w->uf[s] = uf_find(w->uf, s);
		w->start[w->uf[s] + 1]++;
	}
	for (uint32_t c = 0; c < ns; c++)
		w->start[c + 1] += w->start[c];
	for (uint32_t s = 0; s < ns; s++)
		w->members[w->start[w->uf[s]]++] = s;
	for (uint32_t c = ns; c > 0; c--)
		w->start[c] = w->start[c - 1];
	w->start[0] = 0;
}

/*
 * Parents of class c into w->parents (count in *np), each with the most
 * links any member has to it in w->mult. Returns the class's slot count.
 * A parent linked to the class by up to m parallel links takes m slots,
 * one per link, so uneven port groups (6 uplinks over 4 spines) still
 * give every uplink a slot.
 */
static uint32_t class_parents(const struct ft *ft, struct slot_work *w,
			      uint32_t c, uint32_t tag, uint32_t *np)
{
	uint32_t nv = 0;

	*np = 0;
	for (uint32_t i = w->start[c]; i < w->start[c + 1]; i++) {
		uint32_t s = w->members[i];
		const struct ft_group *g = ft_up(ft, s);

		for (unsigned j = 0; j < ft->sw[s].nup; j++) {
			uint32_t p = g[j].remote;

			if (w->stamp[p] != tag) {
				w->stamp[p] = tag;
				w->mult[p] = 0;
				w->parents[(*np)++] = p;
			}
			if (g[j].nports > w->mult[p])
				w->mult[p] = g[j].nports;
		}
	}
	for (uint32_t j = 0; j < *np; j++)
		nv += w->mult[w->parents[j]];
	return nv;
}

/* Slots of all switches, to size ft->slots. */
static size_t count_slots(const struct ft *ft, struct slot_work *w)
{
	size_t total = 0;
	uint32_t np;

	for (uint32_t c = 0; c < ft->ns; c++) {
		uint32_t nv;

		if (w->start[c] == w->start[c + 1])
			continue;
		nv = class_parents(ft, w, c, c + 1, &np);
		total += (size_t)nv * (w->start[c + 1] - w->start[c]);
	}
	return total;
}

/*
 * Slots of each member of class c from offset *off, parents in column
 * order; the widest class per height goes to radix.
 */
static void fill_class(struct ft *ft, struct slot_work *w, uint32_t c,
		       size_t *off, uint32_t *radix)
{
	struct column_ctx cc = {ft, w->key};
	uint32_t np, nv;

	nv = class_parents(ft, w, c, c + 1 + ft->ns, &np);
	qsort_r(w->parents, np, sizeof(*w->parents), cmp_column, &cc);
	for (uint32_t j = 0, v = 0; j < np; j++) {
		w->pos[w->parents[j]] = v; /* first slot */
		v += w->mult[w->parents[j]];
	}
	for (uint32_t i = w->start[c]; i < w->start[c + 1]; i++) {
		uint32_t s = w->members[i];
		const struct ft_group *g = ft_up(ft, s);
		int h = ft_height(ft, s);

		ft->sw[s].slot = *off;
		ft->sw[s].nslots = nv;
		for (uint32_t v = 0; v < nv; v++)
			ft->slots[*off + v] = -1;
		/* a member with fewer links than the class
		 * doubles up rather than leave the parent */
		for (unsigned j = 0; j < ft->sw[s].nup; j++) {
			uint32_t p = g[j].remote;

			for (unsigned l = 0; l < w->mult[p]; l++)
				ft->slots[*off + w->pos[p] + l] =
					(int32_t)(j << 8) | (l % g[j].nports);
		}
		*off += nv;
		if (ft->sw[s].rank >= 0 && nv > radix[h])
			radix[h] = nv;
	}
}

/* Usually all switches of a height have as many slots. */
static void find_common_slots(struct ft *ft)
{
	for (int h = 0; h <= FT_MAX_HEIGHT; h++)
		ft->common_slots[h] = UINT32_MAX;
	for (uint32_t s = 0; s < ft->ns; s++) {
		uint32_t *c;

		if (ft->sw[s].rank < 0)
			continue;
		c = &ft->common_slots[ft_height(ft, s)];
		if (*c == UINT32_MAX)
			*c = ft->sw[s].nslots;
		else if (*c != ft->sw[s].nslots)
			*c = 0;
	}
	for (int h = 0; h <= FT_MAX_HEIGHT; h++)
		if (ft->common_slots[h] == UINT32_MAX)
			ft->common_slots[h] = 0;
}

static void find_radix_div(struct ft *ft, const uint32_t *radix)
{
	ft->radix_div[0] = 1;
	for (int h = 0; h < FT_MAX_HEIGHT; h++) {
		uint64_t d = ft->radix_div[h] * (radix[h] ? radix[h] : 1);

		ft->radix_div[h + 1] = d > (1ull << 40) ? (1ull << 40) : d;
	}
}

/*
 * Classes of switches sharing a parent, their parents in column order (the
 * D-mod-k slots: a slot per link to each parent, as group << 8 | link),
 * and per height the divisor of the CA index: the product of the slots of
 * the heights below.
 */
static int build_slots(struct ft *ft)
{
	struct slot_work w;
	uint32_t radix[FT_MAX_HEIGHT + 1] = {0};
	size_t off = 0;
	int ret = -1;

	if (slot_work_alloc(&w, ft->ns))
		goto out;
	group_classes(ft, &w);
	column_keys(ft, w.uf, w.members, w.start, w.key, w.cls_key);
	ft->slots = malloc((count_slots(ft, &w) + 1) * sizeof(*ft->slots));
	if (!ft->slots)
		goto out;
	for (uint32_t c = 0; c < ft->ns; c++)
		if (w.start[c] != w.start[c + 1])
			fill_class(ft, &w, c, &off, radix);
	find_common_slots(ft);
	find_radix_div(ft, radix);
	ret = 0;
out:
	slot_work_free(&w);
	return ret;
}

struct leaf_key {
	uint32_t sw;
	uint64_t key[FT_MAX_HEIGHT + 1]; /* [0]: own GUID */
};

static int cmp_leaf(const void *a, const void *b, void *arg)
{
	const struct leaf_key *x = a, *y = b;
	int key_levels = *(const int *)arg;

	for (int h = key_levels - 1; h >= 0; h--)
		if (x->key[h] != y->key[h])
			return x->key[h] < y->key[h] ? -1 : 1;
	return 0;
}

/* Leaves grouped by the subtrees below each height (see the top). */
static int order_leaves(struct ft *ft)
{
	uint32_t ns = ft->ns, nl = 0;
	int key_levels;
	uint32_t *uf = malloc(ns * sizeof(*uf));
	uint64_t *minleaf = malloc(ns * sizeof(*minleaf));
	struct leaf_key *keys = malloc((ns + 1) * sizeof(*keys));
	int top = ft->max_rank;
	int ret = -1;

	ft->leaves = malloc((ns + 1) * sizeof(*ft->leaves));
	if (!uf || !minleaf || !keys || !ft->leaves)
		goto out;
	for (uint32_t s = 0; s < ns; s++)
		if (ft_is_leaf(ft, s)) {
			keys[nl].sw = s;
			keys[nl++].key[0] = ft_guid(ft, s);
		}
	for (int h = 1; h < top; h++) {
		for (uint32_t s = 0; s < ns; s++) {
			uf[s] = s;
			minleaf[s] = UINT64_MAX;
		}
		for (uint32_t s = 0; s < ns; s++) {
			const struct ft_group *g = ft_down(ft, s);

			if (ft_height(ft, s) > h)
				continue;
			for (unsigned i = 0; i < ft->sw[s].ndown; i++)
				uf_union(uf, s, g[i].remote);
		}
		for (uint32_t i = 0; i < nl; i++) {
			uint32_t c = uf_find(uf, keys[i].sw);

			if (keys[i].key[0] < minleaf[c])
				minleaf[c] = keys[i].key[0];
		}
		for (uint32_t i = 0; i < nl; i++)
			keys[i].key[h] = minleaf[uf_find(uf, keys[i].sw)];
	}
	key_levels = top > 1 ? top : 1;
	qsort_r(keys, nl, sizeof(*keys), cmp_leaf, &key_levels);
	for (uint32_t i = 0; i < nl; i++)
		ft->leaves[i] = keys[i].sw;
	ft->nleaves = nl;
	ret = 0;
out:
	free(uf);
	free(minleaf);
	free(keys);
	return ret;
}

static void count_cns(struct ft *ft)
{
	const struct cr_fabric *f = ft->f;
	uint32_t s0;

	ft->max_cn_per_leaf = 0;
	for (uint32_t i = 0; i < ft->nleaves; i++) {
		const struct cr_node *n = &f->nodes[ft->sw[ft->leaves[i]].node];
		uint32_t c = 0;

		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m != CR_NO_NODE && !cr_is_switch(f, m) &&
			    ft_is_cn(ft, m, n->ports[p].remote_port))
				c++;
		}
		if (c > ft->max_cn_per_leaf)
			ft->max_cn_per_leaf = c;
	}
	/*
	 * A leaf with more compute nodes than slots up uses some slots twice,
	 * and a shift crosses leaf boundaries. Numbering each leaf from a
	 * multiple of the slot count makes the doubled slots the same
	 * positions of every leaf: the destinations that share a cable down
	 * to their leaf are then the ones that share a cable up from the
	 * sources, and no third flow is slowed (on a two-level tree of 8
	 * hosts and 6 up links a leaf, the shift pattern reaches the
	 * splittable bound). Only two levels: deeper, the next digit (index /
	 * slots) no longer counts the leaves of a pod, and oversubscribed
	 * 3-level trees lose bandwidth.
	 */
	s0 = ft->common_slots[0];
	ft->cn_stride = ft->max_cn_per_leaf;
	if (s0 && ft->cn_stride > s0 && ft->cn_stride % s0)
		ft->cn_stride += s0 - ft->cn_stride % s0;
}

/*
 * With count_cns()'s padding, index / slots no longer counts the leaves of
 * a pod: a middle switch sees only every other digit, and half its parents
 * go unused. Above the leaves, a
 * destination's digit is instead its arrival number at the switch its
 * digits lead it to, counting the compute ports of each leaf (padded to
 * the fullest leaf, not to the stride) in CA order. On a full tree this
 * is index / divisor again; here it spreads each middle switch's
 * destinations over all its parents, as OpenSM's ftree counters do.
 */
static int arrival_digits(struct ft *ft)
{
	uint32_t nh = (uint32_t)ft->max_rank + 1;
	uint64_t n = (uint64_t)ft->nleaves * ft->cn_stride;
	uint32_t *count;

	if (ft->cn_stride == ft->max_cn_per_leaf || ft->max_rank < 2)
		return 0;
	count = calloc(ft->ns + 1, sizeof(*count));
	ft->arrival = calloc(n * nh + 1, sizeof(*ft->arrival));
	if (!count || !ft->arrival) {
		free(count);
		return -1;
	}
	ft->narrival = n;
	for (uint32_t i = 0; i < ft->nleaves; i++) {
		for (uint32_t pos = 0; pos < ft->cn_stride; pos++) {
			uint64_t idx = (uint64_t)i * ft->cn_stride + pos;
			uint32_t *dg = ft->arrival + idx * nh;
			uint32_t x = ft->leaves[i];

			dg[0] = (uint32_t)idx;
			for (uint32_t h = 1; h < nh; h++)
				dg[h] = (uint32_t)(idx / ft->radix_div[h]);
			if (pos >= ft->max_cn_per_leaf)
				continue; /* padding: no CA, not counted */
			for (uint32_t h = 0; h + 1 < nh; h++) {
				const struct ft_sw *sw = &ft->sw[x];
				int32_t e;

				if (!sw->nslots || ft_height(ft, x) != (int)h)
					break;
				e = ft->slots[sw->slot + dg[h] % sw->nslots];
				if (e < 0)
					break;
				x = ft_up(ft, x)[e >> 8].remote;
				dg[h + 1] = count[x]++;
			}
		}
	}
	free(count);
	return 0;
}

int ft_build(struct ft *ft, const struct cr_fabric *f,
	     const struct cr_options *o)
{
	int ret;

	memset(ft, 0, sizeof(*ft));
	ft->f = f;
	ft->o = o;
	ft->ns = f->num_switches;
	ft->sw = calloc(ft->ns + 1, sizeof(*ft->sw));
	ft->by_rank = malloc((ft->ns + 1) * sizeof(*ft->by_rank));
	if (!ft->sw || !ft->by_rank)
		goto oom;
	if (cr_roles_init(&ft->roles, f, o))
		return -1;
	if (!ft->ns) {
		cr_err("cr-ftree: the fabric has no switch");
		return CR_ROUTE_NOT_ITS_FABRIC;
	}
	if (build_groups(ft))
		goto oom;
	ret = rank_switches(ft, false);
	if (ret)
		return ret;
	if (!adjacent_ranks(ft, false) && !o->root_guids.count &&
	    (o->cn_guids.count || o->io_guids.count)) {
		cr_verbose(
			"cr-ftree: ranking from every CA switch breaks the rules; ranking from the compute nodes' switches");
		ret = rank_switches(ft, true);
		if (ret)
			return ret;
	}
	if (!adjacent_ranks(ft, true))
		return CR_ROUTE_NOT_ITS_FABRIC;
	split_groups(ft);
	/* Sorted by rank: parents before children. */
	for (int r = 0; r <= ft->max_rank; r++)
		for (uint32_t s = 0; s < ft->ns; s++)
			if (ft->sw[s].rank == r)
				ft->by_rank[ft->nranked++] = s;
	if (build_slots(ft) || order_leaves(ft))
		goto oom;
	count_cns(ft);
	if (arrival_digits(ft))
		goto oom;
	return 0;
oom:
	cr_err("cr-ftree: out of memory analysing the fat tree");
	return -1;
}

void ft_release(struct ft *ft)
{
	free(ft->sw);
	free(ft->groups);
	free(ft->ports);
	free(ft->slots);
	free(ft->by_rank);
	cr_roles_release(&ft->roles);
	free(ft->leaves);
	free(ft->arrival);
	memset(ft, 0, sizeof(*ft));
}
