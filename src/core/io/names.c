// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Export names of nodes and Slurm hostlist compression (include/croute/
 * sched.h). Names are made once per export so that collisions can be
 * found over the whole fabric: sorting the names finds them in
 * O(n log n).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>
#include <croute/io/sched.h>

struct cr_names {
	uint32_t num;
	char **name;
};

void cr_names_free(struct cr_names *nm)
{
	if (!nm)
		return;
	for (uint32_t i = 0; i < nm->num; i++)
		free(nm->name[i]);
	free(nm->name);
	free(nm);
}

const char *cr_names_get(const struct cr_names *nm, uint32_t node)
{
	return node < nm->num && nm->name[node] ? nm->name[node] : "?";
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

/* The name of node n before collisions are looked at. */
static char *base_name(const struct cr_fabric *f, uint32_t n,
		       const char *const *names)
{
	const struct cr_node *nd = &f->nodes[n];
	const char *s = names && names[n] ? names[n] : nd->desc;
	size_t len;
	char *out;

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	/*
	 * "host HCA-1": a CA's host is the first word, of a mapped name
	 * too, since the command applies its map to the descriptions.
	 */
	if (nd->type != CR_NODE_SWITCH)
		len = strcspn(s, " \t");
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len) {
		out = malloc(19);
		if (out)
			snprintf(out, 19, "0x%016" PRIx64, nd->guid);
		return out;
	}
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++)
		out[i] = name_char(s[i]) ? s[i] : '_';
	out[len] = '\0';
	return out;
}

struct named_node {
	const char *name;
	uint32_t node;
	uint64_t system; /* CAs: one host per system image */
};

static int named_cmp(const void *a, const void *b)
{
	const struct named_node *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->node < y->node ? -1 : x->node > y->node;
}

static uint64_t system_of(const struct cr_node *nd)
{
	return nd->sysimg_guid ? nd->sysimg_guid : nd->guid;
}

/*
 * Names shared by nodes that are not one host (two switches, or CAs of
 * two systems) become node GUIDs: returns how many nodes were renamed,
 * or -1 (memory).
 */
static long rename_collisions(const struct cr_fabric *f, struct cr_names *nm)
{
	struct named_node *v = malloc((f->num_nodes + 1) * sizeof(*v));
	uint32_t n = 0, groups = 0, first = 0, first_count = 0;
	long renamed = 0;
	bool *bad;

	bad = calloc(f->num_nodes + 1, sizeof(*bad));
	if (!v || !bad) {
		free(v);
		free(bad);
		return -1;
	}
	for (uint32_t i = 0; i < f->num_nodes; i++)
		v[n++] = (struct named_node){nm->name[i], i,
					     system_of(&f->nodes[i])};
	qsort(v, n, sizeof(*v), named_cmp);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		bool clash = false;

		while (j < n && !strcmp(v[j].name, v[i].name))
			j++;
		for (uint32_t k = i + 1; k < j; k++) {
			const struct cr_node *a = &f->nodes[v[i].node];
			const struct cr_node *b = &f->nodes[v[k].node];

			if (a->type == CR_NODE_SWITCH ||
			    b->type == CR_NODE_SWITCH ||
			    v[k].system != v[i].system)
				clash = true;
		}
		for (uint32_t k = i; clash && k < j; k++)
			bad[v[k].node] = true;
		if (clash && !groups++) {
			first = i;
			first_count = j - i;
		}
		i = j;
	}
	/* once: on a fabric of identical HCAs a line a name would flood */
	if (groups)
		cr_warn("%u name%s shared by different nodes (e.g. %u nodes"
			" named '%s'): those nodes are named by their node GUID"
			" instead; give a node name map",
			groups, groups == 1 ? " is" : "s are", first_count,
			v[first].name);
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		char *s;

		if (!bad[i])
			continue;
		s = realloc(nm->name[i], 19);
		if (!s) {
			renamed = -1;
			break;
		}
		snprintf(s, 19, "0x%016" PRIx64, f->nodes[i].guid);
		nm->name[i] = s;
		renamed++;
	}
	free(v);
	free(bad);
	return renamed;
}

