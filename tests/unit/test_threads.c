// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Threads never change a result: cr-minhop, cr-updn and cr-ftree, and the
 * hop table, give byte-identical output with 1 thread and with several,
 * on trees, a torus, a random graph, with LMC and a degraded tree; and
 * the hop table agrees with cr_routing_hops() pair by pair, also a
 * range of LIDs at a time; the contention estimate gives the same result,
 * field for field, with 1 thread and with several.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/estimate/estimate.h>
#include <croute/route/flowbal.h>
#include <croute/io/gen.h>
#include <croute/model/hops.h>
#include <croute/model/hosts.h>
#include <croute/model/parallel.h>
#include <croute/estimate/pattern.h>
#include <croute/route/portsel.h>
#include <croute/model/roles.h>

#include "testutil.h"
#include "updn_fabrics.h"

static struct cr_fabric *fabric(int which)
{
	struct cr_gen_params p = {.seed = 7};
	unsigned dims[] = {4, 4};
	struct cr_fabric *f = NULL;

	switch (which) {
	case 0:
		f = cr_gen_kary_ntree(4, 3, &p);
		break;
	case 1:
		f = cr_gen_fat_tree(8, &p);
		break;
	case 2:
		f = cr_gen_two_level(12, 5, 4, 3, true, &p);
		break;
	case 3:
		f = cr_gen_torus(dims, 2, true, 2, &p);
		break;
	case 4:
		f = cr_gen_random(40, 6, 2, &p);
		break;
	case 5: /* LMC 2 */
		f = cr_gen_kary_ntree(4, 2, &p);
		assert_non_null(f);
		assert_int_equal(cr_fabric_assign_lids(f, 2), 0);
		return f;
	case 6: /* a tree with a failed link */
		f = cr_gen_fat_tree(8, &p);
		assert_non_null(f);
		for (unsigned q = 1; q <= f->nodes[f->switches[0]].num_ports;
		     q++) {
			uint32_t a = f->switches[0];
			struct cr_port *pa = &f->nodes[a].ports[q];

			if (pa->remote == CR_NO_NODE ||
			    !cr_is_switch(f, pa->remote))
				continue;
			f->nodes[pa->remote].ports[pa->remote_port].remote =
				CR_NO_NODE;
			pa->remote = CR_NO_NODE;
			break;
		}
		break;
	case 7: /* 192 switches: cr-ftree splits each destination's round */
		f = cr_gen_kary_ntree(8, 3, &p);
		break;
	}
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	return f;
}

static struct cr_routing *route_with(const struct cr_fabric *f,
				     const char *engine, unsigned threads,
				     bool shifting, int *ret)
{
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;

	assert_non_null(r);
	cr_options_init(&o);
	o.port_shifting = shifting;
	cr_threads_set(threads);
	*ret = cr_route(cr_engine_find(engine), f, &o, r);
	cr_options_release(&o);
	return r;
}

static void same_lfts(const struct cr_fabric *f, const struct cr_routing *a,
		      const struct cr_routing *b)
{
	for (uint32_t s = 0; s < f->num_switches; s++)
		assert_memory_equal(a->lft[f->switches[s]],
				    b->lft[f->switches[s]],
				    (size_t)f->max_lid + 1);
}

static void test_engines_same_output(void **state)
{
	static const char *const engines[] = {"minhop", "updn", "ftree"};

	(void)state;
	for (int which = 0; which <= 7; which++) {
		struct cr_fabric *f = fabric(which);

		for (unsigned e = 0; e < 3; e++) {
			for (int shift = 0; shift < 2; shift++) {
				int r1, rn;
				struct cr_routing *one = route_with(
					f, engines[e], 1, shift, &r1);
				struct cr_routing *many = route_with(
					f, engines[e], 3, shift, &rn);

				assert_int_equal(r1, rn);
				same_lfts(f, one, many);
				cr_routing_free(one);
				cr_routing_free(many);
			}
		}
		cr_fabric_free(f);
	}
	cr_threads_set(0);
}

/*
 * cr-minhop's flow balance as one thread does it, LID by LID in
 * cr_lid_order(), every switch farthest first passing on its CA sources:
 * the reference the level-by-level split must reproduce.
 */
