// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute's opensm.conf keys and GUID files, parsed by the core: errors
 * name the file, the line, the key and the value, and a bad value leaves
 * the key as it was.
 */
#include <string.h>

#include <croute/io/conf.h>
#include <croute/tune/conf_check.h>
#include <croute/tune/conf_map.h>
#include <croute/tune/jobs_tune.h>
#include <croute/route/engine.h>

#include "testutil.h"

static char last_error[512];
static unsigned num_errors;

static void sink(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	if (level != CR_LOG_ERROR)
		return;
	num_errors++;
	snprintf(last_error, sizeof(last_error), "%s", msg);
}

/* Parses and checks text as the plugin does: the number of bad values. */
static int parse_checked(struct cr_conf *c, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int errors;

	assert_non_null(in);
	num_errors = 0;
	last_error[0] = '\0';
	errors = cr_conf_parse_file(c, in, "opensm.conf");
	fclose(in);
	return errors + cr_conf_check(c);
}

/* The same, where each bad value is the one error logged. */
static int parse(struct cr_conf *c, const char *text)
{
	int errors = parse_checked(c, text);

	assert_int_equal(errors, num_errors);
	return errors;
}

static void test_keys(void **state)
{
	struct cr_conf c;

	(void)state;
	cr_conf_defaults(&c);
	c.test_hooks = true;
	assert_int_equal(parse(&c,
			       "# comment\n"
			       "routing_engine cr-updn,minhop\n"
			       "  remote_guid_sorting   true  # yes\n"
			       "croute_fail_engine cr-minhop:import, all\n"),
			 0);
	assert_true(c.remote_guid_sorting);
	assert_int_equal(c.num_fail, 2);
	assert_int_equal(cr_conf_fail_stage(&c, cr_engine_find("minhop")),
			 CR_FAIL_IMPORT);
	assert_int_equal(cr_conf_fail_stage(&c, cr_engine_find("updn")),
			 CR_FAIL_EXPORT);
	assert_int_equal(parse(&c, "croute_fail_engine none\n"), 0);
	assert_int_equal(c.num_fail, 0);
}

/*
 * cr-auto's background keys: on, 1% and no cap by default; fractions
 * above 0 and at most 1, a bad one named and the key left as it was.
 */
static void test_background_keys(void **state)
{
	struct cr_conf c;

	(void)state;
	cr_conf_defaults(&c);
	assert_true(c.auto_background);
	assert_true(c.auto_improve_threshold == 0.01);
	assert_true(c.auto_max_churn == 1);
	assert_true(c.auto_give_up == 0);
	assert_int_equal(parse(&c, "croute_auto_background FALSE\n"
				   "croute_auto_improve_threshold 0.05\n"
				   "croute_auto_max_churn 0.25\n"
				   "croute_auto_give_up 3600\n"),
			 0);
	assert_true(c.auto_give_up == 3600);
	assert_int_equal(parse(&c, "croute_auto_give_up -1\n"), 1);
	assert_non_null(strstr(last_error, "croute_auto_give_up"));
	assert_false(c.auto_background);
	assert_true(c.auto_improve_threshold == 0.05);
	assert_true(c.auto_max_churn == 0.25);
	assert_int_equal(parse(&c, "croute_auto_improve_threshold 0\n"), 1);
	assert_non_null(strstr(last_error, "croute_auto_improve_threshold"));
	assert_int_equal(parse(&c, "croute_auto_max_churn 1.5\n"), 1);
	assert_non_null(strstr(last_error, "croute_auto_max_churn"));
	assert_int_equal(parse(&c, "croute_auto_background maybe\n"), 1);
	assert_non_null(strstr(last_error, "croute_auto_background"));
	assert_false(c.auto_background);
	assert_true(c.auto_improve_threshold == 0.05);
	assert_true(c.auto_max_churn == 0.25);
}

/*
 * The jobs file's keys: off, 0.02, 30 s, 5 s, budget 0 and the refine
 * stage's default budget and 0.005 by default; nonsense is an
 * error naming the key, the key left as it was; a file name the protocol
 * uses for its other files, or in no directory, is refused after parsing
 * (the feature off), naming the line.
 */
