// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flow balance on threads (include/croute/route/flowbal.h). The LIDs go in
 * segments toward at most CR_FLOW_SLOTS destination switches: first each
 * destination's levels and the switches sorted by level, one destination
 * per chunk; then each run of LIDs of one destination switch (a group),
 * in blocks of at most `width` LIDs, one round per level, farthest first.
 * A switch routes a block's LIDs in order, so every switch sees every LID
 * in the serial order, and the level before it has passed on all its
 * flows. Groups whose LIDs carry no flow (switch LIDs) pick on the route
 * counts alone: a run of them is one round over all switches.
 *
 * Flows passed on go into the passing member's own array at [receiving
 * switch * width + LID in block]; the receiver adds every member's entry
 * and clears it. No atomics: rounds are separated by the team's
 * acquire/release handover.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/route/flowbal.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

#define DEFAULT_GRAIN 512
#define MAX_WIDTH 64

static unsigned grain = DEFAULT_GRAIN;

void cr_flow_set_grain(unsigned picks)
{
	__atomic_store_n(&grain, picks ? picks : DEFAULT_GRAIN,
			 __ATOMIC_RELAXED);
}

unsigned cr_flow_grain(void)
{
	return __atomic_load_n(&grain, __ATOMIC_RELAXED);
}

/* A switch's candidates toward the group it last routed. */
struct cand_cache {
	uint32_t group;
	uint8_t nc;
	uint8_t cands[CR_MAX_PORTS];
};

/* A group without flows, waiting in a run of them. */
struct quiet {
	unsigned slot;
	uint32_t first, last; /* positions in lids */
};

struct flowrun {
	const struct cr_fabric *f;
	struct cr_routing *r;
	struct cr_portsel *ps;
	const struct cr_flow_engine *e;
	const uint16_t *lids;
	const uint32_t *dest; /* per position: destination switch index */
	uint8_t *dport; /* per position: the port delivering it there */
	uint8_t *flags; /* per position: its CR_PS_ flags */
	uint32_t ns;
	uint32_t *cas; /* CA ports per switch */
	struct cr_team *team;
	unsigned members;
	/* the segment */
	uint32_t dests[CR_FLOW_SLOTS];
	unsigned ndests;
	uint16_t *lev; /* [slot * ns] */
	uint32_t *order; /* [slot * ns]: switches of level >= 1, by level */
	uint32_t *bounds; /* [slot * (ns + 2)]: level h is [bounds[h], [h+1]) */
	uint16_t maxlev[CR_FLOW_SLOTS];
	uint32_t **cursor; /* per member, ns + 2 */
	/* the block: up to width LIDs of one group */
	unsigned slot;
	uint32_t group; /* groups begun so far: cache tags */
	unsigned nb, width;
	uint16_t blid[MAX_WIDTH];
	uint8_t bport[MAX_WIDTH];
	unsigned bflags[MAX_WIDTH];
	uint32_t lbegin, lend; /* the level: order positions */
	unsigned nchunks;
	struct cand_cache *cache; /* per switch */
	uint32_t **acc; /* per member: flows passed on, [switch * width + i] */
	/* a run of groups without flows */
	struct quiet *quiet;
	unsigned nquiet;
};

static unsigned lid_flags(const struct cr_fabric *f, uint16_t lid,
			  uint8_t dport)
{
	return (dport ? 0 : CR_PS_NOCOUNT) | CR_PS_SPREAD | CR_PS_SORTED |
	       (cr_lid_is_base(f, lid) ? CR_PS_BASE : 0);
}

/* One destination: its levels, then its switches sorted by level. */
static int prepare_chunk(void *arg, unsigned worker, unsigned slot)
{
	struct flowrun *x = arg;
	uint32_t ns = x->ns;
	uint16_t *lev = x->lev + (size_t)slot * ns;
	uint32_t *order = x->order + (size_t)slot * ns;
	uint32_t *bounds = x->bounds + (size_t)slot * (ns + 2);
	uint32_t *cur = x->cursor[worker];
	uint16_t maxl = 0;

	if (x->e->levels(x->e->ctx, worker, slot, x->dests[slot], lev))
		return -1;
	for (uint32_t s = 0; s < ns; s++)
		if (lev[s] != CR_FLOW_NONE && lev[s] > maxl)
			maxl = lev[s];
	memset(bounds, 0, ((size_t)maxl + 2) * sizeof(*bounds));
	for (uint32_t s = 0; s < ns; s++)
		if (lev[s] != CR_FLOW_NONE && lev[s])
			bounds[lev[s] + 1]++;
	bounds[1] = 0;
	for (unsigned h = 1; h <= maxl; h++)
		bounds[h + 1] += bounds[h];
	memcpy(cur, bounds, ((size_t)maxl + 2) * sizeof(*cur));
	for (uint32_t s = 0; s < ns; s++)
		if (lev[s] != CR_FLOW_NONE && lev[s])
			order[cur[lev[s]]++] = s;
	x->maxlev[slot] = maxl;
	return 0;
}

