/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The dynamic-linking facts of one ELF file of this machine's class, read
 * from the file, never loaded: what the dynamic loader would see (its
 * dynamic symbols, needed libraries and search paths). croute doctor
 * judges with them whether opensm can load the plugin (doctor_load.c).
 */
#ifndef CROUTE_CLI_ELF_DYN_H
#define CROUTE_CLI_ELF_DYN_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>

/* This machine's ELF class: the loader maps no other. */
#if __SIZEOF_POINTER__ == 8
#define ELF_CLASS_HERE ELFCLASS64
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Shdr elf_shdr;
typedef Elf64_Phdr elf_phdr;
typedef Elf64_Sym elf_sym;
typedef Elf64_Dyn elf_dyn_ent;
typedef Elf64_Half elf_half;
typedef Elf64_Rela elf_rela;
typedef Elf64_Verneed elf_verneed;
typedef Elf64_Vernaux elf_vernaux;
typedef Elf64_Addr elf_addr;
typedef Elf64_Sxword elf_sxword;
#define ELF_ST_BIND_HERE ELF64_ST_BIND
#define ELF_ST_VIS_HERE ELF64_ST_VISIBILITY
#define ELF_R_SYM_HERE ELF64_R_SYM
#else
#define ELF_CLASS_HERE ELFCLASS32
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Shdr elf_shdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Sym elf_sym;
typedef Elf32_Dyn elf_dyn_ent;
typedef Elf32_Half elf_half;
typedef Elf32_Rela elf_rela;
typedef Elf32_Verneed elf_verneed;
typedef Elf32_Vernaux elf_vernaux;
typedef Elf32_Addr elf_addr;
typedef Elf32_Sword elf_sxword;
#define ELF_ST_BIND_HERE ELF32_ST_BIND
#define ELF_ST_VIS_HERE ELF32_ST_VISIBILITY
#define ELF_R_SYM_HERE ELF32_R_SYM
#endif

struct elf_dyn {
	unsigned char *map;
	size_t size;
	const elf_sym *syms;
	size_t nsyms;
	const char *str; /* the symbols' string table */
	size_t strsz;
	const elf_half *versym; /* NULL: no symbol versions */
	size_t verneed; /* offset of the version needs; 0: none */
	unsigned nverneed;
	const elf_dyn_ent *dyn;
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
const char *elf_dyn_tag_str(const struct elf_dyn *e, elf_sxword tag,
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
