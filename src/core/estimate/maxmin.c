// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Progressive filling, event by event. Every unfrozen flow has the same
 * rate t, which grows from 0. A link with remaining capacity R (capacity
 * minus its frozen flows) and n unfrozen flows saturates when t = R / n;
 * a flow with bound b freezes when t = b. The next event is the smallest
 * of those: the links sit in a min-heap keyed by R / n, the flows in an
 * array sorted by bound. When a flow freezes at t, each of its links
 * loses t of R and one of n, and R / n cannot decrease (R / n >= t), so
 * a link's heap key may lag behind its level: it is brought up to date
 * only when the link reaches the top. Each flow freezes once and touches
 * its path's links once: O(path entries x log links) per phase, however
 * many distinct rates there are.
 *
 * A flow may put only a share a of its rate on a link (a flow striped
 * over several paths): the link's level is then R over the sum of the
 * unfrozen flows' shares, and a frozen flow takes a times its rate off R.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>
#include "maxmin.h"

struct bound_ix {
	double bound;
	uint32_t flow;
};

/* A link in use, one cache line's half: what a freeze updates. */
struct mm_link {
	double rem; /* capacity left by the frozen flows */
	/* the unfrozen flows' shares summed: cnt when every share is 1 */
	double wsum;
	double level; /* rem / wsum */
	uint32_t cnt; /* unfrozen flows on the link */
	uint32_t first; /* its flows: lflows[first .. next link's first) */
};

/*
 * A heap slot: a link in use and its key (its level when last sifted,
 * never above it), side by side, so a sift compares keys without
 * reading another array.
 */
struct mm_slot {
	double key;
	uint32_t link;
};

#define MM_OUT UINT32_MAX /* pos[] of a link not in the heap */

/* A fabric link: the number it has in this solve, while stamp == gen. */
struct mm_num {
	uint32_t stamp, local;
};

struct cr_maxmin {
	uint32_t num_links;
	uint32_t gen;
	/*
	 * A link in use has a dense number, in the order the flows first
	 * cross it, and the arrays below are by that number: a phase
	 * touches a few thousand links of a fabric's tens of thousands,
	 * and the solve reads them in cache lines of their own. The heap
	 * sees the same keys in the same slots whatever the numbers, so
	 * its ties, hence every rate, are the same.
	 */
	struct mm_num *num; /* by fabric link */
	uint32_t *lpath; /* the flows' paths in those numbers */
	size_t lpath_alloc;
	struct mm_link *lk; /* room for every link and one more */
	uint32_t *fill;
	/*
	 * The links in use in a binary min-heap by key: cr_iheap's sifts,
	 * step for step (equal keys end in the same slots, so the same
	 * link fills first), with the keys in the slots.
	 */
	struct mm_slot *hs;
	uint32_t *pos; /* per link: its slot, or MM_OUT */
	uint32_t hlen;
	uint32_t *touched; /* number -> fabric link */

	uint32_t *lflows; /* link -> flows, grouped by link */
	size_t lflows_alloc;
	struct bound_ix *order, *tmp;
	size_t order_alloc, tmp_alloc;
};

struct cr_maxmin *cr_maxmin_new(uint32_t num_links)
{
	struct cr_maxmin *m = calloc(1, sizeof(*m));
	size_t nl = num_links ? num_links : 1;

	if (!m)
		goto oom;
	m->num_links = num_links;
	m->num = calloc(nl, sizeof(*m->num));
	m->lk = malloc((nl + 1) * sizeof(*m->lk));
	m->fill = malloc(nl * sizeof(*m->fill));
	m->hs = malloc(nl * sizeof(*m->hs));
	m->pos = malloc(nl * sizeof(*m->pos));
	m->touched = malloc(nl * sizeof(*m->touched));
	if (!m->num || !m->lk || !m->fill || !m->hs || !m->pos || !m->touched)
		goto oom;
	return m;
oom:
	cr_err("out of memory for the max-min solver (%u links)", num_links);
	cr_maxmin_free(m);
	return NULL;
}

void cr_maxmin_free(struct cr_maxmin *m)
{
	if (!m)
		return;
	free(m->num);
	free(m->lpath);
	free(m->lk);
	free(m->fill);
	free(m->hs);
	free(m->pos);
	free(m->touched);
	free(m->lflows);
	free(m->order);
	free(m->tmp);
	free(m);
}

