// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Whole-route swaps for the jobs' tuning (jobs_swap.h). Two destinations
 * a and b on one switch M exchange their entries at every switch but M:
 * the flows to a then take the paths the flows to b took, and back. Path
 * lengths, loop freedom, the union of channel dependencies (the last hop
 * into a host closes no cycle) and, where the SL of a (switch, LID) is
 * the same for a and b, every SL are kept. On a two-level tree this is
 * the move that matters: each destination is reached through one spine,
 * uplinks contend when two sources of a leaf send in one phase to
 * destinations that share a spine, and which host of a leaf gets which
 * spine is a colouring the pass's single-entry moves cannot reach (each
 * breaks one-spine-per-destination and scores worse on the way).
 *
 * The swaps are chosen by a surrogate, cheap enough to try every pair of
 * a switch: the expected number of pairs of flows sharing a switch-to-
 * switch link in one phase, on random orders of each job's hosts (flows
 * independent, source a to each other host of its job with 1 / (n - 1))
 * and exactly on Slurm's order, every phase. A switch's swaps are then
 * kept together only when the held estimate says the objective rises;
 * the full estimate, the held-out samples and cr_check confirm the end,
 * else every swap is undone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/estimate/est_inc.h>
#include <croute/model/check.h>
#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/tune/jobs_tune.h>
#include "jobs_swap.h"
#include "opt_held.h"
#include "opt_int.h"

#define MAX_HOPS 64
/*
 * Slurm's order's share of the jobs' part of the surrogate, the rest
 * random orders: the objective already judges Slurm's order, the
 * surrogate leans toward the orders it does not see (bench/jobs scores
 * them 4 to 1)
 */
#define SLURM_SHARE 0.2
#define SWEEPS 8 /* over every switch, at most */
#define ROUNDS 4 /* over a switch's pairs, at most */
#define MAX_LOADS (16u << 20) /* phase x link counters (2 bytes), at most */
/* shift's phases the surrogate counts, evenly spaced, at most */
#define SHIFT_PHASES 64
/*
 * The surrogate's work (a path entry walked or counted) next to the
 * estimate's (cr_est_inc_work): a third of the CPU, measured on the
 * director of bench/jobs
 */
#define SG_WORK_DIV 3

struct grp {
	uint32_t sw; /* switch index */
	uint32_t count; /* the job's hosts on it */
};

/*
 * Hosts in a known order, each running shift within its group (a job,
 * or all hosts), every phase counted exactly.
 */
struct ord {
	uint32_t n, ph;
	uint32_t step, nk; /* phases 1, 1 + step, ... ph: nk of them */
	uint32_t *sw; /* host -> switch index */
	uint32_t *first, *cnt; /* host -> its group's first host, size */
	uint32_t *at; /* LID -> host, NONE */
	uint16_t *lid; /* host -> LID */
	uint16_t *load; /* phase x link */
	double weight;
};

struct sg {
	const struct cr_fabric *f;
	struct cr_routing *r;
	const struct cr_jobs *jobs;
	uint32_t ns, nlinks;
	uint32_t *link_base; /* switch index -> its port 0's link */
	uint32_t *hsw, *hjob; /* jobs' host -> switch index, job */
	uint32_t *lid_host; /* LID -> jobs' host, NONE */
	uint32_t *gfirst; /* job -> first group; num_jobs + 1 */
	struct grp *grp;
	double *s, *q, *ds, *dq; /* per link: sum, sum of squares */
	uint32_t *touched, ntouched;
	uint8_t *mark;
	double jobs_share; /* the jobs' part; the rest: shift's */
	struct ord ord[2]; /* the jobs in Slurm's order; shift */
	/* paths from each switch to two LIDs, cached per pair */
	uint32_t *pl[2];
	int *pn[2];
	uint64_t work;
};

static void sg_free(struct sg *g)
{
	free(g->link_base);
	free(g->hsw);
	free(g->hjob);
	free(g->lid_host);
	free(g->gfirst);
	free(g->grp);
	free(g->s);
	free(g->q);
	free(g->ds);
	free(g->dq);
	free(g->touched);
	free(g->mark);
	for (int i = 0; i < 2; i++) {
		free(g->ord[i].sw);
		free(g->ord[i].first);
		free(g->ord[i].cnt);
		free(g->ord[i].at);
		free(g->ord[i].lid);
		free(g->ord[i].load);
	}
	for (int i = 0; i < 2; i++) {
		free(g->pl[i]);
		free(g->pn[i]);
	}
}

