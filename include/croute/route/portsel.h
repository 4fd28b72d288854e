/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Port selection: the one place where a switch chooses among equally good
 * output ports toward a LID (doc/design.md, "Port selection"). Engines supply
 * the candidates; this module orders them (port number, or remote node
 * GUID with remote_guid_sorting), prefers LMC diversity, and picks the least
 * loaded, rotated by port_shifting or scattered by scatter_ports.
 */
#ifndef CROUTE_PORTSEL_H
#define CROUTE_PORTSEL_H

#include <croute/model/routing.h>

struct cr_portsel;

/*
 * The selector reads r's LFTs (for the ports already chosen for the other
 * LIDs of the same destination port) and keeps one route counter per
 * switch port. NULL when memory runs out.
 */
struct cr_portsel *cr_portsel_new(const struct cr_fabric *f,
				  const struct cr_options *o,
				  const struct cr_routing *r);
void cr_portsel_free(struct cr_portsel *ps);

/* Do not count this route in the balance (switch LIDs, for example). */
#define CR_PS_NOCOUNT 0x1
/*
 * The engine routes LIDs in cr_lid_order(): with port_shifting, spread by
 * destination (D-mod-k, see portsel.c) instead of OpenSM's rotation.
 */
#define CR_PS_SPREAD 0x2
/* The candidates are already in cr_portsel_order(): saves sorting them. */
#define CR_PS_SORTED 0x4
/* lid is its port's base LID (always with LMC 0): no diversity to seek. */
#define CR_PS_BASE 0x8

/*
 * Picks one of the n candidate ports (any order; duplicates not allowed) of
 * switch node sw for destination lid, counts the route against it unless
 * CR_PS_NOCOUNT, and returns it. n == 0 returns CR_NO_PATH.
 */
uint8_t cr_portsel_pick(struct cr_portsel *ps, uint32_t sw,
			const uint8_t *cands, unsigned n, uint16_t lid,
			unsigned flags);

/*
 * The pick that dominates at scale, inline: without port_shifting,
 * scatter_ports or global balance, a base LID over sorted candidates
 * (CR_PS_SORTED | CR_PS_BASE) goes to the first least-loaded candidate.
 * cr_portsel_plain_counts() gives switch node sw's port loads when the
 * selector picks so, else NULL; cr_portsel_pick_plain() on them then
 * returns, and counts, what cr_portsel_pick() would.
 */
uint32_t *cr_portsel_plain_counts(struct cr_portsel *ps, uint32_t sw);

static inline uint8_t cr_portsel_pick_plain(uint32_t *count,
					    const uint8_t *cands, unsigned n,
					    unsigned flags)
{
	uint8_t port;
	uint32_t least;

	if (!n)
		return CR_NO_PATH;
	port = cands[0];
	least = count[port];
	for (unsigned i = 1; i < n && least; i++)
		if (count[cands[i]] < least) {
			port = cands[i];
			least = count[port];
		}
	if (!(flags & CR_PS_NOCOUNT))
		count[port]++;
	return port;
}

/*
 * cr_portsel_pick() for an engine that keeps cr_portsel_plain_counts()'s
 * answer for sw (plain, possibly NULL) beside its sorted candidates.
 */
static inline uint8_t cr_portsel_pick_kept(struct cr_portsel *ps, uint32_t sw,
					   uint32_t *plain,
					   const uint8_t *cands, unsigned n,
					   uint16_t lid, unsigned flags)
{
	if (plain && (flags & CR_PS_BASE))
		return cr_portsel_pick_plain(plain, cands, n, flags);
	return cr_portsel_pick(ps, sw, cands, n, lid, flags);
}

/*
 * Global balance (o->balance_global): after the engine has written every
 * switch's entry for lid, adds its routes (CA ports of each switch) to the
 * weights of the links on their paths. A no-op without global balance.
 * For the weights of a candidate's remaining path to be known, the engine
 * routes the switches in order of their distance to the destination.
 */
