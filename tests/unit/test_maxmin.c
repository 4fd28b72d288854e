// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The max-min solver gives the same bits as a plain progressive filling
 * by fabric link numbers (ref_solve below: one array per link of the
 * fabric, the heap over those numbers), with and without shares, with
 * many equal capacities and bounds (ties), on paths that use a few links
 * of many. The estimate's figures and every tuning decision rest on
 * those bits: a faster solver must not move one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/iheap.h>

#include "../../src/core/estimate/maxmin.h"
#include "testutil.h"

struct ref {
	uint32_t *cnt, *first, *fill, *lflows, *touched;
	double *wsum, *rem, *level, *key;
	struct cr_iheap heap;
	bool *used;
};

static void ref_freeze(struct ref *m, const struct cr_maxmin_flows *fl,
		       uint32_t f, double v, double *rate)
{
	rate[f] = v;
	for (uint32_t k = fl->start[f]; k < fl->start[f + 1]; k++) {
		uint32_t l = fl->path[k];
		double a = fl->share ? fl->share[k] : 1;

		m->rem[l] -= a * v;
		m->wsum[l] -= a;
		m->cnt[l]--;
		if (m->heap.pos[l] == CR_IHEAP_OUT)
			continue;
		if (!m->cnt[l]) {
			cr_iheap_remove(&m->heap, l);
			continue;
		}
		m->level[l] = m->rem[l] / m->wsum[l];
		if (m->level[l] < m->key[l]) {
			m->key[l] = m->level[l];
			cr_iheap_up(&m->heap, m->heap.pos[l]);
		}
	}
}

/* Flows by bound, then number (a stable insertion sort: tests are small). */
static void ref_order(const struct cr_maxmin_flows *fl, uint32_t *ord,
		      size_t *nb)
{
	*nb = 0;
	for (uint32_t f = 0; f < fl->n; f++) {
		size_t i;

		if (fl->start[f] == fl->start[f + 1])
			continue;
		for (i = (*nb)++; i && fl->bound[ord[i - 1]] > fl->bound[f];
		     i--)
			ord[i] = ord[i - 1];
		ord[i] = f;
	}
}

static void ref_solve(uint32_t nl, const double *cap,
		      const struct cr_maxmin_flows *fl, double *rate)
{
	struct ref m = {0};
	uint32_t *ord = calloc(fl->n + 1, sizeof(*ord)), nt = 0, off = 0;
	size_t nb, next = 0;
	double t = 0;

	m.cnt = calloc(nl, sizeof(uint32_t));
	m.first = calloc(nl, sizeof(uint32_t));
	m.fill = calloc(nl, sizeof(uint32_t));
	m.touched = calloc(nl, sizeof(uint32_t));
	m.lflows = calloc(fl->start[fl->n] + 1, sizeof(uint32_t));
	m.wsum = calloc(nl, sizeof(double));
	m.rem = calloc(nl, sizeof(double));
	m.level = calloc(nl, sizeof(double));
	m.key = calloc(nl, sizeof(double));
	m.used = calloc(nl, sizeof(bool));
	m.heap.key = m.key;
	m.heap.pos = calloc(nl, sizeof(uint32_t));
	m.heap.slot = calloc(nl, sizeof(uint32_t));
	for (uint32_t f = 0; f < fl->n; f++)
		for (uint32_t k = fl->start[f]; k < fl->start[f + 1]; k++) {
			uint32_t l = fl->path[k];

			if (!m.used[l]) {
				m.used[l] = true;
				m.touched[nt++] = l;
			}
			m.cnt[l]++;
			m.wsum[l] += fl->share ? fl->share[k] : 1;
		}
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t l = m.touched[i];

		m.first[l] = m.fill[l] = off;
		off += m.cnt[l];
		m.rem[l] = cap[l];
		m.level[l] = m.key[l] = cap[l] / m.wsum[l];
		cr_iheap_put(&m.heap, m.heap.len++, l);
	}
	for (uint32_t f = 0; f < fl->n; f++)
		for (uint32_t k = fl->start[f]; k < fl->start[f + 1]; k++)
			m.lflows[m.fill[fl->path[k]]++] = f;
	cr_iheap_heapify(&m.heap);
	for (uint32_t f = 0; f < fl->n; f++)
		rate[f] = fl->start[f] == fl->start[f + 1] ? fl->bound[f] : -1;
	ref_order(fl, ord, &nb);
	for (;;) {
		double nbound, nlevel;
		uint32_t l;

		while (next < nb && rate[ord[next]] >= 0)
			next++;
		nbound = next < nb ? fl->bound[ord[next]] : INFINITY;
		while (m.heap.len &&
		       m.key[m.heap.slot[0]] != m.level[m.heap.slot[0]]) {
			m.key[m.heap.slot[0]] = m.level[m.heap.slot[0]];
			cr_iheap_down(&m.heap, 0);
		}
		nlevel = m.heap.len ? m.level[m.heap.slot[0]] : INFINITY;
		if (next == nb && !m.heap.len)
			break;
		if (nbound <= nlevel) {
			t = nbound > t ? nbound : t;
			ref_freeze(&m, fl, ord[next], nbound, rate);
			continue;
		}
		l = m.heap.slot[0];
		t = nlevel > t ? nlevel : t;
		cr_iheap_remove(&m.heap, l);
		for (uint32_t k = m.first[l]; k < m.fill[l]; k++)
			if (rate[m.lflows[k]] < 0)
				ref_freeze(&m, fl, m.lflows[k], t, rate);
	}
	free(ord);
	free(m.cnt);
	free(m.first);
	free(m.fill);
	free(m.touched);
	free(m.lflows);
	free(m.wsum);
	free(m.rem);
	free(m.level);
	free(m.key);
	free(m.used);
	free(m.heap.pos);
	free(m.heap.slot);
}

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

