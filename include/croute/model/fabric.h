/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The core's plain model of an InfiniBand subnet: nodes (CAs, switches,
 * routers), their ports, the links between them, GUIDs, LIDs with LMC and
 * link rates. The plugin builds it from OpenSM's subnet, the command from
 * topology files; engines and the estimator only ever read it.
 *
 * Nodes are addressed by their index in fabric->nodes. A switch has ports
 * 0..num_ports (0 is its management port, which holds the switch's LID); a
 * CA or router has ports 1..num_ports, each with its own LID and LMC.
 */
#ifndef CROUTE_FABRIC_H
#define CROUTE_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CR_NO_PATH 255 /* LFT entry: no route (OSM_NO_PATH) */
#define CR_NO_NODE UINT32_MAX /* no node at the other end of a port */
#define CR_MAX_PORTS 254 /* physical ports of one node, at most */
#define CR_MAX_UCAST_LID 0xBFFF
#define CR_MAX_LMC 7

enum cr_node_type {
	CR_NODE_CA = 1,
	CR_NODE_SWITCH = 2,
	CR_NODE_ROUTER = 3,
};

/* Signalling rate of one lane; the data rate follows from the encoding. */
enum cr_speed {
	CR_SPEED_UNKNOWN = 0,
	CR_SPEED_SDR,
	CR_SPEED_DDR,
	CR_SPEED_QDR,
	CR_SPEED_FDR10,
	CR_SPEED_FDR,
	CR_SPEED_EDR,
	CR_SPEED_HDR,
	CR_SPEED_NDR,
	CR_SPEED_XDR,
};

struct cr_port {
	uint64_t guid; /* switches: every port has port 0's GUID */
	uint16_t lid; /* base LID, 0 = none (switch ports > 0) */
	uint8_t lmc;
	uint8_t width; /* active lanes: 1, 2, 4, 8, 12; 0 unknown */
	enum cr_speed speed;
	uint32_t remote; /* node index at the other end, or CR_NO_NODE */
	uint8_t remote_port;
};

struct cr_node {
	enum cr_node_type type;
	uint8_t num_ports;
	uint64_t guid;
	uint64_t sysimg_guid; /* 0 when unknown: treated as the node GUID */
	char *desc; /* node description, never NULL once added */
	struct cr_port *ports; /* num_ports + 1 entries */
	uint32_t lft_cap; /* switches: LFT entries it holds, 0 unknown */
	uint32_t sw_index; /* switches: index in fabric->switches */
};

struct cr_fabric {
	struct cr_node *nodes;
	uint32_t num_nodes;
	uint32_t nodes_alloc;

	/* Filled by cr_fabric_finalize(). */
	uint32_t *switches; /* node indices of the switches, in node order */
	uint32_t num_switches;
	uint16_t max_lid; /* highest LID in use */
	uint32_t *lid_node; /* LID -> node, max_lid + 1 entries */
	uint8_t *lid_port; /* LID -> port number on that node */

	/*
	 * The port OpenSM runs on, which cr_fabric_assign_lids() serves
	 * first; 0 = unknown. Topology files set it to their first port,
	 * where ibsim attaches OpenSM.
	 */
	uint64_t sm_port_guid;
};

struct cr_fabric *cr_fabric_new(void);
/*
 * A deep copy of every field, finalized or not (the plugin hands one to
 * its estimate thread). NULL (logged) out of memory.
 */
struct cr_fabric *cr_fabric_copy(const struct cr_fabric *src);
void cr_fabric_free(struct cr_fabric *f);

/*
 * Adds a node and returns its index, or CR_NO_NODE (with an error logged)
 * when num_ports is out of range or memory runs out. Port GUIDs default to
 * the node GUID for switches and to guid + port number for CAs and routers.
 */
uint32_t cr_fabric_add_node(struct cr_fabric *f, enum cr_node_type type,
			    uint64_t guid, unsigned num_ports,
			    const char *desc);

/* Cables port pa of node a to port pb of node b. -1 if either is taken. */
int cr_fabric_link(struct cr_fabric *f, uint32_t a, unsigned pa, uint32_t b,
		   unsigned pb);

/*
 * Checks the model (links symmetric, LIDs unique, aligned to their LMC and
 * within range) and builds the switch list and the LID map. Returns 0, or
 * -1 with the reason logged. Call again after changing LIDs or links.
 */
int cr_fabric_finalize(struct cr_fabric *f);

/*
 * Gives LIDs as OpenSM does on its first sweep of a fabric whose ports
 * hold none: the SM's port (sm_port_guid) first, then the other ports in
 * port GUID order; a switch one LID (port 0), every cabled CA or router
 * port 2^lmc LIDs aligned on 2^lmc; a port without a cable none. Then
 * finalizes. For fabrics without LIDs.
 */
int cr_fabric_assign_lids(struct cr_fabric *f, unsigned lmc);

/*
 * The LID cr_fabric_assign_lids(f, lmc) would give the port port_guid (0
 * if none), and in *max_lid the highest LID it would give, without
 * changing f: to tell which LMC other tables were made with.
 */
uint32_t cr_fabric_lmc_lid(const struct cr_fabric *f, unsigned lmc,
			   uint64_t port_guid, uint32_t *max_lid);

/*
 * The highest LID cr_fabric_assign_lids(f, lmc) would give, also beyond
 * CR_MAX_UCAST_LID (the LIDs a refused LMC would need); 0 when memory
 * runs out or the fabric has no port to give one.
 */
uint32_t cr_fabric_lids_needed(const struct cr_fabric *f, unsigned lmc);

/*
 * Puts the nodes in node GUID order (stable), then finalizes. The plugin
 * imports OpenSM's subnet in that order and engines route in node order,
 * so a topology file (ibnetdiscover writes discovery order) routes exactly
 * as the live fabric does.
 */
int cr_fabric_sort_by_guid(struct cr_fabric *f);

/*
 * Leaves out the nodes with no path of cables to the SM's port
 * (sm_port_guid; if that node has no cable, the first cabled CA becomes the
 * SM's port), which OpenSM would never discover, with one warning naming
 * them, then finalizes. 0 when nothing is left out or no SM port is known.
 * -1 (logged) out of memory.
 */
int cr_fabric_keep_sm_part(struct cr_fabric *f);

/* Node with this node GUID, or CR_NO_NODE. Linear: not for inner loops. */
uint32_t cr_fabric_find_guid(const struct cr_fabric *f, uint64_t guid);
/* Node and port owning this port GUID, or CR_NO_NODE. */
uint32_t cr_fabric_find_port_guid(const struct cr_fabric *f, uint64_t guid,
				  uint8_t *port);

static inline bool cr_is_switch(const struct cr_fabric *f, uint32_t n)
{
	return f->nodes[n].type == CR_NODE_SWITCH;
}

/* The node on the far side of port p of node n, or CR_NO_NODE. */
static inline uint32_t cr_remote(const struct cr_fabric *f, uint32_t n,
				 unsigned p)
{
	return f->nodes[n].ports[p].remote;
}

/*
 * The switch a LID is routed to: the switch itself for a switch LID, the
 * switch cabled to the CA/router port otherwise (CR_NO_NODE if unattached
 * or the LID is unused). out_port, when not NULL, receives the switch port
 * that delivers the LID (0 for the switch's own LID).
 */
uint32_t cr_lid_switch(const struct cr_fabric *f, uint16_t lid,
		       uint8_t *out_port);

/* How many ports of switch index s are cabled to CAs or routers. */
unsigned cr_switch_num_cas(const struct cr_fabric *f, uint32_t s);

/* Whether lid is the base LID of its port (every LID of an LMC 0 port). */
static inline bool cr_lid_is_base(const struct cr_fabric *f, uint16_t lid)
{
	uint32_t n = f->lid_node[lid];

	return n == CR_NO_NODE ||
	       f->nodes[n].ports[f->lid_port[lid]].lid == lid;
}

/* Link data rate in Mb/s (4x QDR = 32000), 0 when width or speed unknown. */
uint32_t cr_link_rate_mbps(unsigned width, enum cr_speed speed);
/* "QDR" etc.; cr_speed_parse returns CR_SPEED_UNKNOWN when not a speed. */
const char *cr_speed_name(enum cr_speed speed);
enum cr_speed cr_speed_parse(const char *s, size_t len);

const char *cr_node_type_name(enum cr_node_type type);

/*
 * How reports name a node: "'desc' (node GUID 0x... LID n)" for a switch,
 * "'desc' (port GUID 0x... LID n)" for a CA or router port, the GUID that
 * OpenSM's guid2lid and opensm-lfts.dump show. Descriptions are often
 * shared (every HCA "MT25408 ConnectX Mellanox Technologies"), so the GUID
 * always follows, and the LID when the node has one: port 0's for a
 * switch, port p's for a CA or router (p 0: its first port with a LID;
 * none: the node GUID).
 * A description's bytes that a terminal must not see come as \\xNN
 * (cr_text_safe). Writes into buf (CR_NODE_LABEL_MAX is enough) and
 * returns it.
 */
#define CR_NODE_LABEL_MAX 320
const char *cr_node_label(const struct cr_fabric *f, uint32_t n, unsigned p,
			  char *buf, size_t len);

#endif