static const struct cand_cache *cands_of(struct flowrun *x, uint32_t s,
					 const uint16_t *lev)
{
	struct cand_cache *c = &x->cache[s];

	if (c->group != x->group) {
		c->group = x->group;
		c->nc = (uint8_t)x->e->cands(x->e->ctx, x->slot, lev, s,
					     c->cands);
	}
	return c;
}

/* The chunk's share [*begin, *end) of n items. */
static void share(uint32_t n, unsigned chunk, unsigned nchunks, uint32_t *begin,
		  uint32_t *end)
{
	*begin = (uint32_t)((uint64_t)n * chunk / nchunks);
	*end = (uint32_t)((uint64_t)n * (chunk + 1) / nchunks);
}

/* Switches of one level, the block's LIDs each. */
static int level_chunk(void *arg, unsigned worker, unsigned chunk)
{
	struct flowrun *x = arg;
	const struct cr_fabric *f = x->f;
	const uint16_t *lev = x->lev + (size_t)x->slot * x->ns;
	const uint32_t *order = x->order + (size_t)x->slot * x->ns;
	uint32_t *mine = x->acc[worker];
	unsigned w = x->width;
	uint32_t begin, end;

	share(x->lend - x->lbegin, chunk, x->nchunks, &begin, &end);
	for (uint32_t k = x->lbegin + begin; k < x->lbegin + end; k++) {
		uint32_t s = order[k], sw = f->switches[s];
		const struct cand_cache *c = cands_of(x, s, lev);
		const struct cr_node *n = &f->nodes[sw];
		uint32_t *plain = cr_portsel_plain_counts(x->ps, sw);

		for (unsigned i = 0; i < x->nb; i++) {
			uint64_t in = x->bport[i] ? x->cas[s] : 0;
			uint16_t lid = x->blid[i];
			uint32_t next;
			uint8_t p;

			for (unsigned m = 0; m < x->members; m++) {
				uint32_t *a = &x->acc[m][(size_t)s * w + i];

				if (*a) {
					in += *a;
					*a = 0;
				}
			}
			/* No flow here (half the picks on a fat tree): inline. */
			if (!in) {
				x->r->lft[sw][lid] = cr_portsel_pick_kept(
					x->ps, sw, plain, c->cands, c->nc, lid,
					x->bflags[i]);
				continue;
			}
			p = cr_portsel_pick_flows(x->ps, sw, c->cands, c->nc,
						  lid, x->bflags[i], in);
			x->r->lft[sw][lid] = p;
			if (p == CR_NO_PATH)
				continue;
			next = n->ports[p].remote;
			if (next == CR_NO_NODE || !cr_is_switch(f, next))
				continue;
			next = f->nodes[next].sw_index;
			/* Not to the destination, nor off the levels. */
			if (lev[next] && lev[next] != CR_FLOW_NONE)
				mine[(size_t)next * w + i] += (uint32_t)in;
		}
	}
	return 0;
}

/* A run of groups without flows: every switch, each group in order. */
static int quiet_chunk(void *arg, unsigned worker, unsigned chunk)
{
	struct flowrun *x = arg;
	const struct cr_fabric *f = x->f;
	uint32_t begin, end;

	(void)worker;
	share(x->ns, chunk, x->nchunks, &begin, &end);
	for (uint32_t s = begin; s < end; s++) {
		uint32_t sw = f->switches[s];
		uint32_t *plain = cr_portsel_plain_counts(x->ps, sw);

		for (unsigned g = 0; g < x->nquiet; g++) {
			const struct quiet *q = &x->quiet[g];
			const uint16_t *lev = x->lev + (size_t)q->slot * x->ns;
			uint8_t cands[CR_MAX_PORTS];
			unsigned nc;

			if (lev[s] == CR_FLOW_NONE)
				continue;
			if (!lev[s]) {
				/* The destination: its own entries. */
				for (uint32_t i = q->first; i < q->last; i++)
					if (x->dest[i] != CR_NO_NODE)
						x->r->lft[sw][x->lids[i]] =
							x->dport[i];
				continue;
			}
			nc = x->e->cands(x->e->ctx, q->slot, lev, s, cands);
			/* No flows: cr_portsel_pick_flows() is this. */
			for (uint32_t i = q->first; i < q->last; i++)
				if (x->dest[i] != CR_NO_NODE)
					x->r->lft[sw][x->lids[i]] =
						cr_portsel_pick_kept(
							x->ps, sw, plain, cands,
							nc, x->lids[i],
							x->flags[i]);
		}
	}
	return 0;
}