/*
 * Random phases: n flows over paths of up to six of a pool of links
 * scattered over nl numbers, capacities of two values, bounds of a few
 * (or none when bounds is 0), shares of halves and quarters when asked.
 */
static void check_random(uint32_t nl, uint32_t pool, unsigned bounds,
			 bool shares, uint64_t seed)
{
	enum { N = 400 };
	struct cr_maxmin *m = cr_maxmin_new(nl);
	double *cap = calloc(nl, sizeof(*cap)), bound[N], got[N], want[N];
	double share[N * 6];
	uint32_t start[N + 1], path[N * 6], *links = calloc(pool, 4);
	uint64_t s = seed;

	assert_non_null(m);
	for (uint32_t l = 0; l < nl; l++)
		cap[l] = rnd(&s) % 5 ? 100 : 40;
	for (uint32_t i = 0; i < pool; i++)
		links[i] = (uint32_t)(rnd(&s) % nl);
	for (int round = 0; round < 60; round++) {
		unsigned n = 1 + (unsigned)(rnd(&s) % N), used = 0;
		struct cr_maxmin_flows fl = {.n = n,
					     .start = start,
					     .path = path,
					     .share = shares ? share : NULL,
					     .bound = bound};

		for (unsigned i = 0; i < n; i++) {
			unsigned len = (unsigned)(rnd(&s) % 7);

			bound[i] = bounds ? 10.0 * (1 + rnd(&s) % bounds)
					  : INFINITY;
			if (!len && bounds == 0)
				len = 1; /* a flow without links needs a bound */
			start[i] = used;
			for (unsigned k = 0; k < len; k++) {
				uint32_t l = links[rnd(&s) % pool];
				bool dup = false;

				for (unsigned q = start[i]; q < used; q++)
					dup |= path[q] == l;
				if (dup)
					continue;
				share[used] = 1.0 / (double)(1 + rnd(&s) % 4);
				path[used++] = l;
			}
			if (used == start[i] && !bounds)
				path[used++] = links[0];
		}
		start[n] = used;
		assert_int_equal(cr_maxmin_solve_shares(m, cap, &fl, got), 0);
		ref_solve(nl, cap, &fl, want);
		assert_memory_equal(got, want, n * sizeof(*got));
	}
	cr_maxmin_free(m);
	free(links);
	free(cap);
}

static void test_bits_sparse(void **state)
{
	(void)state;
	check_random(20000, 300, 8, false, 1);
	check_random(20000, 60, 3, false, 2);
	check_random(5000, 2000, 0, false, 3);
}

static void test_bits_shares(void **state)
{
	(void)state;
	check_random(20000, 300, 8, true, 4);
	check_random(3000, 40, 0, true, 5);
}

/* The same workspace through many solves (its numbers are reused). */
static void test_bits_reuse(void **state)
{
	(void)state;
	for (uint64_t seed = 10; seed < 30; seed++)
		check_random(500, 100 + (uint32_t)seed, (unsigned)seed % 5,
			     seed % 3 == 0, seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits_sparse),
		cmocka_unit_test(test_bits_shares),
		cmocka_unit_test(test_bits_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
