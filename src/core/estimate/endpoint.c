// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Naming the ends of flows: host orders (natural sort of node
 * descriptions, a LID list, a host list file) and the endpoint syntax of
 * flows and host files (node description, GUID or LID). Lookups go
 * through an index built once per file, so reading a file of one line per
 * host of a 30,000-host fabric stays linear-logarithmic.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/buf.h>
#include <croute/estimate.h>
#include <croute/log.h>
#include <croute/guidmap.h>

int cr_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *x = a, *y = b;
			size_t lx, ly;
			int c;

			while (*x == '0' && isdigit((unsigned char)x[1]))
				x++;
			while (*y == '0' && isdigit((unsigned char)y[1]))
				y++;
			for (lx = 0; isdigit((unsigned char)x[lx]); lx++)
				;
			for (ly = 0; isdigit((unsigned char)y[ly]); ly++)
				;
			if (lx != ly)
				return lx < ly ? -1 : 1;
			c = memcmp(x, y, lx);
			if (c)
				return c < 0 ? -1 : 1;
			a = x + lx;
			b = y + ly;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

/* The port a node stands for: a CA's first cabled port with a LID. */
static int node_port(const struct cr_fabric *f, uint32_t n)
{
	const struct cr_node *node = &f->nodes[n];

	if (node->type == CR_NODE_SWITCH)
		return node->ports[0].lid ? 0 : -1;
	for (unsigned p = 1; p <= node->num_ports; p++)
		if (node->ports[p].remote != CR_NO_NODE && node->ports[p].lid)
			return p;
	return -1;
}

static struct cr_hosts *hosts_alloc(size_t n)
{
	struct cr_hosts *h = calloc(1, sizeof(*h));

	if (h)
		h->ep = calloc(n ? n : 1, sizeof(*h->ep));
	if (!h || !h->ep) {
		cr_err("out of memory for a host list of %zu hosts", n);
		cr_hosts_free(h);
		return NULL;
	}
	return h;
}

void cr_hosts_free(struct cr_hosts *h)
{
	if (!h)
		return;
	free(h->ep);
	free(h);
}

/* What the sorts compare, copied so that comparators need no context. */
struct named {
	const char *desc;
	uint64_t guid;
	uint32_t node;
};

static int cmp_natural(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = cr_natural_cmp(x->desc, y->desc);

	if (c)
		return c;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int cmp_exact(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return strcmp(x->desc, y->desc);
}

/* Compares a description's first word (a host name) with a word. */
static int word_cmp(const char *desc, const char *word)
{
	size_t len = strcspn(desc, " \t");
	int c = strncmp(desc, word, len);

	if (c)
		return c;
	return word[len] ? -1 : 0;
}

static int cmp_word(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	size_t lx = strcspn(x->desc, " \t"), ly = strcspn(y->desc, " \t");
	int c = strncmp(x->desc, y->desc, lx < ly ? lx : ly);

	if (c)
		return c;
	return lx < ly ? -1 : lx > ly;
}

struct cr_hosts *cr_hosts_default(const struct cr_fabric *f)
{
	struct named *cas = malloc((f->num_nodes + 1) * sizeof(*cas));
	struct cr_hosts *h = hosts_alloc(f->num_nodes);
	uint32_t n = 0;

	if (!cas || !h) {
		cr_err("out of memory ordering hosts");
		free(cas);
		cr_hosts_free(h);
		return NULL;
	}
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		if (f->nodes[i].type != CR_NODE_CA || node_port(f, i) <= 0)
			continue;
		cas[n].desc = f->nodes[i].desc;
		cas[n].guid = f->nodes[i].guid;
		cas[n++].node = i;
	}
	qsort(cas, n, sizeof(*cas), cmp_natural);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t node = cas[i].node;
		int p = node_port(f, node);

		h->ep[i].node = node;
		h->ep[i].port = (uint8_t)p;
		h->ep[i].lid = f->nodes[node].ports[p].lid;
	}
	h->count = n;
	free(cas);
	return h;
}

static bool is_host_port(const struct cr_fabric *f, uint32_t n, unsigned p)
{
	return n != CR_NO_NODE && f->nodes[n].type != CR_NODE_SWITCH && p &&
	       f->nodes[n].ports[p].remote != CR_NO_NODE;
}

