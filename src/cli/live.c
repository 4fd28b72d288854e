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

#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

#ifdef HAVE_LIVE
#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "live.h"
#include "progress.h"

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
			cr_err("live: switch '%s' (node GUID 0x%016" PRIx64
			       " LID %u):"
			       " cannot read LFT block %u",
			       n->nodedesc, n->guid, n->smalid, b);
			return -1;
		}
		cli_live_lft_block(block, b, top, f, r, sw);
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
	if (cli_verbosity >= CR_LOG_NOTE)
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
	f = cli_live_build(fab);
	if (f) {
		mad = mad_rpc_open_port(ca, s->live_port, classes, 3);
		if (!mad) {
			cr_err("live: cannot reopen CA %s port %d",
			       ca ? ca : "(first)", s->live_port);
			cr_fabric_free(f);
			f = NULL;
		}
	}
	if (f && cli_verbosity >= CR_LOG_NOTE)
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
