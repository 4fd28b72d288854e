// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The improvement pass: never worse than its start, keeps each engine's
 * legality (cr_check: reachability, minimal paths where the engine
 * guarantees them, credit loops), deterministic; and a hand-made case
 * where one move raises the minimum rate from 1/2 to 1. The held estimate
 * the pass scores moves with gives the full estimate's figures, bit for
 * bit, after any change tried or kept.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <croute/model/check.h>
#include <croute/route/engine.h>
#include <croute/estimate/est_inc.h>
#include <croute/io/gen.h>
#include <croute/tune/optimize.h>
#include <croute/estimate/host_order.h>

#include "testutil.h"

/* The last route()'s by-products (cr-updn's roots, for the pass). */
static struct cr_byproducts by;

/* Routed by engine name; with port_shifting when shifting. */
static struct cr_routing *route_ps(const struct cr_fabric *f, const char *name,
				   bool shifting)
{
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;

	assert_non_null(r);
	cr_options_init(&o);
	o.port_shifting = shifting;
	assert_int_equal(cr_route_by(cr_engine_find(name), f, &o, r, &by), 0);
	cr_options_release(&o);
	return r;
}

static struct cr_routing *route(const struct cr_fabric *f, const char *name)
{
	return route_ps(f, name, false);
}

static double score(const struct cr_fabric *f, const struct cr_routing *r,
		    const struct cr_objective *obj)
{
	struct cr_hosts *h = cr_hosts_for(f, &by, NULL);
	double s[4];

	assert_non_null(h);
	assert_int_equal(cr_objective_score(f, r, obj, h, s), 0);
	cr_hosts_free(h);
	return s[0];
}

/* Every switch's row of a per-(switch, LID) table (LFTs or SLs) equal. */
static bool same_rows(const struct cr_fabric *f, uint8_t *const *a,
		      uint8_t *const *b, size_t len)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];

		if (memcmp(a[n], b[n], len))
			return false;
	}
	return true;
}

static bool same_lfts(const struct cr_fabric *f, const struct cr_routing *a,
		      const struct cr_routing *b)
{
	return same_rows(f, a->lft, b->lft, a->max_lid + 1);
}

/* The same LFTs and, for layered engines, the same path SLs. */
static bool same_tables(const struct cr_fabric *f, const struct cr_routing *a,
			const struct cr_routing *b)
{
	return same_lfts(f, a, b) &&
	       (!a->sl || same_rows(f, a->sl, b->sl, a->max_lid + 1));
}

/* Never worse, legal, deterministic, for each engine. */
static void engines_on(struct cr_fabric *f)
{
	static const char *const names[] = {"minhop", "updn", "lash"};
	struct cr_objective obj;
	struct cr_opt_params p;

	cr_opt_params_init(&p);
	p.budget = 60; /* the evaluation cap ends it, not the clock */
	p.max_evals = 40;
	assert_int_equal(cr_objective_parse("shift:avg", "test", &obj), 0);
	for (unsigned i = 0; i < 3; i++) {
		struct cr_routing *r = route(f, names[i]);
		struct cr_routing *again = route(f, names[i]);
		struct cr_check_report before, after;
		struct cr_opt_stats st;
		unsigned flags =
			CR_CHECK_CREDIT |
			(strcmp(names[i], "updn") ? CR_CHECK_MINIMAL : 0);
		double s0 = score(f, r, &obj), s1;

		assert_int_equal(cr_check(f, r, flags, NULL, 0, &before), 0);
		assert_int_equal(cr_optimize(f, cr_engine_find(names[i]), &obj,
					     &p, r, &by, &st),
				 0);
		s1 = score(f, r, &obj);
		assert_true(s1 >= s0 - 1e-12);
		assert_true(fabs(st.before - s0) < 1e-12);
		assert_true(fabs(st.after - s1) < 1e-12);
		assert_false(st.budget_hit);
		assert_int_equal(cr_check(f, r, flags, NULL, 0, &after), 0);
		assert_int_equal(after.unreachable, 0);
		assert_int_equal(after.loops, 0);
		assert_true(after.credit_loops <= before.credit_loops);
		if (flags & CR_CHECK_MINIMAL)
			assert_int_equal(after.non_minimal, 0);
		if (!strcmp(names[i], "updn"))
			assert_int_equal(after.credit_loops, 0);
		/* the same inputs give the same tables */
		assert_int_equal(cr_optimize(f, cr_engine_find(names[i]), &obj,
					     &p, again, &by, NULL),
				 0);
		assert_true(same_lfts(f, r, again));
		cr_routing_free(again);
		cr_routing_free(r);
	}
	cr_objective_release(&obj);
	cr_fabric_free(f);
}

