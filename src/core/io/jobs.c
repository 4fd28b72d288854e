// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The jobs file (include/croute/io/jobs.h). Names are looked up in a
 * sorted index of the hosts' names, job ids in a hash set, and each host
 * remembers its job: a file of 100,000 lines reads in linear time plus a
 * logarithm a name. A bad line leaves only its job out, with a warning,
 * and after WARN_SHOWN of them a count, so that a broken file does not
 * flood the SM's log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/jobs.h>
#include <croute/io/topo.h>
#include <croute/model/buf.h>
#include <croute/model/clock.h>
#include <croute/model/log.h>

#define WARN_SHOWN 20
/* A jobs file larger than this is no jobs file. */
#define FILE_MAX (256u << 20)

struct named {
	const char *name;
	uint32_t host; /* index in the default hosts */
};

struct jobs_ctx {
	const struct cr_fabric *f;
	const struct cr_names *nm;
	const char *path;
	struct cr_hosts *all; /* every host, default order */
	struct named *index; /* by name */
	uint32_t num_named;
	uint32_t *owner; /* per host: its job + 1, 0: none */
	uint32_t *stamp; /* per host: the line that last named it */
	uint32_t *cur; /* this line's hosts */
	uint32_t num_cur;
	const char *unknown; /* the name not found, for the warning */
	size_t unknown_len;
	char **ids; /* hash set of job ids */
	size_t ids_cap;
	struct cr_jobs *out;
	size_t job_cap, ep_cap;
	unsigned line;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->host > y->host) - (x->host < y->host);
}

/* Hosts by name; of hosts sharing a name (one server's HCAs), the first. */
static int make_index(struct jobs_ctx *c)
{
	uint32_t n = 0;

	c->all = cr_hosts_default(c->f);
	if (!c->all)
		return -1;
	c->index = malloc((c->all->count + 1) * sizeof(*c->index));
	c->owner = calloc(c->all->count + 1, sizeof(*c->owner));
	c->stamp = calloc(c->all->count + 1, sizeof(*c->stamp));
	c->cur = malloc((c->all->count + 1) * sizeof(*c->cur));
	if (!c->index || !c->owner || !c->stamp || !c->cur)
		return -1;
	for (uint32_t i = 0; i < c->all->count; i++)
		c->index[i] = (struct named){
			cr_names_get(c->nm, c->all->ep[i].node), i};
	qsort(c->index, c->all->count, sizeof(*c->index), cmp_named);
	for (uint32_t i = 0; i < c->all->count; i++)
		if (!n || strcmp(c->index[n - 1].name, c->index[i].name))
			c->index[n++] = c->index[i];
	c->num_named = n;
	return 0;
}

static int cmp_len(const char *s, const char *name, size_t len)
{
	int d = strncmp(s, name, len);

	return d ? d : (s[len] != '\0');
}

