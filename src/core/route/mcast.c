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
 * fabric, by breadth-first search from every switch at once with a bit
 * per source (rounds = diameter, each a word-wide OR over every switch
 * link: 2,880 switches in tens of milliseconds, S*S bytes kept); then per
 * group O(S * member switches) to pick the root and O(tree) to build it.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdlib.h>
#include <string.h>

#include <croute/log.h>
#include <croute/mcast.h>
#include <croute/parallel.h>

#define NO_DIST 255u

struct cr_mcast_ctx {
	const struct cr_fabric *f;
	uint32_t ns;
	bool *capable; /* per switch index */
	/* switch links between multicast switches, by switch, port order */
	uint32_t *off; /* [ns + 1] */
	uint32_t *nbr; /* neighbour switch index */
	uint8_t *port, *rport; /* local port, the neighbour's port */
	uint8_t *dist; /* [a * ns + b], NULL until the first tree */
	uint32_t *stamp; /* per switch: the tree that last took it */
	uint32_t *parent_port; /* per switch: adjacency index of its parent */
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
	free(c->rport);
	free(c->dist);
	free(c->stamp);
	free(c->parent_port);
	free(c);
}

struct cr_mcast_ctx *cr_mcast_new(const struct cr_fabric *f,
				  const bool *capable)
{
	struct cr_mcast_ctx *c = calloc(1, sizeof(*c));
	uint32_t ns = f->num_switches, k = 0;

	if (!c)
		goto oom;
	c->f = f;
	c->ns = ns;
	c->capable = malloc((ns ? ns : 1) * sizeof(*c->capable));
	c->off = calloc((size_t)ns + 1, sizeof(*c->off));
	c->stamp = calloc(ns ? ns : 1, sizeof(*c->stamp));
	c->parent_port = calloc(ns ? ns : 1, sizeof(*c->parent_port));
	if (!c->capable || !c->off || !c->stamp || !c->parent_port)
		goto oom;
	for (uint32_t s = 0; s < ns; s++)
		c->capable[s] = !capable || capable[s];
	for (int pass = 0; pass < 2; pass++) {
		k = 0;
		for (uint32_t s = 0; s < ns; s++) {
			const struct cr_node *a = &f->nodes[f->switches[s]];

			c->off[s] = k;
			for (unsigned p = 1; c->capable[s] && p <= a->num_ports;
			     p++) {
				uint32_t r = a->ports[p].remote;

				if (r == CR_NO_NODE || !cr_is_switch(f, r) ||
				    !c->capable[f->nodes[r].sw_index])
					continue;
				if (pass) {
					c->nbr[k] = f->nodes[r].sw_index;
					c->port[k] = (uint8_t)p;
					c->rport[k] = a->ports[p].remote_port;
				}
				k++;
			}
		}
		c->off[ns] = k;
		if (pass)
			break;
		c->nbr = malloc((k ? k : 1) * sizeof(*c->nbr));
		c->port = malloc(k ? k : 1);
		c->rport = malloc(k ? k : 1);
		if (!c->nbr || !c->port || !c->rport)
			goto oom;
	}
	return c;
oom:
	cr_err("out of memory for the multicast trees (%u switches)", ns);
	cr_mcast_free(c);
	return NULL;
}

/* Breadth-first search from every switch at once, one bit per source. */
struct dist_job {
	const struct cr_mcast_ctx *c;
	const uint64_t *cur;
	uint64_t *nxt;
	uint32_t words;
	uint8_t d;
	uint8_t *changed; /* per part */
};

