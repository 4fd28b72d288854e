// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cross-check of the contention estimator against SimGrid's InfiniBand
 * model (network/model:IB), the reference doc/design.md names.
 *
 * Each small croute fabric becomes a SimGrid platform: one host per CA,
 * one zero-latency link per direction of each cable, at the cable's data
 * rate, and for every ordered pair of hosts the route the LFTs give (this
 * file walks the LFTs itself). Every phase of every pattern starts all its
 * flows together as host-to-host comms; after a simulated second each
 * flow's rate is the bytes it moved. No flow can finish by then, so the
 * IB penalties are those of the whole phase. The phase then runs to
 * completion, which leaves SimGrid's IB bookkeeping empty for the next.
 *
 * The configuration reproduces doc/design.md's model: bandwidth factor 1
 * (the IB model takes it from smpi/bw-factor), no latency-based window
 * (TCP-gamma), no cross-traffic on the reverse route, and weight-S 0.
 * Every flow's rate must agree with cr_est_phase() to 1e-6 relative, and
 * shift's averages with cr_est_run(). Exit status 0 when all agree.
 */
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include <croute/route/engine.h>
#include <croute/estimate/estimate.h>
#include <croute/io/gen.h>
#include <croute/model/log.h>
#include <croute/model/routing.h>
}

namespace sg4 = simgrid::s4u;

static const double TOLERANCE = 1e-6;
static const double MEASURE_S = 1.0;
static const uint64_t FLOW_BYTES = 100000000000ULL; /* > 14 s at 54 Gb/s */

struct phase_t {
	std::string name;
	std::vector<cr_flow> flows;
	std::vector<double> sg_mbps; /* SimGrid's rates */
};

struct case_t {
	std::string name;
	cr_fabric *f = nullptr;
	cr_routing *r = nullptr;
	cr_hosts *hosts = nullptr;
	std::map<uint32_t, sg4::Host *> host; /* CA node -> host */
	std::vector<phase_t> phases;
	size_t shift_phases = 0; /* the first ones */
};

/* ---- fabrics ---------------------------------------------------------- */

static void set_rate(cr_fabric *f, uint32_t n, unsigned p, cr_speed s)
{
	cr_port *a = &f->nodes[n].ports[p];
	cr_port *b = &f->nodes[a->remote].ports[a->remote_port];

	a->width = b->width = 4;
	a->speed = b->speed = s;
}

static uint32_t add(cr_fabric *f, cr_node_type t, uint64_t guid, unsigned ports,
		    const char *desc)
{
	uint32_t n = cr_fabric_add_node(f, t, guid, ports, desc);

	if (n == CR_NO_NODE)
		exit(2);
	return n;
}

static void cable(cr_fabric *f, uint32_t a, unsigned pa, uint32_t b,
		  unsigned pb, cr_speed s)
{
	if (cr_fabric_link(f, a, pa, b, pb))
		exit(2);
	set_rate(f, a, pa, s);
}

/*
 * Two leaves of three hosts under two spines. Leaf 0's hosts and spine
 * 0's cables are 4x FDR (54.5 Gb/s), the rest 4x QDR (32 Gb/s): a flow
 * from leaf 0 over spine 1 is bound by a link that is not its own.
 */
static cr_fabric *two_level_mixed()
{
	cr_fabric *f = cr_fabric_new();
	uint32_t spine[2], leaf[2];
	char d[32];

	for (int s = 0; s < 2; s++) {
		snprintf(d, sizeof(d), "spine%d", s);
		spine[s] = add(f, CR_NODE_SWITCH, 0x1000 + s, 2, d);
	}
	for (int l = 0; l < 2; l++) {
		snprintf(d, sizeof(d), "leaf%d", l);
		leaf[l] = add(f, CR_NODE_SWITCH, 0x2000 + l, 5, d);
		for (int h = 0; h < 3; h++) {
			snprintf(d, sizeof(d), "h%d", l * 3 + h);
			uint32_t n = add(f, CR_NODE_CA,
					 0x3000 + 16 * (l * 3 + h), 1, d);
			cable(f, leaf[l], 1 + h, n, 1,
			      l ? CR_SPEED_QDR : CR_SPEED_FDR);
		}
		for (int s = 0; s < 2; s++)
			cable(f, leaf[l], 4 + s, spine[s], 1 + l,
			      s ? CR_SPEED_QDR : CR_SPEED_FDR);
	}
	return f;
}

