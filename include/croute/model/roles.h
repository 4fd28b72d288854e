/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the CA ports and switches of a fabric are to the engines: which CA
 * ports are compute nodes, which switches are leaves, and which switches
 * root_guid_file makes roots. One definition each, used by port selection,
 * cr-updn and cr-ftree alike (doc/design.md, "Switch roles").
 */
#ifndef CROUTE_ROLES_H
#define CROUTE_ROLES_H

#include <croute/model/routing.h>

/*
 * Compute nodes and leaves.
 *
 * A CA or router port is a compute node when cn_guid_file names it (its
 * node or port GUID); without a cn list, when io_guid_file does not name
 * it. With neither list, when it is cabled to a switch that holds at
 * least half (rounded up) the median number of CA ports of the switches
 * that hold any, or that is cabled to no such switch: so a management
 * host on a spine next to the leaves is an I/O node, and a leaf with one
 * host left is still a leaf (src/core/model/roles.c says why). A leaf is
 * a switch with a compute node cabled to it.
 */
struct cr_roles {
	const struct cr_fabric *f;
	bool *leaf; /* [sw_index] */
	uint32_t num_leaves;
	/* the CA switches that are not leaves: I/O nodes only */
	uint32_t num_io_switches;
	uint64_t *cn, *io; /* the lists, sorted */
	size_t ncn, nio;
};

/* Fills r for f and o's cn/io lists. -1 (logged) out of memory. */
int cr_roles_init(struct cr_roles *r, const struct cr_fabric *f,
		  const struct cr_options *o);
void cr_roles_release(struct cr_roles *r);
/* Whether CA/router port p of node n is a compute node. */
bool cr_roles_is_cn(const struct cr_roles *r, uint32_t n, unsigned p);
/*
 * Tree-like: the switches form one connected part with at least two
 * leaves and no cable between two leaves. cr-updn and cr-minhop balance
 * flows there (doc/design.md, "Port selection").
 */
bool cr_roles_tree_like(const struct cr_roles *r);

/*
 * Roots from root_guid_file, for cr-updn and cr-ftree alike. Each GUID is
 * a switch's node GUID, or a CA's or router's node GUID (every switch its
 * ports are cabled to), or one of their port GUIDs (the switch that port
 * is cabled to). A GUID that names none of these (not in the fabric, a CA
 * cabled to no switch) is logged, naming engine, and skipped, as OpenSM
 * skips a root switch it does not find. Sets is_root[sw_index] and
 * returns the number of root switches; -1 (logged) when no GUID is
 * usable.
 */
int cr_roots_from_guids(const struct cr_fabric *f, const struct cr_guid_list *l,
			const char *engine, bool *is_root);

#endif
