// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Switch roles (include/croute/model/roles.h; doc/design.md, "Switch roles").
 *
 * Why a rule when no list is given: engines that spread by destination
 * (D-mod-k) count heights from the leaves, and cr-updn picks its roots by
 * their distance to the leaves; a management host on a spine would make
 * that spine a leaf and both would see no tree. So a switch with fewer
 * than half the median number of CA ports, cabled to a switch with at
 * least that many, holds I/O nodes: a spine or middle switch next to the
 * leaves. A partly populated leaf (one host left, say) has no such
 * neighbour and stays a leaf, as in OpenSM's ftree, where every CA is a
 * compute node without lists; cr-ftree cannot rank a tree whose CA
 * switches are cabled to each other anyway, so the rule changes nothing
 * it routes. What no count can tell apart: in a k-ary n-tree, a top switch
 * is placed like a leaf, so a management host on a top switch of a tree
 * of three levels or more makes it a leaf; list it in io_guid_file. The
 * lists, when given, decide instead, for every engine, as OpenSM's ftree
 * reads them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/cmp.h>
#include <croute/model/log.h>
#include <croute/model/roles.h>

static int sorted_copy(const struct cr_guid_list *l, uint64_t **v, size_t *n)
{
	*v = NULL;
	*n = l->count;
	if (!l->count)
		return 0;
	*v = malloc(l->count * sizeof(**v));
	if (!*v)
		return -1;
	memcpy(*v, l->guids, l->count * sizeof(**v));
	qsort(*v, l->count, sizeof(**v), cr_cmp_u64);
	return 0;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t guid)
{
	return n && bsearch(&guid, v, n, sizeof(*v), cr_cmp_u64);
}

/* The switch port p of node n is cabled to, or CR_NO_NODE. */
static uint32_t switch_of(const struct cr_fabric *f, uint32_t n, unsigned p)
{
	uint32_t m = f->nodes[n].ports[p].remote;

	return m != CR_NO_NODE && cr_is_switch(f, m) ? m : CR_NO_NODE;
}

static bool listed_cn(const struct cr_roles *r, uint32_t n, unsigned p)
{
	const struct cr_node *node = &r->f->nodes[n];
	uint64_t pg = node->ports[p].guid;

	if (r->ncn)
		return in_sorted(r->cn, r->ncn, node->guid) ||
		       in_sorted(r->cn, r->ncn, pg);
	return !in_sorted(r->io, r->nio, node->guid) &&
	       !in_sorted(r->io, r->nio, pg);
}

bool cr_roles_is_cn(const struct cr_roles *r, uint32_t n, unsigned p)
{
	uint32_t sw;

	if (r->ncn || r->nio)
		return listed_cn(r, n, p);
	sw = switch_of(r->f, n, p);
	return sw != CR_NO_NODE && r->leaf[r->f->nodes[sw].sw_index];
}

/* Per switch, its CA ports: compute nodes only when lists is set. */
static void count_cas(const struct cr_roles *r, bool lists, uint32_t *cas)
{
	const struct cr_fabric *f = r->f;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		cas[s] = 0;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			uint32_t m = n->ports[p].remote;

			if (m == CR_NO_NODE || cr_is_switch(f, m))
				continue;
			cas[s] += !lists ||
				  listed_cn(r, m, n->ports[p].remote_port);
		}
	}
}

/* Is switch s cabled to a switch with at least threshold CA ports? */
static bool next_to_full(const struct cr_fabric *f, const uint32_t *cas,
			 uint32_t threshold, uint32_t s)
{
	const struct cr_node *n = &f->nodes[f->switches[s]];

	for (unsigned p = 1; p <= n->num_ports; p++) {
		uint32_t m = n->ports[p].remote;

		if (m != CR_NO_NODE && cr_is_switch(f, m) &&
		    cas[f->nodes[m].sw_index] >= threshold)
			return true;
	}
	return false;
}

