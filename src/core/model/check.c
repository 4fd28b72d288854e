// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verification of a routing, independent of the engine that produced it.
 *
 * Reachability, loops and hop counts come from the hop table the LFTs
 * imply (src/core/routing.c): a path from a CA port is the path from the
 * switch it is cabled to, so checking (switch, LID) pairs once covers every
 * CA port, in O(switches x LIDs).
 *
 * Credit loops: the channel dependency graph has a vertex per directed
 * switch-to-switch link and an edge c1 -> c2 whenever some LID is forwarded
 * from c1 into c2. Every switch is taken as a possible source (switches send
 * LID-routed traffic too), which can only add dependencies. With path SLs
 * (cr-lash), a dependency belongs to the VLs of the sources whose paths use
 * it, and each VL's graph must be acyclic on its own.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/check.h>
#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

struct cdg {
	const struct cr_fabric *f;
	uint32_t *chan_base; /* first channel of each switch index */
	uint32_t num_chans;
	uint64_t *out; /* 4 words per channel: out-port bitmap */
};

static uint32_t chan_of(const struct cdg *g, uint32_t sw, unsigned p)
{
	return g->chan_base[g->f->nodes[sw].sw_index] + p;
}

static int cdg_init(struct cdg *g, const struct cr_fabric *f)
{
	memset(g, 0, sizeof(*g));
	g->f = f;
	g->chan_base = malloc((f->num_switches + 1) * sizeof(*g->chan_base));
	if (!g->chan_base)
		return -1;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		g->chan_base[s] = g->num_chans;
		g->num_chans += f->nodes[f->switches[s]].num_ports + 1;
	}
	g->chan_base[f->num_switches] = g->num_chans;
	g->out = calloc((size_t)g->num_chans * 4 + 1, sizeof(uint64_t));
	return g->out ? 0 : -1;
}

/*
 * The dependency LID lid creates at switch node sw: from the channel it
 * leaves sw by into the channel the next switch forwards it on.
 */
static void cdg_add(struct cdg *g, const struct cr_routing *r, uint32_t sw,
		    uint16_t lid)
{
	const struct cr_fabric *f = g->f;
	uint8_t p = r->lft[sw][lid], q;
	uint32_t m;

	if (p == 0 || p == CR_NO_PATH || p > f->nodes[sw].num_ports)
		return;
	m = f->nodes[sw].ports[p].remote;
	if (m == CR_NO_NODE || !cr_is_switch(f, m))
		return;
	q = r->lft[m][lid];
	if (q == 0 || q == CR_NO_PATH || q > f->nodes[m].num_ports)
		return;
	g->out[(size_t)chan_of(g, sw, p) * 4 + q / 64] |= 1ull << (q % 64);
}

static void cdg_free(struct cdg *g)
{
	free(g->chan_base);
	free(g->out);
}

/*
 * A credit loop as the cycle of cables it runs through, as ibdmchk prints
 * them: each hop is one channel, the cable from a switch's output port to
 * the far switch's input port. The cycle is the DFS stack from the
 * channel the back edge returns to (d) up to the top.
 */
static void print_cycle(const struct cdg *g, const uint32_t *owner,
			const uint32_t *stack, uint32_t depth, uint32_t d,
			unsigned vl, const struct cr_check_sink *out)
{
	const struct cr_fabric *f = g->f;
	struct cr_check_problem pr = {.kind = CR_CHECK_CREDIT_LOOP, .vl = vl};
	struct cr_check_cable *cab;
	uint32_t first = 0;

	while (first < depth && stack[2 * first] != d)
		first++;
	cab = calloc(depth - first + 1, sizeof(*cab));
	if (!cab) {
		cr_err("out of memory reporting a credit loop");
		return;
	}
	for (uint32_t i = first; i < depth; i++) {
		uint32_t c = stack[2 * i], sw = owner[c];
		unsigned p = c - g->chan_base[f->nodes[sw].sw_index];
		const struct cr_port *x = &f->nodes[sw].ports[p];

		cab[i - first] = (struct cr_check_cable){sw, p, x->remote,
							 x->remote_port};
	}
	pr.cables = cab;
	pr.num_cables = depth - first;
	out->fn(out->arg, &pr);
	free(cab);
}

/*
 * Iterative DFS with three colours. Returns the number of back edges found
 * (0: acyclic); prints up to max_report of the cycles on out.
 */
