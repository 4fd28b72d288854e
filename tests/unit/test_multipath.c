// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The split and indep path models against a second implementation of
 * their definitions, written here from doc/design.md without any of the
 * estimator's code: its own walk through the LFTs, its own penalty
 * counts and a plain progressive filling over (node, port) links. Both
 * must give every flow the same rate to 1e-4 at LMC 1 and 2, on a tree
 * with cables cut and on an irregular fabric, for shift phases and for
 * phases that load the penalty model (fan-in, repeated pairs).
 */
#include <math.h>
#include <string.h>

#include <croute/estimate/estimate.h>
#include <croute/io/gen.h>

#include "testutil.h"

#define MAXL 64 /* links on one path */
#define MAXK 4 /* lanes: LMC 2 */
#define BE 0.965
#define BS 0.925
#define GR 1.35

struct ref_flow {
	uint32_t src, dst; /* nodes */
	unsigned k;
	unsigned nlinks; /* the union of the lanes' links */
	uint32_t link[MAXK * MAXL]; /* node << 8 | port */
	unsigned cnt[MAXK * MAXL]; /* lanes on the link */
	unsigned lane_len[MAXK];
	uint32_t lane[MAXK][MAXL];
	double inject, penalty, rate;
	bool ok;
};

struct ref {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	struct ref_flow *fl;
	size_t n;
};

static double cap_of(const struct cr_fabric *f, uint32_t l)
{
	const struct cr_port *a = &f->nodes[l >> 8].ports[l & 0xff];
	const struct cr_port *b = &f->nodes[a->remote].ports[a->remote_port];
	uint32_t ra = cr_link_rate_mbps(a->width, a->speed);
	uint32_t rb = cr_link_rate_mbps(b->width, b->speed);

	return ra < rb ? ra : rb;
}

/* The links from host src's port 1 to lid, or 0 when it does not arrive. */
static unsigned ref_walk(const struct ref *x, uint32_t src, uint16_t lid,
			 uint32_t *out)
{
	const struct cr_fabric *f = x->f;
	uint32_t n = src, want = f->lid_node[lid];
	unsigned p = 1, len = 0;

	while (len < MAXL) {
		const struct cr_port *pt = &f->nodes[n].ports[p];

		if (pt->remote == CR_NO_NODE)
			return 0;
		out[len++] = n << 8 | p;
		n = pt->remote;
		if (f->nodes[n].type != CR_NODE_SWITCH)
			return n == want ? len : 0;
		if (n == want)
			return len;
		p = x->r->lft[n][lid];
		if (!p || p > f->nodes[n].num_ports)
			return 0;
	}
	return 0;
}

static void ref_lanes(const struct ref *x, struct ref_flow *fl, uint16_t lid)
{
	const struct cr_port *dp =
		&x->f->nodes[x->f->lid_node[lid]].ports[x->f->lid_port[lid]];

	fl->k = 1u << dp->lmc;
	fl->ok = true;
	fl->nlinks = 0;
	fl->inject = cap_of(x->f, fl->src << 8 | 1);
	for (unsigned j = 0; j < fl->k; j++) {
		fl->lane_len[j] = ref_walk(x, fl->src, lid + j, fl->lane[j]);
		if (!fl->lane_len[j])
			fl->ok = false;
		for (unsigned a = 0; a < fl->lane_len[j]; a++) {
			unsigned b = 0;

			while (b < fl->nlinks && fl->link[b] != fl->lane[j][a])
				b++;
			if (b == fl->nlinks) {
				fl->link[fl->nlinks] = fl->lane[j][a];
				fl->cnt[fl->nlinks++] = 0;
			}
			fl->cnt[b]++;
		}
	}
}