static uint32_t dest_sw(const struct cr_fabric *f, uint16_t lid)
{
	const struct cr_port *p;
	uint32_t n = f->lid_node[lid];

	if (n == CR_NO_NODE || f->nodes[n].type == CR_NODE_SWITCH)
		return NONE;
	p = &f->nodes[n].ports[f->lid_port[lid]];
	if (p->remote == CR_NO_NODE ||
	    f->nodes[p->remote].type != CR_NODE_SWITCH)
		return NONE;
	return f->nodes[p->remote].sw_index;
}

/* The links from switch index w to lid's switch d: their count, -1. */
static int walk(struct sg *g, uint32_t w, uint16_t lid, uint32_t d,
		uint32_t *out)
{
	const struct cr_fabric *f = g->f;
	uint32_t node = f->switches[w];
	int n = 0;

	while (f->nodes[node].sw_index != d) {
		const struct cr_node *x = &f->nodes[node];
		uint8_t p = g->r->lft[node][lid];

		if (n == MAX_HOPS || !p || p > x->num_ports ||
		    x->ports[p].remote == CR_NO_NODE ||
		    f->nodes[x->ports[p].remote].type != CR_NODE_SWITCH)
			return -1;
		out[n++] = g->link_base[x->sw_index] + p;
		node = x->ports[p].remote;
	}
	g->work += (uint64_t)n + 1;
	return n;
}

/* Path w -> lid (slot k of the cache; pn -2: not walked yet). */
static int path(struct sg *g, int k, uint32_t w, uint16_t lid, uint32_t d,
		const uint32_t **links)
{
	if (g->pn[k][w] == -2)
		g->pn[k][w] = walk(g, w, lid, d, g->pl[k] + w * MAX_HOPS);
	*links = g->pl[k] + w * MAX_HOPS;
	return g->pn[k][w];
}

static void forget_paths(struct sg *g)
{
	for (uint32_t w = 0; w < g->ns; w++)
		g->pn[0][w] = g->pn[1][w] = -2;
}

static void touch(struct sg *g, const uint32_t *l, int n, double a, double b)
{
	for (int i = 0; i < n; i++) {
		if (!g->mark[l[i]]) {
			g->mark[l[i]] = 1;
			g->touched[g->ntouched++] = l[i];
		}
		g->ds[l[i]] += a;
		g->dq[l[i]] += b;
	}
}

/*
 * Random orders: the flows of host i's job toward slot `from`'s LID move
 * to slot `to`'s paths. 0, -1 when a path does not arrive.
 */
static int random_move(struct sg *g, uint32_t i, uint32_t m, uint16_t la,
		       uint16_t lb, int from)
{
	uint32_t j = g->hjob[i];
	const struct cr_job *jb = &g->jobs->job[j];
	double w = 1.0 / (jb->count - 1);

	for (uint32_t k = g->gfirst[j]; k < g->gfirst[j + 1]; k++) {
		const uint32_t *p0, *p1;
		double a = g->grp[k].count * w;
		uint32_t l = g->grp[k].sw;
		int n0, n1;

		if (l == m)
			continue;
		n0 = path(g, from, l, from ? lb : la, m, &p0);
		n1 = path(g, !from, l, from ? la : lb, m, &p1);
		if (n0 < 0 || n1 < 0)
			return -1;
		touch(g, p0, n0, -a, -a * w);
		touch(g, p1, n1, a, a * w);
	}
	return 0;
}

/* The random orders' change the touched links hold; kept when keep. */
static double random_settle(struct sg *g, bool keep)
{
	double d = 0;

	for (uint32_t t = 0; t < g->ntouched; t++) {
		uint32_t l = g->touched[t];

		d += 0.5 *
		     (2 * g->s[l] * g->ds[l] + g->ds[l] * g->ds[l] - g->dq[l]);
		if (keep) {
			g->s[l] += g->ds[l];
			g->q[l] += g->dq[l];
		}
		g->ds[l] = g->dq[l] = 0;
		g->mark[l] = 0;
	}
	g->ntouched = 0;
	return d;
}

/*
 * Order o: the flows to host i (LID of slot from) move to slot to's
 * paths, phase by phase, in place; the change in colliding pairs.
 */
