// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Whether opensm can load the plugin, judged from the files. dlopen-ing
 * the plugin here would prove nothing: a plugin linked with BIND_NOW (as
 * Debian's hardening links it) binds every symbol at load, and the ones
 * only the opensm program exports (osm_sm_sweep...) are not in this
 * process. So the plugin's undefined, non-weak dynamic symbols are looked
 * up where the loader will look in opensm's process: the opensm program's
 * exports, then the libraries opensm and the plugin need (loaded here,
 * each with its own dependencies, never the plugin). design.md, "croute
 * doctor".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlvsym, dladdr */
#endif
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_load.h"
#include "elf_dyn.h"

#define MAX_LIBS 64
#define MAX_NAMED 5 /* missing symbols named in the message */

struct judge {
	struct elf_dyn osm, plugin;
	void *libs[MAX_LIBS];
	const char *lib_names[MAX_LIBS];
	unsigned nlibs;
	char **why;
};

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *format(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* A file of this machine the loader could map, in dir. */
static char *try_dir(const char *dir, size_t len, const char *name,
		     unsigned machine)
{
	struct elf_dyn e;
	char err[128];
	char *p = format("%.*s/%s", (int)len, dir, name);

	if (p && !elf_dyn_open(&e, p, err, sizeof(err))) {
		bool ok = e.machine == machine;

		elf_dyn_close(&e);
		if (ok)
			return p;
	}
	free(p);
	return NULL;
}

static char *try_path_list(const char *list, const char *name, unsigned machine)
{
	char *p = NULL;

	while (list && *list && !p) {
		size_t len = strcspn(list, ":;");

		if (len)
			p = try_dir(list, len, name, machine);
		list += len;
		list += *list != '\0';
	}
	return p;
}

/* ld.so.cache, through ldconfig -p: "\tNAME (flags) => PATH". */
static char *try_cache(const char *name, unsigned machine)
{
	static const char *const ldconfig[] = {
		"/sbin/ldconfig",
		"/usr/sbin/ldconfig",
	};
	char line[PATH_MAX + 256], *arrow, *p = NULL, *cmd;
	size_t nlen = strlen(name);
	FILE *fp = NULL;

	for (unsigned i = 0; i < 2 && !fp; i++) {
		cmd = format("%s -p 2>/dev/null", ldconfig[i]);
		fp = cmd ? popen(cmd, "r") : NULL;
		free(cmd);
	}
	while (fp && fgets(line, sizeof(line), fp)) {
		char *l = line + strspn(line, " \t");

		arrow = strstr(l, " => ");
		if (p || strncmp(l, name, nlen) || l[nlen] != ' ' || !arrow)
			continue;
		arrow += 4;
		arrow[strcspn(arrow, "\r\n")] = '\0';
		p = try_dir(arrow, strrchr(arrow, '/') - arrow, name, machine);
	}
	if (fp)
		pclose(fp);
	return p;
}

/*
 * As the loader finds a name dlopen gets from opensm (dlopen(3)): opensm's
 * DT_RPATH unless it has a DT_RUNPATH, LD_LIBRARY_PATH, its DT_RUNPATH,
 * ld.so.cache, then the system directories, among them the one this
 * process's C library came from (the multiarch one on Debian).
 */
static char *find_library(const struct elf_dyn *osm, const char *name)
{
	const char *runpath = elf_dyn_tag_str(osm, DT_RUNPATH, 0);
	char *p = NULL;
	Dl_info info;

	if (strchr(name, '/'))
		return format("%s", name);
	if (!runpath)
		p = try_path_list(elf_dyn_tag_str(osm, DT_RPATH, 0), name,
				  osm->machine);
	if (!p)
		p = try_path_list(getenv("LD_LIBRARY_PATH"), name,
				  osm->machine);
	if (!p)
		p = try_path_list(runpath, name, osm->machine);
	if (!p)
		p = try_cache(name, osm->machine);
	if (!p && dladdr((void *)&fopen, &info) && info.dli_fname &&
	    strrchr(info.dli_fname, '/'))
		p = try_dir(info.dli_fname,
			    strrchr(info.dli_fname, '/') - info.dli_fname, name,
			    osm->machine);
	if (!p)
		p = try_path_list("/lib:/usr/lib:/lib64:/usr/lib64", name,
				  osm->machine);
	return p;
}

/* A program given without a '/' is found in PATH, as execvp would. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return format("%s", name);
	while (path && *path) {
		size_t len = strcspn(path, ":");
		char *p = format("%.*s/%s", (int)len, len ? path : ".", name);

		if (p && !access(p, X_OK))
			return p;
		free(p);
		path += len;
		path += *path != '\0';
	}
	return NULL;
}

/* The libraries e needs, loaded here (not e): 0, or -1 with *why. */
static int load_needed(struct judge *j, const struct elf_dyn *e,
		       const char *who)
{
	const char *name;

	for (unsigned i = 0; (name = elf_dyn_tag_str(e, DT_NEEDED, i)); i++) {
		bool seen = false;
		void *h;

		for (unsigned k = 0; k < j->nlibs; k++)
			seen |= !strcmp(j->lib_names[k], name);
		if (seen)
			continue;
		h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
		if (!h) {
			*j->why =
				format("%s needs %s: %s", who, name, dlerror());
			return -1;
		}
		if (j->nlibs == MAX_LIBS) {
			dlclose(h);
			*j->why = format("%s needs more than %d libraries", who,
					 MAX_LIBS);
			return -1;
		}
		j->lib_names[j->nlibs] = name;
		j->libs[j->nlibs++] = h;
	}
	return 0;
}

static bool defined(const struct judge *j, const char *name,
		    const char *version)
{
	if (elf_dyn_exports(&j->osm, name))
		return true;
	for (unsigned k = 0; k < j->nlibs; k++)
		if (*version ? dlvsym(j->libs[k], name, version)
			     : dlsym(j->libs[k], name))
			return true;
	return false;
}

/* The plugin's symbols nobody in opensm's process defines: 0 or -1. */
static int check_symbols(struct judge *j, const char *opensm)
{
	char *named = NULL, *more;
	const char *name, *version;
	unsigned missing = 0;

	for (size_t i = 1; i < j->plugin.nsyms; i++) {
		name = elf_dyn_needs(&j->plugin, i, &version);
		if (!name || defined(j, name, version))
			continue;
		if (++missing > MAX_NAMED)
			continue;
		more = format("%s%s%s%s%s", named ? named : "",
			      named ? ", " : "", name, *version ? "@" : "",
			      version);
		free(named);
		named = more;
	}
	if (!missing)
		return 0;
	*j->why = format("undefined symbol: %s%s: neither %s nor the"
			 " libraries it and the plugin need define %s; the"
			 " plugin was built for another OpenSM",
			 named ? named : "?",
			 missing > MAX_NAMED ? " and more" : "", opensm,
			 missing == 1 ? "it" : "them");
	free(named);
	return -1;
}

static enum doctor_load_result judge(struct judge *j, const char *plugin,
				     const char *osm_path, char **found,
				     char **version)
{
	const char *v;
	char err[128];

	if (elf_dyn_open(&j->plugin, plugin, err, sizeof(err))) {
		*j->why = format("%s: %s", plugin, err);
		return DOCTOR_NO_LOAD;
	}
	if (j->plugin.machine != j->osm.machine) {
		*j->why = format("%s is for another machine than %s", plugin,
				 osm_path);
		return DOCTOR_NO_LOAD;
	}
	if (load_needed(j, &j->osm, osm_path))
		return DOCTOR_NO_OPENSM;
	if (load_needed(j, &j->plugin, plugin) || check_symbols(j, osm_path))
		return DOCTOR_NO_LOAD;
	v = elf_dyn_object_str(&j->plugin, "osm_event_plugin");
	if (!v) {
		*j->why = format("%s has no osm_event_plugin: not an OpenSM"
				 " plugin",
				 plugin);
		return DOCTOR_NO_LOAD;
	}
	*found = format("%s", plugin);
	*version = format("%s", v);
	return DOCTOR_LOADS;
}

enum doctor_load_result doctor_load(const char *plugin, const char *opensm,
				    char **found, char **version, char **why)
{
	struct judge j = {.why = why};
	enum doctor_load_result r = DOCTOR_NO_OPENSM;
	char *osm_path = find_program(opensm), *lib = NULL;
	char err[128];

	*found = *version = *why = NULL;
	if (!osm_path)
		*why = format("no %s in PATH", opensm);
	else if (elf_dyn_open(&j.osm, osm_path, err, sizeof(err)))
		*why = format("cannot read %s: %s", osm_path, err);
	else if (!(lib = find_library(&j.osm, plugin)))
		*why = format("%s is not found in LD_LIBRARY_PATH, ld.so.cache"
			      " or the system's library directories",
			      plugin),
		r = DOCTOR_NO_LOAD;
	else
		r = judge(&j, lib, osm_path, found, version);
	for (unsigned k = 0; k < j.nlibs; k++)
		dlclose(j.libs[k]);
	elf_dyn_close(&j.plugin);
	elf_dyn_close(&j.osm);
	free(lib);
	free(osm_path);
	return r;
}