/* Three switches in a row, two hosts each; hosts and cables of mixed
 * speeds (SDR to EDR) so that bottlenecks sit in the middle of paths. */
static cr_fabric *line_mixed()
{
	static const cr_speed host_speed[6] = {CR_SPEED_FDR, CR_SPEED_QDR,
					       CR_SPEED_EDR, CR_SPEED_DDR,
					       CR_SPEED_QDR, CR_SPEED_EDR};
	cr_fabric *f = cr_fabric_new();
	uint32_t sw[3];
	char d[32];

	for (int i = 0; i < 3; i++) {
		snprintf(d, sizeof(d), "sw%d", i);
		sw[i] = add(f, CR_NODE_SWITCH, 0x100 + i, 4, d);
		for (int h = 0; h < 2; h++) {
			snprintf(d, sizeof(d), "n%d", i * 2 + h);
			uint32_t n = add(f, CR_NODE_CA,
					 0x400 + 16 * (i * 2 + h), 1, d);
			cable(f, sw[i], 3 + h, n, 1, host_speed[i * 2 + h]);
		}
	}
	cable(f, sw[0], 1, sw[1], 2, CR_SPEED_QDR);
	cable(f, sw[1], 1, sw[2], 2, CR_SPEED_SDR);
	return f;
}

/* A 2-ary 3-tree (8 hosts) from the generator, every other host FDR. */
static cr_fabric *ktree_mixed()
{
	cr_gen_params p = {};
	cr_fabric *f;

	p.speed = CR_SPEED_QDR;
	p.width = 4;
	f = cr_gen_kary_ntree(2, 3, &p);
	if (!f)
		exit(2);
	for (uint32_t n = 0, i = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == CR_NODE_CA && i++ % 2)
			set_rate(f, n, 1, CR_SPEED_FDR);
	return f;
}

/* ---- phases ----------------------------------------------------------- */

static cr_flow flow(const cr_hosts *h, uint32_t a, uint32_t b)
{
	cr_flow x;

	x.src_node = h->ep[a].node;
	x.src_port = h->ep[a].port;
	x.dst_lid = h->ep[b].lid;
	return x;
}

static void add_phases(case_t &c)
{
	const cr_hosts *h = c.hosts;
	uint32_t n = h->count;
	std::mt19937 rng(42);

	/* shift, as cr_est_run() generates it: k = 1..N-1, j -> j + k */
	for (uint32_t k = 1; k < n; k++) {
		phase_t p;

		p.name = "shift k=" + std::to_string(k);
		for (uint32_t j = 0; j < n; j++)
			p.flows.push_back(flow(h, j, (j + k) % n));
		c.phases.push_back(p);
	}
	c.shift_phases = c.phases.size();
	/* random perfect matchings, both directions */
	for (int m = 0; m < 3; m++) {
		std::vector<uint32_t> perm(n);
		phase_t p;

		for (uint32_t j = 0; j < n; j++)
			perm[j] = j;
		std::shuffle(perm.begin(), perm.end(), rng);
		p.name = "bisect " + std::to_string(m);
		for (uint32_t j = 0; j + 1 < n; j += 2) {
			p.flows.push_back(flow(h, perm[j], perm[j + 1]));
			p.flows.push_back(flow(h, perm[j + 1], perm[j]));
		}
		c.phases.push_back(p);
	}
	phase_t all, in, out, mix, rnd;

	all.name = "alltoall";
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++)
			if (a != b)
				all.flows.push_back(flow(h, a, b));
	c.phases.push_back(all);
	in.name = "fanin 3";
	out.name = "fanout 3";
	for (uint32_t j = 1; j <= 3; j++) {
		in.flows.push_back(flow(h, j, 0));
		out.flows.push_back(flow(h, 0, j));
	}
	c.phases.push_back(in);
	c.phases.push_back(out);
	/* Ω > 1, γr (Δe >= 3) and a plain flow from the same sender */
	mix.name = "omega+gamma";
	mix.flows = {flow(h, 0, 1),	flow(h, 0, 1),	   flow(h, 2, 1),
		     flow(h, 0, n - 1), flow(h, 3, n - 2), flow(h, 3, 1)};
	c.phases.push_back(mix);
	/* random flows, repeats allowed */
	rnd.name = "random";
	for (int i = 0; i < 3 * (int)n; i++) {
		uint32_t a = rng() % n, b = rng() % n;

		if (a != b)
			rnd.flows.push_back(flow(h, a, b));
	}
	c.phases.push_back(rnd);
}