static long order_move(struct sg *g, struct ord *o, uint32_t i, uint32_t m,
		       uint16_t la, uint16_t lb, int from)
{
	uint32_t n = o->cnt[i], qpos = i - o->first[i];
	long d = 0;

	for (uint32_t k = 1; k <= o->ph; k += o->step) {
		uint32_t s = (k - 1) % (n - 1) + 1;
		uint32_t src = o->first[i] + (qpos + n - s) % n;
		uint16_t *ld =
			o->load + (size_t)((k - 1) / o->step) * g->nlinks;
		const uint32_t *p0, *p1;
		int n0, n1;

		if (o->sw[src] == m)
			continue;
		n0 = path(g, from, o->sw[src], from ? lb : la, m, &p0);
		n1 = path(g, !from, o->sw[src], from ? la : lb, m, &p1);
		if (n0 < 0 || n1 < 0)
			continue; /* refused by random_move's walk already */
		for (int x = 0; x < n0; x++)
			d -= --ld[p0[x]];
		for (int x = 0; x < n1; x++)
			d += ld[p1[x]]++;
		g->work += (uint64_t)(n0 + n1);
	}
	return d;
}

static void swap_cols(struct sg *g, uint32_t m, uint16_t la, uint16_t lb)
{
	for (uint32_t w = 0; w < g->ns; w++) {
		uint8_t *t = g->r->lft[g->f->switches[w]], x;

		if (w == m)
			continue;
		x = t[la];
		t[la] = t[lb];
		t[lb] = x;
	}
	forget_paths(g);
}

/*
 * The swap of la and lb (hosts ia, ib: NONE when in no job) at switch
 * index m, applied to the surrogate and the tables; its change of the
 * surrogate in *d. 0, -1 when a path does not arrive (nothing changed).
 */
static int sg_swap(struct sg *g, uint32_t m, uint16_t la, uint16_t lb,
		   double *d)
{
	uint32_t ia = g->lid_host[la], ib = g->lid_host[lb];
	uint32_t ja = ia == NONE ? NONE : g->hjob[ia];
	uint32_t jb = ib == NONE ? NONE : g->hjob[ib];
	long ds;

	forget_paths(g);
	if (ja != jb && ((ia != NONE && random_move(g, ia, m, la, lb, 0)) ||
			 (ib != NONE && random_move(g, ib, m, la, lb, 1)))) {
		random_settle(g, false);
		return -1;
	}
	*d = (1 - SLURM_SHARE) * g->jobs_share * random_settle(g, true);
	for (int k = 0; k < 2; k++) {
		struct ord *o = &g->ord[k];
		uint32_t xa, xb;

		if (!o->ph)
			continue;
		xa = o->at[la];
		xb = o->at[lb];
		ds = 0;
		if (xa != NONE)
			ds += order_move(g, o, xa, m, la, lb, 0);
		if (xb != NONE)
			ds += order_move(g, o, xb, m, la, lb, 1);
		*d += o->weight * (double)ds / o->nk;
	}
	swap_cols(g, m, la, lb);
	return 0;
}

static int sg_links(struct sg *g)
{
	const struct cr_fabric *f = g->f;

	g->ns = f->num_switches;
	g->link_base = calloc(g->ns + 1, sizeof(*g->link_base));
	if (!g->link_base)
		return -1;
	for (uint32_t w = 0; w < g->ns; w++)
		g->link_base[w + 1] = g->link_base[w] +
				      f->nodes[f->switches[w]].num_ports + 1u;
	g->nlinks = g->link_base[g->ns];
	for (int i = 0; i < 2; i++) {
		g->pl[i] = malloc((size_t)g->ns * MAX_HOPS * sizeof(uint32_t));
		g->pn[i] = malloc(g->ns * sizeof(int));
		if (!g->pl[i] || !g->pn[i])
			return -1;
	}
	g->s = calloc(g->nlinks, sizeof(double));
	g->q = calloc(g->nlinks, sizeof(double));
	g->ds = calloc(g->nlinks, sizeof(double));
	g->dq = calloc(g->nlinks, sizeof(double));
	g->touched = calloc(g->nlinks, sizeof(uint32_t));
	g->mark = calloc(g->nlinks, 1);
	return g->s && g->q && g->ds && g->dq && g->touched && g->mark ? 0 : -1;
}