void cr_portsel_commit(struct cr_portsel *ps, uint16_t lid);
/*
 * Rip-up (o->balance_rounds): takes lid's committed routes out of the link
 * weights and its picks out of the port counts, so that the engine can
 * route it again against every other LID's load. Call it with the LFTs
 * still as committed. A no-op without global balance.
 */
void cr_portsel_uncommit(struct cr_portsel *ps, uint16_t lid);
bool cr_portsel_global(const struct cr_portsel *ps);

/*
 * Whether different switches may pick concurrently (each thread its own
 * switches): true unless scatter_ports draws from one random sequence
 * shared by all switches, or global balance shares link weights between
 * them, so that their order would change the result.
 */
bool cr_portsel_parallel(const struct cr_portsel *ps);

/*
 * Flow balance (cr-updn, cr-minhop): the engine passes, with each pick,
 * the number of CA sources whose route toward lid crosses the switch
 * (routing the switches farthest from the destination first), and the
 * pick balances those flows per port instead of routes.
 * cr_portsel_use_flows() turns it on: 1, or 0 when port_shifting,
 * scatter_ports or global balance rule the picks instead (then
 * cr_portsel_pick_flows() is cr_portsel_pick()), -1 out of memory. A
 * pick with no flows (a switch no CA's route to lid crosses, a switch
 * LID) is cr_portsel_pick()'s, on the route counts.
 */
int cr_portsel_use_flows(struct cr_portsel *ps);
uint8_t cr_portsel_pick_flows(struct cr_portsel *ps, uint32_t sw,
			      const uint8_t *cands, unsigned n, uint16_t lid,
			      unsigned flags, uint64_t flows);

/*
 * Adds flows (negative: takes them back) to the flow balance of base
 * LIDs on port p of switch node sw: flows known to come later weigh on
 * the picks before they are routed, and are taken back as they are.
 * Nothing without flow balance.
 */
void cr_portsel_expect_flows(struct cr_portsel *ps, uint32_t sw, unsigned p,
			     int64_t flows);

/* Routes counted so far on port p of switch node sw. */
uint32_t cr_portsel_count(const struct cr_portsel *ps, uint32_t sw, unsigned p);
/*
 * Adds n routes to port p of switch node sw: routes kept from an earlier
 * routing (incremental.c) weigh on the picks as if just routed, base LIDs'
 * picks included.
 */
void cr_portsel_add_count(struct cr_portsel *ps, uint32_t sw, unsigned p,
			  uint32_t n);

/*
 * Sorts ports in place into the selector's order for switch sw (port
 * number, or remote GUID then remote port). Engines that walk ports in a
 * fixed order (ftree's upward groups) use it to stay consistent.
 */
void cr_portsel_order(const struct cr_portsel *ps, uint32_t sw, uint8_t *ports,
		      unsigned n);

/*
 * Sorts candidate ports of switch node sw, all cabled to switches, by
 * key[the far switch's sw_index], parallel cables by port number; a
 * port_search_ordering_file entry for sw wins (cr_portsel_order()).
 * Flow balance on tree-like fabrics: with a key shared by all switches
 * (cr-updn's rank and GUID, cr-minhop's height and GUID) every switch
 * lists the same spines alike however they are cabled (scrambled
 * directors).
 */
void cr_portsel_order_by_key(const struct cr_portsel *ps, uint32_t sw,
			     const uint32_t *key, uint8_t *ports, unsigned n);

/*
 * The order in which an engine should route destination LIDs: CA/router
 * LIDs leaf switch by leaf switch (switches in node order), each leaf's
 * ports in port order, all LIDs of one port together; then the switch LIDs.
 * With o->guid_order, those port GUIDs come first in the given order.
 * Returns the count written to *lids (allocated), or -1.
 */
int cr_lid_order(const struct cr_fabric *f, const struct cr_options *o,
		 uint16_t **lids);

#endif
