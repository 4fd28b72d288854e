// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Routing results: allocation, reset, and the hop counts a routing implies.
 * Hops are derived from the LFTs rather than trusted from an engine, so
 * what the plugin tells OpenSM is always what the tables really do.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include <croute/model/routing.h>

struct clear_job {
	const struct cr_fabric *f;
	struct cr_routing *r;
};

/*
 * Fresh rows are fresh pages (88 MB on 27,648 hosts): the first touch,
 * which maps them, is spread over the threads.
 */
static int clear_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	const struct clear_job *j = arg;

	(void)part;
	(void)nparts;
	for (uint32_t s = begin; s < end; s++)
		memset(j->r->lft[j->f->switches[s]], CR_NO_PATH,
		       (size_t)j->r->max_lid + 1);
	return 0;
}

struct cr_routing *cr_routing_new(const struct cr_fabric *f)
{
	struct cr_routing *r = cr_routing_new_raw(f);
	struct clear_job j = {.f = f, .r = r};

	if (r)
		cr_parallel(f->num_switches,
			    cr_parallel_chunks(f->num_switches, 64),
			    clear_range, &j);
	return r;
}

struct cr_routing *cr_routing_new_raw(const struct cr_fabric *f)
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
	if (r->sl_set) {
		for (uint32_t i = 0; i < r->num_nodes; i++)
			free(r->sl_set[i]);
		free(r->sl_set);
		r->sl_set = NULL;
	}
	r->num_layers = 0;
	memset(r->sl2vl, 0, sizeof(r->sl2vl));
}

void cr_byproducts_release(struct cr_byproducts *b)
{
	free(b->roots);
	free(b->ca_order);
	free(b->auto_table);
	memset(b, 0, sizeof(*b));
}

