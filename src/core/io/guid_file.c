// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * OpenSM's GUID list files (root_guid_file, cn_guid_file, io_guid_file,
 * guid_routing_order_file): one GUID a line. OpenSM ignores what follows
 * a GUID, so a node-name map given as root_guid_file makes every switch a
 * root; and it drops GUIDs the fabric lacks, so a file of another fabric
 * changes the routing without a word. Both are refused here, and a line
 * of another kind of file says what the file is.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/conf.h>
#include <croute/model/fabric.h>
#include <croute/model/guidmap.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

/* Two numbers after a GUID: OpenSM's guid2lid ("0xGUID base top"). */
static bool guid2lid_tail(const char *s)
{
	unsigned long a, b;
	int pos = 0;

	return sscanf(s, "%lu %lu %n", &a, &b, &pos) == 2 && !s[pos] && a <= b;
}

/* The kinds of file whose lines start with a GUID, from what follows. */
static const char *guid_line_kind(const char *s)
{
	char *e;

	errno = 0;
	strtoull(s, &e, 16);
	if (e == s || errno || (*e && !isspace((unsigned char)*e)))
		return NULL;
	while (isspace((unsigned char)*e))
		e++;
	if (!*e || *e == '#')
		return "a GUID list (root_guid_file and the like)";
	if (*e == '"')
		return "a node-name map; give it to --node-name-map";
	if (guid2lid_tail(e))
		return "a guid2lid file; give it to --lids";
	if (strspn(e, "0123456789 \t\r\n") == strlen(e))
		return "a port_search_ordering_file; give it to --port-order";
	return NULL;
}

const char *cr_file_kind(const char *s)
{
	static const struct {
		const char *start;
		const char *kind;
	} kinds[] = {
		{"Unicast lids", "an LFT dump; give it to --lfts"},
		{"dump_ucast_routes", "an opensm.fdbs; give it to --lfts"},
		{"Multicast mlids", "a multicast table dump"},
		{"switchguid=", "a topology; give it to --topo"},
		{"caguid=", "a topology; give it to --topo"},
		{"vendid=", "a topology; give it to --topo"},
		{"sysimgguid=", "a topology; give it to --topo"},
		{"Switch", "a topology; give it to --topo"},
		{"Ca\t", "a topology; give it to --topo"},
		{"Hca", "a topology; give it to --topo"},
		{"{ ", "an opensm-subnet.lst; give it to --topo"},
	};

	while (isspace((unsigned char)*s))
		s++;
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(s, kinds[i].start, strlen(kinds[i].start)))
			return kinds[i].kind;
	return isxdigit((unsigned char)*s) ? guid_line_kind(s) : NULL;
}

/* Node and port GUIDs of f: what a GUID file may name. */
static int fabric_guids(const struct cr_fabric *f, struct cr_guidmap *m)
{
	if (cr_guidmap_init(m, 2 * (size_t)f->num_nodes))
		return -1;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];

		if (cr_guidmap_put(m, node->guid, n) < 0)
			return -1;
		for (unsigned p = 0; p <= node->num_ports; p++)
			if (node->ports[p].guid &&
			    cr_guidmap_put(m, node->ports[p].guid, n) < 0)
				return -1;
	}
	return 0;
}

struct guid_reader {
	const char *path;
	const char *key;
	const struct cr_guidmap *known; /* NULL: no fabric to check */
	const struct cr_fabric *f;
	unsigned *named_on; /* per node: the line that named it, 0 = none */
	uint64_t *named_as; /* per node: the GUID that line gave */
	unsigned lines; /* lines with a GUID */
	unsigned tails; /* of them, with text after it */
	unsigned first_tail;
	unsigned found; /* GUIDs in the fabric */
};

/*
 * A node named twice (the same GUID, or its node GUID and a port's): one
 * of the lines was meant for another node, as when a digit changed.
 * Distinct port GUIDs of one CA are two ports, both meant.
 */
static void named_again(struct guid_reader *g, unsigned lineno, uint32_t n,
			uint64_t guid)
{
	uint64_t node = g->f->nodes[n].guid, was = g->named_as[n];
	char label[CR_NODE_LABEL_MAX];

	if (g->named_on[n] && (was == guid || was == node || guid == node ||
			       g->f->nodes[n].type == CR_NODE_SWITCH))
		cr_warn("%s:%u: 0x%016" PRIx64 " names node %s again (line"
			" %u): meant another node? (%s)",
			g->path, lineno, guid,
			cr_node_label(g->f, n, 0, label, sizeof(label)),
			g->named_on[n], g->key);
	g->named_on[n] = lineno;
	g->named_as[n] = guid;
}

