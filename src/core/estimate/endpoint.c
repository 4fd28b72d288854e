// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flows and host list files, and the host order an estimate runs over.
 * Their endpoints are parsed by src/core/model/hosts.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/estimate/estimate.h>
#include <croute/model/log.h>

struct cr_hosts *cr_hosts_for(const struct cr_fabric *f,
			      const struct cr_byproducts *by, const char *path)
{
	if (path)
		return cr_hosts_read(f, path);
	if (by && by->ca_order && by->num_ca_order)
		return cr_hosts_from_lids(f, by->ca_order, by->num_ca_order);
	return cr_hosts_default(f);
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
	if (cr_is_host_port(f, ep->node, ep->port))
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
	struct hosts_acc a = {.f = f, .h = cr_hosts_new(256), .cap = 256};

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
