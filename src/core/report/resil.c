// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * croute resilience's analysis: each failure of a list applied to a copy
 * of the fabric, which is then routed the way OpenSM with the plugin
 * would after that sweep (the engine list in order, each engine trying
 * croute_incremental's repair of the intact run first when it is on),
 * checked as croute check does, scored as croute estimate --orders does,
 * and compared with the intact tables in the 64-entry blocks the SM
 * sends. Failures run on threads of their own, each row computed from
 * the failure alone, so the rows do not depend on the thread count.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <croute/estimate/host_order.h>
#include <croute/model/check.h>
#include <croute/model/clock.h>
#include <croute/model/log.h>
#include <croute/model/node_match.h>
#include <croute/model/parallel.h>
#include <croute/report/resil.h>
#include <croute/route/incremental.h>

#include "resil_int.h"

struct cr_resil {
	const struct cr_fabric *f;
	struct cr_resil_conf c;
	struct cr_routing *r; /* intact */
	struct cr_byproducts by;
	int engine; /* chain index that routed the intact fabric */
	struct cr_incr_base *base;
	struct cr_check_report rep;
	struct cr_resil_check *chk; /* per LID, for cable failures */
	struct cr_hosts *hosts; /* the intact order */
	double avg[CR_RESIL_MAX_PATS], min[CR_RESIL_MAX_PATS], bw;
};

/* The host order croute estimate takes for this routing. */
static struct cr_hosts *hosts_of(const struct cr_resil_conf *c,
				 const struct cr_fabric *f,
				 const struct cr_byproducts *by)
{
	struct cr_hosts *h = cr_hosts_for(f, by, NULL);

	if (h && c->rail_order) {
		struct cr_hosts *rail = cr_hosts_rail(f, h);

		cr_hosts_free(h);
		h = rail;
	}
	return h;
}

static double mean_bw(const struct cr_resil_conf *c, const double *avg)
{
	double bw = 0;

	for (unsigned i = 0; i < c->npat; i++)
		bw += avg[i];
	return bw / (c->npat ? c->npat : 1);
}

/* The patterns on random host orders: the means croute estimate gives. */
static int score(const struct cr_resil_conf *c, const struct cr_fabric *f,
		 const struct cr_routing *r, const struct cr_hosts *h,
		 double *avg, double *min)
{
	struct cr_est *e = cr_est_new(f, r, c->par);
	int ret = -1;

	if (!e)
		return -1;
	for (unsigned i = 0; i < c->npat; i++) {
		struct cr_est_orders o;

		if (cr_est_run_orders(e, &c->pats[i], h, c->par->orders,
				      c->par->order_seed, &o))
			goto out;
		avg[i] = o.mean_avg;
		min[i] = o.mean_min;
	}
	ret = 0;
out:
	cr_est_free(e);
	return ret;
}

/* OpenSM refuses tables some CAs cannot use and moves on. */
static bool usable(const struct cr_byproducts *by)
{
	return !by->stranded;
}

/*
 * The engine list on f, as the sweep after the failure runs it; *engine
 * the chain index that routed (-1: none), *incr whether by the repair.
 * NULL when no engine routes f or memory runs out.
 */
static struct cr_routing *route_chain(const struct cr_resil *x,
				      const struct cr_fabric *f,
				      struct cr_byproducts *by, int *engine,
				      bool *incr, bool *loop_free)
{
	for (unsigned i = 0; i < x->c.nchain; i++) {
		const struct cr_engine *e = x->c.chain[i];
		struct cr_routing *r = cr_routing_new(f);
		struct cr_incr_stats st;

		if (!r)
			return NULL;
		*incr = false;
		*loop_free = false;
		if (x->base && !cr_route_incremental(x->base, e, f, x->c.opts,
						     r, by, &st)) {
			*incr = true;
			*loop_free = st.loop_free;
		} else if (cr_route_by(e, f, x->c.opts, r, by) < 0 ||
			   !usable(by)) {
			cr_routing_free(r);
			cr_byproducts_release(by);
			continue;
		}
		*engine = (int)i;
		return r;
	}
	*engine = -1;
	return NULL;
}

struct cr_resil *cr_resil_new(const struct cr_fabric *f,
			      const struct cr_resil_conf *c)
{
	struct cr_resil *x = calloc(1, sizeof(*x));
	bool incr, loop_free;

	if (!x) {
		cr_err("out of memory");
		return NULL;
	}
	x->f = f;
	x->c = *c;
	x->r = route_chain(x, f, &x->by, &x->engine, &incr, &loop_free);
	if (!x->r) {
		cr_err("no engine of the list routes the intact fabric");
		goto fail;
	}
	/* the plugin keeps a full run only with croute_incremental */
	if (c->incremental)
		x->base = cr_incr_base_new(c->chain[x->engine], f, c->opts,
					   x->r, &x->by);
	x->hosts = hosts_of(c, f, &x->by);
	if (!x->hosts || cr_check(f, x->r, CR_CHECK_CREDIT, NULL, 0, &x->rep) ||
	    score(c, f, x->r, x->hosts, x->avg, x->min))
		goto fail;
	x->bw = mean_bw(c, x->avg);
	/* with --full-estimate every failure is checked afresh too */
	if (c->est_inc && !(x->chk = cr_resil_check_new(f, x->r)))
		cr_verbose("resilience: each failure checked in full");
	return x;
fail:
	cr_resil_free(x);
	return NULL;
}

void cr_resil_free(struct cr_resil *x)
{
	if (!x)
		return;
	cr_incr_base_free(x->base);
	cr_resil_check_free(x->chk);
	cr_hosts_free(x->hosts);
	cr_routing_free(x->r);
	cr_byproducts_release(&x->by);
	free(x);
}

const struct cr_routing *cr_resil_routing(const struct cr_resil *x)
{
	return x->r;
}

void cr_resil_intact(const struct cr_resil *x, struct cr_resil_report *rep)
{
	rep->nchain = x->c.nchain;
	for (unsigned i = 0; i < x->c.nchain; i++)
		snprintf(rep->engines[i], sizeof(rep->engines[i]), "cr-%s",
			 x->c.chain[i]->name);
	rep->npat = x->c.npat;
	for (unsigned i = 0; i < x->c.npat; i++) {
		const struct cr_pattern *p = &x->c.pats[i];
		const char *kind = cr_pattern_kind_name(p->kind);

		if (p->count)
			snprintf(rep->pat_name[i], sizeof(rep->pat_name[i]),
				 "%s:%u", kind, p->count);
		else
			snprintf(rep->pat_name[i], sizeof(rep->pat_name[i]),
				 "%s", kind);
		rep->intact_avg[i] = x->avg[i];
		rep->intact_min[i] = x->min[i];
	}
	rep->orders = x->c.par->orders;
	rep->seed = x->c.par->order_seed;
	rep->intact_bw = x->bw;
	rep->intact_pairs = x->rep.pairs;
}

/* Takes the cable off port p of node n, both ends. */
static void unplug(struct cr_fabric *f, uint32_t n, unsigned p)
{
	struct cr_port *a = &f->nodes[n].ports[p];

	if (a->remote == CR_NO_NODE)
		return;
	f->nodes[a->remote].ports[a->remote_port].remote = CR_NO_NODE;
	f->nodes[a->remote].ports[a->remote_port].remote_port = 0;
	a->remote = CR_NO_NODE;
	a->remote_port = 0;
}

/* The fabric OpenSM sees after the failure: what its port still reaches. */
static struct cr_fabric *apply(const struct cr_fabric *f,
			       const struct cr_fault *ft)
{
	struct cr_fabric *c = cr_fabric_copy(f);

	if (!c)
		return NULL;
	if (ft->kind == CR_FAULT_CABLE) {
		unplug(c, ft->node, ft->port);
	} else {
		for (unsigned p = 1; p <= c->nodes[ft->node].num_ports; p++)
			unplug(c, ft->node, p);
	}
	if (cr_fabric_keep_sm_part(c) || cr_fabric_finalize(c)) {
		cr_fabric_free(c);
		return NULL;
	}
	return c;
}

static uint8_t entry(const struct cr_routing *r, uint32_t n, uint32_t lid)
{
	return lid <= r->max_lid && r->lft[n] ? r->lft[n][lid] : CR_NO_PATH;
}

uint32_t cr_resil_next_diff(const uint8_t *a, const uint8_t *b, uint32_t from,
			    uint32_t end)
{
	uint32_t i = from;

	/* eight entries a compare; memcpy: the rows need not be aligned */
	for (; i + 8 <= end; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
			break;
	}
	for (; i < end; i++)
		if (a[i] != b[i])
			return i;
	return end;
}

/*
 * What the SM sends: entries and 64-entry blocks of the switches still
 * there whose tables change (a switch gone is sent nothing).
 */
static int churn(const struct cr_fabric *f, const struct cr_routing *r,
		 const struct cr_fabric *g, const struct cr_routing *s,
		 struct cr_resil_row *row)
{
	uint32_t *a2b = malloc((f->num_nodes + 1) * sizeof(*a2b));
	uint32_t top = f->max_lid > g->max_lid ? f->max_lid : g->max_lid;

	if (!a2b || cr_match_nodes(f, g, a2b, NULL)) {
		free(a2b);
		cr_err("out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i], m = a2b[n];
		uint32_t last_block = UINT32_MAX;

		if (m == CR_NO_NODE)
			continue;
		for (uint32_t lid = 1; lid <= top; lid++) {
			/* both tables whole: straight to the next change */
			if (r->lft[n] && s->lft[m] && r->max_lid >= top &&
			    s->max_lid >= top) {
				lid = cr_resil_next_diff(r->lft[n], s->lft[m],
							 lid, top + 1);
				if (lid > top)
					break;
			}
			if (entry(r, n, lid) == entry(s, m, lid))
				continue;
			row->entries++;
			if (lid / 64 != last_block) {
				last_block = lid / 64;
				row->blocks++;
			}
		}
	}
	free(a2b);
	return 0;
}

static void name_node(const struct cr_fabric *f, uint32_t n, uint64_t *guid,
		      char *name)
{
	*guid = f->nodes[n].guid;
	snprintf(name, CR_RESIL_NAME, "%s", f->nodes[n].desc);
}

/* The score, incrementally when inc (may be NULL) can stand for it. */
static int score_row(const struct cr_resil *x, struct cr_resil_inc *inc,
		     const struct cr_fabric *g, const struct cr_routing *r,
		     const struct cr_byproducts *by, const struct cr_fault *ft,
		     struct cr_resil_row *row)
{
	struct cr_hosts *h = hosts_of(&x->c, g, by);
	int ret = h ? 1 : -1;

	if (h && inc)
		ret = cr_resil_inc_score(inc, g, r, ft, h, row->avg, row->min);
	row->est_inc = !ret;
	if (ret == 1)
		ret = score(&x->c, g, r, h, row->avg, row->min);
	row->bw = mean_bw(&x->c, row->avg);
	cr_hosts_free(h);
	return ret;
}

static int run_one(const struct cr_resil *x, struct cr_resil_inc *inc,
		   const struct cr_fault *ft, uint32_t index,
		   struct cr_resil_row *row)
{
	double t0 = cr_now();
	struct cr_fabric *g = apply(x->f, ft);
	struct cr_byproducts by = {0};
	struct cr_routing *r = NULL;
	struct cr_check_report rep;
	int ret = -1;
	bool incr = false, loop_free = false;
	int engine = -1;

	memset(row, 0, sizeof(*row));
	row->index = index;
	row->kind = ft->kind;
	row->port = ft->port;
	row->rport = ft->rport;
	name_node(x->f, ft->node, &row->guid, row->name);
	if (ft->kind == CR_FAULT_CABLE)
		name_node(x->f, ft->rnode, &row->rguid, row->rname);
	if (!g)
		return -1;
	row->nodes_lost = x->f->num_nodes - g->num_nodes;
	r = route_chain(x, g, &by, &engine, &incr, &loop_free);
	row->engine = (int8_t)engine;
	row->incremental = incr;
	if (!r) {
		/* nothing installs: every pair counts as lost */
		row->pairs = row->unreachable = x->rep.pairs;
		ret = 0;
		goto out;
	}
	/* hop optimality is no problem croute check reports: not counted */
	ret = cr_resil_check_cable(x->chk, x->f, x->r, g, r, ft, loop_free,
				   &rep);
	if (ret > 0)
		ret = cr_check(g, r, CR_CHECK_CREDIT, NULL, 0, &rep);
	if (ret)
		goto out;
	ret = -1;
	row->pairs = rep.pairs;
	row->unreachable = rep.unreachable;
	row->loops = rep.loops;
	row->credit_loops = rep.credit_loops;
	if (score_row(x, inc, g, r, &by, ft, row) ||
	    churn(x->f, x->r, g, r, row))
		goto out;
	ret = 0;
out:
	row->seconds = cr_now() - t0;
	cr_routing_free(r);
	cr_byproducts_release(&by);
	cr_fabric_free(g);
	return ret;
}

struct work {
	struct cr_resil *x;
	const struct cr_fault *faults;
	uint32_t begin, end;
	struct cr_resil_row *rows;
	atomic_uint next, done;
	atomic_int err;
};

/* Workers say nothing but errors: a warning per failure is noise. */
static void quiet(void *arg, enum cr_log_level level, const char *msg)
{
	(void)arg;
	if (level == CR_LOG_ERROR)
		fprintf(stderr, "error: %s\n", msg);
}

static void *worker(void *arg)
{
	struct work *w = arg;
	struct cr_resil_inc *inc = NULL;
	bool tried = false;
	unsigned i;

	cr_log_set_thread(quiet, NULL);
	while ((i = atomic_fetch_add(&w->next, 1)) < w->end - w->begin) {
		const struct cr_fault *ft = &w->faults[w->begin + i];

		if (atomic_load(&w->err))
			break;
		/* built once a worker meets a cable: a full estimate */
		if (!tried && w->x->c.est_inc && ft->kind == CR_FAULT_CABLE) {
			tried = true;
			inc = cr_resil_inc_new(w->x->f, w->x->r, w->x->hosts,
					       &w->x->c);
		}
		if (run_one(w->x, inc, ft, w->begin + i, &w->rows[i]))
			atomic_store(&w->err, 1);
		atomic_fetch_add(&w->done, 1);
	}
	cr_resil_inc_free(inc);
	cr_log_set_thread(NULL, NULL);
	return NULL;
}

int cr_resil_run(struct cr_resil *x, const struct cr_fault *faults,
		 uint32_t begin, uint32_t end, struct cr_resil_row *rows)
{
	struct work w = {.x = x,
			 .faults = faults,
			 .begin = begin,
			 .end = end,
			 .rows = rows};
	unsigned nt = x->c.threads ? x->c.threads : 1, started = 0;
	unsigned saved = cr_threads_get();
	pthread_t tid[CR_MAX_THREADS];

	if (nt > CR_MAX_THREADS)
		nt = CR_MAX_THREADS;
	if (end <= begin)
		return 0;
	/* the failures are the parallel work: each routes on one thread */
	cr_threads_set(1);
	for (unsigned t = 0; t < nt; t++)
		if (!pthread_create(&tid[started], NULL, worker, &w))
			started++;
	if (!started) {
		worker(&w);
	} else {
		while (atomic_load(&w.done) < end - begin &&
		       !atomic_load(&w.err)) {
			struct timespec ts = {0, 100000000};

			if (x->c.progress)
				x->c.progress(x->c.arg, atomic_load(&w.done));
			nanosleep(&ts, NULL);
		}
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (x->c.progress)
		x->c.progress(x->c.arg, atomic_load(&w.done));
	cr_threads_set(saved);
	return atomic_load(&w.err) ? -1 : 0;
}

uint64_t cr_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t cr_resil_digest_fabric(const struct cr_fabric *f)
{
	uint64_t h =
		cr_fnv(CR_FNV_INIT, &f->sm_port_guid, sizeof(f->sm_port_guid));

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct cr_node *nd = &f->nodes[n];
		uint64_t v[3] = {nd->type, nd->guid, nd->num_ports};

		h = cr_fnv(h, v, sizeof(v));
		h = cr_fnv(h, nd->desc, strlen(nd->desc) + 1);
		for (unsigned p = 0; p <= nd->num_ports; p++) {
			const struct cr_port *pt = &nd->ports[p];
			uint64_t w[7] = {
				pt->guid,
				pt->lid,
				pt->lmc,
				pt->width,
				pt->speed,
				pt->remote == CR_NO_NODE ? 0 : f->nodes[pt->remote].guid,
				pt->remote_port};

			h = cr_fnv(h, w, sizeof(w));
		}
	}
	return h;
}

uint64_t cr_resil_digest_routing(const struct cr_fabric *f,
				 const struct cr_routing *r)
{
	uint64_t h = cr_fnv(CR_FNV_INIT, &r->max_lid, sizeof(r->max_lid));

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t n = f->switches[i];

		h = cr_fnv(h, r->lft[n], (size_t)r->max_lid + 1);
		if (r->sl && r->sl[n])
			h = cr_fnv(h, r->sl[n], (size_t)r->max_lid + 1);
	}
	return cr_fnv(h, r->sl2vl, sizeof(r->sl2vl));
}

void cr_resil_shard_range(uint32_t total, unsigned k, unsigned n,
			  uint32_t *begin, uint32_t *end)
{
	*begin = (uint32_t)((uint64_t)total * (k - 1) / n);
	*end = (uint32_t)((uint64_t)total * k / n);
}
