// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fabric model: construction, validation and the LID map. Everything
 * an engine reads is checked here once (links symmetric, LIDs unique and
 * LMC-aligned), so engines can trust the model without re-validating it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <croute/model/buf.h>
#include <croute/model/fabric.h>
#include <croute/model/json.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

struct cr_fabric *cr_fabric_new(void)
{
	return calloc(1, sizeof(struct cr_fabric));
}

static void fabric_drop_index(struct cr_fabric *f)
{
	free(f->switches);
	free(f->lid_node);
	free(f->lid_port);
	f->switches = NULL;
	f->lid_node = NULL;
	f->lid_port = NULL;
	f->num_switches = 0;
	f->max_lid = 0;
}

void cr_fabric_free(struct cr_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		free(f->nodes[i].desc);
		free(f->nodes[i].ports);
	}
	free(f->nodes);
	fabric_drop_index(f);
	free(f);
}

uint32_t cr_fabric_add_node(struct cr_fabric *f, enum cr_node_type type,
			    uint64_t guid, unsigned num_ports, const char *desc)
{
	struct cr_node *n;

	if (num_ports < 1 || num_ports > CR_MAX_PORTS) {
		cr_err("node 0x%016" PRIx64 ": %u ports (1..%u allowed)", guid,
		       num_ports, CR_MAX_PORTS);
		return CR_NO_NODE;
	}
	if (cr_grow32(&f->nodes, &f->nodes_alloc, (size_t)f->num_nodes + 1,
		      sizeof(*f->nodes)))
		goto oom;
	n = &f->nodes[f->num_nodes];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->guid = guid;
	n->sysimg_guid = guid;
	n->num_ports = num_ports;
	n->sw_index = CR_NO_NODE;
	n->desc = strdup(desc ? desc : "");
	n->ports = calloc(num_ports + 1, sizeof(*n->ports));
	if (!n->desc || !n->ports) {
		free(n->desc);
		free(n->ports);
		goto oom;
	}
	for (unsigned p = 0; p <= num_ports; p++) {
		n->ports[p].guid = type == CR_NODE_SWITCH ? guid : guid + p;
		n->ports[p].remote = CR_NO_NODE;
	}
	return f->num_nodes++;
oom:
	cr_err("out of memory adding node 0x%016" PRIx64, guid);
	return CR_NO_NODE;
}

int cr_fabric_link(struct cr_fabric *f, uint32_t a, unsigned pa, uint32_t b,
		   unsigned pb)
{
	struct cr_port *x, *y;

	if (a >= f->num_nodes || b >= f->num_nodes || !pa || !pb ||
	    pa > f->nodes[a].num_ports || pb > f->nodes[b].num_ports ||
	    (a == b && pa == pb)) {
		cr_err("bad link %u/%u - %u/%u", a, pa, b, pb);
		return -1;
	}
	x = &f->nodes[a].ports[pa];
	y = &f->nodes[b].ports[pb];
	if (x->remote != CR_NO_NODE || y->remote != CR_NO_NODE) {
		char la[CR_NODE_LABEL_MAX], lb[CR_NODE_LABEL_MAX];

		cr_err("port %u of %s or port %u of %s is already cabled", pa,
		       cr_node_label(f, a, pa, la, sizeof(la)), pb,
		       cr_node_label(f, b, pb, lb, sizeof(lb)));
		return -1;
	}
	x->remote = b;
	x->remote_port = pb;
	y->remote = a;
	y->remote_port = pa;
	return 0;
}

static int check_lid(struct cr_fabric *f, uint32_t n, unsigned p)
{
	const struct cr_port *port = &f->nodes[n].ports[p];
	/* An LMC past 7 (a reply's 8 bits) must not reach the shift. */
	unsigned lmc = port->lmc > CR_MAX_LMC ? 31 : port->lmc;
	uint32_t top = (uint32_t)port->lid + (1u << lmc) - 1;

	if (port->lmc > CR_MAX_LMC || top > CR_MAX_UCAST_LID ||
	    (port->lid & ((1u << lmc) - 1))) {
		char la[CR_NODE_LABEL_MAX];

		cr_err("%s port %u: LID %u with LMC %u is not a valid unicast"
		       " LID range",
		       cr_node_label(f, n, p, la, sizeof(la)), p, port->lid,
		       port->lmc);
		return -1;
	}
	for (uint32_t lid = port->lid; lid <= top; lid++) {
		if (f->lid_node[lid] != CR_NO_NODE) {
			char la[CR_NODE_LABEL_MAX], lb[CR_NODE_LABEL_MAX];

			cr_err("LID %u is used by both %s port %u and %s"
			       " port %u",
			       lid,
			       cr_node_label(f, f->lid_node[lid], 0, la,
					     sizeof(la)),
			       f->lid_port[lid],
			       cr_node_label(f, n, 0, lb, sizeof(lb)), p);
			return -1;
		}
		f->lid_node[lid] = n;
		f->lid_port[lid] = p;
	}
	return 0;
}

