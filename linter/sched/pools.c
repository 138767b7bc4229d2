/* pools.c — whether a new node of a pool would take a pod of the template (see sched.h): what a
 * Karpenter NodePool admits as Karpenter's provisioner judges it (its NodePool limits, then
 * NodeClaim.CanAdd: taints, then requirements, then room), and what a node group's template node
 * admits as cluster-autoscaler judges it (the scheduler's node-only filters on a node made from the
 * template, and the group's maximum size). */
#include <stdio.h>
#include <string.h>

#include "../base/buf.h"
#include "../model/quantity.h"
#include "sched.h"

/* The pool's new node as the scheduler's filters see it: its labels and taints, no hostname. */
static struct sl_node template_node(const struct sl_pool *pool)
{
	struct sl_node n = {0};
	n.name = "";
	n.labels = pool->labels;
	n.taints = pool->taints;
	n.ntaints = pool->ntaints;
	n.alloc = pool->alloc;
	n.max_pods = sl_res_find(&pool->alloc, "pods") ? sl_res_get(&pool->alloc, "pods") : 110;
	return n;
}

/* The pool rejects the pod: why, in cluster-autoscaler's words (ca) and the pool's own (why). */
static void reject(struct sl_pool_fit *f, const char *ca, const char *why)
{
	f->admits = false;
	snprintf(f->ca, sizeof f->ca, "%s", ca);
	if (f->pool->kind == SL_POOL_KARPENTER)
		snprintf(f->text, sizeof f->text, "incompatible with nodepool \"%.100s\", %.500s", f->pool->obj.name,
			 why);
	else
		snprintf(f->text, sizeof f->text, "%.600s", why);
}

/* How many of the pool's nodes the inventory has, and their allocatable summed (sl_pool_index). */
static int64_t owned(const struct sl_pool *pool, const struct sl_reslist **sum)
{
	if (sum)
		*sum = &pool->members_alloc;
	return (int64_t)pool->nmembers;
}

/* spec.limits against what the pool's nodes already have (Karpenter counts their capacity): a
 * request above what is left fits no instance type the pool may still launch. */
static bool within_limits(const struct sl_podspec *p, struct sl_pool_fit *f)
{
	const struct sl_pool *pool = f->pool;
	if (!pool->limits.n)
		return true;
	const struct sl_reslist *used;
	int64_t nodes = owned(pool, &used);
	const struct sl_res *nl = sl_res_find(&pool->limits, "nodes");
	bool ok = true;
	if (nl && nodes >= nl->amount) {
		reject(f, "max node group size reached", "node limits have been exhausted for nodepool");
		ok = false;
	}
	for (size_t i = 0; ok && i < p->request.n; i++) {
		const struct sl_res *l = sl_res_find(&pool->limits, p->request.v[i].name);
		if (l && p->request.v[i].amount > l->amount - sl_res_get(used, l->name)) {
			reject(f, "max node group size reached",
			       "all available instance types exceed limits for nodepool");
			snprintf(f->resource, sizeof f->resource, "%s", l->name);
			ok = false;
		}
	}
	return ok;
}

/* Karpenter's Taints.ToleratesPod: every taint of the template, whatever its effect (startup
 * taints are not among them: they are expected to go). */
static bool tolerated(const struct sl_podspec *p, struct sl_pool_fit *f)
{
	const struct sl_pool *pool = f->pool;
	for (size_t i = 0; i < pool->ntaints; i++) {
		const struct sl_taint *t = &pool->taints[i];
		bool ok = false;
		for (size_t j = 0; j < p->ntols && !ok; j++)
			ok = sl_tolerates(&p->tols[j], t);
		if (ok)
			continue;
		char ca[256], tx[300];
		snprintf(ca, sizeof ca, "node(s) had untolerated taint {%s: %s}", t->key, t->value);
		snprintf(tx, sizeof tx, "did not tolerate taint (taint=%s%s%s:%s)", t->key, *t->value ? "=" : "",
			 t->value, t->effect);
		reject(f, ca, tx);
		return false;
	}
	return true;
}

