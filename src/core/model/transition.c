// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The safety of a change of routing while the switches hold a mix of old
 * and new LFT entries (include/croute/model/transition.h).
 *
 * Toward one LID, each switch has at most two next hops (its old and its
 * new entry): the union graph. Any assignment of old or new to every
 * switch is a mix OpenSM can leave behind, so a mix loops exactly when
 * the union graph has a cycle (Kahn's algorithm finds one). The order
 * Kahn's algorithm gives carries each switch's SLs down the paths, as
 * cr_check() does along hop counts, and every dependency a mix can make
 * is one switch's old or new entry followed by the next switch's old or
 * new entry; those go into one graph per VL, searched for a cycle.
 *
 * The LFTs are read a block of 64 LIDs at a time, switch by switch, so
 * that the per-LID passes over all switches run in a few hundred
 * kilobytes instead of touching a cache line per switch and LID.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/transition.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

#include "transition_int.h"

const char *cr_transition_fault_name(enum cr_transition_fault fault)
{
	switch (fault) {
	case CR_TRANSITION_SAFE:
		return "safe";
	case CR_TRANSITION_SL2VL:
		return "SL2VL changes";
	case CR_TRANSITION_SL:
		return "SL changes";
	case CR_TRANSITION_LOOP:
		return "forwarding loop";
	case CR_TRANSITION_CREDIT:
		return "credit loop";
	}
	return "?";
}

static int tr_init(struct tr *t, const struct cr_fabric *f)
{
	uint32_t ns = f->num_switches;

	t->f = f;
	t->ns = ns;
	t->base = malloc((ns + 1) * sizeof(*t->base));
	if (!t->base)
		return -1;
	for (uint32_t s = 0; s < ns; s++) {
		t->base[s] = t->nchan;
		t->nchan += f->nodes[f->switches[s]].num_ports + 1u;
	}
	t->base[ns] = t->nchan;
	t->nbr = malloc(((size_t)t->nchan + 1) * sizeof(*t->nbr));
	if (!t->nbr)
		return -1;
	for (uint32_t s = 0; s < ns; s++) {
		const struct cr_node *n = &f->nodes[f->switches[s]];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			uint32_t m = p ? n->ports[p].remote : CR_NO_NODE;

			t->nbr[t->base[s] + p] =
				m != CR_NO_NODE && cr_is_switch(f, m)
					? f->nodes[m].sw_index
					: TR_NONE;
		}
	}
	return 0;
}

/* A part's own arrays: the block, one LID's graph, the dependencies. */
static int tr_scratch(struct tr *t)
{
	uint32_t ns = t->ns;

	t->blk = malloc((size_t)2 * TR_BLK * ns + 1);
	t->nx = malloc(((size_t)2 * TR_BLK * ns + 1) * sizeof(*t->nx));
	t->pt = malloc((size_t)2 * TR_BLK * ns + 1);
	t->maskt = malloc(((size_t)TR_BLK * ns + 1) * sizeof(*t->maskt));
	t->succ = malloc(((size_t)2 * ns + 1) * sizeof(*t->succ));
	t->indeg = malloc((ns + 1) * sizeof(*t->indeg));
	t->order = malloc((ns + 1) * sizeof(*t->order));
	t->col = malloc(ns + 1);
	t->kstack = malloc(ns + 1);
	t->mask = malloc((ns + 1) * sizeof(*t->mask));
	t->out = calloc(t->nvl * t->words + 1, sizeof(*t->out));
	if (!t->blk || !t->nx || !t->pt || !t->maskt || !t->succ || !t->indeg ||
	    !t->order || !t->col || !t->kstack || !t->mask || !t->out)
		return -1;
	return 0;
}

/* Part 0 also frees what the parts share. */
static void tr_free(struct tr *t, bool shared)
{
	if (shared) {
		free(t->base);
		free(t->nbr);
	}
	free(t->blk);
	free(t->nx);
	free(t->pt);
	free(t->maskt);
	free(t->succ);
	free(t->indeg);
	free(t->order);
	free(t->col);
	free(t->kstack);
	free(t->mask);
	free(t->out);
}

/* The VL of an SL in r: every path is on VL 0 without path SLs. */
static unsigned vl_of(const struct cr_routing *r, unsigned sl)
{
	return r->sl || r->sl_set ? r->sl2vl[sl] & 15u : 0;
}