/* The jobs' hosts: switch, job, LID; each job's hosts by switch. */
static int sg_hosts(struct sg *g)
{
	const struct cr_jobs *jb = g->jobs;
	uint32_t nh = jb->hosts.count, ng = 0, *cnt;

	g->hsw = calloc(nh + 1, sizeof(uint32_t));
	g->hjob = calloc(nh + 1, sizeof(uint32_t));
	g->lid_host = malloc(((size_t)g->f->max_lid + 1) * sizeof(uint32_t));
	g->gfirst = calloc(jb->num_jobs + 1, sizeof(uint32_t));
	g->grp = calloc(nh + 1, sizeof(*g->grp));
	cnt = calloc(g->ns + 1, sizeof(uint32_t));
	if (!g->hsw || !g->hjob || !g->lid_host || !g->gfirst || !g->grp ||
	    !cnt) {
		free(cnt);
		return -1;
	}
	memset(g->lid_host, 0xff,
	       ((size_t)g->f->max_lid + 1) * sizeof(uint32_t));
	for (uint32_t j = 0; j < jb->num_jobs; j++) {
		const struct cr_job *x = &jb->job[j];

		g->gfirst[j] = ng;
		for (uint32_t i = x->first; i < x->first + x->count; i++) {
			uint16_t lid = jb->hosts.ep[i].lid;

			g->hjob[i] = j;
			g->hsw[i] = lid <= g->f->max_lid ? dest_sw(g->f, lid)
							 : NONE;
			if (g->hsw[i] == NONE) {
				free(cnt);
				return 1;
			}
			if (x->count > 1)
				g->lid_host[lid] = i;
		}
		if (x->count < 2)
			continue;
		/* groups in switch order: the same sums on every run */
		for (uint32_t i = x->first; i < x->first + x->count; i++)
			cnt[g->hsw[i]]++;
		for (uint32_t w = 0; w < g->ns; w++)
			if (cnt[w]) {
				g->grp[ng++] = (struct grp){w, cnt[w]};
				cnt[w] = 0;
			}
	}
	g->gfirst[jb->num_jobs] = ng;
	free(cnt);
	return 0;
}

/* The random orders' sums from the tables: 0, 1 when a path does not
 * arrive. */
static int random_loads(struct sg *g)
{
	const struct cr_jobs *jb = g->jobs;
	uint32_t *p = g->pl[0];

	for (uint32_t j = 0; j < jb->num_jobs; j++) {
		const struct cr_job *x = &jb->job[j];
		double w;

		if (x->count < 2)
			continue;
		w = 1.0 / (x->count - 1);
		for (uint32_t i = x->first; i < x->first + x->count; i++) {
			uint16_t lid = jb->hosts.ep[i].lid;

			for (uint32_t k = g->gfirst[j]; k < g->gfirst[j + 1];
			     k++) {
				double a = g->grp[k].count * w;
				int n;

				if (g->grp[k].sw == g->hsw[i])
					continue;
				n = walk(g, g->grp[k].sw, lid, g->hsw[i], p);
				if (n < 0)
					return 1;
				for (int t = 0; t < n; t++) {
					g->s[p[t]] += a;
					g->q[p[t]] += a * w;
				}
			}
		}
	}
	return 0;
}

static int ord_alloc(struct ord *o, uint32_t n, uint32_t max_lid)
{
	o->n = n;
	o->sw = calloc(n + 1, sizeof(uint32_t));
	o->first = calloc(n + 1, sizeof(uint32_t));
	o->cnt = calloc(n + 1, sizeof(uint32_t));
	o->at = malloc(((size_t)max_lid + 1) * sizeof(uint32_t));
	o->lid = calloc(n + 1, sizeof(uint16_t));
	if (!o->sw || !o->first || !o->cnt || !o->at || !o->lid)
		return -1;
	memset(o->at, 0xff, ((size_t)max_lid + 1) * sizeof(uint32_t));
	return 0;
}

