// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The failures croute resilience tries: every switch cable or switch of
 * the fabric, or those a file lists (the cables of one rack, of a
 * maintenance window), named as an administrator reads them off the
 * fabric: GUIDs or node descriptions, and port numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <croute/io/topo.h>
#include <croute/model/log.h>
#include <croute/report/resil.h>

static int grow(struct cr_fault **v, uint32_t n, uint32_t *cap)
{
	struct cr_fault *nv;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 64;
	nv = realloc(*v, *cap * sizeof(**v));
	if (!nv) {
		cr_err("out of memory");
		return -1;
	}
	*v = nv;
	return 0;
}

int cr_faults_all(const struct cr_fabric *f, unsigned which,
		  struct cr_fault **out, uint32_t *n)
{
	struct cr_fault *v = NULL;
	uint32_t cnt = 0, cap = 0;

	for (uint32_t s = 0; (which & CR_FAULTS_CABLES) && s < f->num_switches;
	     s++) {
		uint32_t a = f->switches[s];
		const struct cr_node *na = &f->nodes[a];

		for (unsigned p = 1; p <= na->num_ports; p++) {
			uint32_t b = na->ports[p].remote;
			unsigned q = na->ports[p].remote_port;

			/* each cable once: from its lower end */
			if (b == CR_NO_NODE || !cr_is_switch(f, b) || b < a ||
			    (b == a && q < p))
				continue;
			if (grow(&v, cnt, &cap))
				goto fail;
			v[cnt++] = (struct cr_fault){CR_FAULT_CABLE, (uint8_t)p,
						     (uint8_t)q, a, b};
		}
	}
	for (uint32_t s = 0;
	     (which & CR_FAULTS_SWITCHES) && s < f->num_switches; s++) {
		if (grow(&v, cnt, &cap))
			goto fail;
		v[cnt++] = (struct cr_fault){CR_FAULT_SWITCH, 0, 0,
					     f->switches[s], CR_NO_NODE};
	}
	*out = v;
	*n = cnt;
	return 0;
fail:
	free(v);
	return -1;
}

/* The next word of *s, or a "quoted" one (quoted set); NULL at the end. */
static char *next_token(char **s, bool *quoted)
{
	char *p = *s, *t;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return NULL;
	*quoted = *p == '"';
	if (*quoted) {
		t = ++p;
		while (*p && *p != '"')
			p++;
		if (!*p)
			return NULL;
	} else {
		t = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (*p)
		*p++ = '\0';
	*s = p;
	return t;
}

/* A node by GUID (node or port GUID) or description; -1 with *why. */
static uint32_t find_node(const struct cr_fabric *f, const char *tok,
			  bool quoted, const char **why)
{
	uint32_t hit = CR_NO_NODE;

	if (!quoted && !strncmp(tok, "0x", 2)) {
		char *end;
		unsigned long long g;
		uint8_t port;

		errno = 0;
		g = strtoull(tok, &end, 16);
		if (!errno && !*end && end != tok + 2) {
			hit = cr_fabric_find_guid(f, g);
			if (hit == CR_NO_NODE)
				hit = cr_fabric_find_port_guid(f, g, &port);
			if (hit == CR_NO_NODE)
				*why = "no node has this GUID";
			return hit;
		}
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (strcmp(f->nodes[n].desc, tok))
			continue;
		if (hit != CR_NO_NODE) {
			*why = "several nodes have this description (give"
			       " the GUID)";
			return CR_NO_NODE;
		}
		hit = n;
	}
	if (hit == CR_NO_NODE)
		*why = "no node has this GUID or description";
	return hit;
}

static int parse_port(const char *tok, const struct cr_node *nd, unsigned *port,
		      const char **why)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = tok && isdigit((unsigned char)*tok) ? strtoul(tok, &end, 10) : 0;
	if (!tok || !isdigit((unsigned char)*tok) || errno || *end || !v ||
	    v > nd->num_ports) {
		*why = "not a port of that node";
		return -1;
	}
	*port = (unsigned)v;
	return 0;
}

/* One line's failure; -1 with *why (static) when it names none. */
static int parse_line(const struct cr_fabric *f, char *line,
		      struct cr_fault *out, const char **why)
{
	char *tok[5];
	bool q[5];
	unsigned nt = 0, pa, pb;
	uint32_t a, b;

	while (nt < 5 && (tok[nt] = next_token(&line, &q[nt])))
		nt++;
	if (nt != 1 && nt != 2 && nt != 4) {
		*why = "give a switch (NODE) or a cable (NODE PORT [NODE"
		       " PORT])";
		return -1;
	}
	a = find_node(f, tok[0], q[0], why);
	if (a == CR_NO_NODE)
		return -1;
	if (nt == 1) {
		if (!cr_is_switch(f, a)) {
			*why = "a failure of one node must be a switch";
			return -1;
		}
		*out = (struct cr_fault){CR_FAULT_SWITCH, 0, 0, a, CR_NO_NODE};
		return 0;
	}
	if (parse_port(tok[1], &f->nodes[a], &pa, why))
		return -1;
	if (f->nodes[a].ports[pa].remote == CR_NO_NODE) {
		*why = "no cable at that port";
		return -1;
	}
	b = f->nodes[a].ports[pa].remote;
	pb = f->nodes[a].ports[pa].remote_port;
	if (nt == 4) {
		uint32_t b2 = find_node(f, tok[2], q[2], why);
		unsigned p2;

		if (b2 == CR_NO_NODE ||
		    parse_port(tok[3], &f->nodes[b2], &p2, why))
			return -1;
		if (b2 != b || p2 != pb) {
			*why = "no cable between these two ports";
			return -1;
		}
	}
	*out = (struct cr_fault){CR_FAULT_CABLE, (uint8_t)pa, (uint8_t)pb, a,
				 b};
	return 0;
}

int cr_faults_read(const struct cr_fabric *f, const char *path,
		   struct cr_fault **out, uint32_t *n)
{
	FILE *in = cr_file_open_read(path);
	struct cr_fault *v = NULL;
	uint32_t cnt = 0, cap = 0;
	char *line = NULL;
	size_t len = 0;
	unsigned lineno = 0;
	int ret = -1;

	if (!in)
		return -1;
	while (getline(&line, &len, in) >= 0) {
		const char *why = NULL;
		char *s = line, *e = line + strlen(line);
		bool q;

		lineno++;
		while (e > s && (e[-1] == '\n' || e[-1] == '\r'))
			*--e = '\0';
		{
			char *probe = strdup(s), *ps = probe;

			if (!probe) {
				cr_err("out of memory");
				goto out;
			}
			q = next_token(&ps, &q) != NULL;
			free(probe);
		}
		if (!q)
			continue; /* blank or comment */
		if (grow(&v, cnt, &cap))
			goto out;
		if (parse_line(f, s, &v[cnt], &why)) {
			cr_err("%s:%u: %s", path, lineno, why);
			goto out;
		}
		cnt++;
	}
	if (ferror(in)) {
		cr_err("%s: %s", path, strerror(errno));
		goto out;
	}
	if (!cnt) {
		cr_err("%s: no failure listed", path);
		goto out;
	}
	*out = v;
	*n = cnt;
	v = NULL;
	ret = 0;
out:
	free(v);
	free(line);
	fclose(in);
	return ret;
}