bool cr_tr_routed(uint8_t p, const struct cr_node *n)
{
	return p != CR_NO_PATH && p <= n->num_ports;
}

/*
 * The SLs of both, compared pair by pair; counts the entries that differ.
 * Returns 1 (described on out) at the first fault.
 */
static int check_sls(struct tr *t, FILE *out, struct cr_transition_report *rep)
{
	const struct cr_fabric *f = t->f;
	uint16_t used = 0;
	uint32_t bad_sw = CR_NO_NODE;
	uint16_t bad_lid = 0, bad_sls[2] = {0, 0};
	char la[CR_NODE_LABEL_MAX], lb[CR_NODE_LABEL_MAX];

	for (uint32_t s = 0; s < t->ns; s++) {
		uint32_t sw = f->switches[s];
		const struct cr_node *n = &f->nodes[sw];

		for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
			uint8_t p0 = t->r[0]->lft[sw][lid];
			uint8_t p1 = t->r[1]->lft[sw][lid];
			uint16_t a, b;

			if (f->lid_node[lid] == CR_NO_NODE)
				continue;
			rep->changed += p0 != p1;
			/* Without path SLs every path is on SL 0. */
			if (!t->layered || f->lid_node[lid] == sw ||
			    !cr_tr_routed(p0, n) || !cr_tr_routed(p1, n))
				continue;
			a = cr_routing_sls(t->r[0], sw, (uint16_t)lid);
			b = cr_routing_sls(t->r[1], sw, (uint16_t)lid);
			used |= a | b;
			if (a != b && bad_sw == CR_NO_NODE) {
				bad_sw = sw;
				bad_lid = (uint16_t)lid;
				bad_sls[0] = a;
				bad_sls[1] = b;
			}
		}
	}
	for (unsigned sl = 0; sl < 16; sl++) {
		if (!(used & (1u << sl)) ||
		    vl_of(t->r[0], sl) == vl_of(t->r[1], sl))
			continue;
		rep->fault = CR_TRANSITION_SL2VL;
		rep->sl = (uint8_t)sl;
		if (out)
			fprintf(out,
				"SL2VL changes: SL %u, which paths use, goes"
				" to VL %u now and to VL %u after\n",
				sl, vl_of(t->r[0], sl), vl_of(t->r[1], sl));
		return 1;
	}
	if (bad_sw == CR_NO_NODE)
		return 0;
	rep->fault = CR_TRANSITION_SL;
	rep->sw = bad_sw;
	rep->lid = bad_lid;
	if (out)
		fprintf(out,
			"SL changes: from %s to LID %u (%s) the paths take SLs"
			" 0x%04x now and 0x%04x after (a bit per SL); running"
			" queue pairs keep theirs\n",
			cr_node_label(f, bad_sw, 0, la, sizeof(la)), bad_lid,
			cr_node_label(f, f->lid_node[bad_lid],
				      f->lid_port[bad_lid], lb, sizeof(lb)),
			bad_sls[0], bad_sls[1]);
	return 1;
}

/* The VLs the paths use, a graph each; one graph without path SLs. */
static void setup_vls(struct tr *t)
{
	uint16_t vls = 0;

	if (!t->layered) {
		t->nvl = 1;
		t->vl_sls[0] = 0xffff;
	} else {
		/* Every SL a VL of its own in one table or the other. */
		for (unsigned sl = 0; sl < 16; sl++)
			vls |= (uint16_t)(1u << vl_of(t->r[0], sl));
		for (unsigned vl = 0; vl < 16; vl++) {
			if (!(vls & (1u << vl)))
				continue;
			for (unsigned sl = 0; sl < 16; sl++)
				if (vl_of(t->r[0], sl) == vl)
					t->vl_sls[t->nvl] |=
						(uint16_t)(1u << sl);
			t->vl_of[t->nvl++] = (uint8_t)vl;
		}
	}
	t->words = (size_t)t->nchan * 4;
}

