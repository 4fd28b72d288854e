// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cycles that make a change of routing unsafe, found and described:
 * which switches, ports and tables (old or new entry) a packet takes
 * round a forwarding loop, and for each dependency of a credit loop one
 * LID that creates it and the tables each of its two switches uses.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>

#include "transition_int.h"

static const char *tables(bool k0, bool k1)
{
	return k0 && k1 ? "old and new" : k1 ? "new" : "old";
}

/* A grey switch reached again: the cycle is the stack from it on. */
static uint32_t dfs_loop(struct tr *t, uint32_t *first)
{
	uint32_t ns = t->ns;

	memset(t->col, 0, ns);
	for (uint32_t root = 0; root < ns; root++) {
		uint32_t depth = 1;

		/* Kahn's algorithm ordered it: on no cycle. */
		if (!t->indeg[root] || t->col[root])
			continue;
		t->order[0] = root;
		t->kstack[0] = 0;
		t->col[root] = 1;
		while (depth) {
			uint32_t s = t->order[depth - 1], m;

			if (t->kstack[depth - 1] >= 2) {
				t->col[s] = 2;
				depth--;
				continue;
			}
			m = t->succ[2 * s + t->kstack[depth - 1]++];
			if (m == TR_NONE || t->col[m] == 2)
				continue;
			if (t->col[m] == 1) {
				*first = 0;
				while (t->order[*first] != m)
					(*first)++;
				return depth;
			}
			t->col[m] = 1;
			t->order[depth] = m;
			t->kstack[depth++] = 0;
		}
	}
	return 0;
}

int cr_tr_report_loop(struct tr *t, uint32_t b, FILE *out,
		      struct cr_transition_report *rep)
{
	const struct cr_fabric *f = t->f;
	uint32_t first = 0, depth = dfs_loop(t, &first);
	uint16_t lid = (uint16_t)(t->lid0 + b);
	char la[CR_NODE_LABEL_MAX];

	if (!depth) {
		cr_err("the forwarding loop toward LID %u was not found again",
		       lid);
		return -1;
	}
	rep->fault = CR_TRANSITION_LOOP;
	rep->lid = lid;
	rep->sw = f->switches[t->order[first]];
	rep->cycle = depth - first;
	if (!out)
		return 1;
	fprintf(out,
		"forwarding loop toward LID %u (%s): with some switches on"
		" their old entry and others on their new one, packets go"
		" round %u switches:\n",
		lid,
		cr_node_label(f, f->lid_node[lid], f->lid_port[lid], la,
			      sizeof(la)),
		depth - first);
	for (uint32_t i = first; i < depth; i++) {
		uint32_t s = t->order[i];
		uint32_t m = t->order[i + 1 < depth ? i + 1 : first];
		bool k0 = cr_tr_next(t, 0, b, s) == m;
		bool k1 = cr_tr_next(t, 1, b, s) == m;
		uint8_t p = cr_tr_port(t, k0 ? 0 : 1, b, s);

		fprintf(out, "  %s port %u (%s entry)\n",
			cr_node_label(f, f->switches[s], 0, la, sizeof(la)), p,
			tables(k0, k1 && cr_tr_port(t, 1, b, s) == p));
	}
	return 1;
}

/* The switch index that owns channel c. */
static uint32_t owner(const struct tr *t, uint32_t c)
{
	uint32_t lo = 0, hi = t->ns;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->base[mid] <= c)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The next out-port from *next on in channel c's bitmap; 256: none. */
static unsigned next_bit(const uint64_t *g, uint32_t c, uint32_t *next)
{
	while (*next < 256) {
		uint64_t w =
			g[(size_t)c * 4 + *next / 64] & (~0ull << (*next % 64));

		if (w) {
			unsigned q = (*next / 64) * 64 +
				     (unsigned)__builtin_ctzll(w);

			*next = q + 1;
			return q;
		}
		*next = (*next / 64 + 1) * 64;
	}
	return 256;
}

/*
 * Iterative DFS with three colours over graph g; at the first back edge,
 * the stack holds the cycle from *first on. Returns the depth, 0 when
 * acyclic.
 */
