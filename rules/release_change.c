/* release_change.c — the smallest change for release-capacity's errors, checked: how many more
 * nodes like one the workloads share make the whole release fit.
 *
 * A change that meets the divisible bound need not make the pods pack (three 3-CPU pods do not
 * fit two 4-CPU nodes and a half), so a change is named only once the release, placed pod by pod
 * as the scheduler would, in input order and in reverse (sl_whatif_release), places every pod on
 * the changed nodes: a placement that exists meets every bound. The count tried first is the
 * bound's own (the shortfall over what one empty copy adds), then a few more. Each try places the
 * release twice on a changed cluster, so the tries of one target share a budget. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/model/quantity.h"
#include "release.h"

/* How many more copies than the bound's count are tried. */
#define SL_RELEASE_CHANGE_EXTRA 3

/* The release's workloads with pods to place. */
struct todo {
	const struct sl_workload **w;
	int64_t *pods;
	size_t n;
};

static void todo_init(const struct sl_release *r, struct todo *t)
{
	t->w = sl_xcalloc(r->nw + 1, sizeof *t->w);
	t->pods = sl_xcalloc(r->nw + 1, sizeof *t->pods);
	t->n = 0;
	for (size_t i = 0; i < r->nw; i++)
		if (r->pods[i] > 0) {
			t->w[t->n] = r->w[i];
			t->pods[t->n++] = r->pods[i];
		}
}

/* Whether c copies of node base make the release fit, within the budget; *spent says when the
 * budget stopped it. */
static bool try_copies(struct sl_release *r, const struct todo *t, size_t base, int64_t c, bool *spent)
{
	struct sl_model grown = *r->m;
	grown.nnodes += (size_t)c;
	int64_t total = 0;
	for (size_t i = 0; i < t->n; i++)
		total = sl_sat_add(total, t->pods[i]);
	uint64_t cost = 2 * sl_release_place_cost(&grown, t->w, t->n, total);
	if (cost > r->change_left) {
		*spent = true;
		return false;
	}
	r->change_left -= cost;
	struct sl_whatif w = {base, NULL, c};
	return sl_whatif_release(r->m, &w, t->w, t->pods, t->n);
}

/* A node of the violating set's groups that every workload of the set may use a copy of, with
 * the most of res: the one to copy, or (size_t)-1. */
static size_t base_node(const struct sl_release *r, const bool *in, const bool *used, const char *res)
{
	size_t best = (size_t)-1;
	int64_t most = 0;
	for (size_t k = 0; k < r->m->nnodes; k++) {
		if (!used[r->group[k]])
			continue;
		const struct sl_node *n = r->m->nodes[k];
		int64_t have = !strcmp(res, "pods") ? n->max_pods : sl_res_get(&n->alloc, res);
		if (have <= most)
			continue;
		bool all = true;
		for (size_t i = 0; i < r->nw && all; i++)
			all = !in[i] || sl_whatif_copy_admits(&r->w[i]->pod, n);
		if (all)
			best = k, most = have;
	}
	return best;
}

void sl_release_offer_copies(struct sl_release *r, struct sl_finding *f, const bool *in, const char *res, int64_t k)
{
	/* The groups the set may use. */
	bool *used = sl_xcalloc(r->ngroups + 1, sizeof *used);
	for (size_t i = 0; i < r->nw; i++)
		for (size_t g = 0; in[i] && g < r->ngroups; g++)
			used[g] |= r->adm[r->sig[i] * r->ngroups + g];
	size_t base = base_node(r, in, used, res);
	free(used);
	if (base == (size_t)-1 || k <= 0)
		return;
	struct todo t;
	todo_init(r, &t);
	bool spent = false;
	for (int64_t c = k; c <= k + SL_RELEASE_CHANGE_EXTRA && c <= 1000 && !spent; c++) {
		if (!try_copies(r, &t, base, c, &spent))
			continue;
		sl_note(
		    f,
		    "smallest change in nodes: %lld more node%s like %s (its labels, taints and allocatable, empty); "
		    "then every pod of the release finds a node, placed in input order and in reverse (checked by "
		    "placing the release again)",
		    (long long)c, c == 1 ? "" : "s", r->m->nodes[base]->name);
		break;
	}
	if (spent)
		sl_note(f, "capacity changes were not all computed: checking them places the whole release again on a "
			   "changed cluster, and this target's budget for that is spent");
	free(t.w);
	free(t.pods);
}

int64_t sl_release_copies_for(const struct sl_release *r, const bool *in, const char *res, int64_t shortfall)
{
	/* The groups the set may use, through its signatures: once, not once per node. */
	bool *sig_in = sl_xcalloc(r->nsigs + 1, sizeof *sig_in), *used = sl_xcalloc(r->ngroups + 1, sizeof *used);
	for (size_t i = 0; i < r->nw; i++)
		sig_in[r->sig[i]] |= in[i];
	for (size_t q = 0; q < r->nsigs; q++)
		for (size_t g = 0; sig_in[q] && g < r->ngroups; g++)
			used[g] |= r->adm[q * r->ngroups + g];
	int64_t most = 0;
	for (size_t k = 0; k < r->m->nnodes; k++) {
		const struct sl_node *n = r->m->nodes[k];
		if (!used[r->group[k]])
			continue;
		int64_t have = !strcmp(res, "pods") ? n->max_pods : sl_res_get(&n->alloc, res);
		if (have > most)
			most = have;
	}
	free(sig_in);
	free(used);
	return most > 0 ? shortfall / most + (shortfall % most != 0) : 0;
}
