// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibdm cluster topology files (ibdm-topo-file(1)): one block per system,
 * "TYPE NAME [CFG: board=modifier,...]" then its cables
 * "PORT [-4X-5G]-> TYPE NAME PORT" up to a blank line. A system named only
 * at the far end of cables (a host) needs no block. Reading takes three
 * passes: the blocks (every system type is looked up in the ibnl files
 * when first named), the expansion of every system in the order the file
 * names them, then the cables between their panel ports. A cable may be
 * listed from both of its ends; a port cabled to two places, a port its
 * system lacks, a type no ibnl file defines and a block cut short are
 * errors naming the line. Cost: each cable end is a linear search of its
 * system's panel ports (144 on a Rhino), so a 10,000-host plan reads in
 * well under a second; expansion is linear in the chips.
 */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/io/ibdm.h>
#include <croute/model/log.h>
#include <croute/model/strindex.h>
#include <croute/io/topo.h>

#include "ibdm_int.h"

struct cable {
	uint32_t a, b;
	char *pa, *pb;
	uint8_t width;
	enum cr_speed speed;
	unsigned line;
};

struct topo_rd {
	const char *name;
	unsigned line;
	struct ibnl_lib lib;
	struct ibdm_sysrec *sys;
	size_t nsys, sys_cap;
	struct cr_strindex names; /* name -> system */
	struct cable *cables;
	size_t ncables, cables_cap;
	uint32_t cur; /* the system whose block this is, CR_NO_NODE none */
	struct ibdm_build b;
};

struct cr_ibdm_plan {
	uint32_t nnodes;
	size_t *base; /* a node's port 1 in panel[] and line[] */
	char **panel;
	unsigned *line;
	bool *listed;
	uint8_t *width; /* as the plan gives them, 0 when it does not */
	enum cr_speed *speed;
	size_t nports;
};

