// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rail-ring: the ring all-reduce of AI jobs, run on every rail at once.
 * Server s's HCA on rail r sends to server s + 1's HCA on rail r, the last
 * server to the first: one phase.
 *
 * The HCAs of one server share its system image GUID (a CA without one is
 * a server of its own). A server's rails are its host ports in node GUID
 * order, then port number: rail 0 the lowest. Servers are numbered in the
 * order their first host port appears in the host order, so a host order
 * that permutes servers permutes the ring. A rail that only some servers
 * have rings over those; a rail of one server sends nothing.
 */
#include <stdlib.h>

#include <croute/model/log.h>
#include <croute/estimate/host_order.h>
#include "phases.h"

struct hca {
	uint64_t sys, guid;
	uint32_t port, host; /* host: index in the host order */
	uint32_t server, rail;
};

static int by_server_guid(const void *a, const void *b)
{
	const struct hca *x = a, *y = b;

	if (x->sys != y->sys)
		return x->sys < y->sys ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

static int by_rail_server(const void *a, const void *b)
{
	const struct hca *x = a, *y = b;

	if (x->rail != y->rail)
		return x->rail < y->rail ? -1 : 1;
	return x->server < y->server ? -1 : x->server > y->server;
}

/* Gives every group of one system image its rails and first host. */
static void number_rails(struct hca *c, uint32_t n, uint32_t *first)
{
	for (uint32_t i = 0, start = 0; i < n; i++) {
		if (i && c[i].sys != c[i - 1].sys)
			start = i;
		c[i].rail = i - start;
		/* first[]: the lowest host index of the group, at its start */
		if (i == start || c[i].host < first[start])
			first[start] = c[i].host;
	}
	for (uint32_t i = 0, start = 0; i < n; i++) {
		if (i && c[i].sys != c[i - 1].sys)
			start = i;
		/* a server's number: the host index of its first port */
		c[i].server = first[start];
	}
}

int cr_rail_ring_next(const struct cr_fabric *f, const struct cr_hosts *h,
		      uint32_t *next)
{
	uint32_t n = h->count;
	struct hca *c = malloc((n + 1) * sizeof(*c));
	uint32_t *first = malloc((n + 1) * sizeof(*first));

	if (!c || !first) {
		free(c);
		free(first);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cr_node *nd = &f->nodes[h->ep[i].node];

		c[i].sys = nd->sysimg_guid ? nd->sysimg_guid : nd->guid;
		c[i].guid = nd->guid;
		c[i].port = h->ep[i].port;
		c[i].host = i;
		next[i] = UINT32_MAX;
	}
	qsort(c, n, sizeof(*c), by_server_guid);
	number_rails(c, n, first);
	qsort(c, n, sizeof(*c), by_rail_server);
	for (uint32_t i = 0, start = 0; i < n; i++) {
		bool last = i + 1 == n || c[i + 1].rail != c[i].rail;

		if (i && c[i].rail != c[i - 1].rail)
			start = i;
		if (last && i == start)
			continue;
		next[c[i].host] = c[last ? start : i + 1].host;
	}
	free(c);
	free(first);
	return 0;
}

static int by_server_rail(const void *a, const void *b)
{
	const struct hca *x = a, *y = b;

	if (x->server != y->server)
		return x->server < y->server ? -1 : 1;
	return x->rail < y->rail ? -1 : x->rail > y->rail;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool cr_hosts_have_rails(const struct cr_fabric *f, const struct cr_hosts *h)
{
	uint64_t *sys = malloc((h->count + 1) * sizeof(*sys));
	uint32_t n = 0, last = CR_NO_NODE;
	bool rails = false;

	if (!sys)
		return false;
	/* one entry a CA node: its ports are one HCA, not rails */
	for (uint32_t i = 0; i < h->count; i++) {
		const struct cr_node *nd = &f->nodes[h->ep[i].node];

		if (h->ep[i].node == last || !nd->sysimg_guid ||
		    nd->sysimg_guid == nd->guid)
			continue;
		last = h->ep[i].node;
		sys[n++] = nd->sysimg_guid;
	}
	qsort(sys, n, sizeof(*sys), cmp_u64);
	for (uint32_t i = 1; i < n && !rails; i++)
		rails = sys[i] == sys[i - 1];
	free(sys);
	return rails;
}

struct cr_hosts *cr_hosts_rail(const struct cr_fabric *f,
			       const struct cr_hosts *base)
{
	uint32_t n = base->count;
	struct hca *c = malloc((n + 1) * sizeof(*c));
	uint32_t *first = malloc((n + 1) * sizeof(*first));
	struct cr_hosts *h = calloc(1, sizeof(*h));

	if (!c || !first || !h || !(h->ep = malloc((n + 1) * sizeof(*h->ep)))) {
		cr_err("out of memory ordering hosts by rail");
		free(c);
		free(first);
		cr_hosts_free(h);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cr_node *nd = &f->nodes[base->ep[i].node];

		c[i].sys = nd->sysimg_guid ? nd->sysimg_guid : nd->guid;
		c[i].guid = nd->guid;
		c[i].port = base->ep[i].port;
		c[i].host = i;
	}
	qsort(c, n, sizeof(*c), by_server_guid);
	number_rails(c, n, first);
	qsort(c, n, sizeof(*c), by_server_rail);
	for (uint32_t i = 0; i < n; i++)
		h->ep[i] = base->ep[c[i].host];
	h->count = n;
	free(c);
	free(first);
	return h;
}
