// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cost of cr_transition_check() on large fabrics, in memory (an
 * opensm-lfts.dump of fat-tree 48 would be gigabytes): a fat tree of
 * k-port switches routed by cr-updn, then by cr-updn with port shifting
 * (a safe change: up/down either way) and by cr-ftree; each change
 * checked, beside cr_check() of one table with its credit-loop search
 * for scale.
 *
 * usage: scale K [HOSTS_PER_LEAF [THREADS]]   (K = 48: 2,880 switches;
 *        HOSTS_PER_LEAF 0: K/2; THREADS 0: the online CPUs up to 8)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <croute/route/engine.h>
#include <croute/io/gen.h>
#include <croute/model/check.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include <croute/model/transition.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of the process (all threads): steadier on a busy host. */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct cr_routing *route(const struct cr_fabric *f, const char *e,
				bool shift)
{
	struct cr_routing *r = cr_routing_new(f);
	struct cr_options o;

	cr_options_init(&o);
	o.port_shifting = shift;
	if (!r || cr_route_by(cr_engine_find(e), f, &o, r, NULL)) {
		fprintf(stderr, "scale: %s cannot route\n", e);
		exit(1);
	}
	return r;
}

static void change(const struct cr_fabric *f, const char *what,
		   const struct cr_routing *a, const struct cr_routing *b)
{
	struct cr_transition_report rep;
	double t0 = now(), c0 = cpu();
	int rc = cr_transition_check(f, a, b, NULL, &rep);

	printf("%-28s %-15s %9llu changed %6.2f s %6.2f s CPU\n", what,
	       rc < 0 ? "error" : cr_transition_fault_name(rep.fault),
	       (unsigned long long)rep.changed, now() - t0, cpu() - c0);
}

int main(int argc, char **argv)
{
	struct cr_gen_params p = {0};
	struct cr_fabric *f;
	struct cr_routing *a, *b, *c;
	struct cr_check_report rep;
	double t0, c0;

	if (argc < 2) {
		fprintf(stderr, "usage: scale K [HOSTS_PER_LEAF [THREADS]]\n");
		return 2;
	}
	cr_log_set(NULL, NULL, CR_LOG_WARN);
	if (argc > 2)
		p.leaf_hosts = (unsigned)atoi(argv[2]);
	if (argc > 3)
		cr_threads_set((unsigned)atoi(argv[3]));
	f = cr_gen_fat_tree((unsigned)atoi(argv[1]), &p);
	if (!f || cr_fabric_assign_lids(f, 0))
		return 1;
	printf("fat-tree %s: %u switches, max LID %u, %llu LFT entries a"
	       " table, %u threads\n",
	       argv[1], f->num_switches, f->max_lid,
	       (unsigned long long)f->num_switches * (f->max_lid + 1u),
	       cr_threads_get());
	a = route(f, "updn", false);
	b = route(f, "updn", true);
	c = route(f, "ftree", false);
	t0 = now();
	c0 = cpu();
	cr_check(f, a, CR_CHECK_CREDIT, NULL, 0, &rep);
	printf("%-28s %-15s %9s         %6.2f s %6.2f s CPU\n",
	       "cr_check of updn", rep.credit_loops ? "credit loop" : "clean",
	       "", now() - t0, cpu() - c0);
	change(f, "updn -> updn unchanged", a, a);
	change(f, "updn -> updn port shifting", a, b);
	change(f, "updn -> ftree", a, c);
	cr_routing_free(a);
	cr_routing_free(b);
	cr_routing_free(c);
	cr_fabric_free(f);
	return 0;
}
