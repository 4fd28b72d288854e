// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast spanning trees. A group's tree is rooted at the switch whose
 * farthest member is nearest (its centre, as OpenSM picks it); every
 * member's switch joins along a shortest path toward the root, each switch
 * on the tree having exactly one parent one hop nearer, so the union of
 * those paths is a tree: no forwarding loop, whatever the fabric. On a
 * fat tree the centre is a top switch and the tree goes up and down only.
 *
 * Cost: the distances between all pairs of multicast switches, once per
 * fabric (cr_switch_distances_among: S*S bytes); then per group O(S *
 * member switches) to pick the root and O(tree) to build it.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdlib.h>
#include <string.h>

#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/route/mcast.h>

#define NO_DIST CR_HOPS_INF

struct cr_mcast_ctx {
	const struct cr_fabric *f;
	uint32_t ns;
	bool *capable; /* per switch index */
	/* switch links, by switch, port order (cr_switch_adjacency) */
	uint32_t *off, *nbr;
	uint8_t *port;
	uint8_t *dist; /* among capable switches; NULL until the first tree */
	uint32_t *stamp; /* per switch: the tree that last took it */
	uint32_t gen;
};

void cr_mcast_free(struct cr_mcast_ctx *c)
{
	if (!c)
		return;
	free(c->capable);
	free(c->off);
	free(c->nbr);
	free(c->port);
	free(c->dist);
	free(c->stamp);
	free(c);
}

struct cr_mcast_ctx *cr_mcast_new(const struct cr_fabric *f,
				  const bool *capable)
{
	struct cr_mcast_ctx *c = calloc(1, sizeof(*c));
	uint32_t ns = f->num_switches;

	if (!c)
		goto oom;
	c->f = f;
	c->ns = ns;
	c->capable = malloc((ns ? ns : 1) * sizeof(*c->capable));
	c->stamp = calloc(ns ? ns : 1, sizeof(*c->stamp));
	if (!c->capable || !c->stamp ||
	    cr_switch_adjacency(f, &c->off, &c->nbr, &c->port))
		goto oom;
	for (uint32_t s = 0; s < ns; s++)
		c->capable[s] = !capable || capable[s];
	return c;
oom:
	cr_err("out of memory for the multicast trees (%u switches)", ns);
	cr_mcast_free(c);
	return NULL;
}

/* A member's switch and the port there that leads to it; one hop more? */
struct attach {
	struct cr_mcast_entry at;
	uint8_t extra;
};

static bool member_attach(const struct cr_mcast_ctx *c,
			  const struct cr_mcast_port *m, struct attach *a)
{
	const struct cr_fabric *f = c->f;
	const struct cr_node *n;
	uint32_t r;

	if (m->node >= f->num_nodes)
		return false;
	n = &f->nodes[m->node];
	if (n->type == CR_NODE_SWITCH) {
		if (m->port != 0)
			return false;
		a->at = (struct cr_mcast_entry){n->sw_index, 0};
		a->extra = 0;
		return c->capable[a->at.sw];
	}
	if (m->port < 1 || m->port > n->num_ports)
		return false;
	r = n->ports[m->port].remote;
	if (r == CR_NO_NODE || !cr_is_switch(f, r))
		return false;
	a->at = (struct cr_mcast_entry){f->nodes[r].sw_index,
					n->ports[m->port].remote_port};
	a->extra = 1;
	return c->capable[a->at.sw];
}

static int entry_cmp(const void *x, const void *y)
{
	const struct cr_mcast_entry *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw < b->sw ? -1 : 1;
	return (a->port > b->port) - (a->port < b->port);
}

static int attach_cmp(const void *x, const void *y)
{
	return entry_cmp(&((const struct attach *)x)->at,
			 &((const struct attach *)y)->at);
}

/* The members on one switch, for the root's choice. */
struct member_sw {
	uint32_t sw;
	uint32_t count; /* member ports there */
	uint32_t extra; /* of them, CA ports (one hop past the switch) */
};

/*
 * The root: the most members reachable, then the nearest farthest member,
 * then the least total distance; seed picks among ties. Per member
 * switch, not per member: 1,152 leaves, not 27,648 hosts.
 */
static uint32_t pick_root(const struct cr_mcast_ctx *c,
			  const struct member_sw *ms, uint32_t nms,
			  uint32_t seed)
{
	uint32_t best_reach = 0, best_max = 0, ties = 0, pick;
	uint64_t best_sum = 0;

	for (int pass = 0; pass < 2; pass++) {
		uint32_t k = 0;

		pick = ties ? seed % ties : 0;
		for (uint32_t s = 0; s < c->ns; s++) {
			const uint8_t *d = c->dist + (size_t)s * c->ns;
			uint32_t reach = 0, mx = 0;
			uint64_t sum = 0;

			if (!c->capable[s])
				continue;
			for (uint32_t i = 0; i < nms; i++) {
				uint32_t h = d[ms[i].sw];

				if (h == NO_DIST)
					continue;
				reach += ms[i].count;
				sum += (uint64_t)h * ms[i].count + ms[i].extra;
				h += ms[i].extra > 0;
				if (h > mx)
					mx = h;
			}
			if (!pass) {
				if (reach > best_reach ||
				    (reach == best_reach &&
				     (mx < best_max ||
				      (mx == best_max && sum < best_sum)))) {
					best_reach = reach;
					best_max = mx;
					best_sum = sum;
					ties = 1;
				} else if (reach == best_reach &&
					   mx == best_max && sum == best_sum) {
					ties++;
				}
				continue;
			}
			if (reach == best_reach && mx == best_max &&
			    sum == best_sum && k++ == pick)
				return s;
		}
	}
	return CR_NO_NODE;
}

