// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A routing result -> OpenSM's switches: new_lft, which OpenSM then sends
 * to the switches, and the part of the hop tables OpenSM reads.
 *
 * Who reads OpenSM's hop tables (OpenSM 3.3.23): multicast routing
 * (osm_mcast_mgr.c: the spanning tree's centre and, through
 * osm_switch_recommend_mcast_path, each switch's port toward a member)
 * asks only for switch LIDs, a CA standing for the switch it is cabled
 * to; so does osm_switch_get_port_least_hops. opensm.fdbs
 * (dump_ucast_routes) asks for a CA LID without a hop row the hop count
 * of the CA's switch's LID on the port the CA LID is routed through, plus
 * one. The SA's path records walk the LFTs and read no hop table. Only the
 * LID-matrix dump lists every row, and so shows switch LIDs only, as with
 * OpenSM's own ftree.
 *
 * So a switch gets hop rows for the switch LIDs only: for switch LID L
 * and port p, the fewest hops of a routed path leaving through p toward L
 * or toward a CA on L's switch (one hop less than the CA's). Every count
 * is that of a path the LFTs really take; along it the next switch has a
 * count one lower, so multicast paths picked by least hops never loop.
 * OpenSM allocates a row per (switch, LID) that gets a hop count: rows for
 * every LID cost 88 million allocations (5.7 GB) on 27,648 hosts, rows for
 * switch LIDs 8 million.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin.h"

#include <croute/log.h>
#include <croute/parallel.h>

/*
 * Back to the state osm_switch_prepare_path_rebuild() leaves: no route,
 * no hop count. OpenSM does this once per sweep, not between the engines
 * of the -R list, and osm_switch_set_hops() only ever lowers a count.
 */
void cr_export_clear(osm_subn_t *subn)
{
	cl_qmap_t *tbl = &subn->sw_guid_tbl;

	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;

		if (sw->new_lft)
			memset(sw->new_lft, OSM_NO_PATH, sw->lft_size);
		if (sw->hops)
			osm_switch_clear_hops(sw);
	}
}

static uint64_t sw_guid(const osm_switch_t *sw)
{
	return cl_ntoh64(osm_node_get_node_guid(sw->p_node));
}

/*
 * Per LID: the base LID of the switch whose hop row stands for it (the
 * switch's own base LID, or that of the switch a CA port is cabled to),
 * and whether the path to the LID takes one hop more (a CA).
 */
struct hop_target {
	uint16_t row; /* 0: no row */
	uint8_t extra;
};

static struct hop_target *hop_targets(const struct cr_fabric *f)
{
	struct hop_target *t = calloc((size_t)f->max_lid + 1, sizeof(*t));

	if (!t)
		return NULL;
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t s = cr_lid_switch(f, (uint16_t)lid, NULL);

		if (s == CR_NO_NODE)
			continue;
		t[lid].row = f->nodes[s].ports[0].lid;
		t[lid].extra = f->lid_node[lid] != s;
		/* A switch LID's own row, whatever its LMC. */
		if (!t[lid].extra)
			t[lid].row = (uint16_t)lid;
	}
	return t;
}

/* Checks and copies one switch's LFT into new_lft. */
static int put_lft(osm_switch_t *sw, const uint8_t *lft, unsigned max_lid,
		   unsigned *top)
{
	unsigned t = max_lid;

	if (!sw || !sw->new_lft || !sw->hops)
		return -1;
	/* new_lft holds lft_size entries; OpenSM uses max_lid_ho. */
	if (t > sw->max_lid_ho)
		t = sw->max_lid_ho;
	if (t >= sw->lft_size)
		t = sw->lft_size - 1u;
	for (unsigned lid = t + 1; lid <= max_lid; lid++) {
		if (lft[lid] == CR_NO_PATH)
			continue;
		cr_err("switch 0x%016" PRIx64 ": LID %u is beyond its table"
		       " (top %u, %u entries)",
		       sw_guid(sw), lid, sw->max_lid_ho, sw->lft_size);
		return -2;
	}
	for (unsigned lid = 1; lid <= t; lid++) {
		if (lft[lid] == CR_NO_PATH || lft[lid] < sw->num_ports)
			continue;
		cr_err("switch 0x%016" PRIx64 ": LID %u routed to port %u of"
		       " %u",
		       sw_guid(sw), lid, lft[lid], sw->num_ports - 1u);
		return -2;
	}
	/* Both use 255 for no path. */
	memcpy(sw->new_lft + 1, lft + 1, t);
	*top = t;
	return 0;
}

/*
 * The hop rows of one switch's switch LIDs, see the top of this file, from
 * LIDs begin..end - 1 (h[lid - begin]: the switch's hop counts).
 */
