// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The estimate under small LFT changes (include/croute/estimate/est_inc.h).
 *
 * Every phase is run once by cr_est_phase(), and its flows' paths, bounds
 * and rates are kept. The penalty model's degrees depend on who sends to
 * whom, not on paths, so a flow's penalty stays; a new path changes only
 * its bottleneck (hence its bound) and the links it loads. A change of
 * the entry (sw, lid) moves exactly the flows to lid that left sw by the
 * old port: they are walked again, and each phase holding one is solved
 * again by the same max-min solver over the same flow order, so the
 * figures are bit for bit those of a full cr_est_run(). A try keeps its
 * phases' new paths and rates aside; commit copies them in.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <croute/model/buf.h>
#include <croute/model/cmp.h>
#include <croute/estimate/est_inc.h>
#include <croute/model/log.h>
#include "maxmin.h"

#include "est_int.h"

/* A phase reused from its last try counts 1/this of its solve's work. */
#define CR_EST_INC_REUSE_COST 4

struct inc_phase {
	uint32_t first; /* its first flow */
	uint32_t n;
	uint32_t *start; /* n + 1, into path */
	uint32_t *path;
	size_t path_cap;
	double sum, min; /* of the fractions of injection */
	uint32_t serial; /* the commit that last changed it */
	/*
	 * Its last solve in a try: the changed flows with their new paths
	 * (the key), their rates and figures; good while serial stays.
	 */
	uint32_t memo_serial; /* serial + 1 when made; 0: none */
	uint32_t *memo_key;
	size_t memo_key_len, memo_key_cap;
	double *memo_rate;
	double memo_sum, memo_min;
};

/* A phase a try changes: its new paths and rates, aside. */
struct inc_trial {
	uint32_t ph;
	size_t start_off; /* into tstart (n + 1 entries) */
	size_t path_off; /* into tpath */
	size_t rate_off; /* into trate */
	double sum, min;
};

struct cr_est_inc {
	const struct cr_fabric *f;
	struct cr_est *e;
	unsigned npat;
	uint32_t *pat_first; /* pattern i: phases pat_first[i] .. [i + 1] */
	uint64_t *pat_flows;

	struct inc_phase *ph;
	uint32_t nph;

	/* per flow */
	uint32_t nflows;
	struct cr_flow *flow;
	uint32_t *fphase;
	double *inject, *penalty, *bound, *rate;
	uint8_t *ok;
	uint32_t *lid_first; /* flows to LID l: lid_flow[lid_first[l] ..] */
	uint32_t *lid_flow;
	/*
	 * By lid_flow's index: a bit per link the flow's path crosses
	 * (link_bit), every bit for one that does not arrive. A try reads
	 * a LID's flows in a row here, and the path only of those that
	 * may cross a link of the try: most flows to a changed LID cross
	 * none, and their paths lie all over memory.
	 */
	uint64_t *lid_sig;

	/* the last try */
	bool pending;
	uint32_t *aff; /* changed flows, in order */
	uint32_t naff;
	size_t aff_alloc;
	uint32_t *aff_start; /* naff + 1, into aff_path */
	uint32_t *aff_path;
	size_t aff_path_alloc;
	double *aff_bound;
	uint32_t *aff_stamp, aff_gen; /* per flow: changed in this try */
	uint32_t *aff_idx; /* per flow: its index in aff */
	struct inc_trial *tr;
	uint32_t ntr;
	size_t tr_alloc;
	uint32_t *tstart, *tpath;
	double *tbound, *trate;
	size_t tstart_alloc, tpath_alloc, trate_alloc;
	/* tbound: the largest phase's flows */
	uint32_t *tph; /* the phases a try changes */
	size_t tph_alloc;
	uint32_t tph_n, tph_done; /* how many; solved so far */
	size_t so, po, ro; /* the try's offsets into tstart, tpath, trate */
	struct cr_maxmin *mm;
	uint64_t solves, reused;
	uint64_t work; /* path entries and flows solved */
	uint32_t *key; /* a try's changed flows in one phase, with paths */
	size_t key_alloc;
	uint32_t commits;

	/* a try's changes by LID; the old links of one LID's changes */
	struct cr_est_inc_change *csort;
	size_t csort_alloc;
	uint32_t *cstamp, cgen;
	uint64_t cmask; /* link_bit of the links marked in cstamp */

	/* cr_est_inc_limits */
	uint32_t *lstamp, lgen;
	double *lload, *lmax;
};

