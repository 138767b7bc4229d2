/* whatif.c — the workload analysed again on a changed input, so that a change offered to the user
 * is one the engine has seen work: more allocatable on one node, or empty copies of one node; and
 * the workload itself with another replica count or rolling update (sl_whatif_workload). The
 * changed cluster is a model of its own: the original's objects, a node array with the changed or
 * added nodes, and its own index, derived from the run's (what is per node made again, the
 * running pods' index shared); the original is never touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../model/quantity.h"
#include "cluster.h"
#include "plugin.h"

/* An empty copy of base named name: same labels (but the hostname), taints, cordon and
 * allocatable; no running pod. Its labels are its own; the rest is base's, read only. */
static struct sl_node *empty_copy(const struct sl_node *base, const char *name)
{
	struct sl_node *n = sl_xcalloc(1, sizeof *n);
	*n = *base;
	n->name = name;
	n->name_node = NULL;
	n->used = (struct sl_reslist){0};
	n->npods = 0;
	n->labels.v = sl_xcalloc(base->labels.n + 1, sizeof *n->labels.v);
	for (size_t i = 0; i < base->labels.n; i++) {
		n->labels.v[i] = base->labels.v[i];
		if (!strcmp(base->labels.v[i].key, "kubernetes.io/hostname"))
			n->labels.v[i].val = name;
	}
	return n;
}

/* Whether p's node filters read what a copy changes: the node's name or its hostname label. */
static bool reads_node_identity(const struct sl_podspec *p)
{
	static const char host[] = "kubernetes.io/hostname";
	if (p->node_name && *p->node_name)
		return true;
	for (size_t i = 0; i < p->node_selector.n; i++)
		if (!strcmp(p->node_selector.v[i].key, host))
			return true;
	for (size_t t = 0; p->has_required_affinity && t < p->nterms; t++) {
		if (p->terms[t].nfields)
			return true;
		for (size_t e = 0; e < p->terms[t].nexprs; e++)
			if (!strcmp(p->terms[t].exprs[e].key, host))
				return true;
	}
	return false;
}

bool sl_whatif_copy_admits(const struct sl_podspec *p, const struct sl_node *base)
{
	/* Asked of every candidate node of every finding: where the copy's name and hostname are not
	 * read, base's verdict is the copy's, and no copy is made. */
	if (!reads_node_identity(p))
		return sl_node_affinity_matches(p, base) && !sl_untolerated_taint(p, base);
	char name[300];
	snprintf(name, sizeof name, "%s-copy-1", base->name);
	struct sl_node *n = empty_copy(base, name);
	bool ok = sl_node_affinity_matches(p, n) && !sl_untolerated_taint(p, n) &&
		  !(p->node_name && *p->node_name && strcmp(p->node_name, name));
	free(n->labels.v);
	free(n);
	return ok;
}

size_t sl_whatif_cost(const struct sl_model *m, const struct sl_whatif *c)
{
	return m->nnodes + m->npods + (size_t)(c->copies > 0 ? c->copies : 0) + 1;
}

static void summarize(const struct sl_analysis *a, struct sl_whatif_result *r)
{
	*r = (struct sl_whatif_result){.replicas = a->replicas,
				       .steady_placed = a->steady_placed,
				       .surge_placed = a->surge_placed,
				       .max_surge = a->max_surge,
				       .nfeasible = a->nfeasible,
				       .rollout_deadlock = a->rollout_deadlock,
				       .not_placed = a->not_placed,
				       .daemon_blocked = a->daemon.nblocked};
}

void sl_whatif_workload(struct sl_cluster *cl, const struct sl_workload *w, struct sl_whatif_result *r)
{
	struct sl_analysis a;
	/* Only the counts are read: no reason text or message is made for a what-if. */
	sl_analyze_counts(cl, w, &a);
	summarize(&a, r);
	sl_analysis_free(&a);
}

/* The model of m changed by c: its own node array (the changed node a copy with its own
 * allocatable, the added nodes empty copies); everything else is m's, read only. */
struct changed {
	struct sl_model m;
	const struct sl_node **nodes;
	struct sl_node grown;
	struct sl_reslist alloc;
	struct sl_buf names;
	size_t k; /* copies added, at m.nodes[n ..] */
	size_t n;
};