/* The jobs in Slurm's order (their list's). */
static int ord_jobs(struct sg *g, struct ord *o)
{
	const struct cr_jobs *jb = g->jobs;

	if (ord_alloc(o, jb->hosts.count, g->f->max_lid))
		return -1;
	for (uint32_t j = 0; j < jb->num_jobs; j++) {
		const struct cr_job *x = &jb->job[j];

		for (uint32_t i = x->first; i < x->first + x->count; i++) {
			o->sw[i] = g->hsw[i];
			o->first[i] = x->first;
			o->cnt[i] = x->count;
			o->lid[i] = jb->hosts.ep[i].lid;
			if (x->count > 1)
				o->at[jb->hosts.ep[i].lid] = i;
		}
		if (x->count > 1 && x->count - 1 > o->ph)
			o->ph = x->count - 1;
	}
	o->weight = SLURM_SHARE * g->jobs_share;
	return 0;
}

/* Shift on the objective's hosts (none when one is on no switch). */
static int ord_shift(struct sg *g, struct ord *o, const struct cr_hosts *h)
{
	if (ord_alloc(o, h->count, g->f->max_lid))
		return -1;
	for (uint32_t i = 0; i < h->count; i++) {
		uint16_t lid = h->ep[i].lid;

		o->sw[i] = lid <= g->f->max_lid ? dest_sw(g->f, lid) : NONE;
		if (o->sw[i] == NONE)
			return 0;
		o->cnt[i] = h->count;
		o->lid[i] = lid;
		o->at[lid] = i;
	}
	o->ph = h->count > 1 ? h->count - 1 : 0;
	o->weight = 1 - g->jobs_share;
	if (!(o->weight > 0))
		o->ph = 0; /* no shift term: not counted */
	return 0;
}

/* o's loads from the tables: 0, 1 when a path does not arrive. */
static int ord_loads(struct sg *g, struct ord *o)
{
	uint32_t *p = g->pl[0];

	for (uint32_t i = 0; i < o->n; i++) {
		uint32_t n = o->cnt[i];

		if (n < 2)
			continue;
		for (uint32_t k = 1; k <= o->ph; k += o->step) {
			uint32_t s = (k - 1) % (n - 1) + 1;
			uint32_t src =
				o->first[i] + (i - o->first[i] + n - s) % n;
			int c;

			if (o->sw[src] == o->sw[i])
				continue;
			c = walk(g, o->sw[src], o->lid[i], o->sw[i], p);
			if (c < 0)
				return 1;
			for (int t = 0; t < c; t++)
				o->load[(size_t)((k - 1) / o->step) *
						g->nlinks +
					p[t]]++;
		}
	}
	return 0;
}

/*
 * The jobs' share of the surrogate, the rest shift's: the objective's
 * weights of its first jobs and shift terms when both are weighted
 * (its default: 0.8 and 0.2), else the jobs' alone.
 */
static double jobs_share(const struct cr_objective *obj)
{
	double wj = 0, ws = 0;

	for (unsigned i = 0; i < obj->num_terms; i++) {
		const struct cr_objective_term *t = &obj->terms[i];

		if (t->pat.kind == CR_PAT_JOBS && !wj)
			wj = t->weight;
		if (t->pat.kind == CR_PAT_SHIFT && !ws)
			ws = t->weight;
	}
	return wj > 0 && ws > 0 ? wj / (wj + ws) : 1;
}

/* 0 ready, 1 the surrogate does not apply (said), -1 error (logged). */
static int sg_init(struct sg *g, const struct cr_fabric *f,
		   struct cr_routing *r, const struct cr_jobs *jobs,
		   const struct cr_objective *obj, const struct cr_hosts *h)
{
	int rc;

	memset(g, 0, sizeof(*g));
	g->f = f;
	g->r = r;
	g->jobs = jobs;
	g->jobs_share = jobs_share(obj);
	if (sg_links(g) || (rc = sg_hosts(g)) < 0 || ord_jobs(g, &g->ord[0]) ||
	    ord_shift(g, &g->ord[1], h))
		goto oom;
	if (rc || !g->ord[0].ph) {
		cr_info("jobs: whole-route swaps need every job's hosts on a"
			" switch; none tried");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		struct ord *o = &g->ord[i];

		if (!o->ph)
			continue;
		o->step = i && o->ph > SHIFT_PHASES
				  ? (o->ph + SHIFT_PHASES - 1) / SHIFT_PHASES
				  : 1;
		o->nk = o->ph ? (o->ph - 1) / o->step + 1 : 0;
		if ((uint64_t)o->nk * g->nlinks > MAX_LOADS) {
			cr_info("jobs: too many phases x links for whole-route"
				" swaps; none tried");
			return 1;
		}
		o->load =
			calloc((size_t)o->nk * g->nlinks + 1, sizeof(uint16_t));
		if (!o->load)
			goto oom;
		if (ord_loads(g, o))
			goto nopath;
	}
	if (random_loads(g))
		goto nopath;
	return 0;
nopath:
	cr_info("jobs: a flow has no path; no whole-route swap tried");
	return 1;
oom:
	cr_err("jobs: out of memory");
	return -1;
}