static struct cr_routing *ref_minhop_flows(const struct cr_fabric *f)
{
	uint32_t ns = f->num_switches, *key = calloc(ns, sizeof(*key));
	uint32_t *height = malloc(ns * sizeof(*height));
	uint64_t *in = calloc(ns, sizeof(*in));
	struct cr_routing *r = cr_routing_new(f);
	uint8_t *dist = cr_switch_distances(f);
	struct cr_portsel *ps;
	struct cr_roles roles;
	struct cr_options o;
	uint16_t *lids;
	unsigned maxd = 0;
	int nl;

	cr_options_init(&o);
	ps = cr_portsel_new(f, &o, r);
	assert_true(key && height && in && r && dist && ps);
	assert_int_equal(cr_portsel_use_flows(ps), 1);
	assert_int_equal(cr_roles_init(&roles, f, &o), 0);
	/* Keys: (hops from the nearest leaf, GUID), the same everywhere. */
	for (uint32_t s = 0; s < ns; s++) {
		height[s] = UINT32_MAX;
		for (uint32_t t = 0; t < ns; t++)
			if (roles.leaf[t] &&
			    dist[(size_t)s * ns + t] < height[s])
				height[s] = dist[(size_t)s * ns + t];
	}
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t t = 0; t < ns; t++)
			key[s] += height[t] < height[s] ||
				  (height[t] == height[s] &&
				   f->nodes[f->switches[t]].guid <
					   f->nodes[f->switches[s]].guid);
	for (size_t i = 0; i < (size_t)ns * ns; i++)
		if (dist[i] != CR_HOPS_INF && dist[i] > maxd)
			maxd = dist[i];
	nl = cr_lid_order(f, &o, &lids);
	assert_true(nl > 0);
	for (int i = 0; i < nl; i++) {
		uint8_t dport;
		uint32_t d = cr_lid_switch(f, lids[i], &dport), di;
		unsigned flags = (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD |
				 CR_PS_SORTED |
				 (cr_lid_is_base(f, lids[i]) ? CR_PS_BASE : 0);

		if (d == CR_NO_NODE)
			continue;
		di = f->nodes[d].sw_index;
		r->lft[d][lids[i]] = dport;
		for (uint32_t s = 0; s < ns; s++) {
			const struct cr_node *n = &f->nodes[f->switches[s]];

			in[s] = 0;
			for (unsigned p = 1; dport && p <= n->num_ports; p++)
				in[s] += n->ports[p].remote != CR_NO_NODE &&
					 !cr_is_switch(f, n->ports[p].remote);
		}
		for (unsigned h = maxd; h >= 1; h--) {
			for (uint32_t s = 0; s < ns; s++) {
				uint32_t sw = f->switches[s], m;
				const struct cr_node *n = &f->nodes[sw];
				uint8_t cands[CR_MAX_PORTS], p;
				unsigned nc = 0;

				if (dist[(size_t)s * ns + di] != h)
					continue;
				for (unsigned q = 1; q <= n->num_ports; q++) {
					m = n->ports[q].remote;
					if (m != CR_NO_NODE &&
					    cr_is_switch(f, m) &&
					    dist[(size_t)f->nodes[m].sw_index *
							 ns +
						 di] == h - 1)
						cands[nc++] = q;
				}
				cr_portsel_order_by_key(ps, sw, key, cands, nc);
				p = cr_portsel_pick_flows(ps, sw, cands, nc,
							  lids[i], flags,
							  in[s]);
				r->lft[sw][lids[i]] = p;
				if (in[s] && p != CR_NO_PATH)
					in[f->nodes[n->ports[p].remote]
						   .sw_index] += in[s];
			}
		}
	}
	free(lids);
	cr_roles_release(&roles);
	cr_portsel_free(ps);
	cr_options_release(&o);
	free(dist);
	free(in);
	free(height);
	free(key);
	return r;
}

/*
 * Flow balance (cr-minhop and cr-updn on trees) splits each level of each
 * destination over the threads, with a round per level. With the least
 * work per split, every level of these small trees runs on 2 and 3
 * threads: the tables must be those of one thread (a switch taking its
 * LIDs out of order, or a level started before the farther one has
 * passed on its flows, changes them; cr-minhop's must also be those of
 * the serial reference above), and on the full trees shift must stay
 * free of contention.
 */
