// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A Slurm topology.conf of the fabric (include/croute/io/sched.h). Slurm's
 * topology/tree knows only parents and children, so switches are levelled
 * by their distance to the nearest leaf (a breadth-first search from all
 * leaves at once): on a fat tree that is the tree's own levels, and every
 * link joins two levels. Links within one level (tori, meshes, links
 * between leaves) are said in comments, and a switch above the top ones
 * is added when no switch reaches every leaf, since Slurm places a job
 * only under one switch that reaches all its nodes. Cost: O(switch links)
 * plus a bit per (switch, leaf) for that last check.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/io/sched.h>

#define NO_LEVEL CR_NO_LEVEL
#define TOP_NAME "croute-fabric"

struct slurm {
	const struct cr_fabric *f;
	const struct cr_names *nm;
	FILE *out;
	uint32_t *level; /* per switch index */
	uint32_t *order; /* switch indices by level, then node order */
	uint32_t num_leaves;
	uint32_t max_level;
	const char **list; /* scratch for hostlist compression */
};

static uint32_t sw_node(const struct slurm *s, uint32_t i)
{
	return s->f->switches[i];
}

/* Switch index of the switch at port p of node n, or NO_LEVEL. */
static uint32_t peer_switch(const struct cr_fabric *f, uint32_t n, unsigned p)
{
	uint32_t m = f->nodes[n].ports[p].remote;

	return m != CR_NO_NODE && cr_is_switch(f, m) ? f->nodes[m].sw_index
						     : NO_LEVEL;
}

static bool has_host(const struct cr_fabric *f, uint32_t n)
{
	for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
		uint32_t m = f->nodes[n].ports[p].remote;

		if (m != CR_NO_NODE && f->nodes[m].type == CR_NODE_CA)
			return true;
	}
	return false;
}

int cr_switch_levels(const struct cr_fabric *f, uint32_t *level)
{
	uint32_t *queue = malloc((f->num_switches + 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0, max = 0;

	if (!queue)
		return -1;
	for (uint32_t i = 0; i < f->num_switches; i++) {
		level[i] = CR_NO_LEVEL;
		if (has_host(f, f->switches[i])) {
			level[i] = 0;
			queue[tail++] = i;
		}
	}
	while (head < tail) {
		uint32_t i = queue[head++], n = f->switches[i];

		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t j = peer_switch(f, n, p);

			if (j == NO_LEVEL || level[j] != CR_NO_LEVEL)
				continue;
			level[j] = level[i] + 1;
			if (level[j] > max)
				max = level[j];
			queue[tail++] = j;
		}
	}
	free(queue);
	return (int)max;
}

static int levels(struct slurm *s)
{
	const struct cr_fabric *f = s->f;
	uint32_t *start;
	int max = cr_switch_levels(f, s->level);

	if (max < 0)
		return -1;
	s->max_level = (uint32_t)max;
	for (uint32_t i = 0; i < f->num_switches; i++)
		s->num_leaves += s->level[i] == 0;
	/*
	 * Within a level, node order (a counting sort by level): the file
	 * reads like the fabric, and diffs stay small when a link moves.
	 * Switches no leaf reaches go last, said in a comment.
	 */
	start = calloc((size_t)s->max_level + 3, sizeof(*start));
	if (!start)
		return -1;
	for (uint32_t i = 0; i < f->num_switches; i++)
		start[s->level[i] == NO_LEVEL ? s->max_level + 2
					      : s->level[i] + 1]++;
	for (uint32_t l = 1; l <= s->max_level + 2; l++)
		start[l] += start[l - 1];
	for (uint32_t i = 0; i < f->num_switches; i++)
		s->order[start[s->level[i] == NO_LEVEL ? s->max_level + 1
						       : s->level[i]]++] = i;
	free(start);
	return 0;
}

/* Writes "KEY=list" of the n names in s->list, compressed. */
static int put_list(struct slurm *s, const char *key, size_t n)
{
	char *txt;

	if (cr_hostlist_compress(s->list, n, &txt))
		return -1;
	fprintf(s->out, " %s=%s", key, txt);
	free(txt);
	return 0;
}

static int write_switch(struct slurm *s, uint32_t i)
{
	const struct cr_fabric *f = s->f;
	uint32_t n = sw_node(s, i);
	size_t k = 0;

	fprintf(s->out, "SwitchName=%s", cr_names_get(s->nm, n));
	for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
		uint32_t m = f->nodes[n].ports[p].remote, j;

		if (m == CR_NO_NODE)
			continue;
		if (!s->level[i]) {
			if (f->nodes[m].type == CR_NODE_CA)
				s->list[k++] = cr_names_get(s->nm, m);
			continue;
		}
		j = peer_switch(f, n, p);
		if (j != NO_LEVEL && s->level[j] + 1 == s->level[i])
			s->list[k++] = cr_names_get(s->nm, sw_node(s, j));
	}
	if (put_list(s, s->level[i] ? "Switches" : "Nodes", k))
		return -1;
	fputc('\n', s->out);
	return 0;
}

