// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of croute resilience's parts: the shard split covers every
 * failure once, a shard read back gives every row bit for bit (names with
 * blanks, '%', other bytes, empty; figures no decimal holds), the cable
 * list has each switch cable once, a run on a two-level tree gives the
 * same rows on one thread and on three, and a cable failure's check from
 * the intact counts per LID is croute check's, also for tables that lose
 * pairs or loop.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <croute/model/check.h>
#include <croute/report/resil.h>

#include "../../src/core/report/resil_int.h"
#include "testutil.h"

static void test_split(void **state)
{
	static const uint32_t totals[] = {0, 1, 7, 100, 55296};
	static const unsigned parts[] = {1, 3, 8, 64};

	(void)state;
	for (unsigned t = 0; t < 5; t++)
		for (unsigned p = 0; p < 4; p++) {
			uint32_t next = 0, b, e;

			for (unsigned k = 1; k <= parts[p]; k++) {
				cr_resil_shard_range(totals[t], k, parts[p], &b,
						     &e);
				assert_int_equal(b, next);
				assert_true(e >= b);
				assert_true(e - b <= totals[t] / parts[p] + 1);
				next = e;
			}
			assert_int_equal(next, totals[t]);
		}
}

static void fill(struct cr_resil_report *rep, uint32_t n)
{
	static const char *const names[] = {"sw 1", "100%", "", "é\t\"q\""};

	memset(rep, 0, sizeof(*rep));
	snprintf(rep->title, sizeof(rep->title), "a b%%c");
	snprintf(rep->config, sizeof(rep->config), "engines cr-updn; x");
	rep->nchain = 2;
	strcpy(rep->engines[0], "cr-ftree");
	strcpy(rep->engines[1], "cr-updn");
	rep->npat = 2;
	strcpy(rep->pat_name[0], "shift");
	strcpy(rep->pat_name[1], "bisect:10");
	rep->intact_avg[0] = 1.0 / 3;
	rep->intact_min[1] = M_PI;
	rep->intact_bw = 2.0 / 7;
	rep->orders = 4;
	rep->seed = 99;
	rep->digest = 0xfeedface12345678ULL;
	rep->total = n;
	rep->rows = calloc(n, sizeof(*rep->rows));
	assert_non_null(rep->rows);
	for (uint32_t i = 0; i < n; i++) {
		struct cr_resil_row *r = &rep->rows[i];

		r->index = i;
		r->kind = i % 2 ? CR_FAULT_SWITCH : CR_FAULT_CABLE;
		r->port = (uint8_t)(i + 1);
		r->rport = (uint8_t)(254 - i);
		r->guid = 0x2c90200000000ULL + i;
		r->rguid = ~0ULL - i;
		snprintf(r->name, sizeof(r->name), "%s", names[i % 4]);
		snprintf(r->rname, sizeof(r->rname), "%s", names[(i + 1) % 4]);
		r->engine = (int8_t)(i % 3) - 1;
		r->incremental = i % 2;
		r->pairs = 1000 + i;
		r->unreachable = i;
		r->loops = i / 2;
		r->credit_loops = i / 3;
		r->nodes_lost = i * 7;
		r->avg[0] = 1.0 / (i + 3);
		r->min[0] = sqrt(i);
		r->avg[1] = 1e-300 * i;
		r->min[1] = nextafter(1.0, 2.0);
		r->bw = 0.1 * i;
		r->blocks = i * 11;
		r->entries = i * 1234567ULL;
		r->seconds = 0.001 * i;
	}
}