static inline void h_put(struct cr_maxmin *m, uint32_t i, struct mm_slot v)
{
	m->hs[i] = v;
	m->pos[v.link] = i;
}

static inline void h_up(struct cr_maxmin *m, uint32_t i)
{
	struct mm_slot v = m->hs[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (m->hs[p].key <= v.key)
			break;
		h_put(m, i, m->hs[p]);
		i = p;
	}
	h_put(m, i, v);
}

static inline void h_down(struct cr_maxmin *m, uint32_t i)
{
	struct mm_slot v = m->hs[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= m->hlen)
			break;
		if (c + 1 < m->hlen && m->hs[c + 1].key < m->hs[c].key)
			c++;
		if (v.key <= m->hs[c].key)
			break;
		h_put(m, i, m->hs[c]);
		i = c;
	}
	h_put(m, i, v);
}

static inline void h_remove(struct cr_maxmin *m, uint32_t l)
{
	uint32_t i = m->pos[l];
	struct mm_slot last = m->hs[--m->hlen];

	m->pos[l] = MM_OUT;
	if (last.link == l)
		return;
	h_put(m, i, last);
	/* the moved key may belong either above or below slot i */
	h_down(m, i);
	h_up(m, m->pos[last.link]);
}

static void freeze(struct cr_maxmin *m, const struct cr_maxmin_flows *fl,
		   uint32_t f, double v, double *rate)
{
	rate[f] = v;
	for (uint32_t k = fl->start[f]; k < fl->start[f + 1]; k++) {
		uint32_t l = m->lpath[k];
		struct mm_link *x = &m->lk[l];
		double a = fl->share ? fl->share[k] : 1;

		x->rem -= a * v;
		x->wsum -= a;
		x->cnt--;
		if (m->pos[l] == MM_OUT)
			continue;
		if (!x->cnt) {
			h_remove(m, l);
			continue;
		}
		x->level = x->wsum == 1 ? x->rem : x->rem / x->wsum;
		/*
		 * R / n does not decrease (but for rounding): the key may
		 * lag behind, the top is set right when it is read
		 */
		if (x->level < m->hs[m->pos[l]].key) {
			m->hs[m->pos[l]].key = x->level;
			h_up(m, m->pos[l]);
		}
	}
}