/* ---- the SimGrid platform --------------------------------------------- */

/* The directed links from the source port through the LFTs. */
static std::vector<std::pair<uint32_t, unsigned>>
lft_path(const cr_fabric *f, const cr_routing *r, uint32_t n, unsigned p,
	 uint16_t lid)
{
	std::vector<std::pair<uint32_t, unsigned>> path;

	for (;;) {
		path.emplace_back(n, p);
		n = f->nodes[n].ports[p].remote;
		if (f->nodes[n].type != CR_NODE_SWITCH || path.size() > 64)
			break;
		p = r->lft[n][lid];
		if (p == CR_NO_PATH || p == 0)
			break;
	}
	if (n != f->lid_node[lid]) {
		fprintf(stderr, "LFTs: no path to LID %u\n", lid);
		exit(2);
	}
	return path;
}

static double link_mbps(const cr_fabric *f, uint32_t n, unsigned p)
{
	const cr_port *a = &f->nodes[n].ports[p];

	return cr_link_rate_mbps(a->width, a->speed);
}

static void build_platform(sg4::NetZone *zone, case_t &c)
{
	const cr_fabric *f = c.f;
	std::map<std::pair<uint32_t, unsigned>, sg4::Link *> links;

	for (uint32_t i = 0; i < c.hosts->count; i++) {
		uint32_t n = c.hosts->ep[i].node;

		c.host[n] =
			zone->create_host(c.name + "-" + f->nodes[n].desc, 1e9);
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			if (f->nodes[n].ports[p].remote == CR_NO_NODE)
				continue;
			std::string name = c.name + "-" + f->nodes[n].desc +
					   ":" + std::to_string(p);
			/* SimGrid rates are bytes per second */
			links[{n, p}] =
				zone->create_link(name,
						  link_mbps(f, n, p) * 1e6 / 8)
					->set_latency(0)
					->seal();
		}
	for (uint32_t a = 0; a < c.hosts->count; a++)
		for (uint32_t b = 0; b < c.hosts->count; b++) {
			const cr_endpoint &s = c.hosts->ep[a],
					  &d = c.hosts->ep[b];
			std::vector<sg4::LinkInRoute> route;

			if (a == b)
				continue;
			for (auto &l : lft_path(f, c.r, s.node, s.port, d.lid))
				route.emplace_back(links.at(l));
			zone->add_route(c.host[s.node]->get_netpoint(),
					c.host[d.node]->get_netpoint(), nullptr,
					nullptr, route, false);
		}
}

/* Runs every phase: start all, measure after MEASURE_S, let them end. */
static void simulate(std::vector<case_t> *cases)
{
	for (case_t &c : *cases)
		for (phase_t &ph : c.phases) {
			std::vector<sg4::CommPtr> comms;

			for (const cr_flow &fl : ph.flows) {
				uint32_t dst = c.f->lid_node[fl.dst_lid];

				comms.push_back(sg4::Comm::sendto_async(
					c.host.at(fl.src_node), c.host.at(dst),
					FLOW_BYTES));
			}
			sg4::this_actor::sleep_for(MEASURE_S);
			for (auto &comm : comms) {
				double moved =
					FLOW_BYTES - comm->get_remaining();

				ph.sg_mbps.push_back(moved / MEASURE_S * 8 /
						     1e6);
			}
			sg4::Comm::wait_all(comms);
		}
}

/* ---- comparison ------------------------------------------------------- */

static double rel(double a, double b)
{
	return std::fabs(a - b) / std::max(std::fabs(b), 1e-300);
}