static void test_jobs_keys(void **state)
{
	static const char *const bad[] = {
		"croute_jobs_file relative/jobs",
		"croute_jobs_file /tmp/with blank",
		"croute_jobs_threshold 1",
		"croute_jobs_threshold -0.01",
		"croute_jobs_threshold 2%",
		"croute_jobs_min_interval -1",
		"croute_jobs_min_interval 86401",
		"croute_jobs_min_interval soon",
		"croute_jobs_wait 2.5",
		"croute_jobs_wait -1",
		"croute_jobs_wait 3601",
		"croute_jobs_wait",
		"croute_jobs_budget 1.5",
		"croute_jobs_budget -1",
		"croute_jobs_budget 100001",
		"croute_jobs_refine 2.5",
		"croute_jobs_refine -1",
		"croute_jobs_refine 100001",
		"croute_jobs_refine_threshold 1",
		"croute_jobs_refine_threshold -0.01",
	};
	static const char *const refused[] = {
		"/tmp/jobs.state",
		"/tmp/jobs.lock",
		"/tmp/jobs.tmp.12",
		"/nonexistent-croute-dir/jobs",
		"/tmp/",
	};
	struct cr_jobs_conf jc;
	struct cr_conf c;
	char line[128];

	(void)state;
	cr_conf_defaults(&c);
	cr_conf_jobs(&c, &jc);
	assert_null(jc.file);
	assert_true(jc.threshold == 0.02 && jc.min_interval == 30);
	assert_int_equal(jc.wait, 5);
	assert_true(jc.budget == 0);
	assert_null(jc.objective);
	assert_true(jc.refine == CR_JOBS_REFINE_DEFAULT && jc.refine > 0);
	assert_true(jc.refine_threshold == 0.005);
	assert_int_equal(parse(&c, "croute_jobs_file /tmp/jobs\n"
				   "croute_jobs_threshold 0\n"
				   "croute_jobs_min_interval 0.5\n"
				   "croute_jobs_wait 0\n"
				   "croute_jobs_budget 3\n"
				   "croute_auto_max_churn 0.1\n"),
			 0);
	assert_int_equal(parse(&c, "croute_jobs_objective jobs:avg\n"), 0);
	cr_conf_jobs(&c, &jc);
	assert_true(jc.budget == 3);
	assert_int_equal(parse(&c, "croute_jobs_refine 0\n"
				   "croute_jobs_refine_threshold 0\n"),
			 0);
	cr_conf_jobs(&c, &jc);
	assert_true(jc.refine == 0 && jc.refine_threshold == 0);
	assert_int_equal(parse(&c, "croute_jobs_refine 7\n"
				   "croute_jobs_refine_threshold 0.01\n"),
			 0);
	cr_conf_jobs(&c, &jc);
	assert_true(jc.refine == 7 && jc.refine_threshold == 0.01);
	assert_string_equal(jc.objective, "jobs:avg");
	assert_string_equal(jc.file, "/tmp/jobs");
	assert_true(jc.threshold == 0 && jc.min_interval == 0.5);
	assert_true(jc.max_churn == 0.1);
	assert_int_equal(jc.wait, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s\n", bad[i]);
		assert_int_equal(parse(&c, line), 1);
		assert_non_null(
			strstr(last_error, "opensm.conf:1: croute_jobs_"));
	}
	cr_conf_jobs(&c, &jc);
	assert_string_equal(jc.file, "/tmp/jobs");
	assert_true(jc.threshold == 0 && jc.min_interval == 0.5);
	assert_int_equal(jc.wait, 0);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(line, sizeof(line), "# x\ncroute_jobs_file %s\n",
			 refused[i]);
		assert_int_equal(parse(&c, line), 1);
		assert_non_null(strstr(last_error, "opensm.conf:2: "
						   "croute_jobs_file"));
		assert_null(c.jobs_file[0] ? c.jobs_file : NULL);
	}
	assert_int_equal(parse(&c, "croute_jobs_file none\n"), 0);
	assert_int_equal(c.jobs_file[0], '\0');
}

