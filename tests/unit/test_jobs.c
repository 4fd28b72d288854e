// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The jobs file (include/croute/io/jobs.h): Slurm's hostlist syntax
 * expanded, names looked up, and every kind of bad line leaving only its
 * job out, with a warning naming file and line; random lines never crash
 * and never give a host to two jobs.
 */
#include <string.h>

#include <croute/io/jobs.h>
#include <croute/model/log.h>
#include <croute/model/rand.h>

#include "testutil.h"

struct names_out {
	char buf[4096];
	size_t len;
};

static int collect(void *arg, const char *name, size_t len)
{
	struct names_out *o = arg;

	assert_true(o->len + len + 2 < sizeof(o->buf));
	memcpy(o->buf + o->len, name, len);
	o->len += len;
	o->buf[o->len++] = ' ';
	o->buf[o->len] = '\0';
	return 0;
}

static void expect_expand(const char *list, const char *want)
{
	struct names_out o = {.len = 0};
	const char *why;

	o.buf[0] = '\0';
	assert_int_equal(
		cr_hostlist_expand(list, strlen(list), 1000, collect, &o, &why),
		0);
	assert_string_equal(o.buf, want);
}

static void test_expand(void **state)
{
	(void)state;
	expect_expand("h[0001-0004,0010],gpu07",
		      "h0001 h0002 h0003 h0004 h0010 gpu07 ");
	expect_expand("rack[1-2]-n[01-03]", "rack1-n01 rack1-n02 rack1-n03 "
					    "rack2-n01 rack2-n02 rack2-n03 ");
	expect_expand("n[8-10]", "n8 n9 n10 ");
	expect_expand("n[098-101]x", "n098x n099x n100x n101x ");
	expect_expand("a,b[7],c", "a b7 c ");
}

static void test_expand_bad(void **state)
{
	const char *bad[] = {"",
			     "h[",
			     "h]",
			     "h[1-",
			     "h[2-1]",
			     "h[a]",
			     "h[[1]]",
			     ",h",
			     "h,,x",
			     "h,",
			     "h[1,]",
			     "h[-1]",
			     "h[1-2x]",
			     "h[]",
			     "[1-3]]",
			     "h[0-9999999999999]",
			     "h[1234567890123456789012]"};
	struct names_out o;
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		o.len = 0;
		why = NULL;
		assert_int_equal(cr_hostlist_expand(bad[i], strlen(bad[i]), 100,
						    collect, &o, &why),
				 -1);
		assert_non_null(why);
	}
}

static char warned[8192];

static void keep_log(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	if (level <= CR_LOG_WARN &&
	    strlen(warned) + strlen(msg) + 2 < sizeof(warned)) {
		strcat(warned, msg);
		strcat(warned, "\n");
	}
}

static struct cr_jobs *parse(const struct cr_fabric *f, const char *text)
{
	struct cr_jobs *j;

	warned[0] = '\0';
	cr_log_set(keep_log, NULL, CR_LOG_WARN);
	j = cr_jobs_parse(f, NULL, text, strlen(text), "jobs.txt");
	cr_log_set(NULL, NULL, CR_LOG_WARN);
	return j;
}

static const char *host_name(const struct cr_fabric *f, const struct cr_jobs *j,
			     uint32_t i)
{
	return f->nodes[j->hosts.ep[i].node].desc;
}