/*
 * The budget is work, not seconds: a budget far below the pass's needs
 * stops it by the work done, never by the clock, and twice the same
 * budget gives the same tables and the same moves tried (a budget read
 * from the clock would vary with the machine's load).
 */
static void test_work_budget(void **state)
{
	struct cr_gen_params gp = {.seed = 5};
	struct cr_fabric *f = cr_gen_random(16, 4, 3, &gp);
	struct cr_objective obj;
	struct cr_opt_params p;
	struct cr_opt_stats st1, st2;
	struct cr_routing *r1, *r2;

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	assert_int_equal(cr_objective_parse("shift:avg", "test", &obj), 0);
	cr_opt_params_init(&p);
	/* 1 ms of work: a few hundred solves at most */
	p.budget = 1e-3;
	r1 = route(f, "minhop");
	r2 = route(f, "minhop");
	assert_int_equal(cr_optimize(f, cr_engine_find("minhop"), &obj, &p, r1,
				     &by, &st1),
			 0);
	assert_int_equal(cr_optimize(f, cr_engine_find("minhop"), &obj, &p, r2,
				     &by, &st2),
			 0);
	assert_true(st1.work_hit);
	assert_false(st1.budget_hit);
	assert_true(st2.work_hit);
	assert_int_equal(st1.evals, st2.evals);
	assert_int_equal(st1.moves, st2.moves);
	assert_true(st1.evals < 1000); /* the work stopped it early */
	assert_true(same_lfts(f, r1, r2));
	cr_routing_free(r1);
	cr_routing_free(r2);
	cr_objective_release(&obj);
	cr_fabric_free(f);
}

static void test_random(void **state)
{
	struct cr_gen_params gp = {.seed = 5};
	struct cr_fabric *f = cr_gen_random(16, 4, 3, &gp);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	engines_on(f);
}

static void test_torus(void **state)
{
	struct cr_gen_params gp = {0};
	unsigned dims[] = {4, 4};
	struct cr_fabric *f = cr_gen_torus(dims, 2, true, 2, &gp);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	engines_on(f);
}

/*
 * Leaves A and B, spines S1 and S2, QDR. By hand, A sends both of B's
 * hosts through S1: a0 -> b0 and a1 -> b1 share A -> S1 and get half the
 * injection rate each. Moving b1's LID at A to S2 (one entry) gives both
 * the full rate: the pass must find a minimum of 1 on these two flows.
 */
