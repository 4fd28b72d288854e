// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traffic patterns: their specifications ("shift:64") and their phases.
 * Phases are generated one at a time from the host order, so a pattern of
 * thousands of phases never holds more than one in memory. Random choices
 * (shift's phase sample, bisect's matchings) come from the seed alone,
 * each phase from its own stream, so a phase does not depend on which
 * others were run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/cmp.h>
#include <croute/model/log.h>
#include <croute/model/rand.h>
#include "phases.h"

static const char *const kind_names[] = {
	[CR_PAT_SHIFT] = "shift",	[CR_PAT_BISECT] = "bisect",
	[CR_PAT_ALLTOALL] = "alltoall", [CR_PAT_FANIN] = "fanin",
	[CR_PAT_FLOWS] = "flows",	[CR_PAT_RAIL_RING] = "rail-ring",
	[CR_PAT_JOBS] = "jobs",
};

const char *cr_pattern_kind_name(enum cr_pattern_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "?";
	return kind_names[kind];
}

void cr_pattern_release(struct cr_pattern *p)
{
	free(p->path);
	p->path = NULL;
}

int cr_pattern_parse(const char *spec, struct cr_pattern *p)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	unsigned k;

	memset(p, 0, sizeof(*p));
	p->seed = 1;
	for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strlen(kind_names[k]) == len &&
		    !strncmp(spec, kind_names[k], len))
			break;
	if (k == sizeof(kind_names) / sizeof(kind_names[0])) {
		cr_err("pattern \"%s\": unknown (shift, bisect, alltoall, "
		       "fanin, flows:FILE, rail-ring, jobs)",
		       spec);
		return -1;
	}
	p->kind = (enum cr_pattern_kind)k;
	if (p->kind == CR_PAT_FLOWS) {
		if (!colon || !colon[1]) {
			cr_err("pattern \"%s\": flows needs a file "
			       "(flows:FILE)",
			       spec);
			return -1;
		}
		p->path = strdup(colon + 1);
		if (!p->path) {
			cr_err("out of memory");
			return -1;
		}
		return 0;
	}
	if (colon) {
		unsigned long v;
		char *end;

		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (errno || *end || end == colon + 1 || !v || v > UINT32_MAX ||
		    p->kind == CR_PAT_RAIL_RING) {
			cr_err("pattern \"%s\": bad count \"%s\"", spec,
			       colon + 1);
			return -1;
		}
		p->count = (uint32_t)v;
	}
	return 0;
}

void cr_pattern_list_free(struct cr_pattern *pats, int n)
{
	for (int i = 0; i < n; i++)
		cr_pattern_release(&pats[i]);
	free(pats);
}

int cr_pattern_list_parse(const char *list, struct cr_pattern **pats)
{
	char *copy = strdup(list), *save = NULL, *tok;
	struct cr_pattern *out = NULL;
	size_t cap = 0;
	int n = 0;

	if (!copy)
		goto oom;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		for (char *e = tok + strlen(tok);
		     e > tok && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = '\0';
		if (!*tok)
			continue;
		if (cr_grow(&out, &cap, (size_t)n + 1, sizeof(*out)))
			goto oom;
		if (cr_pattern_parse(tok, &out[n]))
			goto fail;
		n++;
	}
	if (!n) {
		cr_err("pattern list \"%s\" is empty", list);
		goto fail;
	}
	free(copy);
	*pats = out;
	return n;
oom:
	cr_err("out of memory");
fail:
	cr_pattern_list_free(out, n);
	free(copy);
	return -1;
}

/* ---- phases ----------------------------------------------------------- */

static uint64_t rnd_next(uint64_t *s)
{
	return cr_rand_next(s);
}

/* Uniform in [0, n), without modulo bias. */
static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = rnd_next(s);
	while (v >= limit);
	return (uint32_t)(v % n);
}