void cr_est_inc_free(struct cr_est_inc *x)
{
	if (!x)
		return;

	for (uint32_t i = 0; x->ph && i < x->nph; i++) {
		free(x->ph[i].start);
		free(x->ph[i].path);
		free(x->ph[i].memo_key);
		free(x->ph[i].memo_rate);
	}
	free(x->key);
	free(x->ph);
	free(x->pat_first);
	free(x->pat_flows);
	free(x->flow);
	free(x->fphase);
	free(x->inject);
	free(x->penalty);
	free(x->bound);
	free(x->rate);
	free(x->ok);
	free(x->lid_first);
	free(x->lid_flow);
	free(x->lid_sig);
	free(x->aff);
	free(x->aff_start);
	free(x->aff_path);
	free(x->aff_bound);
	free(x->aff_stamp);
	free(x->aff_idx);
	free(x->tr);
	free(x->tph);
	free(x->tstart);
	free(x->tpath);
	free(x->tbound);
	free(x->trate);
	free(x->lstamp);
	free(x->csort);
	free(x->cstamp);
	free(x->lload);
	free(x->lmax);
	cr_maxmin_free(x->mm);
	cr_est_free(x->e);
	free(x);
}

/* Sum and minimum of a phase's fractions, in flow order as est_run.c. */
static void phase_figures(const struct cr_est_inc *x, uint32_t first,
			  uint32_t n, const double *rate, double *sum,
			  double *min)
{
	double s = 0, m = n ? INFINITY : 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t fl = first + i;
		double r = x->ok[fl] ? rate[i] : 0;
		double frac = x->inject[fl] > 0 ? r / x->inject[fl] : 0;

		s += frac;
		if (frac < m)
			m = frac;
	}
	*sum = s;
	*min = m;
}

/* The per-flow arrays, room for need flows. */
static int grow_flows(struct cr_est_inc *x, size_t *alloc, size_t need)
{
	void *const arr[] = {&x->flow,	&x->fphase, &x->inject, &x->penalty,
			     &x->bound, &x->rate,   &x->ok};
	const size_t size[] = {sizeof(*x->flow),   sizeof(*x->fphase),
			       sizeof(*x->inject), sizeof(*x->penalty),
			       sizeof(*x->bound),  sizeof(*x->rate),
			       sizeof(*x->ok)};

	return cr_est_grow_parallel(arr, size, sizeof(arr) / sizeof(arr[0]),
				    alloc, need);
}

/* Appends phase `flows` (n) of pattern run as one held phase. */
static int hold_phase(struct cr_est_inc *x, const struct cr_flow *flows,
		      size_t n, size_t *flow_alloc)
{
	struct cr_est *e = x->e;
	struct inc_phase *p = &x->ph[x->nph];
	uint32_t first = x->nflows;
	size_t entries;

	if (cr_est_phase(e, flows, n, NULL) < 0)
		return -1;
	if (grow_flows(x, flow_alloc, first + n + 1))
		return -1;
	entries = e->start[n];
	p->first = first;
	p->n = (uint32_t)n;
	p->start = malloc((n + 1) * sizeof(*p->start));
	p->path_cap = entries ? entries : 1;
	p->path = malloc(p->path_cap * sizeof(*p->path));
	if (!p->start || !p->path)
		return -1;
	memcpy(p->start, e->start, (n + 1) * sizeof(*p->start));
	memcpy(p->path, e->path, entries * sizeof(*p->path));
	for (size_t i = 0; i < n; i++) {
		uint32_t fl = first + (uint32_t)i;

		x->flow[fl] = flows[i];
		x->fphase[fl] = x->nph;
		x->inject[fl] = e->fe[i].inject;
		x->penalty[fl] = e->fe[i].penalty;
		x->ok[fl] = e->fe[i].status == CR_FLOW_OK;
		x->bound[fl] = x->ok[fl] ? e->fe[i].bound : 0;
		x->rate[fl] = x->ok[fl] ? e->fe[i].rate : 0;
	}
	x->nflows += (uint32_t)n;
	phase_figures(x, first, (uint32_t)n, x->rate + first, &p->sum, &p->min);
	x->nph++;
	return 0;
}

/* A link's bit in a path's signature (a 64-bit Bloom filter). */
static inline uint64_t link_bit(uint32_t l)
{
	return 1ULL << ((l * 0x9e3779b1u) >> 26);
}

static uint64_t path_sig(const struct cr_est_inc *x, uint32_t fl)
{
	const struct inc_phase *ph = &x->ph[x->fphase[fl]];
	uint32_t i = fl - ph->first;
	uint64_t sig = 0;

	if (!x->ok[fl])
		return ~0ULL;
	for (uint32_t k = ph->start[i]; k < ph->start[i + 1]; k++)
		sig |= link_bit(ph->path[k]);
	return sig;
}

