// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reports of the contention estimate: one log line per pattern, the full
 * text report (croute-contention.dump, `croute estimate`) and JSON. Only
 * formatting lives here; every figure is computed in estimate.c.
 */
#include <inttypes.h>
#include <string.h>

#include <croute/estimate/est_report.h>
#include <croute/model/json.h>

static const char *status_name(unsigned s)
{
	switch (s) {
	case CR_FLOW_OK:
		return "ok";
	case CR_FLOW_NO_PATH:
		return "no path";
	case CR_FLOW_LOOP:
		return "loop";
	case CR_FLOW_BAD_SOURCE:
		return "source not a cabled CA port";
	}
	return "?";
}

static const char *desc(const struct cr_fabric *f, uint32_t n)
{
	return n < f->num_nodes ? f->nodes[n].desc : "?";
}

void cr_est_summary(const struct cr_est_result *res, char *buf, size_t len)
{
	int w;

	w = snprintf(buf, len,
		     "%s: %u phase%s, %" PRIu64 " flows, avg %.4f (%.2f Gb/s)"
		     ", min %.4f (%.2f Gb/s)",
		     res->name, res->num_phases,
		     res->num_phases == 1 ? "" : "s", res->flows, res->avg_frac,
		     res->avg_gbps, res->min_frac, res->min_gbps);
	if (w < 0 || (size_t)w >= len)
		return;
	buf += w;
	len -= w;
	if (res->num_hot) {
		w = snprintf(buf, len, ", hottest link %u flows",
			     res->hot[0].max_flows);
		if (w < 0 || (size_t)w >= len)
			return;
		buf += w;
		len -= w;
	}
	snprintf(buf, len, ", %" PRIu64 " without path", res->unrouted);
}

static void link_name(FILE *out, const struct cr_fabric *f, uint32_t n,
		      unsigned p)
{
	const struct cr_port *port = &f->nodes[n].ports[p];
	char a[CR_NODE_LABEL_MAX], b[CR_NODE_LABEL_MAX];

	fprintf(out, "%s port %u -> %s port %u",
		cr_node_label(f, n, p, a, sizeof(a)), p,
		cr_node_label(f, port->remote, port->remote_port, b, sizeof(b)),
		port->remote_port);
}

int cr_est_write_text(FILE *out, const struct cr_fabric *f,
		      const struct cr_est_result *res, unsigned flags)
{
	fprintf(out, "pattern %s: %u of %u phase%s", res->name, res->num_phases,
		res->phases_total, res->phases_total == 1 ? "" : "s");
	if (res->kind != CR_PAT_FLOWS)
		fprintf(out, ", %u hosts", res->hosts);
	if (res->kind == CR_PAT_SHIFT || res->kind == CR_PAT_BISECT)
		fprintf(out, ", seed %" PRIu64, res->seed);
	if (flags & CR_REPORT_TIMES)
		fprintf(out, " (%.3f s)", res->seconds);
	fputc('\n', out);
	fprintf(out,
		"  flows          %" PRIu64 " (%" PRIu64 " without path)\n",
		res->flows, res->unrouted);
	fprintf(out, "  average rate   %.4f of injection, %.3f Gb/s\n",
		res->avg_frac, res->avg_gbps);
	fprintf(out, "  minimum rate   %.4f of injection, %.3f Gb/s\n",
		res->min_frac, res->min_gbps);
	if (res->num_hot)
		fprintf(out, "  hottest links  (most flows in one phase, "
			     "flows in all phases, capacity)\n");
	for (unsigned i = 0; i < res->num_hot; i++) {
		const struct cr_est_link *l = &res->hot[i];

		fprintf(out, "    %5u %8" PRIu64 " %7.2f Gb/s  ", l->max_flows,
			l->total_flows, l->capacity / 1000);
		link_name(out, f, l->node, l->port);
		fputc('\n', out);
	}
	if (res->unrouted)
		fprintf(out, "  flows without path (%" PRIu64 ", first %u)\n",
			res->unrouted, res->num_unrouted_kept);
	for (unsigned i = 0; i < res->num_unrouted_kept; i++) {
		const struct cr_est_unrouted *u = &res->unrouted_kept[i];
		char a[CR_NODE_LABEL_MAX], b[CR_NODE_LABEL_MAX];

		fprintf(out,
			"    phase %u: %s port %u -> LID %u: %s at %s"
			" port %u\n",
			u->phase,
			cr_node_label(f, u->flow.src_node, u->flow.src_port, a,
				      sizeof(a)),
			u->flow.src_port, u->flow.dst_lid,
			status_name(u->status),
			cr_node_label(f, u->stop_node, u->stop_port, b,
				      sizeof(b)),
			u->stop_port);
	}
	if (res->matrix)
		fprintf(out, "  matrix         %u x %u (blocks of %u host%s)\n",
			res->mat_dim, res->mat_dim, res->mat_block,
			res->mat_block == 1 ? "" : "s");
	if (flags & CR_REPORT_PHASES) {
		fprintf(out, "  %-8s %9s %8s %8s %10s %10s %8s\n",
			res->kind == CR_PAT_SHIFT ? "k" : "phase", "flows",
			"avg", "min", "avg Gb/s", "min Gb/s", "no path");
		for (uint32_t i = 0; i < res->num_phases; i++) {
			const struct cr_est_phase_stat *s = &res->phase[i];

			fprintf(out,
				"  %-8u %9u %8.4f %8.4f %10.3f %10.3f %8u\n",
				s->label, s->flows, s->avg_frac, s->min_frac,
				s->avg_gbps, s->min_gbps, s->unrouted);
		}
	}
	return ferror(out) ? -1 : 0;
}

