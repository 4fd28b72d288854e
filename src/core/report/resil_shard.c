// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shard files of croute resilience: one part of a failure list's rows
 * with the header a report needs, figures as hexadecimal floating point
 * so that nothing is rounded on the way, and a digest of the fabric, the
 * configuration and the failure list that a merge holds every shard to.
 * One "key values" line each: doc/design.md gives the format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/topo.h>
#include <croute/model/log.h>
#include <croute/report/resil.h>

#define MAGIC "croute-resilience-shard 1"

/* A word: bytes a word cannot hold as %XX; "" as %00. */
static void put_word(FILE *out, const char *s)
{
	fputc(' ', out);
	if (!*s)
		fputs("%00", out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == '%' || c >= 0x7f)
			fprintf(out, "%%%02X", c);
		else
			fputc(c, out);
	}
}

static int get_word(const char *w, char *buf, size_t len)
{
	size_t n = 0;

	for (; *w; w++) {
		unsigned c = (unsigned char)*w;

		if (c == '%') {
			if (sscanf(w + 1, "%2X", &c) != 1)
				return -1;
			w += 2;
			if (!c)
				continue;
		}
		if (n + 1 >= len)
			return -1;
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return 0;
}

int cr_resil_write_shard(FILE *out, const struct cr_resil_report *rep,
			 uint32_t begin, uint32_t end, unsigned k, unsigned n)
{
	fprintf(out,
		MAGIC "\npart %u %u\ndigest 0x%016" PRIx64 "\ntotal %" PRIu32
		      "\norders %" PRIu32 "\nseed %" PRIu64 "\ntitle",
		k, n, rep->digest, rep->total, rep->orders, rep->seed);
	put_word(out, rep->title);
	fputs("\nconfig", out);
	put_word(out, rep->config);
	for (unsigned i = 0; i < rep->nchain; i++) {
		fputs("\nengine", out);
		put_word(out, rep->engines[i]);
	}
	for (unsigned i = 0; i < rep->npat; i++) {
		fputs("\npattern", out);
		put_word(out, rep->pat_name[i]);
		fprintf(out, " %a %a", rep->intact_avg[i], rep->intact_min[i]);
	}
	fprintf(out, "\nintact %a %" PRIu64 "\n", rep->intact_bw,
		rep->intact_pairs);
	for (uint32_t i = begin; i < end; i++) {
		const struct cr_resil_row *r = &rep->rows[i];

		fprintf(out,
			"row %" PRIu32 " %u %u %u 0x%" PRIx64 " 0x%" PRIx64
			" %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu32 " %a %" PRIu64 " %" PRIu64
			" %a",
			r->index, r->kind, r->port, r->rport, r->guid, r->rguid,
			r->engine, r->incremental, r->pairs, r->unreachable,
			r->loops, r->non_minimal, r->credit_loops,
			r->nodes_lost, r->bw, r->blocks, r->entries,
			r->seconds);
		for (unsigned p = 0; p < rep->npat; p++)
			fprintf(out, " %a %a", r->avg[p], r->min[p]);
		put_word(out, r->name);
		put_word(out, r->rname);
		fputc('\n', out);
	}
	fprintf(out, "end %" PRIu32 "\n", end - begin);
	return ferror(out) ? -1 : 0;
}

/* The words of a line (modified), at most max. */
static unsigned split(char *line, char **w, unsigned max)
{
	unsigned n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \n", &save); t && n < max;
	     t = strtok_r(NULL, " \n", &save))
		w[n++] = t;
	return n;
}

static int parse_row(char **w, unsigned nw, struct cr_resil_report *rep,
		     struct cr_resil_row *r)
{
	unsigned kind, port, rport, incr;
	int engine;
	char *end;

	if (nw != 21 + 2 * rep->npat)
		return -1;
	errno = 0;
	r->index = (uint32_t)strtoul(w[1], &end, 10);
	if (sscanf(w[2], "%u", &kind) != 1 || sscanf(w[3], "%u", &port) != 1 ||
	    sscanf(w[4], "%u", &rport) != 1 ||
	    sscanf(w[5], "%" SCNx64, &r->guid) != 1 ||
	    sscanf(w[6], "%" SCNx64, &r->rguid) != 1 ||
	    sscanf(w[7], "%d", &engine) != 1 || sscanf(w[8], "%u", &incr) != 1)
		return -1;
	if ((kind != CR_FAULT_CABLE && kind != CR_FAULT_SWITCH) || port > 255 ||
	    rport > 255 || engine < -1 || engine >= (int)rep->nchain ||
	    incr > 1)
		return -1;
	r->kind = (uint8_t)kind;
	r->port = (uint8_t)port;
	r->rport = (uint8_t)rport;
	r->engine = (int8_t)engine;
	r->incremental = incr;
	r->pairs = strtoull(w[9], &end, 10);
	r->unreachable = strtoull(w[10], &end, 10);
	r->loops = strtoull(w[11], &end, 10);
	r->non_minimal = strtoull(w[12], &end, 10);
	r->credit_loops = strtoull(w[13], &end, 10);
	r->nodes_lost = (uint32_t)strtoul(w[14], &end, 10);
	r->bw = strtod(w[15], &end);
	r->blocks = strtoull(w[16], &end, 10);
	r->entries = strtoull(w[17], &end, 10);
	r->seconds = strtod(w[18], &end);
	for (unsigned p = 0; p < rep->npat; p++) {
		r->avg[p] = strtod(w[19 + 2 * p], &end);
		r->min[p] = strtod(w[20 + 2 * p], &end);
	}
	if (errno || get_word(w[19 + 2 * rep->npat], r->name, CR_RESIL_NAME) ||
	    get_word(w[20 + 2 * rep->npat], r->rname, CR_RESIL_NAME))
		return -1;
	return 0;
}

