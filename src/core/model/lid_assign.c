// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LIDs for fabrics that carry none, given the way OpenSM 3.3 gives them on
 * its first sweep when neither its guid2lid cache nor the ports hold any
 * (osm_lid_mgr.c, read for the rule only): its own port first, then every
 * port it discovered in the order of its port table (port GUIDs compared
 * byte-reversed, see by_port_guid()), each from one free range that
 * starts at LID 1. A switch takes one LID (its port 0, without enhanced
 * port 0 LMC), a CA or router port 2^lmc LIDs aligned on 2^lmc; alignment
 * skips LIDs, which are not reused. A port without a cable is never
 * discovered and gets no LID. So offline LIDs are the LIDs opensm gives the
 * same fabric, and LFTs computed offline compare with a live routing
 * without its guid2lid file. Cost: one sort of the ports.
 */
#include <stdlib.h>

#include <croute/model/fabric.h>
#include <croute/model/log.h>

struct lid_port {
	uint64_t guid;
	uint32_t node;
	uint8_t port;
};

/*
 * OpenSM's port table is a map keyed by the GUID in network byte order,
 * compared as a host integer: on the little-endian hosts it runs on, the
 * order of the byte-reversed GUID (its last byte first).
 */
static int by_port_guid(const void *a, const void *b)
{
	const struct lid_port *x = a, *y = b;
	uint64_t gx = __builtin_bswap64(x->guid),
		 gy = __builtin_bswap64(y->guid);

	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* The ports OpenSM would give LIDs to, sorted, the SM's port first. */
static struct lid_port *lid_ports(const struct cr_fabric *f, size_t *num)
{
	size_t n = 0, cap = 1;
	struct lid_port *v;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		cap += f->nodes[i].num_ports + 1;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct cr_node *nd = &f->nodes[i];

		if (nd->type == CR_NODE_SWITCH) {
			v[n++] = (struct lid_port){nd->ports[0].guid, i, 0};
			continue;
		}
		for (unsigned p = 1; p <= nd->num_ports; p++)
			if (nd->ports[p].remote != CR_NO_NODE)
				v[n++] = (struct lid_port){nd->ports[p].guid, i,
							   (uint8_t)p};
	}
	qsort(v, n, sizeof(*v), by_port_guid);
	for (size_t k = 0; f->sm_port_guid && k < n; k++) {
		struct lid_port sm = v[k];

		if (sm.guid != f->sm_port_guid)
			continue;
		for (; k > 0; k--)
			v[k] = v[k - 1];
		v[0] = sm;
		break;
	}
	*num = n;
	return v;
}

/*
 * Lays out the LIDs of v in order from LID 1: lid[k] for v[k]. Returns the
 * highest LID given, 0 if the fabric needs more than there are.
 */
static uint32_t lay_out(const struct lid_port *v, size_t n, unsigned lmc,
			uint32_t *lid)
{
	uint32_t next = 1, step = 1u << (lmc & 7), top = 0;

	for (size_t k = 0; k < n; k++) {
		uint32_t count = v[k].port ? step : 1;
		uint32_t l = next;

		if (count > 1)
			l = (l + count - 1) & ~(count - 1);
		if (l + count - 1 > CR_MAX_UCAST_LID)
			return 0;
		lid[k] = l;
		top = l + count - 1;
		next = l + count;
	}
	return top;
}

int cr_fabric_assign_lids(struct cr_fabric *f, unsigned lmc)
{
	struct lid_port *v;
	uint32_t *lid;
	size_t n = 0;

	if (lmc > CR_MAX_LMC) {
		cr_err("LMC %u is out of range (0..%u)", lmc, CR_MAX_LMC);
		return -1;
	}
	v = lid_ports(f, &n);
	lid = v ? malloc((n + 1) * sizeof(*lid)) : NULL;
	if (!lid) {
		free(v);
		cr_err("out of memory assigning LIDs");
		return -1;
	}
	if (n && !lay_out(v, n, lmc, lid)) {
		cr_err("the fabric needs more than %u LIDs", CR_MAX_UCAST_LID);
		free(lid);
		free(v);
		return -1;
	}
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		struct cr_node *nd = &f->nodes[i];

		for (unsigned p = 0; p <= nd->num_ports; p++) {
			nd->ports[p].lid = 0;
			nd->ports[p].lmc = 0;
		}
	}
	for (size_t k = 0; k < n; k++) {
		struct cr_port *x = &f->nodes[v[k].node].ports[v[k].port];

		x->lid = (uint16_t)lid[k];
		x->lmc = v[k].port ? (uint8_t)lmc : 0;
	}
	free(lid);
	free(v);
	return cr_fabric_finalize(f);
}

uint32_t cr_fabric_lmc_lid(const struct cr_fabric *f, unsigned lmc,
			   uint64_t port_guid, uint32_t *max_lid)
{
	struct lid_port *v;
	uint32_t *lid, found = 0;
	size_t n = 0;

	*max_lid = 0;
	if (lmc > CR_MAX_LMC)
		return 0;
	v = lid_ports(f, &n);
	lid = v ? malloc((n + 1) * sizeof(*lid)) : NULL;
	if (lid && n)
		*max_lid = lay_out(v, n, lmc, lid);
	for (size_t k = 0; *max_lid && k < n; k++)
		if (v[k].guid == port_guid) {
			found = lid[k];
			break;
		}
	free(lid);
	free(v);
	return found;
}

uint32_t cr_fabric_lids_needed(const struct cr_fabric *f, unsigned lmc)
{
	uint32_t next = 1, step = 1u << (lmc & 7), top = 0;
	struct lid_port *v;
	size_t n = 0;

	v = lid_ports(f, &n);
	if (!v)
		return 0;
	/* lay_out()'s walk without its ceiling: what a refusal quotes */
	for (size_t k = 0; k < n; k++) {
		uint32_t count = v[k].port ? step : 1;
		uint32_t l = next;

		if (count > 1)
			l = (l + count - 1) & ~(count - 1);
		top = l + count - 1;
		next = l + count;
	}
	free(v);
	return top;
}
