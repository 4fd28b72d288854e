/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cr-ftree's private view of a fat tree: switches with ranks, their links
 * bundled into port groups (all ports to one neighbour switch), split into
 * upward and downward groups, and what the D-mod-k choice needs (classes of
 * switches sharing parents, each with its parents in column order).
 * ftree_rank.c builds it, ftree.c routes with it.
 */
#ifndef CROUTE_FTREE_INT_H
#define CROUTE_FTREE_INT_H

#include <croute/roles.h>
#include <croute/routing.h>

#define FT_MAX_HEIGHT 15 /* deeper than any fat tree in use */
#define FT_INF 255 /* no up/down path */

struct ft_group {
	uint32_t remote; /* switch index of the neighbour */
	uint32_t rev; /* index of the neighbour's group back to us */
	uint32_t first; /* ports: ft->ports[first .. first + n) */
	uint8_t nports;
};

struct ft_sw {
	uint32_t node; /* node index in the fabric */
	int32_t rank; /* 0 = roots; -1 while unranked */
	uint32_t groups; /* first group in ft->groups */
	uint16_t nup; /* upward groups come first ... */
	uint16_t ndown; /* ... then the downward ones */
	uint32_t slot; /* D-mod-k slots: ft->slots[slot .. + nslots) */
	uint32_t nslots; /* links to the parents of the switch's class */
	bool has_ca; /* some CA or router port attached */
};

struct ft {
	const struct cr_fabric *f;
	const struct cr_options *o;
	uint32_t ns;
	struct ft_sw *sw; /* by switch index (fabric->switches) */
	struct ft_group *groups;
	uint32_t ngroups;
	uint8_t *ports;
	int32_t *slots; /* slot -> up group << 8 | link, or -1 */
	uint32_t *by_rank; /* ranked switches, rank 0 first */
	uint32_t nranked; /* all but those left out of the tree */
	int max_rank;
	uint64_t radix_div[FT_MAX_HEIGHT + 1]; /* D-mod-k divisor by height */
	/* slots of every switch of a height, 0 when they differ */
	uint32_t common_slots[FT_MAX_HEIGHT + 1];

	struct cr_roles roles; /* compute nodes and leaves */

	uint32_t *leaves; /* leaf switch indices, in CA order */
	uint32_t nleaves;
	uint32_t max_cn_per_leaf;
};

static inline struct ft_group *ft_up(const struct ft *ft, uint32_t s)
{
	return &ft->groups[ft->sw[s].groups];
}

static inline struct ft_group *ft_down(const struct ft *ft, uint32_t s)
{
	return &ft->groups[ft->sw[s].groups + ft->sw[s].nup];
}

static inline int ft_height(const struct ft *ft, uint32_t s)
{
	return ft->max_rank - ft->sw[s].rank;
}

static inline uint64_t ft_guid(const struct ft *ft, uint32_t s)
{
	return ft->f->nodes[ft->sw[s].node].guid;
}

/* Is CA/router port p of node n a compute node (cn) for the CA order? */
static inline bool ft_is_cn(const struct ft *ft, uint32_t n, unsigned p)
{
	return cr_roles_is_cn(&ft->roles, n, p);
}

/* Is switch s a leaf (a compute node cabled to it)? */
static inline bool ft_is_leaf(const struct ft *ft, uint32_t s)
{
	return ft->roles.leaf[s];
}

/*
 * Builds groups, ranks the switches, checks the fat-tree rules, and
 * computes classes, D-mod-k divisors and the leaf order. -1 on error
 * (logged, naming the switches and ranks).
 */
int ft_build(struct ft *ft, const struct cr_fabric *f,
	     const struct cr_options *o);
void ft_release(struct ft *ft);

#endif
