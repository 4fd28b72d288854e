// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The writers of what the command reports: a small topology (the input)
 * routed by cr-minhop, then its MPI hostfile, Slurm topology.conf, the
 * shift estimate as JSON and as the HTML report, written to memory.
 * Node descriptions and names come from the input, so whatever the
 * readers accept reaches every writer.
 */
#include "fuzz.h"

#include <croute/route/engine.h>
#include <croute/report/est_html.h>
#include <croute/estimate/est_report.h>
#include <croute/model/hosts.h>
#include <croute/estimate/pattern.h>
#include <croute/model/routing.h>
#include <croute/io/sched.h>

static void estimate(const struct cr_fabric *f, const struct cr_routing *r,
		     const struct cr_hosts *h, FILE *out)
{
	struct cr_pattern p = {.kind = CR_PAT_SHIFT, .seed = 1};
	struct cr_est_result *res;
	struct cr_est *e = cr_est_new(f, r, NULL);

	if (!e)
		return;
	res = cr_est_run(e, &p, h);
	if (res) {
		cr_est_write_text(out, f, res, CR_REPORT_PHASES);
		cr_est_write_json(out, f, &res, 1,
				  CR_REPORT_PHASES | CR_REPORT_MATRIX);
		cr_est_write_html(out, f, h, &res, 1, f->nodes[0].desc);
		cr_est_result_free(res);
	}
	cr_est_free(e);
}

static void write_all(const struct cr_fabric *f, const struct cr_routing *r)
{
	struct cr_names *nm = cr_names_new(f, NULL);
	struct cr_hosts *h = cr_hosts_default(f);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (out && nm && h) {
		cr_hostfile_write(out, nm, h, f->nodes[0].desc);
		cr_slurm_write(out, f, nm, f->nodes[0].desc);
		estimate(f, r, h, out);
	}
	if (out)
		fclose(out);
	free(buf);
	cr_hosts_free(h);
	cr_names_free(nm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cr_engine *minhop = cr_engine_find("minhop");
	struct cr_routing *r = NULL;
	struct cr_fabric *f;
	struct cr_options o;

	fuzz_quiet();
	f = fuzz_topo_read(data, size, "fuzz");
	if (!f)
		return 0;
	cr_options_init(&o);
	if (f->num_nodes <= 64 && f->num_nodes &&
	    (f->max_lid || !cr_fabric_assign_lids(f, 0)))
		r = cr_routing_new(f);
	if (r && minhop && !cr_route(minhop, f, &o, r))
		write_all(f, r);
	cr_routing_free(r);
	cr_options_release(&o);
	cr_fabric_free(f);
	return 0;
}
