// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fabric of a topology file once all its lines are read: the links
 * recorded from either side cabled and checked against each other, the
 * rates of each link settled from what its two ends say, port GUIDs
 * checked unique, and LIDs completed from the far sides' lines. Each step
 * is one pass over the nodes or links, linear in the file's size.
 */
#include <inttypes.h>

#include "topo_int.h"

static struct port_info *port_info(struct reader *rd, uint32_t n, unsigned p)
{
	return &rd->ports[rd->nodes[n].port_base + p];
}

/* Cables the pending links; a link listed from both sides must agree. */
int topo_resolve_links(struct reader *rd)
{
	struct cr_fabric *f = rd->f;

	for (size_t i = 0; i < rd->nlinks; i++) {
		const struct pending *l = &rd->links[i];
		const char *rid = rd->pool + l->rid;
		uint32_t b = cr_strindex_find(&rd->ids, rid);
		struct cr_port *x, *y;

		rd->line = l->line;
		if (b == CR_NO_NODE) {
			rd_err(rd, "no node has the id \"%s\"", rid);
			return -1;
		}
		if (l->rport > f->nodes[b].num_ports) {
			rd_err(rd, "\"%s\" has no port %u (ports 1..%u)", rid,
			       l->rport, f->nodes[b].num_ports);
			return -1;
		}
		if (b == l->node && l->rport == l->port) {
			rd_err(rd, "port %u is cabled to itself", l->port);
			return -1;
		}
		if (b == l->node) {
			rd_err(rd,
			       "\"%s\" port %u is cabled to its own port %u",
			       rid, l->port, l->rport);
			return -1;
		}
		if (l->rguid) {
			const struct cr_node *rn = &f->nodes[b];
			uint64_t g =
				rn->ports[cr_is_switch(f, b) ? 0 : l->rport]
					.guid;

			if (g != l->rguid) {
				rd_err(rd,
				       "\"%s\"[%u] has port GUID 0x%" PRIx64
				       " here, 0x%" PRIx64 " in its own record"
				       " (line %u)",
				       rid, l->rport, l->rguid, g,
				       rd->nodes[b].line);
				return -1;
			}
		}
		x = &f->nodes[l->node].ports[l->port];
		y = &f->nodes[b].ports[l->rport];
		if (x->remote == b && x->remote_port == l->rport)
			continue; /* listed from the other side too */
		if (x->remote != CR_NO_NODE || y->remote != CR_NO_NODE) {
			uint32_t m = x->remote != CR_NO_NODE ? l->node : b;
			unsigned q =
				x->remote != CR_NO_NODE ? l->port : l->rport;
			const struct cr_port *z = &f->nodes[m].ports[q];

			rd_err(rd,
			       "\"%s\"[%u] - \"%s\"[%u] contradicts"
			       " line %u, which cables \"%s\"[%u] to"
			       " \"%s\"[%u]",
			       rd->nodes[l->node].id, l->port, rid, l->rport,
			       port_info(rd, m, q)->link_line, rd->nodes[m].id,
			       q, rd->nodes[z->remote].id, z->remote_port);
			return -1;
		}
		if (cr_fabric_link(f, l->node, l->port, b, l->rport))
			return -1;
		port_info(rd, l->node, l->port)->link_line = l->line;
		port_info(rd, b, l->rport)->link_line = l->line;
	}
	return 0;
}

static uint8_t min_nonzero(uint8_t a, uint8_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * A link runs at the lower of what its two ends say, as ibsim computes the
 * active width and speed from its enable masks; an end that says nothing
 * (no line, or a line cut before its rate) takes the other's, and a link
 * neither end rates takes the file's default. Two rates printed on the
 * link's two lines ("4xQDR", as ibnetdiscover prints the active rate)
 * must agree.
 */
int topo_settle_rates(struct reader *rd)
{
	struct cr_fabric *f = rd->f;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			struct cr_port *x = &f->nodes[n].ports[p], *y;
			const struct port_info *ix = port_info(rd, n, p), *iy;
			uint8_t dw;
			enum cr_speed ds;

			if (x->remote == CR_NO_NODE) {
				x->width = 0;
				x->speed = CR_SPEED_UNKNOWN;
				continue;
			}
			y = &f->nodes[x->remote].ports[x->remote_port];
			iy = port_info(rd, x->remote, x->remote_port);
			/* "4x???": ibnetdiscover could not name the speed */
			if (ix->rate_word && iy->rate_word &&
			    (x->width != y->width ||
			     (x->speed && y->speed && x->speed != y->speed))) {
				rd->line = ix->line;
				rd_err(rd,
				       "\"%s\"[%u] runs at %ux%s here, %ux%s on"
				       " line %u (the two ends of a link must"
				       " agree)",
				       rd->nodes[n].id, p, x->width,
				       cr_speed_name(x->speed), y->width,
				       cr_speed_name(y->speed), iy->line);
				return -1;
			}
			dw = min_nonzero(ix->line ? ix->def_width : 0,
					 iy->line ? iy->def_width : 0);
			ds = (enum cr_speed)min_nonzero(
				ix->line ? ix->def_speed : 0,
				iy->line ? iy->def_speed : 0);
			x->width = y->width = min_nonzero(x->width, y->width);
			x->speed = y->speed =
				(enum cr_speed)min_nonzero(x->speed, y->speed);
			if (!x->width)
				x->width = y->width = dw;
			if (!x->speed)
				x->speed = y->speed = ds;
		}
	}
	return 0;
}

