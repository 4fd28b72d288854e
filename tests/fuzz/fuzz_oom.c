// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Out of memory. This target is linked with -Wl,--wrap for malloc,
 * calloc, realloc, strdup and getline, so the core's calls come here:
 * the first two input bytes (little endian) say which allocation, counted
 * from 1 in the run, fails (0: none); every later one fails too, as when
 * memory is really gone. The third byte picks the work: t a topology, l an
 * LFT dump of the fixed fabric, r a small topology routed by every engine,
 * g a GUID file (root_guid_file); the rest is the file. Each path must
 * end in an error or a result, never a crash or a leak, and a reader
 * whose allocation failed must say so: a topology or a GUID list returned
 * though an allocation failed (a partial read taken for the whole file)
 * aborts too, unless FUZZ_OOM_LENIENT=1.
 */
#include "fuzz.h"

#include <errno.h>

#include <croute/io/conf.h>
#include <croute/route/engine.h>
#include <croute/model/routing.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
ssize_t __real_getline(char **line, size_t *cap, FILE *fp);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
ssize_t __wrap_getline(char **line, size_t *cap, FILE *fp);

static unsigned long countdown; /* 0: no failure armed */
static bool failed; /* an allocation failed in this run */

static bool fail_now(void)
{
	if (failed)
		return true;
	if (!countdown || --countdown)
		return false;
	failed = true;
	return true;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return fail_now() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

ssize_t __wrap_getline(char **line, size_t *cap, FILE *fp)
{
	if (fail_now()) {
		errno = ENOMEM;
		return -1;
	}
	return __real_getline(line, cap, fp);
}

static void route_all(struct cr_fabric *f)
{
	struct cr_routing *r;
	struct cr_options o;

	if (f->num_nodes > 64 || (!f->max_lid && cr_fabric_assign_lids(f, 0)))
		return;
	r = cr_routing_new(f);
	if (!r)
		return;
	cr_options_init(&o);
	for (unsigned i = 0; cr_engines[i]; i++)
		cr_route(cr_engines[i], f, &o, r);
	cr_options_release(&o);
	cr_routing_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long at;
	struct cr_fabric *f;

	fuzz_quiet();
	if (size < 3)
		return 0;
	at = data[0] | (unsigned long)data[1] << 8;
	failed = false;
	if (data[2] == 'l') {
		/* The fixed fabric is built before the failure is armed. */
		struct cr_fabric *fx = fuzz_fabric();
		struct cr_routing *r = cr_routing_new(fx);
		const char *path = fuzz_memfd_path(data + 3, size - 3);

		if (!r || !path)
			abort();
		countdown = at;
		cr_lft_read(path, fx, r);
		countdown = 0;
		cr_routing_free(r);
		cr_fabric_free(fx);
	} else if (data[2] == 'g') {
		FILE *in = fmemopen((void *)(data + 3), size - 3, "r");
		struct cr_guid_list l = {0};
		int rc;

		if (!in)
			return 0;
		countdown = at;
		rc = cr_guid_file_parse(in, "fuzz", "root_guid_file", &l);
		countdown = 0;
		if (!rc && failed && !getenv("FUZZ_OOM_LENIENT"))
			abort();
		cr_guid_list_release(&l);
		fclose(in);
	} else if (data[2] == 't' || data[2] == 'r') {
		countdown = at;
		f = fuzz_topo_read(data + 3, size - 3, "fuzz");
		if (f && failed && !getenv("FUZZ_OOM_LENIENT"))
			abort();
		if (f && data[2] == 'r')
			route_all(f);
		countdown = 0;
		cr_fabric_free(f);
	}
	failed = false;
	return 0;
}