void cr_byproducts_move(struct cr_byproducts *dst, struct cr_byproducts *src)
{
	cr_byproducts_release(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
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

int cr_routing_alloc_sl_set(const struct cr_fabric *f, struct cr_routing *r)
{
	r->sl_set = calloc(r->num_nodes ? r->num_nodes : 1, sizeof(*r->sl_set));
	if (!r->sl_set)
		goto oom;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		r->sl_set[n] =
			calloc((size_t)r->max_lid + 1, sizeof(**r->sl_set));
		if (!r->sl_set[n])
			goto oom;
	}
	return 0;
oom:
	cr_err("out of memory allocating path SL sets");
	return -1;
}

uint16_t cr_routing_sls(const struct cr_routing *r, uint32_t sw, uint16_t lid)
{
	if (r->sl_set && r->sl_set[sw])
		return r->sl_set[sw][lid];
	if (r->sl && r->sl[sw])
		return (uint16_t)(1u << (r->sl[sw][lid] & 15));
	return 1;
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

#define NXT_END UINT32_MAX /* the port leads to no switch */
#define TILE 64
/*
 * LIDs resolved per chunk: the LFT columns of one chunk are transposed,
 * resolved and handed out before the next, so the working set is this
 * many LIDs times the switch count (3 MB on 2,880 switches), never the
 * whole table.
 */
#define HOP_CHUNK 1024u

/*
 * The hop table works one LID at a time over every switch; the LFTs are
 * stored a switch at a time. Transposing a chunk of them first
 * ([lid][switch]) makes a LID's walks touch one contiguous column instead
 * of a byte in each of thousands of tables: a cache miss per switch and
 * LID becomes a sequential read.
 */
struct cr_hop_ctx {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	uint8_t *cols; /* [lid - begin][switch index]: LFT, then hops */
	uint32_t *nxt; /* [switch * stride + port]: next switch */
	size_t stride;
	unsigned nparts;
	uint32_t **stack; /* per part */
	uint8_t **scratch; /* per part */
	uint32_t begin; /* first LID of the chunk in cols */
};

/* Every switch's hop count toward one LID, over its LFT column. */
static void hop_column(const struct cr_hop_ctx *j, uint16_t lid, uint8_t *col,
		       uint32_t *stack, uint8_t *h)
{
	const struct cr_fabric *f = j->f;
	uint32_t ns = f->num_switches, ds;
	uint8_t dp = 0;

	memset(h, HOPS_UNKNOWN, ns);
	/* Where the LID is delivered: (switch, port), port 0 for its own. */
	ds = cr_lid_switch(f, lid, &dp);
	if (ds != CR_NO_NODE)
		ds = f->nodes[ds].sw_index;
	/*
	 * Walk each path until it arrives or meets a switch already resolved
	 * for this LID, then unwind: every switch is resolved once, however
	 * long the paths are.
	 */
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t depth = 0, sw = s;
		unsigned val = HOPS_DEAD;
		bool arrived = false;

		while (h[sw] == HOPS_UNKNOWN) {
			uint8_t p = col[sw];

			h[sw] = HOPS_WALKING;
			stack[depth++] = sw;
			if (sw == ds && p == dp) {
				arrived = true;
				/* one hop less: unwinding adds it */
				val = p ? 0 : -1u;
				break;
			}
			if (p >= j->stride ||
			    j->nxt[sw * j->stride + p] == NXT_END)
				break;
			sw = j->nxt[sw * j->stride + p];
		}
		if (!arrived && h[sw] < HOPS_DEAD)
			val = h[sw];
		while (depth--) {
			uint8_t *x = &h[stack[depth]];

			if (val >= HOPS_DEAD - 1 && val != -1u) {
				*x = HOPS_DEAD;
				continue;
			}
			val++;
			*x = val;
		}
	}
	for (uint32_t s = 0; s < ns; s++)
		col[s] = h[s] == HOPS_DEAD ? CR_NO_PATH : h[s];
}

/* Transposes the chunk's LFT columns in, then resolves them. */
static int hop_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	const struct cr_hop_ctx *j = arg;
	const struct cr_fabric *f = j->f;
	uint32_t ns = f->num_switches;

	(void)nparts;
	begin += j->begin;
	end += j->begin;
	for (uint32_t s0 = 0; s0 < ns; s0 += TILE)
		for (uint32_t s = s0; s < s0 + TILE && s < ns; s++) {
			const uint8_t *lft = j->r->lft[f->switches[s]];

			for (uint32_t lid = begin; lid < end; lid++)
				j->cols[(size_t)(lid - j->begin) * ns + s] =
					lft[lid];
		}
	for (uint32_t lid = begin; lid < end; lid++) {
		if (!lid || f->lid_node[lid] == CR_NO_NODE)
			memset(j->cols + (size_t)(lid - j->begin) * ns,
			       CR_NO_PATH, ns);
		else
			hop_column(j, (uint16_t)lid,
				   j->cols + (size_t)(lid - j->begin) * ns,
				   j->stack[part], j->scratch[part]);
	}
	return 0;
}

/* nxt[s * stride + p]: the switch index port p of switch s leads to. */
static uint32_t *next_switches(const struct cr_fabric *f, size_t *stride)
{
	uint32_t *nxt;

	/*
	 * As many ports as the largest switch has (a port number at or
	 * beyond it ends the walk): 0.6 MB on 2,880 48-port switches, in
	 * cache, where a row for every byte value would take 3 MB.
	 */
	*stride = 1;
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (f->nodes[f->switches[s]].num_ports + 1u > *stride)
			*stride = f->nodes[f->switches[s]].num_ports + 1u;
	nxt = malloc(((size_t)f->num_switches * *stride + 1) * sizeof(*nxt));
	if (!nxt)
		return NULL;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];
		uint32_t *row = nxt + s * *stride;

		for (unsigned p = 0; p < *stride; p++) {
			uint32_t m = p && p <= n->num_ports ? n->ports[p].remote
							    : CR_NO_NODE;

			row[p] = m != CR_NO_NODE && cr_is_switch(f, m)
					 ? f->nodes[m].sw_index
					 : NXT_END;
		}
	}
	return nxt;
}

void cr_hop_ctx_free(struct cr_hop_ctx *j)
{
	if (!j)
		return;
	for (unsigned i = 0; j->stack && i < j->nparts; i++)
		free(j->stack[i]);
	for (unsigned i = 0; j->scratch && i < j->nparts; i++)
		free(j->scratch[i]);
	free(j->stack);
	free(j->scratch);
	free(j->nxt);
	free(j->cols);
	free(j);
}