static void changed_init(struct changed *x, const struct sl_model *m, const struct sl_whatif *c)
{
	memset(x, 0, sizeof *x);
	size_t n = m->nnodes, k = c->copies > 0 ? (size_t)c->copies : 0;
	x->m = *m;
	x->n = n;
	x->k = k;
	x->nodes = sl_xcalloc(n + k + 1, sizeof *x->nodes);
	memcpy(x->nodes, m->nodes, n * sizeof *x->nodes);
	if (c->extra && c->extra->n) {
		/* A copy of the node with the allocatable raised; its own list, never the original's. */
		x->grown = *m->nodes[c->node];
		const struct sl_reslist *old = &m->nodes[c->node]->alloc;
		for (size_t i = 0; i < old->n; i++)
			sl_res_add(&x->alloc, old->v[i].name, old->v[i].amount, old->v[i].node);
		for (size_t i = 0; i < c->extra->n; i++)
			sl_res_add(&x->alloc, c->extra->v[i].name, c->extra->v[i].amount, NULL);
		x->grown.alloc = x->alloc;
		if (sl_res_find(c->extra, "pods"))
			x->grown.max_pods += sl_res_get(c->extra, "pods");
		x->nodes[c->node] = &x->grown;
	}
	size_t *at = sl_xcalloc(k + 1, sizeof *at);
	for (size_t i = 0; i < k; i++) {
		at[i] = x->names.len;
		sl_buf_printf(&x->names, "%s-copy-%zu", m->nodes[c->node]->name, i + 1);
		sl_buf_putc(&x->names, 0);
	}
	for (size_t i = 0; i < k; i++)
		x->nodes[n + i] = empty_copy(m->nodes[c->node], x->names.s + at[i]);
	free(at);
	/* The model's arrays are not const, but nothing below writes through them. */
	x->m.nodes = (struct sl_node **)x->nodes;
	x->m.nnodes = n + k;
}

static void changed_free(struct changed *x)
{
	for (size_t i = 0; i < x->k; i++) {
		free(((struct sl_node *)x->nodes[x->n + i])->labels.v);
		free((void *)x->nodes[x->n + i]);
	}
	sl_res_free(&x->alloc);
	sl_buf_free(&x->names);
	free(x->nodes);
}

void sl_whatif_analyze(const struct sl_cluster *base, const struct sl_workload *w, const struct sl_whatif *c,
		       struct sl_whatif_result *r)
{
	struct changed x;
	changed_init(&x, base->m, c);
	/* The change touches nodes only: the running pods' index is the one the run built. */
	struct sl_cluster *cl = sl_cluster_derive(base, &x.m);
	sl_whatif_workload(cl, w, r);
	sl_cluster_free(cl);
	changed_free(&x);
}

/* What the pods of ws ask of res together (1 each for "pods"), and what the nodes of m have free of
 * it, each node at least 0 (saturated sums). */
static void totals(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
		   const char *res, int64_t *ask, int64_t *have)
{
	bool pods = !strcmp(res, "pods");
	*ask = *have = 0;
	for (size_t i = 0; i < nw; i++)
		*ask = sl_sat_add(*ask, sl_sat_mul(todo[i], pods ? 1 : sl_res_get(&ws[i]->pod.request, res)));
	for (size_t k = 0; k < m->nnodes; k++) {
		const struct sl_node *n = m->nodes[k];
		int64_t v = pods ? n->max_pods - n->npods : sl_res_get(&n->alloc, res) - sl_res_get(&n->used, res);
		*have = sl_sat_add(*have, v > 0 ? v : 0);
	}
}

/* Whether every pod of ws may fit the nodes of m at all: for the pod count and each resource
 * NodeResourcesFit checks, what they ask together is at most what the nodes have free. A placement
 * that places every pod meets it (each pod passed that filter where it went, the load of the pods
 * before it counted), so where it fails no placement needs to run to know that one leaves pods
 * Pending. */
static bool totals_fit(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw)
{
	struct sl_strpool names = {0};
	sl_intern(&names, "pods");
	for (size_t i = 0; i < nw; i++)
		for (size_t r = 0; r < ws[i]->pod.request.n; r++)
			if (ws[i]->pod.request.v[r].amount > 0 && sl_resource_checked(ws[i]->pod.request.v[r].name))
				sl_intern(&names, ws[i]->pod.request.v[r].name);
	bool fit = true;
	for (size_t k = 0; k < names.n && fit; k++) {
		int64_t ask, have;
		totals(m, ws, todo, nw, names.v[k], &ask, &have);
		fit = ask <= have || have == INT64_MAX;
	}
	sl_strpool_free(&names);
	return fit;
}

bool sl_whatif_release(const struct sl_model *m, const struct sl_whatif *c, const struct sl_workload *const *ws,
		       const int64_t *todo, size_t nw)
{
	struct changed x;
	changed_init(&x, m, c);
	bool all = totals_fit(&x.m, ws, todo, nw);
	for (int reverse = 0; reverse < 2 && all; reverse++) {
		struct sl_release_placement p;
		all = sl_release_place(&x.m, ws, todo, nw, reverse, &p);
		for (size_t i = 0; i < nw && all; i++)
			all = p.placed[i] >= todo[i];
		sl_release_placement_free(&p);
	}
	changed_free(&x);
	return all;
}
