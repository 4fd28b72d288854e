/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The jobs file: which hosts each running job has, as a batch system
 * (Slurm's PrologSlurmctld and EpilogSlurmctld, croute-slurm) keeps it.
 * One job a line, "JOBID NODELIST", NODELIST in Slurm's hostlist syntax
 * exactly as Slurm sets SLURM_JOB_NODELIST ("h[0001-0004,0010],gpu07",
 * "rack[1-2]-n[01-04]"); '#' starts a comment. doc/design.md, "File
 * formats", fixes the text.
 *
 * Names are host names as croute names hosts (include/croute/io/sched.h:
 * the node description's first word, or a node-name map). A bad line (a
 * name not in the fabric, malformed, a node already in an earlier job, a
 * job id given twice) is a warning naming file and line, and that job is
 * left out: the jobs that remain are still worth routing for.
 */
#ifndef CROUTE_JOBS_H
#define CROUTE_JOBS_H

#include <stddef.h>

#include <croute/io/sched.h>
#include <croute/model/hosts.h>

struct cr_job {
	char *id; /* JOBID as written */
	uint32_t first; /* its first host in cr_jobs.hosts */
	uint32_t count; /* its hosts, in NODELIST's order */
	unsigned line;
};

struct cr_jobs {
	struct cr_job *job;
	uint32_t num_jobs;
	/* every job's hosts, job after job; no host twice */
	struct cr_hosts hosts;
	uint32_t left_out; /* jobs warned about and left out */
};

/*
 * Reads path (nm: the hosts' names; NULL: the node descriptions' first
 * words). NULL (logged) when the file cannot be read or memory runs out;
 * bad lines only leave their job out.
 */
struct cr_jobs *cr_jobs_read(const struct cr_fabric *f,
			     const struct cr_names *nm, const char *path);
/* The same on len bytes of text; path only names it in messages. */
struct cr_jobs *cr_jobs_parse(const struct cr_fabric *f,
			      const struct cr_names *nm, const char *text,
			      size_t len, const char *path);
void cr_jobs_free(struct cr_jobs *j);

/* Hosts in the job of jobs->hosts index i: the job's index. Linear. */
uint32_t cr_jobs_job_of(const struct cr_jobs *jobs, uint32_t i);

/*
 * Slurm's hostlist expansion of len bytes of list: each name, in Slurm's
 * order, to fn(arg, name, name_len) (name is not NUL-terminated); fn
 * returns 0 to go on. Brackets hold comma-separated numbers and ranges
 * ("0001-0004": the width of the first number is kept), several bracket
 * groups in one name expand left to right (the leftmost varies slowest),
 * and at most max names come out. 0; -1 with *why set (a static text)
 * on a malformed list or past max; fn's non-zero return otherwise.
 */
#define CR_HOSTLIST_NAME_MAX 256
int cr_hostlist_expand(const char *list, size_t len, size_t max,
		       int (*fn)(void *arg, const char *name, size_t len),
		       void *arg, const char **why);

#endif
