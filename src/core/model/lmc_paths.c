// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The share of host pairs whose destination's LIDs take distinct paths.
 * A path from a switch to a LID does not depend on which of the switch's
 * CA ports sent it, so the walk runs once per (source switch, destination
 * port) and counts the switch's CA ports: time switches with CAs x CA
 * ports x 2^LMC x hops, not CA ports squared.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/lmc_paths.h>
#include <croute/model/log.h>

/* More hops than any routed path has: a longer walk is a loop. */
#define WALK_MAX 64

/*
 * The output ports from switch sw towards lid into seq; the hop count,
 * or -1 when the LID does not arrive at port (dst, dport).
 */
static int walk(const struct cr_fabric *f, const struct cr_routing *r,
		uint32_t sw, uint16_t lid, uint32_t dst, unsigned dport,
		uint8_t *seq)
{
	uint32_t n = sw;
	unsigned in = 0;
	int hops = 0;

	while (cr_is_switch(f, n)) {
		const struct cr_node *x = &f->nodes[n];
		uint8_t p;

		if (hops == WALK_MAX || !r->lft[n] || lid > r->max_lid)
			return -1;
		p = r->lft[n][lid];
		if (p == CR_NO_PATH || p == 0 || p > x->num_ports ||
		    x->ports[p].remote == CR_NO_NODE)
			return -1;
		seq[hops++] = p;
		in = x->ports[p].remote_port;
		n = x->ports[p].remote;
	}
	return n == dst && in == dport ? hops : -1;
}

/* 1 when the k paths of seq (WALK_MAX apart, len[i] hops) all differ. */
static int all_distinct(const uint8_t *seq, const int *len, unsigned k)
{
	for (unsigned i = 0; i < k; i++)
		for (unsigned j = i + 1; j < k; j++)
			if (len[i] == len[j] &&
			    !memcmp(seq + (size_t)i * WALK_MAX,
				    seq + (size_t)j * WALK_MAX, (size_t)len[i]))
				return 0;
	return 1;
}

/* CA ports with a LID cabled to switch sw (its number of sources). */
static uint32_t sources(const struct cr_fabric *f, uint32_t sw)
{
	const struct cr_node *x = &f->nodes[sw];
	uint32_t n = 0;

	for (unsigned p = 1; p <= x->num_ports; p++) {
		uint32_t m = x->ports[p].remote;

		if (m != CR_NO_NODE && !cr_is_switch(f, m) &&
		    f->nodes[m].ports[x->ports[p].remote_port].lid)
			n++;
	}
	return n;
}

/* Every destination port seen from switch sw with ns sources. */
static void from_switch(const struct cr_fabric *f, const struct cr_routing *r,
			uint32_t sw, uint32_t ns, uint8_t *seq, int *len,
			struct cr_lmc_paths *out)
{
	for (uint32_t d = 0; d < f->num_nodes; d++) {
		const struct cr_node *y = &f->nodes[d];

		if (cr_is_switch(f, d))
			continue;
		for (unsigned q = 1; q <= y->num_ports; q++) {
			const struct cr_port *x = &y->ports[q];
			unsigned k = 1u << x->lmc;
			uint64_t pairs = ns;
			int ok = 1;

			if (!x->lid || x->remote == CR_NO_NODE ||
			    !cr_is_switch(f, x->remote))
				continue;
			if (x->remote == sw)
				pairs--; /* not to itself */
			if (!pairs)
				continue;
			for (unsigned i = 0; i < k && ok; i++) {
				len[i] = walk(f, r, sw, (uint16_t)(x->lid + i),
					      d, q, seq + (size_t)i * WALK_MAX);
				ok = len[i] >= 0;
			}
			out->pairs += pairs;
			if (!ok)
				out->broken += pairs;
			else if (all_distinct(seq, len, k))
				out->distinct += pairs;
		}
	}
}

int cr_lmc_paths_count(const struct cr_fabric *f, const struct cr_routing *r,
		       struct cr_lmc_paths *out)
{
	unsigned kmax = 1u << CR_MAX_LMC;
	uint8_t *seq = malloc((size_t)kmax * WALK_MAX);
	int *len = malloc(kmax * sizeof(*len));

	memset(out, 0, sizeof(*out));
	if (!seq || !len) {
		free(seq);
		free(len);
		cr_err("out of memory counting distinct paths");
		return -1;
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];
		uint32_t ns = sources(f, sw);

		if (ns)
			from_switch(f, r, sw, ns, seq, len, out);
	}
	free(seq);
	free(len);
	return 0;
}