static int cmp_ep(const void *a, const void *b)
{
	const struct cr_endpoint *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* A host twice would make it send to itself in some phase. */
static int check_hosts(const struct cr_fabric *f, const struct cr_hosts *h)
{
	struct cr_endpoint *s = malloc((h->count + 1) * sizeof(*s));

	if (!s) {
		cr_err("out of memory checking the host order");
		return -1;
	}
	memcpy(s, h->ep, h->count * sizeof(*s));
	qsort(s, h->count, sizeof(*s), cmp_ep);
	for (uint32_t i = 1; i < h->count; i++) {
		if (!cmp_ep(&s[i - 1], &s[i])) {
			char la[CR_NODE_LABEL_MAX];

			cr_err("host order: %s port %u appears twice",
			       cr_node_label(f, s[i].node, s[i].port, la,
					     sizeof(la)),
			       s[i].port);
			free(s);
			return -1;
		}
	}
	free(s);
	return 0;
}

/* Shift phases: all of 1..N-1, or a seeded sample of count of them. */
int cr_shift_labels(struct cr_pattern_run *pr)
{
	uint32_t all = pr->n - 1, k = pr->p->count;
	uint64_t s = pr->p->seed;

	pr->labels = malloc(all * sizeof(*pr->labels));
	if (!pr->labels)
		return -1;
	for (uint32_t i = 0; i < all; i++)
		pr->labels[i] = i + 1;
	if (!k || k >= all) {
		pr->num_phases = all;
		return 0;
	}
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = i + rnd_below(&s, all - i), t = pr->labels[i];

		pr->labels[i] = pr->labels[j];
		pr->labels[j] = t;
	}
	qsort(pr->labels, k, sizeof(*pr->labels), cr_cmp_u32);
	pr->num_phases = k;
	return 0;
}

int cr_pattern_start(struct cr_pattern_run *pr, const struct cr_fabric *f,
		     const struct cr_pattern *p, const struct cr_hosts *h)
{
	memset(pr, 0, sizeof(*pr));
	pr->p = p;
	pr->h = h;
	if (p->kind == CR_PAT_FLOWS) {
		if (cr_flows_read(f, p->path, &pr->file_flows,
				  &pr->num_file_flows))
			return -1;
		pr->num_phases = pr->phases_total = 1;
		pr->max_flows = pr->num_file_flows;
		return 0;
	}
	if (!h || h->count < 2) {
		cr_err("pattern %s needs at least two hosts (%u)",
		       cr_pattern_kind_name(p->kind), h ? h->count : 0);
		return -1;
	}
	if (check_hosts(f, h))
		return -1;
	if (p->kind == CR_PAT_JOBS)
		return cr_jobs_pattern_start(pr, f, p, h);
	pr->n = h->count;
	switch (p->kind) {
	case CR_PAT_SHIFT:
		if (cr_shift_labels(pr))
			goto oom;
		pr->phases_total = pr->n - 1;
		pr->max_flows = pr->n;
		break;
	case CR_PAT_BISECT:
		pr->num_phases = p->count ? p->count : 10;
		pr->perm = malloc(pr->n * sizeof(*pr->perm));
		if (!pr->perm)
			goto oom;
		pr->max_flows = pr->n / 2 * 2;
		break;
	case CR_PAT_ALLTOALL:
		pr->num_phases = 1;
		pr->fan =
			p->count && p->count < pr->n - 1 ? p->count : pr->n - 1;
		pr->perm = pr->fan < pr->n - 1
				   ? malloc(pr->n * sizeof(*pr->perm))
				   : NULL;
		if (pr->fan < pr->n - 1 && !pr->perm)
			goto oom;
		pr->max_flows = (size_t)pr->n * pr->fan;
		break;
	case CR_PAT_FANIN:
		pr->fan = p->count ? p->count : 16;
		if (pr->fan > pr->n - 1)
			pr->fan = pr->n - 1;
		pr->num_phases = 2;
		pr->max_flows = pr->fan;
		break;
	case CR_PAT_RAIL_RING:
		pr->num_phases = 1;
		pr->max_flows = pr->n;
		pr->ring_next = malloc(pr->n * sizeof(*pr->ring_next));
		if (!pr->ring_next || cr_rail_ring_next(f, h, pr->ring_next))
			goto oom;
		break;
	case CR_PAT_FLOWS:
	case CR_PAT_JOBS:
		break;
	}
	if (!pr->phases_total)
		pr->phases_total = pr->num_phases;
	return 0;
oom:
	cr_err("out of memory preparing pattern %s",
	       cr_pattern_kind_name(p->kind));
	cr_pattern_stop(pr);
	return -1;
}

void cr_pattern_stop(struct cr_pattern_run *pr)
{
	free(pr->labels);
	free(pr->perm);
	free(pr->file_flows);
	free(pr->ring_next);
	free(pr->job_start);
	memset(pr, 0, sizeof(*pr));
}

static void put(struct cr_flow *out, const struct cr_endpoint *src,
		const struct cr_endpoint *dst)
{
	out->src_node = src->node;
	out->src_port = src->port;
	out->dst_lid = dst->lid;
}

size_t cr_pattern_phase(struct cr_pattern_run *pr, uint32_t i,
			struct cr_flow *out, uint32_t *label)
{
	const struct cr_endpoint *ep = pr->h ? pr->h->ep : NULL;
	uint32_t n = pr->n, root, k;
	size_t m = 0;
	uint64_t s;

