// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --live's decoding (src/cli/live_build.c) of what libibnetdisc and the
 * LFT SMPs return, on made-up replies: the input describes an
 * ibnd_fabric_t, whatever discovery could never return included (links
 * that do not point back, GUIDs twice, unknown node types, port counts
 * past 254, descriptions of any bytes). Byte 0: node count - 1 (mod 16).
 * Per node: type, port count, node GUID (2 bytes), SMA LID (2), LMC,
 * 8 description bytes; per port: flags (1 present, 2 cabled), port GUID
 * (2), base LID (2), LMC, PortInfo's LinkWidthActive, LinkSpeedActive,
 * LinkSpeedExtActive and a capability-mask byte, far node, far port.
 * The rest: LFT blocks of 64 bytes, read into the switches in turn with a
 * LinearFDBTop of 2 bytes each. An accepted fabric must be consistent
 * and its table entries within the switches' ports.
 */
#include "fuzz.h"

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include <croute/model/routing.h>

#include "live.h"

#define MAX_NODES 16

struct input {
	const uint8_t *p;
	size_t left;
};

static unsigned byte(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static unsigned word(struct input *in)
{
	unsigned hi = byte(in);

	return hi << 8 | byte(in);
}

struct made {
	ibnd_fabric_t fab;
	ibnd_node_t nodes[MAX_NODES];
	ibnd_port_t *ports[MAX_NODES][256];
	unsigned far_node[MAX_NODES][256], far_port[MAX_NODES][256];
};

static void make_port(struct made *m, struct input *in, unsigned n, unsigned p)
{
	unsigned flags = byte(in);
	ibnd_port_t *port;
	unsigned cap;

	if (!(flags & 1)) {
		in->p += in->left < 12 ? in->left : 12;
		in->left -= in->left < 12 ? in->left : 12;
		return;
	}
	port = calloc(1, sizeof(*port));
	if (!port)
		return;
	port->portnum = (int)p;
	port->node = &m->nodes[n];
	port->guid = 0x0002c90300000000ull | word(in);
	port->base_lid = (uint16_t)word(in);
	port->lmc = (uint8_t)byte(in);
	mad_set_field(port->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, byte(in));
	mad_set_field(port->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F, byte(in));
	mad_set_field(port->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, byte(in));
	cap = byte(in);
	mad_set_field(port->info, 0, IB_PORT_CAPMASK_F, cap << 8);
	m->far_node[n][p] = (flags & 2) ? byte(in) : 256;
	m->far_port[n][p] = byte(in);
	m->ports[n][p] = port;
}

static unsigned make_fabric(struct made *m, struct input *in)
{
	unsigned count = byte(in) % MAX_NODES + 1;

	for (unsigned n = 0; n < count; n++) {
		ibnd_node_t *node = &m->nodes[n];
		unsigned ports;

		node->next = n + 1 < count ? &m->nodes[n + 1] : NULL;
		node->type = (int)byte(in) % 5;
		ports = byte(in);
		node->numports = (int)ports;
		node->guid = 0x0002c90200000000ull | word(in);
		node->smalid = (uint16_t)word(in);
		node->smalmc = (uint8_t)byte(in);
		for (unsigned i = 0; i < 8; i++)
			node->nodedesc[i] = (char)byte(in);
		node->ports = calloc(ports + 1, sizeof(*node->ports));
		if (!node->ports)
			return n;
		m->ports[n][0] = NULL;
		for (unsigned p = 1; p <= ports; p++)
			make_port(m, in, n, p);
	}
	/* The far ends, now that every port exists. */
	for (unsigned n = 0; n < count; n++) {
		for (unsigned p = 1; p <= (unsigned)m->nodes[n].numports; p++) {
			ibnd_port_t *port = m->ports[n][p];
			unsigned fn = m->far_node[n][p] % (count + 1);

			if (!port)
				continue;
			m->nodes[n].ports[p] = port;
			if (m->far_node[n][p] == 256 || fn == count)
				continue;
			if (m->far_port[n][p] <=
			    (unsigned)m->nodes[fn].numports)
				port->remoteport =
					m->ports[fn][m->far_port[n][p]];
		}
	}
	m->fab.nodes = &m->nodes[0];
	return count;
}

static void read_blocks(struct input *in, const struct cr_fabric *f)
{
	struct cr_routing *r = cr_routing_new(f);
	uint8_t block[64];

	if (!r)
		return;
	for (uint32_t s = 0; in->left && s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];
		unsigned top = word(in);

		for (unsigned b = 0; b <= top / 64 && in->left; b++) {
			for (unsigned i = 0; i < 64; i++)
				block[i] = (uint8_t)byte(in);
			cli_live_lft_block(block, b, top, f, r, sw);
		}
		for (unsigned lid = 0; lid <= r->max_lid; lid++)
			if (r->lft[sw][lid] != CR_NO_PATH &&
			    r->lft[sw][lid] > f->nodes[sw].num_ports)
				abort();
	}
	cr_routing_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	struct made *m = calloc(1, sizeof(*m));
	struct cr_fabric *f;
	unsigned count;

	if (!m)
		return 0;
	fuzz_quiet();
	count = make_fabric(m, &in);
	f = cli_live_build(&m->fab);
	if (f) {
		if (cr_fabric_finalize(f))
			abort();
		read_blocks(&in, f);
		cr_fabric_free(f);
	}
	for (unsigned n = 0; n < count; n++) {
		for (unsigned p = 0; p < 256; p++)
			free(m->ports[n][p]);
		free(m->nodes[n].ports);
	}
	free(m);
	return 0;
}