static void test_shard_roundtrip(void **state)
{
	struct cr_resil_report rep, back = {0};
	char path[] = "/tmp/test_resil.XXXXXX";
	bool *have = NULL;
	int fd = mkstemp(path);
	FILE *out;

	(void)state;
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	fill(&rep, 9);
	assert_int_equal(cr_resil_write_shard(out, &rep, 0, 9, 1, 1), 0);
	fclose(out);
	assert_int_equal(cr_resil_read_shard(path, &back, &have), 0);
	assert_int_equal(back.total, 9);
	assert_int_equal(back.shards, 1);
	assert_string_equal(back.title, rep.title);
	assert_string_equal(back.config, rep.config);
	assert_true(back.intact_avg[0] == rep.intact_avg[0]);
	assert_true(back.intact_min[1] == rep.intact_min[1]);
	assert_true(back.intact_bw == rep.intact_bw);
	for (uint32_t i = 0; i < 9; i++) {
		const struct cr_resil_row *a = &rep.rows[i], *b = &back.rows[i];

		assert_true(have[i]);
		assert_string_equal(a->name, b->name);
		assert_string_equal(a->rname, b->rname);
		assert_int_equal(a->engine, b->engine);
		assert_int_equal(a->entries, b->entries);
		assert_int_equal(a->rguid, b->rguid);
		assert_int_equal(a->nodes_lost, b->nodes_lost);
		for (unsigned p = 0; p < 2; p++) {
			assert_true(a->avg[p] == b->avg[p]);
			assert_true(a->min[p] == b->min[p]);
		}
		assert_true(a->bw == b->bw && a->seconds == b->seconds);
	}
	/* the same shard again: every row twice */
	assert_int_equal(cr_resil_read_shard(path, &back, &have), -1);
	unlink(path);
	free(have);
	free(back.rows);
	free(rep.rows);
}

static void test_cables_once(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 2, 3, NULL, 0);
	struct cr_fault *v;
	uint32_t n;

	(void)state;
	assert_int_equal(cr_faults_all(f, CR_FAULTS_CABLES, &v, &n), 0);
	assert_int_equal(n, 12); /* 4 leaves x 3 spines */
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(v[i].kind, CR_FAULT_CABLE);
		assert_true(cr_is_switch(f, v[i].node));
		assert_int_equal(f->nodes[v[i].node].ports[v[i].port].remote,
				 v[i].rnode);
		for (uint32_t j = 0; j < i; j++)
			assert_false(v[j].node == v[i].rnode &&
				     v[j].port == v[i].rport);
	}
	free(v);
	assert_int_equal(
		cr_faults_all(f, CR_FAULTS_CABLES | CR_FAULTS_SWITCHES, &v, &n),
		0);
	assert_int_equal(n, 12 + 7);
	free(v);
	cr_fabric_free(f);
}

static void run_rows(const struct cr_fabric *f, unsigned threads,
		     const struct cr_fault *v, uint32_t n,
		     struct cr_resil_row *rows)
{
	struct cr_pattern *pats;
	struct cr_est_params par;
	struct cr_options o = {0};
	struct cr_resil_conf c = {0};
	struct cr_resil *x;
	int np = cr_pattern_list_parse("shift,bisect", &pats);

	assert_int_equal(np, 2);
	cr_est_params_init(&par);
	par.orders = 2;
	par.order_seed = 5;
	c.chain[0] = cr_engine_find("updn");
	c.nchain = 1;
	c.opts = &o;
	c.incremental = true;
	c.par = &par;
	c.pats = pats;
	c.npat = 2;
	c.est_inc = true;
	c.threads = threads;
	x = cr_resil_new(f, &c);
	assert_non_null(x);
	assert_int_equal(cr_resil_run(x, v, 0, n, rows), 0);
	cr_resil_free(x);
	cr_pattern_list_free(pats, np);
}