/* ---- the swaps, judged by the held estimate --------------------------- */

struct run {
	struct sg g;
	const struct cr_objective *obj;
	struct opt_held held;
	struct cr_est_inc *inc;
	double *best, *trial, *tavg, *tmin;
	uint16_t lids[CR_MAX_PORTS + 1];
	unsigned nl;
	uint8_t *saved; /* the columns of lids before a switch's swaps */
	struct cr_est_inc_change *chg;
	uint16_t (*done)[2]; /* a switch's swaps, in order */
	struct jobs_swap_stats *st;
};

static uint8_t sl_of(const struct cr_routing *r, uint32_t n, uint16_t lid)
{
	return r->sl && r->sl[n] ? r->sl[n][lid] : 0;
}

/* Whether every switch gives la and lb the same SLs. */
static bool same_sls(const struct run *u, uint16_t la, uint16_t lb)
{
	const struct cr_routing *r = u->g.r;

	for (uint32_t w = 0; w < u->g.ns; w++) {
		uint32_t n = u->g.f->switches[w];

		if (sl_of(r, n, la) != sl_of(r, n, lb) ||
		    (r->sl_set && r->sl_set[n] &&
		     r->sl_set[n][la] != r->sl_set[n][lb]))
			return false;
	}
	return true;
}

/* The CAs' base LIDs at switch index m; whether one is a job's. */
static bool switch_lids(struct run *u, uint32_t m)
{
	const struct cr_fabric *f = u->g.f;
	const struct cr_node *x = &f->nodes[f->switches[m]];
	bool job = false;

	u->nl = 0;
	for (unsigned p = 1; p <= x->num_ports; p++) {
		const struct cr_port *q = &x->ports[p];
		uint16_t lid;

		if (q->remote == CR_NO_NODE ||
		    f->nodes[q->remote].type != CR_NODE_CA)
			continue;
		lid = f->nodes[q->remote].ports[q->remote_port].lid;
		if (!lid || lid > f->max_lid || lid > u->g.r->max_lid ||
		    f->lid_node[lid] != q->remote)
			continue;
		u->lids[u->nl++] = lid;
		job |= u->g.lid_host[lid] != NONE;
	}
	return job && u->nl > 1;
}

/* The surrogate's swaps at m, applied; how many. */
static unsigned climb_switch(struct run *u, uint32_t m)
{
	unsigned n = 0;

	for (unsigned round = 0; round < ROUNDS; round++) {
		unsigned before = n;

		for (unsigned a = 0; a < u->nl; a++)
			for (unsigned b = a + 1; b < u->nl; b++) {
				uint16_t la = u->lids[a], lb = u->lids[b];
				double d, e;

				if ((u->g.lid_host[la] == NONE &&
				     u->g.lid_host[lb] == NONE) ||
				    !same_sls(u, la, lb) ||
				    sg_swap(&u->g, m, la, lb, &d))
					continue;
				if (d < -1e-9) {
					u->done[n][0] = la;
					u->done[n++][1] = lb;
				} else {
					sg_swap(&u->g, m, la, lb, &e);
				}
			}
		if (n == before)
			break;
	}
	return n;
}

/*
 * The swaps the surrogate finds at switch index m, kept when the
 * objective rises: 1 kept, 0 not, -1 error (logged).
 */
