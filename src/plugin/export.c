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
 *
 * When croute builds the multicast trees itself (mcast.c, the default),
 * only the dumps read the rows: they are written only when OpenSM will
 * write its routing dumps (log flag 0x40), else the install is the LFTs.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin.h"
#include "err.h"

#include <croute/route/incremental.h>
#include <croute/model/log.h>
#include <croute/model/parallel.h>

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
 * Per LID: the hop row that stands for it (the switch's own LID, or the
 * base LID of the switch a CA port is cabled to), as a slot among the
 * rows, and whether the path to the LID takes one hop more (a CA).
 */
struct hop_target {
	uint16_t slot; /* 0: no row, else 1 + index into hop_rows.lid */
	uint8_t extra;
};

struct hop_rows {
	struct hop_target *tg; /* [lid] */
	uint16_t *lid; /* [slot - 1]: the row's LID */
	uint32_t n;
	unsigned width; /* the most ports of a switch, port 0 included */
};

static void hop_rows_free(struct hop_rows *h)
{
	free(h->tg);
	free(h->lid);
}

static int hop_rows_init(struct hop_rows *h, const struct cr_fabric *f)
{
	size_t nl = (size_t)f->max_lid + 1;
	uint32_t *slot_of = calloc(nl, sizeof(*slot_of));

	h->tg = calloc(nl, sizeof(*h->tg));
	h->lid = malloc(nl * sizeof(*h->lid));
	h->n = 0;
	h->width = 1;
	if (!slot_of || !h->tg || !h->lid) {
		free(slot_of);
		return -1;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (f->nodes[f->switches[s]].num_ports + 1u > h->width)
			h->width = f->nodes[f->switches[s]].num_ports + 1u;
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t s = cr_lid_switch(f, (uint16_t)lid, NULL);
		uint16_t row;

		if (s == CR_NO_NODE)
			continue;
		h->tg[lid].extra = f->lid_node[lid] != s;
		/* A switch LID's own row, whatever its LMC. */
		row = h->tg[lid].extra ? f->nodes[s].ports[0].lid
				       : (uint16_t)lid;
		h->tg[lid].slot = row;
		if (row)
			slot_of[row] = 1;
	}
	/*
	 * Slots in LID order: a switch's rows are then handed over walking
	 * its array of row pointers (switches x LIDs x 8 bytes in all) from
	 * one end to the other, not at random.
	 */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (slot_of[lid]) {
			h->lid[h->n] = (uint16_t)lid;
			slot_of[lid] = ++h->n;
		}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (h->tg[lid].slot)
			h->tg[lid].slot = (uint16_t)slot_of[h->tg[lid].slot];
	free(slot_of);
	return 0;
}

/*
 * The largest entry + 1 of a stretch of an LFT (CR_NO_PATH wraps to 0), so
 * that one comparison with the port count checks the stretch. The fixed
 * inner block lets the compiler use vector instructions at -O2, which a
 * byte loop with an early exit does not get; the LFTs it checks are 88 MB
 * on 27,648 hosts.
 */
static uint8_t top_port1(const uint8_t *a, size_t n)
{
	uint8_t m = 0;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		uint8_t b[64];

		for (unsigned k = 0; k < 64; k++)
			b[k] = (uint8_t)(a[i + k] + 1);
		for (unsigned k = 0; k < 64; k++)
			m = b[k] > m ? b[k] : m;
	}
	for (; i < n; i++) {
		uint8_t v = (uint8_t)(a[i] + 1);

		m = v > m ? v : m;
	}
	return m;
}