static void test_one_move(void **state)
{
	struct cr_fabric *f = cr_fabric_new();
	uint32_t a = tu_switch(f, 4, 1), b = tu_switch(f, 4, 2);
	uint32_t s1 = tu_switch(f, 2, 3), s2 = tu_switch(f, 2, 4), h[4];
	char path[] = "/tmp/croute-opt-XXXXXX", spec[64];
	struct cr_objective obj;
	struct cr_opt_params p;
	struct cr_opt_stats st;
	struct cr_routing *r;
	FILE *fp;
	int fd;

	tu_link(f, a, 3, s1, 1);
	tu_link(f, a, 4, s2, 1);
	tu_link(f, b, 3, s1, 2);
	tu_link(f, b, 4, s2, 2);
	for (unsigned i = 0; i < 4; i++) {
		h[i] = tu_host(f, i);
		tu_link(f, i < 2 ? a : b, 1 + i % 2, h[i], 1);
	}
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = cr_routing_new(f);
	assert_non_null(r);
	for (unsigned i = 0; i < 4; i++) {
		uint16_t lid = f->nodes[h[i]].ports[1].lid;
		bool at_a = i < 2;

		r->lft[a][lid] = at_a ? 1 + i % 2 : 3;
		r->lft[b][lid] = at_a ? 3 : 1 + i % 2;
		r->lft[s1][lid] = at_a ? 1 : 2;
		r->lft[s2][lid] = at_a ? 1 : 2;
	}
	for (uint32_t s = 0; s < 4; s++) {
		uint32_t n = f->switches[s];
		uint16_t own = f->nodes[n].ports[0].lid;

		r->lft[n][own] = 0;
		for (uint32_t t = 0; t < 4; t++) {
			uint32_t m = f->switches[t];

			if (m == n)
				continue;
			/* switch LIDs: any working port */
			for (unsigned q = 1; q <= f->nodes[n].num_ports; q++)
				if (cr_remote(f, n, q) == m ||
				    (cr_remote(f, n, q) != CR_NO_NODE &&
				     cr_is_switch(f, cr_remote(f, n, q)) &&
				     r->lft[n][f->nodes[m].ports[0].lid] ==
					     CR_NO_PATH))
					r->lft[n][f->nodes[m].ports[0].lid] =
						(uint8_t)q;
		}
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fprintf(fp, "h0000 h0002\nh0001 h0003\n");
	fclose(fp);
	snprintf(spec, sizeof(spec), "flows:%s:min", path);
	assert_int_equal(cr_objective_parse(spec, "test", &obj), 0);
	assert_true(fabs(score(f, r, &obj) - 0.5) < 1e-9);
	cr_opt_params_init(&p);
	p.budget = 60;
	assert_int_equal(
		cr_optimize(f, cr_engine_find("minhop"), &obj, &p, r, &by, &st),
		0);
	assert_true(fabs(st.before - 0.5) < 1e-9);
	assert_true(fabs(st.after - 1.0) < 1e-9);
	assert_true(fabs(score(f, r, &obj) - 1.0) < 1e-9);
	assert_true(st.moves >= 1);
	/* A now splits b0 and b1 over the two spines */
	assert_int_not_equal(r->lft[a][f->nodes[h[2]].ports[1].lid],
			     r->lft[a][f->nodes[h[3]].ports[1].lid]);
	unlink(path);
	cr_objective_release(&obj);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * The held estimate the pass scores moves with, on a 10-switch random
 * fabric routed by minhop, for the npat patterns of spec.
 */
struct held {
	struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_hosts *h;
	struct cr_objective obj;
	struct cr_pattern pats[2];
	struct cr_est_inc *x;
};

static struct held *held_open(const char *spec, unsigned npat)
{
	struct cr_gen_params gp = {.seed = 3};
	struct held *ho = calloc(1, sizeof(*ho));
	bool too_big;

	assert_non_null(ho);
	assert_true(npat <= 2);
	ho->f = cr_gen_random(10, 3, 2, &gp);
	assert_non_null(ho->f);
	assert_int_equal(cr_fabric_assign_lids(ho->f, 0), 0);
	ho->r = route(ho->f, "minhop");
	ho->h = cr_hosts_for(ho->f, &by, NULL);
	assert_non_null(ho->h);
	assert_int_equal(cr_objective_parse(spec, "test", &ho->obj), 0);
	for (unsigned i = 0; i < npat; i++)
		cr_objective_pattern(&ho->obj, i, ho->h, &ho->pats[i]);
	ho->x = cr_est_inc_new(ho->f, ho->r, ho->pats, npat, ho->h, 0,
			       &too_big);
	assert_non_null(ho->x);
	return ho;
}

static void held_close(struct held *ho)
{
	cr_est_inc_free(ho->x);
	cr_objective_release(&ho->obj);
	cr_hosts_free(ho->h);
	cr_routing_free(ho->r);
	cr_fabric_free(ho->f);
	free(ho);
}

/*
 * Every entry of every switch is changed to each other port in turn: a
 * try that arrives gives exactly the full estimate of the changed tables;
 * every third is kept, and the held figures stay the full estimate's.
 */
static void test_held_estimate(void **state)
{
	struct held *ho = held_open("shift:avg,bisect:min", 2);
	struct cr_fabric *f = ho->f;
	struct cr_routing *r = ho->r;
	struct cr_hosts *h = ho->h;
	struct cr_est_inc *x = ho->x;
	unsigned tried = 0, kept = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t w = f->switches[s];

		for (unsigned i = 0; i < h->count; i++) {
			uint16_t lid = h->ep[i].lid;
			uint8_t p = r->lft[w][lid];

			for (unsigned q = 1; q <= f->nodes[w].num_ports; q++) {
				double avg[2], min[2], full[2];
				long rc;

				if (q == p || cr_remote(f, w, q) == CR_NO_NODE)
					continue;
				r->lft[w][lid] = (uint8_t)q;
				rc = cr_est_inc_try(x, w, p, lid, avg, min);
				assert_true(rc >= -2 && rc != -1);
				if (rc <= 0) {
					r->lft[w][lid] = p;
					continue;
				}
				assert_int_equal(cr_objective_score(f, r,
								    &ho->obj, h,
								    full),
						 0);
				assert_true(avg[0] == full[0]);
				assert_true(min[1] == full[1]);
				if (++tried % 3) {
					r->lft[w][lid] = p;
					continue;
				}
				assert_int_equal(cr_est_inc_commit(x), 0);
				kept++;
				p = (uint8_t)q;
			}
		}
	}
	assert_true(kept > 10);
	{
		double full[2];

		assert_int_equal(cr_objective_score(f, r, &ho->obj, h, full),
				 0);
		assert_true(cr_est_inc_avg(x, 0) == full[0]);
		assert_true(cr_est_inc_min(x, 1) == full[1]);
	}
	held_close(ho);
}

/*
 * What the pass's swaps rely on: cr_est_inc_phases names the phases of the
 * flows a change moves (in shift, one flow to a LID per phase: as many as
 * the try moves), and two changes whose phases are disjoint score, with an
 * average, as the sum of the two changes alone; a swap of such LIDs gains
 * nothing the single moves did not find.
 */
static void test_disjoint_phases(void **state)
{
	struct held *ho = held_open("shift:avg", 1);
	struct cr_fabric *f = ho->f;
	struct cr_routing *r = ho->r;
	struct cr_hosts *h = ho->h;
	struct cr_est_inc *x = ho->x;
	unsigned disjoint = 0, shared = 0;
	struct cr_est_inc_change c[2];
	uint32_t pa[256], pb[256];
	double base;

	base = cr_est_inc_avg(x, 0);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t w = f->switches[s];

		for (unsigned i = 0; i < h->count * h->count; i++) {
			uint16_t la = h->ep[i / h->count].lid;
			uint16_t lb = h->ep[i % h->count].lid;
			uint8_t p = r->lft[w][la], pb_ = r->lft[w][lb];
			uint32_t na, nb, k = 0, j = 0;
			double a[1], b[1], ab[1], m[1];
			long rca, rcb;
			bool meet = false;

			if (la >= lb || p == pb_ ||
			    cr_remote(f, w, pb_) == CR_NO_NODE ||
			    !cr_is_switch(f, cr_remote(f, w, pb_)) ||
			    cr_remote(f, w, p) == CR_NO_NODE ||
			    !cr_is_switch(f, cr_remote(f, w, p)))
				continue;
			na = cr_est_inc_phases(x, w, p, la, pa, 256);
			nb = cr_est_inc_phases(x, w, pb_, lb, pb, 256);
			assert_true(na <= 256 && nb <= 256);
			for (uint32_t t = 1; t < na; t++)
				assert_true(pa[t - 1] < pa[t]);
			while (k < na && j < nb) {
				if (pa[k] == pb[j])
					meet = true;
				if (pa[k] < pb[j])
					k++;
				else
					j++;
			}
			/* the swap: la to lb's port, lb to la's */
			c[0] = (struct cr_est_inc_change){
				.sw = w, .old_port = p, .lid = la};
			c[1] = (struct cr_est_inc_change){
				.sw = w, .old_port = pb_, .lid = lb};
			r->lft[w][la] = pb_;
			rca = cr_est_inc_try(x, w, p, la, a, m);
			r->lft[w][la] = p;
			r->lft[w][lb] = p;
			rcb = cr_est_inc_try(x, w, pb_, lb, b, m);
			r->lft[w][la] = pb_;
			if (rca > 0 && rcb > 0 &&
			    cr_est_inc_try_n(x, c, 2, ab, m) > 0) {
				assert_int_equal(rca, na);
				assert_int_equal(rcb, nb);
				if (!meet) {
					assert_true(fabs((ab[0] - base) -
							 (a[0] - base) -
							 (b[0] - base)) <
						    1e-12);
					disjoint++;
				} else {
					shared++;
				}
			}
			r->lft[w][la] = p;
			r->lft[w][lb] = pb_;
		}
	}
	assert_true(disjoint > 5);
	assert_true(shared > 5);
	held_close(ho);
}

