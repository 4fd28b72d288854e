// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibnl system definitions (ibdm-ibnl-file(1)): where they are, and what
 * they say. Each .ibnl file holds board SYSTEMs, private to the file, and
 * one TOPSYSTEM whose comma-separated names are the types a topology file
 * may use. Opening the library only reads each file's TOPSYSTEM line; a
 * file is parsed when a plan first uses one of its types, so a broken
 * definition of a type no plan uses does no harm. The first file (in
 * search order, then by name) that defines a type is the one used.
 */
#define _GNU_SOURCE /* strverscmp, asprintf */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/io/ibdm.h>
#include <croute/model/log.h>

#include "ibdm_int.h"

static char **user_dirs;
static size_t n_user_dirs, user_dirs_cap;

int cr_ibdm_add_dir(const char *dir)
{
	char *d;

	if (cr_grow(&user_dirs, &user_dirs_cap, n_user_dirs + 1,
		    sizeof(*user_dirs)) ||
	    !(d = strdup(dir))) {
		cr_err("out of memory");
		return -1;
	}
	user_dirs[n_user_dirs++] = d;
	return 0;
}

/* The installed directory is named after ibdm's version: take the highest. */
const char *cr_ibdm_installed_dir(void)
{
	static const char *const patterns[] = {
		"/usr/lib/*-linux-*/ibdm*/ibnl",
		"/usr/lib64/ibdm*/ibnl",
		"/usr/lib/ibdm*/ibnl",
		"/usr/local/lib/ibdm*/ibnl",
	};
	static char found[512];
	static bool looked;

	if (looked)
		return found[0] ? found : NULL;
	looked = true;
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		glob_t g;
		const char *best = NULL;

		if (glob(patterns[i], GLOB_ONLYDIR, NULL, &g))
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			if (!best || strverscmp(g.gl_pathv[k], best) > 0)
				best = g.gl_pathv[k];
		if (best && strlen(best) < sizeof(found))
			strcpy(found, best);
		globfree(&g);
		if (found[0])
			return found;
	}
	return NULL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* "A, B,C" into names; -1 out of memory. */
static int split_names(char *s, char ***names, size_t *n)
{
	size_t cap = 0;
	char *save;

	*names = NULL;
	*n = 0;
	for (char *tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *t = trim(tok);

		if (!*t)
			continue;
		if (cr_grow(names, &cap, *n + 1, sizeof(**names)) ||
		    !((*names)[*n] = strdup(t)))
			return -1;
		(*n)++;
	}
	return 0;
}

/* The words after "TOPSYSTEM" or "SYSTEM" at the start of line, or NULL. */
static char *after_keyword(char *line, const char *kw)
{
	size_t n = strlen(kw);
	char *s = line;

	while (isspace((unsigned char)*s))
		s++;
	if (strncmp(s, kw, n) || !isspace((unsigned char)s[n]))
		return NULL;
	return s + n;
}

static int index_file(struct ibnl_lib *lib, const char *path)
{
	FILE *in = fopen(path, "r");
	struct ibnl_file *f;
	char *line = NULL, *names;
	size_t cap = 0;

	if (!in)
		return 0; /* unreadable: as if absent */
	if (cr_grow(&lib->files, &lib->files_cap, lib->nfiles + 1,
		    sizeof(*lib->files)))
		goto oom;
	f = &lib->files[lib->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		goto oom;
	lib->nfiles++;
	while (getline(&line, &cap, in) >= 0) {
		names = after_keyword(line, "TOPSYSTEM");
		if (names) {
			if (split_names(names, &f->tops, &f->ntops))
				goto oom;
			break;
		}
	}
	free(line);
	fclose(in);
	return 0;
oom:
	free(line);
	fclose(in);
	cr_err("out of memory");
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int index_dir(struct ibnl_lib *lib, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *p;

		if (len < 6 || strcmp(e->d_name + len - 5, ".ibnl"))
			continue;
		if (cr_grow(&names, &cap, n + 1, sizeof(*names)) ||
		    asprintf(&p, "%s/%s", dir, e->d_name) < 0) {
			cr_err("out of memory");
			ret = -1;
			break;
		}
		names[n++] = p;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!ret)
			ret = index_file(lib, names[i]);
		free(names[i]);
	}
	free(names);
	return ret;
}