int cr_roles_init(struct cr_roles *r, const struct cr_fabric *f,
		  const struct cr_options *o)
{
	uint32_t ns = f->num_switches, nca = 0, threshold = 1;
	uint32_t *cas = malloc((ns + 1) * sizeof(*cas));
	uint32_t *sorted = malloc((ns + 1) * sizeof(*sorted));
	bool lists;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->leaf = calloc(ns + 1, sizeof(*r->leaf));
	if (!cas || !sorted || !r->leaf ||
	    sorted_copy(&o->cn_guids, &r->cn, &r->ncn) ||
	    sorted_copy(&o->io_guids, &r->io, &r->nio))
		goto oom;
	lists = r->ncn || r->nio;
	count_cas(r, false, cas);
	for (uint32_t s = 0; s < ns; s++)
		if (cas[s])
			sorted[nca++] = cas[s];
	if (lists) {
		count_cas(r, true, sorted);
		for (uint32_t s = 0; s < ns; s++)
			r->leaf[s] = sorted[s] > 0;
	} else {
		qsort(sorted, nca, sizeof(*sorted), cr_cmp_u32);
		/* Half the median, rounded up: 2 of 3, 9 of 18, 1 of 1. */
		threshold = nca ? (sorted[nca / 2] + 1) / 2 : 1;
		for (uint32_t s = 0; s < ns; s++)
			r->leaf[s] =
				cas[s] && (cas[s] >= threshold ||
					   !next_to_full(f, cas, threshold, s));
	}
	for (uint32_t s = 0; s < ns; s++) {
		r->num_leaves += r->leaf[s];
		r->num_io_switches += cas[s] && !r->leaf[s];
	}
	free(cas);
	free(sorted);
	return 0;
oom:
	free(cas);
	free(sorted);
	cr_roles_release(r);
	cr_err("out of memory finding the leaf switches");
	return -1;
}

void cr_roles_release(struct cr_roles *r)
{
	free(r->leaf);
	free(r->cn);
	free(r->io);
	memset(r, 0, sizeof(*r));
}

/* A CA or router GUID: the switches its ports (or that port) are cabled to. */
static bool ca_roots(const struct cr_fabric *f, uint64_t g, const char *engine,
		     bool *is_root)
{
	uint8_t port = 0;
	uint32_t n = cr_fabric_find_guid(f, g);
	bool found = false;

	if (n == CR_NO_NODE)
		n = cr_fabric_find_port_guid(f, g, &port);
	if (n == CR_NO_NODE)
		return false;
	for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
		uint32_t m = switch_of(f, n, p);

		if ((port && p != port) || m == CR_NO_NODE)
			continue;
		is_root[f->nodes[m].sw_index] = true;
		found = true;
		cr_info("%s: root GUID 0x%016" PRIx64
			" is a %s: using its switch 0x%016" PRIx64
			" (cabled to its port %u)",
			engine, g, cr_node_type_name(f->nodes[n].type),
			f->nodes[m].guid, p);
	}
	return found;
}

int cr_roots_from_guids(const struct cr_fabric *f, const struct cr_guid_list *l,
			const char *engine, bool *is_root)
{
	int roots = 0;

	for (size_t i = 0; i < l->count; i++) {
		uint64_t g = l->guids[i];
		uint32_t n = cr_fabric_find_guid(f, g);

		if (n != CR_NO_NODE && cr_is_switch(f, n)) {
			is_root[f->nodes[n].sw_index] = true;
			continue;
		}
		if (!ca_roots(f, g, engine, is_root))
			cr_info("%s: root GUID 0x%016" PRIx64
				" is no switch of the fabric, nor a CA or router cabled to one: skipped",
				engine, g);
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		roots += is_root[s];
	if (!roots) {
		cr_err("%s: none of the %zu root GUIDs is a switch of the fabric or a CA cabled to one",
		       engine, l->count);
		return -1;
	}
	return roots;
}

/*
 * Tree-like (include/croute/model/roles.h): the switches one connected part, at
 * least two leaves, no cable between two leaves. A torus or a random
 * graph, where every switch has CAs, is not.
 */
bool cr_roles_tree_like(const struct cr_roles *r)
{
	const struct cr_fabric *f = r->f;
	uint32_t ns = f->num_switches, head = 0, tail = 0;
	uint32_t *queue;
	bool *seen, ok = r->num_leaves >= 2;

	for (uint32_t s = 0; ok && s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (unsigned p = 1; r->leaf[s] && p <= n->num_ports; p++) {
			uint32_t m = switch_of(f, f->switches[s], p);

			if (m != CR_NO_NODE && r->leaf[f->nodes[m].sw_index])
				ok = false;
		}
	}
	if (!ok)
		return false;
	queue = malloc(ns * sizeof(*queue));
	seen = calloc(ns, sizeof(*seen));
	if (!queue || !seen) {
		/* Not knowing, the engines keep their plain rules. */
		free(queue);
		free(seen);
		return false;
	}
	seen[0] = true;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t s = queue[head++], n = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t m = switch_of(f, n, p);

			if (m != CR_NO_NODE && !seen[f->nodes[m].sw_index]) {
				seen[f->nodes[m].sw_index] = true;
				queue[tail++] = f->nodes[m].sw_index;
			}
		}
	}
	free(queue);
	free(seen);
	return tail == ns;
}