static uint64_t differ(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint64_t c = 0;

	if (!memcmp(a, b, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		c += a[i] != b[i];
	return c;
}

/* Entries of a's stretch that are not CR_NO_PATH. */
static uint64_t routed(const uint8_t *a, size_t n)
{
	uint64_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += a[i] != CR_NO_PATH;
	return c;
}

#define LFT_CHUNK 4096

/*
 * Checks one switch's LFT and copies it into new_lft, a stretch at a time
 * so that the row comes from memory once; with churn, counts the entries
 * that differ from what the switch holds (lft, as the switches confirmed
 * it; a switch new to OpenSM holds none) in the same pass.
 */
static int put_lft(osm_switch_t *sw, const uint8_t *lft, unsigned max_lid,
		   unsigned *top, uint64_t *churn)
{
	const uint8_t *old;
	unsigned t = max_lid, held;
	uint64_t c = 0;

	if (!sw || !sw->new_lft || !sw->hops)
		return -1;
	old = churn ? sw->lft : NULL;
	held = old ? sw->lft_size : 1;
	/* new_lft holds lft_size entries; OpenSM uses max_lid_ho. */
	if (t > sw->max_lid_ho)
		t = sw->max_lid_ho;
	if (t >= sw->lft_size)
		t = sw->lft_size - 1u;
	for (unsigned lid = t + 1; lid <= max_lid; lid++) {
		if (lft[lid] == CR_NO_PATH)
			continue;
		pl_err("CR1C",
		       "switch 0x%016" PRIx64 ": LID %u is beyond its table"
		       " (top %u, %u entries)",
		       sw_guid(sw), lid, sw->max_lid_ho, sw->lft_size);
		return -2;
	}
	for (unsigned lid = 1; lid <= t; lid += LFT_CHUNK) {
		unsigned n = t + 1 - lid < LFT_CHUNK ? t + 1 - lid : LFT_CHUNK;
		unsigned m = lid < held ? (held - lid < n ? held - lid : n) : 0;

		if (top_port1(lft + lid, n) > sw->num_ports) {
			for (unsigned l = lid; l < lid + n; l++) {
				if (lft[l] == CR_NO_PATH ||
				    lft[l] < sw->num_ports)
					continue;
				pl_err("CR1D",
				       "switch 0x%016" PRIx64 ": LID %u routed"
				       " to port %u of %u",
				       sw_guid(sw), l, lft[l],
				       sw->num_ports - 1u);
				break;
			}
			return -2;
		}
		/* Both use 255 for no path. */
		memcpy(sw->new_lft + lid, lft + lid, n);
		if (!churn)
			continue;
		c += differ(lft + lid, old ? old + lid : lft + lid, m);
		c += routed(lft + lid + m, n - m);
	}
	/* Past the top, entries the switch holds go. */
	for (unsigned lid = t + 1; churn && lid <= max_lid && lid < held; lid++)
		c += old[lid] != CR_NO_PATH;
	*top = t;
	if (churn)
		*churn += c;
	return 0;
}

/*
 * OpenSM's array of row pointers is fresh memory on a first sweep (its
 * malloc and memset of zeros become a calloc). Reading a pointer there
 * first maps the shared zero page, and writing it next copies the page
 * and flushes the TLB of every CPU running opensm: an interrupt to the
 * other core per 4 KB page, most of the install's time on 27,648 hosts
 * (2 cores, with the rows in LID order). A write first (an atomic add of
 * 0 leaves the pointer as it is) gets the page directly; and where OpenSM
 * has read the array already (the zero page is mapped), writing it from
 * one thread, before the install's threads start, flushes no other CPU.
 */
static void touch_rows(osm_switch_t *sw, const struct hop_rows *hr)
{
	uint32_t top;

	if (!hr->n)
		return;
	top = hr->lid[hr->n - 1] < sw->max_lid_ho ? hr->lid[hr->n - 1]
						  : sw->max_lid_ho;
	for (uint32_t lid = hr->lid[0]; lid <= top; lid += 512)
		__atomic_fetch_add(&sw->hops[lid], 0, __ATOMIC_RELAXED);
	if (hr->lid[0] <= top)
		__atomic_fetch_add(&sw->hops[top], 0, __ATOMIC_RELAXED);
}

/*
 * One switch's hop rows, see the top of this file, from its hop counts
 * h[lid] for LIDs 1..last: first gathered in buf (a row of width bytes per
 * slot, in cache), then handed to OpenSM one allocation per row. What is
 * left is what osm_switch_set_hops would leave: every port its lowest
 * count, port 0 the lowest of the row. OpenSM frees the rows one by one
 * and keeps them across sweeps, only clearing them: a kept row is reused.
 */
static int put_hops(osm_switch_t *sw, const uint8_t *lft, const uint8_t *h,
		    uint32_t last, const struct hop_rows *hr, uint8_t *buf)
{
	unsigned w = hr->width, np = sw->num_ports;

	memset(buf, OSM_NO_PATH, (size_t)hr->n * w);
	for (uint32_t lid = 1; lid <= last; lid++) {
		uint8_t port = lft[lid], hl = h[lid], n, *b;
		struct hop_target t = hr->tg[lid];

		if (port == CR_NO_PATH || hl == CR_NO_PATH || !t.slot)
			continue;
		/* A CA on this very switch: its switch's port-0 row. */
		if (t.extra && hl <= 1)
			continue;
		n = hl - t.extra;
		b = buf + (size_t)(t.slot - 1) * w;
		if (b[port] > n)
			b[port] = n;
		if (b[0] > n)
			b[0] = n;
	}
	for (uint32_t i = 0; i < hr->n; i++) {
		const uint8_t *b = buf + (size_t)i * w;
		uint16_t row = hr->lid[i];
		uint8_t *o;

		/* Port 0 holds the row's lowest count: none, no row. */
		if (b[0] == OSM_NO_PATH || row > sw->max_lid_ho)
			continue;
		o = sw->hops[row];
		if (!o) {
			o = malloc(np);
			if (!o)
				return -1;
			memcpy(o, b, np);
			sw->hops[row] = o;
			continue;
		}
		/*
		 * Port 0 holds a row's lowest count, so a row OpenSM cleared
		 * (every sweep does) takes b as it is. Else b[0] is already
		 * b's lowest, so port by port is enough: port 0 ends as the
		 * lowest of both rows, as set_hops would leave it.
		 */
		if (o[0] == OSM_NO_PATH) {
			memcpy(o, b, np);
			continue;
		}
		for (unsigned p = 0; p < np; p++)
			if (o[p] > b[p])
				o[p] = b[p];
	}
	return 0;
}

struct export_job {
	const struct cr_fabric *f;
	const struct cr_routing *r;
	osm_switch_t *const *sws;
	unsigned *top; /* per switch: the last LID put into new_lft */
	uint64_t *churn; /* per part, or NULL: not counted */
	const uint8_t *hops; /* [switch index * (max_lid + 1) + lid] */
	const struct hop_rows *hr;
	uint8_t **buf; /* per part: hr->n * hr->width bytes */
	/* A repair's counts: hops (the base's) but for lids[i], in cnt. */
	const uint16_t *lids;
	uint32_t nlids;
	const uint8_t *cnt; /* [switch index * nlids + i] */
	uint8_t **row; /* per part: max_lid + 1 bytes */
};

/* Switches are independent: each part installs a range of them. */
static int lft_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		     uint32_t end)
{
	const struct export_job *j = arg;
	const struct cr_fabric *f = j->f;

	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		int err = put_lft(j->sws[s], j->r->lft[f->switches[s]],
				  f->max_lid, &j->top[s],
				  j->churn ? &j->churn[part] : NULL);

		if (err == -1) {
			char la[CR_NODE_LABEL_MAX];

			pl_err("CR1E",
			       "switch %s was not prepared for routing by"
			       " OpenSM",
			       cr_node_label(f, f->switches[s], 0, la,
					     sizeof(la)));
		}
		if (err)
			return -1;
	}
	return 0;
}

