// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An ibdm plan against the fabric as cabled, as a cabling crew's punch
 * list (croute diff). The plan's GUIDs are made up, so nodes are matched
 * by name: a node described as the plan names it ("SL1-1/L3/U1", "H-1"),
 * as ibdm names a chassis chip ("MF0;SL1-1:MTS14400/L3/U1"), or a host by
 * the first word of its description ("H-1 HCA-1"). Each planned cable
 * that is absent, or whose ends lead elsewhere, is listed once, named by
 * system and panel port; then the cables the plan lacks, and links whose
 * width or speed differs from a rate the plan gives.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/io/ibdm.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

struct plan_diff {
	FILE *out;
	const struct cr_fabric *pf, *rf; /* plan, reality */
	const struct cr_ibdm_plan *plan;
	uint32_t *p2r, *r2p; /* matched nodes, CR_NO_NODE none */
	struct cr_ibdm_diff *d;
};

static int by_desc(const void *a, const void *b, void *fabric)
{
	const struct cr_fabric *f = fabric;

	return strcmp(f->nodes[*(const uint32_t *)a].desc,
		      f->nodes[*(const uint32_t *)b].desc);
}

/* The plan node named name, of the same kind as real node m. */
static uint32_t plan_node(struct plan_diff *c, const uint32_t *sorted,
			  const char *name, uint32_t m)
{
	size_t lo = 0, hi = c->pf->num_nodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = strcmp(c->pf->nodes[sorted[mid]].desc, name);

		if (!d) {
			uint32_t n = sorted[mid];

			return cr_is_switch(c->pf, n) == cr_is_switch(c->rf, m)
				       ? n
				       : CR_NO_NODE;
		}
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return CR_NO_NODE;
}

/*
 * The names a real node's description may give it, best first: itself,
 * ibdm's "MF0;SYSTEM:TYPE/BOARD/CHIP" as SYSTEM/BOARD/CHIP or, for a
 * one-chip system, SYSTEM, and a host's first word.
 */
static int real_names(const char *desc, char names[4][256])
{
	const char *s = desc, *colon, *slash;
	int n = 0;

	snprintf(names[n++], 256, "%s", desc);
	if (!strncmp(s, "MF0;", 4))
		s += 4;
	colon = strchr(s, ':');
	slash = colon ? strchr(colon, '/') : NULL;
	if (colon && slash) {
		snprintf(names[n++], 256, "%.*s%s", (int)(colon - s), s, slash);
		snprintf(names[n++], 256, "%.*s", (int)(colon - s), s);
	}
	snprintf(names[n++], 256, "%.*s", (int)strcspn(desc, " \t"), desc);
	return n;
}

static int match_nodes(struct plan_diff *c)
{
	uint32_t *sorted = malloc((c->pf->num_nodes + 1) * sizeof(*sorted));

	c->p2r = malloc((c->pf->num_nodes + 1) * sizeof(*c->p2r));
	c->r2p = malloc((c->rf->num_nodes + 1) * sizeof(*c->r2p));
	if (!sorted || !c->p2r || !c->r2p) {
		free(sorted);
		cr_err("out of memory");
		return -1;
	}
	for (uint32_t n = 0; n < c->pf->num_nodes; n++) {
		sorted[n] = n;
		c->p2r[n] = CR_NO_NODE;
	}
	qsort_r(sorted, c->pf->num_nodes, sizeof(*sorted), by_desc,
		(void *)c->pf);
	for (uint32_t m = 0; m < c->rf->num_nodes; m++) {
		char names[4][256];
		int k = real_names(c->rf->nodes[m].desc, names);

		c->r2p[m] = CR_NO_NODE;
		for (int i = 0; i < k; i++) {
			uint32_t n = plan_node(c, sorted, names[i], m);

			if (n != CR_NO_NODE && c->p2r[n] == CR_NO_NODE) {
				c->p2r[n] = m;
				c->r2p[m] = n;
				break;
			}
		}
	}
	free(sorted);
	return 0;
}

