// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-updn's roots (updn_choose_roots()): the ranks, and so which links
 * are up, follow from them, and with them which pairs of switches have a
 * legal path and how short it is.
 *
 * Roots come from o->root_guids (cr_roots_from_guids(): switch GUIDs, or
 * CA GUIDs standing for the switches they are cabled to), else, on a
 * tree-like fabric (leaves never cabled to each other), from its top
 * level: the switches on shortest leaf-to-leaf paths farthest from the
 * leaves, all spines even when a leaf is cabled to only some of them
 * (top_level_roots(): pairs without a legal path then take min-hop
 * detours, and a credit loop among them sends us to what follows). Else
 * from a tree heuristic: the switches whose farthest leaf is nearest (minimal
 * host eccentricity; leaves as include/croute/model/roles.h defines them, so a
 * management node on a core switch does not count), kept only
 * if up*-down* from them gives every CA switch a legal path to every
 * switch and a shortest one to every CA switch, as on fat trees and
 * two-level directors. When management nodes on core switches spoil that,
 * the candidates without CAs are tried (complete, but those switches carry
 * no transit), then the candidates again asking shortest paths only from
 * and to leaves (some CAs off the leaves then lack routes: logged).
 * Otherwise (tori, random graphs, where every switch may look alike) one
 * root per connected part: the switch of minimal eccentricity, lowest
 * GUID on ties. With a single root every pair of switches has a legal
 * path.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/hops.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>
#include <croute/model/roles.h>

#include "updn_int.h"

/*
 * Per connected part: the switches at minimal distance from their
 * farthest leaf (host eccentricity). Parts without leaves get none, nor
 * parts where every switch qualifies.
 */
static int tree_candidates(struct updn *u, const uint8_t *dist)
{
	uint32_t ns = u->ns, nl = 0;
	uint32_t *leaves = malloc((ns + 1) * sizeof(*leaves));
	unsigned *ecc = malloc((ns + 1) * sizeof(*ecc));

	if (!leaves || !ecc) {
		free(leaves);
		free(ecc);
		cr_err("cr-updn: out of memory for %u switches", ns);
		return -1;
	}
	for (uint32_t t = 0; t < ns; t++)
		if (u->leaf[t])
			leaves[nl++] = t;
	for (uint32_t s = 0; s < ns; s++) {
		ecc[s] = CR_HOPS_INF;
		for (uint32_t i = 0; i < nl; i++) {
			uint8_t d = dist[(size_t)s * ns + leaves[i]];

			if (u->comp[leaves[i]] != u->comp[s])
				continue;
			if (ecc[s] == CR_HOPS_INF || d > ecc[s])
				ecc[s] = d;
		}
	}
	for (uint32_t c = 0; c < ns; c++) {
		unsigned best = CR_HOPS_INF, members = 0, chosen = 0;

		if (u->comp[c] != c)
			continue;
		for (uint32_t s = c; s < ns; s++)
			if (u->comp[s] == c && ecc[s] < best)
				best = ecc[s];
		for (uint32_t s = c; s < ns; s++) {
			if (u->comp[s] != c)
				continue;
			members++;
			if (best != CR_HOPS_INF && ecc[s] == best) {
				u->is_root[s] = true;
				chosen++;
			}
		}
		/* All alike (a torus, a ring): no top to find. */
		if (members > 1 && chosen == members)
			for (uint32_t s = c; s < ns; s++)
				if (u->comp[s] == c)
					u->is_root[s] = false;
	}
	free(leaves);
	free(ecc);
	return 0;
}

/* Per connected part without a root: its switch of minimal eccentricity. */
static void single_roots(struct updn *u, const uint8_t *dist, bool all)
{
	uint32_t ns = u->ns;

	for (uint32_t c = 0; c < ns; c++) {
		uint32_t best = CR_NO_NODE;
		unsigned best_ecc = 0;
		bool has_root = false;

		if (u->comp[c] != c)
			continue;
		for (uint32_t s = c; s < ns; s++) {
			unsigned ecc = 0;

			if (u->comp[s] != c)
				continue;
			if (u->is_root[s]) {
				if (!all)
					has_root = true;
				u->is_root[s] = !all;
			}
			for (uint32_t t = c; t < ns; t++)
				if (u->comp[t] == c &&
				    dist[(size_t)s * ns + t] > ecc)
					ecc = dist[(size_t)s * ns + t];
			if (best == CR_NO_NODE || ecc < best_ecc ||
			    (ecc == best_ecc &&
			     updn_sw_guid(u, s) < updn_sw_guid(u, best))) {
				best = s;
				best_ecc = ecc;
			}
		}
		if (has_root)
			continue;
		u->is_root[best] = true;
		if (!all)
			cr_info("cr-updn: no root in the part of switch 0x%016" PRIx64
				": adding 0x%016" PRIx64,
				updn_sw_guid(u, c), updn_sw_guid(u, best));
	}
}