/* cr-lash's keys: balance off and the path-SL dump on by default. */
static void test_lash_keys(void **state)
{
	struct cr_conf c;

	(void)state;
	cr_conf_defaults(&c);
	c.test_hooks = true;
	assert_false(c.lash_balance);
	assert_true(c.lash_sl_dump);
	assert_int_equal(parse(&c, "croute_lash_balance TRUE\n"
				   "croute_lash_sl_dump false\n"),
			 0);
	assert_true(c.lash_balance);
	assert_false(c.lash_sl_dump);
	assert_int_equal(parse(&c, "croute_lash_sl_dump 1\n"), 1);
	assert_non_null(strstr(last_error, "croute_lash_sl_dump"));
	assert_false(c.lash_sl_dump);
}

/* The exports for schedulers: both on by default, each can be turned off. */
static void test_dump_keys(void **state)
{
	struct cr_conf c;

	(void)state;
	cr_conf_defaults(&c);
	c.test_hooks = true;
	assert_true(c.dump_hosts);
	assert_true(c.dump_slurm);
	assert_int_equal(parse(&c, "croute_dump_hosts FALSE\n"), 0);
	assert_false(c.dump_hosts);
	assert_true(c.dump_slurm);
	assert_int_equal(parse(&c, "croute_dump_slurm false\n"
				   "croute_dump_hosts TRUE\n"),
			 0);
	assert_true(c.dump_hosts);
	assert_false(c.dump_slurm);
	assert_int_equal(parse(&c, "croute_dump_slurm yes\n"), 1);
	assert_non_null(strstr(last_error, "croute_dump_slurm"));
	assert_false(c.dump_slurm);
}

static void test_errors(void **state)
{
	struct cr_conf c;

	(void)state;
	cr_conf_defaults(&c);
	c.test_hooks = true;
	assert_int_equal(parse(&c, "remote_guid_sorting TRUE\n"
				   "remote_guid_sorting yes\n"),
			 1);
	/* The earlier value stays. */
	assert_true(c.remote_guid_sorting);
	assert_non_null(strstr(last_error, "opensm.conf:2"));
	assert_non_null(strstr(last_error, "remote_guid_sorting"));
	assert_non_null(strstr(last_error, "'yes'"));

	assert_int_equal(parse(&c, "\ncroute_no_such_key 3\n"), 1);
	assert_non_null(strstr(last_error, "opensm.conf:2"));
	assert_non_null(strstr(last_error, "croute_no_such_key"));
	/* The plugin goes on without the line, and says so; croute -F
	 * refuses the file, so its message must not. */
	assert_non_null(strstr(last_error, "ignored"));
	c.refuse = true;
	assert_int_equal(parse(&c, "croute_no_such_key 3\n"), 1);
	assert_null(strstr(last_error, "ignored"));
	assert_int_equal(parse(&c, "croute_balance sideways\n"), 1);
	assert_null(strstr(last_error, "default"));
	c.refuse = false;
	assert_int_equal(parse(&c, "croute_balance sideways\n"), 1);
	assert_non_null(strstr(last_error, "using the default"));

	assert_int_equal(parse(&c, "croute_fail_engine cr-nothing\n"
				   "croute_fail_engine minhop:never\n"
				   "croute_fail_engine a,a,a,a,a,a,a,a,a\n"),
			 3);
	assert_int_equal(c.num_fail, 0);

	/*
	 * A value only a higher layer can check is checked after parsing,
	 * named with its line all the same, and falls back to the default.
	 */
	/* (the candidate and objective parsers log their reason too) */
	assert_int_equal(parse_checked(&c, "croute_auto_candidates minhop\n"
					   "croute_auto_candidates nope\n"),
			 1);
	assert_non_null(strstr(last_error, "opensm.conf:2"));
	assert_non_null(strstr(last_error, "croute_auto_candidates 'nope'"));
	assert_string_equal(c.auto_candidates, "");
	assert_int_equal(
		parse_checked(&c, "croute_auto_objective shift:nope\n"), 1);
	assert_non_null(strstr(last_error, "opensm.conf:1"));
	assert_non_null(strstr(last_error, "croute_auto_objective"));
	assert_string_equal(c.auto_objective, "");
	assert_int_equal(parse_checked(&c, "croute_jobs_objective jobs:avg\n"
					   "croute_jobs_objective jobs:nope\n"),
			 1);
	assert_non_null(strstr(last_error, "opensm.conf:2"));
	assert_non_null(strstr(last_error, "croute_jobs_objective"));
	assert_string_equal(c.jobs_objective, "");
	assert_int_equal(parse_checked(&c,
				       "croute_jobs_objective jobs:min@2*0.9,"
				       "shift:avg*0.1\n"),
			 0);
	assert_string_equal(c.jobs_objective, "jobs:min@2*0.9,shift:avg*0.1");

	/* Outside the tests the hook is no key at all. */
	c.test_hooks = false;
	assert_int_equal(parse(&c, "croute_fail_engine all\n"), 1);
	assert_non_null(strstr(last_error, "unknown key croute_fail_engine"));
	assert_int_equal(c.num_fail, 0);
}