/* A switch's hop rows are its own, so switches are installed in parallel. */
static int hops_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	const struct export_job *j = arg;
	const struct cr_fabric *f = j->f;
	size_t row = (size_t)f->max_lid + 1;

	(void)nparts;
	for (uint32_t s = begin; s < end; s++) {
		osm_switch_t *sw = j->sws[s];
		const uint8_t *h = j->hops + s * row;

		if (j->nlids) {
			uint8_t *p = j->row[part];

			memcpy(p, h, row);
			for (uint32_t i = 0; i < j->nlids; i++)
				p[j->lids[i]] =
					j->cnt[(size_t)s * j->nlids + i];
			h = p;
		}
		if (put_hops(sw, j->r->lft[f->switches[s]], h, j->top[s], j->hr,
			     j->buf[part])) {
			pl_err("CR1F",
			       "switch 0x%016" PRIx64 ": cannot set its hop"
			       " counts",
			       sw_guid(sw));
			return -1;
		}
	}
	return 0;
}

/*
 * A repair (croute_incremental) and its base: the same nodes, switches
 * and LIDs, only links differ. Then hop counts toward a LID can only
 * differ where its LFT column does, or where its walk crosses a switch
 * port whose link changed (its entry there names that port).
 */
static bool same_nodes(const struct cr_fabric *f, const struct cr_routing *r,
		       const struct cr_fabric *bf, const struct cr_routing *br)
{
	if (f->num_nodes != bf->num_nodes ||
	    f->num_switches != bf->num_switches || f->max_lid != bf->max_lid ||
	    r->max_lid != f->max_lid || br->max_lid != f->max_lid ||
	    memcmp(f->lid_node, bf->lid_node,
		   ((size_t)f->max_lid + 1) * sizeof(*f->lid_node)))
		return false;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct cr_node *a = &f->nodes[f->switches[s]];
		const struct cr_node *b = &bf->nodes[bf->switches[s]];

		if (f->switches[s] != bf->switches[s] || a->guid != b->guid ||
		    a->num_ports != b->num_ports || !r->lft[f->switches[s]] ||
		    !br->lft[f->switches[s]])
			return false;
	}
	return true;
}