static int dist_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	struct dist_job *j = arg;
	const struct cr_mcast_ctx *c = j->c;
	uint32_t w = j->words;

	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		const uint64_t *old = j->cur + (size_t)s * w;
		uint64_t *row = j->nxt + (size_t)s * w;
		uint8_t *dist = c->dist + (size_t)s * c->ns;

		memcpy(row, old, w * sizeof(*row));
		for (uint32_t k = c->off[s]; k < c->off[s + 1]; k++) {
			const uint64_t *o = j->cur + (size_t)c->nbr[k] * w;

			for (uint32_t i = 0; i < w; i++)
				row[i] |= o[i];
		}
		for (uint32_t i = 0; i < w; i++) {
			uint64_t fresh = row[i] & ~old[i];

			if (fresh)
				j->changed[part] = 1;
			while (fresh) {
				unsigned b = (unsigned)__builtin_ctzll(fresh);

				dist[(size_t)i * 64 + b] = j->d;
				fresh &= fresh - 1;
			}
		}
	}
	return 0;
}

static int compute_dist(struct cr_mcast_ctx *c)
{
	uint32_t ns = c->ns, w = (ns + 63) / 64;
	unsigned nparts = cr_parallel_parts(ns, 64);
	struct dist_job j = {.c = c, .words = w};
	uint64_t *a, *b;

	c->dist = malloc((size_t)ns * ns + 1);
	a = calloc((size_t)ns * w + 1, sizeof(*a));
	b = calloc((size_t)ns * w + 1, sizeof(*b));
	j.changed = calloc(nparts, 1);
	if (!c->dist || !a || !b || !j.changed) {
		free(c->dist);
		c->dist = NULL;
		free(a);
		free(b);
		free(j.changed);
		return -1;
	}
	memset(c->dist, NO_DIST, (size_t)ns * ns);
	for (uint32_t s = 0; s < ns; s++)
		if (c->capable[s]) {
			a[(size_t)s * w + s / 64] |= 1ull << (s % 64);
			c->dist[(size_t)s * ns + s] = 0;
		}
	for (unsigned d = 1; d < NO_DIST; d++) {
		bool any = false;
		uint64_t *t;

		j.cur = a;
		j.nxt = b;
		j.d = (uint8_t)d;
		memset(j.changed, 0, nparts);
		cr_parallel(ns, nparts, dist_range, &j);
		for (unsigned p = 0; p < nparts; p++)
			any |= j.changed[p];
		if (!any)
			break;
		t = a;
		a = b;
		b = t;
	}
	free(a);
	free(b);
	free(j.changed);
	return 0;
}

/* A member's switch, the port there that leads to it, one hop more or not. */
struct attach {
	uint32_t sw;
	uint8_t port;
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
		a->sw = n->sw_index;
		a->port = 0;
		a->extra = 0;
		return c->capable[a->sw];
	}
	if (m->port < 1 || m->port > n->num_ports)
		return false;
	r = n->ports[m->port].remote;
	if (r == CR_NO_NODE || !cr_is_switch(f, r))
		return false;
	a->sw = f->nodes[r].sw_index;
	a->port = n->ports[m->port].remote_port;
	a->extra = 1;
	return c->capable[a->sw];
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
	const struct attach *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw < b->sw ? -1 : 1;
	return (a->port > b->port) - (a->port < b->port);
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
	if (!c->dist && compute_dist(c))
		goto oom;
	/* a is sorted by switch: its runs are the member switches */
	ms = malloc(distinct * sizeof(*ms));
	if (!ms)
		goto oom;
	for (uint32_t i = 0; i < distinct; i++) {
		if (!nms || ms[nms - 1].sw != a[i].sw)
			ms[nms++] = (struct member_sw){a[i].sw, 0, 0};
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
		uint32_t s = a[i].sw;

		if (droot[s] == NO_DIST) {
			t->unreached++;
			continue;
		}
		t->members++;
		t->e[t->n++] = (struct cr_mcast_entry){s, a[i].port};
		if (droot[s] > t->depth)
			t->depth = droot[s];
		/* Up toward the root until a switch already on the tree. */
		while (c->stamp[s] != gen) {
			uint32_t k = parent_link(c, droot, s, seed);

			if (k == UINT32_MAX) /* cannot happen: droot is a BFS */
				break;
			c->stamp[s] = gen;
			t->e[t->n++] = (struct cr_mcast_entry){s, c->port[k]};
			t->e[t->n++] =
				(struct cr_mcast_entry){c->nbr[k], c->rport[k]};
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