struct cr_hop_ctx *cr_hop_ctx_new(const struct cr_fabric *f,
				  const struct cr_routing *r)
{
	struct cr_hop_ctx *j = calloc(1, sizeof(*j));
	uint32_t ns = f->num_switches;

	if (!j)
		goto oom;
	j->f = f;
	j->r = r;
	j->nparts = cr_parallel_parts(HOP_CHUNK, 128);
	j->cols = malloc((size_t)ns * HOP_CHUNK + 1);
	j->nxt = next_switches(f, &j->stride);
	j->stack = calloc(j->nparts, sizeof(*j->stack));
	j->scratch = calloc(j->nparts, sizeof(*j->scratch));
	if (!j->cols || !j->nxt || !j->stack || !j->scratch)
		goto oom;
	for (unsigned i = 0; i < j->nparts; i++) {
		j->stack[i] = malloc((ns + 1) * sizeof(**j->stack));
		j->scratch[i] = malloc(ns + 1);
		if (!j->stack[i] || !j->scratch[i])
			goto oom;
	}
	return j;
oom:
	cr_err("out of memory computing hop counts");
	cr_hop_ctx_free(j);
	return NULL;
}

struct hop_out {
	const struct cr_hop_ctx *j;
	uint8_t *hops;
	size_t stride;
	uint32_t begin, c0, c1;
};

/* Back from [lid][switch] to hops[switch][lid - begin], a switch range. */
static int hop_back(void *arg, unsigned part, unsigned nparts, uint32_t s0,
		    uint32_t s1)
{
	const struct hop_out *o = arg;
	uint32_t ns = o->j->f->num_switches;

	(void)part;
	(void)nparts;
	for (uint32_t lid0 = o->c0; lid0 < o->c1; lid0 += TILE)
		for (uint32_t t0 = s0; t0 < s1; t0 += TILE)
			for (uint32_t lid = lid0;
			     lid < lid0 + TILE && lid < o->c1; lid++) {
				const uint8_t *col =
					o->j->cols + (size_t)(lid - o->c0) * ns;

				for (uint32_t s = t0; s < t0 + TILE && s < s1;
				     s++)
					o->hops[s * o->stride + lid -
						o->begin] = col[s];
			}
	return 0;
}

int cr_hop_ctx_rows(struct cr_hop_ctx *j, uint32_t begin, uint32_t end,
		    uint8_t *hops, size_t stride)
{
	uint32_t ns = j->f->num_switches;
	uint32_t top = (uint32_t)j->f->max_lid + 1;
	struct hop_out o = {
		.j = j, .hops = hops, .stride = stride, .begin = begin};
	unsigned nparts = cr_parallel_parts(ns, TILE);

	if (end > top)
		end = top;
	for (uint32_t c0 = begin; c0 < end; c0 += HOP_CHUNK) {
		uint32_t c1 = end - c0 > HOP_CHUNK ? c0 + HOP_CHUNK : end;

		j->begin = c0;
		cr_parallel(c1 - c0, j->nparts, hop_range, j);
		o.c0 = c0;
		o.c1 = c1;
		cr_parallel(ns, nparts, hop_back, &o);
	}
	return 0;
}

struct hop_list {
	const struct cr_hop_ctx *j;
	const uint16_t *lids;
	uint32_t c0, c1; /* the chunk: lids[c0] .. lids[c1 - 1] */
};

/* hop_range for listed LIDs: cols[i - c0] is lids[i]'s column. */
static int list_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	const struct hop_list *l = arg;
	const struct cr_hop_ctx *j = l->j;
	const struct cr_fabric *f = j->f;
	uint32_t ns = f->num_switches;

	(void)nparts;
	for (uint32_t s = 0; s < ns; s++) {
		const uint8_t *lft = j->r->lft[f->switches[s]];

		for (uint32_t i = begin; i < end; i++)
			j->cols[(size_t)i * ns + s] = lft[l->lids[l->c0 + i]];
	}
	for (uint32_t i = begin; i < end; i++) {
		uint16_t lid = l->lids[l->c0 + i];
		uint8_t *col = j->cols + (size_t)i * ns;

		if (!lid || f->lid_node[lid] == CR_NO_NODE)
			memset(col, CR_NO_PATH, ns);
		else
			hop_column(j, lid, col, j->stack[part],
				   j->scratch[part]);
	}
	return 0;
}