static int index_lids(struct cr_est_inc *x)
{
	uint32_t nl = (uint32_t)x->f->max_lid + 1, *fill;

	x->lid_first = calloc(nl + 1, sizeof(*x->lid_first));
	x->lid_flow = malloc((x->nflows + 1) * sizeof(*x->lid_flow));
	x->lid_sig = malloc((x->nflows + 1) * sizeof(*x->lid_sig));
	fill = malloc((nl + 1) * sizeof(*fill));
	if (!x->lid_first || !x->lid_flow || !x->lid_sig || !fill) {
		free(fill);
		return -1;
	}
	for (uint32_t fl = 0; fl < x->nflows; fl++)
		if (x->flow[fl].dst_lid < nl)
			x->lid_first[x->flow[fl].dst_lid + 1]++;
	for (uint32_t l = 1; l <= nl; l++)
		x->lid_first[l] += x->lid_first[l - 1];
	memcpy(fill, x->lid_first, (nl + 1) * sizeof(*fill));
	for (uint32_t fl = 0; fl < x->nflows; fl++)
		if (x->flow[fl].dst_lid < nl) {
			x->lid_sig[fill[x->flow[fl].dst_lid]] = path_sig(x, fl);
			x->lid_flow[fill[x->flow[fl].dst_lid]++] = fl;
		}
	free(fill);
	return 0;
}

struct cr_est_inc *cr_est_inc_new(const struct cr_fabric *f,
				  const struct cr_routing *r,
				  const struct cr_pattern *pats, unsigned n,
				  const struct cr_hosts *hosts,
				  uint64_t max_entries, bool *too_big)
{
	const struct cr_hosts **each = calloc(n + 1, sizeof(*each));
	struct cr_est_inc *x;

	*too_big = false;
	if (!each) {
		cr_err("out of memory holding the phases of the estimate");
		return NULL;
	}
	for (unsigned i = 0; i < n; i++)
		each[i] = hosts;
	x = cr_est_inc_new_each(f, r, pats, each, n, max_entries, too_big);
	free(each);
	return x;
}

struct cr_est_inc *cr_est_inc_new_each(const struct cr_fabric *f,
				       const struct cr_routing *r,
				       const struct cr_pattern *pats,
				       const struct cr_hosts *const *hosts,
				       unsigned n, uint64_t max_entries,
				       bool *too_big)
{
	struct cr_est_inc *x = calloc(1, sizeof(*x));
	struct cr_flow *flows = NULL;
	size_t flow_alloc = 0, ph_alloc = 0, flows_cap = 0, max_flows = 0;
	uint64_t entries = 0;

	*too_big = false;
	if (!x)
		goto oom;
	x->f = f;
	x->npat = n;
	x->e = cr_est_new(f, r, NULL);
	if (!x->e)
		goto fail;
	x->pat_first = calloc(n + 1, sizeof(*x->pat_first));
	x->pat_flows = calloc(n + 1, sizeof(*x->pat_flows));
	x->mm = cr_maxmin_new(x->e->num_links);
	x->lstamp = calloc(x->e->num_links + 1, sizeof(*x->lstamp));
	x->cstamp = calloc(x->e->num_links + 1, sizeof(*x->cstamp));
	x->lload = malloc((x->e->num_links + 1) * sizeof(*x->lload));
	x->lmax = malloc((x->e->num_links + 1) * sizeof(*x->lmax));
	if (!x->pat_first || !x->pat_flows || !x->mm || !x->lstamp ||
	    !x->cstamp || !x->lload || !x->lmax)
		goto oom;
	for (unsigned i = 0; i < n; i++) {
		struct cr_phases *run = cr_phases_start(f, &pats[i], hosts[i]);
		uint32_t np;
		size_t mf;

		if (!run)
			goto fail;
		np = cr_phases_count(run);
		mf = cr_phases_max_flows(run);
		x->pat_first[i] = x->nph;
		if (cr_grow(&flows, &flows_cap, mf + 1, sizeof(*flows))) {
			cr_phases_stop(run);
			goto oom;
		}
		if (mf > max_flows)
			max_flows = mf;
		if (cr_grow(&x->ph, &ph_alloc, x->nph + np + 1,
			    sizeof(*x->ph))) {
			cr_phases_stop(run);
			goto oom;
		}
		for (uint32_t k = 0; k < np; k++) {
			uint32_t label;
			size_t nf = cr_phases_get(run, k, flows, &label);

			memset(&x->ph[x->nph], 0, sizeof(x->ph[0]));
			if (x->nflows + (uint64_t)nf >= UINT32_MAX ||
			    hold_phase(x, flows, nf, &flow_alloc)) {
				x->nph++; /* freed with the rest */
				cr_phases_stop(run);
				goto oom;
			}
			x->pat_flows[i] += nf;
			entries += x->ph[x->nph - 1].start[nf] + nf + 1;
			if (max_entries && entries > max_entries) {
				cr_phases_stop(run);
				*too_big = true;
				goto fail;
			}
		}
		cr_phases_stop(run);
	}
	x->pat_first[n] = x->nph;
	if (index_lids(x))
		goto oom;
	x->aff_stamp = calloc(x->nflows + 1, sizeof(*x->aff_stamp));
	x->aff_idx = malloc((x->nflows + 1) * sizeof(*x->aff_idx));
	x->tbound = malloc((max_flows + 1) * sizeof(*x->tbound));
	if (!x->aff_stamp || !x->aff_idx || !x->tbound)
		goto oom;
	free(flows);
	return x;
oom:
	cr_err("out of memory holding the phases of the estimate");
fail:
	free(flows);
	cr_est_inc_free(x);
	return NULL;
}

