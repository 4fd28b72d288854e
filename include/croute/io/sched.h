/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Exports for schedulers and MPI: the host order in which a routing is
 * congestion free for shift (an MPI hostfile), and a Slurm topology.conf
 * of the fabric. The command (croute hosts, croute export) and the plugin
 * (croute-hosts.dump, croute-topology.conf) write them with these
 * functions; doc/design.md, "File formats", fixes both formats.
 *
 * Names: names[node] (from a node-name map) when names and that entry are
 * not NULL, else the node description (the command applies its
 * --node-name-map to the descriptions); of that, a CA takes the first
 * word (OpenSM's and ibnetdiscover's "host HCA-1" convention), a switch
 * the whole text. Characters other than letters, digits, '.',
 * '_' and '-' become '_' so that names stay one hostlist token. CAs of
 * different systems (system image GUID) that would share a host name,
 * and switches that would share a name, are named by their node GUID
 * instead ("0x0002c90300001234"), with a warning: a wrong host would be
 * worse than an ugly name.
 */
#ifndef CROUTE_SCHED_H
#define CROUTE_SCHED_H

#include <stdio.h>

#include <croute/model/hosts.h>
#include <croute/model/routing.h>

/* Every node's export name; NULL (logged) when memory runs out. */
struct cr_names;
struct cr_names *cr_names_new(const struct cr_fabric *f,
			      const char *const *names);
void cr_names_free(struct cr_names *nm);
const char *cr_names_get(const struct cr_names *nm, uint32_t node);

/*
 * The host order for shift, one entry per cabled CA port with a LID:
 * the routing's CA order (by, may be NULL) when it has one (cr-ftree),
 * else leaf by leaf,
 * leaves in the order of their lowest host LID, each leaf's hosts by
 * LID. The second is what D-mod-k port choice (port_shifting) spreads
 * evenly: consecutive destinations leave a leaf on consecutive up ports.
 * *how (may be NULL) says which. NULL (logged) on error.
 */
struct cr_hosts *cr_hosts_shift_order(const struct cr_fabric *f,
				      const struct cr_byproducts *by,
				      const char **how);

/*
 * An MPI hostfile: one host name a line, in the order of hosts, each
 * host once (its first port's place: a host with several ports is one
 * MPI host). Comment lines start with '#'. Returns the number of hosts
 * written, or -1 on an I/O error.
 */
long cr_hostfile_write(FILE *out, const struct cr_names *nm,
		       const struct cr_hosts *hosts, const char *comment);

/*
 * A Slurm topology.conf (topology/tree): every switch with a CA is a
 * leaf and lists its hosts in Nodes=; a switch's level is its distance
 * to the nearest leaf, and each switch lists the switches one level
 * below it that it is cabled to in Switches=. Links between switches of
 * one level cannot be said in topology.conf and are listed in comments;
 * when no switch reaches every leaf that way (a torus, a mesh), a
 * switch "croute-fabric" is added above the top switches so that Slurm
 * lets jobs span the fabric. Names are hostlist-compressed
 * (h[0001-0016]). 0, or -1 on an I/O error or out of memory (logged).
 */
int cr_slurm_write(FILE *out, const struct cr_fabric *f,
		   const struct cr_names *nm, const char *comment);

/*
 * Levels of the switches (level[switch index]): 0 for a switch with a CA,
 * else the breadth-first distance to the nearest such switch;
 * CR_NO_LEVEL when none is reachable. The levels of a fat tree, counted
 * from the leaves, on any fabric. Returns the highest level, or -1
 * (memory).
 */
#define CR_NO_LEVEL UINT32_MAX
int cr_switch_levels(const struct cr_fabric *f, uint32_t *level);

/*
 * Slurm hostlist compression of n names, in natural order, each once:
 * "h0001,h0002,h0003,sw" -> "h[0001-0003],sw". Names ending in digits
 * with the same prefix and digit count share a bracket. *out is
 * allocated. 0 or -1 (memory).
 */
int cr_hostlist_compress(const char *const *names, size_t n, char **out);

#endif