/* "SL1-1 L1/P1" for a plan port, else "'desc' port P". */
static const char *plan_end(const struct plan_diff *c, uint32_t n, unsigned p,
			    char *buf, size_t len)
{
	const char *name = cr_ibdm_port_name(c->plan, n, p);

	if (name)
		return name;
	snprintf(buf, len, "%s port %u", c->pf->nodes[n].desc, p);
	return buf;
}

static const char *real_end(const struct plan_diff *c, uint32_t m, unsigned p,
			    char *buf, size_t len)
{
	if (m == CR_NO_NODE)
		return "nothing";
	if (c->r2p[m] != CR_NO_NODE && p <= c->pf->nodes[c->r2p[m]].num_ports)
		return plan_end(c, c->r2p[m], p, buf, len);
	snprintf(buf, len, "'%s' (node GUID 0x%016llx) port %u",
		 c->rf->nodes[m].desc, (unsigned long long)c->rf->nodes[m].guid,
		 p);
	return buf;
}

/* The real port behind plan port (n, p): *m CR_NO_NODE when none. */
static const struct cr_port *real_port(const struct plan_diff *c, uint32_t n,
				       unsigned p)
{
	uint32_t m = c->p2r[n];

	if (m == CR_NO_NODE || p > c->rf->nodes[m].num_ports)
		return NULL;
	return &c->rf->nodes[m].ports[p];
}

/* Only what the plan gives is checked: "-4X->" says nothing of speed. */
static void check_rate(struct plan_diff *c, uint32_t n, unsigned p,
		       const struct cr_port *y, const char *a, const char *b,
		       const char *where)
{
	uint8_t width;
	enum cr_speed speed;
	char planned[32] = "";

	cr_ibdm_port_rate(c->plan, n, p, &width, &speed);
	if (width && width != y->width)
		snprintf(planned, sizeof(planned), "%ux", width);
	if (speed && speed != y->speed)
		snprintf(planned + strlen(planned),
			 sizeof(planned) - strlen(planned), "%s",
			 cr_speed_name(speed));
	if (!planned[0])
		return;
	c->d->rates++;
	fprintf(c->out, "wrong rate: %s - %s%s: %s planned, %ux%s found\n", a,
		b, where, planned, y->width, cr_speed_name(y->speed));
}

/* The planned cable at plan port (n, p), to (o, q). */
static void planned_cable(struct plan_diff *c, uint32_t n, unsigned p)
{
	const struct cr_port *x = &c->pf->nodes[n].ports[p];
	const struct cr_port *ra = real_port(c, n, p);
	const struct cr_port *rb = real_port(c, x->remote, x->remote_port);
	unsigned line = cr_ibdm_port_line(c->plan, n, p);
	char b1[300], b2[300], b3[300], b4[300], where[48] = " (inside)";
	const char *a = plan_end(c, n, p, b1, sizeof(b1));
	const char *b = plan_end(c, x->remote, x->remote_port, b2, sizeof(b2));

	if (line)
		snprintf(where, sizeof(where), " (plan line %u)", line);
	if (ra && ra->remote == c->p2r[x->remote] &&
	    ra->remote_port == x->remote_port) {
		check_rate(c, n, p, ra, a, b, where);
		return;
	}
	if ((!ra || ra->remote == CR_NO_NODE) &&
	    (!rb || rb->remote == CR_NO_NODE)) {
		c->d->missing++;
		fprintf(c->out, "missing cable: %s - %s%s\n", a, b, where);
		return;
	}
	c->d->miswired++;
	fprintf(c->out, "miswired: %s - %s%s: %s is cabled to %s, %s to %s\n",
		a, b, where, a,
		real_end(c, ra ? ra->remote : CR_NO_NODE,
			 ra ? ra->remote_port : 0, b3, sizeof(b3)),
		b,
		real_end(c, rb ? rb->remote : CR_NO_NODE,
			 rb ? rb->remote_port : 0, b4, sizeof(b4)));
}

struct plan_cable {
	unsigned line;
	uint32_t n;
	unsigned p;
};