/* Chunks for n items of `per` picks each: one unless worth splitting. */
static unsigned chunks_for(const struct flowrun *x, uint32_t n, unsigned per)
{
	uint64_t picks = (uint64_t)n * per;
	uint64_t c = picks / __atomic_load_n(&grain, __ATOMIC_RELAXED);

	if (x->members == 1 || !c)
		return 1;
	if (c > 4 * x->members)
		c = 4 * x->members;
	return c > n ? n : (unsigned)c;
}

static int flush_quiet(struct flowrun *x)
{
	uint32_t lids = 0;
	int ret;

	if (!x->nquiet)
		return 0;
	for (unsigned g = 0; g < x->nquiet; g++)
		lids += x->quiet[g].last - x->quiet[g].first;
	x->nchunks = chunks_for(x, x->ns, lids);
	ret = cr_team_run(x->team, x->nchunks, quiet_chunk, x);
	x->nquiet = 0;
	return ret;
}

/* The block in x->blid: level by level, farthest first. */
static int route_block(struct flowrun *x)
{
	const uint32_t *bounds = x->bounds + (size_t)x->slot * (x->ns + 2);

	for (unsigned h = x->maxlev[x->slot]; h >= 1; h--) {
		int ret;

		x->lbegin = bounds[h];
		x->lend = bounds[h + 1];
		if (x->lbegin == x->lend)
			continue;
		x->nchunks = chunks_for(x, x->lend - x->lbegin, x->nb);
		ret = cr_team_run(x->team, x->nchunks, level_chunk, x);
		if (ret)
			return ret;
	}
	return 0;
}

/* Positions [first, last) of one destination (slot), with flows. */
static int route_group(struct flowrun *x, unsigned slot, uint32_t first,
		       uint32_t last)
{
	const struct cr_fabric *f = x->f;

	x->slot = slot;
	x->group++;
	for (uint32_t i = first; i < last;) {
		int ret;

		x->nb = 0;
		for (; i < last && x->nb < x->width; i++) {
			uint16_t lid = x->lids[i];

			if (x->dest[i] == CR_NO_NODE)
				continue;
			x->r->lft[f->switches[x->dest[i]]][lid] = x->dport[i];
			x->blid[x->nb] = lid;
			x->bport[x->nb] = x->dport[i];
			x->bflags[x->nb] = x->flags[i];
			x->nb++;
		}
		ret = route_block(x);
		if (ret)
			return ret;
	}
	return 0;
}

/* The groups of the segment [first, last), in order. */
static int route_segment(struct flowrun *x, const unsigned *slot_of,
			 uint32_t first, uint32_t last)
{
	uint32_t i = first;
	int ret;

	ret = cr_team_run(x->team, x->ndests, prepare_chunk, x);
	while (!ret && i < last) {
		uint32_t d, j, n = 0;
		bool flows = false;

		if (x->dest[i] == CR_NO_NODE) {
			i++;
			continue;
		}
		d = x->dest[i];
		for (j = i; j < last; j++) {
			if (x->dest[j] == CR_NO_NODE)
				continue;
			if (x->dest[j] != d)
				break;
			flows |= x->dport[j] != 0;
			n++;
		}
		if (x->e->group)
			x->e->group(x->e->ctx, slot_of[d], n);
		if (flows) {
			ret = flush_quiet(x);
			if (!ret)
				ret = route_group(x, slot_of[d], i, j);
		} else {
			x->quiet[x->nquiet++] =
				(struct quiet){slot_of[d], i, j};
		}
		i = j;
	}
	if (!ret)
		ret = flush_quiet(x);
	return ret;
}

static void run_free(struct flowrun *x)
{
	for (unsigned m = 0; m < x->members; m++) {
		if (x->acc)
			free(x->acc[m]);
		if (x->cursor)
			free(x->cursor[m]);
	}
	free(x->acc);
	free(x->cursor);
	free(x->cas);
	free(x->lev);
	free(x->order);
	free(x->bounds);
	free(x->cache);
	free(x->quiet);
	free((void *)x->dest);
	free(x->dport);
	free(x->flags);
	cr_team_stop(x->team);
}