struct cr_hosts *cr_hosts_from_lids(const struct cr_fabric *f,
				    const uint32_t *lids, size_t n)
{
	struct cr_hosts *h = hosts_alloc(n);

	if (!h)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t node = lids[i] && lids[i] <= f->max_lid
					? f->lid_node[lids[i]]
					: CR_NO_NODE;
		unsigned p = node != CR_NO_NODE ? f->lid_port[lids[i]] : 0;

		if (!is_host_port(f, node, p)) {
			cr_err("host order: LID %u is not a cabled CA port",
			       lids[i]);
			cr_hosts_free(h);
			return NULL;
		}
		h->ep[i].node = node;
		h->ep[i].port = (uint8_t)p;
		h->ep[i].lid = f->nodes[node].ports[p].lid;
	}
	h->count = (uint32_t)n;
	return h;
}

struct cr_hosts *cr_hosts_for(const struct cr_fabric *f,
			      const struct cr_byproducts *by, const char *path)
{
	if (path)
		return cr_hosts_read(f, path);
	if (by && by->ca_order && by->num_ca_order)
		return cr_hosts_from_lids(f, by->ca_order, by->num_ca_order);
	return cr_hosts_default(f);
}

/* ---- endpoint lookup -------------------------------------------------- */

struct cr_ep_index {
	const struct cr_fabric *f;
	struct named *by_desc; /* sorted by strcmp(desc) */
	/*
	 * CAs by host name, the first word of their description: the name
	 * croute hosts and the Slurm export write ("h0001" of "h0001
	 * HCA-1"), so that their files read back.
	 */
	struct named *by_host;
	uint32_t num_hosts;
	struct cr_guidmap node_guid;
	struct cr_guidmap port_guid;
};

void cr_ep_index_free(struct cr_ep_index *ix)
{
	if (!ix)
		return;
	free(ix->by_desc);
	free(ix->by_host);
	cr_guidmap_release(&ix->node_guid);
	cr_guidmap_release(&ix->port_guid);
	free(ix);
}

struct cr_ep_index *cr_ep_index_new(const struct cr_fabric *f)
{
	struct cr_ep_index *ix = calloc(1, sizeof(*ix));

	if (!ix)
		goto oom;
	ix->f = f;
	ix->by_desc = malloc((f->num_nodes + 1) * sizeof(*ix->by_desc));
	ix->by_host = malloc((f->num_nodes + 1) * sizeof(*ix->by_host));
	if (!ix->by_desc || !ix->by_host ||
	    cr_guidmap_init(&ix->node_guid, f->num_nodes) ||
	    cr_guidmap_init(&ix->port_guid, f->num_nodes))
		goto oom;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct cr_node *n = &f->nodes[i];

		ix->by_desc[i].desc = n->desc;
		ix->by_desc[i].guid = n->guid;
		ix->by_desc[i].node = i;
		if (cr_guidmap_put(&ix->node_guid, n->guid, i) < 0)
			goto oom;
		if (n->type == CR_NODE_SWITCH)
			continue;
		ix->by_host[ix->num_hosts++] = ix->by_desc[i];
		for (unsigned p = 1; p <= n->num_ports; p++)
			if (cr_guidmap_put(&ix->port_guid, n->ports[p].guid,
					   cr_guidmap_port(i, p)) < 0)
				goto oom;
	}
	qsort(ix->by_desc, f->num_nodes, sizeof(*ix->by_desc), cmp_exact);
	qsort(ix->by_host, ix->num_hosts, sizeof(*ix->by_host), cmp_word);
	return ix;
oom:
	cr_err("out of memory indexing node names");
	cr_ep_index_free(ix);
	return NULL;
}

/* The node with this description; CR_NO_NODE, or *ambiguous. */
static uint32_t find_desc(const struct cr_ep_index *ix, const char *desc,
			  bool *ambiguous)
{
	size_t lo = 0, hi = ix->f->num_nodes;

	*ambiguous = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix->by_desc[mid].desc, desc);

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->f->num_nodes || strcmp(ix->by_desc[lo].desc, desc))
		return CR_NO_NODE;
	if (lo + 1 < ix->f->num_nodes &&
	    !strcmp(ix->by_desc[lo + 1].desc, desc)) {
		*ambiguous = true;
		return CR_NO_NODE;
	}
	return ix->by_desc[lo].node;
}

/* The CA whose host name is word; CR_NO_NODE, or *ambiguous. */
static uint32_t find_host(const struct cr_ep_index *ix, const char *word,
			  bool *ambiguous)
{
	size_t lo = 0, hi = ix->num_hosts;

	*ambiguous = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (word_cmp(ix->by_host[mid].desc, word) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->num_hosts || word_cmp(ix->by_host[lo].desc, word))
		return CR_NO_NODE;
	if (lo + 1 < ix->num_hosts &&
	    !word_cmp(ix->by_host[lo + 1].desc, word)) {
		*ambiguous = true;
		return CR_NO_NODE;
	}
	return ix->by_host[lo].node;
}