static double pat_avg(const struct cr_est_inc *x, unsigned i, const double *sum)
{
	double s = 0;

	for (uint32_t p = x->pat_first[i]; p < x->pat_first[i + 1]; p++)
		s += sum ? sum[p] : x->ph[p].sum;
	return x->pat_flows[i] ? s / (double)x->pat_flows[i] : 0;
}

double cr_est_inc_avg(const struct cr_est_inc *x, unsigned i)
{
	return i < x->npat ? pat_avg(x, i, NULL) : 0;
}

double cr_est_inc_min(const struct cr_est_inc *x, unsigned i)
{
	double m = INFINITY;

	if (i >= x->npat || !x->pat_flows[i])
		return 0;
	for (uint32_t p = x->pat_first[i]; p < x->pat_first[i + 1]; p++)
		if (x->ph[p].min < m)
			m = x->ph[p].min;
	return m;
}

uint64_t cr_est_inc_solves(const struct cr_est_inc *x)
{
	return x->solves;
}

uint64_t cr_est_inc_reused(const struct cr_est_inc *x)
{
	return x->reused;
}

uint64_t cr_est_inc_work(const struct cr_est_inc *x)
{
	return x->work;
}

uint64_t cr_est_inc_held(const struct cr_est_inc *x)
{
	uint64_t n = 0;

	for (uint32_t p = 0; p < x->nph; p++)
		n += x->ph[p].start[x->ph[p].n] + x->ph[p].n;
	return n;
}

static bool path_has(const uint32_t *path, uint32_t a, uint32_t b,
		     uint32_t link)
{
	for (uint32_t k = a; k < b; k++)
		if (path[k] == link)
			return true;
	return false;
}

uint32_t cr_est_inc_commits(const struct cr_est_inc *x)
{
	return x->commits;
}

uint32_t cr_est_inc_version(const struct cr_est_inc *x, uint32_t sw,
			    unsigned port, uint16_t lid)
{
	uint32_t link = x->e->base[sw] + port, v = 0;

	if (lid > x->f->max_lid)
		return 0;
	for (uint32_t k = x->lid_first[lid]; k < x->lid_first[lid + 1]; k++) {
		uint32_t fl = x->lid_flow[k];
		const struct inc_phase *ph = &x->ph[x->fphase[fl]];
		uint32_t i = fl - ph->first;

		if (ph->serial > v &&
		    path_has(ph->path, ph->start[i], ph->start[i + 1], link))
			v = ph->serial;
	}
	return v;
}

uint32_t cr_est_inc_phases(const struct cr_est_inc *x, uint32_t sw,
			   unsigned port, uint16_t lid, uint32_t *out,
			   uint32_t max)
{
	uint32_t link = x->e->base[sw] + port, n = 0, last = UINT32_MAX;

	if (lid > x->f->max_lid)
		return 0;
	/* a LID's flows are indexed in flow order, so in phase order */
	for (uint32_t k = x->lid_first[lid]; k < x->lid_first[lid + 1]; k++) {
		uint32_t fl = x->lid_flow[k], p = x->fphase[fl];
		const struct inc_phase *ph = &x->ph[p];
		uint32_t i = fl - ph->first;

		if (p == last || !x->ok[fl] ||
		    !path_has(ph->path, ph->start[i], ph->start[i + 1], link))
			continue;
		if (n < max)
			out[n] = p;
		n++;
		last = p;
	}
	return n;
}

