// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The host order for shift and the MPI hostfile (include/croute/io/sched.h).
 *
 * Why leaf by leaf, by LID, for engines without a CA order: with
 * port_shifting, minhop, updn and lash choose among equal up ports by
 * destination LID modulo the port count (D-mod-k). On a full fat tree
 * whose hosts have consecutive LIDs leaf by leaf, shift phase k then
 * sends each leaf's hosts to consecutive LIDs, which leave on distinct
 * up ports: no link carries two flows. Without port_shifting, the least
 * loaded pick gives no such guarantee (croute(1) gives figures).
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/io/sched.h>

struct host_key {
	uint16_t leaf_lid; /* lowest host LID on the host's leaf */
	uint16_t lid;
	uint32_t node;
	uint8_t port;
};

static int host_key_cmp(const void *a, const void *b)
{
	const struct host_key *x = a, *y = b;

	if (x->leaf_lid != y->leaf_lid)
		return x->leaf_lid < y->leaf_lid ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

/* The leaf of a CA port: the switch it is cabled to, or CR_NO_NODE. */
static uint32_t leaf_of(const struct cr_fabric *f, uint32_t n, unsigned p)
{
	uint32_t sw = f->nodes[n].ports[p].remote;

	return sw != CR_NO_NODE && cr_is_switch(f, sw) ? sw : CR_NO_NODE;
}

static struct cr_hosts *leaf_order(const struct cr_fabric *f)
{
	struct cr_hosts *h = calloc(1, sizeof(*h));
	uint16_t *leaf_min = calloc(f->num_nodes + 1, sizeof(*leaf_min));
	struct host_key *k = NULL;
	uint32_t n = 0;

	if (h && leaf_min) {
		size_t ports = 0;

		for (uint32_t i = 0; i < f->num_nodes; i++)
			ports += f->nodes[i].num_ports;
		k = malloc((ports + 1) * sizeof(*k));
		h->ep = malloc((ports + 1) * sizeof(*h->ep));
	}
	if (!h || !leaf_min || !k || !h->ep) {
		cr_err("out of memory ordering the hosts");
		goto fail;
	}
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct cr_node *nd = &f->nodes[i];

		if (nd->type == CR_NODE_SWITCH)
			continue;
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t sw = leaf_of(f, i, p);
			uint16_t lid = nd->ports[p].lid;

			if (nd->ports[p].remote == CR_NO_NODE || !lid)
				continue;
			k[n++] = (struct host_key){0, lid, i, (uint8_t)p};
			if (sw != CR_NO_NODE &&
			    (!leaf_min[sw] || lid < leaf_min[sw]))
				leaf_min[sw] = lid;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t sw = leaf_of(f, k[i].node, k[i].port);

		/* A CA cabled to a CA forms a "leaf" of its own. */
		k[i].leaf_lid = sw != CR_NO_NODE ? leaf_min[sw] : k[i].lid;
	}
	qsort(k, n, sizeof(*k), host_key_cmp);
	for (uint32_t i = 0; i < n; i++)
		h->ep[i] = (struct cr_endpoint){k[i].node, k[i].port, k[i].lid};
	h->count = n;
	free(k);
	free(leaf_min);
	return h;
fail:
	free(k);
	free(leaf_min);
	cr_hosts_free(h);
	return NULL;
}

struct cr_hosts *cr_hosts_shift_order(const struct cr_fabric *f,
				      const struct cr_byproducts *by,
				      const char **how)
{
	if (by && by->ca_order && by->num_ca_order) {
		if (how)
			*how = "the routing's CA order";
		return cr_hosts_from_lids(f, by->ca_order, by->num_ca_order);
	}
	if (how)
		*how = "leaf by leaf, by LID";
	return leaf_order(f);
}

struct name_pos {
	const char *name;
	uint32_t pos;
};

static int name_pos_cmp(const void *a, const void *b)
{
	const struct name_pos *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

long cr_hostfile_write(FILE *out, const struct cr_names *nm,
		       const struct cr_hosts *hosts, const char *comment)
{
	struct name_pos *v = malloc((hosts->count + 1) * sizeof(*v));
	bool *first = calloc(hosts->count + 1, sizeof(*first));
	long written = 0;

	if (!v || !first) {
		free(v);
		free(first);
		cr_err("out of memory writing the host file");
		return -1;
	}
	/* Each host at its first port's place: sort by name, keep the
	 * lowest position of each name. */
	for (uint32_t i = 0; i < hosts->count; i++)
		v[i] = (struct name_pos){cr_names_get(nm, hosts->ep[i].node),
					 i};
	qsort(v, hosts->count, sizeof(*v), name_pos_cmp);
	for (uint32_t i = 0; i < hosts->count; i++)
		if (!i || strcmp(v[i].name, v[i - 1].name))
			first[v[i].pos] = true;
	if (comment)
		fprintf(out, "# %s\n", comment);
	for (uint32_t i = 0; i < hosts->count; i++) {
		if (!first[i])
			continue;
		fprintf(out, "%s\n", cr_names_get(nm, hosts->ep[i].node));
		written++;
	}
	free(v);
	free(first);
	if (ferror(out))
		return -1;
	return written;
}
