// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --live: the fabric as it is now, through infiniband-diags' libraries.
 * libibnetdisc discovers it (what ibnetdiscover prints) and libibmad reads
 * every switch's installed LFT block by block over its directed route
 * (what dump_fts prints), so the topology and the tables are taken the way
 * the offline files would have been written. Command only: libcroute.so
 * never links these libraries.
 *
 * Cost: one SwitchInfo-cached discovery (libibnetdisc's MADs), then
 * ceil((LinearFDBTop + 1) / 64) SMPs per switch; the layers (path SLs and
 * SL2VL tables, live_sl.c) cost more and are read only where they count.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <croute/log.h>
#include <croute/topo.h>

#include <croute/guidmap.h>

#include "cli.h"

#ifdef HAVE_LIVE
#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "live.h"
#include "progress.h"

#define CAP_EXT_SPEEDS (1u << 14) /* PortInfo:CapabilityMask */

static uint8_t width_of(unsigned w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	}
	return 0;
}

/* The active lane speed, extended speeds first, as ibnetdiscover prints. */
static enum cr_speed speed_of(ibnd_port_t *port)
{
	ibnd_node_t *node = port->node;
	uint8_t *cap_info = port->info;
	unsigned ext = 0, s;

	if (node->type == IB_NODE_SWITCH && node->ports[0])
		cap_info = node->ports[0]->info;
	if (mad_get_field(cap_info, 0, IB_PORT_CAPMASK_F) & CAP_EXT_SPEEDS)
		ext = mad_get_field(port->info, 0,
				    IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
#if HAVE_DECL_IB_PORT_LINK_SPEED_EXT_ACTIVE_2_F
	/* XDR has a field of its own, zero where the port lacks it. */
	if (mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_2_F) ==
	    1)
		return CR_SPEED_XDR;
#endif
	switch (ext) {
	case 1:
		return CR_SPEED_FDR;
	case 2:
		return CR_SPEED_EDR;
	case 4:
		return CR_SPEED_HDR;
	case 8:
		return CR_SPEED_NDR;
	}
	s = mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	return s == 1	? CR_SPEED_SDR
	       : s == 2 ? CR_SPEED_DDR
	       : s == 4 ? CR_SPEED_QDR
			: CR_SPEED_UNKNOWN;
}

static enum cr_node_type type_of(int t)
{
	return t == IB_NODE_SWITCH   ? CR_NODE_SWITCH
	       : t == IB_NODE_CA     ? CR_NODE_CA
	       : t == IB_NODE_ROUTER ? CR_NODE_ROUTER
				     : 0;
}

/* The model of the discovered fabric, in node GUID order, finalized. */
static struct cr_fabric *build(ibnd_fabric_t *fab)
{
	struct cr_fabric *f = cr_fabric_new();
	struct cr_guidmap idx = {0};
	size_t count = 0;