/* The affected flows' arrays, room for need entries. */
static int grow_aff(struct cr_est_inc *x, size_t need)
{
	void *const arr[] = {&x->aff, &x->aff_start, &x->aff_bound};
	const size_t size[] = {sizeof(*x->aff), sizeof(*x->aff_start),
			       sizeof(*x->aff_bound)};

	return cr_est_grow_parallel(arr, size, sizeof(arr) / sizeof(arr[0]),
				    &x->aff_alloc, need);
}

/* Re-walks flow fl into aff; -2 when it no longer arrives. */
static int rewalk(struct cr_est_inc *x, uint32_t fl)
{
	struct cr_flow_est fe;
	size_t used;
	uint32_t room = x->f->num_switches + 3;

	if (grow_aff(x, x->naff + 2))
		return -1;
	if (!x->naff)
		x->aff_start[0] = 0;
	used = x->aff_start[x->naff];
	if (cr_grow(&x->aff_path, &x->aff_path_alloc, used + room,
		    sizeof(*x->aff_path)))
		return -1;
	if (cr_est_walk(x->e, &x->flow[fl], &fe, x->aff_path, &used) ==
		    CR_NO_NODE ||
	    fe.status != CR_FLOW_OK)
		return -2;
	x->aff[x->naff] = fl;
	x->aff_bound[x->naff] = fe.bottleneck / x->penalty[fl];
	x->aff_stamp[fl] = x->aff_gen;
	x->aff_idx[fl] = x->naff;
	x->naff++;
	x->aff_start[x->naff] = (uint32_t)used;
	return 0;
}

/*
 * Phase p's solve in a try that changes the flows of key[0..len) (each:
 * its index in the phase, its path's length, the path) as its last try
 * did, with nothing committed to it since: the same figures, not solved
 * again (a swap's phases that only one of its LIDs touches are those of
 * that LID's single move, tried just before).
 */
static bool memo_hit(const struct inc_phase *ph, const uint32_t *key,
		     size_t len)
{
	return ph->memo_serial == ph->serial + 1 && ph->memo_key_len == len &&
	       !memcmp(ph->memo_key, key, len * sizeof(*key));
}

static int memo_keep(struct inc_phase *ph, const uint32_t *key, size_t len,
		     const double *rate, double sum, double min)
{
	if (!ph->memo_rate) {
		ph->memo_rate = malloc((ph->n + 1) * sizeof(*ph->memo_rate));
		if (!ph->memo_rate)
			return -1;
	}
	if (cr_grow(&ph->memo_key, &ph->memo_key_cap, len + 1,
		    sizeof(*ph->memo_key)))
		return -1;
	memcpy(ph->memo_key, key, len * sizeof(*key));
	ph->memo_key_len = len;
	memcpy(ph->memo_rate, rate, ph->n * sizeof(*rate));
	ph->memo_sum = sum;
	ph->memo_min = min;
	ph->memo_serial = ph->serial + 1;
	return 0;
}