static void json_str(FILE *out, const char *s)
{
	cr_json_str(out, s);
}

static void json_link(FILE *out, const struct cr_fabric *f,
		      const struct cr_est_link *l)
{
	const struct cr_port *port = &f->nodes[l->node].ports[l->port];

	fputs("{\"from\": ", out);
	json_str(out, desc(f, l->node));
	fprintf(out,
		", \"from_guid\": \"0x%016" PRIx64 "\", \"port\": %u, "
		"\"to\": ",
		f->nodes[l->node].guid, l->port);
	json_str(out, desc(f, port->remote));
	fprintf(out,
		", \"to_guid\": \"0x%016" PRIx64 "\", \"to_port\": %u, "
		"\"capacity_gbps\": %.6g, \"max_flows\": %u, "
		"\"total_flows\": %" PRIu64 "}",
		f->nodes[port->remote].guid, port->remote_port,
		l->capacity / 1000, l->max_flows, l->total_flows);
}

/* A node's GUID as a string, null when there is no such node. */
static void json_guid(FILE *out, const struct cr_fabric *f, uint32_t n)
{
	if (n < f->num_nodes)
		fprintf(out, "\"0x%016" PRIx64 "\"", f->nodes[n].guid);
	else
		fputs("null", out);
}

static void json_unrouted(FILE *out, const struct cr_fabric *f,
			  const struct cr_est_unrouted *u)
{
	fprintf(out, "{\"phase\": %u, \"src\": ", u->phase);
	json_str(out, desc(f, u->flow.src_node));
	fputs(", \"src_guid\": ", out);
	json_guid(out, f, u->flow.src_node);
	fprintf(out, ", \"src_port\": %u, \"dst_lid\": %u, \"status\": ",
		u->flow.src_port, u->flow.dst_lid);
	json_str(out, status_name(u->status));
	fputs(", \"stop\": ", out);
	json_str(out, desc(f, u->stop_node));
	fputs(", \"stop_guid\": ", out);
	json_guid(out, f, u->stop_node);
	fprintf(out, ", \"stop_port\": %u}", u->stop_port);
}

static void json_matrix(FILE *out, const struct cr_est_result *res)
{
	fprintf(out,
		",\n   \"matrix\": {\"dim\": %u, \"block\": %u, "
		"\"rows\": [",
		res->mat_dim, res->mat_block);
	for (uint32_t i = 0; i < res->mat_dim; i++) {
		fputs(i ? ",\n     [" : "\n     [", out);
		for (uint32_t j = 0; j < res->mat_dim; j++) {
			float v = res->matrix[(size_t)i * res->mat_dim + j];

			if (j)
				fputs(", ", out);
			if (v < 0)
				fputs("null", out);
			else
				fprintf(out, "%.5g", v);
		}
		fputc(']', out);
	}
	fputs("]}", out);
}

