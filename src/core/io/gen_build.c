// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The building blocks every generator shares (gen_build.h): GUIDs, names
 * and port rates by one rule, so that every generated fabric reads and
 * sorts the same way.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <croute/model/log.h>
#include "gen_build.h"

#define SWITCH_GUID_BASE 0x0002c90200000000ULL
#define CA_GUID_BASE 0x0002c90300000000ULL

unsigned cr_genb_digits(unsigned long n)
{
	unsigned d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

int cr_genb_init(struct cr_genb *g, const struct cr_gen_params *p,
		 unsigned long total_hosts)
{
	memset(g, 0, sizeof(*g));
	if (p)
		g->p = *p;
	if (!g->p.speed)
		g->p.speed = CR_SPEED_QDR;
	if (!g->p.width)
		g->p.width = 4;
	if (!g->p.hca_ports)
		g->p.hca_ports = 1;
	if (g->p.hca_ports > CR_MAX_PORTS) {
		cr_err("gen: %u ports per host is too many", g->p.hca_ports);
		return -1;
	}
	g->sw_guid = SWITCH_GUID_BASE;
	g->ca_guid = CA_GUID_BASE;
	g->host_digits = cr_genb_digits(total_hosts);
	if (g->host_digits < 4)
		g->host_digits = 4;
	g->f = cr_fabric_new();
	if (!g->f) {
		cr_err("gen: out of memory");
		return -1;
	}
	return 0;
}

struct cr_fabric *cr_genb_done(struct cr_genb *g, int err)
{
	if (!err && cr_fabric_finalize(g->f))
		err = -1;
	if (err) {
		cr_fabric_free(g->f);
		return NULL;
	}
	return g->f;
}

uint32_t cr_genb_switch(struct cr_genb *g, unsigned ports, const char *fmt, ...)
{
	char desc[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	return cr_fabric_add_node(g->f, CR_NODE_SWITCH, g->sw_guid++, ports,
				  desc);
}

uint32_t cr_genb_ca(struct cr_genb *g, unsigned ports, const char *desc)
{
	uint32_t n =
		cr_fabric_add_node(g->f, CR_NODE_CA, g->ca_guid, ports, desc);

	/* a CA takes its node GUID and one GUID per port */
	g->ca_guid += ports + 1;
	return n;
}

int cr_genb_cable(struct cr_genb *g, uint32_t a, unsigned pa, uint32_t b,
		  unsigned pb)
{
	struct cr_port *x, *y;

	if (cr_fabric_link(g->f, a, pa, b, pb))
		return -1;
	x = &g->f->nodes[a].ports[pa];
	y = &g->f->nodes[b].ports[pb];
	x->width = y->width = g->p.width;
	x->speed = y->speed = g->p.speed;
	return 0;
}

int cr_genb_hosts(struct cr_genb *g, uint32_t sw, unsigned first,
		  unsigned count)
{
	unsigned np = g->p.hca_ports;

	for (unsigned h = 0; h < count; h++) {
		char desc[64];
		uint32_t n;

		snprintf(desc, sizeof(desc), "h%0*u HCA-1", (int)g->host_digits,
			 ++g->hosts);
		n = cr_genb_ca(g, np, desc);
		if (n == CR_NO_NODE)
			return -1;
		for (unsigned p = 1; p <= np; p++)
			if (cr_genb_cable(g, sw, first + h * np + p - 1, n, p))
				return -1;
	}
	return 0;
}

int cr_genb_check_ports(const char *what, unsigned long long ports)
{
	if (ports < 1 || ports > CR_MAX_PORTS) {
		cr_err("gen: %s would need %llu ports (1..%u possible)", what,
		       ports, CR_MAX_PORTS);
		return -1;
	}
	return 0;
}