#define td_err(rd, fmt, ...) \
	cr_err("%s:%u: " fmt, (rd)->name, (rd)->line, ##__VA_ARGS__)

static const char *sys_name(const void *ctx, uint32_t i)
{
	const struct topo_rd *rd = ctx;

	return rd->sys[i].name;
}

static const struct ibnl_sys *lookup_type(struct topo_rd *rd, const char *type)
{
	bool broken;
	const struct ibnl_sys *def = ibnl_find_top(&rd->lib, type, &broken);

	if (def)
		return def;
	if (broken)
		td_err(rd,
		       "the definition of system type \"%s\" is broken"
		       " (see above)",
		       type);
	else if (!rd->lib.nfiles)
		td_err(rd,
		       "unknown system type \"%s\": no ibnl files found"
		       " (install ibutils or give --ibnl-dir)",
		       type);
	else
		td_err(rd,
		       "unknown system type \"%s\" (no ibnl file defines it;"
		       " see --ibnl-dir)",
		       type);
	return NULL;
}

/* The system named name of type type, added when new; CR_NO_NODE on error. */
static uint32_t sys_get(struct topo_rd *rd, const char *type, const char *name)
{
	uint32_t s = cr_strindex_find(&rd->names, name);
	const struct ibnl_sys *def;
	struct ibdm_sysrec *r;

	if (s != CR_NO_NODE) {
		r = &rd->sys[s];
		if (strcmp(r->type, type)) {
			def = lookup_type(rd, type);
			if (!def)
				return CR_NO_NODE;
			if (def != r->def) {
				td_err(rd, "%s is a %s here, a %s on line %u",
				       name, type, r->type, r->line);
				return CR_NO_NODE;
			}
		}
		return s;
	}
	def = lookup_type(rd, type);
	if (!def)
		return CR_NO_NODE;
	if (cr_strindex_reserve(&rd->names, rd->nsys) ||
	    cr_grow(&rd->sys, &rd->sys_cap, rd->nsys + 1, sizeof(*rd->sys)))
		goto oom;
	r = &rd->sys[rd->nsys];
	memset(r, 0, sizeof(*r));
	r->name = strdup(name);
	r->type = strdup(type);
	if (!r->name || !r->type) {
		free(r->name);
		free(r->type);
		goto oom;
	}
	r->def = def;
	r->line = rd->line;
	cr_strindex_insert(&rd->names, rd->nsys);
	return rd->nsys++;
oom:
	td_err(rd, "out of memory");
	return CR_NO_NODE;
}

/* "board=mod,board=mod" (blanks ignored) into cfg. */
static int parse_cfg(struct topo_rd *rd, const char *s, struct ibdm_cfg *cfg)
{
	char *text = malloc(strlen(s) + 1), *t = text;
	size_t bcap = 0, mcap = 0;
	char *save;
	int ret = 0;

	if (!text)
		return -1;
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			*t++ = *s;
	*t = 0;
	for (char *tok = strtok_r(text, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || !eq[1]) {
			td_err(rd, "CFG: expected BOARD=MODIFIER, not \"%s\"",
			       tok);
			ret = -2;
			break;
		}
		*eq = 0;
		if (cr_grow(&cfg->board, &bcap, cfg->n + 1,
			    sizeof(*cfg->board)) ||
		    cr_grow(&cfg->mod, &mcap, cfg->n + 1, sizeof(*cfg->mod))) {
			ret = -1;
			break;
		}
		cfg->board[cfg->n] = strdup(tok);
		cfg->mod[cfg->n] = strdup(eq + 1);
		if (!cfg->board[cfg->n++] || !cfg->mod[cfg->n - 1])
			ret = -1;
	}
	free(text);
	return ret;
}

static size_t split(char *line, char **w, size_t max)
{
	size_t n = 0;
	char *save;

	for (char *t = strtok_r(line, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = t;
	}
	return n;
}

static int header(struct topo_rd *rd, char *line)
{
	char *cfg = strstr(line, "CFG:"), *w[3];
	size_t n;
	uint32_t s;

	if (cfg)
		*cfg = 0;
	n = split(line, w, 2);
	if (n != 2) {
		td_err(rd, "expected a system: TYPE NAME [CFG: BOARD=MOD,...]");
		return -2;
	}
	s = sys_get(rd, w[0], w[1]);
	if (s == CR_NO_NODE)
		return -2;
	if (rd->sys[s].block) {
		td_err(rd, "%s already has its block on line %u", w[1],
		       rd->sys[s].block);
		return -2;
	}
	rd->sys[s].block = rd->line;
	rd->cur = s;
	return cfg ? parse_cfg(rd, cfg + 4, &rd->sys[s].cfg) : 0;
}

static int cable_line(struct topo_rd *rd, char *line)
{
	char *w[6];
	size_t n = split(line, w, 5);
	struct cable *c;
	uint32_t b;

	if (rd->cur == CR_NO_NODE) {
		td_err(rd, "a cable outside a system's block (a blank line"
			   " ends a block)");
		return -2;
	}
	if (n != 5 || w[1][0] != '-') {
		td_err(rd, "%s cable line: expected PORT -> TYPE NAME PORT",
		       n < 5 ? "truncated" : "bad");
		return -2;
	}
	if (cr_grow(&rd->cables, &rd->cables_cap, rd->ncables + 1,
		    sizeof(*rd->cables)))
		return -1;
	c = &rd->cables[rd->ncables];
	memset(c, 0, sizeof(*c));
	if (ibnl_parse_arrow(w[1], &c->width, &c->speed)) {
		td_err(rd, "bad link '%s' (-> -4X-> -4X-5G-> -10G-> ...)",
		       w[1]);
		return -2;
	}
	b = sys_get(rd, w[2], w[3]);
	if (b == CR_NO_NODE)
		return -2;
	c->a = rd->cur;
	c->b = b;
	c->line = rd->line;
	c->pa = strdup(w[0]);
	c->pb = strdup(w[4]);
	rd->ncables++;
	return c->pa && c->pb ? 0 : -1;
}

static int parse_line(struct topo_rd *rd, char *line)
{
	char *s = line;
	size_t len = strlen(line);

	while (len && isspace((unsigned char)line[len - 1]))
		line[--len] = 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		rd->cur = CR_NO_NODE;
		return 0;
	}
	if (*s == '#')
		return 0;
	if (strstr(s, "->"))
		return cable_line(rd, s);
	if (rd->cur != CR_NO_NODE) {
		td_err(rd,
		       "truncated cable line in %s's block: expected"
		       " PORT -> TYPE NAME PORT (a blank line ends a"
		       " block)",
		       rd->sys[rd->cur].name);
		return -2;
	}
	return header(rd, s);
}

static int expand_all(struct topo_rd *rd)
{
	for (size_t s = 0; s < rd->nsys; s++) {
		struct ibdm_sysrec *r = &rd->sys[s];
		char where[512];

		snprintf(where, sizeof(where), "%s:%u", rd->name,
			 r->block ? r->block : r->line);
		if (ibdm_expand(&rd->b, r, where))
			return -1;
		for (size_t k = 0; k < r->nmap; k++) {
			struct ibdm_port *p = ibdm_port(
				&rd->b, r->map[k].end.node, r->map[k].end.port);

			if (p->panel)
				continue;
			if (asprintf(&p->panel, "%s %s", r->name,
				     r->map[k].name) < 0) {
				p->panel = NULL;
				cr_err("%s: out of memory", rd->name);
				return -1;
			}
		}
	}
	return 0;
}

static int panel_end(struct topo_rd *rd, uint32_t s, const char *port,
		     struct ibdm_end *end)
{
	const struct ibdm_sysrec *r = &rd->sys[s];

	for (size_t k = 0; k < r->nmap; k++)
		if (!strcmp(r->map[k].name, port)) {
			*end = r->map[k].end;
			return 0;
		}
	td_err(rd, "%s (%s) has no port %s", r->name, r->type, port);
	return -1;
}

static int cable_all(struct topo_rd *rd)
{
	for (size_t i = 0; i < rd->ncables; i++) {
		const struct cable *c = &rd->cables[i];
		struct ibdm_end x, y;
		struct ibdm_port *px, *py;

		rd->line = c->line;
		if (panel_end(rd, c->a, c->pa, &x) ||
		    panel_end(rd, c->b, c->pb, &y))
			return -1;
		px = ibdm_port(&rd->b, x.node, x.port);
		py = ibdm_port(&rd->b, y.node, y.port);
		if (px->rnode == y.node && px->rport == y.port)
			continue; /* listed from its other end too */
		if (px == py || px->rnode != CR_NO_NODE ||
		    py->rnode != CR_NO_NODE) {
			const struct ibdm_port *t =
				px->rnode != CR_NO_NODE ? px : py;
			const char *tn = t == px ? c->pa : c->pb;
			uint32_t ts = t == px ? c->a : c->b;

			if (px == py)
				td_err(rd, "%s %s is cabled to itself",
				       rd->sys[c->a].name, c->pa);
			else if (t->line)
				td_err(rd,
				       "%s %s is already cabled on line %u"
				       " (to %s)",
				       rd->sys[ts].name, tn, t->line,
				       rd->b.nodes[t->rnode].name);
			else
				td_err(rd, "%s %s is cabled inside %s",
				       rd->sys[ts].name, tn, rd->sys[ts].name);
			return -1;
		}
		px->rnode = y.node;
		px->rport = y.port;
		py->rnode = x.node;
		py->rport = x.port;
		px->line = py->line = c->line;
		px->listed = true;
		px->width = py->width =
			c->width ? c->width
				 : ibdm_min_nonzero(x.width, y.width);
		px->speed = py->speed =
			c->speed ? c->speed
				 : (enum cr_speed)ibdm_min_nonzero(x.speed,
								   y.speed);
	}
	return 0;
}

static const struct ibdm_node *sort_nodes;

static int by_guid(const void *a, const void *b)
{
	uint64_t x = sort_nodes[*(const uint32_t *)a].guid;
	uint64_t y = sort_nodes[*(const uint32_t *)b].guid;

	return x < y ? -1 : x > y;
}

/* The fabric in GUID order; order[] gets new -> built, where[] the reverse. */
static struct cr_fabric *build_fabric(struct topo_rd *rd, uint32_t *order,
				      uint32_t *where)
{
	struct ibdm_build *b = &rd->b;
	struct cr_fabric *f = cr_fabric_new();

	if (!f)
		return NULL;
	for (uint32_t n = 0; n < b->nnodes; n++) {
		/* Switches first: ibsim attaches OpenSM to the first node. */
		b->nodes[n].guid =
			(b->nodes[n].sw ? 0x0200000000000000ULL
					: 0x0300000000000000ULL) |
			(ibdm_hash(b->nodes[n].name) & 0x00ffffffffffff00ULL);
		order[n] = n;
	}
	sort_nodes = b->nodes;
	qsort(order, b->nnodes, sizeof(*order), by_guid);
	for (uint32_t i = 0; i < b->nnodes; i++) {
		const struct ibdm_node *nd = &b->nodes[order[i]];

		if (i && nd->guid == b->nodes[order[i - 1]].guid) {
			cr_err("%s: %s and %s hash to the same GUID;"
			       " rename one",
			       rd->name, nd->name, b->nodes[order[i - 1]].name);
			goto fail;
		}
		where[order[i]] = i;
		if (cr_fabric_add_node(f, nd->sw ? CR_NODE_SWITCH : CR_NODE_CA,
				       nd->guid, nd->nports, nd->name) != i)
			goto fail;
	}
	for (uint32_t i = 0; i < b->nnodes; i++) {
		for (unsigned p = 1; p <= b->nodes[order[i]].nports; p++) {
			const struct ibdm_port *x = ibdm_port(b, order[i], p);
			struct cr_port *fp = &f->nodes[i].ports[p];
			uint32_t r;

			if (x->rnode == CR_NO_NODE)
				continue;
			/* What ibsim and an ibnetdiscover file assume. */
			fp->width = x->width ? x->width : 4;
			fp->speed = x->speed ? x->speed : CR_SPEED_SDR;
			r = where[x->rnode];
			if ((r > i || (r == i && x->rport > p)) &&
			    cr_fabric_link(f, i, p, r, x->rport))
				goto fail;
		}
	}
	if (f->num_nodes) {
		const struct cr_node *first = &f->nodes[0];

		f->sm_port_guid =
			first->ports[first->type == CR_NODE_SWITCH ? 0 : 1]
				.guid;
	}
	return f;
fail:
	cr_fabric_free(f);
	return NULL;
}

static struct cr_ibdm_plan *make_plan(struct topo_rd *rd, const uint32_t *order)
{
	struct ibdm_build *b = &rd->b;
	struct cr_ibdm_plan *pl = calloc(1, sizeof(*pl));
	size_t at = 0;

	if (!pl)
		return NULL;
	pl->nnodes = b->nnodes;
	pl->nports = b->nports;
	pl->base = calloc(b->nnodes + 1, sizeof(*pl->base));
	pl->panel = calloc(b->nports + 1, sizeof(*pl->panel));
	pl->line = calloc(b->nports + 1, sizeof(*pl->line));
	pl->listed = calloc(b->nports + 1, sizeof(*pl->listed));
	pl->width = calloc(b->nports + 1, sizeof(*pl->width));
	pl->speed = calloc(b->nports + 1, sizeof(*pl->speed));
	if (!pl->base || !pl->panel || !pl->line || !pl->width || !pl->speed) {
		cr_ibdm_plan_free(pl);
		return NULL;
	}
	for (uint32_t i = 0; i < b->nnodes; i++) {
		pl->base[i] = at;
		for (unsigned p = 1; p <= b->nodes[order[i]].nports; p++) {
			struct ibdm_port *x = ibdm_port(b, order[i], p);

			pl->panel[at] = x->panel;
			pl->listed[at] = x->listed;
			pl->width[at] = x->width;
			pl->speed[at] = x->speed;
			pl->line[at++] = x->line;
			x->panel = NULL;
		}
	}
	return pl;
}

static void rd_release(struct topo_rd *rd)
{
	for (size_t s = 0; s < rd->nsys; s++) {
		struct ibdm_sysrec *r = &rd->sys[s];

		free(r->name);
		free(r->type);
		for (size_t i = 0; i < r->cfg.n; i++) {
			free(r->cfg.board[i]);
			free(r->cfg.mod[i]);
		}
		free(r->cfg.board);
		free(r->cfg.mod);
		free(r->map);
	}
	free(rd->sys);
	cr_strindex_release(&rd->names);
	for (size_t i = 0; i < rd->ncables; i++) {
		free(rd->cables[i].pa);
		free(rd->cables[i].pb);
	}
	free(rd->cables);
	for (size_t n = 0; n < rd->b.nnodes; n++)
		free(rd->b.nodes[n].name);
	for (size_t p = 0; p < rd->b.nports; p++)
		free(rd->b.ports[p].panel);
	free(rd->b.nodes);
	free(rd->b.ports);
	ibnl_lib_release(&rd->lib);
}

static int read_blocks(struct topo_rd *rd, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&line, &cap, in) >= 0) {
		rd->line++;
		err = parse_line(rd, line);
	}
	free(line);
	if (err == -1)
		td_err(rd, "out of memory");
	if (!err)
		err = cr_read_end(in, rd->name, rd->nsys,
				  "no systems (not an ibdm topology file?)");
	return err ? -1 : 0;
}