/* How much of a tree roots_fit() asks for. */
enum fit {
	FIT_STRICT, /* every CA switch: legal paths to every switch, */
	/* shortest to every CA switch */
	FIT_LEGAL, /* shortest only from and to leaves */
	FIT_LEAVES, /* only from and to leaves */
};

struct fit_job {
	const struct updn *u;
	const uint8_t *dist;
	enum fit fit;
	bool misfit; /* atomic: some destination does not fit */
};

/* Destinations [begin, end): 1 when one does not fit, -1 out of memory. */
static int fit_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	struct fit_job *j = arg;
	const struct updn *u = j->u;
	uint32_t ns = u->ns;
	uint16_t *dl = malloc((ns + 1) * sizeof(*dl));
	uint8_t *md = malloc(ns + 1);
	uint32_t *queue = malloc((ns + 1) * sizeof(*queue));
	int ret = dl && md && queue ? 0 : -1;

	(void)part;
	(void)nparts;
	for (uint32_t d = begin; !ret && d < end; d++) {
		/* Another range found one: the answer is known. */
		if (__atomic_load_n(&j->misfit, __ATOMIC_RELAXED))
			break;
		updn_label_into(u, d, dl, md, queue);
		for (uint32_t s = 0; s < ns && !ret; s++) {
			bool leafy = u->leaf[s] || u->leaf[d];
			bool shortest = j->fit == FIT_STRICT || leafy;
			bool legal =
				u->leaf[s] || j->fit != FIT_LEAVES || leafy;

			if (!u->has_ca[s] || u->comp[s] != u->comp[d])
				continue;
			if ((legal && dl[s] == CR_UPDN_NO_LABEL) ||
			    (u->has_ca[d] && shortest &&
			     dl[s] != j->dist[(size_t)s * ns + d]))
				ret = 1;
		}
	}
	if (ret > 0)
		__atomic_store_n(&j->misfit, true, __ATOMIC_RELAXED);
	free(dl);
	free(md);
	free(queue);
	return ret;
}

/*
 * Whether the current roots serve the tree heuristic, see enum fit (1
 * yes, 0 no, -1 out of memory): one labelling per destination, in
 * parallel. Below FIT_STRICT, CA switches that are not leaves (a core
 * switch with a management node) may lose bandwidth or, with FIT_LEAVES,
 * their paths to each other and to the other roots' own LIDs, as in
 * OpenSM's updn without connect_roots: the routing run logs the CA pairs
 * left without a route as errors.
 */
static int roots_fit(struct updn *u, const uint8_t *dist, enum fit fit)
{
	struct fit_job j = {.u = u, .dist = dist, .fit = fit};
	int ret =
		cr_parallel(u->ns, cr_parallel_parts(u->ns, 16), fit_range, &j);

	if (ret < 0) {
		cr_err("cr-updn: out of memory for %u switches", u->ns);
		return -1;
	}
	return !ret;
}

/*
 * CR_ROOTS_TOP: a BFS layering from the leaves (each switch's distance to
 * the nearest leaf); per connected part, the switches of the top layer.
 * Parts without leaves get their switch of minimal eccentricity.
 */
static int top_roots(struct updn *u, const uint8_t *dist)
{
	uint32_t ns = u->ns;
	unsigned *height = malloc((ns + 1) * sizeof(*height));

	if (!height) {
		cr_err("cr-updn: out of memory for %u switches", ns);
		return -1;
	}
	for (uint32_t s = 0; s < ns; s++) {
		height[s] = CR_HOPS_INF;
		for (uint32_t t = 0; t < ns; t++)
			if (u->leaf[t] && dist[(size_t)s * ns + t] < height[s])
				height[s] = dist[(size_t)s * ns + t];
	}
	for (uint32_t c = 0; c < ns; c++) {
		unsigned top = 0;
		bool any = false;

		if (u->comp[c] != c)
			continue;
		for (uint32_t s = c; s < ns; s++)
			if (u->comp[s] == c && height[s] != CR_HOPS_INF &&
			    height[s] >= top) {
				top = height[s];
				any = true;
			}
		for (uint32_t s = c; s < ns && any; s++)
			u->is_root[s] = u->comp[s] == c && height[s] == top;
	}
	free(height);
	single_roots(u, dist, false);
	return 0;
}