static int try_switch(struct run *u, uint32_t m)
{
	const struct cr_fabric *f = u->g.f;
	uint32_t ns = u->g.ns, nc = 0;
	unsigned n;
	long rc;

	if (!switch_lids(u, m))
		return 0;
	for (unsigned k = 0; k < u->nl; k++)
		for (uint32_t w = 0; w < ns; w++)
			u->saved[k * ns + w] =
				u->g.r->lft[f->switches[w]][u->lids[k]];
	n = climb_switch(u, m);
	if (!n)
		return 0;
	for (unsigned k = 0; k < u->nl; k++)
		for (uint32_t w = 0; w < ns; w++) {
			uint32_t node = f->switches[w];
			uint8_t old = u->saved[k * ns + w];

			if (u->g.r->lft[node][u->lids[k]] != old)
				u->chg[nc++] = (struct cr_est_inc_change){
					node, old, u->lids[k]};
		}
	u->st->groups++;
	rc = nc ? cr_est_inc_try_n(u->inc, u->chg, nc, u->tavg, u->tmin) : 0;
	if (rc == -1)
		return -1;
	if (rc > 0) {
		opt_held_terms(&u->held, u->obj, u->tavg, u->tmin, u->trial);
		if (cr_objective_cmp(u->trial, u->best, u->obj->num_terms) >
		    0) {
			if (cr_est_inc_commit(u->inc))
				return -1;
			memcpy(u->best, u->trial,
			       u->obj->num_terms * sizeof(*u->best));
			u->st->kept++;
			u->st->swaps += n;
			return 1;
		}
	}
	while (n--) {
		double d;

		sg_swap(&u->g, m, u->done[n][0], u->done[n][1], &d);
	}
	return 0;
}

static uint64_t run_work(const struct run *u)
{
	return cr_est_inc_work(u->inc) + u->g.work / SG_WORK_DIV;
}

/* Sweeps over the switches: 0, -1 error, -2 stopped. */
static int sweeps(struct run *u, uint64_t work, const struct cr_stop *stop)
{
	for (unsigned s = 0; s < SWEEPS; s++) {
		unsigned kept = 0;

		for (uint32_t m = 0; m < u->g.ns; m++) {
			int rc;

			if (cr_stop_now(stop))
				return -2;
			if (run_work(u) >= work)
				return 0;
			rc = try_switch(u, m);
			if (rc < 0)
				return -1;
			kept += (unsigned)rc;
		}
		if (!kept)
			break;
	}
	return 0;
}

static int run_alloc(struct run *u, const struct cr_objective *obj,
		     const struct cr_hosts *hosts, bool *too_big)
{
	unsigned nt = obj->num_terms + 1, np;
	uint32_t ns = u->g.ns;

	u->obj = obj;
	if (opt_held_make(&u->held, obj, hosts))
		return -1;
	np = u->held.npat + 1;
	u->best = calloc(nt, sizeof(double));
	u->trial = calloc(nt, sizeof(double));
	u->tavg = calloc(np, sizeof(double));
	u->tmin = calloc(np, sizeof(double));
	u->saved = malloc((size_t)(CR_MAX_PORTS + 1) * ns);
	u->chg = malloc((size_t)(CR_MAX_PORTS + 1) * ns * sizeof(*u->chg));
	u->done = malloc(ROUNDS * (size_t)(CR_MAX_PORTS + 1) *
			 (CR_MAX_PORTS + 1) * sizeof(*u->done));
	if (!u->best || !u->trial || !u->tavg || !u->tmin || !u->saved ||
	    !u->chg || !u->done) {
		cr_err("jobs: out of memory");
		return -1;
	}
	u->inc = opt_held_inc(&u->held, u->g.f, u->g.r, MAX_ENTRIES, too_big);
	if (!u->inc)
		return *too_big ? 1 : -1;
	for (unsigned j = 0; j < u->held.npat; j++) {
		u->held.avg[j] = cr_est_inc_avg(u->inc, j);
		u->held.min[j] = cr_est_inc_min(u->inc, j);
	}
	opt_held_terms(&u->held, obj, u->held.avg, u->held.min, u->best);
	return 0;
}

static void run_free(struct run *u)
{
	sg_free(&u->g);
	cr_est_inc_free(u->inc);
	opt_held_free(&u->held);
	free(u->best);
	free(u->trial);
	free(u->tavg);
	free(u->tmin);
	free(u->saved);
	free(u->chg);
	free(u->done);
}

static void restore(const struct cr_fabric *f, struct cr_routing *r,
		    const struct cr_routing *r0)
{
	for (uint32_t w = 0; w < f->num_switches; w++) {
		uint32_t n = f->switches[w];

		memcpy(r->lft[n], r0->lft[n], (size_t)r->max_lid + 1);
	}
}

