// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An LD_PRELOAD shim for tests/cli/exits.sh: SIGTERM the process the
 * moment open() has made a temporary output file (a name with ".tmp."),
 * before the caller has done anything else. A signal there is rare in a
 * real run, so a test that only sends signals from outside seldom hits
 * it; with the shim every run does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

typedef int (*open_fn)(const char *, int, ...);

/* The real open() or open64() (sym), then the signal. */
static int open_then_signal(const char *sym, const char *path, int flags,
			    va_list ap)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, sym);
	mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
	int fd = real(path, flags, mode);

	if (fd >= 0 && (flags & O_CREAT) && strstr(path, ".tmp."))
		raise(SIGTERM);
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_then_signal("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_then_signal("open64", path, flags, ap);
	va_end(ap);
	return fd;
}
