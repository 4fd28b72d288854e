// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Expands one system of a plan into its chips, depth first: a board's
 * ports are found by expanding the board, a chip's are its numbered ports;
 * then each connection line of the section either cables two of them or
 * makes one a port of the section ("P13 -> L1/P1"). A connection may be
 * listed from both of its ends. A port that leads nowhere, because its
 * board is absent (CFG "R") or is another flavour of it, is left out of
 * the system, as ibdm does. A rate on a line applies only where no lower
 * level gave one. Cost: linear in the lines of the definitions used,
 * times the ports of a board.
 */
#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/log.h>

#include "ibdm_int.h"

/* Recursion guard: the installed systems nest two levels deep. */
#define MAX_DEPTH 8

struct inst_ports {
	bool absent;
	uint32_t node; /* a chip's node, CR_NO_NODE for a board */
	struct ibdm_portmap *map; /* a board's ports */
	size_t nmap;
};

/* One system being expanded, at one depth, and the ports it gets. */
struct level {
	struct ibdm_build *b;
	const struct ibnl_sys *sys;
	const char *name; /* its nodes' names start with it */
	const struct ibdm_cfg *cfg; /* NULL below the top */
	const char *where; /* for messages: the topology file's line */
	unsigned depth;
	struct inst_ports *ips; /* per instance of sys */
	struct ibdm_portmap *map; /* its ports */
	size_t nmap, cap;
};

static int add_node(struct ibdm_build *b, const char *name, bool sw,
		    unsigned nports, uint32_t *out)
{
	struct ibdm_node *n;

	if (cr_grow(&b->nodes, &b->nodes_cap, b->nnodes + 1,
		    sizeof(*b->nodes)) ||
	    cr_grow(&b->ports, &b->ports_cap, b->nports + nports,
		    sizeof(*b->ports)))
		return -1;
	n = &b->nodes[b->nnodes];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name)
		return -1;
	n->sw = sw;
	n->nports = nports;
	n->port_base = b->nports;
	for (unsigned p = 0; p < nports; p++)
		b->ports[b->nports + p] = (struct ibdm_port){
			.rnode = CR_NO_NODE,
		};
	b->nports += nports;
	*out = b->nnodes++;
	return 0;
}

/* leafN and spineN are LN and SN on the chassis' labels. */
static void board_label(const char *inst, char *buf, size_t len)
{
	if (!strncmp(inst, "leaf", 4) && inst[4])
		snprintf(buf, len, "L%s", inst + 4);
	else if (!strncmp(inst, "spine", 5) && inst[5])
		snprintf(buf, len, "S%s", inst + 5);
	else
		snprintf(buf, len, "%s", inst);
}

static const char *cfg_mod(const struct ibdm_cfg *cfg, const char *board)
{
	for (size_t i = 0; cfg && i < cfg->n; i++)
		if (!strcmp(cfg->board[i], board))
			return cfg->mod[i];
	return NULL;
}

static int expand_sys(struct level *l);

/* Instance in of l's system into ip: a chip's node, a board's ports. */
static int expand_inst(const struct level *l, const struct ibnl_inst *in,
		       struct inst_ports *ip)
{
	const struct ibnl_sys *sys = l->sys;
	struct level sub = {
		.b = l->b, .where = l->where, .depth = l->depth + 1};
	const char *mod;
	char label[128], *full, type[256];
	int ret;

	ip->node = CR_NO_NODE;
	if (!in->type) {
		if (asprintf(&full, "%s/%s", l->name, in->name) < 0)
			return -1;
		ret = add_node(l->b, full, in->sw, in->nports, &ip->node);
		free(full);
		return ret;
	}
	mod = cfg_mod(l->cfg, in->name);
	if (mod && !strcmp(mod, "R")) {
		ip->absent = true;
		return 0;
	}
	snprintf(type, sizeof(type), "%s%s%s", in->type, mod ? ":" : "",
		 mod ? mod : "");
	sub.sys = ibnl_find_sys(sys->file, type);
	if (!sub.sys) {
		if (mod)
			cr_err("%s: %s has no board %s (CFG: %s=%s)", l->where,
			       sys->names[0], type, in->name, mod);
		else
			cr_err("%s:%u: no SYSTEM %s in this file",
			       sys->file->path, in->line, type);
		return -2;
	}
	board_label(in->name, label, sizeof(label));
	if (asprintf(&full, "%s/%s", l->name, label) < 0)
		return -1;
	sub.name = full;
	ret = expand_sys(&sub);
	ip->map = sub.map;
	ip->nmap = sub.nmap;
	free(full);
	return ret;
}

static const struct ibnl_inst *find_inst(const struct ibnl_sys *sys,
					 const char *name, size_t *idx)
{
	for (size_t i = 0; i < sys->ninsts; i++)
		if (!strcmp(sys->insts[i].name, name)) {
			*idx = i;
			return &sys->insts[i];
		}
	return NULL;
}

/*
 * The end behind port of instance i: 1 found, 0 leads nowhere, -2 a chip
 * port that does not exist (reported).
 */
static int resolve(const struct ibnl_sys *sys, size_t i,
		   const struct inst_ports *ip, const char *port, unsigned line,
		   struct ibdm_end *end)
{
	const struct ibnl_inst *in = &sys->insts[i];
	char *e;
	unsigned long p;

	if (ip->absent)
		return 0;
	if (ip->node != CR_NO_NODE) {
		p = strtoul(port, &e, 10);
		if (*e || p < 1 || p > in->nports) {
			cr_err("%s:%u: %s has no port %s (1..%u)",
			       sys->file->path, line, in->name, port,
			       in->nports);
			return -2;
		}
		*end = (struct ibdm_end){.node = ip->node, .port = p};
		return 1;
	}
	for (size_t k = 0; k < ip->nmap; k++)
		if (!strcmp(ip->map[k].name, port)) {
			*end = ip->map[k].end;
			return 1;
		}
	return 0;
}