static int put_hops(osm_switch_t *sw, const uint8_t *lft, const uint8_t *h,
		    const struct hop_target *tg, uint32_t begin, uint32_t end)
{
	for (uint32_t lid = begin; lid < end; lid++) {
		uint8_t port = lft[lid], n, hl = h[lid - begin];
		uint16_t row = tg[lid].row;

		if (port == CR_NO_PATH || hl == CR_NO_PATH || !row ||
		    row > sw->max_lid_ho)
			continue;
		/* A CA on this very switch: its switch's port-0 row. */
		if (tg[lid].extra && hl <= 1)
			continue;
		n = hl - tg[lid].extra;
		if (osm_switch_get_hop_count(sw, row, port) <= n)
			continue;
		if (osm_switch_set_hops(sw, row, port, n))
			return -1;
	}
	return 0;
}

struct export_job {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	osm_switch_t *const *sws;
	unsigned *top; /* per switch: the last LID put into new_lft */
	/* the hop chunk being installed */
	const uint8_t *hops; /* [switch index * stride + lid - begin] */
	size_t stride;
	uint32_t begin, end;
	const struct hop_target *tg;
};

/* Switches are independent: each part installs a range of them. */
static int lft_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	const struct export_job *j = arg;
	const struct cr_fabric *f = j->f;

	(void)part;
	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		int err = put_lft(j->sws[s], j->r->lft[f->switches[s]],
				  f->max_lid, &j->top[s]);

		if (err == -1) {
			char la[CR_NODE_LABEL_MAX];

			cr_err("switch %s was not prepared for routing by"
			       " OpenSM",
			       cr_node_label(f, f->switches[s], 0, la,
					     sizeof(la)));
		}
		if (err)
			return -1;
	}
	return 0;
}

/*
 * A switch's hop rows are its own (osm_switch_set_hops touches nothing
 * else), so switches are installed in parallel.
 */
static int hops_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	const struct export_job *j = arg;
	const struct cr_fabric *f = j->f;

	(void)part;
	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		osm_switch_t *sw = j->sws[s];
		uint32_t last = j->top[s] + 1 < j->end ? j->top[s] + 1 : j->end;

		if (last > j->begin &&
		    put_hops(sw, j->r->lft[f->switches[s]],
			     j->hops + s * j->stride, j->tg, j->begin, last)) {
			cr_err("switch 0x%016" PRIx64 ": cannot set its hop"
			       " counts",
			       sw_guid(sw));
			return -1;
		}
	}
	return 0;
}

/*
 * LIDs whose hop counts are computed and installed at a time: the buffer
 * is this many bytes per switch (12 MB on 2,880 switches), not a whole
 * second table of num_switches x (max_lid + 1) bytes.
 */
#define EXPORT_CHUNK 4096u

static double ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

int cr_export(osm_opensm_t *osm, const struct cr_fabric *f,
	      const struct cr_routing *r, osm_switch_t *const *sws)
{
	uint32_t row = (uint32_t)f->max_lid + 1;
	uint32_t ns = f->num_switches;
	uint32_t chunk = row < EXPORT_CHUNK ? row : EXPORT_CHUNK;
	unsigned nparts = cr_parallel_parts(ns, 64);
	struct export_job j = {.f = f, .r = r, .sws = sws, .stride = chunk};
	struct hop_target *tg = hop_targets(f);
	struct cr_hop_ctx *hc = NULL;
	struct timespec t0, t1, t2;
	uint8_t *hops;
	int ret = -1;

	(void)osm;
	hops = malloc((size_t)ns * chunk + 1);
	j.top = calloc(ns + 1, sizeof(*j.top));
	if (!hops || !tg || !j.top) {
		cr_err("out of memory exporting the LFTs");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cr_parallel(ns, nparts, lft_range, &j))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Hop counts of the paths the LFTs really take, not estimates. */
	hc = cr_hop_ctx_new(f, r);
	if (!hc)
		goto out;
	j.hops = hops;
	j.tg = tg;
	for (uint32_t c0 = 1; c0 < row; c0 += chunk) {
		j.begin = c0;
		j.end = row - c0 > chunk ? c0 + chunk : row;
		if (cr_hop_ctx_rows(hc, j.begin, j.end, hops, chunk) ||
		    cr_parallel(ns, nparts, hops_range, &j))
			goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t2);
	cr_verbose("install: LFTs %.1f ms, hop rows %.1f ms", ms(&t0, &t1),
		   ms(&t1, &t2));
	ret = 0;
out:
	cr_hop_ctx_free(hc);
	free(j.top);
	free(tg);
	free(hops);
	return ret;
}