static void test_flow_balance_threads(void **state)
{
	static const char *const engines[] = {"minhop", "updn"};
	static const int which[] = {1, 2, 5, 6, -1};

	(void)state;
	cr_flow_set_grain(1);
	for (unsigned w = 0; w < sizeof(which) / sizeof(*which); w++) {
		struct cr_fabric *f =
			which[w] < 0 ? uf_kary(4, 3) : fabric(which[w]);
		bool full = which[w] == 1 || which[w] < 0;

		for (unsigned e = 0; e < 2; e++) {
			int r1, rn;
			struct cr_routing *one =
				route_with(f, engines[e], 1, false, &r1);

			assert_int_equal(r1, 0);
			if (e == 0) {
				struct cr_routing *ref = ref_minhop_flows(f);

				same_lfts(f, ref, one);
				cr_routing_free(ref);
			}
			for (unsigned t = 2; t <= 3; t++) {
				struct cr_routing *many = route_with(
					f, engines[e], t, false, &rn);

				assert_int_equal(rn, 0);
				same_lfts(f, one, many);
				if (full)
					assert_int_equal(uf_shift_contention(
								 f, many, NULL),
							 1);
				cr_routing_free(many);
			}
			cr_routing_free(one);
		}
		cr_fabric_free(f);
	}
	cr_flow_set_grain(0);
	cr_threads_set(0);
}

static void test_hop_table_threads(void **state)
{
	(void)state;
	for (int which = 0; which <= 7; which++) {
		struct cr_fabric *f = fabric(which);
		size_t row = (size_t)f->max_lid + 1,
		       size = f->num_switches * row;
		int ret;
		struct cr_routing *r = route_with(f, "updn", 1, false, &ret);
		uint8_t *h1 = malloc(size + 1), *hn = malloc(size + 1);

		assert_non_null(h1);
		assert_non_null(hn);
		cr_threads_set(1);
		assert_int_equal(cr_routing_hop_table(f, r, h1), 0);
		cr_threads_set(4);
		assert_int_equal(cr_routing_hop_table(f, r, hn), 0);
		assert_memory_equal(h1, hn, size);
		for (uint32_t s = 0; s < f->num_switches; s++)
			for (uint32_t lid = 1; lid < row; lid++) {
				int h = cr_routing_hops(f, r, f->switches[s],
							(uint16_t)lid);

				assert_int_equal(h1[s * row + lid],
						 h < 0 ? CR_NO_PATH : h);
			}
		free(h1);
		free(hn);
		cr_routing_free(r);
		cr_fabric_free(f);
	}
	cr_threads_set(0);
}

/* Ranges of LIDs over several chunks give the rows of the whole table. */
static void test_hop_rows_ranges(void **state)
{
	struct cr_gen_params p = {.seed = 3};
	/* 1,400 hosts: more LIDs than one chunk of the hop context */
	struct cr_fabric *f = cr_gen_two_level(40, 35, 8, 4, true, &p);
	size_t row, size;
	int ret;
	struct cr_routing *r;
	uint8_t *all, *part;
	static const uint32_t cuts[][2] = {
		{0, 1}, {1, 700}, {700, 2100}, {1023, 1025}, {1300, 60000}};

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	row = (size_t)f->max_lid + 1;
	assert_true(row > 1100);
	size = f->num_switches * row;
	r = route_with(f, "minhop", 2, false, &ret);
	assert_int_equal(ret, 0);
	all = malloc(size + 1);
	part = malloc(size + 1);
	assert_non_null(all);
	assert_non_null(part);
	assert_int_equal(cr_routing_hop_table(f, r, all), 0);
	for (unsigned t = 1; t <= 3; t += 2) {
		struct cr_hop_ctx *hc;

		cr_threads_set(t);
		hc = cr_hop_ctx_new(f, r);
		assert_non_null(hc);
		for (unsigned c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			uint32_t b = cuts[c][0], e = cuts[c][1];
			uint32_t w = (e < row ? e : (uint32_t)row) - b;

			memset(part, 0xaa, size);
			assert_int_equal(cr_hop_ctx_rows(hc, b, e, part, w), 0);
			for (uint32_t s = 0; s < f->num_switches; s++)
				assert_memory_equal(part + s * w,
						    all + s * row + b, w);
		}
		cr_hop_ctx_free(hc);
	}
	free(all);
	free(part);
	cr_routing_free(r);
	cr_fabric_free(f);
	cr_threads_set(0);
}