static int cmp_bound(const void *a, const void *b)
{
	const struct bound_ix *x = a, *y = b;

	if (x->bound != y->bound)
		return x->bound < y->bound ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/*
 * Sorts a[0..n) by bound, keeping the order of equal bounds: a comes in
 * flow order, so this is cmp_bound's order (bound, then flow), without a
 * call per comparison (the sort was a tenth of the improvement pass).
 */
static void sort_bounds(struct bound_ix *a, struct bound_ix *t, size_t n)
{
	struct bound_ix *src = a, *dst = t, *x;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = src[j].bound < src[i].bound
						   ? src[j++]
						   : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		x = src;
		src = dst;
		dst = x;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

static int reserve(struct cr_maxmin *m, size_t n, size_t entries)
{
	if (cr_grow(&m->lflows, &m->lflows_alloc, entries,
		    sizeof(*m->lflows)) ||
	    cr_grow(&m->lpath, &m->lpath_alloc, entries, sizeof(*m->lpath)) ||
	    cr_grow(&m->order, &m->order_alloc, n, sizeof(*m->order)) ||
	    cr_grow(&m->tmp, &m->tmp_alloc, n, sizeof(*m->tmp)))
		return -1;
	return 0;
}

/*
 * Numbers the links in use, counts each one's flows and lays out
 * link -> flows; touched[i] is link i's number in the fabric.
 */
static uint32_t index_links(struct cr_maxmin *m, const double *cap,
			    const struct cr_maxmin_flows *fl)
{
	const uint32_t *start = fl->start, *path = fl->path;
	size_t n = fl->n, begin = start[0], entries = start[n];
	uint32_t ntouched = 0, off = 0;

	if (++m->gen == 0) {
		for (uint32_t l = 0; l < m->num_links; l++)
			m->num[l].stamp = 0;
		m->gen = 1;
	}
	for (size_t k = begin; k < entries; k++) {
		struct mm_num *u = &m->num[path[k]];

		if (u->stamp != m->gen) {
			u->stamp = m->gen;
			u->local = ntouched;
			m->lk[ntouched].cnt = 0;
			m->lk[ntouched].wsum = 0;
			m->touched[ntouched++] = path[k];
		}
		m->lpath[k] = u->local;
		m->lk[u->local].cnt++;
	}
	/* the same sums in the same order as by flow: entries are by flow */
	if (fl->share) {
		for (size_t k = begin; k < entries; k++)
			m->lk[m->lpath[k]].wsum += fl->share[k];
	} else {
		for (uint32_t i = 0; i < ntouched; i++)
			m->lk[i].wsum = m->lk[i].cnt;
	}
	for (uint32_t i = 0; i < ntouched; i++) {
		struct mm_link *x = &m->lk[i];

		x->first = m->fill[i] = off;
		off += x->cnt;
		x->rem = cap[m->touched[i]];
		/* x / 1 is x: most links of a phase carry one flow */
		x->level = x->wsum == 1 ? x->rem : x->rem / x->wsum;
		m->hs[i] = (struct mm_slot){x->level, i};
		m->pos[i] = i;
	}
	m->lk[ntouched].first = off;
	for (size_t f = 0; f < n; f++)
		for (uint32_t k = start[f]; k < start[f + 1]; k++)
			m->lflows[m->fill[m->lpath[k]]++] = (uint32_t)f;
	return ntouched;
}

int cr_maxmin_solve(struct cr_maxmin *m, const double *cap, size_t n,
		    const uint32_t *start, const uint32_t *path,
		    const double *bound, double *rate)
{
	struct cr_maxmin_flows fl = {
		.n = n, .start = start, .path = path, .bound = bound};

	return cr_maxmin_solve_shares(m, cap, &fl, rate);
}

int cr_maxmin_solve_shares(struct cr_maxmin *m, const double *cap,
			   const struct cr_maxmin_flows *fl, double *rate)
{
	const uint32_t *start = fl->start;
	const double *bound = fl->bound;
	size_t n = fl->n;
	uint32_t ntouched;
	size_t next = 0, nb = 0;
	double t = 0;

	if (reserve(m, n, start[n])) {
		cr_err("out of memory solving %zu flows", n);
		return -1;
	}
	ntouched = index_links(m, cap, fl);
	m->hlen = ntouched;
	for (uint32_t i = ntouched / 2; i-- > 0;)
		h_down(m, i);

	for (size_t f = 0; f < n; f++) {
		rate[f] = -1;
		if (start[f] == start[f + 1]) {
			rate[f] = bound[f];
			continue;
		}
		m->order[nb].bound = bound[f];
		m->order[nb].flow = (uint32_t)f;
		nb++;
	}
	/* often already in order (equal bounds, by flow): no sort then */
	for (size_t i = 1; i < nb; i++)
		if (cmp_bound(&m->order[i - 1], &m->order[i]) > 0) {
			sort_bounds(m->order, m->tmp, nb);
			break;
		}

	for (;;) {
		double next_bound, next_level;
		uint32_t l;

		while (next < nb && rate[m->order[next].flow] >= 0)
			next++;
		next_bound = next < nb ? m->order[next].bound : INFINITY;
		/* the smallest key with its level is the smallest level */
		while (m->hlen && m->hs[0].key != m->lk[m->hs[0].link].level) {
			m->hs[0].key = m->lk[m->hs[0].link].level;
			h_down(m, 0);
		}
		next_level = m->hlen ? m->lk[m->hs[0].link].level : INFINITY;
		if (next == nb && !m->hlen)
			break;
		if (next_bound <= next_level) {
			/* the flow reaches its bound before any link fills */
			t = next_bound > t ? next_bound : t;
			freeze(m, fl, m->order[next].flow, next_bound, rate);
			continue;
		}
		/* the link fills: every flow still growing on it stops */
		l = m->hs[0].link;

		t = next_level > t ? next_level : t;
		h_remove(m, l);
		for (uint32_t k = m->lk[l].first; k < m->lk[l + 1].first; k++) {
			uint32_t f = m->lflows[k];

			if (rate[f] < 0)
				freeze(m, fl, f, t, rate);
		}
	}
	return 0;
}