/* Ports that carry LIDs: port 0 of a switch, every port of a CA/router. */
static unsigned first_lid_port(const struct cr_node *n)
{
	return n->type == CR_NODE_SWITCH ? 0 : 1;
}

static unsigned last_lid_port(const struct cr_node *n)
{
	return n->type == CR_NODE_SWITCH ? 0 : n->num_ports;
}

/*
 * The link check and the LID top, by node range on the threads: each
 * link is read from both ends, one end a cache miss in a far node at
 * 27,648 hosts. A part stops at its first bad port; the lowest one is
 * reported, as one thread would.
 */
struct link_check {
	const struct cr_fabric *f;
	uint32_t bad[CR_MAX_THREADS]; /* per part: node, CR_NO_NODE none */
	uint8_t bad_port[CR_MAX_THREADS];
	uint32_t top[CR_MAX_THREADS]; /* per part: highest LID */
};

static int check_range(void *arg, unsigned part, unsigned nparts,
		       uint32_t begin, uint32_t end)
{
	struct link_check *c = arg;
	const struct cr_fabric *f = c->f;
	uint32_t max_lid = 0;

	(void)nparts;
	c->bad[part] = CR_NO_NODE;
	for (uint32_t i = begin; i < end; i++) {
		const struct cr_node *n = &f->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct cr_port *x = &n->ports[p];

			if (x->remote == CR_NO_NODE)
				continue;
			if (x->remote >= f->num_nodes ||
			    x->remote_port > f->nodes[x->remote].num_ports ||
			    f->nodes[x->remote].ports[x->remote_port].remote !=
				    i ||
			    f->nodes[x->remote]
					    .ports[x->remote_port]
					    .remote_port != p) {
				c->bad[part] = i;
				c->bad_port[part] = (uint8_t)p;
				return 1;
			}
		}
		for (unsigned p = first_lid_port(n); p <= last_lid_port(n);
		     p++) {
			const struct cr_port *x = &n->ports[p];
			uint32_t top;

			if (!x->lid)
				continue;
			top = (uint32_t)x->lid + (1u << (x->lmc & 7)) - 1;
			if (top > max_lid)
				max_lid = top;
		}
	}
	c->top[part] = max_lid;
	return 0;
}

int cr_fabric_finalize(struct cr_fabric *f)
{
	uint32_t max_lid = 0;
	unsigned nparts = cr_parallel_parts(f->num_nodes, 4096);
	struct link_check *c = malloc(sizeof(*c));

	fabric_drop_index(f);
	f->switches = malloc((f->num_nodes + 1) * sizeof(*f->switches));
	if (!f->switches || !c)
		goto oom;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		struct cr_node *n = &f->nodes[i];

		n->sw_index = CR_NO_NODE;
		if (n->type == CR_NODE_SWITCH) {
			n->sw_index = f->num_switches;
			f->switches[f->num_switches++] = i;
		}
	}
	c->f = f;
	if (cr_parallel(f->num_nodes, nparts, check_range, c)) {
		char la[CR_NODE_LABEL_MAX];
		unsigned k = 0;

		while (c->bad[k] == CR_NO_NODE)
			k++;
		cr_err("link from %s port %u is not symmetric",
		       cr_node_label(f, c->bad[k], c->bad_port[k], la,
				     sizeof(la)),
		       c->bad_port[k]);
		free(c);
		return -1;
	}
	for (unsigned k = 0; k < nparts; k++)
		max_lid = c->top[k] > max_lid ? c->top[k] : max_lid;
	free(c);
	c = NULL;
	if (max_lid > CR_MAX_UCAST_LID) {
		cr_err("LID %u is beyond the unicast range (0x%x)", max_lid,
		       CR_MAX_UCAST_LID);
		return -1;
	}
	f->max_lid = max_lid;
	f->lid_node = malloc((max_lid + 1) * sizeof(*f->lid_node));
	f->lid_port = calloc(max_lid + 1, sizeof(*f->lid_port));
	if (!f->lid_node || !f->lid_port)
		goto oom;
	for (uint32_t l = 0; l <= max_lid; l++)
		f->lid_node[l] = CR_NO_NODE;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct cr_node *n = &f->nodes[i];

		for (unsigned p = first_lid_port(n); p <= last_lid_port(n); p++)
			if (n->ports[p].lid && check_lid(f, i, p))
				return -1;
	}
	return 0;
oom:
	free(c);
	cr_err("out of memory indexing the fabric");
	return -1;
}

struct guid_index {
	uint64_t guid;
	uint32_t index;
};

