// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Routing results: allocation, reset, and the hop counts a routing implies.
 * Hops are derived from the LFTs rather than trusted from an engine, so
 * what the plugin tells OpenSM is always what the tables really do.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <croute/log.h>
#include <croute/routing.h>

struct cr_routing *cr_routing_new(const struct cr_fabric *f)
{
	struct cr_routing *r = calloc(1, sizeof(*r));
	size_t size = (size_t)f->max_lid + 1;

	if (!r)
		goto oom;
	r->num_nodes = f->num_nodes;
	r->max_lid = f->max_lid;
	r->lft = calloc(f->num_nodes ? f->num_nodes : 1, sizeof(*r->lft));
	if (!r->lft)
		goto oom;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		r->lft[n] = malloc(size);
		if (!r->lft[n])
			goto oom;
		memset(r->lft[n], CR_NO_PATH, size);
	}
	return r;
oom:
	cr_err("out of memory allocating forwarding tables");
	cr_routing_free(r);
	return NULL;
}

static void routing_drop_extras(struct cr_routing *r)
{
	if (r->sl) {
		for (uint32_t i = 0; i < r->num_nodes; i++)
			free(r->sl[i]);
		free(r->sl);
		r->sl = NULL;
	}
	r->num_layers = 0;
	memset(r->sl2vl, 0, sizeof(r->sl2vl));
	free(r->roots);
	r->roots = NULL;
	r->num_roots = 0;
	free(r->ca_order);
	r->ca_order = NULL;
	r->num_ca_order = 0;
	free(r->auto_table);
	r->auto_table = NULL;
}

void cr_routing_free(struct cr_routing *r)
{
	if (!r)
		return;
	routing_drop_extras(r);
	if (r->lft)
		for (uint32_t i = 0; i < r->num_nodes; i++)
			free(r->lft[i]);
	free(r->lft);
	free(r);
}

void cr_routing_clear(struct cr_routing *r)
{
	for (uint32_t i = 0; i < r->num_nodes; i++)
		if (r->lft[i])
			memset(r->lft[i], CR_NO_PATH, (size_t)r->max_lid + 1);
	routing_drop_extras(r);
}

int cr_routing_alloc_sl(const struct cr_fabric *f, struct cr_routing *r)
{
	r->sl = calloc(r->num_nodes, sizeof(*r->sl));
	if (!r->sl)
		goto oom;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		r->sl[n] = calloc((size_t)r->max_lid + 1, 1);
		if (!r->sl[n])
			goto oom;
	}
	return 0;
oom:
	cr_err("out of memory allocating path SLs");
	return -1;
}

/*
 * One step from switch sw toward lid: the next switch, or CR_NO_NODE when
 * the path ends. *arrived is set when the step delivers the LID.
 */
static uint32_t step(const struct cr_fabric *f, const struct cr_routing *r,
		     uint32_t sw, uint16_t lid, bool *arrived)
{
	uint8_t p = r->lft[sw][lid];
	uint32_t next;

	*arrived = false;
	if (p == 0) {
		*arrived = f->lid_node[lid] == sw;
		return CR_NO_NODE;
	}
	if (p == CR_NO_PATH || p > f->nodes[sw].num_ports)
		return CR_NO_NODE;
	next = f->nodes[sw].ports[p].remote;
	if (next == CR_NO_NODE)
		return CR_NO_NODE;
	if (f->nodes[next].type != CR_NODE_SWITCH) {
		*arrived =
			next == f->lid_node[lid] &&
			f->nodes[sw].ports[p].remote_port == f->lid_port[lid];
		return CR_NO_NODE;
	}
	return next;
}

int cr_routing_hops(const struct cr_fabric *f, const struct cr_routing *r,
		    uint32_t sw, uint16_t lid)
{
	bool arrived;

	if (lid == 0 || lid > f->max_lid || lid > r->max_lid ||
	    f->lid_node[lid] == CR_NO_NODE || !r->lft[sw])
		return -1;
	for (unsigned hops = 0; hops <= f->num_switches; hops++) {
		uint32_t next = step(f, r, sw, lid, &arrived);

		if (arrived)
			return hops + (r->lft[sw][lid] != 0);
		if (next == CR_NO_NODE)
			return -1;
		sw = next;
	}
	return -1; /* loop */
}

enum {
	HOPS_DEAD = 253, /* the walk ends nowhere or loops */
	HOPS_WALKING = 254, /* on the walk being resolved */
	HOPS_UNKNOWN = CR_NO_PATH,
};

