// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One opensm.conf, two readers: the command's -F (cli_config_apply, then
 * cli_auto_setup as cli_route calls it) and the plugin's run options
 * (cr_conf_read, cr_conf_background and cr_conf_options, as a routing
 * run calls them, over OpenSM's parsed options) must end with the same
 * engine options, cr-auto settings and improvement pass parameters, key
 * by key. The only difference is the documented one: with
 * croute_auto_background FALSE the plugin's improve step runs in the
 * sweep, whose budget stays 5 s with croute_auto_hosts, where the
 * command takes 160 (croute(8), croute_auto_budget).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"
#include "cli.h"

#include <croute/tune/conf_map.h>

#include "testutil.h"

/* OpenSM's keys: what OpenSM's own parser leaves in its options. */
static void osm_port_shifting(osm_subn_opt_t *opt)
{
	opt->port_shifting = TRUE;
}

static void osm_scatter_ports(osm_subn_opt_t *opt)
{
	opt->scatter_ports = 7;
}

static void osm_lash_start_vl(osm_subn_opt_t *opt)
{
	opt->lash_start_vl = 3;
}

static void osm_qos(osm_subn_opt_t *opt)
{
	opt->qos = TRUE;
}

static void osm_lmc(osm_subn_opt_t *opt)
{
	opt->lmc = 2;
}

struct row {
	const char *conf; /* the file; "%s": a readable host list */
	void (*osm)(osm_subn_opt_t *opt); /* OpenSM's reading of it */
	bool no_option; /* the key changes no engine option */
	bool sweep_budget; /* the documented difference (above) */
};

static const struct row rows[] = {
	{"", NULL, true, false},
	{"port_shifting TRUE\n", osm_port_shifting, false, false},
	{"scatter_ports 7\n", osm_scatter_ports, false, false},
	{"lash_start_vl 3\n", osm_lash_start_vl, false, false},
	{"qos TRUE\n", osm_qos, false, false},
	{"lmc 2\n", osm_lmc, true, false},
	{"remote_guid_sorting TRUE\n", NULL, false, false},
	{"croute_lash_balance TRUE\n", NULL, false, false},
	{"croute_lash_sl_dump FALSE\n", NULL, true, false},
	{"croute_balance global\n", NULL, false, false},
	{"croute_balance first\n", NULL, false, false},
	{"croute_balance local\n", NULL, true, false},
	{"croute_auto_candidates minhop,updn+ps\n", NULL, false, false},
	{"croute_auto_objective bisect:avg\n", NULL, false, false},
	{"croute_auto_hosts %s\n", NULL, false, false},
	{"croute_auto_budget 12\n", NULL, false, false},
	{"croute_auto_allow_credit_loops TRUE\n", NULL, false, false},
	{"croute_auto_optimize FALSE\n", NULL, false, false},
	/* where the improve step runs, not how: the same settings */
	{"croute_auto_background FALSE\n", NULL, true, false},
	{"croute_auto_background FALSE\ncroute_auto_hosts %s\n", NULL, false,
	 true},
	{"croute_auto_background FALSE\ncroute_auto_budget 9\n"
	 "croute_auto_hosts %s\n",
	 NULL, false, false},
	{"croute_auto_improve_threshold 0.05\n", NULL, false, false},
	{"croute_auto_max_churn 0.5\n", NULL, true, false},
	{"croute_auto_max_vls 2\n", NULL, false, false},
	{"croute_auto_give_up 99\n", NULL, true, false},
	{"croute_optimize TRUE\n", NULL, false, false},
	{"croute_optimize TRUE\ncroute_auto_optimize FALSE\n", NULL, false,
	 false},
	{"croute_optimize_budget 3\n", NULL, false, false},
	{"croute_optimize_max_extra_hops 2\n", NULL, false, false},
	{"croute_dump_hosts FALSE\n", NULL, true, false},
	{"croute_dump_slurm FALSE\n", NULL, true, false},
	{"croute_threads 2\n", NULL, true, false},
	{"croute_incremental TRUE\n", NULL, true, false},
	{"croute_mcast_trees FALSE\n", NULL, true, false},
	{"croute_estimate full\n", NULL, true, false},
	{"croute_patterns shift,bisect\n", NULL, true, false},
	{"croute_penalty_factors 1;2;3\n", NULL, true, false},
	/* croute_fail_engine: a test hook of the plugin, which -F refuses */
};

/* What a routing run takes from the file, wherever it was read. */
struct view {
	const struct cr_options *o;
	const struct cr_auto_conf *ac;
	const struct cr_opt_params *par;
	bool optimize; /* the pass after another engine */
};

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Everything but the improve step's budget (views_budget()). */
static bool same_view(const struct view *a, const struct view *b)
{
	const struct cr_options *x = a->o, *y = b->o;
	const struct cr_auto_conf *p = a->ac, *q = b->ac;

	return x->port_shifting == y->port_shifting &&
	       x->remote_guid_sorting == y->remote_guid_sorting &&
	       x->scatter_ports == y->scatter_ports &&
	       x->lash_start_vl == y->lash_start_vl &&
	       x->lash_balance == y->lash_balance &&
	       x->balance_global == y->balance_global &&
	       x->balance_first == y->balance_first &&
	       x->balance_rounds == y->balance_rounds &&
	       x->updn_roots == y->updn_roots &&
	       (x->engine_conf == p) == (y->engine_conf == q) &&
	       same_str(p->candidates, q->candidates) &&
	       same_str(p->objective, q->objective) &&
	       same_str(p->hosts, q->hosts) && p->qos == q->qos &&
	       p->allow_credit_loops == q->allow_credit_loops &&
	       p->max_vls == q->max_vls && p->improve == q->improve &&
	       (p->improve_arg == a->par) == (q->improve_arg == b->par) &&
	       p->improve_rest == q->improve_rest &&
	       p->threshold == q->threshold &&
	       a->par->budget == b->par->budget &&
	       a->par->max_extra_hops == b->par->max_extra_hops &&
	       a->par->max_evals == b->par->max_evals &&
	       a->optimize == b->optimize;
}

struct fixture {
	char conf[64], hosts[64]; /* temporary files */
	/* the command */
	struct cli_cmd cmd;
	struct cli_setup s;
	/* the plugin */
	osm_opensm_t *osm;
	struct cr_plugin pl;
	struct cr_plugin_engine pe;
	struct cr_options o;
	struct view cmd_view, pl_view;
};

/* A new temporary file /tmp/NAME.XXXXXX into path, holding text. */
static void make_file(char path[64], const char *name, const char *text)
{
	FILE *fp;
	int fd;

	snprintf(path, 64, "/tmp/%s.XXXXXX", name);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* text with each "%s" replaced by path, into out. */
static void subst(const char *text, const char *path, char *out, size_t len)
{
	size_t n = 0;

	for (; *text; text++) {
		if (text[0] == '%' && text[1] == 's') {
			n += snprintf(out + n, len - n, "%s", path);
			text++;
		} else {
			n += snprintf(out + n, len - n, "%c", *text);
		}
		assert_true(n < len);
	}
}

/* The opensm.conf text, its "%s" the host (or GUID) file's path. */
static struct fixture *setup(const char *text, const char *hosts)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char conf[512] = "";

	assert_non_null(fx);
	make_file(fx->hosts, "test_conf_map_hosts", hosts);
	subst(text, fx->hosts, conf, sizeof(conf));
	make_file(fx->conf, "test_conf_map_conf", conf);
	return fx;
}

static void teardown(struct fixture *fx)
{
	cli_setup_release(&fx->s);
	cr_options_release(&fx->o);
	free(fx->osm);
	unlink(fx->conf);
	unlink(fx->hosts);
	free(fx);
}

/* croute -F FILE (plus what the command line gave, args). */
static void command_reads(struct fixture *fx, const char *const *args)
{
	fx->cmd.name = "test";
	cli_setup_init(&fx->s, &fx->cmd);
	for (; args && args[0]; args += 2) {
		const struct cli_opt *op = cli_engine_opts;

		while (strcmp(op->name, args[0]))
			op++;
		assert_int_equal(cli_setup_opt(&fx->s, op->key, args[1]), 0);
	}
	fx->s.config = fx->conf;
	assert_int_equal(cli_config_apply(&fx->s), 0);
	cli_auto_setup(&fx->s);
	fx->cmd_view = (struct view){&fx->s.opts, &fx->s.auto_conf,
				     &fx->s.opt_params, fx->s.optimize};
}

/* opensm -F FILE, its routing run of cr-auto. */
static void plugin_reads(struct fixture *fx, const struct row *row)
{
	struct cr_plugin *pl = &fx->pl;
	bool background;

	fx->osm = calloc(1, sizeof(*fx->osm));
	assert_non_null(fx->osm);
	fx->osm->subn.opt.config_file = fx->conf;
	if (row && row->osm)
		row->osm(&fx->osm->subn.opt);
	pl->osm = fx->osm;
	fx->pe.pl = pl;
	fx->pe.e = &cr_auto_engine;
	cr_options_init(&fx->o);
	cr_conf_read(pl, &pl->conf);
	background = cr_conf_background(&pl->conf, fx->pe.e);
	assert_int_equal(
		cr_conf_options(pl, background ? 0 : CR_CONF_IN_SWEEP, &fx->o),
		0);
	fx->pl_view = (struct view){&fx->o, &pl->auto_conf, &pl->opt_params,
				    pl->conf.optimize};
}

static void test_every_key(void **state)
{
	struct fixture *dfx = setup(rows[0].conf, "h1\n");

	(void)state;
	/* the defaults: no key at all */
	command_reads(dfx, NULL);
	plugin_reads(dfx, &rows[0]);
	assert_true(same_view(&dfx->cmd_view, &dfx->pl_view));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *row = &rows[i];
		struct fixture *fx = setup(row->conf, "h1\n");
		double cmd_budget, pl_budget;

		command_reads(fx, NULL);
		plugin_reads(fx, row);
		if (!same_view(&fx->cmd_view, &fx->pl_view))
			fail_msg("row %zu (%s): the command and the plugin"
				 " differ",
				 i, row->conf);
		/* a key that is mapped at all shows on both sides */
		if (row->no_option !=
		    (same_view(&fx->cmd_view, &dfx->cmd_view) &&
		     cr_auto_budget(fx->cmd_view.ac) ==
			     cr_auto_budget(dfx->cmd_view.ac)))
			fail_msg("row %zu (%s): %s the defaults", i, row->conf,
				 row->no_option ? "differs from" : "same as");
		cmd_budget = cr_auto_budget(fx->cmd_view.ac);
		pl_budget = cr_auto_budget(fx->pl_view.ac);
		if (row->sweep_budget) {
			assert_true(cmd_budget == CR_AUTO_BUDGET_HOSTS_DEFAULT);
			assert_true(pl_budget == CR_AUTO_BUDGET_DEFAULT);
		} else if (cmd_budget != pl_budget) {
			fail_msg("row %zu (%s): budget %g, the plugin's %g", i,
				 row->conf, cmd_budget, pl_budget);
		}
		teardown(fx);
	}
	teardown(dfx);
}

