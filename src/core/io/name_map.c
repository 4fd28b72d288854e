// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Node name maps in the format of OpenSM's node_name_map_name and
 * infiniband-diags' --node-name-map: one "GUID name" a line, the GUID in
 * C notation (0x... hex), the name quoted ("...") or the rest of the line;
 * blank lines and lines starting '#' are skipped. OpenSM's own parser
 * (libosmcomp) says only that a file failed; this one names the line, so
 * that a broken map is an error the operator can fix, not a silent fall
 * back to ambiguous descriptions. A name replaces the node's description
 * everywhere, as OpenSM's print_desc does.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/io/topo.h>

#include <croute/model/guidmap.h>

/* The name of one line, in place; NULL when the line is malformed. */
static char *parse_line(char *s, uint64_t *guid)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return NULL;
	errno = 0;
	*guid = strtoull(s, &e, 0);
	if (errno || e == s || !isspace((unsigned char)*e))
		return NULL;
	while (isspace((unsigned char)*e))
		e++;
	if (*e == '"') {
		char *q = strchr(++e, '"');

		if (!q)
			return NULL;
		*q++ = '\0';
		while (isspace((unsigned char)*q))
			q++;
		if (*q && *q != '#')
			return NULL;
	} else {
		size_t n = strlen(e);

		while (n && isspace((unsigned char)e[n - 1]))
			e[--n] = '\0';
	}
	return *e ? e : NULL;
}

int cr_name_map_apply(const char *path, struct cr_fabric *f)
{
	struct cr_guidmap nodes = {0};
	char *buf = NULL, **names = NULL;
	size_t cap = 0;
	unsigned line = 0, mapped = 0;
	int err = 0;
	FILE *in = fopen(path, "r");

	if (!in) {
		cr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	names = calloc(f->num_nodes + 1, sizeof(*names));
	if (!names || cr_guidmap_init(&nodes, f->num_nodes))
		err = -1;
	for (uint32_t n = 0; !err && n < f->num_nodes; n++)
		if (cr_guidmap_put(&nodes, f->nodes[n].guid, n) < 0)
			err = -1;
	if (err)
		cr_err("%s: out of memory", path);
	while (!err && cr_getline(&buf, &cap, in, path, line + 1, &err) >= 0) {
		char *s = buf, *name;
		uint64_t guid;
		uint32_t n;

		line++;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		name = parse_line(s, &guid);
		if (!name && cr_file_kind(s) &&
		    !strstr(cr_file_kind(s), "node-name map")) {
			cr_err("%s:%u: this is %s (a node-name map is"
			       " expected)",
			       path, line, cr_file_kind(s));
			err = -1;
			break;
		}
		if (!name) {
			cr_err("%s:%u: expected \"0xGUID name\" or \"0xGUID"
			       " \\\"name\\\"\"",
			       path, line);
			err = -1;
			break;
		}
		n = cr_guidmap_get(&nodes, guid);
		if (n == CR_GUIDMAP_NONE)
			continue; /* maps cover whole sites */
		if (names[n]) {
			cr_warn("%s:%u: 0x%016" PRIx64 " is named again,"
				" ignored",
				path, line, guid);
			continue;
		}
		names[n] = strdup(name);
		if (!names[n]) {
			cr_err("%s: out of memory", path);
			err = -1;
		}
	}
	if (!err && ferror(in)) {
		cr_err("%s: read error: %s", path, strerror(errno));
		err = -1;
	}
	for (uint32_t n = 0; names && n < f->num_nodes; n++) {
		if (!names[n])
			continue;
		if (!err) {
			free(f->nodes[n].desc);
			f->nodes[n].desc = names[n];
			mapped++;
		} else {
			free(names[n]);
		}
	}
	if (!err)
		cr_verbose("%s: %u of %u nodes named", path, mapped,
			   f->num_nodes);
	free(names);
	free(buf);
	fclose(in);
	cr_guidmap_release(&nodes);
	return err;
}