static uint32_t lookup(const struct jobs_ctx *c, const char *name, size_t len)
{
	uint32_t lo = 0, hi = c->num_named;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int d = cmp_len(c->index[mid].name, name, len);

		if (!d)
			return c->index[mid].host;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

static int on_name(void *arg, const char *name, size_t len)
{
	struct jobs_ctx *c = arg;
	uint32_t h = lookup(c, name, len);

	if (h == UINT32_MAX) {
		c->unknown = name;
		c->unknown_len = len;
		return 1;
	}
	c->cur[c->num_cur++] = h;
	return 0;
}

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

/* The slot of id in the set: where it is, or the empty one it goes in. */
static char **id_slot(struct jobs_ctx *c, const char *id, size_t len)
{
	size_t i = hash(id, len) & (c->ids_cap - 1);

	while (c->ids[i] && cmp_len(c->ids[i], id, len))
		i = (i + 1) & (c->ids_cap - 1);
	return &c->ids[i];
}

static int ids_grow(struct jobs_ctx *c)
{
	char **old = c->ids;
	size_t cap = c->ids_cap;

	c->ids_cap = cap ? 2 * cap : 64;
	c->ids = calloc(c->ids_cap, sizeof(*c->ids));
	if (!c->ids) {
		c->ids = old;
		c->ids_cap = cap;
		return -1;
	}
	for (size_t i = 0; i < cap; i++)
		if (old[i])
			*id_slot(c, old[i], strlen(old[i])) = old[i];
	free(old);
	return 0;
}

static void left_out(struct jobs_ctx *c, const char *id, size_t len,
		     const char *why, const char *what, size_t what_len)
{
	if (c->out->left_out++ >= WARN_SHOWN)
		return;
	cr_warn("%s:%u: job %.*s left out: %s%s%.*s", c->path, c->line,
		(int)(len > 64 ? 64 : len), id, why, what ? ": " : "",
		(int)(what_len > 64 ? 64 : what_len), what ? what : "");
}

/* A job whose hosts are c->cur: checked against the others, then kept. */
static int add_job(struct jobs_ctx *c, const char *id, size_t len)
{
	struct cr_jobs *j = c->out;
	char **slot;

	for (uint32_t i = 0; i < c->num_cur; i++) {
		uint32_t h = c->cur[i];
		const char *name = cr_names_get(c->nm, c->all->ep[h].node);

		if (c->stamp[h] == c->line) {
			left_out(c, id, len, "a node listed twice", name,
				 strlen(name));
			return 0;
		}
		c->stamp[h] = c->line;
		if (c->owner[h]) {
			left_out(c, id, len, "a node already in job",
				 j->job[c->owner[h] - 1].id,
				 strlen(j->job[c->owner[h] - 1].id));
			return 0;
		}
	}
	if (2 * (j->num_jobs + 1) > c->ids_cap && ids_grow(c))
		return -1;
	slot = id_slot(c, id, len);
	if (*slot) {
		left_out(c, id, len, "a job id given twice", NULL, 0);
		return 0;
	}
	if (cr_grow(&j->job, &c->job_cap, j->num_jobs + 1, sizeof(*j->job)) ||
	    cr_grow(&j->hosts.ep, &c->ep_cap, j->hosts.count + c->num_cur,
		    sizeof(*j->hosts.ep)))
		return -1;
	*slot = strndup(id, len);
	if (!*slot)
		return -1;
	j->job[j->num_jobs] =
		(struct cr_job){*slot, j->hosts.count, c->num_cur, c->line};
	for (uint32_t i = 0; i < c->num_cur; i++) {
		c->owner[c->cur[i]] = j->num_jobs + 1;
		j->hosts.ep[j->hosts.count++] = c->all->ep[c->cur[i]];
	}
	j->num_jobs++;
	return 0;
}

static bool id_char(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '.' ||
	       ch == '+' || ch == '-';
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

/* The next word of s[*pos..end): its start and length (0: none). */
static size_t word(const char *s, size_t *pos, size_t end, const char **w)
{
	size_t start;

	while (*pos < end && is_space(s[*pos]))
		(*pos)++;
	start = *pos;
	while (*pos < end && !is_space(s[*pos]))
		(*pos)++;
	*w = s + start;
	return *pos - start;
}

/* One line, without its newline. 0, or -1 out of memory. */
static int parse_line(struct jobs_ctx *c, const char *s, size_t end)
{
	const char *id, *list, *extra, *why;
	size_t pos = 0, idl, ll;
	const char *hash_at = memchr(s, '#', end);
	int rc;

	if (hash_at)
		end = (size_t)(hash_at - s);
	idl = word(s, &pos, end, &id);
	if (!idl)
		return 0;
	ll = word(s, &pos, end, &list);
	if (!ll) {
		left_out(c, id, idl, "no NODELIST after the job id", NULL, 0);
		return 0;
	}
	if (word(s, &pos, end, &extra)) {
		left_out(c, id, idl, "more than JOBID NODELIST", NULL, 0);
		return 0;
	}
	for (size_t i = 0; i < idl; i++)
		if (!id_char(id[i])) {
			left_out(c, id, idl,
				 "a job id of letters, digits and"
				 " _.+- only",
				 NULL, 0);
			return 0;
		}
	if (memchr(s, '\0', end)) {
		left_out(c, id, idl, "a NUL byte in the line", NULL, 0);
		return 0;
	}
	c->num_cur = 0;
	c->unknown = NULL;
	rc = cr_hostlist_expand(list, ll, c->all->count, on_name, c, &why);
	if (rc && c->unknown) {
		left_out(c, id, idl, "no host of that name in the fabric",
			 c->unknown, c->unknown_len);
		return 0;
	}
	if (rc) {
		left_out(c, id, idl, why, list, ll);
		return 0;
	}
	return add_job(c, id, idl);
}

static void ctx_release(struct jobs_ctx *c)
{
	cr_hosts_free(c->all);
	free(c->index);
	free(c->owner);
	free(c->stamp);
	free(c->cur);
	free(c->ids); /* the strings are the jobs' ids */
}

struct cr_jobs *cr_jobs_parse(const struct cr_fabric *f,
			      const struct cr_names *nm, const char *text,
			      size_t len, const char *path)
{
	struct jobs_ctx c = {.f = f, .nm = nm, .path = path};
	struct cr_names *own = NULL;
	size_t pos = 0;

	if (!nm)
		c.nm = own = cr_names_new(f, NULL);
	c.out = calloc(1, sizeof(*c.out));
	if (!c.nm || !c.out || make_index(&c) || ids_grow(&c))
		goto oom;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;

		c.line++;
		if (parse_line(&c, text + pos, end - pos))
			goto oom;
		pos = end + 1;
	}
	if (c.out->left_out > WARN_SHOWN)
		cr_warn("%s: %u more jobs left out (not shown)", path,
			c.out->left_out - WARN_SHOWN);
	ctx_release(&c);
	cr_names_free(own);
	return c.out;
oom:
	cr_err("%s: out of memory reading the jobs", path);
	ctx_release(&c);
	cr_names_free(own);
	cr_jobs_free(c.out);
	return NULL;
}

struct cr_jobs *cr_jobs_read(const struct cr_fabric *f,
			     const struct cr_names *nm, const char *path)
{
	FILE *in = cr_file_open_read(path);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct cr_jobs *j = NULL;
	double t0 = cr_now();

	if (!in)
		return NULL;
	for (;;) {
		size_t got;

		if (cap - len < 65536) {
			char *b = cap >= FILE_MAX
					  ? NULL
					  : realloc(buf, cap + 65536 * 4);

			if (!b) {
				cr_err("%s: larger than %u MB, or out of"
				       " memory",
				       path, FILE_MAX >> 20);
				goto out;
			}
			buf = b;
			cap += 65536 * 4;
		}
		got = fread(buf + len, 1, cap - len, in);
		len += got;
		if (!got)
			break;
	}
	if (ferror(in)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		goto out;
	}
	j = cr_jobs_parse(f, nm, buf, len, path);
	if (j)
		cr_info("%s: %u jobs on %u hosts, %u left out, read in %.3f s",
			path, j->num_jobs, j->hosts.count, j->left_out,
			cr_now() - t0);
out:
	free(buf);
	fclose(in);
	return j;
}

void cr_jobs_free(struct cr_jobs *j)
{
	if (!j)
		return;
	for (uint32_t i = 0; i < j->num_jobs; i++)
		free(j->job[i].id);
	free(j->job);
	free(j->hosts.ep);
	free(j);
}

uint32_t cr_jobs_job_of(const struct cr_jobs *jobs, uint32_t i)
{
	for (uint32_t k = 0; k < jobs->num_jobs; k++)
		if (i - jobs->job[k].first < jobs->job[k].count)
			return k;
	return UINT32_MAX;
}