/* Karpenter's pod requirements: the nodeSelector with one required term (it tries them in turn);
 * a term that names nodes by metadata.name no new node can meet. */
static bool requirements_met(const struct sl_podspec *p, struct sl_pool_fit *f)
{
	char why[400] = "", first[480] = "";
	size_t nalt = p->has_required_affinity ? p->nterms : 1;
	for (size_t a = 0; a < nalt; a++) {
		const struct sl_term *t = p->has_required_affinity ? &p->terms[a] : NULL;
		if (t && t->nfields) {
			snprintf(why, sizeof why, "the required node affinity names nodes by metadata.name");
		} else {
			struct sl_kreqs pod = {0};
			for (size_t i = 0; i < p->node_selector.n; i++)
				sl_kreqs_add_in(&pod, p->node_selector.v[i].key, p->node_selector.v[i].val);
			for (size_t i = 0; t && i < t->nexprs; i++)
				sl_kreqs_add_requirement(&pod, &t->exprs[i]);
			bool ok = sl_kreqs_compatible(&f->pool->kreqs, &pod, why, sizeof why);
			sl_kreqs_free(&pod);
			if (ok)
				return true;
		}
		if (!*first)
			snprintf(first, sizeof first, "incompatible requirements, %s", why);
	}
	if (!*first) /* nodeSelectorTerms: [] matches no node */
		snprintf(first, sizeof first, "incompatible requirements, the required node affinity has no term");
	reject(f, "node(s) didn't match Pod's node affinity/selector", first);
	return false;
}

/* An inventory node of the pool to size a new one by: of an instance type the pod allows. */
static const struct sl_node *sample_node(const struct sl_podspec *p, const struct sl_pool *pool)
{
	const char *it = sl_labels_get(&p->node_selector, "node.kubernetes.io/instance-type");
	for (size_t i = 0; i < pool->nmembers; i++) {
		const struct sl_node *n = pool->members[i];
		const char *v = it ? sl_labels_get(&n->labels, "node.kubernetes.io/instance-type") : NULL;
		if (!it || (v && !strcmp(v, it)))
			return n;
	}
	return NULL;
}

/* How many new nodes of this size the pool's limits leave room for (Karpenter charges a node's whole
 * capacity to them); -1 without limits. */
static int64_t limit_room(const struct sl_pool *pool, const struct sl_reslist *alloc)
{
	if (!pool->limits.n)
		return -1;
	const struct sl_reslist *used;
	int64_t have = owned(pool, &used), left = -1;
	for (size_t i = 0; i < pool->limits.n; i++) {
		const struct sl_res *l = &pool->limits.v[i];
		int64_t per = !strcmp(l->name, "nodes") ? 1 : sl_res_get(alloc, l->name);
		int64_t free_ = l->amount - (!strcmp(l->name, "nodes") ? have : sl_res_get(used, l->name));
		if (per <= 0)
			continue;
		int64_t k = free_ > 0 ? free_ / per : 0;
		if (left < 0 || k < left)
			left = k;
	}
	return left;
}

/* Whether the instance type of the pool's new nodes is fixed (by the pool or the pod), so that an
 * inventory node of it says what every new node holds. */
static bool instance_fixed(const struct sl_podspec *p, const struct sl_pool *pool)
{
	const struct sl_kreq *r = sl_kreqs_get(&pool->kreqs, "node.kubernetes.io/instance-type");
	return pool->kind == SL_POOL_GROUP || (r && !r->complement && r->nvalues == 1) ||
	       (p && sl_labels_get(&p->node_selector, "node.kubernetes.io/instance-type"));
}

/* The room on a new node: the template's allocatable, or a node of the pool's; when neither is
 * known, or a larger instance type may be launched, the pool is assumed to offer one. */
