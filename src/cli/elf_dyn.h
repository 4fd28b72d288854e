/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The dynamic-linking facts of one ELF file of this machine's class, read
 * from the file, never loaded: what the dynamic loader would see (its
 * dynamic symbols, needed libraries and search paths). croute doctor
 * judges with them whether opensm can load the plugin (doctor_load.c).
 */
#ifndef CROUTE_CLI_ELF_DYN_H
#define CROUTE_CLI_ELF_DYN_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>

struct elf_dyn {
	unsigned char *map;
	size_t size;
	const ElfW(Sym) * syms;
	size_t nsyms;
	const char *str; /* the symbols' string table */
	size_t strsz;
	const ElfW(Half) * versym; /* NULL: no symbol versions */
	size_t verneed; /* offset of the version needs; 0: none */
	unsigned nverneed;
	const ElfW(Dyn) * dyn;
	size_t ndyn;
	const char *dynstr;
	size_t dynstrsz;
	unsigned machine;
};

/*
 * Maps path and finds its dynamic sections. Returns 0, or -1 with why in
 * err (not there, not an ELF file of this machine's class, no dynamic
 * symbols).
 */
int elf_dyn_open(struct elf_dyn *e, const char *path, char *err, size_t errlen);
void elf_dyn_close(struct elf_dyn *e);

/* The i-th string of dynamic tag tag (DT_NEEDED...), NULL after the last. */
const char *elf_dyn_tag_str(const struct elf_dyn *e, ElfW(Sxword) tag,
			    unsigned i);

/*
 * Symbol i (from 1; 0 is the null symbol) when the loader must find it
 * elsewhere: undefined and not weak. *version is the version it needs
 * ("" for none). NULL when symbol i is not such a symbol.
 */
const char *elf_dyn_needs(const struct elf_dyn *e, size_t i,
			  const char **version);

/* Whether e defines and exports name, as the loader could bind to it. */
bool elf_dyn_exports(const struct elf_dyn *e, const char *name);

/*
 * The string a pointer at the start of exported object sym points to (the
 * first field of osm_event_plugin), relocations applied; NULL if none.
 */
const char *elf_dyn_object_str(const struct elf_dyn *e, const char *sym);

#endif