struct cr_names *cr_names_new(const struct cr_fabric *f,
			      const char *const *names)
{
	struct cr_names *nm = calloc(1, sizeof(*nm));

	if (!nm)
		goto oom;
	nm->name = calloc(f->num_nodes + 1, sizeof(*nm->name));
	if (!nm->name)
		goto oom;
	nm->num = f->num_nodes;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		nm->name[i] = base_name(f, i, names);
		if (!nm->name[i])
			goto oom;
	}
	if (rename_collisions(f, nm) < 0)
		goto oom;
	return nm;
oom:
	cr_err("out of memory naming the nodes");
	cr_names_free(nm);
	return NULL;
}

/* ---- hostlist compression --------------------------------------------- */

struct hl_name {
	const char *s;
	size_t plen; /* prefix length: up to the trailing digits */
	unsigned digits; /* trailing digits, 0: none (or too many) */
	uint64_t num;
};

static int hl_cmp(const void *a, const void *b)
{
	const struct hl_name *x = a, *y = b;
	size_t pl = x->plen < y->plen ? x->plen : y->plen;
	int c = memcmp(x->s, y->s, pl);

	if (c)
		return c;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	if (x->digits != y->digits)
		return x->digits < y->digits ? -1 : 1;
	if (!x->digits)
		return strcmp(x->s, y->s);
	return x->num < y->num ? -1 : x->num > y->num;
}

static bool same_group(const struct hl_name *a, const struct hl_name *b)
{
	return a->digits && a->digits == b->digits && a->plen == b->plen &&
	       !memcmp(a->s, b->s, a->plen);
}

static void sb_num(struct cr_buf *b, uint64_t v, unsigned digits)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%0*" PRIu64, (int)digits, v);

	cr_buf_put(b, tmp, (size_t)n);
}

int cr_hostlist_compress(const char *const *names, size_t n, char **out)
{
	struct hl_name *v = malloc((n + 1) * sizeof(*v));
	struct cr_buf b = {0};
	size_t m = 0;

	*out = NULL;
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *s = names[i];
		size_t len = strlen(s), d = 0;

		while (d < len && isdigit((unsigned char)s[len - 1 - d]))
			d++;
		v[m] = (struct hl_name){s, len, 0, 0};
		if (d && d <= 18) {
			v[m].plen = len - d;
			v[m].digits = (unsigned)d;
			v[m].num = strtoull(s + len - d, NULL, 10);
		}
		m++;
	}
	qsort(v, m, sizeof(*v), hl_cmp);
	cr_buf_put(&b, "", 0);
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;

		if (i && !hl_cmp(&v[i], &v[i - 1])) {
			i++; /* each name once */
			continue;
		}
		if (b.len)
			cr_buf_put(&b, ",", 1);
		while (j < m && same_group(&v[i], &v[j]))
			j++;
		/* One name, or one name twice: no brackets ("U1", not "U[1]"). */
		if (j - i == 1 || v[j - 1].num == v[i].num) {
			cr_buf_put(&b, v[i].s, strlen(v[i].s));
			i = j;
			continue;
		}
		cr_buf_put(&b, v[i].s, v[i].plen);
		cr_buf_put(&b, "[", 1);
		for (size_t k = i; k < j;) {
			size_t e = k;

			while (e + 1 < j && v[e + 1].num <= v[e].num + 1)
				e++; /* equal numbers: duplicates */
			if (k > i)
				cr_buf_put(&b, ",", 1);
			sb_num(&b, v[k].num, v[k].digits);
			if (v[e].num != v[k].num) {
				cr_buf_put(&b, "-", 1);
				sb_num(&b, v[e].num, v[e].digits);
			}
			k = e + 1;
		}
		cr_buf_put(&b, "]", 1);
		i = j;
	}
	free(v);
	if (b.oom) {
		free(b.p);
		return -1;
	}
	*out = b.p;
	return 0;
}
