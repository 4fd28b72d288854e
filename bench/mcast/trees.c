// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What croute's multicast trees cost (src/core/route/mcast.c): on a
 * topology file (croute gen writes one), the context, the distances
 * between all switches (once per routing run, on the first tree), one
 * group with every CA port as a member (IPoIB's broadcast group), and
 * many groups of two members (IPv6 solicited-node groups), with the trees'
 * sizes. The distances are computed on 1 thread, then on N.
 *
 * usage: trees TOPOLOGY [THREADS [SMALL_GROUPS]]   (defaults: 2, 1000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <croute/model/fabric.h>
#include <croute/model/log.h>
#include <croute/route/mcast.h>
#include <croute/model/parallel.h>
#include <croute/io/topo.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The first tree of a context computes its distances. */
static double first_tree(const struct cr_fabric *f,
			 const struct cr_mcast_port *m, unsigned threads)
{
	struct cr_mcast_ctx *c = cr_mcast_new(f, NULL);
	struct cr_mcast_tree t;
	double t0;

	if (!c)
		exit(1);
	cr_threads_set(threads);
	t0 = now();
	if (cr_mcast_tree_build(c, m, 2, 0, &t))
		exit(1);
	t0 = now() - t0;
	cr_mcast_tree_release(&t);
	cr_mcast_free(c);
	return t0;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
	unsigned small = argc > 3 ? (unsigned)atoi(argv[3]) : 1000;
	struct cr_fabric *f;
	struct cr_mcast_port *m;
	struct cr_mcast_ctx *c;
	struct cr_mcast_tree t;
	uint32_t n = 0;
	uint64_t ports = 0;
	double t0, t1;

	if (argc < 2) {
		fprintf(stderr, "usage: trees TOPOLOGY [THREADS [SMALL]]\n");
		return 2;
	}
	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	f = cr_topo_read(argv[1]);
	if (!f)
		return 2;
	m = malloc(((size_t)f->num_nodes + 1) * sizeof(*m));
	if (!m)
		return 1;
	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 1; f->nodes[i].type != CR_NODE_SWITCH &&
				     p <= f->nodes[i].num_ports;
		     p++)
			if (f->nodes[i].ports[p].remote != CR_NO_NODE)
				m[n++] = (struct cr_mcast_port){i, (uint8_t)p};
	printf("fabric: %u switches, %u CA ports\n", f->num_switches, n);
	if (n < 2)
		return 2;
	printf("distances, 1 thread: %.1f ms\n", first_tree(f, m, 1) * 1e3);
	printf("distances, %u threads: %.1f ms\n", threads,
	       first_tree(f, m, threads) * 1e3);

	cr_threads_set(threads);
	c = cr_mcast_new(f, NULL);
	if (!c || cr_mcast_tree_build(c, m, 2, 0, &t))
		return 1;
	cr_mcast_tree_release(&t);
	t0 = now();
	if (cr_mcast_tree_build(c, m, n, 0xc000, &t))
		return 1;
	t0 = now() - t0;
	printf("one group of %u members: %.2f ms, %u ports, depth %u\n", n,
	       t0 * 1e3, t.n, t.depth);
	cr_mcast_tree_release(&t);
	t1 = now();
	for (unsigned g = 0; g < small; g++) {
		struct cr_mcast_port two[2] = {m[(g * 7919u) % n],
					       m[(g * 104729u + 1) % n]};

		if (cr_mcast_tree_build(c, two, 2, 0xc001 + g, &t))
			return 1;
		ports += t.n;
		cr_mcast_tree_release(&t);
	}
	t1 = now() - t1;
	printf("%u groups of 2 members: %.3f ms each, %.1f ports each\n",
	       small, small ? t1 * 1e3 / small : 0.0,
	       small ? (double)ports / small : 0.0);
	cr_mcast_free(c);
	free(m);
	cr_fabric_free(f);
	return 0;
}