static int cmp_guid_index(const void *a, const void *b)
{
	const struct guid_index *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int cr_fabric_sort_by_guid(struct cr_fabric *f)
{
	struct guid_index *order = malloc((f->num_nodes + 1) * sizeof(*order));
	uint32_t *where = malloc((f->num_nodes + 1) * sizeof(*where));
	struct cr_node *nodes = malloc((f->num_nodes + 1) * sizeof(*nodes));

	if (!order || !where || !nodes) {
		free(order);
		free(where);
		free(nodes);
		cr_err("out of memory sorting the fabric's nodes");
		return -1;
	}
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		order[i].guid = f->nodes[i].guid;
		order[i].index = i;
	}
	qsort(order, f->num_nodes, sizeof(*order), cmp_guid_index);
	for (uint32_t i = 0; i < f->num_nodes; i++)
		where[order[i].index] = i;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		struct cr_node *n = &nodes[i];

		*n = f->nodes[order[i].index];
		for (unsigned p = 0; p <= n->num_ports; p++)
			if (n->ports[p].remote != CR_NO_NODE)
				n->ports[p].remote = where[n->ports[p].remote];
	}
	free(f->nodes);
	f->nodes = nodes;
	f->nodes_alloc = f->num_nodes + 1;
	free(order);
	free(where);
	return cr_fabric_finalize(f);
}

uint32_t cr_fabric_find_guid(const struct cr_fabric *f, uint64_t guid)
{
	for (uint32_t i = 0; i < f->num_nodes; i++)
		if (f->nodes[i].guid == guid)
			return i;
	return CR_NO_NODE;
}

uint32_t cr_fabric_find_port_guid(const struct cr_fabric *f, uint64_t guid,
				  uint8_t *port)
{
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct cr_node *n = &f->nodes[i];

		for (unsigned p = first_lid_port(n); p <= last_lid_port(n);
		     p++) {
			if (n->ports[p].guid == guid) {
				if (port)
					*port = p;
				return i;
			}
		}
	}
	return CR_NO_NODE;
}

uint32_t cr_lid_switch(const struct cr_fabric *f, uint16_t lid,
		       uint8_t *out_port)
{
	uint32_t n, sw;
	uint8_t p;

	if (lid == 0 || lid > f->max_lid || f->lid_node[lid] == CR_NO_NODE)
		return CR_NO_NODE;
	n = f->lid_node[lid];
	p = f->lid_port[lid];
	if (f->nodes[n].type == CR_NODE_SWITCH) {
		if (out_port)
			*out_port = 0;
		return n;
	}
	sw = f->nodes[n].ports[p].remote;
	if (sw == CR_NO_NODE || f->nodes[sw].type != CR_NODE_SWITCH)
		return CR_NO_NODE;
	if (out_port)
		*out_port = f->nodes[n].ports[p].remote_port;
	return sw;
}

static const struct {
	const char *name;
	uint32_t lane_kbps; /* data rate of one lane after encoding */
} speeds[] = {
	[CR_SPEED_UNKNOWN] = {"?", 0},
	[CR_SPEED_SDR] = {"SDR", 2000000},
	[CR_SPEED_DDR] = {"DDR", 4000000},
	[CR_SPEED_QDR] = {"QDR", 8000000},
	[CR_SPEED_FDR10] = {"FDR10", 10000000},
	[CR_SPEED_FDR] = {"FDR", 13636364},
	[CR_SPEED_EDR] = {"EDR", 25000000},
	[CR_SPEED_HDR] = {"HDR", 50000000},
	[CR_SPEED_NDR] = {"NDR", 100000000},
	[CR_SPEED_XDR] = {"XDR", 200000000},
};

unsigned cr_switch_num_cas(const struct cr_fabric *f, uint32_t s)
{
	const struct cr_node *n = &f->nodes[f->switches[s]];
	unsigned cas = 0;

	for (unsigned p = 1; p <= n->num_ports; p++) {
		uint32_t m = n->ports[p].remote;

		cas += m != CR_NO_NODE && !cr_is_switch(f, m);
	}
	return cas;
}

uint32_t cr_link_rate_mbps(unsigned width, enum cr_speed speed)
{
	if ((unsigned)speed >= sizeof(speeds) / sizeof(speeds[0]))
		return 0;
	return (uint32_t)(((uint64_t)width * speeds[speed].lane_kbps + 500) /
			  1000);
}

const char *cr_speed_name(enum cr_speed speed)
{
	if ((unsigned)speed >= sizeof(speeds) / sizeof(speeds[0]))
		return "?";
	return speeds[speed].name;
}

