/* running.c — queries of the cluster index's running pods (cluster.h): those a selector can
 * select, visited once each, and those whose anti-affinity may exclude a pod. They read the
 * index only, and run on the analyses' threads. */
#include <stdlib.h>
#include <string.h>

#include "cluster.h"

const size_t *sl_running_for(const struct sl_cluster *c, const char *ns, bool any_ns, const struct sl_selector *sel,
			     struct sl_buf *scratch, size_t *n)
{
	/* Every In requirement with one value names a group that holds all the pods sel may select:
	 * the smallest is taken (a chart's pods share app.kubernetes.io/instance, not their name).
	 * The groups list pods in index order, so the pods that match come out in the same order
	 * whichever group is taken. */
	const size_t *best = NULL;
	bool found = false;
	for (size_t r = 0; sel && !sel->nothing && r < sel->nreqs; r++) {
		const struct sl_requirement *q = &sel->reqs[r];
		if (q->op != SL_OP_IN || q->nvals != 1)
			continue;
		size_t ng;
		const size_t *g = any_ns
				      ? sl_group_get(&c->by_pair, sl_group_key(scratch, q->key, q->vals[0], NULL), &ng)
				      : sl_group_get(&c->by_label, sl_group_key(scratch, ns, q->key, q->vals[0]), &ng);
		if (!found || ng < *n) {
			best = g;
			*n = ng;
			found = true;
		}
		if (!ng)
			break;
	}
	if (found)
		return best;
	if (any_ns) {
		*n = c->npods;
		return c->all;
	}
	return sl_group_get(&c->by_ns, ns, n);
}

void sl_visit_running(const struct sl_cluster *c, const char *ns, bool any_ns, const struct sl_selector *const *sels,
		      size_t nsels, uint32_t **stamp, uint32_t *epoch, void (*fn)(void *ctx, size_t pod), void *ctx)
{
	/* One selector's candidates hold each pod once: no stamps to keep (nor to allocate). */
	bool dedup = nsels > 1;
	(*epoch)++;
	if (dedup && !*stamp)
		*stamp = sl_xcalloc(c->npods + 1, sizeof **stamp);
	struct sl_buf scratch = SL_BUF_INIT;
	for (size_t t = 0; t < nsels; t++) {
		size_t n;
		const size_t *ks = sl_running_for(c, ns, any_ns, sels[t], &scratch, &n);
		for (size_t j = 0; j < n; j++) {
			if (dedup && (*stamp)[ks[j]] == *epoch)
				continue;
			if (dedup)
				(*stamp)[ks[j]] = *epoch;
			fn(ctx, ks[j]);
		}
	}
	sl_buf_free(&scratch);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static void add_group(size_t **v, size_t *cap, size_t *n, const struct sl_group_index *gi, const char *key)
{
	size_t ng;
	const size_t *g = sl_group_get(gi, key, &ng);
	sl_grow(v, cap, *n + ng + 1, sizeof **v);
	for (size_t j = 0; j < ng; j++)
		(*v)[(*n)++] = g[j];
}

size_t *sl_anti_candidates(const struct sl_cluster *cl, const char *ns, const struct sl_labels *gl, size_t ngl,
			   size_t *n)
{
	size_t cap = 0, *v = NULL;
	*n = 0;
	add_group(&v, &cap, n, &cl->anti_by_ns, ns);
	add_group(&v, &cap, n, &cl->anti_wild, "");
	struct sl_buf key = SL_BUF_INIT;
	for (size_t g = 0; g < ngl && (cl->anti_by_ns.keys.n || cl->anti_wild.keys.n); g++)
		for (size_t l = 0; l < gl[g].n; l++) {
			const struct sl_kv *lb = &gl[g].v[l];
			add_group(&v, &cap, n, &cl->anti_by_ns, sl_group_key(&key, ns, lb->key, lb->val));
			add_group(&v, &cap, n, &cl->anti_wild, sl_group_key(&key, lb->key, lb->val, NULL));
		}
	sl_buf_free(&key);
	qsort(v, *n, sizeof *v, cmp_size);
	size_t u = 0;
	for (size_t j = 0; j < *n; j++)
		if (j == 0 || v[j] != v[j - 1])
			v[u++] = v[j];
	*n = u;
	return v;
}