struct cr_fabric *cr_ibdm_read_file(FILE *in, const char *name,
				    struct cr_ibdm_plan **plan)
{
	struct topo_rd rd = {
		.name = name,
		.cur = CR_NO_NODE,
		.names = {.key = sys_name, .ctx = &rd},
	};
	struct cr_fabric *f = NULL;
	uint32_t *order = NULL, *where = NULL;

	if (plan)
		*plan = NULL;
	if (ibnl_lib_open(&rd.lib) || read_blocks(&rd, in) || expand_all(&rd) ||
	    cable_all(&rd))
		goto out;
	order = calloc(rd.b.nnodes + 1, sizeof(*order));
	where = calloc(rd.b.nnodes + 1, sizeof(*where));
	if (!order || !where) {
		cr_err("%s: out of memory", name);
		goto out;
	}
	f = build_fabric(&rd, order, where);
	if (f && cr_fabric_sort_by_guid(f)) {
		cr_err("%s: the expanded plan is not consistent (see above)",
		       name);
		cr_fabric_free(f);
		f = NULL;
	}
	if (f && plan && !(*plan = make_plan(&rd, order))) {
		cr_err("%s: out of memory", name);
		cr_fabric_free(f);
		f = NULL;
	}
	if (f)
		cr_verbose("%s: %zu systems, %u nodes, %u switches (ibdm)",
			   name, rd.nsys, f->num_nodes, f->num_switches);
out:
	free(order);
	free(where);
	rd_release(&rd);
	return f;
}