/* Every port that gets a LID has a GUID of its own. */
int topo_check_port_guids(struct reader *rd)
{
	uint32_t other, again, n, p;
	int rc = cr_guidmap_port_clash(rd->f, &other, &again);

	if (rc < 0)
		cr_err("%s: out of memory", rd->name);
	if (rc <= 0)
		return rc;
	n = again >> 8;
	p = again & 0xff;
	rd->line = port_info(rd, n, p)->line ? port_info(rd, n, p)->line
					     : rd->nodes[n].line;
	rd_err(rd,
	       "port GUID 0x%016" PRIx64 " of \"%s\" port %u is also that of"
	       " \"%s\" port %u (line %u)",
	       rd->f->nodes[n].ports[p].guid, rd->nodes[n].id, p,
	       rd->nodes[other >> 8].id, other & 0xff,
	       rd->nodes[other >> 8].line);
	return -1;
}

/*
 * A CA port whose own line is missing (a file cut before it) has only
 * the LID the switch's line gives, not its LMC. OpenSM gives every CA
 * port the same LMC: when the ports that state theirs agree, it is this
 * port's too, or the port would lose the LIDs of its range.
 */
static void adopt_lmc(struct reader *rd)
{
	struct cr_fabric *f = rd->f;
	int lmc = -1;

	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1;
		     !cr_is_switch(f, n) && p <= f->nodes[n].num_ports; p++) {
			const struct cr_port *x = &f->nodes[n].ports[p];

			if (!x->lid || port_info(rd, n, p)->lid_hinted)
				continue;
			if (lmc >= 0 && lmc != x->lmc)
				return;
			lmc = x->lmc;
		}
	for (uint32_t n = 0; lmc > 0 && n < f->num_nodes; n++)
		for (unsigned p = 1;
		     !cr_is_switch(f, n) && p <= f->nodes[n].num_ports; p++)
			if (port_info(rd, n, p)->lid_hinted)
				f->nodes[n].ports[p].lmc = (uint8_t)lmc;
}

/*
 * LIDs are all or nothing: a file with some must give one to every switch
 * and every cabled CA or router port (hints from the far side's lines fill
 * ports that have no line of their own).
 */
int topo_settle_lids(struct reader *rd, bool *any)
{
	struct cr_fabric *f = rd->f;

	*any = false;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		struct cr_node *node = &f->nodes[n];

		for (unsigned p = 1; p <= node->num_ports; p++) {
			struct cr_port *x = &node->ports[p];
			struct cr_port *far;
			uint16_t hint;

			if (x->remote == CR_NO_NODE)
				continue;
			hint = port_info(rd, n, p)->lid_hint;
			if (!hint)
				continue;
			far = &f->nodes[x->remote]
				       .ports[cr_is_switch(f, x->remote)
						      ? 0
						      : x->remote_port];
			if (!far->lid) {
				far->lid = hint;
				if (!cr_is_switch(f, x->remote))
					port_info(rd, x->remote, x->remote_port)
						->lid_hinted = true;
			}
		}
	}
	adopt_lmc(rd);
	for (uint32_t n = 0; n < f->num_nodes && !*any; n++)
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
			if (f->nodes[n].ports[p].lid)
				*any = true;
	if (!*any)
		return 0;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *node = &f->nodes[n];

		rd->line = rd->nodes[n].line;
		if (node->type == CR_NODE_SWITCH) {
			if (!node->ports[0].lid) {
				rd_err(rd,
				       "switch \"%s\" has no LID, other"
				       " nodes have",
				       rd->nodes[n].id);
				return -1;
			}
			continue;
		}
		for (unsigned p = 1; p <= node->num_ports; p++) {
			if (node->ports[p].remote == CR_NO_NODE ||
			    node->ports[p].lid)
				continue;
			if (port_info(rd, n, p)->line)
				rd->line = port_info(rd, n, p)->line;
			rd_err(rd,
			       "port %u of \"%s\" has no LID, other nodes"
			       " have",
			       p, rd->nodes[n].id);
			return -1;
		}
	}
	return 0;
}
