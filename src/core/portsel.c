// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Port selection (DESIGN.md, "Port selection"): every engine hands its
 * equally good candidate ports here, so that ordering, balance, port
 * shifting, scattering and LMC diversity behave the same in all of them.
 *
 * Order: by port number, or with remote_guid_sorting by the GUID of the
 * node at the far end (then its port), so that switches cabled to spine
 * boards in scrambled port order still make consistent choices.
 * Pick: the least loaded candidate, first in order on ties; port_shifting
 * starts the scan at (sum of loads / candidates) mod candidates, as OpenSM
 * does, so consecutive LIDs do not line up on the same ports everywhere;
 * scatter_ports picks at random among the least loaded, from its seed.
 * LMC > 0: a port's further LIDs prefer candidates leading to a system
 * image, then a node, not yet used by its earlier LIDs on this switch.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/log.h>
#include <croute/portsel.h>

struct cr_portsel {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	bool shifting;
	bool scatter;
	uint64_t rng;
	size_t stride;		/* ports per switch row: max ports + 1 */
	uint32_t *count;	/* [sw_index * stride + port] */
	uint16_t *rank;		/* position of the port in the order */
};

static int cmp_remote(const struct cr_fabric *f, const struct cr_node *n,
		      unsigned a, unsigned b)
{
	const struct cr_port *x = &n->ports[a], *y = &n->ports[b];
	uint64_t ga = x->remote == CR_NO_NODE ? UINT64_MAX :
						f->nodes[x->remote].guid;
	uint64_t gb = y->remote == CR_NO_NODE ? UINT64_MAX :
						f->nodes[y->remote].guid;

	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (x->remote_port != y->remote_port)
		return x->remote_port < y->remote_port ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void rank_ports(struct cr_portsel *ps, const struct cr_node *n,
		       bool by_guid)
{
	uint16_t *rank = ps->rank + (size_t)n->sw_index * ps->stride;
	uint8_t order[CR_MAX_PORTS + 1];
	unsigned np = n->num_ports;

	for (unsigned p = 1; p <= np; p++)
		order[p - 1] = p;
	/* Insertion sort: a switch has a few dozen ports. */
	for (unsigned i = 1; by_guid && i < np; i++) {
		uint8_t p = order[i];
		unsigned j = i;

		while (j && cmp_remote(ps->f, n, order[j - 1], p) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = p;
	}
	rank[0] = 0;
	for (unsigned i = 0; i < np; i++)
		rank[order[i]] = i + 1;
}

struct cr_portsel *cr_portsel_new(const struct cr_fabric *f,
				  const struct cr_options *o,
				  const struct cr_routing *r)
{
	struct cr_portsel *ps = calloc(1, sizeof(*ps));
	unsigned max_ports = 0;
	size_t cells;

	if (!ps)
		goto oom;
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (f->nodes[f->switches[s]].num_ports > max_ports)
			max_ports = f->nodes[f->switches[s]].num_ports;
	ps->f = f;
	ps->r = r;
	ps->shifting = o->port_shifting;
	ps->scatter = o->scatter_ports != 0;
	ps->rng = o->scatter_ports * 0x9e3779b97f4a7c15ull + 1;
	ps->stride = max_ports + 1;
	cells = (size_t)f->num_switches * ps->stride + 1;
	ps->count = calloc(cells, sizeof(*ps->count));
	ps->rank = calloc(cells, sizeof(*ps->rank));
	if (!ps->count || !ps->rank)
		goto oom;
	for (uint32_t s = 0; s < f->num_switches; s++)
		rank_ports(ps, &f->nodes[f->switches[s]],
			   o->remote_guid_sorting);
	return ps;
oom:
	cr_err("out of memory for port selection");
	cr_portsel_free(ps);
	return NULL;
}

void cr_portsel_free(struct cr_portsel *ps)
{
	if (!ps)
		return;
	free(ps->count);
	free(ps->rank);
	free(ps);
}

void cr_portsel_order(const struct cr_portsel *ps, uint32_t sw,
		      uint8_t *ports, unsigned n)
{
	const uint16_t *rank =
		ps->rank + (size_t)ps->f->nodes[sw].sw_index * ps->stride;

	for (unsigned i = 1; i < n; i++) {
		uint8_t p = ports[i];
		unsigned j = i;

		while (j && rank[ports[j - 1]] > rank[p]) {
			ports[j] = ports[j - 1];
			j--;
		}
		ports[j] = p;
	}
}

uint32_t cr_portsel_count(const struct cr_portsel *ps, uint32_t sw,
			  unsigned p)
{
	return ps->count[(size_t)ps->f->nodes[sw].sw_index * ps->stride + p];
}

/* splitmix64: small, fast and the same on every libc. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Keeps the candidates that lead away from what the earlier LIDs of the
 * same port already use on this switch: another system image if any,
 * else another node. Returns the new count (n when nothing to prefer).
 */
static unsigned prefer_diverse(const struct cr_portsel *ps, uint32_t sw,
			       uint8_t *cands, unsigned n, uint16_t lid)
{
	const struct cr_fabric *f = ps->f;
	const struct cr_node *node = &f->nodes[sw];
	const uint8_t *lft = ps->r->lft[sw];
	uint32_t dst = f->lid_node[lid];
	uint8_t lmc = f->nodes[dst].ports[f->lid_port[lid]].lmc;
	uint16_t base = lid & ~((1u << lmc) - 1);
	uint8_t keep[CR_MAX_PORTS];

	for (int level = 0; level < 2; level++) {
		unsigned k = 0;

		for (unsigned i = 0; i < n; i++) {
			const struct cr_node *far =
				&f->nodes[node->ports[cands[i]].remote];
			bool used = false;

			for (uint16_t l = base; l < lid && !used; l++) {
				uint8_t p = lft[l];
				const struct cr_node *u;

				if (p == CR_NO_PATH || p == 0 ||
				    p > node->num_ports ||
				    node->ports[p].remote == CR_NO_NODE)
					continue;
				u = &f->nodes[node->ports[p].remote];
				used = level == 0 ?
					       u->sysimg_guid ==
						       far->sysimg_guid :
					       u == far;
			}
			if (!used)
				keep[k++] = cands[i];
		}
		if (k) {
			memcpy(cands, keep, k);
			return k;
		}
	}
	return n;
}

uint8_t cr_portsel_pick(struct cr_portsel *ps, uint32_t sw,
			const uint8_t *cands, unsigned n, uint16_t lid,
			unsigned flags)
{
	uint32_t *count =
		ps->count + (size_t)ps->f->nodes[sw].sw_index * ps->stride;
	uint8_t order[CR_MAX_PORTS + 1];
	uint32_t least = UINT32_MAX;
	uint64_t total = 0;
	unsigned start = 0, ties = 0, best = 0;
	uint8_t port;

	if (!n)
		return CR_NO_PATH;
	if (n == 1) {
		port = cands[0];
		goto done;
	}
	memcpy(order, cands, n);
	cr_portsel_order(ps, sw, order, n);
	if (!ps->scatter && lid && lid <= ps->f->max_lid &&
	    ps->f->lid_node[lid] != CR_NO_NODE)
		n = prefer_diverse(ps, sw, order, n, lid);

	for (unsigned i = 0; i < n; i++) {
		total += count[order[i]];
		if (count[order[i]] < least)
			least = count[order[i]];
	}
	if (ps->scatter) {
		for (unsigned i = 0; i < n; i++)
			ties += count[order[i]] == least;
		ties = next_random(&ps->rng) % ties;
		for (unsigned i = 0; i < n; i++)
			if (count[order[i]] == least && !ties--) {
				best = i;
				break;
			}
	} else {
		if (ps->shifting)
			start = (unsigned)((total / n) % n);
		for (unsigned i = 0; i < n; i++) {
			unsigned idx = (start + i) % n;

			if (count[order[idx]] == least) {
				best = idx;
				break;
			}
		}
	}
	port = order[best];
done:
	if (!(flags & CR_PS_NOCOUNT))
		count[port]++;
	return port;
}