/* The penalty of each flow: ps, Pout, pe as doc/design.md defines them. */
static void ref_penalties(struct ref *x)
{
	size_t n = x->n;

	for (size_t i = 0; i < n; i++) {
		struct ref_flow *a = &x->fl[i];
		unsigned ds = 0, de = 0, phi = 0, omega = 0;
		double pout = 0, pe = 1;

		if (!a->ok)
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct ref_flow *b = &x->fl[j];
			bool earlier = false;

			if (!b->ok)
				continue;
			ds += b->src == a->src;
			de += b->dst == a->dst;
			omega += b->dst == a->dst && b->src == a->src;
			if (b->dst != a->dst)
				continue;
			for (size_t m = 0; m < j; m++)
				earlier |= x->fl[m].ok &&
					   x->fl[m].dst == a->dst &&
					   x->fl[m].src == b->src;
			phi += !earlier;
		}
		/* Pout: the sender's largest ps over its flows */
		for (size_t j = 0; j < n; j++) {
			const struct ref_flow *b = &x->fl[j];
			unsigned de_b = 0;
			double ps = 1;

			if (!b->ok || b->src != a->src)
				continue;
			for (size_t m = 0; m < n; m++)
				de_b += x->fl[m].ok && x->fl[m].dst == b->dst;
			if (ds >= 2)
				ps = ds * BS * (de_b >= 3 ? GR : 1);
			if (ps > pout)
				pout = ps;
		}
		if (de != 1)
			pe = phi * BE * omega;
		a->penalty = pout > pe ? pout : pe;
	}
}

/*
 * Progressive filling over variables v, each with a bound and shares on
 * links: every unfrozen variable at level t; a link is full when its
 * frozen load plus t times its unfrozen shares reaches its capacity.
 */
struct var {
	double bound, rate;
	unsigned nl;
	const uint32_t *link;
	double share[MAXK * MAXL];
	bool frozen;
};

static double link_level(const struct cr_fabric *f, struct var *v, size_t nv,
			 uint32_t l)
{
	double load = 0, w = 0;

	for (size_t i = 0; i < nv; i++)
		for (unsigned a = 0; a < v[i].nl; a++) {
			if (v[i].link[a] != l)
				continue;
			if (v[i].frozen)
				load += v[i].share[a] * v[i].rate;
			else
				w += v[i].share[a];
		}
	return w > 0 ? (cap_of(f, l) - load) / w : INFINITY;
}

static void fill(const struct cr_fabric *f, struct var *v, size_t nv)
{
	for (;;) {
		double t = INFINITY;
		bool any = false;

		for (size_t i = 0; i < nv; i++) {
			if (v[i].frozen)
				continue;
			any = true;
			if (v[i].bound < t)
				t = v[i].bound;
			for (unsigned a = 0; a < v[i].nl; a++) {
				double lv = link_level(f, v, nv, v[i].link[a]);

				if (lv < t)
					t = lv;
			}
		}
		if (!any)
			return;
		/* freeze what stops at t: at its bound, or on a full link */
		for (size_t i = 0; i < nv; i++) {
			bool stop =
				!v[i].frozen && v[i].bound <= t * (1 + 1e-12);

			for (unsigned a = 0;
			     !v[i].frozen && !stop && a < v[i].nl; a++)
				stop = link_level(f, v, nv, v[i].link[a]) <=
				       t * (1 + 1e-12);
			if (stop)
				v[i].rate = t;
		}
		for (size_t i = 0; i < nv; i++)
			if (!v[i].frozen && v[i].rate == t)
				v[i].frozen = true;
	}
}