static int node_endpoint(const struct cr_fabric *f, uint32_t n,
			 struct cr_endpoint *ep, const char **why)
{
	int p = node_port(f, n);

	if (p < 0) {
		*why = "the node has no cabled port with a LID";
		return -1;
	}
	ep->node = n;
	ep->port = (uint8_t)p;
	ep->lid = f->nodes[n].ports[p].lid;
	return 0;
}

int cr_endpoint_parse(const struct cr_ep_index *ix, const char *tok,
		      bool quoted, struct cr_endpoint *ep, const char **why)
{
	const struct cr_fabric *f = ix->f;
	char *end;
	uint32_t n, v;
	bool ambiguous;

	if (!quoted && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
		uint64_t guid;

		errno = 0;
		guid = strtoull(tok + 2, &end, 16);
		if (errno || *end || end == tok + 2) {
			*why = "not a GUID";
			return -1;
		}
		n = cr_guidmap_get(&ix->node_guid, guid);
		if (n != CR_GUIDMAP_NONE)
			return node_endpoint(f, n, ep, why);
		v = cr_guidmap_get(&ix->port_guid, guid);
		if (v == CR_GUIDMAP_NONE) {
			*why = "no node or port has this GUID";
			return -1;
		}
		ep->node = v >> 8;
		ep->port = v & 0xff;
		ep->lid = f->nodes[ep->node].ports[ep->port].lid;
		if (!ep->lid) {
			*why = "the port has no LID";
			return -1;
		}
		return 0;
	}
	if (!quoted && isdigit((unsigned char)tok[0])) {
		unsigned long lid;

		errno = 0;
		lid = strtoul(tok, &end, 10);
		if (errno || *end) {
			*why = "not a LID";
			return -1;
		}
		if (!lid || lid > f->max_lid ||
		    f->lid_node[lid] == CR_NO_NODE) {
			*why = "no port has this LID";
			return -1;
		}
		ep->node = f->lid_node[lid];
		ep->port = f->lid_port[lid];
		ep->lid = (uint16_t)lid;
		return 0;
	}
	n = find_desc(ix, tok, &ambiguous);
	if (ambiguous) {
		*why = "several nodes have this description";
		return -1;
	}
	if (n == CR_NO_NODE && !strpbrk(tok, " \t")) {
		n = find_host(ix, tok, &ambiguous);
		if (ambiguous) {
			*why = "several CAs have this host name (the first word"
			       " of their descriptions): give a whole"
			       " description or a port GUID";
			return -1;
		}
	}
	if (n == CR_NO_NODE) {
		*why = "no node has this description or host name";
		return -1;
	}
	return node_endpoint(f, n, ep, why);
}

/* ---- files ------------------------------------------------------------ */

/*
 * Splits line into at most max tokens (in place): double-quoted or
 * whitespace-separated, '#' outside quotes ends the line. Returns the
 * count, max + 1 when there are more, or -1 on an unterminated quote.
 */
static int tokenize(char *line, char **tok, bool *quoted, int max)
{
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*line))
			line++;
		if (!*line || *line == '#')
			return n;
		if (n == max)
			return max + 1;
		quoted[n] = *line == '"';
		if (quoted[n]) {
			char *close = strchr(++line, '"');

			if (!close)
				return -1;
			*close = '\0';
			tok[n++] = line;
			line = close + 1;
			if (*line && !isspace((unsigned char)*line))
				return -1;
			continue;
		}
		tok[n++] = line;
		while (*line && !isspace((unsigned char)*line))
			line++;
		if (*line)
			*line++ = '\0';
	}
}