struct mark_job {
	const struct cr_fabric *f;
	const struct cr_routing *r, *br;
	uint8_t *mark; /* [lid] */
};

/* LIDs whose column differs from the base's, a range of LIDs per part. */
static int mark_range(void *arg, unsigned part, unsigned nparts, uint32_t begin,
		      uint32_t end)
{
	const struct mark_job *m = arg;
	const struct cr_fabric *f = m->f;

	(void)part;
	(void)nparts;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const uint8_t *a = m->r->lft[f->switches[s]];
		const uint8_t *b = m->br->lft[f->switches[s]];

		if (!memcmp(a + begin, b + begin, end - begin))
			continue;
		for (uint32_t lid = begin; lid < end; lid++)
			if (a[lid] != b[lid])
				m->mark[lid] = 1;
	}
	return 0;
}

/*
 * 1: the base's counts serve, but for the n LIDs in lids (ascending),
 * whose counts are in cnt ([switch index * n + i]); 0: they do not (other
 * nodes, or more than half the LIDs changed), count them all; -1: out of
 * memory.
 */
static int repair_counts(const struct cr_fabric *f, const struct cr_routing *r,
			 const struct cr_incr_base *base, uint16_t **lids,
			 uint32_t *n, uint8_t **cnt)
{
	const struct cr_fabric *bf = cr_incr_base_fabric(base);
	const struct cr_routing *br = cr_incr_base_routing(base);
	size_t nl = (size_t)f->max_lid + 1;
	struct mark_job m = {.f = f, .r = r, .br = br};
	struct cr_hop_ctx *ctx = NULL;
	uint32_t k = 0;

	*n = 0;
	*lids = NULL;
	*cnt = NULL;
	if (!same_nodes(f, r, bf, br))
		return 0;
	m.mark = calloc(nl, 1);
	if (!m.mark)
		return -1;
	cr_parallel((uint32_t)nl, cr_parallel_parts((uint32_t)nl, 4096),
		    mark_range, &m);
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t node = f->switches[s];
		const struct cr_node *a = &f->nodes[node];
		const struct cr_node *b = &bf->nodes[node];

		for (unsigned p = 1; p <= a->num_ports; p++) {
			if (a->ports[p].remote == b->ports[p].remote &&
			    a->ports[p].remote_port == b->ports[p].remote_port)
				continue;
			for (uint32_t lid = 1; lid < nl; lid++)
				if (r->lft[node][lid] == p ||
				    br->lft[node][lid] == p)
					m.mark[lid] = 1;
		}
	}
	for (uint32_t lid = 1; lid < nl; lid++)
		k += m.mark[lid];
	if (!k || k > nl / 2) {
		/* none: the base's table as it is; many: all of it anew */
		free(m.mark);
		return k ? 0 : 1;
	}
	*lids = malloc(k * sizeof(**lids));
	*cnt = malloc((size_t)k * f->num_switches + 1);
	ctx = cr_hop_ctx_new(f, r);
	if (!*lids || !*cnt || !ctx)
		goto fail;
	for (uint32_t lid = 1; lid < nl; lid++)
		if (m.mark[lid])
			(*lids)[(*n)++] = (uint16_t)lid;
	if (cr_hop_ctx_lids(ctx, *lids, *n, *cnt, *n))
		goto fail;
	cr_hop_ctx_free(ctx);
	free(m.mark);
	return 1;
fail:
	cr_hop_ctx_free(ctx);
	free(m.mark);
	free(*lids);
	free(*cnt);
	*lids = NULL;
	*cnt = NULL;
	*n = 0;
	return -1;
}