enum cr_speed cr_speed_parse(const char *s, size_t len)
{
	for (unsigned i = CR_SPEED_SDR; i < sizeof(speeds) / sizeof(speeds[0]);
	     i++)
		if (strlen(speeds[i].name) == len &&
		    !strncasecmp(s, speeds[i].name, len))
			return (enum cr_speed)i;
	return CR_SPEED_UNKNOWN;
}

const char *cr_node_type_name(enum cr_node_type type)
{
	switch (type) {
	case CR_NODE_CA:
		return "Channel Adapter";
	case CR_NODE_SWITCH:
		return "Switch";
	case CR_NODE_ROUTER:
		return "Router";
	}
	return "Unknown";
}

const char *cr_node_label(const struct cr_fabric *f, uint32_t n, unsigned p,
			  char *buf, size_t len)
{
	const struct cr_node *node;
	const char *kind = "node";
	uint64_t guid;
	uint16_t lid = 0;
	unsigned q = p;
	char d[65], esc[4 * 64 + 1];

	if (n >= f->num_nodes) {
		snprintf(buf, len, "?");
		return buf;
	}
	node = &f->nodes[n];
	guid = node->guid;
	if (node->type == CR_NODE_SWITCH) {
		lid = node->ports[0].lid;
		q = 0;
	} else if (p && p <= node->num_ports) {
		lid = node->ports[p].lid;
	}
	for (unsigned i = 1; !lid && !p && i <= node->num_ports; i++) {
		lid = node->ports[i].lid;
		q = i;
	}
	/* OpenSM's files (guid2lid, opensm-lfts.dump) name a CA's port by
	 * its port GUID: give that one, and say which GUID it is. */
	if (node->type != CR_NODE_SWITCH && q && q <= node->num_ports &&
	    (lid || p) && node->ports[q].guid) {
		guid = node->ports[q].guid;
		kind = "port";
	}
	/* 64 bytes (a NodeDescription's), then what a terminal may show. */
	snprintf(d, sizeof(d), "%.64s", node->desc);
	cr_text_safe(d, esc, sizeof(esc), false);
	if (lid)
		snprintf(buf, len, "'%s' (%s GUID 0x%016" PRIx64 " LID %u)",
			 esc, kind, guid, lid);
	else
		snprintf(buf, len, "'%s' (%s GUID 0x%016" PRIx64 ")", esc, kind,
			 guid);
	return buf;
}

static void *dup_mem(const void *src, size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p && size)
		memcpy(p, src, size);
	return p;
}

/*
 * Every scalar field comes with the structure assignments; the pointers
 * are then replaced by copies. A new field changes a size below and
 * stops the build here: copy it (a pointer needs its own dup_mem), then
 * update the size. tests/unit/test_fabric.c checks every field.
 */
#if UINTPTR_MAX == 0xffffffffffffffffu /* the sizes of LP64 */
_Static_assert(sizeof(struct cr_fabric) == 56,
	       "struct cr_fabric changed: update cr_fabric_copy");
_Static_assert(sizeof(struct cr_node) == 48,
	       "struct cr_node changed: update cr_fabric_copy");
_Static_assert(sizeof(struct cr_port) == 24,
	       "struct cr_port changed: update cr_fabric_copy");
#endif

struct cr_fabric *cr_fabric_copy(const struct cr_fabric *src)
{
	struct cr_fabric *f = cr_fabric_new();
	size_t lids = src->lid_node ? (size_t)src->max_lid + 1 : 0;

	if (!f)
		goto oom;
	*f = *src;
	f->nodes = NULL;
	f->num_nodes = 0;
	f->switches = NULL;
	f->lid_node = NULL;
	f->lid_port = NULL;
	f->nodes = calloc(src->nodes_alloc ? src->nodes_alloc : 1,
			  sizeof(*f->nodes));
	if (!f->nodes)
		goto oom;
	for (uint32_t n = 0; n < src->num_nodes; n++) {
		const struct cr_node *s = &src->nodes[n];
		struct cr_node *d = &f->nodes[n];

		*d = *s;
		d->desc = strdup(s->desc ? s->desc : "");
		d->ports = dup_mem(s->ports,
				   (s->num_ports + 1u) * sizeof(*s->ports));
		f->num_nodes = n + 1;
		if (!d->desc || !d->ports)
			goto oom;
	}
	if (src->switches) {
		f->switches = dup_mem(src->switches,
				      src->num_switches * sizeof(*f->switches));
		if (!f->switches)
			goto oom;
	}
	if (lids) {
		f->lid_node =
			dup_mem(src->lid_node, lids * sizeof(*f->lid_node));
		f->lid_port =
			dup_mem(src->lid_port, lids * sizeof(*f->lid_port));
		if (!f->lid_node || !f->lid_port)
			goto oom;
	}
	return f;
oom:
	cr_err("out of memory copying the fabric");
	cr_fabric_free(f);
	return NULL;
}