struct cr_fabric *cr_ibdm_read(const char *path, struct cr_ibdm_plan **plan)
{
	struct cr_fabric *f;
	FILE *in;

	if (!strcmp(path, "-"))
		return cr_ibdm_read_file(stdin, "<stdin>", plan);
	in = cr_file_open_read(path);
	if (!in)
		return NULL;
	f = cr_ibdm_read_file(in, path, plan);
	fclose(in);
	return f;
}

static bool in_plan(const struct cr_ibdm_plan *pl, uint32_t n, unsigned p)
{
	return pl && n < pl->nnodes && p >= 1 &&
	       pl->base[n] + p - 1 <
		       (n + 1 < pl->nnodes ? pl->base[n + 1] : pl->nports);
}

const char *cr_ibdm_port_name(const struct cr_ibdm_plan *pl, uint32_t n,
			      unsigned p)
{
	return in_plan(pl, n, p) ? pl->panel[pl->base[n] + p - 1] : NULL;
}

unsigned cr_ibdm_port_line(const struct cr_ibdm_plan *pl, uint32_t n,
			   unsigned p)
{
	return in_plan(pl, n, p) ? pl->line[pl->base[n] + p - 1] : 0;
}

bool cr_ibdm_port_listed(const struct cr_ibdm_plan *pl, uint32_t n, unsigned p)
{
	return in_plan(pl, n, p) && pl->listed[pl->base[n] + p - 1];
}