static double ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

/*
 * The hop table is whole (num_switches x (max_lid + 1) bytes: 88 MB on
 * 27,648 hosts, for the length of the install) so that each switch's rows
 * are built in cache and each row is written once. Going LID range by LID
 * range instead touches a row per LID per switch wherever OpenSM put its
 * LIDs (88 million rows in OpenSM's memory, not 8 million). The table is
 * gone before the install ends, well below opensm's peak, which comes
 * later in the sweep; with croute_incremental the base (the latest full
 * run) keeps its table, and a repair of it computes only the LIDs whose
 * counts may have changed.
 */
int cr_export(osm_opensm_t *osm, const struct cr_fabric *f,
	      const struct cr_routing *r, osm_switch_t *const *sws,
	      struct cr_incr_base *base, bool repaired, bool want_hops,
	      uint64_t *churn)
{
	uint32_t ns = f->num_switches;
	unsigned nparts = cr_parallel_chunks(ns, 64);
	uint64_t counts[CR_MAX_THREADS] = {0};
	struct export_job j = {.f = f, .r = r, .sws = sws};
	struct hop_rows hr = {0};
	struct timespec t0, t1, t2;
	uint8_t *hops = NULL, *cnt = NULL;
	uint16_t *lids = NULL;
	int ret = -1, reuse = 0;

	(void)osm;
	j.top = calloc(ns + 1, sizeof(*j.top));
	j.buf = calloc(nparts, sizeof(*j.buf));
	j.row = calloc(nparts, sizeof(*j.row));
	if (!j.top || !j.buf || !j.row || (want_hops && hop_rows_init(&hr, f)))
		goto oom;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	j.churn = churn ? counts : NULL;
	if (cr_parallel(ns, nparts, lft_range, &j))
		goto out;
	for (unsigned i = 0; churn && i < nparts; i++)
		*churn += counts[i];
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!want_hops) {
		cr_verbose("install: LFTs %.1f ms, no hop rows (croute builds"
			   " the multicast trees, no routing dump asked for)",
			   ms(&t0, &t1));
		ret = 0;
		goto out;
	}
	for (unsigned i = 0; i < nparts; i++)
		if (!(j.buf[i] = malloc((size_t)hr.n * hr.width + 1)))
			goto oom;
	/* Hop counts of the paths the LFTs really take, not estimates. */
	if (repaired && base && cr_incr_base_hops(base)) {
		reuse = repair_counts(f, r, base, &lids, &j.nlids, &cnt);
		if (reuse < 0)
			goto oom;
	}
	if (reuse) {
		j.hops = cr_incr_base_hops(base);
		j.lids = lids;
		j.cnt = cnt;
		for (unsigned i = 0; j.nlids && i < nparts; i++)
			if (!(j.row[i] = malloc((size_t)f->max_lid + 1)))
				goto oom;
	} else {
		hops = malloc((size_t)ns * ((size_t)f->max_lid + 1) + 1);
		if (!hops)
			goto oom;
		if (cr_routing_hop_table(f, r, hops))
			goto out;
		j.hops = hops;
	}
	j.hr = &hr;
	for (uint32_t s = 0; s < ns; s++)
		touch_rows(sws[s], &hr);
	if (cr_parallel(ns, nparts, hops_range, &j))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t2);
	cr_verbose("install: LFTs %.1f ms, hop rows %.1f ms (%s)", ms(&t0, &t1),
		   ms(&t1, &t2),
		   reuse ? "the base's counts, some LIDs anew" : "all counted");
	if (reuse)
		cr_verbose("install: hop counts of %u LIDs counted again",
			   j.nlids);
	/* A full run that became the base: its repairs start from these. */
	if (!repaired && base && hops) {
		cr_incr_base_keep_hops(base, hops);
		hops = NULL;
	}
	ret = 0;
	goto out;
oom:
	pl_err("CR20", "out of memory exporting the LFTs");
out:
	for (unsigned i = 0; j.buf && i < nparts; i++)
		free(j.buf[i]);
	for (unsigned i = 0; j.row && i < nparts; i++)
		free(j.row[i]);
	free(j.buf);
	free(j.row);
	free(j.top);
	free(lids);
	free(cnt);
	hop_rows_free(&hr);
	free(hops);
	return ret;
}