/* Builds and solves phase p with the changed flows' new paths. */
static int trial_phase(struct cr_est_inc *x, uint32_t p, size_t *so, size_t *po,
		       size_t *ro)
{
	struct inc_phase *ph = &x->ph[p];
	struct inc_trial *t;
	size_t np = 0, nk = 0;
	uint32_t *st, *pa;
	double sum, min;

	if (cr_grow(&x->tr, &x->tr_alloc, x->ntr + 1, sizeof(*x->tr)) ||
	    cr_grow(&x->tstart, &x->tstart_alloc, *so + ph->n + 1,
		    sizeof(*x->tstart)) ||
	    cr_grow(&x->tpath, &x->tpath_alloc,
		    *po + ph->start[ph->n] + x->aff_start[x->naff],
		    sizeof(*x->tpath)) ||
	    cr_grow(&x->trate, &x->trate_alloc, *ro + ph->n,
		    sizeof(*x->trate)) ||
	    cr_grow(&x->key, &x->key_alloc,
		    2 * (size_t)x->naff + x->aff_start[x->naff] + 1,
		    sizeof(*x->key)))
		return -1;
	st = x->tstart + *so;
	pa = x->tpath + *po;
	memcpy(x->tbound, x->bound + ph->first, ph->n * sizeof(*x->tbound));
	/* the unchanged flows between two changed ones: one copy */
	for (uint32_t i = 0, run = 0; i <= ph->n; i++) {
		uint32_t fl = ph->first + i, a, len;
		size_t from = ph->start[run];

		if (i < ph->n && x->aff_stamp[fl] != x->aff_gen)
			continue;
		memcpy(pa + np, ph->path + from,
		       (ph->start[i] - from) * sizeof(*pa));
		for (uint32_t j = run; j < i; j++)
			st[j] = (uint32_t)(np + ph->start[j] - from);
		np += ph->start[i] - from;
		run = i + 1;
		if (i == ph->n)
			break;
		a = x->aff_idx[fl];
		len = x->aff_start[a + 1] - x->aff_start[a];
		st[i] = (uint32_t)np;
		memcpy(pa + np, x->aff_path + x->aff_start[a],
		       len * sizeof(*pa));
		x->key[nk++] = i;
		x->key[nk++] = len;
		memcpy(x->key + nk, pa + np, len * sizeof(*pa));
		nk += len;
		np += len;
		x->tbound[i] = x->aff_bound[a];
	}
	st[ph->n] = (uint32_t)np;
	if (memo_hit(ph, x->key, nk)) {
		memcpy(x->trate + *ro, ph->memo_rate,
		       ph->n * sizeof(*x->trate));
		sum = ph->memo_sum;
		min = ph->memo_min;
		x->reused++;
		/* the copies above: what a phase costs without its solve */
		x->work += (np + ph->n) / CR_EST_INC_REUSE_COST;
	} else {
		if (cr_maxmin_solve(x->mm, x->e->cap, ph->n, st, pa, x->tbound,
				    x->trate + *ro))
			return -1;
		x->solves++;
		x->work += np + ph->n;
		phase_figures(x, ph->first, ph->n, x->trate + *ro, &sum, &min);
		if (memo_keep(ph, x->key, nk, x->trate + *ro, sum, min))
			return -1;
	}
	t = &x->tr[x->ntr++];
	t->ph = p;
	t->start_off = *so;
	t->path_off = *po;
	t->rate_off = *ro;
	t->sum = sum;
	t->min = min;
	*so += ph->n + 1;
	*po += np;
	*ro += ph->n;
	return 0;
}

/* Whether path[a .. b) crosses a link marked for this LID. */
static bool crosses(const struct cr_est_inc *x, const uint32_t *path,
		    uint32_t a, uint32_t b)
{
	for (uint32_t k = a; k < b; k++)
		if (x->cstamp[path[k]] == x->cgen)
			return true;
	return false;
}

/*
 * The flows to lid that left a switch by a port marked in cstamp (the
 * old ports of every change toward lid), walked again: each flow to
 * the LID is read once, however many switches changed their entry.
 */