static uint64_t cdg_cycles(const struct cdg *g, const struct cr_check_sink *out,
			   unsigned vl, unsigned max_report)
{
	const struct cr_fabric *f = g->f;
	uint8_t *colour = calloc(g->num_chans + 1, 1);
	uint32_t *stack =
		malloc(((size_t)g->num_chans + 1) * 2 * sizeof(*stack));
	uint32_t *owner = malloc(((size_t)g->num_chans + 1) * sizeof(*owner));
	uint64_t cycles = 0;

	if (!colour || !stack || !owner) {
		cycles = UINT64_MAX;
		goto out;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t c = g->chan_base[s]; c < g->chan_base[s + 1]; c++)
			owner[c] = f->switches[s];
	for (uint32_t root = 0; root < g->num_chans; root++) {
		uint32_t depth = 0;

		if (colour[root])
			continue;
		colour[root] = 1;
		stack[0] = root;
		stack[1] = 0; /* next out-port to look at */
		depth = 1;
		while (depth) {
			uint32_t c = stack[2 * (depth - 1)];
			uint32_t *next = &stack[2 * (depth - 1) + 1];
			const struct cr_node *from = &f->nodes[owner[c]];
			unsigned p = c - g->chan_base[from->sw_index];
			uint32_t to = from->ports[p].remote;
			bool pushed = false;

			while (*next < 256 && !pushed) {
				uint64_t w =
					g->out[(size_t)c * 4 + *next / 64] &
					(~0ull << (*next % 64));
				unsigned q;
				uint32_t d;

				/* The next out-port in the bitmap, a word at once. */
				if (!w) {
					*next = (*next / 64 + 1) * 64;
					continue;
				}
				q = (*next / 64) * 64 +
				    (unsigned)__builtin_ctzll(w);
				*next = q + 1;
				d = chan_of(g, to, q);
				if (colour[d] == 1) {
					if (out && cycles < max_report)
						print_cycle(g, owner, stack,
							    depth, d, vl, out);
					cycles++;
				} else if (!colour[d]) {
					colour[d] = 1;
					stack[2 * depth] = d;
					stack[2 * depth + 1] = 0;
					depth++;
					pushed = true;
				}
			}
			if (!pushed) {
				colour[c] = 2;
				depth--;
			}
		}
	}
out:
	free(colour);
	free(stack);
	free(owner);
	return cycles;
}

/*
 * For one LID: the set of SLs whose traffic crosses each switch toward it
 * (a bit per SL), accumulated along the in-tree of paths. Switches are
 * visited farthest first, so a switch's set is complete before it is
 * passed on. Without path SLs every set is bit 0.
 */
static void sl_masks(const struct cr_fabric *f, const struct cr_routing *r,
		     const uint8_t *hops, uint16_t lid, uint32_t *order,
		     uint16_t *mask)
{
	size_t row = (size_t)f->max_lid + 1;
	uint32_t ns = f->num_switches, k = 0;
	uint32_t bucket[256] = {0};

	for (uint32_t s = 0; s < ns; s++) {
		uint32_t sw = f->switches[s];

		mask[s] = cr_routing_sls(r, sw, lid);
		bucket[hops[s * row + lid]]++;
	}
	/* Counting sort by decreasing hop count; 255 (no path) first. */
	for (int h = 255; h >= 0; h--) {
		uint32_t c = bucket[h];

		bucket[h] = k;
		k += c;
	}
	for (uint32_t s = 0; s < ns; s++)
		order[bucket[hops[s * row + lid]]++] = s;
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t s = order[i], sw = f->switches[s];
		uint8_t p = r->lft[sw][lid];
		uint32_t m;

		if (hops[s * row + lid] == CR_NO_PATH || p == 0 ||
		    p > f->nodes[sw].num_ports)
			continue;
		m = f->nodes[sw].ports[p].remote;
		if (m != CR_NO_NODE && cr_is_switch(f, m))
			mask[f->nodes[m].sw_index] |= mask[s];
	}
}

struct cdg_job {
	struct cdg *g;
	const struct cr_routing *r;
};

/*
 * Every dependency of a range of switches, all on one VL (what cdg_add
 * adds for every LID). A switch only sets bits of its own channels, so
 * the ranges share no word; switch by switch, the LFT rows are read in
 * order.
 */