/* Links between switches of one level, each once. */
static void write_peer_links(struct slurm *s)
{
	const struct cr_fabric *f = s->f;
	bool header = false;

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = sw_node(s, i);

		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t j = peer_switch(f, n, p);
			uint8_t rp = f->nodes[n].ports[p].remote_port;

			if (j == NO_LEVEL || s->level[i] == NO_LEVEL ||
			    s->level[j] != s->level[i])
				continue;
			/* each cable once: from its lower (node, port) end */
			if (sw_node(s, j) < n || (sw_node(s, j) == n && rp < p))
				continue;
			if (!header)
				fputs("# Links within a level (topology.conf"
				      " has no way to say them):\n",
				      s->out);
			header = true;
			fprintf(s->out, "# link %s port %u - %s port %u\n",
				cr_names_get(s->nm, n), p,
				cr_names_get(s->nm, sw_node(s, j)), rp);
		}
	}
}

/*
 * Whether some switch reaches every leaf through children: one bit per
 * leaf, ORed up level by level. -1: memory.
 */
static int spanned(struct slurm *s)
{
	const struct cr_fabric *f = s->f;
	size_t words = (s->num_leaves + 63) / 64, nsw = f->num_switches;
	uint64_t *bits = calloc(nsw * words + 1, sizeof(*bits));
	int found = 0;

	if (!bits)
		return -1;
	/* s->order starts with the leaves, in bit order, then by level. */
	for (uint32_t k = 0; k < s->num_leaves; k++)
		bits[(size_t)s->order[k] * words + k / 64] |= 1ull << (k % 64);
	for (uint32_t k = 0; k < nsw; k++) {
		uint32_t i = s->order[k], n = sw_node(s, i);
		uint64_t *b = bits + (size_t)i * words;
		uint32_t have = 0;

		if (s->level[i] == NO_LEVEL)
			break;
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t j = peer_switch(f, n, p);

			if (j != NO_LEVEL && s->level[j] + 1 == s->level[i])
				for (size_t w = 0; w < words; w++)
					b[w] |= bits[(size_t)j * words + w];
		}
		for (size_t w = 0; w < words; w++)
			have += (uint32_t)__builtin_popcountll(b[w]);
		if (have == s->num_leaves) {
			found = 1;
			break;
		}
	}
	free(bits);
	return found;
}

static int write_top(struct slurm *s)
{
	const struct cr_fabric *f = s->f;
	size_t k = 0;

	/* The top switches: no switch one level up is cabled to them. */
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = sw_node(s, i);
		bool parent = false;

		if (s->level[i] == NO_LEVEL)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			uint32_t j = peer_switch(f, n, p);

			if (j != NO_LEVEL && s->level[j] == s->level[i] + 1)
				parent = true;
		}
		if (!parent)
			s->list[k++] = cr_names_get(s->nm, n);
	}
	fputs("# No switch reaches every leaf: " TOP_NAME " stands for the"
	      " whole fabric,\n# so that jobs may span it.\n",
	      s->out);
	fputs("SwitchName=" TOP_NAME, s->out);
	if (put_list(s, "Switches", k))
		return -1;
	fputc('\n', s->out);
	return 0;
}

int cr_slurm_write(FILE *out, const struct cr_fabric *f,
		   const struct cr_names *nm, const char *comment)
{
	struct slurm s = {.f = f, .nm = nm, .out = out};
	size_t nlist = 0;
	int err = -1, span;

	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].num_ports > nlist)
			nlist = f->nodes[n].num_ports;
	if (f->num_switches > nlist)
		nlist = f->num_switches;
	s.level = calloc(f->num_switches + 1, sizeof(*s.level));
	s.order = calloc(f->num_switches + 1, sizeof(*s.order));
	s.list = calloc(nlist + 1, sizeof(*s.list));
	if (!s.level || !s.order || !s.list)
		goto oom;
	if (levels(&s))
		goto oom;
	fputs("# Slurm topology.conf (topology/tree), written by croute\n",
	      out);
	if (comment)
		fprintf(out, "# %s\n", comment);
	fprintf(out,
		"# %u switches, %u with hosts; level = distance to the"
		" nearest leaf switch\n",
		f->num_switches, s.num_leaves);
	for (uint32_t k = 0; k < f->num_switches; k++) {
		uint32_t i = s.order[k];

		if (s.level[i] == NO_LEVEL) {
			fprintf(out, "# %s: no path to a switch with hosts\n",
				cr_names_get(nm, sw_node(&s, i)));
			continue;
		}
		if (!k || s.level[s.order[k - 1]] != s.level[i])
			fprintf(out, "# level %u\n", s.level[i]);
		if (write_switch(&s, i))
			goto oom;
	}
	write_peer_links(&s);
	span = s.num_leaves ? spanned(&s) : 1;
	if (span < 0 || (!span && write_top(&s)))
		goto oom;
	err = 0;
	if (ferror(out)) {
		cr_err("cannot write the Slurm topology");
		err = -1;
	}
	goto out;
oom:
	cr_err("out of memory writing the Slurm topology");
out:
	free(s.level);
	free(s.order);
	free(s.list);
	return err;
}