/*
 * A phase's last solve is reused when a try gives it the same changed
 * flows on the same paths, and only while nothing was committed to it:
 * the figures stay those of a full estimate, to the bit.
 */
static void test_held_reuse(void **state)
{
	struct held *ho = held_open("shift:avg", 1);
	struct cr_fabric *f = ho->f;
	struct cr_routing *r = ho->r;
	struct cr_hosts *h = ho->h;
	struct cr_est_inc *x = ho->x;
	uint16_t la, lb;
	uint32_t w = CR_NO_NODE;
	uint8_t p = 0, q = 0, pb = 0, qb = 0;
	double a1[1], a2[1], m[1], full[1];
	uint64_t solves, reused;

	la = h->ep[0].lid;
	lb = h->ep[h->count / 2].lid;
	/* a switch where both LIDs can take another port (tried once) */
	for (uint32_t s = 0; s < f->num_switches && w == CR_NO_NODE; s++) {
		uint32_t n = f->switches[s];

		p = r->lft[n][la];
		pb = r->lft[n][lb];
		q = qb = 0;
		for (unsigned k = 1; k <= f->nodes[n].num_ports; k++) {
			uint32_t m_ = cr_remote(f, n, k);

			if (m_ == CR_NO_NODE || !cr_is_switch(f, m_))
				continue;
			if (!q && k != p) {
				r->lft[n][la] = (uint8_t)k;
				if (cr_est_inc_try(x, n, p, la, a1, m) > 0)
					q = (uint8_t)k;
				r->lft[n][la] = p;
			}
			if (!qb && k != pb) {
				r->lft[n][lb] = (uint8_t)k;
				if (cr_est_inc_try(x, n, pb, lb, a2, m) > 0)
					qb = (uint8_t)k;
				r->lft[n][lb] = pb;
			}
		}
		if (q && qb)
			w = n;
	}
	assert_true(w != CR_NO_NODE);
	r->lft[w][la] = q;
	assert_true(cr_est_inc_try(x, w, p, la, a1, m) > 0);
	r->lft[w][la] = p;
	r->lft[w][lb] = qb;
	assert_true(cr_est_inc_try(x, w, pb, lb, a2, m) > 0);
	r->lft[w][lb] = pb;
	/* la's try again: its phases that lb's did not touch reused */
	r->lft[w][la] = q;
	assert_true(cr_est_inc_try(x, w, p, la, a2, m) > 0);
	assert_true(a2[0] == a1[0]);
	/* and once more: every phase reused, none solved */
	solves = cr_est_inc_solves(x);
	reused = cr_est_inc_reused(x);
	assert_true(cr_est_inc_try(x, w, p, la, a2, m) > 0);
	assert_true(cr_est_inc_reused(x) > reused);
	assert_true(cr_est_inc_solves(x) == solves);
	assert_true(a2[0] == a1[0]);
	assert_int_equal(cr_objective_score(f, r, &ho->obj, h, full), 0);
	assert_true(a2[0] == full[0]);
	/* kept: its phases change, the next try solves them */
	assert_int_equal(cr_est_inc_commit(x), 0);
	r->lft[w][la] = p;
	solves = cr_est_inc_solves(x);
	reused = cr_est_inc_reused(x);
	assert_true(cr_est_inc_try(x, w, q, la, a2, m) > 0);
	assert_true(cr_est_inc_solves(x) > solves);
	assert_int_equal(cr_est_inc_reused(x), reused);
	assert_int_equal(cr_objective_score(f, r, &ho->obj, h, full), 0);
	assert_true(a2[0] == full[0]);
	held_close(ho);
}

