/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The routing engines: their table, how one is named with its toggles,
 * and running one. An engine reads a struct cr_fabric and the
 * struct cr_options and fills a struct cr_routing (include/croute/model/routing.h).
 */
#ifndef CROUTE_ENGINE_H
#define CROUTE_ENGINE_H

#include <croute/model/routing.h>

struct cr_engine {
	const char *name; /* "minhop": "cr-minhop" is accepted too */
	const char *summary;
	/* by: empty on entry, never NULL (cr_route_by sees to it) */
	int (*route)(const struct cr_fabric *f, const struct cr_options *o,
		     struct cr_routing *r, struct cr_byproducts *by);
	bool layered; /* fills r->sl and r->sl2vl: needs QoS on */
};

/*
 * An engine with its toggles, as cr-auto's candidates and croute
 * compare's --engines write it: ENGINE[+ps][+rgs][+glob][+rr][+bal][+roots=R]
 * (ps and rgs for any engine; glob but for ftree; rr (glob plus rip-up
 * and reroute) for lash, dfp and hyperx; bal for layered
 * engines; roots=auto|ecc|top|file for updn; port-shifting,
 * remote-guid-sorting and lash-balance are the long names).
 */
/*
 * Rounds of rip-up and reroute the +rr toggle asks for: a third added
 * little on the random fabrics tried. cr-dfp's and cr-hyperx's rounds
 * only pick again among fixed candidates, far cheaper than cr-lash's,
 * which rebuild the layers; on dragonflies+ six did better than two and
 * ten no better than six (doc/design.md, rip-up and reroute).
 */
#define CR_RR_ROUNDS 2
#define CR_RR_ROUNDS_RANKED 6

struct cr_engine_set {
	const struct cr_engine *e;
	bool ps, rgs, bal, glob, first;
	bool rr; /* lash, dfp, hyperx: glob plus rip-up and reroute */
	enum cr_updn_roots roots;
	bool roots_file; /* updn: root_guid_file's roots */
	char name[48]; /* "updn+ps+roots=ecc": short names, as given */
};

/* Parses tok (modified). -1 with the reason logged, what naming it. */
int cr_engine_set_parse(char *tok, struct cr_engine_set *s, const char *what);

/* The rounds of rip-up and reroute +rr gives engine e. */
unsigned cr_rr_rounds(const struct cr_engine *e);

/* NULL-terminated list of the engines. */
extern const struct cr_engine *const cr_engines[];
/* Accepts "minhop" and "cr-minhop"; NULL when unknown. */
const struct cr_engine *cr_engine_find(const char *name);

/*
 * Runs an engine: clears r and by, routes, and on failure clears both
 * again so that nothing half-done is left behind. by may be NULL: the
 * by-products are dropped. Returns 0 or a negative value.
 */
int cr_route_by(const struct cr_engine *e, const struct cr_fabric *f,
		const struct cr_options *o, struct cr_routing *r,
		struct cr_byproducts *by);
/*
 * An engine's return when the fabric is not of the kind it routes (cr-dfp
 * on no dragonfly+, cr-hyperx on no HyperX), the reason logged as an
 * error: croute route exits 2, the plugin lets OpenSM try its next engine.
 */
#define CR_ROUTE_NOT_ITS_FABRIC (-3)

/* cr_route_by without the by-products. */
int cr_route(const struct cr_engine *e, const struct cr_fabric *f,
	     const struct cr_options *o, struct cr_routing *r);

/* Each engine's entry point (src/core/route/<engine>.c). */
int cr_minhop_route(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by);
int cr_updn_route(const struct cr_fabric *f, const struct cr_options *o,
		  struct cr_routing *r, struct cr_byproducts *by);
int cr_ftree_route(const struct cr_fabric *f, const struct cr_options *o,
		   struct cr_routing *r, struct cr_byproducts *by);
int cr_lash_route(const struct cr_fabric *f, const struct cr_options *o,
		  struct cr_routing *r, struct cr_byproducts *by);
int cr_dfp_route(const struct cr_fabric *f, const struct cr_options *o,
		 struct cr_routing *r, struct cr_byproducts *by);
int cr_hyperx_route(const struct cr_fabric *f, const struct cr_options *o,
		    struct cr_routing *r, struct cr_byproducts *by);
/*
 * Whether f is a dragonfly+ as cr-dfp sees one: leaves (switches with
 * CAs) never cabled to each other, and two groups or more (the parts the
 * leaf-spine cables make), each with a leaf and a spine. 1 yes, 0 no, -1
 * out of memory.
 */
int cr_dfp_is_dragonfly(const struct cr_fabric *f);

#endif