static void ref_solve(struct ref *x, enum cr_est_paths model)
{
	struct var *v = calloc(x->n * MAXK, sizeof(*v));
	size_t nv = 0;

	assert_non_null(v);
	for (size_t i = 0; i < x->n; i++) {
		struct ref_flow *fl = &x->fl[i];

		if (!fl->ok)
			continue;
		if (model == CR_PATHS_SPLIT) {
			double b = INFINITY;

			v[nv].link = fl->link;
			v[nv].nl = fl->nlinks;
			for (unsigned a = 0; a < fl->nlinks; a++) {
				double c = cap_of(x->f, fl->link[a]) * fl->k /
					   fl->cnt[a];

				v[nv].share[a] = (double)fl->cnt[a] / fl->k;
				b = c < b ? c : b;
			}
			v[nv].bound = b / fl->penalty;
			v[nv].rate = -1;
			nv++;
			continue;
		}
		for (unsigned j = 0; j < fl->k; j++) {
			double b = fl->inject / fl->k;

			v[nv].link = fl->lane[j];
			v[nv].nl = fl->lane_len[j];
			for (unsigned a = 0; a < fl->lane_len[j]; a++) {
				double c = cap_of(x->f, fl->lane[j][a]);

				v[nv].share[a] = 1;
				b = c < b ? c : b;
			}
			v[nv].bound = b / fl->penalty;
			v[nv].rate = -1;
			nv++;
		}
	}
	fill(x->f, v, nv);
	nv = 0;
	for (size_t i = 0; i < x->n; i++) {
		struct ref_flow *fl = &x->fl[i];
		unsigned k = model == CR_PATHS_SPLIT ? 1 : fl->k;

		fl->rate = 0;
		if (!fl->ok)
			continue;
		for (unsigned j = 0; j < k; j++)
			fl->rate += v[nv++].rate;
	}
	free(v);
}

/* Hosts: CA nodes in node order; their base LIDs. */
static size_t hosts_of(const struct cr_fabric *f, uint32_t *h)
{
	size_t n = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		if (f->nodes[i].type == CR_NODE_CA &&
		    f->nodes[i].ports[1].remote != CR_NO_NODE)
			h[n++] = i;
	return n;
}

/* One phase through both; every flow's rate must agree. */
static void compare_phase(const struct cr_fabric *f, const struct cr_routing *r,
			  const uint32_t (*pair)[2], size_t n,
			  enum cr_est_paths model)
{
	struct cr_est_params par;
	struct cr_flow *flows = calloc(n, sizeof(*flows));
	struct cr_flow_est *out = calloc(n, sizeof(*out));
	struct ref x = {.f = f, .r = r, .n = n};
	struct cr_est *e;

	x.fl = calloc(n, sizeof(*x.fl));
	assert_non_null(flows);
	assert_non_null(out);
	assert_non_null(x.fl);
	cr_est_params_init(&par);
	par.pen.be = BE;
	par.pen.bs = BS;
	par.pen.gr = GR;
	par.paths = model;
	e = cr_est_new(f, r, &par);
	assert_non_null(e);
	for (size_t i = 0; i < n; i++) {
		uint16_t lid = f->nodes[pair[i][1]].ports[1].lid;

		flows[i].src_node = pair[i][0];
		flows[i].src_port = 1;
		flows[i].dst_lid = lid;
		x.fl[i].src = pair[i][0];
		x.fl[i].dst = pair[i][1];
		ref_lanes(&x, &x.fl[i], lid);
		assert_true(x.fl[i].ok);
	}
	ref_penalties(&x);
	ref_solve(&x, model);
	assert_int_equal(cr_est_phase(e, flows, n, out), 0);
	for (size_t i = 0; i < n; i++) {
		double a = out[i].rate / out[i].inject;
		double b = x.fl[i].rate / x.fl[i].inject;

		if (fabs(a - b) > 1e-4)
			fail_msg("%s flow %zu: estimator %.6f, reference %.6f",
				 cr_est_paths_name(model), i, a, b);
	}
	cr_est_free(e);
	free(flows);
	free(out);
	free(x.fl);
}