static int cable(struct ibdm_build *b, const struct ibnl_sys *sys,
		 const struct ibnl_conn *c, const struct ibdm_end *x,
		 const struct ibdm_end *y)
{
	struct ibdm_port *px = ibdm_port(b, x->node, x->port);
	struct ibdm_port *py = ibdm_port(b, y->node, y->port);

	if (px->rnode == y->node && px->rport == y->port)
		return 0; /* listed from its other end too */
	if (px->rnode != CR_NO_NODE || py->rnode != CR_NO_NODE ||
	    (x->node == y->node && x->port == y->port)) {
		cr_err("%s:%u: %s port %u or %s port %u is already cabled",
		       sys->file->path, c->line, b->nodes[x->node].name,
		       x->port, b->nodes[y->node].name, y->port);
		return -2;
	}
	px->rnode = y->node;
	px->rport = y->port;
	py->rnode = x->node;
	py->rport = x->port;
	px->width = py->width = ibdm_min_nonzero(x->width, y->width);
	px->speed = py->speed = (enum cr_speed)ibdm_min_nonzero(
		(uint8_t)x->speed, (uint8_t)y->speed);
	return 0;
}

static void with_rate(struct ibdm_end *e, const struct ibnl_conn *c)
{
	if (!e->width)
		e->width = c->width;
	if (!e->speed)
		e->speed = c->speed;
}

/* One connection line of instance i of l's system. */
static int connect_line(struct level *l, size_t i, const struct ibnl_conn *c)
{
	const struct ibnl_sys *sys = l->sys;
	struct inst_ports *ips = l->ips;
	struct ibdm_end x, y;
	size_t j;
	int r = resolve(sys, i, &ips[i], c->port, c->line, &x);

	if (r <= 0)
		return r;
	with_rate(&x, c);
	if (c->rinst) {
		if (!find_inst(sys, c->rinst, &j)) {
			cr_err("%s:%u: no NODE or SUBSYSTEM %s in %s",
			       sys->file->path, c->line, c->rinst,
			       sys->names[0]);
			return -2;
		}
		r = resolve(sys, j, &ips[j], c->rport, c->line, &y);
		if (r <= 0)
			return r;
		with_rate(&y, c);
		return cable(l->b, sys, c, &x, &y);
	}
	for (size_t k = 0; k < l->nmap; k++) {
		if (strcmp(l->map[k].name, c->rport))
			continue;
		if (l->map[k].end.node == x.node &&
		    l->map[k].end.port == x.port)
			return 0;
		cr_err("%s:%u: port %s of %s leads to two places",
		       sys->file->path, c->line, c->rport, sys->names[0]);
		return -2;
	}
	if (cr_grow(&l->map, &l->cap, l->nmap + 1, sizeof(*l->map)))
		return -1;
	l->map[l->nmap++] = (struct ibdm_portmap){.name = c->rport, .end = x};
	return 0;
}

/* Expands l's system: its nodes into l->b, its ports into l->map. */
static int expand_sys(struct level *l)
{
	const struct ibnl_sys *sys = l->sys;
	int ret = 0;

	l->map = NULL;
	l->nmap = 0;
	l->cap = 0;
	if (l->depth > MAX_DEPTH) {
		cr_err("%s:%u: %s nests deeper than %u levels", sys->file->path,
		       sys->line, sys->names[0], MAX_DEPTH);
		return -2;
	}
	l->ips = calloc(sys->ninsts ? sys->ninsts : 1, sizeof(*l->ips));
	if (!l->ips)
		return -1;
	for (size_t i = 0; i < sys->ninsts && !ret; i++)
		ret = expand_inst(l, &sys->insts[i], &l->ips[i]);
	for (size_t i = 0; i < sys->ninsts && !ret; i++)
		for (size_t k = 0; k < sys->insts[i].nconns && !ret; k++)
			ret = connect_line(l, i, &sys->insts[i].conns[k]);
	for (size_t i = 0; i < sys->ninsts; i++)
		free(l->ips[i].map);
	free(l->ips);
	l->ips = NULL;
	if (ret) {
		free(l->map);
		l->map = NULL;
		l->nmap = 0;
	}
	return ret;
}

int ibdm_expand(struct ibdm_build *b, struct ibdm_sysrec *r, const char *where)
{
	const struct ibnl_sys *sys = r->def;
	const struct ibdm_cfg *cfg = &r->cfg;
	const char *name = r->name;
	struct level l = {
		.b = b, .sys = sys, .name = name, .cfg = cfg, .where = where};
	size_t first = b->nnodes;
	int ret;

	for (size_t i = 0; cfg && i < cfg->n; i++) {
		size_t j;

		if (!find_inst(sys, cfg->board[i], &j) || !sys->insts[j].type) {
			cr_err("%s: %s has no board %s (CFG)", where,
			       sys->names[0], cfg->board[i]);
			return -2;
		}
	}
	ret = expand_sys(&l);
	r->map = l.map;
	r->nmap = l.nmap;
	if (ret == -1)
		cr_err("%s: out of memory", where);
	if (!ret && b->nnodes == first + 1) {
		/* A one-chip system is known by the system's name. */
		char *n = strdup(name);

		if (!n) {
			cr_err("%s: out of memory", where);
			return -1;
		}
		free(b->nodes[first].name);
		b->nodes[first].name = n;
	}
	return ret ? -1 : 0;
}