/* The header line by line into h; -1 when a line is not what it must be. */
static int parse_head(char **w, unsigned nw, struct cr_resil_report *h,
		      unsigned *part)
{
	if (!strcmp(w[0], "part") && nw == 3)
		return sscanf(w[1], "%u", &part[0]) == 1 &&
				       sscanf(w[2], "%u", &part[1]) == 1
			       ? 0
			       : -1;
	if (!strcmp(w[0], "digest") && nw == 2)
		return sscanf(w[1], "%" SCNx64, &h->digest) == 1 ? 0 : -1;
	if (!strcmp(w[0], "total") && nw == 2)
		return sscanf(w[1], "%" SCNu32, &h->total) == 1 ? 0 : -1;
	if (!strcmp(w[0], "orders") && nw == 2)
		return sscanf(w[1], "%" SCNu32, &h->orders) == 1 ? 0 : -1;
	if (!strcmp(w[0], "seed") && nw == 2)
		return sscanf(w[1], "%" SCNu64, &h->seed) == 1 ? 0 : -1;
	if (!strcmp(w[0], "title") && nw == 2)
		return get_word(w[1], h->title, sizeof(h->title));
	if (!strcmp(w[0], "config") && nw == 2)
		return get_word(w[1], h->config, sizeof(h->config));
	if (!strcmp(w[0], "engine") && nw == 2 &&
	    h->nchain < CR_RESIL_MAX_CHAIN)
		return get_word(w[1], h->engines[h->nchain++],
				sizeof(h->engines[0]));
	if (!strcmp(w[0], "pattern") && nw == 4 &&
	    h->npat < CR_RESIL_MAX_PATS) {
		h->intact_avg[h->npat] = strtod(w[2], NULL);
		h->intact_min[h->npat] = strtod(w[3], NULL);
		return get_word(w[1], h->pat_name[h->npat++],
				sizeof(h->pat_name[0]));
	}
	if (!strcmp(w[0], "intact") && nw == 3) {
		h->intact_bw = strtod(w[1], NULL);
		return sscanf(w[2], "%" SCNu64, &h->intact_pairs) == 1 ? 0 : -1;
	}
	return -1;
}

/* Whether two shards' headers belong to one run. */
static bool same_run(const struct cr_resil_report *a,
		     const struct cr_resil_report *b)
{
	return a->digest == b->digest && a->total == b->total &&
	       a->shards == b->shards && a->orders == b->orders &&
	       a->seed == b->seed && a->npat == b->npat &&
	       a->nchain == b->nchain && !strcmp(a->title, b->title) &&
	       !strcmp(a->config, b->config) && a->intact_bw == b->intact_bw;
}

/*
 * The header read (h), held to the shards' before (rep) or, for the
 * first, taken as theirs. -2: malformed; -1: reported.
 */
static int complete_head(const char *path, struct cr_resil_report *h,
			 const unsigned *part, struct cr_resil_report *rep,
			 bool **have)
{
	h->shards = part[1];
	if (!part[1] || !part[0] || part[0] > part[1] || !h->npat)
		return -2;
	if (rep->rows) {
		if (same_run(rep, h))
			return 0;
		cr_err("%s: a shard of another fabric, configuration or"
		       " failure list than the shards before it (digest"
		       " 0x%016" PRIx64 ", not 0x%016" PRIx64 ")",
		       path, h->digest, rep->digest);
		return -1;
	}
	h->rows = calloc(h->total + 1, sizeof(*h->rows));
	*have = calloc(h->total + 1, sizeof(**have));
	if (!h->rows || !*have) {
		free(h->rows);
		cr_err("out of memory");
		return -1;
	}
	*rep = *h;
	return 0;
}

int cr_resil_read_shard(const char *path, struct cr_resil_report *rep,
			bool **have)
{
	FILE *in = cr_file_open_read(path);
	struct cr_resil_report h = {0};
	unsigned part[2] = {0, 0}, lineno = 0, nw;
	uint32_t rows = 0;
	char *line = NULL, *w[64];
	size_t len = 0;
	bool head = true, ended = false;
	int ret = -1;

	if (!in)
		return -1;
	while (getline(&line, &len, in) >= 0) {
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, MAGIC "\n"))
				goto bad;
			continue;
		}
		nw = split(line, w, 64);
		if (!nw || ended)
			goto bad;
		if (!strcmp(w[0], "end")) {
			if (nw != 2 || strtoul(w[1], NULL, 10) != rows)
				goto bad;
			if (head) {
				head = false;
				if ((ret = complete_head(path, &h, part, rep,
							 have)))
					goto out_bad;
			}
			ended = true;
			continue;
		}
		if (strcmp(w[0], "row")) {
			if (!head || parse_head(w, nw, &h, part))
				goto bad;
			continue;
		}
		if (head) {
			head = false;
			if ((ret = complete_head(path, &h, part, rep, have)))
				goto out_bad;
		}
		{
			struct cr_resil_row r = {0};

			if (parse_row(w, nw, rep, &r) || r.index >= rep->total)
				goto bad;
			if ((*have)[r.index]) {
				cr_err("%s:%u: failure %" PRIu32 " is in an"
				       " earlier shard too (a shard given"
				       " twice?)",
				       path, lineno, r.index);
				ret = -1;
				goto out;
			}
			(*have)[r.index] = true;
			rep->rows[r.index] = r;
			rows++;
		}
	}
	if (!ended)
		goto bad;
	ret = 0;
	goto out;
out_bad:
	if (ret != -2)
		goto out;
bad:
	cr_err("%s:%u: not a croute resilience shard, or cut short", path,
	       lineno);
	ret = -1;
out:
	free(line);
	fclose(in);
	return ret;
}