static int cdg_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	struct cdg_job *j = arg;
	const struct cr_fabric *f = j->g->f;

	(void)part;
	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		uint32_t sw = f->switches[s];
		const struct cr_node *n = &f->nodes[sw];
		const uint8_t *row = j->r->lft[sw];
		/* Per out-port: the next switch's LFT and its port count. */
		const uint8_t *next[256] = {NULL};
		uint8_t next_ports[256] = {0};
		uint64_t *out = &j->g->out[(size_t)chan_of(j->g, sw, 0) * 4];

		for (unsigned p = 1; p <= n->num_ports && p < CR_NO_PATH; p++) {
			uint32_t m = n->ports[p].remote;

			if (m == CR_NO_NODE || !cr_is_switch(f, m))
				continue;
			next[p] = j->r->lft[m];
			next_ports[p] = (uint8_t)f->nodes[m].num_ports;
		}
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint8_t p = row[lid], q;

			if (!next[p] || f->lid_node[lid] == CR_NO_NODE)
				continue;
			q = next[p][lid];
			if (q == 0 || q == CR_NO_PATH || q > next_ports[p])
				continue;
			out[(size_t)p * 4 + q / 64] |= 1ull << (q % 64);
		}
	}
	return 0;
}

/* The one-VL graph: every switch a source of every LID. */
static void cdg_fill_all(struct cdg *g, const struct cr_routing *r)
{
	struct cdg_job j = {g, r};
	uint32_t ns = g->f->num_switches;

	cr_parallel(ns, cr_parallel_parts(ns, 16), cdg_range, &j);
}

int cr_credit_loop_any(const struct cr_fabric *f, const struct cr_routing *r)
{
	struct cdg g;
	uint64_t cycles;

	if (cdg_init(&g, f)) {
		cdg_free(&g);
		cr_err("out of memory building the channel dependency graph");
		return -1;
	}
	cdg_fill_all(&g, r);
	cycles = cdg_cycles(&g, NULL, 0, 0);
	cdg_free(&g);
	if (cycles == UINT64_MAX) {
		cr_err("out of memory searching the channel dependency graph");
		return -1;
	}
	return cycles != 0;
}

/*
 * The layered graphs, one a VL in use, built in one pass over the LIDs:
 * each part of the LIDs fills graphs of its own (a dependency only sets
 * a bit, so the parts' graphs OR into the same graph whatever the
 * split), with its own scratch for the SL sets.
 */
struct vl_job {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	const uint8_t *hops;
	const struct cdg *g; /* channel numbering */
	unsigned nvl; /* VLs in use */
	uint16_t vl_sls[16]; /* per VL in use: the SLs it carries */
	size_t words; /* per graph */
	uint64_t *out; /* per part and VL in use: a graph's bitmaps */
	uint16_t *mask; /* per part: SL sets per switch */
	uint32_t *order; /* per part: sl_masks' scratch */
};

static int vl_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		    uint32_t end)
{
	struct vl_job *j = arg;
	const struct cr_fabric *f = j->f;
	uint32_t ns = f->num_switches;
	uint16_t *mask = &j->mask[(size_t)part * (ns + 1)];
	uint32_t *order = &j->order[(size_t)part * (ns + 1)];
	struct cdg g = *j->g;

	(void)nparts;
	for (uint32_t lid = begin + 1; lid <= end; lid++) {
		if (f->lid_node[lid] == CR_NO_NODE)
			continue;
		sl_masks(f, j->r, j->hops, (uint16_t)lid, order, mask);
		for (unsigned k = 0; k < j->nvl; k++) {
			g.out = &j->out[((size_t)part * j->nvl + k) * j->words];
			for (uint32_t s = 0; s < ns; s++)
				if (mask[s] & j->vl_sls[k])
					cdg_add(&g, j->r, f->switches[s],
						(uint16_t)lid);
		}
	}
	return 0;
}

/* The VLs traffic uses (SL2VL maps the SLs of the paths onto them). */
static uint16_t vls_in_use(const struct cr_fabric *f,
			   const struct cr_routing *r)
{
	uint16_t sls = 0, vls = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];

		if (!r->sl[sw]) {
			vls |= 1;
			continue;
		}
		for (uint32_t lid = 1; lid <= f->max_lid; lid++)
			sls |= cr_routing_sls(r, sw, (uint16_t)lid);
	}
	for (unsigned sl = 0; sl < 16; sl++)
		if (sls & (1u << sl))
			vls |= 1u << (r->sl2vl[sl] & 15);
	return vls;
}

/* Each VL's graph from the path SLs, searched VL by VL. */
static int check_layered(const struct cr_fabric *f, const struct cr_routing *r,
			 const uint8_t *hops, struct cdg *g,
			 const struct cr_check_sink *out, unsigned max_report,
			 struct cr_check_report *rep)
{
	uint32_t ns = f->num_switches;
	unsigned nparts = cr_parallel_parts(f->max_lid, 1024);
	uint16_t used = vls_in_use(f, r);
	struct vl_job j = {.f = f, .r = r, .hops = hops, .g = g};
	uint8_t vl_of[16];
	int ret = -1;