/* s's link toward the root: seed picks among the neighbours one hop nearer. */
static uint32_t parent_link(const struct cr_mcast_ctx *c, const uint8_t *droot,
			    uint32_t s, uint32_t seed)
{
	uint32_t n = 0, pick;

	for (uint32_t k = c->off[s]; k < c->off[s + 1]; k++)
		n += droot[c->nbr[k]] + 1u == droot[s];
	if (!n)
		return UINT32_MAX;
	pick = (seed + s) % n;
	for (uint32_t k = c->off[s]; k < c->off[s + 1]; k++)
		if (droot[c->nbr[k]] + 1u == droot[s] && !pick--)
			return k;
	return UINT32_MAX;
}

void cr_mcast_tree_release(struct cr_mcast_tree *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
	t->root = CR_NO_NODE;
}

int cr_mcast_tree_build(struct cr_mcast_ctx *c, const struct cr_mcast_port *m,
			uint32_t n, uint32_t seed, struct cr_mcast_tree *t)
{
	struct attach *a = malloc((n ? n : 1) * sizeof(*a));
	struct member_sw *ms;
	uint32_t na = 0, distinct = 0, nms = 0, gen;
	const uint8_t *droot;

	memset(t, 0, sizeof(*t));
	t->root = CR_NO_NODE;
	if (!a)
		goto oom;
	for (uint32_t i = 0; i < n; i++)
		if (member_attach(c, &m[i], &a[na]))
			na++;
		else
			t->unreached++;
	qsort(a, na, sizeof(*a), attach_cmp);
	for (uint32_t i = 0; i < na; i++)
		if (!distinct || attach_cmp(&a[distinct - 1], &a[i]))
			a[distinct++] = a[i];
	if (distinct < 2) {
		free(a);
		return 0;
	}
	if (!c->dist &&
	    !(c->dist = cr_switch_distances_among(c->f, c->capable)))
		goto oom;
	/* a is sorted by switch: its runs are the member switches */
	ms = malloc(distinct * sizeof(*ms));
	if (!ms)
		goto oom;
	for (uint32_t i = 0; i < distinct; i++) {
		if (!nms || ms[nms - 1].sw != a[i].at.sw)
			ms[nms++] = (struct member_sw){a[i].at.sw, 0, 0};
		ms[nms - 1].count++;
		ms[nms - 1].extra += a[i].extra;
	}
	t->root = pick_root(c, ms, nms, seed);
	free(ms);
	if (t->root == CR_NO_NODE) {
		free(a);
		return 0;
	}
	t->e = malloc(((size_t)distinct + 2 * (size_t)c->ns) * sizeof(*t->e));
	if (!t->e)
		goto oom;
	droot = c->dist + (size_t)t->root * c->ns;
	gen = ++c->gen;
	if (!gen) { /* the stamps wrapped: start them again */
		memset(c->stamp, 0, c->ns * sizeof(*c->stamp));
		gen = c->gen = 1;
	}
	c->stamp[t->root] = gen;
	for (uint32_t i = 0; i < distinct; i++) {
		uint32_t s = a[i].at.sw;

		if (droot[s] == NO_DIST) {
			t->unreached++;
			continue;
		}
		t->members++;
		t->e[t->n++] = a[i].at;
		if (droot[s] > t->depth)
			t->depth = droot[s];
		/* Up toward the root until a switch already on the tree. */
		while (c->stamp[s] != gen) {
			uint32_t k = parent_link(c, droot, s, seed);

			if (k == UINT32_MAX) /* cannot happen: droot is a BFS */
				break;
			const struct cr_port *up =
				&c->f->nodes[c->f->switches[s]]
					 .ports[c->port[k]];

			c->stamp[s] = gen;
			t->e[t->n++] = (struct cr_mcast_entry){s, c->port[k]};
			t->e[t->n++] = (struct cr_mcast_entry){c->nbr[k],
							       up->remote_port};
			s = c->nbr[k];
		}
	}
	qsort(t->e, t->n, sizeof(*t->e), entry_cmp);
	if (t->members < 2) {
		/* one member reachable: nothing to forward, as in OpenSM */
		t->n = 0;
	}
	free(a);
	return 0;
oom:
	cr_err("out of memory building a multicast tree (%u members)", n);
	free(a);
	cr_mcast_tree_release(t);
	return -1;
}