static uint32_t dfs_credit(const struct tr *t, const uint64_t *g,
			   uint8_t *colour, uint32_t *stack, uint32_t *first)
{
	for (uint32_t root = 0; root < t->nchan; root++) {
		uint32_t depth = 1;

		if (colour[root])
			continue;
		colour[root] = 1;
		stack[0] = root;
		stack[1] = 0;
		while (depth) {
			uint32_t c = stack[2 * (depth - 1)];
			unsigned q =
				next_bit(g, c, &stack[2 * (depth - 1) + 1]);
			uint32_t d;

			if (q == 256 || t->nbr[c] == TR_NONE) {
				colour[c] = 2;
				depth--;
				continue;
			}
			d = t->base[t->nbr[c]] + q;
			if (colour[d] == 1) {
				*first = 0;
				while (stack[2 * *first] != d)
					(*first)++;
				return depth;
			}
			if (colour[d])
				continue;
			colour[d] = 1;
			stack[2 * depth] = d;
			stack[2 * depth + 1] = 0;
			depth++;
		}
	}
	return 0;
}

/*
 * A LID whose traffic on graph g leaves switch s by port p and switch m
 * by port q, and the tables the two take; 0 when none (cannot happen for
 * a dependency of the graph).
 */
static uint16_t witness(struct tr *t, unsigned g, const uint32_t *sp,
			const uint32_t *mq, bool *ks, bool *km)
{
	const struct cr_fabric *f = t->f;

	for (uint32_t lid0 = 1; lid0 <= f->max_lid; lid0 += TR_BLK) {
		cr_tr_load_block(t, lid0);
		for (uint32_t b = 0; b < TR_BLK && lid0 + b <= f->max_lid;
		     b++) {
			for (unsigned k = 0; k < 2; k++) {
				ks[k] = cr_tr_port(t, k, b, sp[0]) == sp[1];
				km[k] = cr_tr_port(t, k, b, mq[0]) == mq[1];
			}
			if (f->lid_node[lid0 + b] == CR_NO_NODE ||
			    !(ks[0] || ks[1]) || !(km[0] || km[1]))
				continue;
			if (t->layered) {
				if (cr_tr_lid_graph(t, b) < t->ns)
					continue;
				cr_tr_lid_masks(t, b);
				if (!(t->mask[sp[0]] & t->vl_sls[g]))
					continue;
			}
			return (uint16_t)(lid0 + b);
		}
	}
	return 0;
}

static void print_credit(struct tr *t, unsigned g, const uint32_t *stack,
			 uint32_t first, uint32_t depth, FILE *out)
{
	const struct cr_fabric *f = t->f;

	fprintf(out,
		"credit loop: VL %u, a cycle of %u cables in the dependencies"
		" of the paths old and new entries make together:\n",
		t->vl_of[g], depth - first);
	for (uint32_t i = first; i < depth; i++) {
		uint32_t c = stack[2 * i];
		uint32_t d = stack[2 * (i + 1 < depth ? i + 1 : first)];
		uint32_t s = owner(t, c), m = t->nbr[c];
		uint32_t sp[2] = {s, c - t->base[s]};
		uint32_t mq[2] = {m, d - t->base[m]};
		const struct cr_port *x =
			&f->nodes[f->switches[s]].ports[sp[1]];
		char la[CR_NODE_LABEL_MAX], lb[CR_NODE_LABEL_MAX];
		bool ks[2] = {false, false}, km[2] = {false, false};
		uint16_t lid = witness(t, g, sp, mq, ks, km);

		fprintf(out,
			"  cable %s port %u -> %s port %u, on by port %u: LID"
			" %u (%s entry, then %s entry)\n",
			cr_node_label(f, f->switches[s], 0, la, sizeof(la)),
			sp[1],
			cr_node_label(f, f->switches[m], 0, lb, sizeof(lb)),
			x->remote_port, mq[1], lid, tables(ks[0], ks[1]),
			tables(km[0], km[1]));
	}
}

int cr_tr_credit_cycle(struct tr *t, unsigned g, FILE *out,
		       struct cr_transition_report *rep)
{
	uint8_t *colour = calloc(t->nchan + 1, 1);
	uint32_t *stack = malloc(((size_t)t->nchan + 1) * 2 * sizeof(*stack));
	uint32_t first = 0, depth;
	int ret = -1;

	if (!colour || !stack) {
		cr_err("out of memory searching for credit loops");
		goto out;
	}
	depth = dfs_credit(t, &t->out[g * t->words], colour, stack, &first);
	ret = depth != 0;
	if (!depth)
		goto out;
	rep->fault = CR_TRANSITION_CREDIT;
	rep->vl = t->vl_of[g];
	rep->cycle = depth - first;
	if (out)
		print_credit(t, g, stack, first, depth, out);
out:
	free(colour);
	free(stack);
	return ret;
}
