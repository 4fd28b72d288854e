/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * gzip input and output for the command (src/core/report/gzfile.c): after
 * cr_gz_register(), cr_file_open_read() reads gzip-compressed files (by
 * their magic bytes) and cr_file_create() compresses a path ending in
 * ".gz". The plugin never registers it and does not link zlib.
 */
#ifndef CROUTE_GZFILE_H
#define CROUTE_GZFILE_H

void cr_gz_register(void);

#endif