	j.words = (size_t)g->num_chans * 4;
	for (unsigned vl = 0; vl < 16; vl++) {
		if (!(used & (1u << vl)))
			continue;
		for (unsigned sl = 0; sl < 16; sl++)
			if ((r->sl2vl[sl] & 15) == vl)
				j.vl_sls[j.nvl] |= (uint16_t)(1u << sl);
		vl_of[j.nvl++] = (uint8_t)vl;
	}
	j.out = calloc((size_t)nparts * j.nvl * j.words + 1, sizeof(*j.out));
	j.mask = malloc((size_t)nparts * (ns + 1) * sizeof(*j.mask));
	j.order = malloc((size_t)nparts * (ns + 1) * sizeof(*j.order));
	if (!j.out || !j.mask || !j.order)
		goto out;
	cr_parallel(f->max_lid, nparts, vl_range, &j);
	for (unsigned k = 0; k < j.nvl; k++) {
		uint64_t cycles, *dst = &j.out[(size_t)k * j.words];

		for (unsigned p = 1; p < nparts; p++) {
			const uint64_t *src =
				&j.out[((size_t)p * j.nvl + k) * j.words];

			for (size_t w = 0; w < j.words; w++)
				dst[w] |= src[w];
		}
		memcpy(g->out, dst, j.words * sizeof(*dst));
		cycles = cdg_cycles(g, out, vl_of[k], max_report);
		if (cycles == UINT64_MAX)
			goto out;
		if (cycles)
			rep->credit_loops++;
	}
	ret = 0;
out:
	free(j.out);
	free(j.mask);
	free(j.order);
	return ret;
}

static int check_credit_loops(const struct cr_fabric *f,
			      const struct cr_routing *r, const uint8_t *hops,
			      const struct cr_check_sink *out,
			      unsigned max_report, struct cr_check_report *rep)
{
	struct cdg g = {0};
	int ret = -1;

	if (cdg_init(&g, f))
		goto oom;
	/* Without path SLs all traffic is on VL 0: no per-LID SL sets. */
	if (!r->sl) {
		uint64_t cycles;

		cdg_fill_all(&g, r);
		cycles = cdg_cycles(&g, out, 0, max_report);
		if (cycles == UINT64_MAX)
			goto oom;
		if (cycles)
			rep->credit_loops++;
		ret = 0;
		goto out;
	}
	if (check_layered(f, r, hops, &g, out, max_report, rep))
		goto oom;
	ret = 0;
	goto out;
oom:
	cr_err("out of memory building the channel dependency graph");
out:
	cdg_free(&g);
	return ret;
}

bool cr_path_loops(const struct cr_fabric *f, const struct cr_routing *r,
		   uint32_t sw, uint16_t lid)
{
	for (uint32_t i = 0; i <= f->num_switches; i++) {
		uint8_t p = r->lft[sw][lid];

		if (p == 0 || p == CR_NO_PATH || p > f->nodes[sw].num_ports)
			return false;
		sw = f->nodes[sw].ports[p].remote;
		if (sw == CR_NO_NODE || !cr_is_switch(f, sw))
			return false;
	}
	return true;
}

void cr_check_print(FILE *out, const struct cr_fabric *f,
		    const struct cr_check_problem *p)
{
	char la[CR_NODE_LABEL_MAX], lb[CR_NODE_LABEL_MAX];

	if (p->kind == CR_CHECK_CREDIT_LOOP) {
		fprintf(out, "credit loop: VL %u, a cycle of %u cables:\n",
			p->vl, p->num_cables);
		for (uint32_t i = 0; i < p->num_cables; i++) {
			const struct cr_check_cable *c = &p->cables[i];

			fprintf(out, "  cable %s port %u -> %s port %u\n",
				cr_node_label(f, c->node, 0, la, sizeof(la)),
				c->port,
				cr_node_label(f, c->remote, 0, lb, sizeof(lb)),
				c->remote_port);
		}
		return;
	}
	cr_node_label(f, p->from, 0, la, sizeof(la));
	cr_node_label(f, p->to, p->to_port, lb, sizeof(lb));
	if (p->kind == CR_CHECK_NON_MINIMAL)
		fprintf(out, "non-minimal: from %s to LID %u (%s): %u hops\n",
			la, p->lid, lb, p->hops);
	else
		fprintf(out, "%s: from %s to LID %u (%s)\n",
			p->kind == CR_CHECK_LOOP ? "loop" : "unreachable", la,
			p->lid, lb);
}

