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

#include <croute/model/roles.h>
#include <croute/model/routing.h>

#define FT_MAX_HEIGHT 15 /* deeper than any fat tree in use */
#define FT_INF 255 /* no up/down path */
/* Trees up to this many (switch, LID) pairs get their turns checked. */
#define FT_VERIFY_MAX (100u * 1000 * 1000)

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
	uint32_t cn_stride; /* CA indexes per leaf: count_cns() */
	/* digits by CA index, max_rank + 1 each (arrival_digits()), or NULL */
	uint32_t *arrival;
	uint64_t narrival; /* CA indexes in arrival */
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

/* Its name (node description), for messages beside its GUID. */
static inline const char *ft_name(const struct ft *ft, uint32_t s)
{
	return ft->f->nodes[ft->sw[s].node].desc;
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

struct ft_dest {
	uint16_t lid;
	uint8_t dport; /* D's port delivering it; 0 for D's own LID */
	uint8_t offset; /* LMC offset within the port's LIDs */
	bool is_ca;
	uint64_t idx; /* CA index (D-mod-k) */
	unsigned flags; /* CR_PS_NOCOUNT for switch LIDs */
	/* D-mod-k digit per height: index / divisor + LMC offset */
	uint32_t digit[FT_MAX_HEIGHT + 1];
	/* digit % the height's common slot count, precomputed */
	uint32_t slot[FT_MAX_HEIGHT + 1];
	/* the main path up from D by the digits, by height; CR_NO_NODE */
	uint32_t trunk[FT_MAX_HEIGHT + 1];
};

/* A LID's place in the D-mod-k order (ft_index_lids()). */
struct ft_lid {
	uint64_t idx; /* CA index */
	uint8_t dport; /* its switch's port delivering it; 0: its own LID */
	uint8_t offset; /* LMC offset */
	uint8_t flags; /* CR_PS_NOCOUNT for switch LIDs */
	bool is_ca;
	bool set; /* routed by cr-ftree */
};

/*
 * Builds groups, ranks the switches, checks the fat-tree rules, and
 * computes classes, D-mod-k divisors and the leaf order. -1 on error,
 * CR_ROUTE_NOT_ITS_FABRIC when the fabric is no fat tree (both logged,
 * naming the switches and ranks).
 */
int ft_build(struct ft *ft, const struct cr_fabric *f,
	     const struct cr_options *o);
void ft_release(struct ft *ft);

/*
 * ftree.c, for incremental runs (incremental.c): every LID's CA index as
 * a full run numbers it, into lids[0 .. max_lid], and the CA order into
 * by; the leaf that switch routes without an up/down path turn at
 * (CR_NO_NODE: none); a destination's digits and trunk, from its
 * ft_lid; the port down group g toward t for a switch at height h.
 */
int ft_index_lids(const struct ft *ft, struct ft_lid *lids,
		  struct cr_byproducts *by);
uint32_t ft_turn_leaf(const struct ft *ft);
void ft_dest_of(const struct ft *ft, uint32_t d, uint16_t lid,
		const struct ft_lid *l, struct ft_dest *t);
uint8_t ft_route_down(const struct ft *ft, const struct ft_group *g,
		      const struct ft_dest *t, int h);

#endif