/* The command line wins over the file, key by key. */
static void test_command_line_wins(void **state)
{
	static const char *const args[] = {
		"balance",
		"local",
		"auto-budget",
		"4",
		"optimize-budget",
		"2",
		"scatter-ports",
		"0",
		"auto-objective",
		"shift",
		NULL,
	};
	struct fixture *fx = setup(
		"croute_balance first\ncroute_auto_budget 12\n"
		"croute_optimize_budget 3\nscatter_ports 7\n"
		"croute_auto_objective bisect:avg\nremote_guid_sorting TRUE\n",
		"h1\n");

	(void)state;
	command_reads(fx, args);
	assert_false(fx->s.opts.balance_first);
	assert_true(fx->s.auto_conf.budget == 4);
	assert_true(fx->s.opt_params.budget == 2);
	assert_int_equal(fx->s.opts.scatter_ports, 0);
	assert_string_equal(fx->s.auto_conf.objective, "shift");
	/* what the command line did not give comes from the file */
	assert_true(fx->s.opts.remote_guid_sorting);
	teardown(fx);
}

/* The files OpenSM's keys name: the command's paths, the plugin's lists. */
static void test_files(void **state)
{
	struct fixture *fx = setup("root_guid_file %s\ncn_guid_file %s\n"
				   "io_guid_file %s\n"
				   "guid_routing_order_file %s\n",
				   "0x0002c90300000001\n");
	osm_subn_opt_t *opt;

	(void)state;
	command_reads(fx, NULL);
	assert_string_equal(fx->s.root_guids, fx->hosts);
	assert_string_equal(fx->s.cn_guids, fx->hosts);
	assert_string_equal(fx->s.io_guids, fx->hosts);
	assert_string_equal(fx->s.guid_order, fx->hosts);
	plugin_reads(fx, NULL);
	/* OpenSM's parser leaves the file names in its options */
	opt = &fx->osm->subn.opt;
	opt->root_guid_file = opt->cn_guid_file = fx->hosts;
	opt->io_guid_file = opt->guid_routing_order_file = fx->hosts;
	cr_options_release(&fx->o);
	cr_options_init(&fx->o);
	assert_int_equal(cr_conf_options(&fx->pl, 0, &fx->o), 0);
	assert_int_equal(fx->o.root_guids.count, 1);
	assert_int_equal(fx->o.cn_guids.count, 1);
	assert_int_equal(fx->o.io_guids.count, 1);
	assert_int_equal(fx->o.guid_order.count, 1);
	assert_true(same_view(&fx->cmd_view, &fx->pl_view));
	teardown(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_command_line_wins),
		cmocka_unit_test(test_files),
	};

	cr_log_set(NULL, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
