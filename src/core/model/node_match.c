// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two fabrics' nodes matched by GUID (include/croute/model/node_match.h), and
 * the LFT entries two routings differ in. Fabrics imported in GUID order
 * with the same nodes match index for index, in one pass; others are
 * matched by merging their GUID-sorted node lists, O(n log n).
 */
#include <stdlib.h>
#include <string.h>

#include <croute/model/log.h>
#include <croute/model/node_match.h>

struct guid_ix {
	uint64_t guid;
	uint32_t n;
};

static int cmp_guid_ix(const void *a, const void *b)
{
	const struct guid_ix *ga = a, *gb = b;

	return ga->guid < gb->guid ? -1 : ga->guid > gb->guid;
}

static struct guid_ix *sorted_nodes(const struct cr_fabric *f, bool sw_only,
				    uint32_t *count)
{
	struct guid_ix *v = malloc((f->num_nodes + 1) * sizeof(*v));
	uint32_t k = 0;

	if (!v)
		return NULL;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!sw_only || cr_is_switch(f, n))
			v[k++] = (struct guid_ix){f->nodes[n].guid, n};
	qsort(v, k, sizeof(*v), cmp_guid_ix);
	*count = k;
	return v;
}

int cr_match_nodes(const struct cr_fabric *a, const struct cr_fabric *b,
		   uint32_t *a2b, uint32_t *b2a)
{
	uint32_t na, nb, i = 0, j = 0;
	struct guid_ix *va, *vb;
	int ret = -1;

	/*
	 * The plugin imports in GUID order, so a sweep that kept every node
	 * matches index for index, without a sort. Strictly ascending also
	 * rules out duplicates.
	 */
	if (a->num_nodes == b->num_nodes) {
		uint32_t n = 0;

		for (; n < a->num_nodes; n++)
			if (a->nodes[n].guid != b->nodes[n].guid ||
			    (n && a->nodes[n].guid <= a->nodes[n - 1].guid))
				break;
		if (n == a->num_nodes) {
			for (n = 0; n < a->num_nodes; n++) {
				a2b[n] = n;
				if (b2a)
					b2a[n] = n;
			}
			return 0;
		}
	}
	va = sorted_nodes(a, false, &na);
	vb = sorted_nodes(b, false, &nb);
	if (!va || !vb)
		goto out;
	for (uint32_t n = 0; n < a->num_nodes; n++)
		a2b[n] = CR_NO_NODE;
	for (uint32_t n = 0; b2a && n < b->num_nodes; n++)
		b2a[n] = CR_NO_NODE;
	for (uint32_t k = 1; k < na; k++)
		if (va[k].guid == va[k - 1].guid)
			goto out;
	for (uint32_t k = 1; k < nb; k++)
		if (vb[k].guid == vb[k - 1].guid)
			goto out;
	while (i < na && j < nb) {
		if (va[i].guid < vb[j].guid) {
			i++;
		} else if (va[i].guid > vb[j].guid) {
			j++;
		} else {
			a2b[va[i].n] = vb[j].n;
			if (b2a)
				b2a[vb[j].n] = va[i].n;
			i++;
			j++;
		}
	}
	ret = 0;
out:
	free(va);
	free(vb);
	return ret;
}

static uint64_t row_diff(const uint8_t *a, size_t na, const uint8_t *b,
			 size_t nb)
{
	size_t n = na > nb ? na : nb;
	uint64_t c = 0;

	for (size_t i = 1; i < n; i++) {
		uint8_t ea = i < na && a ? a[i] : CR_NO_PATH;
		uint8_t eb = i < nb && b ? b[i] : CR_NO_PATH;

		c += ea != eb;
	}
	return c;
}

uint64_t cr_routing_churn(const struct cr_fabric *fa,
			  const struct cr_routing *ra,
			  const struct cr_fabric *fb,
			  const struct cr_routing *rb)
{
	uint32_t na, nb, i = 0, j = 0;
	struct guid_ix *va = sorted_nodes(fa, true, &na);
	struct guid_ix *vb = sorted_nodes(fb, true, &nb);
	size_t wa = (size_t)ra->max_lid + 1, wb = (size_t)rb->max_lid + 1;
	uint64_t c = 0;

	if (!va || !vb) {
		free(va);
		free(vb);
		cr_err("out of memory comparing routings");
		return UINT64_MAX;
	}
	while (i < na || j < nb) {
		if (j == nb || (i < na && va[i].guid < vb[j].guid)) {
			c += row_diff(ra->lft[va[i++].n], wa, NULL, 0);
		} else if (i == na || va[i].guid > vb[j].guid) {
			c += row_diff(NULL, 0, rb->lft[vb[j++].n], wb);
		} else {
			const uint8_t *a = ra->lft[va[i++].n];
			const uint8_t *b = rb->lft[vb[j++].n];

			if (wa == wb && !memcmp(a, b, wa))
				continue;
			c += row_diff(a, wa, b, wb);
		}
	}
	free(va);
	free(vb);
	return c;
}
