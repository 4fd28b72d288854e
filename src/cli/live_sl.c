// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --live's layers: the path SLs and the switches' SL2VL tables of the
 * routing in place, so that check judges a layered routing (cr-lash,
 * OpenSM's lash and dfsssp, under QoS) per VL as it does from croute's
 * lash dumps, not all of it on VL 0.
 *
 * Switches hold no SLs: the SA answers them, one PathRecord per source
 * LID of a CA and destination LID (dfsssp picks an SL per source LID, and
 * spreads paths over spare VLs at random, so one answer is one of the SLs
 * the path may take). That is (CA LIDs) x (LIDs) SA queries, which is
 * why, unless --live-sl all is given, a first round asks only the paths
 * from the local port (one per LID) and the rest is asked only when one
 * of them is not on SL 0. The SL2VL tables are read where they matter,
 * between two switches: an SMP per pair of switch-cabled ports.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#ifdef HAVE_LIVE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <croute/io/lash.h>
#include <croute/model/log.h>

#include "cli.h"
#include "live.h"
#include "progress.h"

/* PathRecord ComponentMask bits (IBA 15.2.5.16). */
#define PR_COMP_DLID (1ull << 4)
#define PR_COMP_SLID (1ull << 5)

/*
 * The progress of a long series of MADs, as read_lfts shows it: the line
 * with the time left on a terminal (progress.c), else a log line at each
 * tenth of a long series.
 */
struct progress {
	const char *what;
	uint64_t done, total;
	struct cli_progress *line; /* started at the first step */
};

static void progress_step(struct progress *p)
{
	if (!p->done++)
		p->line = cli_progress_start(p->what, p->total);
	cli_progress_set(p->line, p->done);
	if (!p->line && p->total >= 1000 && p->done % (p->total / 10) == 0)
		cr_info("%s: %" PRIu64 " of %" PRIu64, p->what, p->done,
			p->total);
}

static void progress_end(struct progress *p)
{
	cli_progress_end(p->line);
	p->line = NULL;
}

/* The SL the SA gives the path from slid to dlid, or -1. */
static int path_sl(struct ibmad_port *mad, ib_portid_t *sm, uint16_t slid,
		   uint16_t dlid)
{
	ib_sa_call_t sa = {0};
	uint8_t buf[IB_SA_DATA_SIZE] = {0};
	unsigned v;

	sa.method = IB_MAD_METHOD_GET;
	sa.attrid = IB_SA_ATTR_PATHRECORD;
	sa.mask = PR_COMP_SLID | PR_COMP_DLID;
	sa.trid = mad_trid();
	v = slid;
	mad_encode_field(buf, IB_SA_PR_SLID_F, &v);
	v = dlid;
	mad_encode_field(buf, IB_SA_PR_DLID_F, &v);
	if (!sa_rpc_call(mad, buf, sm, &sa, 0))
		return -1;
	return (int)mad_get_field(buf, 0, IB_SA_PR_SL_F);
}

/* Whether slid and dlid are LIDs of one port (no path between them). */
static bool same_port(const struct cr_fabric *f, uint16_t a, uint16_t b)
{
	return f->lid_node[a] == f->lid_node[b] &&
	       f->lid_port[a] == f->lid_port[b];
}

struct sl_query {
	struct ibmad_port *mad;
	ib_portid_t sm;
	const struct cr_fabric *f;
	struct cr_routing *r;
	uint64_t answered, failed;
	uint16_t first_failed[2];
};

/*
 * Every path from slid: its SL into sl_set[source switch][dlid]. -1 when
 * the SA has answered nothing yet and fails: it is not there, and each
 * further query would wait for its timeout too.
 */
static int query_source(struct sl_query *q, uint16_t slid, struct progress *p,
			bool *nonzero)
{
	const struct cr_fabric *f = q->f;
	uint32_t sw = cr_lid_switch(f, slid, NULL);

	for (uint32_t dlid = 1; dlid <= f->max_lid; dlid++) {
		int sl;

		if (f->lid_node[dlid] == CR_NO_NODE ||
		    same_port(f, slid, (uint16_t)dlid))
			continue;
		sl = path_sl(q->mad, &q->sm, slid, (uint16_t)dlid);
		progress_step(p);
		if (sl < 0) {
			if (!q->answered)
				return -1;
			if (!q->failed++) {
				q->first_failed[0] = slid;
				q->first_failed[1] = (uint16_t)dlid;
			}
			continue;
		}
		q->answered++;
		if (sl)
			*nonzero = true;
		if (sw != CR_NO_NODE && q->r->sl_set[sw])
			q->r->sl_set[sw][dlid] |= (uint16_t)(1u << (sl & 15));
	}
	return 0;
}

/*
 * Whether the SA is asked the paths from slid: those of CAs and routers.
 * A switch's own traffic takes no SL from PathRecords (SMPs go on VL 15,
 * outside credit flow control; its GMP replies and traps use the SL of
 * the request or of PortInfo:MasterSMSL), and dfsssp leaves switch
 * sources out of its deadlock removal while its SA still answers them.
 */
static bool is_source(const struct cr_fabric *f, uint16_t slid)
{
	uint32_t n = f->lid_node[slid];

	return n != CR_NO_NODE && !cr_is_switch(f, n);
}

/* The LIDs of slid's port (2^LMC). */
static uint64_t port_lids(const struct cr_fabric *f, uint16_t slid)
{
	return 1ull << f->nodes[f->lid_node[slid]].ports[f->lid_port[slid]].lmc;
}

static uint64_t lids_in_use(const struct cr_fabric *f)
{
	uint64_t n = 0;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		n += f->lid_node[lid] != CR_NO_NODE;
	return n;
}

/* The PathRecords of every source LID: the cost of --live-sl all. */
static uint64_t all_pairs(const struct cr_fabric *f, uint64_t lids)
{
	uint64_t n = 0;

	for (uint32_t slid = 1; slid <= f->max_lid; slid++)
		if (is_source(f, (uint16_t)slid))
			n += lids - port_lids(f, (uint16_t)slid);
	return n;
}

/*
 * The path SLs into r->sl_set. Returns 1 when read, 0 when not (auto
 * mode, every path from the local port on SL 0: said), -1 on an error.
 */
static int read_path_sls(struct sl_query *q, enum cli_live_sl mode,
			 uint16_t my_lid)
{
	const struct cr_fabric *f = q->f;
	uint64_t lids = lids_in_use(f);
	struct progress p = {0};
	bool nonzero = false;

	if (mode == CLI_LIVE_SL_AUTO) {
		if (!my_lid || f->lid_node[my_lid] == CR_NO_NODE) {
			cr_note("live: the local port's LID %u is not in the"
				" fabric: no path SLs read (--live-sl all)",
				my_lid);
			return 0;
		}
		p.what = "live: path SLs from this port";
		p.total = lids - port_lids(f, my_lid);
		if (query_source(q, my_lid, &p, &nonzero)) {
			progress_end(&p);
			cr_note("live: the SA at LID %d answers no PathRecord"
				" (is the subnet manager running?): no path SLs"
				" read",
				q->sm.lid);
			return 0;
		}
		progress_end(&p);
		if (!nonzero) {
			cr_note("live: every path from this port is on SL 0:"
				" no further PathRecords asked (--live-sl all"
				" asks all %" PRIu64 ")",
				all_pairs(f, lids));
			return 0;
		}
	}
	memset(&p, 0, sizeof(p));
	p.what = "live: path SLs";
	p.total = all_pairs(f, lids);
	q->failed = 0;
	for (uint32_t n = 0; n < f->num_switches; n++)
		memset(q->r->sl_set[f->switches[n]], 0,
		       ((size_t)q->r->max_lid + 1) * sizeof(uint16_t));
	if (cli_verbosity >= CR_LOG_NOTE)
		fprintf(stderr,
			"croute: asking the SA for %" PRIu64 " PathRecords (one"
			" per CA LID and destination LID; --live-sl none"
			" skips them)\n",
			p.total);
	for (uint32_t slid = 1; slid <= f->max_lid; slid++) {
		if (is_source(f, (uint16_t)slid) &&
		    query_source(q, (uint16_t)slid, &p, &nonzero))
			break;
	}
	progress_end(&p);
	if (!q->answered) {
		cr_err("live: the SA at LID %d answers no PathRecord (is the"
		       " subnet manager running? --live-sl none reads no SLs)",
		       q->sm.lid);
		return -1;
	}
	if (q->failed)
		cr_note("live: %" PRIu64 " of %" PRIu64 " PathRecords were"
			" not given (the first: LID %u to %u); those paths"
			" are left out of the credit-loop check",
			q->failed, p.total, q->first_failed[0],
			q->first_failed[1]);
	return 1;
}

/* Whether port p of switch node n leads to a switch. */
static bool to_switch(const struct cr_fabric *f, uint32_t n, unsigned p)
{
	uint32_t m = f->nodes[n].ports[p].remote;

	return m != CR_NO_NODE && cr_is_switch(f, m);
}

/*
 * The SL2VL tables between switch ports into r->sl2vl: croute models one
 * table, so they must all agree (as the files' reader demands).
 */
static int read_sl2vl(struct ibmad_port *mad, ibnd_fabric_t *fab,
		      const struct cr_fabric *f, struct cr_lash_sl2vl *t)
{
	struct progress p = {.what = "live: SL2VL tables"};
	char name[CR_NODE_LABEL_MAX];

	for (ibnd_node_t *n = fab->nodes; n; n = n->next) {
		uint32_t sw = cr_fabric_find_guid(f, n->guid);

		if (n->type != IB_NODE_SWITCH || sw == CR_NO_NODE)
			continue;
		for (unsigned in = 1; in <= f->nodes[sw].num_ports; in++)
			for (unsigned out = 1; out <= f->nodes[sw].num_ports;
			     out++)
				p.total += to_switch(f, sw, in) &&
					   to_switch(f, sw, out);
	}
	for (ibnd_node_t *n = fab->nodes; n; n = n->next) {
		uint32_t sw = cr_fabric_find_guid(f, n->guid);
		unsigned np;

		if (n->type != IB_NODE_SWITCH || sw == CR_NO_NODE)
			continue;
		np = f->nodes[sw].num_ports;
		for (unsigned in = 1; in <= np; in++) {
			for (unsigned out = 1; out <= np; out++) {
				uint8_t d[IB_SMP_DATA_SIZE] = {0}, vl[16];

				if (!to_switch(f, sw, in) ||
				    !to_switch(f, sw, out))
					continue;
				if (!smp_query_via(d, &n->path_portid,
						   IB_ATTR_SLVL_TABLE,
						   (in << 8) | out, 0, mad)) {
					progress_end(&p);
					cr_err("live: %s: cannot read the SL2VL"
					       " table from port %u to %u",
					       cr_node_label(f, sw, 0, name,
							     sizeof(name)),
					       in, out);
					return -1;
				}
				progress_step(&p);
				for (unsigned i = 0; i < 8; i++) {
					vl[2 * i] = d[i] >> 4;
					vl[2 * i + 1] = d[i] & 15;
				}
				if (cr_lash_sl2vl_add(t, vl)) {
					progress_end(&p);
					cr_err("live: %s: the SL2VL table from"
					       " port %u to %u differs from the"
					       " first one; croute models one"
					       " table",
					       cr_node_label(f, sw, 0, name,
							     sizeof(name)),
					       in, out);
					return -1;
				}
			}
		}
	}
	progress_end(&p);
	return 0;
}

/*
 * r->sl (the lowest SL of each set, for what reads one SL), the SL2VL
 * table and the layer count. r->sl_set stays, even where no switch has
 * two SLs toward a LID: a switch without CAs asked has no SL at all (its
 * own traffic takes none from the SA), which r->sl cannot say.
 */
static int settle(const struct cr_fabric *f, struct cr_routing *r,
		  const struct cr_lash_sl2vl *t)
{
	if (cr_routing_alloc_sl(f, r))
		return -1;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sw = f->switches[s];

		for (uint32_t lid = 0; lid <= r->max_lid; lid++)
			if (r->sl_set[sw][lid])
				r->sl[sw][lid] = (uint8_t)__builtin_ctz(
					r->sl_set[sw][lid]);
	}
	cr_lash_layers_done(f, r, t);
	return 0;
}

