/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the fuzz targets share. Each target defines LLVMFuzzerTestOneInput;
 * built with clang -fsanitize=fuzzer it is a libFuzzer binary, built with
 * any compiler and replay.c it replays corpus files, so the corpus is
 * exercised (under ASan in the sanitizer build) even without clang.
 */
#ifndef CROUTE_FUZZ_H
#define CROUTE_FUZZ_H

/* memfd_create; fuzz.h comes first in every target. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <croute/model/log.h>
#include <croute/io/topo.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Messages are the expected outcome of most inputs: keep them quiet. */
static void fuzz_log_sink(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
}

static inline void fuzz_quiet(void)
{
	/* FUZZ_VERBOSE=1 shows what the readers say, to triage a crasher. */
	if (getenv("FUZZ_VERBOSE"))
		cr_log_set(NULL, NULL, CR_LOG_DEBUG);
	else
		cr_log_set(fuzz_log_sink, NULL, CR_LOG_ERROR);
}

/*
 * Readers that take a path get the input through a memfd, named by
 * /proc/self/fd/N: every fopen() of that name starts at offset 0, and
 * nothing touches the disk. Returns the path, or NULL.
 */
static inline const char *fuzz_memfd_path(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("croute-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return NULL;
	return path;
}

/* A NUL-terminated copy: string parsers need one. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/*
 * The fixed fabric the LFT and flows targets read against: a leaf/spine
 * tree with LMC 1, the same as corpus/topo/two-level-lmc1.topo, so the
 * seeds (croute route on that file) name its switches and hosts.
 */
static const char fuzz_fabric_text[] =
	"switchguid=0x2c90200000000\n"
	"Switch 2 \"S0\" # \"spine-0\" base port 0 lid 1 lmc 0\n"
	"[1] \"S1\"[3]\n"
	"[2] \"S2\"[3]\n"
	"switchguid=0x2c90200000001\n"
	"Switch 3 \"S1\" # \"leaf-0\" base port 0 lid 2 lmc 0\n"
	"[1] \"H0\"[1]\n"
	"[2] \"H2\"[1]\n"
	"switchguid=0x2c90200000002\n"
	"Switch 3 \"S2\" # \"leaf-1\" base port 0 lid 3 lmc 0\n"
	"[1] \"H4\"[1]\n"
	"[2] \"H6\"[1]\n"
	"caguid=0x2c90300000000\n"
	"Ca 1 \"H0\" # \"h0001 HCA-1\"\n"
	"[1](2c90300000001) \"S1\"[1] # lid 4 lmc 1 4xQDR\n"
	"caguid=0x2c90300000002\n"
	"Ca 1 \"H2\" # \"h0002 HCA-1\"\n"
	"[1](2c90300000003) \"S1\"[2] # lid 6 lmc 1 4xQDR\n"
	"caguid=0x2c90300000004\n"
	"Ca 1 \"H4\" # \"h0003 HCA-1\"\n"
	"[1](2c90300000005) \"S2\"[1] # lid 8 lmc 1 4xQDR\n"
	"caguid=0x2c90300000006\n"
	"Ca 1 \"H6\" # \"h0004 HCA-1\"\n"
	"[1](2c90300000007) \"S2\"[2] # lid 10 lmc 1 4xQDR\n";

/*
 * A topology read from memory: the input of the topology targets, or the
 * fixed fabric. NULL when the bytes are no topology (or size is 0).
 */
static inline struct cr_fabric *fuzz_topo_read(const void *data, size_t size,
					       const char *name)
{
	struct cr_fabric *f;
	FILE *in;

	/* fmemopen() of zero bytes fails with EINVAL. */
	if (!size)
		return NULL;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return NULL;
	f = cr_topo_read_file(in, name);
	fclose(in);
	return f;
}

static inline struct cr_fabric *fuzz_fabric(void)
{
	struct cr_fabric *f = fuzz_topo_read(
		fuzz_fabric_text, sizeof(fuzz_fabric_text) - 1, "fixed fabric");

	if (!f)
		abort();
	return f;
}

#endif