	*label = i + 1;
	switch (pr->p->kind) {
	case CR_PAT_SHIFT:
		/* mpiGraph's phase k: host j sends to host j + k */
		k = pr->labels[i];
		*label = k;
		for (uint32_t j = 0; j < n; j++)
			put(&out[m++], &ep[j], &ep[(j + k) % n]);
		break;
	case CR_PAT_BISECT:
		s = pr->p->seed ^ (0xd1b54a32d192ed03ULL * (i + 1));
		for (uint32_t j = 0; j < n; j++)
			pr->perm[j] = j;
		for (uint32_t j = 0; j + 1 < n; j++) {
			uint32_t r = j + rnd_below(&s, n - j), t = pr->perm[j];

			pr->perm[j] = pr->perm[r];
			pr->perm[r] = t;
		}
		for (uint32_t j = 0; j + 1 < n; j += 2) {
			put(&out[m++], &ep[pr->perm[j]], &ep[pr->perm[j + 1]]);
			put(&out[m++], &ep[pr->perm[j + 1]], &ep[pr->perm[j]]);
		}
		break;
	case CR_PAT_ALLTOALL:
		if (!pr->perm) {
			for (uint32_t a = 0; a < n; a++)
				for (uint32_t b = 0; b < n; b++)
					if (a != b)
						put(&out[m++], &ep[a], &ep[b]);
			break;
		}
		/*
		 * Sampled: each host to fan others drawn without repeat (a
		 * partial shuffle of the others), all at once, so that the
		 * flows stay n x fan, not n(n - 1), at scale.
		 */
		s = pr->p->seed ^ 0x9e3779b97f4a7c15ULL;
		for (uint32_t a = 0; a < n; a++) {
			for (uint32_t j = 0; j < n; j++)
				pr->perm[j] = j;
			pr->perm[a] = n - 1;
			pr->perm[n - 1] = a;
			for (uint32_t j = 0; j < pr->fan; j++) {
				uint32_t r = j + rnd_below(&s, n - 1 - j);
				uint32_t t = pr->perm[j];

				pr->perm[j] = pr->perm[r];
				pr->perm[r] = t;
				put(&out[m++], &ep[a], &ep[pr->perm[j]]);
			}
		}
		break;
	case CR_PAT_FANIN:
		/* the fan hosts after the root in host order */
		root = pr->p->root % n;
		for (uint32_t j = 1; j <= pr->fan; j++) {
			const struct cr_endpoint *o = &ep[(root + j) % n];

			if (i == 0)
				put(&out[m++], o, &ep[root]);
			else
				put(&out[m++], &ep[root], o);
		}
		break;
	case CR_PAT_RAIL_RING:
		for (uint32_t j = 0; j < n; j++)
			if (pr->ring_next[j] != UINT32_MAX)
				put(&out[m++], &ep[j], &ep[pr->ring_next[j]]);
		break;
	case CR_PAT_JOBS:
		m = cr_jobs_pattern_phase(pr, i, out, label);
		break;
	case CR_PAT_FLOWS:
		memcpy(out, pr->file_flows, pr->num_file_flows * sizeof(*out));
		m = pr->num_file_flows;
		break;
	}
	return m;
}

/* ---- the public iterator ---------------------------------------------- */

struct cr_phases {
	struct cr_pattern_run pr;
};

struct cr_phases *cr_phases_start(const struct cr_fabric *f,
				  const struct cr_pattern *p,
				  const struct cr_hosts *hosts)
{
	struct cr_phases *ph = calloc(1, sizeof(*ph));

	if (!ph) {
		cr_err("out of memory preparing pattern %s",
		       cr_pattern_kind_name(p->kind));
		return NULL;
	}
	if (cr_pattern_start(&ph->pr, f, p, hosts)) {
		free(ph);
		return NULL;
	}
	return ph;
}

uint32_t cr_phases_count(const struct cr_phases *ph)
{
	return ph->pr.num_phases;
}

uint32_t cr_phases_total(const struct cr_phases *ph)
{
	return ph->pr.phases_total;
}

size_t cr_phases_max_flows(const struct cr_phases *ph)
{
	return ph->pr.max_flows;
}

size_t cr_phases_get(struct cr_phases *ph, uint32_t i, struct cr_flow *out,
		     uint32_t *label)
{
	return cr_pattern_phase(&ph->pr, i, out, label);
}

void cr_phases_stop(struct cr_phases *ph)
{
	if (!ph)
		return;
	cr_pattern_stop(&ph->pr);
	free(ph);
}