/* The longest run of one destination's LIDs, at most MAX_WIDTH. */
static unsigned block_width(const uint32_t *dest, int nlids)
{
	unsigned best = 1, run = 0;
	uint32_t last = CR_NO_NODE;

	for (int i = 0; i < nlids; i++) {
		if (dest[i] == CR_NO_NODE)
			continue;
		run = dest[i] == last ? run + 1 : 1;
		last = dest[i];
		if (run > best)
			best = run;
	}
	return best > MAX_WIDTH ? MAX_WIDTH : best;
}

static int run_init(struct flowrun *x, int nlids)
{
	const struct cr_fabric *f = x->f;
	uint32_t ns = x->ns;
	uint32_t *dest = malloc(((size_t)nlids + 1) * sizeof(*dest));

	x->dest = dest;
	x->dport = malloc((size_t)nlids + 1);
	x->flags = malloc((size_t)nlids + 1);
	if (!dest || !x->dport || !x->flags)
		return -1;
	for (int i = 0; i < nlids; i++) {
		uint16_t lid = x->lids[i];
		uint32_t dn;

		x->dport[i] = 0;
		dn = cr_lid_switch(f, lid, &x->dport[i]);

		dest[i] = dn == CR_NO_NODE ? CR_NO_NODE : f->nodes[dn].sw_index;
		x->flags[i] = (uint8_t)lid_flags(f, lid, x->dport[i]);
	}
	x->width = block_width(dest, nlids);
	x->team = cr_team_start(cr_threads_get());
	x->cas = calloc(ns + 1, sizeof(*x->cas));
	x->lev = malloc((size_t)CR_FLOW_SLOTS * ns * sizeof(*x->lev) + 1);
	x->order = malloc((size_t)CR_FLOW_SLOTS * ns * sizeof(*x->order) + 1);
	x->bounds =
		malloc((size_t)CR_FLOW_SLOTS * (ns + 2) * sizeof(*x->bounds));
	x->cache = malloc((ns + 1) * sizeof(*x->cache));
	x->quiet = malloc(((size_t)nlids + 1) * sizeof(*x->quiet));
	if (!x->team || !x->cas || !x->lev || !x->order || !x->bounds ||
	    !x->cache || !x->quiet)
		return -1;
	x->members = cr_team_size(x->team);
	x->acc = calloc(x->members, sizeof(*x->acc));
	x->cursor = calloc(x->members, sizeof(*x->cursor));
	if (!x->acc || !x->cursor)
		return -1;
	for (unsigned m = 0; m < x->members; m++) {
		x->acc[m] = calloc((size_t)ns * x->width + 1, sizeof(**x->acc));
		x->cursor[m] = malloc((ns + 2) * sizeof(**x->cursor));
		if (!x->acc[m] || !x->cursor[m])
			return -1;
	}
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		x->cache[s].group = 0;
		for (unsigned p = 1; p <= n->num_ports; p++)
			x->cas[s] += n->ports[p].remote != CR_NO_NODE &&
				     !cr_is_switch(f, n->ports[p].remote);
	}
	return 0;
}

int cr_flow_route(const struct cr_fabric *f, struct cr_routing *r,
		  struct cr_portsel *ps, const uint16_t *lids, int nlids,
		  const struct cr_flow_engine *e)
{
	struct flowrun x = {.f = f, .r = r, .ps = ps, .e = e, .lids = lids};
	unsigned *slot_of = NULL;
	uint32_t first = 0;
	int ret = -1;

	x.ns = f->num_switches;
	slot_of = malloc((x.ns + 1) * sizeof(*slot_of));
	if (!slot_of || run_init(&x, nlids)) {
		cr_err("out of memory for flow balance on %u switches", x.ns);
		goto out;
	}
	for (uint32_t s = 0; s < x.ns; s++)
		slot_of[s] = CR_FLOW_SLOTS;
	ret = 0;
	while (!ret && first < (uint32_t)nlids) {
		uint32_t last = first;

		/* The segment: LIDs while their destinations fit. */
		for (unsigned k = 0; k < x.ndests; k++)
			slot_of[x.dests[k]] = CR_FLOW_SLOTS;
		x.ndests = 0;
		for (; last < (uint32_t)nlids; last++) {
			uint32_t d = x.dest[last];

			if (d == CR_NO_NODE || slot_of[d] < CR_FLOW_SLOTS)
				continue;
			if (x.ndests == CR_FLOW_SLOTS)
				break;
			slot_of[d] = x.ndests;
			x.dests[x.ndests++] = d;
		}
		ret = route_segment(&x, slot_of, first, last);
		first = last;
	}
out:
	free(slot_of);
	run_free(&x);
	return ret;
}