	for (ibnd_node_t *n = fab->nodes; n; n = n->next)
		count++;
	if (!f || cr_guidmap_init(&idx, count))
		goto oom;
	for (ibnd_node_t *n = fab->nodes; n; n = n->next) {
		char desc[IB_SMP_DATA_SIZE + 1];
		enum cr_node_type t = type_of(n->type);
		uint32_t i;

		if (!t) {
			cr_err("live: node 0x%016" PRIx64 " has unknown type"
			       " %d",
			       n->guid, n->type);
			goto fail;
		}
		snprintf(desc, sizeof(desc), "%s", n->nodedesc);
		i = cr_fabric_add_node(f, t, n->guid, n->numports, desc);
		if (i == CR_NO_NODE)
			goto fail;
		if (cr_guidmap_put(&idx, n->guid, i) < 0)
			goto oom;
		f->nodes[i].sysimg_guid =
			mad_get_field64(n->info, 0, IB_NODE_SYSTEM_GUID_F);
		if (t == CR_NODE_SWITCH) {
			f->nodes[i].ports[0].lid = n->smalid;
			f->nodes[i].ports[0].lmc = n->smalmc;
			continue;
		}
		for (int p = 1; p <= n->numports; p++) {
			ibnd_port_t *port = n->ports[p];

			if (!port)
				continue;
			f->nodes[i].ports[p].guid = port->guid;
			f->nodes[i].ports[p].lid = port->base_lid;
			f->nodes[i].ports[p].lmc = port->lmc;
		}
	}
	for (ibnd_node_t *n = fab->nodes; n; n = n->next) {
		uint32_t a = cr_guidmap_get(&idx, n->guid);

		for (int p = 1; p <= n->numports; p++) {
			ibnd_port_t *port = n->ports[p], *rp;
			uint32_t b;

			if (!port || !(rp = port->remoteport))
				continue;
			b = cr_guidmap_get(&idx, rp->node->guid);
			if (b == CR_GUIDMAP_NONE)
				continue;
			/* Each link once, from its lower end. */
			if (b < a || (b == a && rp->portnum < p))
				continue;
			if (cr_fabric_link(f, a, p, b, rp->portnum))
				goto fail;
			f->nodes[a].ports[p].width =
				f->nodes[b].ports[rp->portnum].width =
					width_of(mad_get_field(
						port->info, 0,
						IB_PORT_LINK_WIDTH_ACTIVE_F));
			f->nodes[a].ports[p].speed =
				f->nodes[b].ports[rp->portnum].speed =
					speed_of(port);
		}
	}
	cr_guidmap_release(&idx);
	if (cr_fabric_sort_by_guid(f)) {
		cr_err("live: the discovered fabric is not consistent (see"
		       " above)");
		cr_fabric_free(f);
		return NULL;
	}
	return f;
oom:
	cr_err("live: out of memory");
fail:
	cr_guidmap_release(&idx);
	cr_fabric_free(f);
	return NULL;
}

/* One switch's installed LFT, over its directed route. */
static int read_lft(struct ibmad_port *mad, ibnd_node_t *n,
		    const struct cr_fabric *f, struct cr_routing *r,
		    uint32_t sw)
{
	unsigned top = mad_get_field(n->switchinfo, 0, IB_SW_LINEAR_FDB_TOP_F);
	uint8_t block[IB_SMP_DATA_SIZE];

	for (unsigned b = 0; b <= top / 64; b++) {
		memset(block, 0, sizeof(block));
		if (!smp_query_via(block, &n->path_portid,
				   IB_ATTR_LINEARFORWTBL, b, 0, mad)) {
			cr_err("live: switch '%s' (0x%016" PRIx64 " LID %u):"
			       " cannot read LFT block %u",
			       n->nodedesc, n->guid, n->smalid, b);
			return -1;
		}
		for (unsigned i = 0; i < 64; i++) {
			unsigned lid = b * 64 + i;
			uint8_t port = block[i];

			if (lid > top || lid > r->max_lid)
				break;
			r->lft[sw][lid] = port > f->nodes[sw].num_ports
						  ? CR_NO_PATH
						  : port;
		}
	}
	return 0;
}

static int read_lfts(struct ibmad_port *mad, ibnd_fabric_t *fab,
		     const struct cr_fabric *f, struct cr_routing *r)
{
	unsigned done = 0, total = f->num_switches;
	struct cli_progress *prog =
		cli_progress_start("live: LFTs read of switches", total);
	int ret = 0;

	for (ibnd_node_t *n = fab->nodes; n && !ret; n = n->next) {
		uint32_t sw;

		if (n->type != IB_NODE_SWITCH)
			continue;
		sw = cr_fabric_find_guid(f, n->guid);
		if (sw == CR_NO_NODE || read_lft(mad, n, f, r, sw)) {
			ret = -1;
			break;
		}
		cli_progress_set(prog, ++done);
		if (!prog && total >= 100 && done % (total / 10) == 0)
			cr_info("live: LFTs of %u of %u switches read", done,
				total);
	}
	cli_progress_end(prog);
	return ret;
}