/*
 * A try may solve its first pattern's phases only: that pattern's figures
 * are the full try's, the others unknown (NAN) until the rest is solved,
 * which gives the full try's figures; the phases left out are the saving.
 */
static void test_held_partial(void **state)
{
	struct held *ho = held_open("shift:avg,bisect:avg", 2);
	struct cr_fabric *f = ho->f;
	struct cr_routing *r = ho->r;
	struct cr_hosts *h = ho->h;
	struct cr_est_inc *x = ho->x;
	unsigned checked = 0, saved = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t w = f->switches[s];

		for (unsigned i = 0; i < h->count; i++) {
			uint16_t lid = h->ep[i].lid;
			uint8_t p = r->lft[w][lid];
			struct cr_est_inc_change c = {
				.sw = w, .old_port = p, .lid = lid};

			for (unsigned q = 1; q <= f->nodes[w].num_ports; q++) {
				double a[2], m[2], fa[2], fm[2];
				uint64_t s0, s1, s2;

				if (q == p || cr_remote(f, w, q) == CR_NO_NODE)
					continue;
				r->lft[w][lid] = (uint8_t)q;
				if (cr_est_inc_try_n(x, &c, 1, fa, fm) <= 0) {
					r->lft[w][lid] = p;
					continue;
				}
				s0 = cr_est_inc_solves(x) +
				     cr_est_inc_reused(x);
				assert_true(cr_est_inc_try_part(x, &c, 1, 1, a,
								m) > 0);
				s1 = cr_est_inc_solves(x) +
				     cr_est_inc_reused(x);
				assert_true(a[0] == fa[0] && m[0] == fm[0]);
				assert_true(isnan(a[1]) || a[1] == fa[1]);
				assert_int_equal(cr_est_inc_try_more(x, a, m),
						 0);
				s2 = cr_est_inc_solves(x) +
				     cr_est_inc_reused(x);
				assert_true(a[0] == fa[0] && a[1] == fa[1]);
				assert_true(m[1] == fm[1]);
				if (isnan(fa[1]))
					fail();
				if (s2 > s1)
					saved++;
				assert_true(s1 > s0);
				checked++;
				r->lft[w][lid] = p;
			}
		}
	}
	assert_true(checked > 10);
	assert_true(saved > 5);
	held_close(ho);
}