static int compare(case_t &c, const cr_penalty &pen)
{
	cr_est_params par;
	cr_est *e;
	int bad = 0;
	double worst = 0, sum_frac = 0;
	size_t nflows = 0, shift_flows = 0;

	cr_est_params_init(&par);
	par.pen = pen;
	e = cr_est_new(c.f, c.r, &par);
	if (!e)
		return 1;
	for (size_t i = 0; i < c.phases.size(); i++) {
		phase_t &ph = c.phases[i];
		std::vector<cr_flow_est> out(ph.flows.size());

		if (cr_est_phase(e, ph.flows.data(), ph.flows.size(),
				 out.data()) != 0) {
			printf("FAIL %s %s: flows without path\n",
			       c.name.c_str(), ph.name.c_str());
			bad++;
			continue;
		}
		for (size_t j = 0; j < ph.flows.size(); j++) {
			const cr_flow &fl = ph.flows[j];
			double d = rel(out[j].rate, ph.sg_mbps[j]);
			bool ok = d <= TOLERANCE;

			if (d > worst)
				worst = d;
			if (i < c.shift_phases) {
				sum_frac += ph.sg_mbps[j] / out[j].inject;
				shift_flows++;
			}
			nflows++;
			printf("%s %-6s %-12s %-8s -> LID %-3u  penalty %8.5f "
			       "bound %11.4f  croute %11.4f  simgrid %11.4f "
			       "Mb/s  rel %.1e\n",
			       ok ? "ok  " : "FAIL", c.name.c_str(),
			       ph.name.c_str(), c.f->nodes[fl.src_node].desc,
			       fl.dst_lid, out[j].penalty, out[j].bound,
			       out[j].rate, ph.sg_mbps[j], d);
			if (!ok)
				bad++;
		}
	}

	/* cr_est_run()'s shift average, against SimGrid's */
	cr_pattern p;
	cr_est_result *res;

	cr_pattern_parse("shift", &p);
	res = cr_est_run(e, &p, c.hosts);
	if (!res) {
		bad++;
	} else {
		double sg_avg = sum_frac / shift_flows;
		double d = rel(res->avg_frac, sg_avg);

		printf("%s %s shift average: croute %.9f simgrid %.9f "
		       "rel %.1e\n",
		       d <= TOLERANCE ? "ok  " : "FAIL", c.name.c_str(),
		       res->avg_frac, sg_avg, d);
		if (d > TOLERANCE)
			bad++;
		cr_est_result_free(res);
	}
	printf("%s: %zu flows in %zu phases compared, largest relative "
	       "difference %.2e, %d disagreement%s\n",
	       c.name.c_str(), nflows, c.phases.size(), worst, bad,
	       bad == 1 ? "" : "s");
	cr_est_free(e);
	return bad;
}

int main(int argc, char **argv)
{
	const char *factors = CR_PENALTY_DEFAULT;
	cr_penalty pen;
	sg4::Engine engine(&argc, argv);
	std::vector<case_t> cases(3);
	int bad = 0;

	if (argc > 1)
		factors = argv[1]; /* another "βe;βs;γr" to try */
	if (cr_penalty_parse(factors, "penalty factors", &pen))
		return 2;
	engine.set_config("network/model:IB");
	engine.set_config(std::string("smpi/IB-penalty-factors:") + factors);
	engine.set_config("smpi/bw-factor:0:1");
	engine.set_config("network/weight-S:0");
	engine.set_config("network/crosstraffic:0");
	engine.set_config("network/TCP-gamma:0");

	cases[0].name = "2level";
	cases[0].f = two_level_mixed();
	cases[1].name = "line";
	cases[1].f = line_mixed();
	cases[2].name = "ktree";
	cases[2].f = ktree_mixed();

	sg4::NetZone *zone = sg4::create_full_zone("fabrics");

	for (case_t &c : cases) {
		cr_options o;

		cr_options_init(&o);
		if (cr_fabric_assign_lids(c.f, 0))
			return 2;
		c.r = cr_routing_new(c.f);
		if (!c.r || cr_route(cr_engine_find("minhop"), c.f, &o, c.r))
			return 2;
		c.hosts = cr_hosts_default(c.f);
		if (!c.hosts)
			return 2;
		add_phases(c);
		build_platform(zone, c);
	}
	zone->seal();
	sg4::Actor::create("driver", cases[0].host.begin()->second, simulate,
			   &cases);
	engine.run();

	int major, minor, patch;

	sg_version_get(&major, &minor, &patch);
	printf("penalty factors \"%s\"; SimGrid %d.%d.%d\n", factors, major,
	       minor, patch);
	for (case_t &c : cases) {
		bad += compare(c, pen);
		cr_hosts_free(c.hosts);
		cr_routing_free(c.r);
		cr_fabric_free(c.f);
	}
	printf("%s: %d disagreement%s\n", bad ? "FAIL" : "PASS", bad,
	       bad == 1 ? "" : "s");
	return bad ? 1 : 0;
}