/*
 * On a tree-like fabric (cr_roles_tree_like()) the top level: the
 * switches on some shortest leaf-to-leaf path that are farthest from the
 * leaves (a hostless switch hanging between two spines is on none, so
 * the spines stay the top). Cost: O(switches x leaves^2)
 * distance look-ups at worst, far less on trees, where a top switch finds
 * its pair of leaves at once. Returns the number of top switches, 0 when
 * the fabric is no single tree-like part.
 */
static uint32_t top_level(const struct updn *u, const uint8_t *dist, bool *top)
{
	uint32_t ns = u->ns, nl = 0, count = 0;
	unsigned best = 0;
	uint32_t *leaves = malloc((ns + 1) * sizeof(*leaves));
	unsigned *height = malloc((ns + 1) * sizeof(*height));
	bool *on = calloc(ns + 1, sizeof(*on));

	if (!leaves || !height || !on || !u->tree_like)
		goto out;
	for (uint32_t s = 0; s < ns; s++)
		if (u->leaf[s])
			leaves[nl++] = s;
	for (uint32_t s = 0; s < ns; s++) {
		height[s] = CR_HOPS_INF;
		for (uint32_t i = 0; i < nl; i++)
			if (dist[(size_t)s * ns + leaves[i]] < height[s])
				height[s] = dist[(size_t)s * ns + leaves[i]];
	}
	for (uint32_t s = 0; s < ns; s++) {
		const uint8_t *ds = dist + (size_t)s * ns;

		if (u->leaf[s] || height[s] < best)
			continue;
		for (uint32_t i = 0; i < nl && !on[s]; i++) {
			const uint8_t *da = dist + (size_t)leaves[i] * ns;

			for (uint32_t j = i + 1; j < nl && !on[s]; j++)
				on[s] = ds[leaves[i]] + ds[leaves[j]] ==
					da[leaves[j]];
		}
		if (on[s] && height[s] > best)
			best = height[s];
	}
	for (uint32_t s = 0; s < ns; s++) {
		top[s] = on[s] && height[s] == best;
		count += top[s];
	}
out:
	free(leaves);
	free(height);
	free(on);
	return count;
}

/*
 * The top level as roots (see top_level()), unless it is what the tree
 * heuristic chose anyway (then nothing changes). Kept when every CA
 * switch has a legal shortest path to every CA switch; the pairs without
 * a legal path (a leaf to a spine it is not cabled to, the roots to each
 * other, a spine to a leaf it is not cabled to) take detours
 * (add_detours(), updn_detour.c).
 * Returns 1 when taken, 0 when not, -1 out of memory.
 */
static int top_level_roots(struct updn *u, const uint8_t *dist)
{
	uint32_t ns = u->ns, count;
	bool *top = calloc(ns + 1, sizeof(*top));
	bool *saved = malloc(ns + 1);
	bool same = true, fit = true;

	if (!top || !saved) {
		free(top);
		free(saved);
		cr_err("cr-updn: out of memory for %u switches", ns);
		return -1;
	}
	count = top_level(u, dist, top);
	for (uint32_t s = 0; s < ns; s++)
		same &= top[s] == u->is_root[s];
	if (!count || same) {
		free(top);
		free(saved);
		return 0;
	}
	memcpy(saved, u->is_root, ns);
	memcpy(u->is_root, top, ns);
	if (updn_rank_switches(u)) {
		free(top);
		free(saved);
		return -1;
	}
	for (uint32_t d = 0; d < ns && fit; d++) {
		if (!u->has_ca[d])
			continue;
		updn_label(u, d);
		for (uint32_t s = 0; s < ns && fit; s++)
			fit = !u->has_ca[s] ||
			      u->dist[s] == dist[(size_t)s * ns + d];
	}
	if (fit) {
		cr_info("cr-updn: %u roots: the top level of a tree-like fabric (farthest from the leaves on shortest leaf-to-leaf paths); min-hop detours where up*/down* has no path",
			count);
		u->detour = true;
	} else {
		cr_info("cr-updn: the %u top-level switches do not make a tree (some CA switch lacks a legal shortest path to a CA switch)",
			count);
		memcpy(u->is_root, saved, ns);
	}
	free(top);
	free(saved);
	return fit;
}