int cr_routing_hop_table(const struct cr_fabric *f, const struct cr_routing *r,
			 uint8_t *hops)
{
	size_t row = (size_t)f->max_lid + 1;
	uint32_t *stack = malloc((f->num_switches + 1) * sizeof(*stack));

	if (!stack) {
		cr_err("out of memory computing hop counts");
		return -1;
	}
	memset(hops, HOPS_UNKNOWN, row * f->num_switches);
	/*
	 * Walk each path until it arrives or meets a switch already resolved
	 * for this LID, then unwind: every (switch, LID) is resolved once, so
	 * the table costs O(switches x LIDs) however long the paths are.
	 */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_node[lid] == CR_NO_NODE)
			continue;
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint32_t depth = 0, sw = f->switches[s];
			unsigned val = HOPS_DEAD;
			uint8_t *h;
			bool arrived = false;

			while (*(h = &hops[f->nodes[sw].sw_index * row +
					   lid]) == HOPS_UNKNOWN) {
				uint32_t next = step(f, r, sw, lid, &arrived);

				*h = HOPS_WALKING;
				stack[depth++] = sw;
				if (arrived) {
					/* one hop less: unwinding adds it */
					val = r->lft[sw][lid] ? 0 : -1u;
					break;
				}
				if (next == CR_NO_NODE)
					break;
				sw = next;
			}
			if (*h < HOPS_DEAD && !arrived)
				val = *h;
			while (depth--) {
				h = &hops[f->nodes[stack[depth]].sw_index *
						  row +
					  lid];
				if (val >= HOPS_DEAD - 1 && val != -1u) {
					*h = HOPS_DEAD;
					continue;
				}
				val++;
				*h = val;
			}
		}
		for (uint32_t s = 0; s < f->num_switches; s++)
			if (hops[s * row + lid] == HOPS_DEAD)
				hops[s * row + lid] = CR_NO_PATH;
	}
	free(stack);
	return 0;
}

/*
 * A switch holds LFT entries 0..lft_cap - 1 (LinearFDBCap). An entry the
 * engine set beyond that cannot be programmed: truncating the table would
 * silently cut LIDs off, so the run is refused and the switch named.
 */
static int check_lft_cap(const struct cr_engine *e, const struct cr_fabric *f,
			 const struct cr_routing *r)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];
		const uint8_t *lft = r->lft[f->switches[s]];

		if (!n->lft_cap || !lft)
			continue;
		for (uint32_t lid = n->lft_cap; lid <= r->max_lid; lid++) {
			if (lft[lid] == CR_NO_PATH)
				continue;
			cr_err("cr-%s: switch 0x%016" PRIx64 " ('%s') holds %u"
			       " LFT entries, but LID %u (highest %u) needs"
			       " one: cannot route this fabric",
			       e->name, n->guid, n->desc, n->lft_cap, lid,
			       r->max_lid);
			return -1;
		}
	}
	return 0;
}

int cr_route(const struct cr_engine *e, const struct cr_fabric *f,
	     const struct cr_options *o, struct cr_routing *r)
{
	int ret;

	cr_routing_clear(r);
	ret = e->route(f, o, r);
	if (!ret)
		ret = check_lft_cap(e, f, r);
	if (ret) {
		cr_routing_clear(r);
		return ret < 0 ? ret : -1;
	}
	return 0;
}

/* See cr_fabric_copy: a new field stops the build here. */
#if UINTPTR_MAX == 0xffffffffffffffffu /* the sizes of LP64 */
_Static_assert(sizeof(struct cr_routing) == 88,
	       "struct cr_routing changed: update cr_routing_copy");
#endif

static void *dup_mem(const void *src, size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p && size)
		memcpy(p, src, size);
	return p;
}

struct cr_routing *cr_routing_copy(const struct cr_routing *src)
{
	struct cr_routing *r = calloc(1, sizeof(*r));
	size_t row = (size_t)src->max_lid + 1;

	if (!r)
		goto oom;
	*r = *src;
	r->lft = NULL;
	r->sl = NULL;
	r->roots = NULL;
	r->ca_order = NULL;
	r->auto_table = NULL;
	r->lft = calloc(src->num_nodes ? src->num_nodes : 1, sizeof(*r->lft));
	if (!r->lft)
		goto oom;
	for (uint32_t n = 0; n < src->num_nodes; n++)
		if (src->lft[n] && !(r->lft[n] = dup_mem(src->lft[n], row)))
			goto oom;
	if (src->sl) {
		r->sl = calloc(src->num_nodes ? src->num_nodes : 1,
			       sizeof(*r->sl));
		if (!r->sl)
			goto oom;
		for (uint32_t n = 0; n < src->num_nodes; n++)
			if (src->sl[n] &&
			    !(r->sl[n] = dup_mem(src->sl[n], row)))
				goto oom;
	}
	if (src->roots &&
	    !(r->roots = dup_mem(src->roots,
				 src->num_roots * sizeof(*src->roots))))
		goto oom;
	if (src->ca_order &&
	    !(r->ca_order =
		      dup_mem(src->ca_order,
			      src->num_ca_order * sizeof(*src->ca_order))))
		goto oom;
	if (src->auto_table && !(r->auto_table = strdup(src->auto_table)))
		goto oom;
	return r;
oom:
	cr_err("out of memory copying the routing");
	cr_routing_free(r);
	return NULL;
}
