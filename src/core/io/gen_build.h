/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every generator (gen.c's trees, tori and random graphs, and the
 * dragonfly+, HyperX and rail-tree files) shares: switches and CAs added
 * with GUIDs in node order (switches from 0x0002c90200000000, CAs from
 * 0x0002c90300000000, each CA one GUID plus one a port), cables at the
 * requested rate, hosts named "hNNNN HCA-1". Internal to src/core/io.
 */
#ifndef CROUTE_GEN_BUILD_H
#define CROUTE_GEN_BUILD_H

#include <croute/io/gen.h>

/* Fabrics larger than this are refused before anything is allocated. */
#define CR_GEN_MAX_NODES 1000000ul

struct cr_genb {
	struct cr_fabric *f;
	struct cr_gen_params p;
	uint64_t sw_guid, ca_guid;
	unsigned hosts, host_digits;
};

/* Defaults the parameters (QDR, 4x, one port a host). -1 (logged). */
int cr_genb_init(struct cr_genb *g, const struct cr_gen_params *p,
		 unsigned long total_hosts);
/* Finalizes the fabric, or frees it when err or that fails. */
struct cr_fabric *cr_genb_done(struct cr_genb *g, int err);
/* A switch named by fmt; CR_NO_NODE (logged) on error. */
uint32_t cr_genb_switch(struct cr_genb *g, unsigned ports, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A CA with these ports and description; CR_NO_NODE (logged) on error. */
uint32_t cr_genb_ca(struct cr_genb *g, unsigned ports, const char *desc);
int cr_genb_cable(struct cr_genb *g, uint32_t a, unsigned pa, uint32_t b,
		  unsigned pb);
/* count hosts "hNNNN HCA-1" on switch sw from port first on. */
int cr_genb_hosts(struct cr_genb *g, uint32_t sw, unsigned first,
		  unsigned count);
/* -1 (logged, naming what) unless 1 <= ports <= CR_MAX_PORTS. */
int cr_genb_check_ports(const char *what, unsigned long long ports);
unsigned cr_genb_digits(unsigned long n);

#endif