/*
 * cr-lash on a torus: moves that would close a cycle in their layer are
 * kept by moving their sources to another layer. The pass runs to its
 * end: it must gain, re-layer some moves, and leave minimal paths and no
 * credit loop on the SLs it set; a rerun gives the same LFTs and SLs.
 */
static void test_lash_layers(void **state)
{
	struct cr_gen_params gp = {0};
	unsigned dims[] = {4, 4};
	struct cr_fabric *f = cr_gen_torus(dims, 2, true, 2, &gp);
	struct cr_check_report rep;
	struct cr_objective obj;
	struct cr_opt_params p;
	struct cr_opt_stats st;
	struct cr_routing *r, *again;
	double s0;

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = route(f, "lash");
	again = route(f, "lash");
	assert_non_null(r->sl);
	assert_int_equal(cr_objective_parse("shift:avg", "test", &obj), 0);
	s0 = score(f, r, &obj);
	cr_opt_params_init(&p);
	p.budget = 600;
	p.max_evals = 1000000;
	assert_int_equal(
		cr_optimize(f, cr_engine_find("lash"), &obj, &p, r, &by, &st),
		0);
	assert_false(st.budget_hit);
	assert_false(st.reverted);
	assert_true(st.after > s0 + 0.01);
	assert_true(fabs(score(f, r, &obj) - st.after) < 1e-12);
	assert_true(st.relayered > 0);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT | CR_CHECK_MINIMAL,
				  NULL, 0, &rep),
			 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.non_minimal, 0);
	assert_int_equal(rep.credit_loops, 0);
	assert_int_equal(cr_optimize(f, cr_engine_find("lash"), &obj, &p, again,
				     &by, NULL),
			 0);
	assert_true(r->sl);
	assert_true(same_tables(f, r, again));
	cr_objective_release(&obj);
	cr_routing_free(again);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * A scrambled two-level tree (4 leaves of 4 hosts, one cable to each of 4
 * spines): cr-minhop's tables with port_shifting (spreading over the
 * uplinks in port order, so the scramble shows: .8917; plain cr-minhop
 * balances flows in the spines' order and is free of contention) are a
 * local optimum for single moves (no one entry helps), but swapping two
 * LIDs' uplinks at a leaf does (.9833). The
 * pass must reach past it, keep every path minimal and add no credit
 * loop, and give the same tables again.
 */
