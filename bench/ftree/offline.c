// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Offline timing of cr-ftree on the largest 3-level fat tree of k-port
 * switches (k = 48: 48 pods of 24 leaves and 24 middle switches, 576
 * roots, 27,648 hosts, 2,880 switches), built in memory: the generators
 * only make k-ary n-trees, whose roots use half their ports.
 *
 * usage: offline [k [lmc [check]]]: build and routing times; with a third
 * argument also `croute check`'s findings and (up to 4096 hosts) the worst
 * shift contention in CA order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <croute/check.h>
#include <croute/routing.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cable(struct cr_fabric *f, uint32_t a, unsigned pa, uint32_t b,
		  unsigned pb)
{
	if (cr_fabric_link(f, a, pa, b, pb))
		exit(2);
	f->nodes[a].ports[pa].width = f->nodes[b].ports[pb].width = 4;
	f->nodes[a].ports[pa].speed = f->nodes[b].ports[pb].speed =
		CR_SPEED_EDR;
}

static struct cr_fabric *fat_tree(unsigned k, unsigned lmc)
{
	struct cr_fabric *f = cr_fabric_new();
	unsigned h = k / 2, pods = k;
	uint64_t sg = 0x0002c90200000000ull, cg = 0x0002c90300000000ull;
	uint32_t roots = 0, mids, leaves, n = 0;
	char d[64];

	for (unsigned j = 0; j < h; j++)
		for (unsigned t = 0; t < h; t++) {
			snprintf(d, sizeof(d), "root-%02u-%02u", j, t);
			cr_fabric_add_node(f, CR_NODE_SWITCH, sg++, k, d);
		}
	mids = h * h;
	for (unsigned p = 0; p < pods; p++)
		for (unsigned j = 0; j < h; j++) {
			snprintf(d, sizeof(d), "mid-%02u-%02u", p, j);
			cr_fabric_add_node(f, CR_NODE_SWITCH, sg++, k, d);
		}
	leaves = mids + pods * h;
	for (unsigned p = 0; p < pods; p++)
		for (unsigned l = 0; l < h; l++) {
			snprintf(d, sizeof(d), "leaf-%02u-%02u", p, l);
			cr_fabric_add_node(f, CR_NODE_SWITCH, sg++, k, d);
		}
	for (unsigned p = 0; p < pods; p++)
		for (unsigned j = 0; j < h; j++) {
			uint32_t mid = mids + p * h + j;

			for (unsigned t = 0; t < h; t++)
				cable(f, roots + j * h + t, p + 1, mid,
				      h + t + 1);
			for (unsigned l = 0; l < h; l++)
				cable(f, mid, l + 1, leaves + p * h + l,
				      h + j + 1);
		}
	for (unsigned p = 0; p < pods; p++)
		for (unsigned l = 0; l < h; l++)
			for (unsigned i = 0; i < h; i++) {
				uint32_t c;

				snprintf(d, sizeof(d), "h%05u HCA-1", ++n);
				c = cr_fabric_add_node(f, CR_NODE_CA, cg, 1, d);
				cg += 2;
				cable(f, leaves + p * h + l, i + 1, c, 1);
			}
	if (cr_fabric_assign_lids(f, lmc))
		exit(2);
	return f;
}

/* Most flows on one switch port in any phase of shift, in CA order. */
static unsigned shift_contention(const struct cr_fabric *f,
				 const struct cr_routing *r)
{
	uint32_t n = r->num_ca_order;
	size_t cells = (size_t)f->num_nodes * (CR_MAX_PORTS + 1);
	uint32_t *use = calloc(cells, sizeof(*use));
	unsigned worst = 0;

	for (uint32_t k = 1; k < n; k++) {
		for (uint32_t i = 0; i < n; i++) {
			uint16_t dst = r->ca_order[(i + k) % n];
			uint32_t sw = cr_lid_switch(f, r->ca_order[i], NULL);

			for (unsigned hops = 0; hops < 64; hops++) {
				uint8_t p = r->lft[sw][dst];
				uint32_t *u;

				if (p == CR_NO_PATH || !p)
					return 999;
				u = &use[(size_t)sw * (CR_MAX_PORTS + 1) + p];
				/* counts of earlier phases are stale */
				if (++*u - 1 < k * 1000u)
					*u = k * 1000u + 1;
				if (*u - k * 1000u > worst)
					worst = *u - k * 1000u;
				sw = f->nodes[sw].ports[p].remote;
				if (!cr_is_switch(f, sw))
					break;
			}
		}
	}
	free(use);
	return worst;
}

int main(int argc, char **argv)
{
	unsigned k = argc > 1 ? atoi(argv[1]) : 48;
	unsigned lmc = argc > 2 ? atoi(argv[2]) : 0;
	double t0 = now(), t1, t2;
	struct cr_fabric *f = fat_tree(k, lmc);
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;
	struct cr_check_report rep;
	uint32_t cas = 0;

	cr_options_init(&o);
	for (uint32_t i = 0; i < f->num_nodes; i++)
		cas += f->nodes[i].type == CR_NODE_CA;
	t1 = now();
	if (cr_route(cr_engine_find("cr-ftree"), f, &o, r))
		return 1;
	t2 = now();
	printf("k=%u: %u hosts, %u switches, max LID %u: build %.2f s, cr-ftree %.2f s\n",
	       k, cas, f->num_switches, f->max_lid, t1 - t0, t2 - t1);
	if (argc > 3) {
		if (cr_check(f, r, CR_CHECK_MINIMAL | CR_CHECK_CREDIT, stderr,
			     5, &rep))
			return 1;
		printf("check %.2f s: %llu pairs, %llu unreachable, %llu non-minimal, %llu credit loops\n",
		       now() - t2, (unsigned long long)rep.pairs,
		       (unsigned long long)rep.unreachable,
		       (unsigned long long)rep.non_minimal,
		       (unsigned long long)rep.credit_loops);
		/* Quadratic in the hosts: only on the smaller trees. */
		if (r->num_ca_order <= 4096)
			printf("shift contention in CA order: %u\n",
			       shift_contention(f, r));
	}
	cr_routing_free(r);
	cr_fabric_free(f);
	return 0;
}
