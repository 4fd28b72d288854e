// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LMC of a fabric read from opensm-subnet.lst, which gives base LIDs
 * only: the LIDs the installed LFTs route (OpenSM routes every LID of a
 * port's range) above a port's base LID belong to that port's range. One
 * pass over the LFT file, any of the formats cr_lft_read() takes; the
 * widened ranges must still be aligned (cr_fabric_finalize checks).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/io/topo.h>

/* The LID an entry line routes, 0 when it routes nothing. */
static unsigned long routed_lid(const char *s)
{
	unsigned long lid, port;
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	if (strncmp(s, "0x", 2))
		return 0;
	lid = strtoul(s + 2, &e, 16);
	if (e == s + 2 || lid > CR_MAX_UCAST_LID)
		return 0;
	s = e;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == ':') /* opensm.fdbs */
		s++;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	port = strtoul(s, &e, 10);
	return port == CR_NO_PATH ? 0 : lid;
}

int cr_lids_widen(const char *path, struct cr_fabric *f)
{
	uint32_t *owner = NULL; /* LID -> node << 8 | port of its range */
	uint8_t *routed = calloc(CR_MAX_UCAST_LID + 1, 1);
	char *buf = NULL;
	size_t cap = 0;
	uint32_t cur = UINT32_MAX;
	bool changed = false;
	int err = 0;
	FILE *in;

	owner = malloc((CR_MAX_UCAST_LID + 1) * sizeof(*owner));
	if (!routed || !owner) {
		cr_err("%s: out of memory", path);
		free(routed);
		free(owner);
		return -1;
	}
	in = fopen(path, "r");
	if (!in) {
		cr_err("%s: %s", path, strerror(errno));
		free(routed);
		free(owner);
		return -1;
	}
	while (getline(&buf, &cap, in) >= 0)
		routed[routed_lid(buf)] = 1;
	free(buf);
	fclose(in);
	for (uint32_t lid = 0; lid <= CR_MAX_UCAST_LID; lid++)
		owner[lid] = UINT32_MAX;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];

		for (unsigned p = 0; p <= node->num_ports; p++)
			if (node->ports[p].lid)
				owner[node->ports[p].lid] = n << 8 | p;
	}
	/* A routed LID above a base LID, before the next one, is its. */
	for (uint32_t lid = 1; lid <= CR_MAX_UCAST_LID; lid++) {
		struct cr_port *port;
		unsigned lmc = 0;

		if (owner[lid] != UINT32_MAX) {
			cur = owner[lid];
			continue;
		}
		if (!routed[lid] || cur == UINT32_MAX)
			continue;
		port = &f->nodes[cur >> 8].ports[cur & 0xff];
		while (lmc < CR_MAX_LMC && port->lid + (1u << lmc) <= lid)
			lmc++;
		if (port->lid + (1u << lmc) <= lid)
			continue;
		if (lmc > port->lmc) {
			port->lmc = lmc;
			changed = true;
		}
	}
	free(routed);
	free(owner);
	if (changed) {
		cr_verbose("%s: LMC widened from the routed LIDs", path);
		err = cr_fabric_finalize(f);
		if (err)
			cr_err("%s: the routed LIDs are not LMC ranges of the"
			       " topology's base LIDs",
			       path);
	}
	return err;
}