/*
 * The full estimate must confirm the gain, the held-out samples not
 * drop, cr_check find nothing new: 1 confirmed, 0 not, -1 error.
 */
static int confirm(const struct cr_fabric *f, const struct cr_routing *r,
		   const struct cr_objective *obj, const struct cr_hosts *h,
		   const double *s0, const double *h0,
		   const struct cr_check_report *c0, double *s1)
{
	unsigned nt = obj->num_terms;
	struct cr_check_report c1;
	double *h1;
	int ret = -1;

	if (cr_objective_score(f, r, obj, h, s1))
		return -1;
	if (cr_objective_cmp(s1, s0, nt) <= 0)
		return 0;
	h1 = calloc(nt + 1, sizeof(double));
	if (!h1)
		return -1;
	if (h0 && cr_objective_score_set(f, r, obj, h, CR_SCORE_HELDOUT, h1))
		goto out;
	ret = 0;
	if (h0 && cr_objective_cmp(h1, h0, nt) < 0) {
		cr_info("jobs: whole-route swaps: held-out %.4f -> %.4f;"
			" undone",
			h0[0], h1[0]);
		goto out;
	}
	ret = -1;
	if (cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &c1))
		goto out;
	ret = c1.unreachable <= c0->unreachable && c1.loops <= c0->loops &&
	      c1.credit_loops <= c0->credit_loops;
	if (!ret)
		cr_err("jobs: cr_check found more problems after whole-route"
		       " swaps; undone");
out:
	free(h1);
	return ret;
}

int cr_jobs_swap(const struct cr_fabric *f, struct cr_routing *r,
		 const struct cr_jobs *jobs, const struct cr_objective *obj,
		 uint64_t work, const struct cr_stop *stop,
		 struct jobs_swap_stats *st)
{
	unsigned nt = obj->num_terms + 1;
	struct cr_hosts *hosts = cr_objective_hosts(f, obj);
	double *s0 = calloc(nt, sizeof(double)),
	       *s1 = calloc(nt, sizeof(double));
	double *h0 = NULL;
	struct cr_routing *r0 = NULL;
	struct cr_check_report c0;
	struct run u;
	bool too_big = false;
	int ret = -1, rc;

	memset(st, 0, sizeof(*st));
	memset(&u, 0, sizeof(u));
	u.st = st;
	if (!hosts || !s0 || !s1)
		goto out;
	rc = sg_init(&u.g, f, r, jobs, obj, hosts);
	if (rc) {
		ret = rc > 0 ? 0 : -1;
		goto out;
	}
	rc = run_alloc(&u, obj, hosts, &too_big);
	if (rc) {
		if (rc > 0)
			cr_info("jobs: the objective's phases are too large for"
				" whole-route swaps; none tried");
		ret = rc > 0 ? 0 : -1;
		goto out;
	}
	if (cr_objective_holds_out(obj, hosts) &&
	    (!(h0 = calloc(nt, sizeof(double))) ||
	     cr_objective_score_set(f, r, obj, hosts, CR_SCORE_HELDOUT, h0)))
		goto out;
	if (cr_objective_score(f, r, obj, hosts, s0) ||
	    cr_check(f, r, CR_CHECK_CREDIT, NULL, 0, &c0))
		goto out;
	r0 = cr_routing_copy(r);
	if (!r0)
		goto out;
	st->before = st->after = s0[0];
	ret = sweeps(&u, work, stop);
	st->work = run_work(&u);
	if (!ret && st->kept) {
		rc = confirm(f, r, obj, hosts, s0, h0, &c0, s1);
		if (rc > 0)
			st->after = s1[0];
		else
			ret = rc;
	}
	if (ret || !st->kept || st->after == st->before)
		restore(f, r, r0);
	if (ret == 0 || ret == -2)
		cr_note("jobs: whole-route swaps: %u kept at %u of %u"
			" switches tried, %.4f -> %.4f, work %.2f s%s",
			st->swaps, st->kept, st->groups, st->before, st->after,
			(double)st->work / CR_JOBS_WORK_PER_S,
			ret == -2 ? " (stopped: undone)" : "");
out:
	if (ret && ret != -2 && r0)
		restore(f, r, r0);
	cr_routing_free(r0);
	run_free(&u);
	cr_hosts_free(hosts);
	free(s0);
	free(s1);
	free(h0);
	return ret;
}