static void check_fabric(struct cr_fabric *f, const char *engine)
{
	uint32_t *h = calloc(f->num_nodes, sizeof(*h));
	uint32_t(*pair)[2] = calloc(f->num_nodes * 2, sizeof(*pair));
	size_t nh;

	assert_non_null(h);
	assert_non_null(pair);
	nh = hosts_of(f, h);
	assert_true(nh >= 8);
	for (unsigned lmc = 1; lmc <= 2; lmc++) {
		struct cr_routing *r;

		assert_int_equal(cr_fabric_assign_lids(f, lmc), 0);
		r = tu_route(f, engine, NULL);
		for (int m = CR_PATHS_SPLIT; m <= CR_PATHS_INDEP; m++) {
			/* shift phases */
			for (size_t k = 1; k < nh; k += 5) {
				for (size_t i = 0; i < nh; i++) {
					pair[i][0] = h[i];
					pair[i][1] = h[(i + k) % nh];
				}
				compare_phase(f, r, (const uint32_t(*)[2])pair,
					      nh, (enum cr_est_paths)m);
			}
			/* fan-in on one host, and repeated pairs */
			for (size_t i = 0; i < 6; i++) {
				pair[i][0] = h[1 + i];
				pair[i][1] = h[0];
			}
			pair[6][0] = h[nh - 1];
			pair[6][1] = h[nh / 2];
			pair[7][0] = h[nh - 1];
			pair[7][1] = h[nh / 2];
			pair[8][0] = h[nh - 1];
			pair[8][1] = h[2];
			compare_phase(f, r, (const uint32_t(*)[2])pair, 9,
				      (enum cr_est_paths)m);
		}
		cr_routing_free(r);
	}
	free(h);
	free(pair);
}

static void test_tree_cut(void **state)
{
	struct cr_gen_params p = {0};
	struct cr_fabric *f, *g, *t;

	(void)state;
	f = cr_gen_kary_ntree(4, 3, &p);
	assert_non_null(f);
	/* two cables of the top level gone: paths differ between lanes */
	for (uint32_t n = 0, cut = 0; n < f->num_nodes && cut < 2; n++) {
		if (f->nodes[n].type != CR_NODE_SWITCH ||
		    strstr(f->nodes[n].desc, "l0") == NULL)
			continue;
		g = tu_cut_link(f, n, 1 + cut);
		cr_fabric_free(f);
		f = g;
		cut++;
	}
	t = f;
	check_fabric(t, "updn");
	check_fabric(t, "minhop");
	cr_fabric_free(t);
}

static void test_random(void **state)
{
	struct cr_gen_params p = {.seed = 3};
	struct cr_fabric *f = cr_gen_random(12, 4, 3, &p);

	(void)state;
	assert_non_null(f);
	check_fabric(f, "updn");
	cr_fabric_free(f);
}

/* At LMC 0 the three models are the same estimate, flow by flow. */
static void test_lmc0_same(void **state)
{
	struct cr_gen_params p = {.seed = 5};
	struct cr_fabric *f = cr_gen_random(10, 4, 3, &p);
	struct cr_routing *r;
	struct cr_flow flows[30];
	struct cr_flow_est out[3][30];
	uint32_t h[64];
	size_t nh;

	(void)state;
	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = tu_route(f, "minhop", NULL);
	nh = hosts_of(f, h);
	assert_int_equal(nh, 30);
	for (size_t i = 0; i < nh; i++) {
		flows[i].src_node = h[i];
		flows[i].src_port = 1;
		flows[i].dst_lid = f->nodes[h[(i * 7 + 3) % nh]].ports[1].lid;
	}
	for (int m = CR_PATHS_BASE; m <= CR_PATHS_INDEP; m++) {
		struct cr_est_params par;
		struct cr_est *e;

		cr_est_params_init(&par);
		par.paths = (enum cr_est_paths)m;
		e = cr_est_new(f, r, &par);
		assert_non_null(e);
		assert_true(cr_est_phase(e, flows, nh, out[m]) >= 0);
		cr_est_free(e);
	}
	for (size_t i = 0; i < nh; i++) {
		assert_true(out[0][i].rate == out[1][i].rate);
		assert_true(out[0][i].rate == out[2][i].rate);
	}
	cr_routing_free(r);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_cut),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_lmc0_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
