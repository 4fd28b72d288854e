// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The routing a command works on: computed by the chosen engine with its
 * options and input files, or read from LFT dumps and the switches.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/clock.h>
#include <croute/io/conf.h>
#include <croute/io/lash.h>
#include <croute/model/log.h>
#include <croute/io/topo.h>

#include "cli.h"

double cli_now(void)
{
	return cr_now();
}

/* One of the engine's input files; NULL: not given. */
static int read_input(const char *path, const char *what,
		      const struct cr_fabric *f, struct cr_guid_list *l,
		      struct cr_options *o)
{
	FILE *in;
	int err;

	if (!path)
		return 0;
	in = cr_file_open_read(path);
	if (!in)
		return -1;
	err = l ? cr_guid_file_parse_in(in, path, what, f, l)
		: cr_port_order_parse_in(in, path, what, f, o);
	fclose(in);
	return err;
}

struct cr_routing *cli_routing(struct cli_setup *s, const struct cr_fabric *f,
			       const char *lfts,
			       const struct cr_engine **engine, double *seconds)
{
	struct cr_routing *r;

	*engine = NULL;
	*seconds = 0;
	if (!lfts)
		return cli_route(s, f, engine, seconds);
	cr_byproducts_release(&s->by);
	if (lfts == cli_live_lfts) {
		r = s->live_routing;
		s->live_routing = NULL;
		s->lfts_format = "libibmad";
		if (!r)
			cr_err("--live: no LFTs were read");
		return r;
	}
	r = cr_routing_new(f);
	if (r && cr_lft_read_format(lfts, f, r, &s->lfts_format)) {
		cr_routing_free(r);
		return NULL;
	}
	/* Layers given with the LFTs (check --sl, --sl2vl). */
	if (r && s->sl && cr_lash_read(s->sl, s->sl2vl, f, r)) {
		cr_routing_free(r);
		return NULL;
	}
	/* The dump directory of a cr-lash run: its layers too. */
	if (r && !s->sl && s->dump_sl && lfts == s->dump_lfts) {
		char *sl2vl =
			cli_dir_file(s->dump_dir, "croute-lash-sl2vl.dump");

		if (!sl2vl ||
		    cr_lash_read(s->dump_sl, cli_readable(sl2vl) ? sl2vl : NULL,
				 f, r)) {
			cr_routing_free(r);
			r = NULL;
		}
		free(sl2vl);
	}
	return r;
}

struct cr_routing *cli_route(struct cli_setup *s, const struct cr_fabric *f,
			     const struct cr_engine **engine, double *seconds)
{
	const char *name = s->engine	    ? s->engine
			   : s->conf_engine ? s->conf_engine
					    : "minhop";
	const struct cr_engine *e = cr_engine_find_any(name);
	struct cr_routing *r;
	double t0;
	int rc;

	/* In opensm.conf, "updn" is OpenSM's own updn, not cr-updn. */
	if (!s->engine && s->conf_engine && strncmp(name, "cr-", 3))
		e = NULL;
	if (!e) {
		cr_err("%s: routing_engine %s is not one of croute's engines"
		       " (give --engine)",
		       s->config, name);
		return NULL;
	}

	/* Routed again (croute compare): the files are read afresh. */
	cr_guid_list_release(&s->opts.root_guids);
	cr_guid_list_release(&s->opts.cn_guids);
	cr_guid_list_release(&s->opts.io_guids);
	cr_guid_list_release(&s->opts.guid_order);
	free(s->opts.port_orders);
	s->opts.port_orders = NULL;
	s->opts.num_port_orders = 0;
	if (read_input(s->root_guids, "--root-guids", f, &s->opts.root_guids,
		       NULL) ||
	    read_input(s->cn_guids, "--cn-guids", f, &s->opts.cn_guids, NULL) ||
	    read_input(s->io_guids, "--io-guids", f, &s->opts.io_guids, NULL) ||
	    read_input(s->guid_order, "--guid-order", f, &s->opts.guid_order,
		       NULL) ||
	    read_input(s->port_order, "--port-order", f, NULL, &s->opts))
		return NULL;
	cli_auto_setup(s);
	/* As on the plugin's thread: a deadline replaces the pass's guard. */
	if (s->give_up > 0) {
		s->stop.deadline = cr_now() + s->give_up;
		s->opts.stop = &s->stop;
		s->opt_params.stop = &s->stop;
	}
	r = cr_routing_new(f);
	if (!r)
		return NULL;
	t0 = cli_now();
	s->refused = false;
	s->not_its_kind = false;
	rc = cr_route_by(e, f, &s->opts, r, &s->by);
	if (rc) {
		cr_err("cr-%s cannot route %s", e->name, s->topo);
		/* Not the engine's kind of fabric: bad input, exit 2. */
		s->refused = rc != CR_ROUTE_NOT_ITS_FABRIC;
		s->not_its_kind = rc == CR_ROUTE_NOT_ITS_FABRIC;
		cr_routing_free(r);
		return NULL;
	}
	*seconds = cli_now() - t0;
	if (s->optimize && e != &cr_auto_engine) {
		struct cr_objective obj;
		int bad;

		if (cr_objective_parse(s->auto_conf.objective,
				       "--auto-objective", &obj)) {
			cr_routing_free(r);
			return NULL;
		}
		obj.max_flows = CR_AUTO_MAX_FLOWS;
		obj.hosts_file = s->auto_conf.hosts;
		bad = cr_optimize(f, e, &obj, &s->opt_params, r, &s->by, NULL);
		cr_objective_release(&obj);
		/* a pass that gave up (logged) leaves the tables as routed */
		if (bad == -1) {
			cr_routing_free(r);
			return NULL;
		}
		*seconds = cli_now() - t0;
	}
	*engine = e;
	return r;
}

bool cli_load_routed(struct cli_setup *s, const char *lfts,
		     struct cr_fabric **f, struct cr_routing **r,
		     const struct cr_engine **engine, double *seconds,
		     int *status)
{
	*r = NULL;
	*f = cli_load(s);
	if (!*f) {
		*status = CLI_BAD;
		return false;
	}
	*r = cli_routing(s, *f, lfts, engine, seconds);
	if (!*r) {
		*status = s->refused ? CLI_PROBLEMS : CLI_BAD;
		return false;
	}
	return true;
}
