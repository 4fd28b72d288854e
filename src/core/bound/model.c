// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One phase's fabric-level model for the bound's LPs and MIPs
 * (bound_int.h): the switch links with parallel links merged, the flows
 * with their switches, host-link rows and commodities, and the
 * coefficient triplets and capacity rows every formulation shares.
 * Linear in links and flows; the host-link keys are hashed.
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>

#include "bound_int.h"

void cr_bound_model_free_flows(struct model *m)
{
	free(m->src_sw);
	free(m->dst_sw);
	free(m->src_key);
	free(m->dst_key);
	free(m->inject);
	free(m->comm);
	free(m->comm_sw);
	free(m->key_cap);
	m->src_sw = m->dst_sw = m->src_key = m->dst_key = NULL;
	m->comm = m->comm_sw = NULL;
	m->inject = m->key_cap = NULL;
	m->ncomm = m->nkeys = 0;
}

void cr_bound_model_free(struct model *m)
{
	cr_bound_model_free_flows(m);
	free(m->edge);
	free(m->off);
	free(m->hops);
}

int cr_bound_model_edges(struct model *m, const struct cr_est *e)
{
	const struct cr_fabric *f = m->f;
	size_t alloc = 0;

	for (uint32_t s = 0; s < m->ns; s++) {
		uint32_t a = f->switches[s];
		uint32_t first = m->ne;

		for (unsigned p = 1; p <= f->nodes[a].num_ports; p++) {
			uint32_t b = cr_remote(f, a, p), k;
			double cap = cr_est_capacity(e, a, p) / 1000.0;

			if (b == CR_NO_NODE || !cr_is_switch(f, b) || b == a ||
			    cap <= 0)
				continue;
			for (k = first; k < m->ne; k++)
				if (m->edge[k].to == f->nodes[b].sw_index)
					break;
			if (k < m->ne) {
				m->edge[k].cap += cap;
				continue;
			}
			if (cr_grow(&m->edge, &alloc, (size_t)m->ne + 1,
				    sizeof(*m->edge)))
				return -1;
			m->edge[m->ne++] = (struct edge){
				.from = s,
				.to = f->nodes[b].sw_index,
				.cap = cap,
			};
		}
	}
	return 0;
}

/*
 * Host-link keys: a source port's up link and a destination port's down
 * link are distinct capacities; keys index them in the order first met.
 */
struct keymap {
	uint64_t *k;
	uint32_t *v;
	size_t size;
};

static uint32_t key_get(struct keymap *km, struct model *m, uint64_t key,
			double cap)
{
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 7) % km->size;

	while (km->v[h] != UINT32_MAX) {
		if (km->k[h] == key)
			return km->v[h];
		h = (h + 1) % km->size;
	}
	km->k[h] = key;
	km->v[h] = m->nkeys;
	m->key_cap[m->nkeys] = cap;
	return m->nkeys++;
}