void cr_ibdm_port_rate(const struct cr_ibdm_plan *pl, uint32_t n, unsigned p,
		       uint8_t *width, enum cr_speed *speed)
{
	bool in = in_plan(pl, n, p);

	*width = in ? pl->width[pl->base[n] + p - 1] : 0;
	*speed = in ? pl->speed[pl->base[n] + p - 1] : CR_SPEED_UNKNOWN;
}

void cr_ibdm_plan_free(struct cr_ibdm_plan *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->nports; i++)
		free(pl->panel[i]);
	free(pl->panel);
	free(pl->base);
	free(pl->line);
	free(pl->listed);
	free(pl->width);
	free(pl->speed);
	free(pl);
}

/* The first line that says something, skipping comments; NULL at EOF. */
static char *next_line(FILE *in, char **line, size_t *cap, bool skip_blank)
{
	while (getline(line, cap, in) >= 0) {
		char *s = *line;

		while (isspace((unsigned char)*s))
			s++;
		if (*s == '#' || (!*s && skip_blank))
			continue;
		return s;
	}
	return NULL;
}

bool cr_ibdm_is_topo(FILE *in)
{
	char *line = NULL, *s, *cfg, *w[3];
	size_t cap = 0;
	bool yes = false;

	s = next_line(in, &line, &cap, true);
	if (s) {
		cfg = strstr(s, "CFG:");
		if (cfg)
			*cfg = 0;
		if (!strpbrk(s, "\"[{=") && !strstr(s, "->") &&
		    split(s, w, 2) == 2) {
			s = next_line(in, &line, &cap, false);
			yes = s && strstr(s, "->");
		}
	}
	free(line);
	return yes;
}