static void test_swaps(void **state)
{
	struct cr_gen_params gp = {.seed = 3};
	struct cr_fabric *f = cr_gen_two_level(4, 4, 4, 4, true, &gp);
	struct cr_check_report rep, before;
	struct cr_objective obj;
	struct cr_opt_params p;
	struct cr_opt_stats st;
	struct cr_routing *r, *again;
	double s0;

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r = route_ps(f, "minhop", true);
	again = route_ps(f, "minhop", true);
	assert_int_equal(cr_objective_parse("shift:avg", "test", &obj), 0);
	s0 = score(f, r, &obj);
	assert_true(s0 < 0.9);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &before), 0);
	cr_opt_params_init(&p);
	p.budget = 600;
	p.max_evals = 1000000;
	assert_int_equal(
		cr_optimize(f, cr_engine_find("minhop"), &obj, &p, r, &by, &st),
		0);
	assert_false(st.budget_hit);
	assert_true(st.after > s0 + 0.05);
	assert_true(fabs(score(f, r, &obj) - st.after) < 1e-12);
	assert_int_equal(cr_check(f, r, CR_CHECK_CREDIT | CR_CHECK_MINIMAL,
				  NULL, 0, &rep),
			 0);
	assert_int_equal(rep.unreachable, 0);
	assert_int_equal(rep.non_minimal, 0);
	/* the switches' own LIDs route down and up: loops from the start */
	assert_true(rep.credit_loops <= before.credit_loops);
	assert_int_equal(cr_optimize(f, cr_engine_find("minhop"), &obj, &p,
				     again, &by, NULL),
			 0);
	assert_true(same_lfts(f, r, again));
	cr_objective_release(&obj);
	cr_routing_free(again);
	cr_routing_free(r);
	cr_fabric_free(f);
}

/*
 * A small random fabric (10 switches, 4 links each, 2 hosts a switch),
 * shift:avg, and a pass the limits do not stop: it runs to convergence.
 */
static struct cr_fabric *converged_setup(struct cr_objective *obj,
					 struct cr_opt_params *p)
{
	struct cr_gen_params gp = {.seed = 1};
	struct cr_fabric *f = cr_gen_random(10, 4, 2, &gp);

	assert_non_null(f);
	assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	assert_int_equal(cr_objective_parse("shift:avg", "test", obj), 0);
	cr_opt_params_init(p);
	p->budget = 600;
	p->max_evals = 1000000;
	return f;
}

/*
 * A small random fabric (10 switches, 4 links each, 2 hosts a switch)
 * where the climb (single moves, then swaps) stops at a local optimum for
 * every engine, and the kicks of the iterated local search lead to better
 * tables: with them the pass must end strictly above the climb alone,
 * never below its start, with each engine's legality kept (paths minimal
 * for cr-minhop and cr-lash, no credit loop for cr-updn and cr-lash), and
 * the same tables on a second run.
 */
