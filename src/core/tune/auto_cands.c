// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cr-auto's candidates: the list "all" stands for, parsing a list into
 * candidates (engine and toggles), the ones a fabric rules out before any
 * work, and the order they are tried in.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <croute/tune/auto.h>
#include <croute/model/buf.h>
#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/model/routing.h>

#include "auto_int.h"

/* Every engine and toggle worth trying, cheap and likely first. */
static const char *const all_candidates =
	"ftree,dfp,dfp+glob,dfp+rr,hyperx,updn+ps,updn+ps+rgs,updn,minhop+ps,"
	"minhop+ps+rgs,minhop,updn+glob,minhop+glob,updn+roots=ecc+ps,"
	"updn+roots=ecc+glob,updn+roots=top+ps,updn+roots=top+glob,"
	"updn+roots=file+ps,lash+ps+rgs+bal,lash+bal,lash+ps+bal,lash+ps,lash,"
	"lash+glob,lash+bal+glob,minhop+first,lash+first,lash+bal+rr,lash+rr";

static int parse_one(char *tok, struct cand *c, const char *what)
{
	struct cr_engine_set s;

	memset(c, 0, sizeof(*c));
	if (cr_engine_set_parse(tok, &s, what))
		return -1;
	c->e = s.e;
	c->ps = s.ps;
	c->rgs = s.rgs;
	c->bal = s.bal;
	c->glob = s.glob;
	c->first = s.first;
	c->rr = s.rr;
	c->roots = s.roots;
	c->roots_file = s.roots_file;
	memcpy(c->name, s.name, sizeof(c->name));
	return 0;
}

/* Parses the list ("all" expands); *out allocated. Count or -1. */
int auto_parse_candidates(const char *list, const char *what,
			  bool have_root_file, struct cand **out)
{
	char *copy, *save = NULL, *tok;
	struct cand *v = NULL;
	size_t cap = 0;
	int n = 0;

	if (!list || !strcmp(list, "all") || !*list)
		list = all_candidates;
	copy = strdup(list);
	if (!copy)
		goto oom;
	for (tok = strtok_r(copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		bool dflt = list == all_candidates;

		if (cr_grow(&v, &cap, (size_t)n + 1, sizeof(*v)))
			goto oom;
		if (parse_one(tok, &v[n], what) < 0)
			goto fail;
		/* "all": the root file's set only when there is one. */
		if (dflt && v[n].roots_file && !have_root_file)
			continue;
		/*
		 * cr-dfp's global balance (+glob, +rr) wins where group
		 * pairs share unequal numbers of cables, elsewhere it loses
		 * to its flow balance; other fabrics cr-dfp refuses.
		 */
		v[n].dfly_only =
			dflt && v[n].glob && !strcmp(v[n].e->name, "dfp");
		n++;
	}
	if (!n) {
		cr_err("%s: no candidate", what);
		goto fail;
	}
	free(copy);
	*out = v;
	return n;
oom:
	cr_err("%s: out of memory", what);
fail:
	free(copy);
	free(v);
	return -1;
}

int cr_auto_candidates_check(const char *list, const char *what)
{
	struct cand *v = NULL;
	int n = auto_parse_candidates(list, what, true, &v);

	free(v);
	return n < 0 ? -1 : 0;
}

/* Stable: ftree first, then the layered candidates, then the rest. */
void auto_layered_first(struct cand *v, int n)
{
	for (int pass = 0, k = 0; pass < 2; pass++)
		for (int i = k; i < n; i++) {
			bool first = pass == 0 ? !strcmp(v[i].e->name, "ftree")
					       : v[i].e->layered;

			if (first) {
				struct cand c = v[i];

				memmove(&v[k + 1], &v[k],
					(size_t)(i - k) * sizeof(*v));
				v[k++] = c;
			}
		}
}

/* cr-dfp before the first cr-lash, whose VLs it caps (vl_limit()). */
void auto_dfp_before_lash(struct cand *v, int n)
{
	int lash = -1;

	for (int i = 0; i < n; i++) {
		if (lash < 0 && !strcmp(v[i].e->name, "lash"))
			lash = i;
		if (lash >= 0 && !strcmp(v[i].e->name, "dfp")) {
			struct cand c = v[i];

			memmove(&v[lash + 1], &v[lash],
				(size_t)(i - lash) * sizeof(*v));
			v[lash] = c;
			return;
		}
	}
}

/* Candidates for a kind of fabric this one is not: not_here. */
int auto_mark_not_here(const struct cr_fabric *f, struct cand *v, int n)
{
	int dfly = -2;

	for (int i = 0; i < n; i++) {
		if (!v[i].dfly_only)
			continue;
		if (dfly == -2)
			dfly = cr_dfp_is_dragonfly(f);
		if (dfly < 0) {
			cr_err("cr-auto: out of memory");
			return -1;
		}
		v[i].not_here = !dfly;
	}
	return 0;
}

int cr_auto_candidate(const char *name, const struct cr_options *o,
		      const struct cr_engine **e, struct cr_options *co)
{
	char tok[sizeof(((struct cand *)0)->name)];
	struct cand c;

	if (!name || !*name || strlen(name) >= sizeof(tok))
		return -1;
	strcpy(tok, name);
	if (parse_one(tok, &c, "cr-auto's winner"))
		return -1;
	*co = *o;
	auto_cand_options(&c, co);
	/* as auto_run_one(): the file's roots only for the one asking */
	if (!strcmp(c.e->name, "updn") && !c.roots_file)
		co->root_guids.count = 0;
	*e = c.e;
	return 0;
}
