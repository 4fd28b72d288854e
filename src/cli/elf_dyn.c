// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An ELF file's dynamic symbols, needed libraries and relocations, read
 * through its section headers (which stripped libraries and programs
 * keep). Every offset is checked against the file: a damaged file is an
 * error, never a crash.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_dyn.h"

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define ELF_DATA_HERE ELFDATA2LSB
#else
#define ELF_DATA_HERE ELFDATA2MSB
#endif

/* Whether [off, off + len) is inside the file. */
static bool inside(const struct elf_dyn *e, size_t off, size_t len)
{
	return off <= e->size && len <= e->size - off;
}

static const elf_shdr *section(const struct elf_dyn *e, unsigned i)
{
	const elf_ehdr *h = (const void *)e->map;
	size_t off = h->e_shoff + (size_t)i * sizeof(elf_shdr);

	if (i >= h->e_shnum || !inside(e, off, sizeof(elf_shdr)))
		return NULL;
	return (const void *)(e->map + off);
}

/* The string table section i links to; NULL if it is not one. */
static const char *strings(const struct elf_dyn *e, unsigned i, size_t *len)
{
	const elf_shdr *s = section(e, i);

	if (!s || s->sh_type != SHT_STRTAB ||
	    !inside(e, s->sh_offset, s->sh_size))
		return NULL;
	*len = s->sh_size;
	return (const char *)e->map + s->sh_offset;
}

static const char *str_at(const char *tab, size_t len, size_t off)
{
	if (!tab || off >= len || !memchr(tab + off, '\0', len - off))
		return NULL;
	return tab + off;
}

static void read_section(struct elf_dyn *e, const elf_shdr *s)
{
	const void *p = e->map + s->sh_offset;

	if (!inside(e, s->sh_offset, s->sh_size))
		return;
	switch (s->sh_type) {
	case SHT_DYNSYM:
		e->syms = p;
		e->nsyms = s->sh_size / sizeof(elf_sym);
		e->str = strings(e, s->sh_link, &e->strsz);
		break;
	case SHT_GNU_versym:
		e->versym = p;
		break;
	case SHT_GNU_verneed:
		e->verneed = s->sh_offset;
		e->nverneed = s->sh_info;
		break;
	case SHT_DYNAMIC:
		e->dyn = p;
		e->ndyn = s->sh_size / sizeof(elf_dyn_ent);
		e->dynstr = strings(e, s->sh_link, &e->dynstrsz);
		break;
	}
}

static const char *check_header(const struct elf_dyn *e)
{
	const elf_ehdr *h = (const void *)e->map;

	if (e->size < sizeof(*h) || memcmp(h->e_ident, ELFMAG, SELFMAG))
		return "not an ELF file";
	if (h->e_ident[EI_CLASS] != ELF_CLASS_HERE ||
	    h->e_ident[EI_DATA] != ELF_DATA_HERE)
		return "an ELF file of another class or byte order";
	if (h->e_type != ET_DYN && h->e_type != ET_EXEC)
		return "not an ELF program or shared object";
	if (h->e_shentsize != sizeof(elf_shdr))
		return "an ELF file without section headers";
	return NULL;
}

int elf_dyn_open(struct elf_dyn *e, const char *path, char *err, size_t errlen)
{
	const char *why = NULL;
	struct stat st;
	int fd;

	memset(e, 0, sizeof(*e));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	e->size = (size_t)st.st_size;
	e->map = e->size ? mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0)
			 : MAP_FAILED;
	close(fd);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		snprintf(err, errlen, "%s",
			 e->size ? strerror(errno) : "an empty file");
		return -1;
	}
	why = check_header(e);
	if (!why) {
		const elf_ehdr *h = (const void *)e->map;

		e->machine = h->e_machine;
		for (unsigned i = 0; i < h->e_shnum; i++)
			if (section(e, i))
				read_section(e, section(e, i));
		if (!e->syms || !e->str || !e->dyn || !e->dynstr)
			why = "an ELF file without dynamic symbols";
		else if (e->versym &&
			 !inside(e,
				 (size_t)((const unsigned char *)e->versym -
					  e->map),
				 e->nsyms * sizeof(elf_half)))
			e->versym = NULL;
	}
	if (why) {
		snprintf(err, errlen, "%s", why);
		elf_dyn_close(e);
		return -1;
	}
	return 0;
}

void elf_dyn_close(struct elf_dyn *e)
{
	if (e->map)
		munmap(e->map, e->size);
	memset(e, 0, sizeof(*e));
}

const char *elf_dyn_tag_str(const struct elf_dyn *e, elf_sxword tag, unsigned i)
{
	for (size_t k = 0; k < e->ndyn && e->dyn[k].d_tag != DT_NULL; k++)
		if (e->dyn[k].d_tag == tag && !i--)
			return str_at(e->dynstr, e->dynstrsz,
				      e->dyn[k].d_un.d_val);
	return NULL;
}

