// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The estimator's text inputs. The first byte picks the parser:
 *   f  flows file (then the flows are scored on a min-hop routing)
 *   h  host list file
 *   p  pattern list ("shift,bisect:4")
 *   e  penalty factors ("βe;βs;γr")
 * anything else: a flows file, then the same bytes as a host list.
 */
#include "fuzz.h"

#include <croute/route/engine.h>
#include <croute/estimate/estimate.h>

static struct cr_fabric *f;
static struct cr_routing *r;
static struct cr_est *est;

static void setup(void)
{
	struct cr_options o;
	struct cr_est_params p;

	f = fuzz_fabric();
	r = cr_routing_new(f);
	cr_options_init(&o);
	if (!r || cr_route(cr_engine_find("minhop"), f, &o, r))
		abort();
	cr_est_params_init(&p);
	est = cr_est_new(f, r, &p);
	if (!est)
		abort();
}

static void flows(const uint8_t *data, size_t size)
{
	const char *path = fuzz_memfd_path(data, size);
	struct cr_flow *fl;
	size_t n;

	if (!path || cr_flows_read(f, path, &fl, &n))
		return;
	cr_est_phase(est, fl, n, NULL);
	free(fl);
}

static void hosts(const uint8_t *data, size_t size)
{
	const char *path = fuzz_memfd_path(data, size);
	struct cr_hosts *h;

	if (!path)
		return;
	h = cr_hosts_read(f, path);
	cr_hosts_free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_pattern *pats;
	struct cr_penalty pen;
	char *s;
	int n;

	fuzz_quiet();
	if (!f)
		setup();
	if (!size)
		return 0;
	switch (data[0]) {
	case 'f':
		flows(data + 1, size - 1);
		break;
	case 'h':
		hosts(data + 1, size - 1);
		break;
	case 'p':
	case 'e':
		s = fuzz_strdup(data + 1, size - 1);
		if (!s)
			break;
		if (data[0] == 'e') {
			cr_penalty_parse(s, "fuzz", &pen);
		} else {
			n = cr_pattern_list_parse(s, &pats);
			if (n >= 0)
				cr_pattern_list_free(pats, n);
		}
		free(s);
		break;
	default:
		flows(data, size);
		hosts(data, size);
		break;
	}
	return 0;
}