int updn_choose_roots(struct updn *u, const struct cr_options *o)
{
	uint8_t *dist;
	bool *candidate = NULL;
	unsigned count = 0, with_ca = 0;
	int fit;

	if (o->root_guids.count) {
		if (cr_roots_from_guids(u->f, &o->root_guids, "cr-updn",
					u->is_root) < 0)
			return -1;
		dist = cr_switch_distances(u->f);
		if (!dist)
			return -1;
		single_roots(u, dist, false);
		free(dist);
		cr_info("cr-updn: roots from the root GUID list");
		return updn_rank_switches(u);
	}
	dist = cr_switch_distances(u->f);
	if (!dist)
		return -1;
	if (o->updn_roots == CR_ROOTS_ECC || o->updn_roots == CR_ROOTS_TOP) {
		if (o->updn_roots == CR_ROOTS_ECC)
			single_roots(u, dist, true);
		else if (top_roots(u, dist))
			goto fail;
		cr_info("cr-updn: roots: %s",
			o->updn_roots == CR_ROOTS_ECC
				? "one per connected part, of minimal"
				  " eccentricity (roots=ecc)"
				: "the top layer of a BFS layering from the"
				  " leaves (roots=top)");
		free(dist);
		return updn_rank_switches(u);
	}
	if (tree_candidates(u, dist))
		goto fail;
	if (!u->no_top) {
		int t = top_level_roots(u, dist);

		if (t < 0)
			goto fail;
		if (t > 0) {
			free(dist);
			return 0;
		}
	}
	candidate = malloc(u->ns + 1);
	if (!candidate) {
		cr_err("cr-updn: out of memory for %u switches", u->ns);
		goto fail;
	}
	for (uint32_t s = 0; s < u->ns; s++) {
		candidate[s] = u->is_root[s];
		count += u->is_root[s];
		with_ca += u->is_root[s] && u->has_ca[s];
	}
	/*
	 * The candidates; without those that have CAs (two roots with
	 * management nodes cannot reach each other); the candidates again,
	 * leaving such CA pairs without a route rather than every leaf
	 * without bandwidth.
	 */
	for (int attempt = 0; count > 1 && attempt < 3; attempt++) {
		static const enum fit fits[] = {FIT_STRICT, FIT_LEGAL,
						FIT_LEAVES};
		static const char *const what[] = {
			"every CA switch has a legal path to every switch, a shortest one to every CA switch",
			"every CA switch has a legal path to every switch, a shortest one from and to leaves",
			"every leaf has a legal path to every switch, a shortest one to every CA switch; some CA switches off the leaves lack paths",
		};
		unsigned dropped = 0;

		if (attempt && !with_ca)
			break;

		for (uint32_t s = 0; s < u->ns; s++) {
			if (attempt == 2)
				u->is_root[s] = candidate[s];
			else if (attempt == 1 && u->is_root[s] &&
				 u->has_ca[s]) {
				u->is_root[s] = false;
				dropped++;
			}
		}
		if (attempt == 1 && (!dropped || dropped == count))
			continue;
		/* Parts without CAs, or all alike, still need a root. */
		single_roots(u, dist, false);
		if (updn_rank_switches(u))
			goto fail;
		fit = roots_fit(u, dist, fits[attempt]);
		if (fit < 0)
			goto fail;
		if (fit) {
			cr_info("cr-updn: %u roots of minimal host eccentricity%s: %s (tree-like fabric)",
				count - dropped, dropped ? " without CAs" : "",
				what[attempt]);
			free(candidate);
			free(dist);
			return 0;
		}
		cr_info("cr-updn: the %u switches of minimal host eccentricity%s do not make a tree (%s)",
			count - dropped, dropped ? " without CAs" : "",
			attempt == 2
				? "some leaf lacks a legal or a shortest path"
				: "some CA switch lacks a legal or a shortest path");
	}
	cr_info("cr-updn: one root per connected part: the switch of minimal eccentricity, lowest GUID on ties (no tree found: every pair of switches has a legal path through it)");
	single_roots(u, dist, true);
	if (updn_rank_switches(u))
		goto fail;
	free(candidate);
	free(dist);
	return 0;
fail:
	free(candidate);
	free(dist);
	return -1;
}