/* The name of version index v in the version needs, "" if none. */
static const char *needed_version(const struct elf_dyn *e, unsigned v)
{
	size_t off = e->verneed;

	for (unsigned n = 0; off && n < e->nverneed; n++) {
		const elf_verneed *vn = (const void *)(e->map + off);
		size_t aoff;

		if (!inside(e, off, sizeof(*vn)))
			break;
		aoff = off + vn->vn_aux;
		for (unsigned a = 0; a < vn->vn_cnt; a++) {
			const elf_vernaux *va = (const void *)(e->map + aoff);

			if (!inside(e, aoff, sizeof(*va)))
				break;
			if ((va->vna_other & 0x7fff) == v) {
				const char *s = str_at(e->dynstr, e->dynstrsz,
						       va->vna_name);

				return s ? s : "";
			}
			if (!va->vna_next)
				break;
			aoff += va->vna_next;
		}
		if (!vn->vn_next)
			break;
		off += vn->vn_next;
	}
	return "";
}

const char *elf_dyn_needs(const struct elf_dyn *e, size_t i,
			  const char **version)
{
	const elf_sym *s;
	const char *name;

	if (!i || i >= e->nsyms)
		return NULL;
	s = &e->syms[i];
	if (s->st_shndx != SHN_UNDEF ||
	    ELF_ST_BIND_HERE(s->st_info) == STB_WEAK)
		return NULL;
	name = str_at(e->str, e->strsz, s->st_name);
	if (!name || !*name)
		return NULL;
	*version = e->versym ? needed_version(e, e->versym[i] & 0x7fff) : "";
	return name;
}

static const elf_sym *exported(const struct elf_dyn *e, const char *name)
{
	for (size_t i = 1; i < e->nsyms; i++) {
		const elf_sym *s = &e->syms[i];
		unsigned bind = ELF_ST_BIND_HERE(s->st_info);
		const char *n;

		if (s->st_shndx == SHN_UNDEF ||
		    (bind != STB_GLOBAL && bind != STB_WEAK &&
		     bind != STB_GNU_UNIQUE) ||
		    ELF_ST_VIS_HERE(s->st_other) == STV_HIDDEN ||
		    ELF_ST_VIS_HERE(s->st_other) == STV_INTERNAL)
			continue;
		n = str_at(e->str, e->strsz, s->st_name);
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

bool elf_dyn_exports(const struct elf_dyn *e, const char *name)
{
	return exported(e, name) != NULL;
}

/* The file offset of address addr, through the loadable segments. */
static bool file_offset(const struct elf_dyn *e, elf_addr addr, size_t *off)
{
	const elf_ehdr *h = (const void *)e->map;

	for (unsigned i = 0; i < h->e_phnum; i++) {
		size_t po = h->e_phoff + (size_t)i * sizeof(elf_phdr);
		const elf_phdr *p = (const void *)(e->map + po);

		if (!inside(e, po, sizeof(*p)) || p->p_type != PT_LOAD)
			continue;
		if (addr >= p->p_vaddr && addr - p->p_vaddr < p->p_filesz) {
			*off = p->p_offset + (addr - p->p_vaddr);
			return inside(e, *off, 1);
		}
	}
	return false;
}

/*
 * The value the loader stores at addr: a relocation's (a relative one's
 * addend, or a symbol's address plus addend) or else the file's word.
 */
static bool word_at(const struct elf_dyn *e, elf_addr addr, elf_addr *val)
{
	const elf_ehdr *h = (const void *)e->map;
	size_t off;

	for (unsigned i = 0; i < h->e_shnum; i++) {
		const elf_shdr *s = section(e, i);

		if (!s || s->sh_type != SHT_RELA ||
		    !inside(e, s->sh_offset, s->sh_size))
			continue;
		for (size_t k = 0; k < s->sh_size / sizeof(elf_rela); k++) {
			const elf_rela *r =
				(const elf_rela *)(e->map + s->sh_offset) + k;
			size_t sym = ELF_R_SYM_HERE(r->r_info);

			if (r->r_offset != addr)
				continue;
			*val = r->r_addend;
			if (sym && sym < e->nsyms)
				*val += e->syms[sym].st_value;
			return true;
		}
	}
	if (!file_offset(e, addr, &off) || !inside(e, off, sizeof(*val)))
		return false;
	memcpy(val, e->map + off, sizeof(*val));
	return true;
}

const char *elf_dyn_object_str(const struct elf_dyn *e, const char *sym)
{
	const elf_sym *s = exported(e, sym);
	elf_addr p;
	size_t off;

	if (!s || s->st_size < sizeof(p) || !word_at(e, s->st_value, &p) ||
	    !file_offset(e, p, &off) ||
	    !memchr(e->map + off, '\0', e->size - off))
		return NULL;
	return (const char *)e->map + off;
}