int cr_bound_model_flows(struct model *m, const struct cr_est *e,
			 const struct cr_flow *flows)
{
	const struct cr_fabric *f = m->f;
	struct keymap km = {0};
	uint32_t *sw_comm = NULL;
	size_t n = m->n;
	int ret = -1;

	m->src_sw = malloc((n + 1) * sizeof(uint32_t));
	m->dst_sw = malloc((n + 1) * sizeof(uint32_t));
	m->src_key = malloc((n + 1) * sizeof(uint32_t));
	m->dst_key = malloc((n + 1) * sizeof(uint32_t));
	m->inject = calloc(n + 1, sizeof(double));
	m->comm = malloc((n + 1) * sizeof(uint32_t));
	m->comm_sw = malloc((m->ns + 1) * sizeof(uint32_t));
	m->key_cap = malloc((2 * n + 1) * sizeof(double));
	sw_comm = malloc((m->ns + 1) * sizeof(uint32_t));
	km.size = 4 * n + 7;
	km.k = malloc(km.size * sizeof(*km.k));
	km.v = malloc(km.size * sizeof(*km.v));
	if (!m->src_sw || !m->dst_sw || !m->src_key || !m->dst_key ||
	    !m->inject || !m->comm || !m->comm_sw || !m->key_cap || !sw_comm ||
	    !km.k || !km.v)
		goto out;
	memset(km.v, 0xff, km.size * sizeof(*km.v));
	memset(sw_comm, 0xff, (m->ns + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		const struct cr_flow *fl = &flows[i];
		uint32_t s = fl->src_node, sw, dsw, dn, cs;
		unsigned p = fl->src_port;
		uint8_t dport = 0;
		double inj;

		m->src_sw[i] = m->dst_sw[i] = UINT32_MAX;
		m->src_key[i] = m->dst_key[i] = m->comm[i] = UINT32_MAX;
		if (s >= f->num_nodes || cr_is_switch(f, s) || !p ||
		    p > f->nodes[s].num_ports)
			continue;
		sw = cr_remote(f, s, p);
		inj = cr_est_capacity(e, s, p) / 1000.0;
		if (sw == CR_NO_NODE || !cr_is_switch(f, sw) || inj <= 0)
			continue;
		if (!fl->dst_lid || fl->dst_lid > f->max_lid)
			continue;
		dn = f->lid_node[fl->dst_lid];
		dsw = cr_lid_switch(f, fl->dst_lid, &dport);
		if (dn == CR_NO_NODE || dsw == CR_NO_NODE)
			continue;
		m->inject[i] = inj;
		m->src_sw[i] = f->nodes[sw].sw_index;
		m->dst_sw[i] = f->nodes[dsw].sw_index;
		m->src_key[i] = key_get(&km, m, (uint64_t)s << 9 | p << 1, inj);
		if (dn != dsw) {
			/* the switch port that delivers the LID, down link */
			double c = cr_est_capacity(e, dsw, dport) / 1000.0;

			m->dst_key[i] = key_get(
				&km, m, (uint64_t)dsw << 9 | dport << 1 | 1, c);
		}
		if (m->src_sw[i] == m->dst_sw[i])
			continue;
		/* minimal: the destination's DAG bounds the arcs */
		cs = m->minimal ? m->dst_sw[i] : m->src_sw[i];
		if (sw_comm[cs] == UINT32_MAX) {
			sw_comm[cs] = m->ncomm;
			m->comm_sw[m->ncomm++] = cs;
		}
		m->comm[i] = sw_comm[cs];
	}
	ret = 0;
out:
	free(sw_comm);
	free(km.k);
	free(km.v);
	return ret;
}

int cr_bound_trip_add(struct trip *t, int row, int col, double v)
{
	if (t->n + 2 > t->alloc) {
		/* 1-based; alloc is raised only once all three have grown */
		size_t c = t->alloc;

		if (cr_grow(&t->ia, &c, t->n + 2, sizeof(*t->ia)))
			return -1;
		c = t->alloc;
		if (cr_grow(&t->ja, &c, t->n + 2, sizeof(*t->ja)))
			return -1;
		c = t->alloc;
		if (cr_grow(&t->ar, &c, t->n + 2, sizeof(*t->ar)))
			return -1;
		t->alloc = c;
	}
	t->n++;
	t->ia[t->n] = row;
	t->ja[t->n] = col;
	t->ar[t->n] = v;
	return 0;
}

void cr_bound_trip_free(struct trip *t)
{
	free(t->ia);
	free(t->ja);
	free(t->ar);
}

/* One row per switch link from first_cap, one per host link from first_key. */
void cr_bound_capacity_rows(glp_prob *lp, const struct model *m, int first_cap,
			    int first_key)
{
	for (uint32_t k = 0; k < m->ne; k++)
		glp_set_row_bnds(lp, first_cap + (int)k, GLP_UP, 0.0,
				 m->edge[k].cap);
	for (uint32_t k = 0; k < m->nkeys; k++)
		glp_set_row_bnds(lp, first_key + (int)k, GLP_UP, 0.0,
				 m->key_cap[k]);
}