static int collect(struct cr_est_inc *x, uint16_t lid)
{
	int rc;

	if (lid > x->f->max_lid)
		return 0;
	for (uint32_t k = x->lid_first[lid]; k < x->lid_first[lid + 1]; k++) {
		uint32_t fl = x->lid_flow[k];
		const struct inc_phase *ph;
		uint32_t i;

		/* no marked link's bit: it arrives and crosses none */
		if (x->cmask && !(x->lid_sig[k] & x->cmask))
			continue;
		ph = &x->ph[x->fphase[fl]];
		i = fl - ph->first;
		if (x->aff_stamp[fl] == x->aff_gen)
			continue; /* another change of this try moved it */
		if (x->ok[fl] &&
		    !crosses(x, ph->path, ph->start[i], ph->start[i + 1]))
			continue;
		if (!x->ok[fl]) {
			/* one that did not arrive must not start to: the
			 * degrees of its phase would change */
			struct cr_flow_est fe;
			size_t used = x->naff ? x->aff_start[x->naff] : 0;

			if (cr_grow(&x->aff_path, &x->aff_path_alloc,
				    used + x->f->num_switches + 3,
				    sizeof(*x->aff_path)))
				return -1;
			if (cr_est_walk(x->e, &x->flow[fl], &fe, x->aff_path,
					&used) != CR_NO_NODE)
				return -2;
			continue;
		}
		rc = rewalk(x, fl);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_change(const void *a, const void *b)
{
	const struct cr_est_inc_change *x = a, *y = b;

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return (x->old_port > y->old_port) - (x->old_port < y->old_port);
}

/*
 * Every change's moved flows, a LID at a time. Which flows move does not
 * depend on the order of the changes (the tables hold them all), nor do
 * the phases' solves (each lays out its flows in flow order).
 */
static int collect_all(struct cr_est_inc *x, const struct cr_est_inc_change *c,
		       unsigned n)
{
	struct cr_est_inc_change *s;
	int rc;

	if (cr_grow(&x->csort, &x->csort_alloc, (size_t)n + 1,
		    sizeof(*x->csort)))
		return -1;
	s = x->csort;
	memcpy(s, c, n * sizeof(*s));
	if (n > 1)
		qsort(s, n, sizeof(*s), cmp_change);
	for (unsigned g = 0, h; g < n; g = h) {
		if (++x->cgen == 0) {
			memset(x->cstamp, 0,
			       x->e->num_links * sizeof(*x->cstamp));
			x->cgen = 1;
		}
		x->cmask = 0;
		for (h = g; h < n && s[h].lid == s[g].lid; h++) {
			uint32_t l = x->e->base[s[h].sw] + s[h].old_port;

			/* no path crosses a link past the last */
			if (l < x->e->num_links) {
				x->cstamp[l] = x->cgen;
				x->cmask |= link_bit(l);
			}
		}
		rc = collect(x, s[g].lid);
		if (rc)
			return rc;
	}
	return 0;
}

long cr_est_inc_try(struct cr_est_inc *x, uint32_t sw, unsigned old_port,
		    uint16_t lid, double *avg, double *min)
{
	struct cr_est_inc_change c = {
		.sw = sw, .old_port = (uint8_t)old_port, .lid = lid};

	return cr_est_inc_try_n(x, &c, 1, avg, min);
}

/* The figures of the patterns the pending try solved; NAN for the rest. */
static void try_figures(struct cr_est_inc *x, double *avg, double *min)
{
	uint32_t done =
		x->tph_done < x->tph_n ? x->tph[x->tph_done] : UINT32_MAX;

	for (unsigned i = 0; i < x->npat; i++) {
		double s = 0, m = INFINITY;
		uint32_t t = 0;

		if (x->pat_first[i + 1] > done) {
			avg[i] = min[i] = NAN;
			continue;
		}
		while (t < x->ntr && x->tr[t].ph < x->pat_first[i])
			t++;
		for (uint32_t p = x->pat_first[i]; p < x->pat_first[i + 1];
		     p++) {
			double ps = x->ph[p].sum, pm = x->ph[p].min;

			if (t < x->ntr && x->tr[t].ph == p) {
				ps = x->tr[t].sum;
				pm = x->tr[t].min;
				t++;
			}
			s += ps;
			if (pm < m)
				m = pm;
		}
		avg[i] = x->pat_flows[i] ? s / (double)x->pat_flows[i] : 0;
		min[i] = x->pat_flows[i] ? m : 0;
	}
}

/* Solves the pending try's phases before phase `end`. 0, or -1. */
static int try_solve(struct cr_est_inc *x, uint32_t end)
{
	while (x->tph_done < x->tph_n && x->tph[x->tph_done] < end) {
		if (trial_phase(x, x->tph[x->tph_done], &x->so, &x->po, &x->ro))
			return -1;
		x->tph_done++;
	}
	x->pending = x->tph_done == x->tph_n;
	return 0;
}

long cr_est_inc_try_part(struct cr_est_inc *x,
			 const struct cr_est_inc_change *c, unsigned n,
			 unsigned npat, double *avg, double *min)
{
	uint32_t nph = 0;
	int rc;

	x->pending = false;
	x->naff = 0;
	x->ntr = 0;
	x->so = x->po = x->ro = 0;
	x->tph_n = x->tph_done = 0;
	if (++x->aff_gen == 0) {
		memset(x->aff_stamp, 0, x->nflows * sizeof(*x->aff_stamp));
		x->aff_gen = 1;
	}
	rc = collect_all(x, c, n);
	if (rc == -1)
		goto oom;
	if (rc)
		return -2;
	/* their phases, in order */
	if (cr_grow(&x->tph, &x->tph_alloc, x->naff + 1, sizeof(*x->tph)))
		goto oom;
	for (uint32_t a = 0; a < x->naff; a++)
		x->tph[a] = x->fphase[x->aff[a]];
	if (n > 1)
		qsort(x->tph, x->naff, sizeof(*x->tph), cr_cmp_u32);
	for (uint32_t a = 0; a < x->naff; a++)
		if (!nph || x->tph[nph - 1] != x->tph[a])
			x->tph[nph++] = x->tph[a];
	x->tph_n = nph;
	if (try_solve(x, x->pat_first[npat < x->npat ? npat : x->npat]))
		goto oom;
	try_figures(x, avg, min);
	return x->naff;
oom:
	x->pending = false;
	cr_err("out of memory re-estimating a routing change");
	return -1;
}

int cr_est_inc_try_more(struct cr_est_inc *x, double *avg, double *min)
{
	if (try_solve(x, UINT32_MAX)) {
		x->pending = false;
		cr_err("out of memory re-estimating a routing change");
		return -1;
	}
	try_figures(x, avg, min);
	return 0;
}

long cr_est_inc_try_n(struct cr_est_inc *x, const struct cr_est_inc_change *c,
		      unsigned n, double *avg, double *min)
{
	return cr_est_inc_try_part(x, c, n, x->npat, avg, min);
}

/* Flow fl's signature again, after its path changed. */
static void resign(struct cr_est_inc *x, uint32_t fl)
{
	uint16_t lid = x->flow[fl].dst_lid;

	if (lid > x->f->max_lid)
		return;
	for (uint32_t k = x->lid_first[lid]; k < x->lid_first[lid + 1]; k++)
		if (x->lid_flow[k] == fl) {
			x->lid_sig[k] = path_sig(x, fl);
			return;
		}
}

int cr_est_inc_commit(struct cr_est_inc *x)
{
	if (!x->pending)
		return 0;
	for (uint32_t t = 0; t < x->ntr; t++) {
		const struct inc_trial *tr = &x->tr[t];
		struct inc_phase *ph = &x->ph[tr->ph];
		const uint32_t *st = x->tstart + tr->start_off;
		size_t np = st[ph->n];

		if (cr_grow(&ph->path, &ph->path_cap, np, sizeof(*ph->path))) {
			cr_err("out of memory keeping a routing change");
			return -1;
		}
		memcpy(ph->start, st, (ph->n + 1) * sizeof(*st));
		memcpy(ph->path, x->tpath + tr->path_off,
		       np * sizeof(uint32_t));
		for (uint32_t i = 0; i < ph->n; i++) {
			uint32_t fl = ph->first + i;

			x->rate[fl] =
				x->ok[fl] ? x->trate[tr->rate_off + i] : 0;
			if (x->aff_stamp[fl] == x->aff_gen)
				x->bound[fl] = x->aff_bound[x->aff_idx[fl]];
		}
		ph->sum = tr->sum;
		ph->min = tr->min;
		ph->serial = x->commits + 1;
	}
	for (uint32_t a = 0; a < x->naff; a++)
		resign(x, x->aff[a]);
	x->commits++;
	x->pending = false;
	return 0;
}

void cr_est_inc_limits(struct cr_est_inc *x, unsigned pat,
		       cr_est_inc_limit_fn *fn, void *arg)
{
	const double *cap = x->e->cap;

	if (pat >= x->npat)
		return;
	for (uint32_t p = x->pat_first[pat]; p < x->pat_first[pat + 1]; p++) {
		const struct inc_phase *ph = &x->ph[p];

		if (++x->lgen == 0) {
			memset(x->lstamp, 0,
			       x->e->num_links * sizeof(*x->lstamp));
			x->lgen = 1;
		}
		for (uint32_t i = 0; i < ph->n; i++) {
			double r = x->rate[ph->first + i];

			for (uint32_t k = ph->start[i]; k < ph->start[i + 1];
			     k++) {
				uint32_t l = ph->path[k];

				if (x->lstamp[l] != x->lgen) {
					x->lstamp[l] = x->lgen;
					x->lload[l] = 0;
					x->lmax[l] = 0;
				}
				x->lload[l] += r;
				if (r > x->lmax[l])
					x->lmax[l] = r;
			}
		}
		for (uint32_t i = 0; i < ph->n; i++) {
			uint32_t fl = ph->first + i, a = ph->start[i];
			uint32_t len = ph->start[i + 1] - a, b = len, nb = 0;
			double r = x->rate[fl];
			double frac = x->inject[fl] > 0 ? r / x->inject[fl] : 0;

			if (!x->ok[fl] || !len)
				continue;
			if (frac >= 1 - 1e-12) {
				fn(arg, x->flow[fl].dst_lid, ph->path + a, len,
				   len, frac);
				continue;
			}
			for (uint32_t k = 0; k < len; k++) {
				uint32_t l = ph->path[a + k];

				if (x->lload[l] >= cap[l] * (1 - 1e-9) &&
				    r >= x->lmax[l] * (1 - 1e-9)) {
					b = k;
					break;
				}
				if (cap[l] < cap[ph->path[a + nb]])
					nb = k;
			}
			fn(arg, x->flow[fl].dst_lid, ph->path + a, len,
			   b < len ? b : nb, frac);
		}
	}
}