static void same_results(const struct cr_est_result *a,
			 const struct cr_est_result *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->num_phases, b->num_phases);
	assert_int_equal(a->flows, b->flows);
	assert_int_equal(a->unrouted, b->unrouted);
	/* bit for bit: the sums are taken in the same order */
	assert_memory_equal(&a->avg_frac, &b->avg_frac, sizeof(double));
	assert_memory_equal(&a->min_frac, &b->min_frac, sizeof(double));
	assert_memory_equal(&a->avg_gbps, &b->avg_gbps, sizeof(double));
	assert_memory_equal(&a->min_gbps, &b->min_gbps, sizeof(double));
	assert_memory_equal(a->phase, b->phase,
			    a->num_phases * sizeof(*a->phase));
	assert_int_equal(a->num_hot, b->num_hot);
	assert_memory_equal(a->hot, b->hot, a->num_hot * sizeof(*a->hot));
	assert_int_equal(a->num_unrouted_kept, b->num_unrouted_kept);
	for (unsigned i = 0; i < a->num_unrouted_kept; i++) {
		const struct cr_est_unrouted *x = &a->unrouted_kept[i];
		const struct cr_est_unrouted *y = &b->unrouted_kept[i];

		assert_int_equal(x->flow.src_node, y->flow.src_node);
		assert_int_equal(x->flow.dst_lid, y->flow.dst_lid);
		assert_int_equal(x->phase, y->phase);
		assert_int_equal(x->stop_node, y->stop_node);
		assert_int_equal(x->status, y->status);
	}
	assert_int_equal(a->num_links, b->num_links);
	assert_memory_equal(a->link_max_flows, b->link_max_flows,
			    a->num_links * sizeof(*a->link_max_flows));
	assert_memory_equal(a->link_total_flows, b->link_total_flows,
			    a->num_links * sizeof(*a->link_total_flows));
	assert_int_equal(a->mat_dim, b->mat_dim);
	assert_int_equal(a->mat_block, b->mat_block);
	if (a->matrix)
		assert_memory_equal(a->matrix, b->matrix,
				    (size_t)a->mat_dim * a->mat_dim *
					    sizeof(*a->matrix));
}

/*
 * Every pattern the estimator runs in phases, on a contended fabric with
 * flows that do not arrive (one host's LID removed from every LFT)
 * and a block-averaged shift matrix: identical for 1, 2 and 3 threads.
 */
static void test_estimate_threads(void **state)
{
	static const char *const specs[] = {"shift", "shift:9", "bisect:7",
					    "fanin:5", "alltoall"};
	struct cr_gen_params gp = {.seed = 11};
	struct cr_fabric *f = cr_gen_random(12, 4, 3, &gp);
	struct cr_est_params par;
	struct cr_hosts *h;
	struct cr_routing *r;
	int ret;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = route_with(f, "minhop", 1, false, &ret);
	assert_int_equal(ret, 0);
	h = cr_hosts_default(f);
	assert_non_null(h);
	assert_int_equal(h->count, 36);
	for (uint32_t s = 0; s < f->num_switches; s++)
		r->lft[f->switches[s]][h->ep[5].lid] = CR_NO_PATH;
	cr_est_params_init(&par);
	par.matrix_max = 7; /* 36 hosts in blocks of 6 */
	for (unsigned i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct cr_est_result *res[3];
		struct cr_pattern p;

		assert_int_equal(cr_pattern_parse(specs[i], &p), 0);
		for (unsigned t = 1; t <= 3; t++) {
			struct cr_est *e;

			cr_threads_set(t);
			e = cr_est_new(f, r, &par);
			assert_non_null(e);
			res[t - 1] = cr_est_run(e, &p, h);
			assert_non_null(res[t - 1]);
			cr_est_free(e);
		}
		assert_true(res[0]->unrouted > 0);
		same_results(res[0], res[1]);
		same_results(res[0], res[2]);
		for (unsigned t = 0; t < 3; t++)
			cr_est_result_free(res[t]);
		cr_pattern_release(&p);
	}
	cr_hosts_free(h);
	cr_routing_free(r);
	cr_fabric_free(f);
	cr_threads_set(0);
}