static void json_result(FILE *out, const struct cr_fabric *f,
			const struct cr_est_result *res, unsigned flags)
{
	fputs("  {\"name\": ", out);
	json_str(out, res->name);
	fputs(", \"pattern\": ", out);
	json_str(out, cr_pattern_kind_name(res->kind));
	fprintf(out,
		", \"seed\": %" PRIu64 ", \"hosts\": %u, "
		"\"phases\": %u, \"phases_total\": %u,\n"
		"   \"flows\": %" PRIu64 ", \"unrouted\": %" PRIu64
		", \"avg_frac\": %.6g, \"min_frac\": %.6g, "
		"\"avg_gbps\": %.6g, \"min_gbps\": %.6g, "
		"\"seconds\": %.3f,\n   \"hot_links\": [",
		res->seed, res->hosts, res->num_phases, res->phases_total,
		res->flows, res->unrouted, res->avg_frac, res->min_frac,
		res->avg_gbps, res->min_gbps, res->seconds);
	for (unsigned i = 0; i < res->num_hot; i++) {
		fputs(i ? ",\n     " : "\n     ", out);
		json_link(out, f, &res->hot[i]);
	}
	fputs("],\n   \"unrouted_flows\": [", out);
	for (unsigned i = 0; i < res->num_unrouted_kept; i++) {
		fputs(i ? ",\n     " : "\n     ", out);
		json_unrouted(out, f, &res->unrouted_kept[i]);
	}
	fputc(']', out);
	if (flags & CR_REPORT_PHASES) {
		fputs(",\n   \"phase_stats\": [", out);
		for (uint32_t i = 0; i < res->num_phases; i++) {
			const struct cr_est_phase_stat *s = &res->phase[i];

			fprintf(out,
				"%s{\"label\": %u, \"flows\": %u, "
				"\"unrouted\": %u, \"avg_frac\": %.6g, "
				"\"min_frac\": %.6g, \"avg_gbps\": %.6g, "
				"\"min_gbps\": %.6g}",
				i ? ",\n     " : "\n     ", s->label, s->flows,
				s->unrouted, s->avg_frac, s->min_frac,
				s->avg_gbps, s->min_gbps);
		}
		fputc(']', out);
	}
	if ((flags & CR_REPORT_MATRIX) && res->matrix)
		json_matrix(out, res);
	fputc('}', out);
}

int cr_est_write_json(FILE *out, const struct cr_fabric *f,
		      struct cr_est_result *const *res, unsigned n,
		      unsigned flags)
{
	/* croute(1) JSON OUTPUT: the command writes the object's header. */
	fputs("\"patterns\": [\n", out);
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputs(",\n", out);
		json_result(out, f, res[i], flags);
	}
	fputs("\n]}\n", out);
	return ferror(out) ? -1 : 0;
}

int cr_est_write_orders(FILE *out, struct cr_est_result *const *res, int n,
			uint32_t orders, uint64_t seed)
{
	fprintf(out,
		"# on %u random host orders (seed %llu): mean and worst of"
		" the per-flow average\n# and of the slowest flow; own: the"
		" order above\n",
		orders, (unsigned long long)seed);
	fprintf(out, "%-16s %10s %10s %10s %10s %10s %10s\n", "pattern",
		"own avg", "mean avg", "worst avg", "own min", "mean min",
		"worst min");
	for (int i = 0; i < n; i++) {
		const struct cr_est_result *r = res[i];
		const struct cr_est_orders *o = r ? &r->orders : NULL;

		if (!r)
			continue;
		if (!o->count)
			fprintf(out,
				"%-16s %10.4f %10s %10s %10.4f %10s %10s\n",
				r->name, r->avg_frac, "-", "-", r->min_frac,
				"-", "-");
		else
			fprintf(out,
				"%-16s %10.4f %10.4f %10.4f %10.4f %10.4f"
				" %10.4f\n",
				r->name, r->avg_frac, o->mean_avg, o->worst_avg,
				r->min_frac, o->mean_min, o->worst_min);
	}
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