static void room(const struct sl_podspec *p, struct sl_pool_fit *f)
{
	const struct sl_pool *pool = f->pool;
	const struct sl_node *sample = pool->alloc_known ? NULL : sample_node(p, pool);
	const struct sl_reslist *alloc = pool->alloc_known ? &pool->alloc : sample ? &sample->alloc : NULL;
	f->assumed = !alloc;
	f->per_node = 0;
	if (!alloc)
		return;
	int64_t slots = sl_res_find(alloc, "pods") ? sl_res_get(alloc, "pods") : 110;
	for (size_t i = 0; i < p->request.n; i++) {
		const struct sl_res *r = &p->request.v[i];
		if (r->amount <= 0)
			continue;
		int64_t have = sl_res_get(alloc, r->name);
		if (r->amount > have) {
			if (pool->kind == SL_POOL_KARPENTER && !instance_fixed(p, pool)) {
				f->assumed = true; /* a larger instance type may be launched */
				return;
			}
			char ca[128];
			snprintf(ca, sizeof ca, "Insufficient %s", r->name);
			reject(f, ca, pool->kind == SL_POOL_KARPENTER ? "no instance type has enough resources" : ca);
			snprintf(f->resource, sizeof f->resource, "%s", r->name);
			return;
		}
		if (have / r->amount < slots)
			slots = have / r->amount;
	}
	f->per_node = slots;
	f->sample = sample;
	f->nodes_left = limit_room(pool, alloc);
}