static int guid_line(struct guid_reader *g, unsigned lineno, char *s,
		     struct cr_guid_list *l)
{
	char *end, *rest;
	unsigned long long guid;
	const char *kind;

	/* strtoull would take "-1" as 0xffffffffffffffff. */
	errno = 0;
	guid = isxdigit((unsigned char)*s) ? strtoull(s, &end, 16) : 0;
	if (errno || !guid || (*end && !isspace((unsigned char)*end))) {
		kind = cr_file_kind(s);
		if (kind)
			cr_err("%s:%u: this is %s (%s takes one GUID a line)",
			       g->path, lineno, kind, g->key);
		else
			cr_err("%s:%u: '%s' is not a GUID (%s)", g->path,
			       lineno, s, g->key);
		return -1;
	}
	for (rest = end; isspace((unsigned char)*rest); rest++)
		;
	if (*rest && guid2lid_tail(rest)) {
		cr_err("%s:%u: this is a guid2lid file; give it to --lids (%s"
		       " takes one GUID a line)",
		       g->path, lineno, g->key);
		return -1;
	}
	g->lines++;
	if (*rest && !g->tails++)
		g->first_tail = lineno;
	if (g->known) {
		uint32_t n = cr_guidmap_get(g->known, guid);

		if (n != CR_GUIDMAP_NONE) {
			g->found++;
			named_again(g, lineno, n, guid);
		} else
			cr_warn("%s:%u: 0x%016llx is no node or port of the"
				" fabric (%s)",
				g->path, lineno, guid, g->key);
	}
	if (cr_guid_list_add(l, guid) < 0) {
		cr_err("out of memory reading %s", g->path);
		return -1;
	}
	return 0;
}

/* The file as a whole: a node-name map, or GUIDs of another fabric. */
static int guid_file_end(const struct guid_reader *g)
{
	if (g->lines && g->tails == g->lines) {
		cr_err("%s:%u: this is a node-name map (a GUID and a name a"
		       " line); give it to --node-name-map (%s takes one GUID"
		       " a line)",
		       g->path, g->first_tail, g->key);
		return -1;
	}
	if (g->tails)
		cr_warn("%s:%u: text after the GUID, ignored (%s)", g->path,
			g->first_tail, g->key);
	if (g->known && g->lines && !g->found) {
		cr_err("%s: none of its %u GUIDs is a node or port of the"
		       " fabric (%s): a file of another fabric?",
		       g->path, g->lines, g->key);
		return -1;
	}
	return 0;
}

int cr_guid_file_parse_in(FILE *fp, const char *path, const char *key,
			  const struct cr_fabric *f, struct cr_guid_list *l)
{
	struct guid_reader g = {.path = path, .key = key};
	struct cr_guidmap known = {0};
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	if (f) {
		g.f = f;
		g.named_on = calloc(f->num_nodes + 1, sizeof(*g.named_on));
		g.named_as = calloc(f->num_nodes + 1, sizeof(*g.named_as));
		if (!g.named_on || !g.named_as || fabric_guids(f, &known)) {
			free(g.named_on);
			free(g.named_as);
			cr_guidmap_release(&known);
			cr_err("out of memory reading %s", path);
			return -1;
		}
		g.known = &known;
	}
	while (!ret &&
	       cr_getline(&line, &cap, fp, path, lineno + 1, &ret) >= 0) {
		char *hash = strchr(line, '#'), *s, *e;

		lineno++;
		if (hash)
			*hash = '\0';
		for (s = line; isspace((unsigned char)*s); s++)
			;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (*s)
			ret = guid_line(&g, lineno, s, l);
	}
	free(line);
	/* getline's -1 is also a read error (a directory gives EISDIR). */
	if (!ret && ferror(fp)) {
		cr_err("%s: read error: %s (%s)", path, strerror(errno), key);
		ret = -1;
	}
	if (!ret)
		ret = guid_file_end(&g);
	if (f)
		cr_guidmap_release(&known);
	free(g.named_on);
	free(g.named_as);
	return ret;
}

int cr_guid_file_parse(FILE *fp, const char *path, const char *key,
		       struct cr_guid_list *l)
{
	return cr_guid_file_parse_in(fp, path, key, NULL, l);
}
