// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host lists and the endpoint syntax of flows and host files (node
 * description, GUID or LID): the fabric's CAs as the estimator, the host
 * files and the CA order name them. Lookups go through an index built
 * once per file, so reading a file of one line per host of a 30,000-host
 * fabric stays linear-logarithmic.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/guidmap.h>
#include <croute/model/hosts.h>
#include <croute/model/log.h>

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

struct cr_hosts *cr_hosts_new(size_t n)
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
	struct cr_hosts *h = cr_hosts_new(f->num_nodes);
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

bool cr_is_host_port(const struct cr_fabric *f, uint32_t n, unsigned p)
{
	return n != CR_NO_NODE && f->nodes[n].type != CR_NODE_SWITCH && p &&
	       f->nodes[n].ports[p].remote != CR_NO_NODE;
}

struct cr_hosts *cr_hosts_from_lids(const struct cr_fabric *f,
				    const uint32_t *lids, size_t n)
{
	struct cr_hosts *h = cr_hosts_new(n);

	if (!h)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t node = lids[i] && lids[i] <= f->max_lid
					? f->lid_node[lids[i]]
					: CR_NO_NODE;
		unsigned p = node != CR_NO_NODE ? f->lid_port[lids[i]] : 0;

		if (!cr_is_host_port(f, node, p)) {
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