int cr_hop_ctx_lids(struct cr_hop_ctx *j, const uint16_t *lids, uint32_t n,
		    uint8_t *hops, size_t stride)
{
	uint32_t ns = j->f->num_switches;
	unsigned nparts = cr_parallel_parts(ns, TILE);

	for (uint32_t i = 0; i < n; i++)
		if (lids[i] > j->f->max_lid || lids[i] > j->r->max_lid) {
			cr_err("hop counts asked for LID %u, beyond the"
			       " fabric's %u",
			       lids[i], j->f->max_lid);
			return -1;
		}
	for (uint32_t c0 = 0; c0 < n; c0 += HOP_CHUNK) {
		struct hop_list l = {.j = j,
				     .lids = lids,
				     .c0 = c0,
				     .c1 = n - c0 > HOP_CHUNK ? c0 + HOP_CHUNK
							      : n};

		/* list positions stand for LIDs: hops[s * stride + i] */
		struct hop_out o = {.j = j,
				    .hops = hops,
				    .stride = stride,
				    .c0 = l.c0,
				    .c1 = l.c1};

		cr_parallel(l.c1 - c0, j->nparts, list_range, &l);
		cr_parallel(ns, nparts, hop_back, &o);
	}
	return 0;
}

int cr_routing_hop_table(const struct cr_fabric *f, const struct cr_routing *r,
			 uint8_t *hops)
{
	struct cr_hop_ctx *j = cr_hop_ctx_new(f, r);
	size_t row = (size_t)f->max_lid + 1;
	int ret;

	if (!j)
		return -1;
	ret = cr_hop_ctx_rows(j, 0, (uint32_t)row, hops, row);
	cr_hop_ctx_free(j);
	return ret;
}

/* See cr_fabric_copy: a new field stops the build here. */
#if UINTPTR_MAX == 0xffffffffffffffffu /* the sizes of LP64 */
_Static_assert(sizeof(struct cr_routing) == 56,
	       "struct cr_routing changed: update cr_routing_copy");
_Static_assert(sizeof(struct cr_byproducts) == 112,
	       "struct cr_byproducts changed: update cr_byproducts_copy");
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
	r->sl_set = NULL;
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
	if (src->sl_set) {
		r->sl_set = calloc(src->num_nodes ? src->num_nodes : 1,
				   sizeof(*r->sl_set));
		if (!r->sl_set)
			goto oom;
		for (uint32_t n = 0; n < src->num_nodes; n++)
			if (src->sl_set[n] &&
			    !(r->sl_set[n] =
				      dup_mem(src->sl_set[n],
					      row * sizeof(**src->sl_set))))
				goto oom;
	}
	return r;
oom:
	cr_err("out of memory copying the routing");
	cr_routing_free(r);
	return NULL;
}

int cr_byproducts_copy(struct cr_byproducts *dst,
		       const struct cr_byproducts *src)
{
	cr_byproducts_release(dst);
	*dst = *src;
	dst->roots = NULL;
	dst->ca_order = NULL;
	dst->auto_table = NULL;
	if (src->roots &&
	    !(dst->roots = dup_mem(src->roots,
				   src->num_roots * sizeof(*src->roots))))
		goto oom;
	if (src->ca_order &&
	    !(dst->ca_order =
		      dup_mem(src->ca_order,
			      src->num_ca_order * sizeof(*src->ca_order))))
		goto oom;
	if (src->auto_table && !(dst->auto_table = strdup(src->auto_table)))
		goto oom;
	return 0;
oom:
	cr_err("out of memory copying the routing's by-products");
	cr_byproducts_release(dst);
	return -1;
}