static void test_read(void **state)
{
	/* 16 hosts h0000..h0015 on four leaves */
	struct cr_fabric *f = tu_two_level(4, 4, 2, NULL, 0);
	const char *text = "# running jobs\n"
			   "\n"
			   "101 h[0003-0001]\n" /* backwards: left out */
			   "102 h[0001-0002,0010]  # a comment\n"
			   "103 h0002\n" /* in 102 already */
			   "104 h0004,nosuch\n"
			   "105\n"
			   "106 h0005 h0006\n"
			   "102 h0007\n" /* id twice */
			   "107 h0008,h0008\n"
			   "bad/id h0009\n"
			   "\t108\th00[11-12],h0000\r\n";
	struct cr_jobs *j = parse(f, text);

	(void)state;
	assert_non_null(j);
	assert_int_equal(j->num_jobs, 2);
	assert_int_equal(j->left_out, 8);
	assert_string_equal(j->job[0].id, "102");
	assert_int_equal(j->job[0].line, 4);
	assert_int_equal(j->job[0].count, 3);
	assert_string_equal(host_name(f, j, 0), "h0001");
	assert_string_equal(host_name(f, j, 1), "h0002");
	assert_string_equal(host_name(f, j, 2), "h0010");
	assert_string_equal(j->job[1].id, "108");
	assert_int_equal(j->job[1].first, 3);
	assert_int_equal(j->job[1].count, 3);
	assert_string_equal(host_name(f, j, 3), "h0011");
	assert_string_equal(host_name(f, j, 5), "h0000");
	assert_int_equal(j->hosts.count, 6);
	assert_int_equal(cr_jobs_job_of(j, 4), 1);
	/* each warning names the file and line */
	assert_non_null(strstr(warned, "jobs.txt:3: job 101"));
	assert_non_null(strstr(warned, "jobs.txt:5: job 103"));
	assert_non_null(strstr(warned, "jobs.txt:6: job 104 left out: no host"
				       " of that name in the fabric: nosuch"));
	assert_non_null(strstr(warned, "jobs.txt:7: job 105"));
	assert_non_null(strstr(warned, "jobs.txt:8: job 106"));
	assert_non_null(strstr(warned, "jobs.txt:9: job 102"));
	assert_non_null(strstr(warned, "jobs.txt:10: job 107"));
	assert_non_null(strstr(warned, "jobs.txt:11: job bad/id"));
	cr_jobs_free(j);
	cr_fabric_free(f);
}

/* Every host at most once, and the jobs tile the host list. */
static void check_jobs(const struct cr_jobs *j)
{
	uint32_t next = 0;

	for (uint32_t k = 0; k < j->num_jobs; k++) {
		assert_int_equal(j->job[k].first, next);
		assert_true(j->job[k].count > 0);
		next += j->job[k].count;
	}
	assert_int_equal(next, j->hosts.count);
	for (uint32_t a = 0; a < j->hosts.count; a++)
		for (uint32_t b = a + 1; b < j->hosts.count; b++)
			assert_int_not_equal(j->hosts.ep[a].lid,
					     j->hosts.ep[b].lid);
}

/* Lines of bytes drawn from the syntax's own characters, and any bytes. */
static void test_fuzz_lines(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 4, 2, NULL, 0);
	const char alpha[] = "h0001[]-,# \t\n23x";
	uint64_t s = 7;
	char text[512];

	(void)state;
	for (unsigned round = 0; round < 3000; round++) {
		size_t n = cr_rand_next(&s) % (sizeof(text) - 1);
		struct cr_jobs *j;

		for (size_t i = 0; i < n; i++) {
			uint64_t r = cr_rand_next(&s);

			text[i] = round % 4 ? alpha[r % (sizeof(alpha) - 1)]
					    : (char)(r & 0xff);
		}
		text[n] = '\0';
		cr_log_set(keep_log, NULL, CR_LOG_ERROR);
		j = cr_jobs_parse(f, NULL, text, n, "fuzz");
		cr_log_set(NULL, NULL, CR_LOG_WARN);
		assert_non_null(j);
		check_jobs(j);
		cr_jobs_free(j);
	}
	cr_fabric_free(f);
}

/* Past the first warnings, one line says how many more. */
static void test_many_bad(void **state)
{
	struct cr_fabric *f = tu_two_level(4, 4, 2, NULL, 0);
	char text[8192];
	size_t len = 0;
	struct cr_jobs *j;

	(void)state;
	for (unsigned i = 0; i < 100; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%u h0001\n", i);
	j = parse(f, text);
	assert_int_equal(j->num_jobs, 1);
	assert_int_equal(j->left_out, 99);
	assert_non_null(strstr(warned, "jobs.txt: 79 more jobs left out"));
	cr_jobs_free(j);
	cr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_expand_bad),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_fuzz_lines),
		cmocka_unit_test(test_many_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