static int count_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	uint32_t *seen = arg;

	(void)nparts;
	for (uint32_t i = begin; i < end; i++)
		seen[i] += part + 1;
	return part == 2 ? 7 : 0;
}

/* The distinct threads that ran ranges. */
static struct {
	pthread_t id[CR_MAX_THREADS];
	unsigned n;
	pthread_mutex_t lock;
} tids = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int thread_range(void *arg, unsigned part, unsigned nparts,
			uint32_t begin, uint32_t end)
{
	pthread_t self = pthread_self();
	unsigned i;

	count_range(arg, part, nparts, begin, end);
	pthread_mutex_lock(&tids.lock);
	for (i = 0; i < tids.n && !pthread_equal(tids.id[i], self); i++)
		;
	if (i == tids.n && tids.n < CR_MAX_THREADS)
		tids.id[tids.n++] = self;
	pthread_mutex_unlock(&tids.lock);
	return 0;
}

static void test_parallel_ranges(void **state)
{
	uint32_t seen[1000] = {0};

	(void)state;
	cr_threads_set(5);
	assert_int_equal(cr_parallel_parts(1000, 1), 5);
	assert_int_equal(cr_parallel_parts(3, 1), 3);
	assert_int_equal(cr_parallel_parts(10, 100), 1);
	/* Every item once, the parts in order; a part's error comes back. */
	assert_int_equal(cr_parallel(1000, 5, count_range, seen), 7);
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(seen[i], i / 200 + 1);

	/* More ranges than threads: each still once, on 2 threads at most. */
	cr_threads_set(2);
	assert_int_equal(cr_parallel_chunks(1000, 1), 8);
	assert_int_equal(cr_parallel_chunks(1000, 250), 4);
	cr_threads_set(1);
	assert_int_equal(cr_parallel_chunks(1000, 1), 1);
	cr_threads_set(40);
	assert_int_equal(cr_parallel_chunks(100000, 1), CR_MAX_THREADS);
	cr_threads_set(2);
	memset(seen, 0, sizeof(seen));
	tids.n = 0;
	assert_int_equal(cr_parallel(1000, 8, thread_range, seen), 0);
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(seen[i], i / 125 + 1);
	assert_true(tids.n >= 1 && tids.n <= 2);
	cr_threads_set(0);
	assert_true(cr_threads_get() >= 1 && cr_threads_get() <= 8);
}

struct side_arg {
	unsigned runs; /* atomic */
	pthread_t by;
};

static int side_fn(void *p)
{
	struct side_arg *a = p;

	__atomic_fetch_add(&a->runs, 1, __ATOMIC_RELAXED);
	a->by = pthread_self();
	return 42;
}

/* A side job runs once and gives its value back, with 1 or 2 threads. */
static void test_side_job(void **state)
{
	struct cr_side s;

	(void)state;
	for (unsigned t = 1; t <= 2; t++) {
		struct side_arg a = {0};

		cr_threads_set(t);
		cr_side_start(&s, side_fn, &a);
		assert_int_equal(s.started, t > 1);
		assert_int_equal(cr_side_join(&s), 42);
		assert_int_equal(a.runs, 1);
		/* One thread: the caller ran it at the join. */
		if (t == 1)
			assert_true(pthread_equal(a.by, pthread_self()));
		assert_int_equal(cr_side_join(&s), 42);
		assert_int_equal(a.runs, 1);
	}
	cr_threads_set(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engines_same_output),
		cmocka_unit_test(test_flow_balance_threads),
		cmocka_unit_test(test_hop_table_threads),
		cmocka_unit_test(test_hop_rows_ranges),
		cmocka_unit_test(test_estimate_threads),
		cmocka_unit_test(test_parallel_ranges),
		cmocka_unit_test(test_side_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