/*
 * cr-auto's order and objective; a host file that cannot be read is an
 * error naming the key and line, and the key keeps its value.
 */
static void test_auto_keys(void **state)
{
	struct cr_conf c;

	(void)state;
	cr_conf_defaults(&c);
	assert_int_equal(parse(&c, "croute_auto_hosts /dev/null\n"
				   "croute_auto_objective shift:avg@8:worst~1%,"
				   "alltoall:16:avg\n"),
			 0);
	assert_string_equal(c.auto_hosts, "/dev/null");
	assert_string_equal(c.auto_objective,
			    "shift:avg@8:worst~1%,alltoall:16:avg");
	assert_int_equal(parse(&c, "\ncroute_auto_hosts /no/such/file\n"), 1);
	assert_non_null(strstr(last_error, "opensm.conf:2"));
	assert_non_null(strstr(last_error, "croute_auto_hosts"));
	assert_string_equal(c.auto_hosts, "/dev/null");
	assert_int_equal(parse(&c, "croute_auto_hosts none\n"), 0);
	assert_string_equal(c.auto_hosts, "");
}

static int parse_guids(const char *text, struct cr_guid_list *l)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(in);
	num_errors = 0;
	ret = cr_guid_file_parse(in, "roots", "root_guid_file", l);
	fclose(in);
	return ret;
}

static void test_guid_file(void **state)
{
	struct cr_guid_list l = {0};

	(void)state;
	assert_int_equal(parse_guids("# roots\n0x0002c90200000000\n"
				     "2c90200000001 spine-1\n\n",
				     &l),
			 0);
	assert_int_equal(l.count, 2);
	assert_true(l.guids[0] == 0x2c90200000000ULL);
	assert_true(l.guids[1] == 0x2c90200000001ULL);
	cr_guid_list_release(&l);

	/* strtoull alone would take -1 for 0xffffffffffffffff. */
	assert_int_equal(parse_guids("-1\n", &l), -1);
	assert_non_null(strstr(last_error, "roots:1"));
	assert_int_equal(parse_guids("0x1\n0\n", &l), -1);
	assert_non_null(strstr(last_error, "roots:2"));
	assert_int_equal(parse_guids("0x1g\n", &l), -1);
	assert_int_equal(parse_guids(" +5\n", &l), -1);
	cr_guid_list_release(&l);
}

/*
 * The plugin's root_guid_file (and the other GUID files) naming a
 * directory: fopen succeeds, getline fails with EISDIR. That is an error,
 * not an empty list (OpenSM's roots would be chosen silently).
 */
static void test_guid_file_directory(void **state)
{
	struct cr_guid_list l = {0};
	struct cr_options o;
	FILE *in = fopen(".", "r");

	(void)state;
	assert_non_null(in);
	last_error[0] = 0;
	assert_int_equal(cr_guid_file_parse(in, ".", "root_guid_file", &l), -1);
	assert_non_null(strstr(last_error, "root_guid_file"));
	assert_int_equal(l.count, 0);
	fclose(in);
	cr_options_init(&o);
	in = fopen(".", "r");
	assert_non_null(in);
	assert_int_equal(
		cr_port_order_parse(in, ".", "port_search_ordering_file", &o),
		-1);
	fclose(in);
	cr_options_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_lash_keys),
		cmocka_unit_test(test_background_keys),
		cmocka_unit_test(test_dump_keys),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_auto_keys),
		cmocka_unit_test(test_jobs_keys),
		cmocka_unit_test(test_guid_file),
		cmocka_unit_test(test_guid_file_directory),
	};

	cr_log_set(sink, NULL, CR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