static void test_kicks(void **state)
{
	static const char *const names[] = {"minhop", "updn", "lash"};
	struct cr_objective obj;
	struct cr_opt_params p;
	struct cr_fabric *f = converged_setup(&obj, &p);

	for (unsigned i = 0; i < 3; i++) {
		const struct cr_engine *e = cr_engine_find(names[i]);
		struct cr_routing *climb = route(f, names[i]);
		struct cr_routing *r = route(f, names[i]);
		struct cr_routing *again = route(f, names[i]);
		unsigned flags =
			CR_CHECK_CREDIT |
			(strcmp(names[i], "updn") ? CR_CHECK_MINIMAL : 0);
		struct cr_check_report before, after;
		struct cr_opt_stats s0, s1;
		double start = score(f, r, &obj);

		assert_int_equal(cr_check(f, r, flags, NULL, 0, &before), 0);
		p.no_kicks = true;
		assert_int_equal(cr_optimize(f, e, &obj, &p, climb, &by, &s0),
				 0);
		assert_int_equal(s0.kicks, 0);
		assert_false(s0.work_hit);
		assert_false(s0.budget_hit);
		p.no_kicks = false;
		assert_int_equal(cr_optimize(f, e, &obj, &p, r, &by, &s1), 0);
		assert_false(s1.work_hit);
		assert_false(s1.budget_hit);
		assert_true(s1.kicks > 0);
		assert_true(s1.kicks_kept > 0);
		assert_true(s0.after >= start - 1e-12);
		assert_true(s1.after > s0.after + 1e-6);
		assert_true(fabs(score(f, r, &obj) - s1.after) < 1e-12);
		assert_int_equal(cr_check(f, r, flags, NULL, 0, &after), 0);
		assert_int_equal(after.unreachable, 0);
		assert_int_equal(after.loops, 0);
		assert_true(after.credit_loops <= before.credit_loops);
		if (flags & CR_CHECK_MINIMAL)
			assert_int_equal(after.non_minimal, 0);
		if (strcmp(names[i], "minhop"))
			assert_int_equal(after.credit_loops, 0);
		assert_int_equal(cr_optimize(f, e, &obj, &p, again, &by, NULL),
				 0);
		assert_true(same_tables(f, r, again));
		cr_routing_free(again);
		cr_routing_free(r);
		cr_routing_free(climb);
	}
	cr_objective_release(&obj);
	cr_fabric_free(f);
}

/*
 * Swaps that failed, with neither LID's entries nor their phases changed
 * since, are not solved again (struct swap_memo): the same decisions, so
 * the same tables at convergence, for fewer moves tried. Fails when the
 * memo skips a swap that would now succeed (other tables) or never skips
 * one (as many tries).
 */
static void test_swap_memo(void **state)
{
	static const char *const names[] = {"minhop", "updn", "lash"};
	struct cr_objective obj;
	struct cr_opt_params p;
	struct cr_fabric *f = converged_setup(&obj, &p);

	(void)state;
	p.no_kicks = true;
	for (unsigned i = 0; i < 3; i++) {
		const struct cr_engine *e = cr_engine_find(names[i]);
		struct cr_routing *all = route(f, names[i]);
		struct cr_routing *r = route(f, names[i]);
		struct cr_opt_stats s0, s1;

		p.no_swap_memo = true;
		assert_int_equal(cr_optimize(f, e, &obj, &p, all, &by, &s0), 0);
		p.no_swap_memo = false;
		assert_int_equal(cr_optimize(f, e, &obj, &p, r, &by, &s1), 0);
		assert_false(s0.work_hit || s0.budget_hit);
		assert_false(s1.work_hit || s1.budget_hit);
		assert_true(s1.after > s1.before);
		assert_true(same_tables(f, r, all));
		assert_true(s1.after == s0.after);
		assert_true(s1.evals < s0.evals);
		cr_routing_free(all);
		cr_routing_free(r);
	}
	cr_objective_release(&obj);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_move),
		cmocka_unit_test(test_held_estimate),
		cmocka_unit_test(test_disjoint_phases),
		cmocka_unit_test(test_held_reuse),
		cmocka_unit_test(test_held_partial),
		cmocka_unit_test(test_lash_layers),
		cmocka_unit_test(test_swaps),
		cmocka_unit_test(test_kicks),
		cmocka_unit_test(test_swap_memo),
		cmocka_unit_test(test_work_budget),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_torus),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	cr_byproducts_release(&by);
	return rc;
}