/* Reads the entries of LIDs lid0 .. lid0 + 63 of both tables. */
void cr_tr_load_block(struct tr *t, uint32_t lid0)
{
	const struct cr_fabric *f = t->f;
	uint32_t n = f->max_lid + 1u - lid0;

	if (n > TR_BLK)
		n = TR_BLK;
	t->lid0 = lid0;
	for (unsigned k = 0; k < 2; k++)
		for (uint32_t s = 0; s < t->ns; s++) {
			uint32_t sw = f->switches[s];
			const uint8_t *row = t->r[k]->lft[sw];
			size_t at = (size_t)k * TR_BLK * t->ns + s;
			const uint32_t *nbr = &t->nbr[t->base[s]];
			uint8_t np = f->nodes[sw].num_ports;

			uint8_t *pt = &t->pt[((size_t)s * 2 + k) * TR_BLK];

			for (uint32_t b = 0; b < n; b++, at += t->ns) {
				uint8_t p = row[lid0 + b];

				if (p > np)
					p = CR_NO_PATH;
				t->blk[at] = p;
				pt[b] = p;
				t->nx[at] =
					p && p != CR_NO_PATH ? nbr[p] : TR_NONE;
			}
		}
}

/*
 * The union graph toward LID lid0 + b, in Kahn's order (t->order).
 * Returns the number of switches ordered: all of them unless it has a
 * cycle.
 */
uint32_t cr_tr_lid_graph(struct tr *t, uint32_t b)
{
	uint32_t ns = t->ns, head = 0, tail = 0;

	memset(t->indeg, 0, ns * sizeof(*t->indeg));
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t m0 = cr_tr_next(t, 0, b, s),
			 m1 = cr_tr_next(t, 1, b, s);

		t->succ[2 * s] = m0;
		t->succ[2 * s + 1] = m1 == m0 ? TR_NONE : m1;
		if (m0 != TR_NONE)
			t->indeg[m0]++;
		if (m1 != TR_NONE && m1 != m0)
			t->indeg[m1]++;
	}
	for (uint32_t s = 0; s < ns; s++)
		if (!t->indeg[s])
			t->order[tail++] = s;
	while (head < tail) {
		uint32_t s = t->order[head++];

		for (unsigned k = 0; k < 2; k++) {
			uint32_t m = t->succ[2 * s + k];

			if (m != TR_NONE && !--t->indeg[m])
				t->order[tail++] = m;
		}
	}
	return tail;
}

/* The SLs of the traffic crossing each switch toward the LID. */
void cr_tr_lid_masks(struct tr *t, uint32_t b)
{
	const struct cr_fabric *f = t->f;
	uint16_t lid = (uint16_t)(t->lid0 + b);

	for (uint32_t s = 0; s < t->ns; s++) {
		uint32_t sw = f->switches[s];

		t->mask[s] = cr_routing_sls(t->r[0], sw, lid) |
			     cr_routing_sls(t->r[1], sw, lid);
	}
	for (uint32_t i = 0; i < t->ns; i++) {
		uint32_t s = t->order[i];

		for (unsigned k = 0; k < 2; k++)
			if (t->succ[2 * s + k] != TR_NONE)
				t->mask[t->succ[2 * s + k]] |= t->mask[s];
	}
}

/*
 * The dependencies of the block's LIDs (the first n, valid[b] in use):
 * either entry of each switch, then either entry of the switch it leads
 * to, in each graph whose SLs cross the switch.
 */
static void block_deps(struct tr *t, uint32_t n, const bool *valid)
{
	for (uint32_t s = 0; s < t->ns; s++) {
		const uint8_t *ps = &t->pt[(size_t)s * 2 * TR_BLK];
		const uint32_t *nbr = &t->nbr[t->base[s]];

		for (uint32_t b = 0; b < n; b++) {
			uint16_t mask =
				t->layered ? t->maskt[s * TR_BLK + b] : 0xffff;

			if (!valid[b])
				continue;
			for (unsigned k = 0; k < 2; k++) {
				uint8_t p = ps[k * TR_BLK + b];
				uint32_t m;
				const uint8_t *pm;
				size_t c = t->base[s] + p;

				if (p == 0 || p == CR_NO_PATH ||
				    (k && p == ps[b]) || nbr[p] == TR_NONE)
					continue;
				m = nbr[p];
				pm = &t->pt[(size_t)m * 2 * TR_BLK];
				for (unsigned j = 0; j < 2; j++) {
					uint8_t q = pm[j * TR_BLK + b];

					if (q == 0 || q == CR_NO_PATH ||
					    (j && q == pm[b]))
						continue;
					for (unsigned g = 0; g < t->nvl; g++)
						if (mask & t->vl_sls[g])
							t->out[g * t->words +
							       c * 4 +
							       q / 64] |=
								1ull
								<< (q % 64);
				}
			}
		}
	}
}