static void test_threads_same_rows(void **state)
{
	struct cr_fabric *f = tu_two_level(6, 3, 3, NULL, 0);
	struct cr_resil_row *a, *b;
	struct cr_fault *v;
	uint32_t n;

	(void)state;
	f->sm_port_guid = 0x100000 + 1000; /* spine 0 (tu_switch GUIDs) */
	assert_int_equal(
		cr_faults_all(f, CR_FAULTS_CABLES | CR_FAULTS_SWITCHES, &v, &n),
		0);
	a = calloc(n, sizeof(*a));
	b = calloc(n, sizeof(*b));
	run_rows(f, 1, v, n, a);
	run_rows(f, 3, v, n, b);
	for (uint32_t i = 0; i < n; i++) {
		a[i].seconds = b[i].seconds = 0;
		assert_memory_equal(&a[i], &b[i], sizeof(a[i]));
		/* a switch's failure takes its hosts; a cable's nothing */
		assert_int_equal(
			a[i].nodes_lost,
			v[i].kind == CR_FAULT_CABLE
				? 0
				: cr_switch_num_cas(
					  f, f->nodes[v[i].node].sw_index) +
					  1);
	}
	free(a);
	free(b);
	free(v);
	cr_fabric_free(f);
}

/* Tables that loop between spine s and leaf a toward lid (not a's). */
static void make_loop(const struct cr_fabric *g, struct cr_routing *r,
		      uint32_t s, uint32_t a, uint16_t lid)
{
	for (unsigned p = 1; p <= g->nodes[s].num_ports; p++)
		if (g->nodes[s].ports[p].remote == a)
			r->lft[s][lid] = (uint8_t)p;
	for (unsigned p = 1; p <= g->nodes[a].num_ports; p++)
		if (g->nodes[a].ports[p].remote == s)
			r->lft[a][lid] = (uint8_t)p;
}

/*
 * Every cable of a two-level tree cut under the intact tables (whose
 * entries into the cable now lead nowhere), with an entry cleared and a
 * loop made: the counts from the intact ones per LID are cr_check()'s.
 */
static void test_check_cable(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 3, 3, NULL, 0);
	struct cr_routing *r0;
	struct cr_resil_check *chk;
	struct cr_fault *v;
	uint64_t lost = 0, loops = 0;
	uint32_t n;

	(void)state;
	if (!f->max_lid)
		assert_int_equal(cr_fabric_assign_lids(f, 0), 0);
	r0 = tu_route(f, "cr-minhop", NULL);
	chk = cr_resil_check_new(f, r0);
	assert_non_null(chk);
	assert_int_equal(cr_faults_all(f, CR_FAULTS_CABLES, &v, &n), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct cr_fabric *g = tu_cut_link(f, v[i].node, v[i].port);
		struct cr_routing *r = cr_routing_copy(r0);
		struct cr_check_report want, got;
		/* another cable's ends: still cabled */
		const struct cr_fault *o = &v[(i + 1) % n];
		uint32_t leaf = o->node, spine = o->rnode;
		uint16_t lid = (uint16_t)(1 + i % g->max_lid);

		assert_non_null(r);
		if (!cr_switch_num_cas(g, g->nodes[leaf].sw_index)) {
			leaf = o->rnode;
			spine = o->node;
		}
		r->lft[g->switches[i % g->num_switches]][g->max_lid] =
			CR_NO_PATH;
		if (i % 2 && g->lid_node[lid] != leaf &&
		    cr_lid_switch(g, lid, NULL) != leaf)
			make_loop(g, r, spine, leaf, lid);
		assert_int_equal(
			cr_check(g, r, CR_CHECK_CREDIT, NULL, 0, &want), 0);
		assert_int_equal(cr_resil_check_cable(chk, f, r0, g, r, &v[i],
						      false, &got),
				 0);
		assert_int_equal(got.pairs, want.pairs);
		assert_int_equal(got.unreachable, want.unreachable);
		assert_int_equal(got.loops, want.loops);
		assert_int_equal(got.credit_loops, want.credit_loops);
		lost += want.unreachable;
		loops += want.loops;
		cr_routing_free(r);
		cr_fabric_free(g);
	}
	/* the cases the test is for were met */
	assert_true(lost > 0);
	assert_true(loops > 0);
	free(v);
	cr_resil_check_free(chk);
	cr_routing_free(r0);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_shard_roundtrip),
		cmocka_unit_test(test_cables_once),
		cmocka_unit_test(test_threads_same_rows),
		cmocka_unit_test(test_check_cable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
