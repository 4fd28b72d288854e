// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The table of engines, shared by the plugin and the command. */
#include <stdio.h>
#include <string.h>

#include <croute/route/engine.h>
#include <croute/model/log.h>
#include <croute/model/routing.h>

static const struct cr_engine minhop = {
	"minhop",
	"shortest paths, least-loaded port among equals",
	cr_minhop_route,
	false,
};
static const struct cr_engine updn = {
	"updn",
	"up*/down* shortest legal paths, credit-loop free",
	cr_updn_route,
	false,
};
static const struct cr_engine ftree = {
	"ftree",
	"fat-tree routing, congestion-free shift on full trees",
	cr_ftree_route,
	false,
};
static const struct cr_engine lash = {
	"lash",
	"shortest paths over deadlock-free virtual layers",
	cr_lash_route,
	true,
};

static const struct cr_engine dfp = {
	"dfp",
	"dragonfly+: minimal paths, third group where cut, 2 VLs",
	cr_dfp_route,
	true,
};

static const struct cr_engine hyperx = {
	"hyperx",
	"HyperX: dimension-ordered, 1 VL; around missing cables 2",
	cr_hyperx_route,
	true,
};

const struct cr_engine *const cr_engines[] = {
	&minhop, &updn, &ftree, &lash, &dfp, &hyperx, NULL,
};

const struct cr_engine *cr_engine_find(const char *name)
{
	if (!name)
		return NULL;
	if (!strncmp(name, "cr-", 3))
		name += 3;
	for (unsigned i = 0; cr_engines[i]; i++)
		if (!strcmp(cr_engines[i]->name, name))
			return cr_engines[i];
	return NULL;
}

/* A toggle's short name for a long one, else the name itself. */
static const char *toggle_name(const char *part)
{
	if (!strcmp(part, "port-shifting"))
		return "ps";
	if (!strcmp(part, "remote-guid-sorting"))
		return "rgs";
	if (!strcmp(part, "lash-balance"))
		return "bal";
	return part;
}

unsigned cr_rr_rounds(const struct cr_engine *e)
{
	return !strcmp(e->name, "dfp") || !strcmp(e->name, "hyperx")
		       ? CR_RR_ROUNDS_RANKED
		       : CR_RR_ROUNDS;
}

int cr_engine_set_parse(char *tok, struct cr_engine_set *s, const char *what)
{
	char *save = NULL, *part = strtok_r(tok, "+", &save);
	const char *t = "";

	memset(s, 0, sizeof(*s));
	s->e = part ? cr_engine_find(part) : NULL;
	if (!s->e) {
		cr_err("%s: unknown engine '%s' (minhop, updn, ftree, lash, dfp, hyperx)",
		       what, part ? part : "");
		return -1;
	}
	snprintf(s->name, sizeof(s->name), "%s", s->e->name);
	while ((part = strtok_r(NULL, "+", &save))) {
		t = toggle_name(part);
		if (!strcmp(t, "ps")) {
			s->ps = true;
		} else if (!strcmp(t, "rgs")) {
			s->rgs = true;
		} else if (!strcmp(t, "bal") && s->e->layered) {
			s->bal = true;
		} else if (!strcmp(t, "glob") && strcmp(s->e->name, "ftree")) {
			s->glob = true;
		} else if (!strcmp(t, "rr") &&
			   (!strcmp(s->e->name, "updn") ||
			    !strcmp(s->e->name, "minhop") ||
			    !strcmp(s->e->name, "lash") ||
			    !strcmp(s->e->name, "dfp") ||
			    !strcmp(s->e->name, "hyperx"))) {
			s->rr = true;
			s->glob = true;
		} else if (!strcmp(t, "first") && strcmp(s->e->name, "ftree")) {
			s->first = true;
		} else if (!strcmp(s->e->name, "updn") &&
			   !strncmp(t, "roots=", 6)) {
			const char *v = t + 6;

			if (!strcmp(v, "ecc"))
				s->roots = CR_ROOTS_ECC;
			else if (!strcmp(v, "top"))
				s->roots = CR_ROOTS_TOP;
			else if (!strcmp(v, "file"))
				s->roots_file = true;
			else if (strcmp(v, "auto"))
				goto bad;
		} else {
			goto bad;
		}
		strncat(s->name, "+", sizeof(s->name) - strlen(s->name) - 1);
		strncat(s->name, t, sizeof(s->name) - strlen(s->name) - 1);
	}
	return 0;
bad:
	cr_err("%s: '%s' is no toggle of %s (ps, rgs; glob, first but for ftree;"
	       " bal for lash; rr for lash, dfp, hyperx;"
	       " roots=auto|ecc|top|file for updn)",
	       what, t, s->e->name);
	return -1;
}