/* min over the bounds known (-1: none). */
static int64_t bound_min(int64_t a, int64_t b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* The model is no longer read here (its pools' members are indexed on them, sl_pool_index); the
 * interface keeps it, as what a pool holds is the model's. */
int64_t sl_pool_members(const struct sl_model *m, const struct sl_pool *p)
{
	(void)m;
	return owned(p, NULL);
}

/* What one new node of a known size holds of res: pods of the template, or its allocatable. */
static int64_t per_new(const struct sl_pool_fit *f, const char *res)
{
	if (!strcmp(res, "pods"))
		return f->per_node;
	return sl_res_get(f->sample ? &f->sample->alloc : &f->pool->alloc, res);
}

int64_t sl_pool_adds(const struct sl_model *m, const struct sl_pool_fit *f, const char *res)
{
	(void)m;
	const struct sl_pool *pool = f->pool;
	bool pods = !strcmp(res, "pods");
	int64_t best = -1;
	if (pool->limits.n) {
		const struct sl_reslist *used;
		int64_t have = owned(pool, &used);
		const struct sl_res *l = sl_res_find(&pool->limits, res);
		if (l && !pods)
			best = l->amount > sl_res_get(used, res) ? l->amount - sl_res_get(used, res) : 0;
		const struct sl_res *nl = sl_res_find(&pool->limits, "nodes");
		/* A node limit bounds the room only when every new node is the size seen. */
		if (nl && !f->assumed && instance_fixed(NULL, pool))
			best = bound_min(best, sl_sat_mul(per_new(f, res), nl->amount > have ? nl->amount - have : 0));
	}
	if (pool->kind == SL_POOL_GROUP && pool->max >= 0 && !f->assumed) {
		int64_t left = pool->max - owned(pool, NULL);
		best = bound_min(best, sl_sat_mul(per_new(f, res), left > 0 ? left : 0));
	}
	return best;
}

int64_t sl_pool_supply(const struct sl_model *m, const struct sl_pool *pool, const char *res)
{
	struct sl_pool_fit f = {.pool = pool};
	if (!pool->alloc_known && pool->nmembers)
		f.sample = pool->members[0];
	const struct sl_reslist *alloc = pool->alloc_known ? &pool->alloc : f.sample ? &f.sample->alloc : NULL;
	f.assumed = !alloc;
	f.per_node = alloc ? (sl_res_find(alloc, "pods") ? sl_res_get(alloc, "pods") : 110) : 0;
	return sl_pool_adds(m, &f, res);
}

/* The pods of the template the pool's new nodes take at most: per resource it requests, what the
 * pool adds of it over the request; with a known node size, pods per node × new nodes allowed. */
static int64_t pods_bound(const struct sl_model *m, const struct sl_podspec *p, const struct sl_pool_fit *f)
{
	int64_t best = sl_pool_adds(m, f, "pods");
	for (size_t i = 0; i < p->request.n; i++) {
		if (p->request.v[i].amount <= 0)
			continue;
		int64_t add = sl_pool_adds(m, f, p->request.v[i].name);
		if (add >= 0)
			best = bound_min(best, add / p->request.v[i].amount);
	}
	if (!f->assumed && f->nodes_left >= 0 && instance_fixed(p, f->pool))
		best = bound_min(best, sl_sat_mul(f->per_node, f->nodes_left));
	return best;
}

static void judge(const struct sl_podspec *p, struct sl_pool_fit *f)
{
	const struct sl_pool *pool = f->pool;
	f->admits = true;
	if (p->node_name) {
		reject(f, "node(s) didn't match the requested node name",
		       "the pod names its node (spec.nodeName): no new node is it");
		return;
	}
	if (pool->kind == SL_POOL_GROUP && pool->max >= 0 && owned(pool, NULL) >= pool->max) {
		reject(f, "max node group size reached", "max node group size reached");
		return;
	}
	if (pool->kind == SL_POOL_KARPENTER) {
		if (!within_limits(p, f) || !tolerated(p, f) || !requirements_met(p, f))
			return;
	} else {
		struct sl_node n = template_node(pool);
		const struct sl_taint *t = sl_untolerated_taint(p, &n);
		char ca[256];
		if (t) {
			snprintf(ca, sizeof ca, "node(s) had untolerated taint {%s: %s}", t->key, t->value);
			reject(f, ca, ca);
			return;
		}
		if (!sl_node_affinity_matches(p, &n)) {
			reject(f, "node(s) didn't match Pod's node affinity/selector",
			       "node(s) didn't match Pod's node affinity/selector");
			return;
		}
	}
	room(p, f);
}

size_t sl_pools_judge(const struct sl_model *m, const struct sl_podspec *p, struct sl_pool_fit *out)
{
	size_t admit = 0;
	for (size_t i = 0; i < m->npools; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].pool = m->pools[i];
		judge(p, &out[i]);
		if (out[i].admits)
			out[i].pods_max = pods_bound(m, p, &out[i]);
		admit += out[i].admits;
	}
	return admit;
}

const struct sl_pool_fit *sl_analysis_pools(const struct sl_analysis *a, const struct sl_model *m, size_t *nadmit)
{
	struct sl_analysis *w = (struct sl_analysis *)a; /* the memo only (sched.h) */
	if (!a->pools_judged && m->npools) {
		w->pools = sl_xcalloc(m->npools, sizeof *w->pools);
		w->pools_admit = sl_pools_judge(m, a->pod, w->pools);
	}
	w->pools_judged = true;
	*nadmit = a->pools_admit;
	return a->pools;
}

void sl_pools_scaleup_reasons(const struct sl_pool_fit *v, size_t n, char *out, size_t outsz)
{
	/* cluster-autoscaler's ReasonsMessage: each reason with how many groups gave it, here in
	 * the order first given (its map has none). */
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (v[i].admits)
			continue;
		size_t j = 0, count = 0;
		while (j < i && (v[j].admits || strcmp(v[j].ca, v[i].ca)))
			j++;
		if (j < i)
			continue; /* counted with an earlier one */
		for (size_t k = i; k < n; k++)
			count += !v[k].admits && !strcmp(v[k].ca, v[i].ca);
		sl_buf_printf(&b, "%s%zu %s", b.len ? ", " : "", count, v[i].ca);
	}
	snprintf(out, outsz, "%s", b.s ? b.s : "");
	sl_buf_free(&b);
}