static int by_line(const void *a, const void *b)
{
	const struct plan_cable *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

/* Each planned cable once, in the order of the plan's lines. */
static int planned_cables(struct plan_diff *c)
{
	const struct cr_fabric *pf = c->pf;
	struct plan_cable *v = NULL;
	size_t nv = 0, cap = 0;

	for (uint32_t n = 0; n < pf->num_nodes; n++) {
		for (unsigned p = 1; p <= pf->nodes[n].num_ports; p++) {
			const struct cr_port *x = &pf->nodes[n].ports[p];
			uint32_t o = x->remote;

			/* Once, from the end whose block lists it. */
			if (o == CR_NO_NODE ||
			    (cr_ibdm_port_line(c->plan, n, p)
				     ? !cr_ibdm_port_listed(c->plan, n, p)
				     : o < n || (o == n && x->remote_port < p)))
				continue;
			if (cr_grow(&v, &cap, nv + 1, sizeof(*v))) {
				free(v);
				cr_err("out of memory");
				return -1;
			}
			v[nv++] = (struct plan_cable){
				.line = cr_ibdm_port_line(c->plan, n, p),
				.n = n,
				.p = p,
			};
		}
	}
	if (nv)
		qsort(v, nv, sizeof(*v), by_line);
	for (size_t i = 0; i < nv; i++)
		planned_cable(c, v[i].n, v[i].p);
	free(v);
	return 0;
}

/* Whether the plan cables the real port (m, p). */
static bool planned_port(const struct plan_diff *c, uint32_t m, unsigned p)
{
	uint32_t n = c->r2p[m];

	return n != CR_NO_NODE && p <= c->pf->nodes[n].num_ports &&
	       c->pf->nodes[n].ports[p].remote != CR_NO_NODE;
}

/* Real cables between ports the plan leaves free. */
static void extra_cables(struct plan_diff *c)
{
	const struct cr_fabric *rf = c->rf;

	for (uint32_t m = 0; m < rf->num_nodes; m++) {
		for (unsigned p = 1; p <= rf->nodes[m].num_ports; p++) {
			const struct cr_port *y = &rf->nodes[m].ports[p];
			uint32_t o = y->remote;
			unsigned q = y->remote_port;
			char b1[300], b2[300];

			if (o == CR_NO_NODE || o < m || (o == m && q < p))
				continue;
			if (planned_port(c, m, p) || planned_port(c, o, q))
				continue;
			c->d->extra++;
			fprintf(c->out, "extra cable: %s - %s\n",
				real_end(c, m, p, b1, sizeof(b1)),
				real_end(c, o, q, b2, sizeof(b2)));
		}
	}
}

static void nodes_report(struct plan_diff *c)
{
	for (uint32_t n = 0; n < c->pf->num_nodes; n++)
		if (c->p2r[n] == CR_NO_NODE) {
			c->d->lost++;
			fprintf(c->out, "missing node: %s\n",
				c->pf->nodes[n].desc);
		}
	for (uint32_t m = 0; m < c->rf->num_nodes; m++)
		if (c->r2p[m] == CR_NO_NODE) {
			c->d->unplanned++;
			fprintf(c->out,
				"unplanned node: '%s' (node GUID 0x%016llx)\n",
				c->rf->nodes[m].desc,
				(unsigned long long)c->rf->nodes[m].guid);
		}
}

int cr_ibdm_diff(FILE *out, const struct cr_fabric *pf,
		 const struct cr_ibdm_plan *plan, const struct cr_fabric *rf,
		 struct cr_ibdm_diff *d)
{
	struct plan_diff c = {
		.out = out, .pf = pf, .rf = rf, .plan = plan, .d = d};
	int ret = -1;

	memset(d, 0, sizeof(*d));
	if (match_nodes(&c))
		goto out;
	nodes_report(&c);
	if (planned_cables(&c))
		goto out;
	extra_cables(&c);
	ret = 0;
out:
	free(c.p2r);
	free(c.r2p);
	return ret;
}