/*
 * One part's blocks of LIDs (begin .. end - 1, block i holding LIDs
 * 1 + 64 i on): the loop search and its own dependency graphs. A part
 * stops at its first LID with a loop (t->loop_lid).
 */
static int blocks_range(void *arg, unsigned part, unsigned nparts,
			uint32_t begin, uint32_t end)
{
	struct tr *t = &((struct tr *)arg)[part];
	const struct cr_fabric *f = t->f;

	(void)nparts;
	for (uint32_t i = begin; i < end; i++) {
		uint32_t lid0 = 1 + i * TR_BLK, n = 0;
		bool valid[TR_BLK] = {false};

		cr_tr_load_block(t, lid0);
		for (uint32_t b = 0; b < TR_BLK && lid0 + b <= f->max_lid;
		     b++, n++) {
			if (f->lid_node[lid0 + b] == CR_NO_NODE)
				continue;
			valid[b] = true;
			if (cr_tr_lid_graph(t, b) < t->ns) {
				t->loop_lid = lid0 + b;
				return 0;
			}
			if (!t->layered)
				continue;
			cr_tr_lid_masks(t, b);
			for (uint32_t s = 0; s < t->ns; s++)
				t->maskt[s * TR_BLK + b] = t->mask[s];
		}
		block_deps(t, n, valid);
	}
	return 0;
}

/*
 * The parts' results together: the lowest LID with a loop (the one a
 * single pass finds first), else the union of their graphs in part 0's.
 */
static int merge(struct tr *t, unsigned nparts, FILE *out,
		 struct cr_transition_report *rep)
{
	uint32_t loop = 0;

	for (unsigned i = 0; i < nparts; i++)
		if (t[i].loop_lid && (!loop || t[i].loop_lid < loop))
			loop = t[i].loop_lid;
	if (loop) {
		uint32_t lid0 = 1 + (loop - 1) / TR_BLK * TR_BLK;

		cr_tr_load_block(t, lid0);
		cr_tr_lid_graph(t, loop - lid0);
		return cr_tr_report_loop(t, loop - lid0, out, rep);
	}
	for (unsigned i = 1; i < nparts; i++)
		for (size_t w = 0; w < t->nvl * t->words; w++)
			t->out[w] |= t[i].out[w];
	for (unsigned g = 0; g < t->nvl; g++) {
		int ret = cr_tr_credit_cycle(t, g, out, rep);

		if (ret)
			return ret;
	}
	return 0;
}

int cr_transition_check(const struct cr_fabric *f,
			const struct cr_routing *from,
			const struct cr_routing *to, FILE *out,
			struct cr_transition_report *rep)
{
	struct tr t = {.r = {from, to}}, *parts = NULL;
	uint32_t nblocks = (f->max_lid + TR_BLK - 1u) / TR_BLK;
	unsigned nparts = cr_parallel_parts(nblocks, 2), made = 0;
	int ret = -1;

	memset(rep, 0, sizeof(*rep));
	if (from->num_nodes != f->num_nodes || to->num_nodes != f->num_nodes ||
	    from->max_lid != f->max_lid || to->max_lid != f->max_lid) {
		cr_err("the tables to compare are not made for this fabric");
		return -1;
	}
	if (tr_init(&t, f))
		goto oom;
	t.layered = from->sl || from->sl_set || to->sl || to->sl_set;
	ret = check_sls(&t, out, rep);
	if (ret)
		goto out;
	setup_vls(&t);
	parts = calloc(nparts, sizeof(*parts));
	if (!parts)
		goto oom;
	for (; made < nparts; made++) {
		parts[made] = t;
		if (tr_scratch(&parts[made]))
			goto oom;
	}
	if (cr_parallel(nblocks, nparts, blocks_range, parts))
		goto oom;
	ret = merge(parts, nparts, out, rep);
	goto out;
oom:
	cr_err("out of memory checking the change of routing");
	ret = -1;
out:
	/* parts[made] may hold part of its scratch */
	for (unsigned i = 0; parts && i < nparts && i <= made; i++)
		tr_free(&parts[i], false);
	free(parts);
	tr_free(&t, true);
	return ret;
}