int ibnl_lib_open(struct ibnl_lib *lib)
{
	const char *inst = cr_ibdm_installed_dir();

	memset(lib, 0, sizeof(*lib));
	for (size_t i = 0; i < n_user_dirs; i++) {
		DIR *d = opendir(user_dirs[i]);

		if (!d) {
			cr_err("--ibnl-dir %s: %s", user_dirs[i],
			       strerror(errno));
			return -1;
		}
		closedir(d);
		if (index_dir(lib, user_dirs[i]))
			return -1;
	}
	return inst ? index_dir(lib, inst) : 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void free_sys(struct ibnl_sys *s)
{
	free_names(s->names, s->nnames);
	for (size_t i = 0; i < s->ninsts; i++) {
		struct ibnl_inst *in = &s->insts[i];

		for (size_t k = 0; k < in->nconns; k++) {
			free(in->conns[k].port);
			free(in->conns[k].rinst);
			free(in->conns[k].rport);
		}
		free(in->conns);
		free(in->name);
		free(in->type);
	}
	free(s->insts);
	free(s);
}

void ibnl_lib_release(struct ibnl_lib *lib)
{
	for (size_t i = 0; i < lib->nfiles; i++) {
		struct ibnl_file *f = &lib->files[i];

		free(f->path);
		free_names(f->tops, f->ntops);
		for (size_t k = 0; k < f->nsys; k++)
			free_sys(f->systems[k]);
		free(f->systems);
	}
	free(lib->files);
	memset(lib, 0, sizeof(*lib));
}

uint64_t ibdm_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static enum cr_speed speed_of(const char *s, size_t len)
{
	static const struct {
		const char *gbps;
		enum cr_speed speed;
	} speeds[] = {
		{"2.5G", CR_SPEED_SDR}, {"5G", CR_SPEED_DDR},
		{"10G", CR_SPEED_QDR},	{"14G", CR_SPEED_FDR},
		{"25G", CR_SPEED_EDR},	{"50G", CR_SPEED_HDR},
	};

	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (strlen(speeds[i].gbps) == len &&
		    !strncasecmp(s, speeds[i].gbps, len))
			return speeds[i].speed;
	return CR_SPEED_UNKNOWN;
}

int ibnl_parse_arrow(const char *tok, uint8_t *width, enum cr_speed *speed)
{
	size_t len = strlen(tok);
	const char *s = tok + 1, *end = tok + len - 2;

	*width = 0;
	*speed = CR_SPEED_UNKNOWN;
	if (len < 2 || tok[0] != '-' || strcmp(tok + len - 2, "->"))
		return -1;
	if (len == 2)
		return 0;
	/* "-ATTR-ATTR->": each attribute between dashes. */
	while (s < end) {
		const char *d = memchr(s, '-', end - s);
		size_t n = d ? (size_t)(d - s) : (size_t)(end - s);
		unsigned w = 0;

		if (!n)
			return -1;
		if (n >= 2 && (s[n - 1] == 'x' || s[n - 1] == 'X')) {
			for (size_t i = 0; i + 1 < n; i++) {
				if (!isdigit((unsigned char)s[i]))
					return -1;
				w = w * 10 + (s[i] - '0');
			}
			if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
				return -1;
			*width = w;
		} else if ((*speed = speed_of(s, n)) == CR_SPEED_UNKNOWN) {
			return -1;
		}
		s = d ? d + 1 : end;
	}
	return 0;
}

/* Splits line into at most max whitespace-separated words. */
static size_t words(char *line, char **w, size_t max)
{
	size_t n = 0;
	char *save;

	for (char *t = strtok_r(line, " \t\r\n", &save); t && n < max;
	     t = strtok_r(NULL, " \t\r\n", &save))
		w[n++] = t;
	return n;
}

struct ibnl_parser {
	struct ibnl_file *f;
	unsigned line;
	struct ibnl_sys *sys;
	struct ibnl_inst *inst;
};

#define np_err(p, fmt, ...) \
	cr_err("%s:%u: " fmt, (p)->f->path, (p)->line, ##__VA_ARGS__)

static int new_sys(struct ibnl_parser *p, char *names, bool top)
{
	struct ibnl_file *f = p->f;
	struct ibnl_sys *s = calloc(1, sizeof(*s));

	if (!s || cr_grow(&f->systems, &f->sys_cap, f->nsys + 1,
			  sizeof(*f->systems))) {
		free(s);
		return -1;
	}
	f->systems[f->nsys++] = s;
	s->top = top;
	s->line = p->line;
	s->file = f;
	p->sys = s;
	p->inst = NULL;
	if (split_names(names, &s->names, &s->nnames))
		return -1;
	if (!s->nnames) {
		np_err(p, "a %s without a name", top ? "TOPSYSTEM" : "SYSTEM");
		return -2;
	}
	return 0;
}

static int new_inst(struct ibnl_parser *p, char **w, size_t n)
{
	bool node = !strcmp(w[0], "NODE");
	struct ibnl_sys *s = p->sys;
	struct ibnl_inst *in;
	char *end;
	unsigned long ports = 0;

	if (!s) {
		np_err(p, "%s outside a SYSTEM", w[0]);
		return -2;
	}
	if (node) {
		/* NODE SW|CA|HCA PORTS DEVICE NAME */
		if (n != 5 || (strcmp(w[1], "SW") && strcmp(w[1], "CA") &&
			       strcmp(w[1], "HCA"))) {
			np_err(p, "expected NODE SW|CA|HCA PORTS DEVICE NAME");
			return -2;
		}
		ports = strtoul(w[2], &end, 10);
		if (*end || ports < 1 || ports > CR_MAX_PORTS) {
			np_err(p, "bad port count '%s' (1..%u)", w[2],
			       CR_MAX_PORTS);
			return -2;
		}
	} else if (n != 3) {
		np_err(p, "expected SUBSYSTEM TYPE NAME");
		return -2;
	}
	if (cr_grow(&s->insts, &s->insts_cap, s->ninsts + 1, sizeof(*s->insts)))
		return -1;
	in = &s->insts[s->ninsts++];
	memset(in, 0, sizeof(*in));
	in->line = p->line;
	in->sw = node && !strcmp(w[1], "SW");
	in->nports = ports;
	in->name = strdup(node ? w[4] : w[2]);
	in->type = node ? NULL : strdup(w[1]);
	p->inst = in;
	return in->name && (node || in->type) ? 0 : -1;
}

static int new_conn(struct ibnl_parser *p, char **w, size_t n)
{
	struct ibnl_inst *in = p->inst;
	struct ibnl_conn *c;

	if (!in) {
		np_err(p, "a connection outside a NODE or SUBSYSTEM");
		return -2;
	}
	if (n < 3 || n > 4) {
		np_err(p, "expected PORT -> TARGET [PORT]");
		return -2;
	}
	if (cr_grow(&in->conns, &in->conns_cap, in->nconns + 1,
		    sizeof(*in->conns)))
		return -1;
	c = &in->conns[in->nconns];
	memset(c, 0, sizeof(*c));
	if (ibnl_parse_arrow(w[1], &c->width, &c->speed)) {
		np_err(p, "bad link '%s' (-> -4x-> -4x-5G-> -10G-> ...)", w[1]);
		return -2;
	}
	in->nconns++;
	c->line = p->line;
	c->port = strdup(w[0]);
	c->rinst = n == 4 ? strdup(w[2]) : NULL;
	c->rport = strdup(w[n - 1]);
	return c->port && c->rport && (n == 3 || c->rinst) ? 0 : -1;
}

static int parse_line(struct ibnl_parser *p, char *line)
{
	char *w[6], *rest;
	size_t n;
	bool top;

	if ((rest = after_keyword(line, "TOPSYSTEM")) ||
	    after_keyword(line, "SYSTEM")) {
		top = rest != NULL;
		return new_sys(p, rest ? rest : after_keyword(line, "SYSTEM"),
			       top);
	}
	if (strchr(line, '#'))
		*strchr(line, '#') = 0;
	/* Board attributes ("spine1/U1=isChaBma") change no cabling. */
	if (strchr(line, '=') && !strstr(line, "->"))
		return 0;
	n = words(line, w, 6);
	if (!n)
		return 0;
	if (!strcmp(w[0], "NODE") || !strcmp(w[0], "SUBSYSTEM"))
		return new_inst(p, w, n);
	return new_conn(p, w, n);
}

static int parse_file(struct ibnl_file *f)
{
	struct ibnl_parser p = {.f = f};
	FILE *in = fopen(f->path, "r");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	f->parsed = true;
	if (!in) {
		cr_err("%s: %s", f->path, strerror(errno));
		f->broken = true;
		return -1;
	}
	while (!ret && getline(&line, &cap, in) >= 0) {
		p.line++;
		ret = parse_line(&p, line);
	}
	free(line);
	fclose(in);
	if (ret == -1)
		cr_err("%s: out of memory", f->path);
	if (!ret && (!f->nsys || !f->systems[f->nsys - 1]->top)) {
		cr_err("%s: the last section is not a TOPSYSTEM", f->path);
		ret = -1;
	}
	f->broken = ret != 0;
	return ret ? -1 : 0;
}

static bool has_name(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

const struct ibnl_sys *ibnl_find_sys(const struct ibnl_file *file,
				     const char *name)
{
	for (size_t i = 0; i < file->nsys; i++)
		if (!file->systems[i]->top &&
		    has_name(file->systems[i]->names, file->systems[i]->nnames,
			     name))
			return file->systems[i];
	return NULL;
}

const struct ibnl_sys *ibnl_find_top(struct ibnl_lib *lib, const char *type,
				     bool *broken)
{
	*broken = false;
	for (size_t i = 0; i < lib->nfiles; i++) {
		struct ibnl_file *f = &lib->files[i];

		if (!has_name(f->tops, f->ntops, type))
			continue;
		if (!f->parsed)
			parse_file(f);
		if (f->broken) {
			*broken = true;
			return NULL;
		}
		for (size_t k = 0; k < f->nsys; k++)
			if (f->systems[k]->top &&
			    has_name(f->systems[k]->names,
				     f->systems[k]->nnames, type))
				return f->systems[k];
		*broken = true;
		cr_err("%s: its TOPSYSTEM line changed while read", f->path);
		return NULL;
	}
	return NULL;
}