struct cr_fabric *cli_live_load(struct cli_setup *s)
{
	int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS};
	struct ibnd_config cfg = {0};
	struct ibmad_port *mad;
	ibnd_fabric_t *fab;
	struct cr_fabric *f;
	char *ca = (char *)s->live_ca;
	double t0 = cli_now();

	/* The port first: the one error users meet is "which port?". */
	if (s->live_port) {
		umad_ca_t uca;

		if (umad_get_ca(ca, &uca) < 0) {
			cr_err("live: no CA %s (see ibstat)",
			       ca ? ca : "(first)");
			return NULL;
		}
		if (s->live_port > uca.numports) {
			cr_err("live: CA %s has no port %d (ports 1..%d)",
			       uca.ca_name, s->live_port, uca.numports);
			umad_release_ca(&uca);
			return NULL;
		}
		umad_release_ca(&uca);
	}
	errno = 0;
	mad = mad_rpc_open_port(ca, s->live_port, classes, 3);
	if (!mad) {
		cr_err("live: cannot open CA %s port %d%s%s: %s",
		       ca ? ca : "(first)", s->live_port,
		       s->live_port ? "" : " (first active)",
		       errno == EACCES || errno == EPERM
			       ? " (permission: run as root, or be in the"
				 " group of /dev/infiniband/umad*)"
			       : "",
		       errno ? strerror(errno) : "no such CA or port");
		return NULL;
	}
	/*
	 * libibnetdisc opens its own port: ours is closed meanwhile (ibsim's
	 * umad2sim, for one, does not survive two at once).
	 */
	mad_rpc_close_port(mad);
	mad = NULL;
	if (cli_verbosity >= CR_LOG_INFO)
		fprintf(stderr,
			"croute: discovering the fabric through CA %s"
			" port %d...\n",
			ca ? ca : "(first)", s->live_port);
	cfg.timeout_ms = 0;
	fab = ibnd_discover_fabric(ca, s->live_port, NULL, &cfg);
	if (!fab) {
		cr_err("live: discovery through CA %s port %d failed (no"
		       " port reachable? is a subnet manager running?)",
		       ca ? ca : "(first)", s->live_port);
		return NULL;
	}
	f = build(fab);
	if (f) {
		mad = mad_rpc_open_port(ca, s->live_port, classes, 3);
		if (!mad) {
			cr_err("live: cannot reopen CA %s port %d",
			       ca ? ca : "(first)", s->live_port);
			cr_fabric_free(f);
			f = NULL;
		}
	}
	if (f && cli_verbosity >= CR_LOG_INFO)
		fprintf(stderr,
			"croute: discovered %u nodes, %u switches in %.1f s"
			" (%u MADs)\n",
			f->num_nodes, f->num_switches, cli_now() - t0,
			fab->total_mads_used);
	if (f && !f->max_lid) {
		cr_err("live: no LIDs: no subnet manager has configured the"
		       " fabric");
		cr_fabric_free(f);
		f = NULL;
	}
	if (f) {
		s->live_routing = cr_routing_new(f);
		enum cli_live_sl sl = s->live_layers || s->live_sl_given
					      ? s->live_sl
					      : CLI_LIVE_SL_NONE;

		if (!s->live_routing ||
		    read_lfts(mad, fab, f, s->live_routing) ||
		    cli_live_read_sls(mad, fab, f, s->live_routing, sl)) {
			cr_routing_free(s->live_routing);
			s->live_routing = NULL;
			cr_fabric_free(f);
			f = NULL;
		}
	}
	ibnd_destroy_fabric(fab);
	if (mad)
		mad_rpc_close_port(mad);
	if (f) {
		snprintf(s->live_name, sizeof(s->live_name),
			 "live fabric (CA %s port %d)", ca ? ca : "default",
			 s->live_port);
		s->topo = s->live_name;
		s->topo_format = "libibnetdisc";
	}
	return f;
}
#else
struct cr_fabric *cli_live_load(struct cli_setup *s)
{
	(void)s;
	cr_err("--live: croute was built without libibnetdisc and libibmad"
	       " (libibnetdisc-dev, libibmad-dev)");
	return NULL;
}
#endif
