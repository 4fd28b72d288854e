/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fabric generators for `croute gen`. Hosts are named so that the natural
 * sort of their descriptions is leaf by leaf, each leaf's hosts in port
 * order. GUIDs are deterministic (a seed changes only the wiring).
 */
#ifndef CROUTE_GEN_H
#define CROUTE_GEN_H

#include <croute/model/fabric.h>

struct cr_gen_params {
	enum cr_speed speed; /* default QDR */
	unsigned width; /* default 4 */
	uint32_t seed;
	unsigned hca_ports; /* ports per host (1) */
	unsigned leaf_hosts; /* fat-tree: hosts per leaf (0: k - uplinks) */
	unsigned leaf_uplinks; /* fat-tree: uplinks per leaf (0: k/2) */
};

/* k-ary n-tree: k^n hosts, n levels of k^(n-1) switches with 2k ports. */
struct cr_fabric *cr_gen_kary_ntree(unsigned k, unsigned n,
				    const struct cr_gen_params *p);
/*
 * Largest 3-level fat tree of k-port switches: k^3/4 hosts, 5k^2/4
 * switches; with p->leaf_hosts, that many hosts on each of the k^2/2
 * leaves instead of k/2. With p->leaf_uplinks u, each pod has u middle
 * switches, every leaf one cable to each, and (by default) k - u hosts:
 * oversubscribed leaves when u < k/2 (k/2 leaves a pod, u x k/2 roots).
 */
struct cr_fabric *cr_gen_fat_tree(unsigned k, const struct cr_gen_params *p);
/*
 * Two-level tree: leaves with hosts_per_leaf hosts and uplinks uplinks
 * each, spread over spines spines (uplinks % spines == 0, or a spine gets
 * one more); scramble: each leaf's uplink ports reach the spines in an
 * order permuted with the seed, and each spine's ports toward the leaves
 * are permuted too, as on directors with scrambled spine wiring.
 */
struct cr_fabric *cr_gen_two_level(unsigned leaves, unsigned hosts_per_leaf,
				   unsigned uplinks, unsigned spines,
				   bool scramble,
				   const struct cr_gen_params *p);
/* dims[0] x dims[1] (x dims[2]) torus or mesh, hosts per switch. */
struct cr_fabric *cr_gen_torus(const unsigned *dims, unsigned ndims, bool wrap,
			       unsigned hosts_per_switch,
			       const struct cr_gen_params *p);
/* Random connected graph of switches with degree <= links per switch. */
struct cr_fabric *cr_gen_random(unsigned switches, unsigned links,
				unsigned hosts_per_switch,
				const struct cr_gen_params *p);

/*
 * Dragonfly+: groups of leaves x spines two-level trees (hosts a leaf),
 * global cables a spine to spines of other groups, spread so every pair
 * of groups gets as many cables as the others or one fewer (one spine is
 * a cable short when groups x spines x global is odd). NULL (logged) when
 * spines x global < groups - 1: some pair of groups would not meet.
 */
struct cr_fabric *cr_gen_dragonfly_plus(unsigned groups, unsigned leaves,
					unsigned spines, unsigned hosts,
					unsigned global,
					const struct cr_gen_params *p);
/*
 * HyperX of dims[0] x dims[1] (x dims[2]) switches: trunk cables between
 * every two switches that differ in one coordinate; hosts a switch.
 */
struct cr_fabric *cr_gen_hyperx(const unsigned *dims, unsigned ndims,
				unsigned hosts, unsigned trunk,
				const struct cr_gen_params *p);
/*
 * Rail-optimized tree: servers of rails HCAs ("server001 HCA-1", one
 * system image GUID a server), units of unit servers with one leaf a
 * rail, every leaf unit/spines cables to each spine (spines | unit).
 */
struct cr_fabric *cr_gen_rail_tree(unsigned servers, unsigned rails,
				   unsigned unit, unsigned spines,
				   const struct cr_gen_params *p);

#endif
