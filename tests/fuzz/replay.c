// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Replays files (or every file of directories) through a fuzz target's
 * LLVMFuzzerTestOneInput, for builds without libFuzzer: the corpus and the
 * crashers kept as regressions still run in make check, under ASan and
 * UBSan in the sanitizer build.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *in = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!in) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *p;

			cap = cap ? 2 * cap : 4096;
			p = realloc(buf, cap);
			if (!p) {
				fprintf(stderr, "%s: out of memory\n", path);
				free(buf);
				fclose(in);
				return -1;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, in);
		len += n;
	} while (n);
	fclose(in);
	/* An exact-size copy, so ASan sees reads past the input's end. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned files = 0;
	int err = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *de;
		DIR *d;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			err |= replay_file(argv[i]);
			files++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		while ((de = readdir(d))) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i],
				 de->d_name);
			err |= replay_file(path);
			files++;
		}
		closedir(d);
	}
	printf("%s: %u inputs replayed\n", argv[0], files);
	return err ? 1 : 0;
}