static void print_problem(void *arg, const struct cr_check_problem *p)
{
	const struct cr_fabric **pf = arg;

	cr_check_print((FILE *)pf[1], pf[0], p);
}

int cr_check(const struct cr_fabric *f, const struct cr_routing *r,
	     unsigned flags, FILE *out, unsigned max_report,
	     struct cr_check_report *rep)
{
	const void *arg[2] = {f, out};
	struct cr_check_sink sink = {print_problem, arg};

	return cr_check_each(f, r, flags, out ? &sink : NULL, max_report, rep);
}

int cr_check_each(const struct cr_fabric *f, const struct cr_routing *r,
		  unsigned flags, const struct cr_check_sink *out,
		  unsigned max_report, struct cr_check_report *rep)
{
	size_t row = (size_t)f->max_lid + 1;
	uint32_t ns = f->num_switches;
	uint8_t *hops = malloc(row * ns + 1);
	uint8_t *dist = NULL;
	uint32_t *cas = calloc(ns + 1, sizeof(*cas));
	uint64_t sum_hops = 0, reported_u = 0, reported_m = 0;
	int ret = -1;

	memset(rep, 0, sizeof(*rep));
	if (!hops || !cas || cr_routing_hop_table(f, r, hops))
		goto oom;
	if ((flags & CR_CHECK_MINIMAL) && !(dist = cr_switch_distances(f)))
		goto oom;
	/* CA ports per switch: each is a source for every LID. */
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *sw = &f->nodes[f->switches[s]];

		for (unsigned p = 1; p <= sw->num_ports; p++)
			if (sw->ports[p].remote != CR_NO_NODE &&
			    !cr_is_switch(f, sw->ports[p].remote))
				cas[s]++;
		if (!cas[s] && (flags & CR_CHECK_SWITCHES))
			cas[s] = 1;
	}
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t sw = f->switches[s];

		if (!cas[s])
			continue;
		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint32_t dst = f->lid_node[lid], d;
			uint8_t h = hops[s * row + lid];
			uint64_t pairs = cas[s];

			if (dst == CR_NO_NODE)
				continue;
			/* A CA port does not route to its own LIDs. */
			if (!cr_is_switch(f, dst) &&
			    f->nodes[dst].ports[f->lid_port[lid]].remote == sw)
				pairs--;
			if (!pairs)
				continue;
			rep->pairs += pairs;
			if (h == CR_NO_PATH) {
				bool loop = cr_path_loops(f, r, sw, lid);

				if (loop)
					rep->loops += pairs;
				else
					rep->unreachable += pairs;
				if (out && reported_u++ < max_report) {
					struct cr_check_problem pr = {
						.kind = loop ? CR_CHECK_LOOP
							     : CR_CHECK_UNREACHABLE,
						.from = sw,
						.lid = (uint16_t)lid,
						.to = dst,
						.to_port = f->lid_port[lid]};

					out->fn(out->arg, &pr);
				}
				continue;
			}
			sum_hops += (uint64_t)h * pairs;
			if (h > rep->max_hops)
				rep->max_hops = h;
			if (!dist)
				continue;
			d = cr_lid_switch(f, lid, NULL);
			if (d == CR_NO_NODE)
				continue;
			if (h > dist[(size_t)s * ns + f->nodes[d].sw_index] +
					(cr_is_switch(f, dst) ? 0 : 1)) {
				rep->non_minimal += pairs;
				if (out && reported_m++ < max_report) {
					struct cr_check_problem pr = {
						.kind = CR_CHECK_NON_MINIMAL,
						.from = sw,
						.lid = (uint16_t)lid,
						.to = dst,
						.to_port = f->lid_port[lid],
						.hops = h};

					out->fn(out->arg, &pr);
				}
			}
		}
	}
	if (rep->pairs > rep->unreachable + rep->loops)
		rep->avg_hops = (double)sum_hops /
				(rep->pairs - rep->unreachable - rep->loops);
	if ((flags & CR_CHECK_CREDIT) &&
	    check_credit_loops(f, r, hops, out, max_report, rep))
		goto out;
	ret = 0;
	goto out;
oom:
	cr_err("out of memory checking the routing");
out:
	free(hops);
	free(dist);
	free(cas);
	return ret;
}