int cli_live_read_sls(struct ibmad_port *mad, ibnd_fabric_t *fab,
		      const struct cr_fabric *f, struct cr_routing *r,
		      enum cli_live_sl mode)
{
	struct sl_query q = {.mad = mad, .f = f, .r = r};
	struct cr_lash_sl2vl t = {0};
	uint8_t pi[IB_SMP_DATA_SIZE] = {0};
	ib_portid_t self = {0};
	uint16_t my_lid;
	int got;

	if (mode == CLI_LIVE_SL_NONE)
		return 0;
	/* The local port's PortInfo: its LID, and the SM's. */
	if (!smp_query_via(pi, &self, IB_ATTR_PORT_INFO, 0, 0, mad)) {
		cr_err("live: cannot read the local port's PortInfo");
		return -1;
	}
	my_lid = (uint16_t)mad_get_field(pi, 0, IB_PORT_LID_F);
	if (ib_resolve_smlid_via(&q.sm, 0, mad) < 0 || !q.sm.lid) {
		if (mode == CLI_LIVE_SL_ALL) {
			cr_err("live: no SM LID: no SA to ask path SLs");
			return -1;
		}
		cr_note("live: no SM LID: no path SLs read");
		return 0;
	}
	if (cr_routing_alloc_sl_set(f, r))
		return -1;
	got = read_path_sls(&q, mode, my_lid);
	if (got <= 0 || read_sl2vl(mad, fab, f, &t) || settle(f, r, &t)) {
		for (uint32_t n = 0; n < r->num_nodes; n++)
			free(r->sl_set[n]);
		free(r->sl_set);
		r->sl_set = NULL;
		return got == 0 ? 0 : -1;
	}
	return 0;
}
#endif
