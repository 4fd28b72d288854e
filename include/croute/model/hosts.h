/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Endpoints of traffic (CA ports) and host lists: the default order,
 * ftree's CA order, and the one parser of an endpoint token (node
 * description, GUID or LID) that host and flows files share.
 * doc/design.md, "File formats", gives the text. The orders the estimate
 * chooses (host files, the rail order) are in
 * include/croute/estimate/host_order.h.
 */
#ifndef CROUTE_HOSTS_H
#define CROUTE_HOSTS_H

#include <croute/model/routing.h>

/* A CA port: the source of a flow, or one host of a pattern. */
struct cr_endpoint {
	uint32_t node;
	uint8_t port;
	uint16_t lid; /* base LID of the port */
};

struct cr_hosts {
	struct cr_endpoint *ep;
	uint32_t count;
};

/*
 * Every CA in natural sort order of node descriptions (ties: node GUID),
 * each by its first cabled port with a LID. NULL (logged) on error.
 */
struct cr_hosts *cr_hosts_default(const struct cr_fabric *f);
/* The CA ports with these LIDs, in this order (ftree's CA order). */
struct cr_hosts *cr_hosts_from_lids(const struct cr_fabric *f,
				    const uint32_t *lids, size_t n);
/* Room for n hosts, none yet; NULL (logged) out of memory. */
struct cr_hosts *cr_hosts_new(size_t n);
void cr_hosts_free(struct cr_hosts *h);
/* Whether port p of node n (CR_NO_NODE: none) is a cabled CA port. */
bool cr_is_host_port(const struct cr_fabric *f, uint32_t n, unsigned p);

/*
 * Strcmp with digit runs compared as numbers ("sw2" < "sw10"), the order
 * `croute gen` names hosts for.
 */
int cr_natural_cmp(const char *a, const char *b);

/*
 * One endpoint of a flows or host file: a node description (in double
 * quotes when it has spaces; a quoted token is always a description), a
 * GUID (0x..., node or port GUID) or a LID (decimal). A node stands for
 * its first cabled port with a LID (a switch: its LID). The index makes
 * each lookup logarithmic.
 */
struct cr_ep_index;
struct cr_ep_index *cr_ep_index_new(const struct cr_fabric *f);
void cr_ep_index_free(struct cr_ep_index *ix);
/* Fills *ep; returns 0, or -1 with *why set to a static reason. */
int cr_endpoint_parse(const struct cr_ep_index *ix, const char *tok,
		      bool quoted, struct cr_endpoint *ep, const char **why);

#endif