/* Calls fn for every non-empty line with its tokens (exactly want). */
static int read_lines(const struct cr_fabric *f, const char *path, int want,
		      int (*fn)(void *arg, const char *path, unsigned line,
				struct cr_endpoint *ep, char **tok),
		      void *arg)
{
	struct cr_ep_index *ix = NULL;
	FILE *in = fopen(path, "r");
	char *buf = NULL, *tok[3];
	bool quoted[3];
	size_t cap = 0;
	ssize_t got;
	unsigned line = 0;
	int ret = -1;

	if (!in) {
		cr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	ix = cr_ep_index_new(f);
	if (!ix)
		goto out;
	while ((got = getline(&buf, &cap, in)) >= 0) {
		struct cr_endpoint ep[2];
		const char *why;
		int n;

		line++;
		if (strlen(buf) != (size_t)got) {
			cr_err("%s:%u: a NUL byte (not a text file?)", path,
			       line);
			goto out;
		}
		n = tokenize(buf, tok, quoted, want);
		if (!n)
			continue;
		if (n < 0) {
			cr_err("%s:%u: unterminated or misplaced quote", path,
			       line);
			goto out;
		}
		if (n != want) {
			cr_err("%s:%u: %s: expected %s", path, line,
			       n > want ? "too many fields" : "one field only",
			       want == 2 ? "a source and a destination"
					 : "one host");
			goto out;
		}
		for (int i = 0; i < want; i++) {
			if (cr_endpoint_parse(ix, tok[i], quoted[i], &ep[i],
					      &why)) {
				cr_err("%s:%u: \"%s\": %s", path, line, tok[i],
				       why);
				goto out;
			}
		}
		if (fn(arg, path, line, ep, tok))
			goto out;
	}
	if (ferror(in)) {
		cr_err("%s: %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(buf);
	cr_ep_index_free(ix);
	fclose(in);
	return ret;
}

struct flows_acc {
	const struct cr_fabric *f;
	struct cr_flow *flows;
	size_t n, cap;
};

static int check_source(const struct cr_fabric *f, const char *path,
			unsigned line, const struct cr_endpoint *ep,
			const char *tok)
{
	if (is_host_port(f, ep->node, ep->port))
		return 0;
	cr_err("%s:%u: \"%s\" is not a cabled CA port", path, line, tok);
	return -1;
}

static int add_flow(void *arg, const char *path, unsigned line,
		    struct cr_endpoint *ep, char **tok)
{
	struct flows_acc *a = arg;

	if (check_source(a->f, path, line, &ep[0], tok[0]))
		return -1;
	if (ep[0].node == ep[1].node && ep[0].port == ep[1].port) {
		cr_err("%s:%u: source and destination are the same port", path,
		       line);
		return -1;
	}
	if (cr_grow(&a->flows, &a->cap, a->n + 1, sizeof(*a->flows))) {
		cr_err("%s:%u: out of memory", path, line);
		return -1;
	}
	a->flows[a->n].src_node = ep[0].node;
	a->flows[a->n].src_port = ep[0].port;
	a->flows[a->n].dst_lid = ep[1].lid;
	a->n++;
	return 0;
}

int cr_flows_read(const struct cr_fabric *f, const char *path,
		  struct cr_flow **flows, size_t *n)
{
	struct flows_acc a = {.f = f};

	if (read_lines(f, path, 2, add_flow, &a)) {
		free(a.flows);
		return -1;
	}
	if (!a.n) {
		cr_err("%s: no flows", path);
		free(a.flows);
		return -1;
	}
	*flows = a.flows;
	*n = a.n;
	return 0;
}

struct hosts_acc {
	const struct cr_fabric *f;
	struct cr_hosts *h;
	size_t cap;
	unsigned *line_of; /* per LID: the line that named its port */
};

static int add_host(void *arg, const char *path, unsigned line,
		    struct cr_endpoint *ep, char **tok)
{
	struct hosts_acc *a = arg;

	if (check_source(a->f, path, line, ep, tok[0]))
		return -1;
	if (a->line_of[ep->lid]) {
		cr_err("%s:%u: \"%s\" names the port line %u named: a host"
		       " twice would send to itself",
		       path, line, tok[0], a->line_of[ep->lid]);
		return -1;
	}
	a->line_of[ep->lid] = line;
	if (cr_grow(&a->h->ep, &a->cap, (size_t)a->h->count + 1,
		    sizeof(*a->h->ep))) {
		cr_err("%s:%u: out of memory", path, line);
		return -1;
	}
	a->h->ep[a->h->count++] = *ep;
	return 0;
}

struct cr_hosts *cr_hosts_read(const struct cr_fabric *f, const char *path)
{
	struct hosts_acc a = {.f = f, .h = hosts_alloc(256), .cap = 256};

	a.line_of = calloc((size_t)f->max_lid + 1, sizeof(*a.line_of));
	if (!a.h || !a.line_of) {
		if (a.h && !a.line_of)
			cr_err("%s: out of memory", path);
		cr_hosts_free(a.h);
		free(a.line_of);
		return NULL;
	}
	if (read_lines(f, path, 1, add_host, &a)) {
		cr_hosts_free(a.h);
		a.h = NULL;
	}
	free(a.line_of);
	return a.h;
}
