/* Pools for the rules that assert a shortfall of nodes (insufficient-capacity, rollout-deadlock):
 * which pools take the pods the nodes leave out, in the order Karpenter tries them (weight), and
 * how much each can add. A pool's room is an over-estimate (sl_pool_fit.pods_max), so a shortfall
 * beyond every pool holds for every scale-up, and a shortfall the pools cover is only a note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/model/quantity.h"
#include "rules.h"

const char *sl_pool_kind(const struct sl_pool *p)
{
	return p->kind == SL_POOL_KARPENTER ? "NodePool" : "node group";
}

struct sl_pool_fit *sl_pools_for(const struct sl_check *cx, size_t *nadmit)
{
	size_t np = cx->model->npools;
	*nadmit = 0;
	if (!np)
		return NULL;
	struct sl_pool_fit *pf = sl_xcalloc(np, sizeof *pf);
	if (cx->a) /* judged once per workload, whichever rules ask */
		memcpy(pf, sl_analysis_pools(cx->a, cx->model, nadmit), np * sizeof *pf);
	else
		*nadmit = sl_pools_judge(cx->model, &cx->w->pod, pf);
	/* Karpenter tries the pools by weight, highest first (stable: input order among equals). */
	for (size_t i = 1; i < np; i++) {
		struct sl_pool_fit t = pf[i];
		size_t j = i;
		for (; j > 0 && pf[j - 1].pool->weight < t.pool->weight; j--)
			pf[j] = pf[j - 1];
		pf[j] = t;
	}
	return pf;
}

int64_t sl_pools_room(const struct sl_pool_fit *pf, size_t n)
{
	int64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (!pf[i].admits)
			continue;
		if (pf[i].pods_max < 0)
			return -1;
		total = sl_sat_add(total, pf[i].pods_max);
	}
	return total;
}

/* Why a pool adds no more than it does: its limits, its maximum size, or the node it is sized by. */
static void bound_why(const struct sl_model *m, const struct sl_pool_fit *f, char *out, size_t n)
{
	const struct sl_pool *p = f->pool;
	if (p->kind == SL_POOL_GROUP && p->max >= 0) {
		snprintf(out, n, "max node group size %lld, %lld node%s in the inventory", (long long)p->max,
			 (long long)sl_pool_members(m, p), sl_pool_members(m, p) == 1 ? "" : "s");
		return;
	}
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < p->limits.n; i++) {
		char amt[48], add[48];
		int64_t left = sl_pool_adds(m, f, p->limits.v[i].name);
		sl_format_amount(p->limits.v[i].name, p->limits.v[i].amount, amt, sizeof amt);
		if (!strcmp(p->limits.v[i].name, "nodes")) {
			sl_buf_printf(&b, "%snodes %s", b.len ? ", " : "", amt);
			continue;
		}
		sl_format_amount(p->limits.v[i].name, left < 0 ? 0 : left, add, sizeof add);
		sl_buf_printf(&b, "%s%s %s with %s left beside its nodes", b.len ? ", " : "", p->limits.v[i].name, amt,
			      add);
	}
	snprintf(out, n, "its limits: %s", b.len ? b.s : "none");
	sl_buf_free(&b);
}

void sl_note_pools_take(struct sl_finding *f, const struct sl_pool_fit *pf, size_t n, int64_t pods)
{
	int64_t left = pods;
	for (size_t i = 0; i < n && left > 0; i++) {
		const struct sl_pool_fit *pt = &pf[i];
		if (!pt->admits)
			continue;
		int64_t take = pt->pods_max < 0 || pt->pods_max > left ? left : pt->pods_max;
		if (take <= 0)
			continue;
		left -= take;
		const struct sl_pool *p = pt->pool;
		if (!pt->assumed && pt->per_node > 0) {
			int64_t need = (take + pt->per_node - 1) / pt->per_node;
			char from[300] = "its template's allocatable";
			if (pt->sample)
				snprintf(from, sizeof from, "node %.200s of the pool", pt->sample->name);
			sl_note(f, "%s %s: %lld pod%s on %lld new node%s (a new node holds %lld, as %s does)",
				sl_pool_kind(p), p->obj.name, (long long)take, take == 1 ? "" : "s", (long long)need,
				need == 1 ? "" : "s", (long long)pt->per_node, from);
		} else
			sl_note(f,
				"%s %s: %lld pod%s on new nodes; what a new node holds is not known: this rests on the "
				"pool offering an instance type with room for the pod%s",
				sl_pool_kind(p), p->obj.name, (long long)take, take == 1 ? "" : "s",
				p->limits.n ? ", within its limits" : "");
		sl_add_related(f, &p->obj.name_node->at, "%s %s would add nodes for it", sl_pool_kind(p), p->obj.name);
	}
}

void sl_note_pools_short(struct sl_finding *f, const struct sl_check *cx, const struct sl_pool_fit *pf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct sl_pool *p = pf[i].pool;
		char why[sizeof pf[i].text]; /* a refusal's reason whole; a bound's words fit in it */
		if (!pf[i].admits)
			snprintf(why, sizeof why, "%s", pf[i].text);
		else {
			char b[400];
			bound_why(cx->model, &pf[i], b, sizeof b);
			snprintf(why, sizeof why, "adds at most %lld pod%s of the template (%s)",
				 (long long)pf[i].pods_max, pf[i].pods_max == 1 ? "" : "s", b);
		}
		sl_note(f, "%s %s: %s", sl_pool_kind(p), p->obj.name, why);
		sl_add_related(f, &p->obj.name_node->at, "%s %s: %s", sl_pool_kind(p), p->obj.name, why);
	}
}

/* Whether every new node is a domain of its own for what stops the pods: a host port binds per
 * node; the template's hard spread constraints or own anti-affinity terms all keyed by hostname. */
static bool new_node_new_domain(const struct sl_podspec *p, enum sl_cause cause)
{
	if (cause == SL_CAUSE_PORTS)
		return true;
	size_t keyed = 0, host = 0;
	if (cause == SL_CAUSE_SPREAD)
		for (size_t k = 0; k < p->nspread; k++) {
			keyed += p->spread[k].hard;
			host += p->spread[k].hard && !strcmp(p->spread[k].topology_key, "kubernetes.io/hostname");
		}
	if (cause == SL_CAUSE_ANTI)
		for (size_t k = 0; k < p->nanti; k++) {
			keyed++;
			host += p->anti[k].topology_key && !strcmp(p->anti[k].topology_key, "kubernetes.io/hostname");
		}
	return keyed && host == keyed; /* a running pod's term (no own one) is not known to be */
}

enum sl_pool_shortfall sl_shortfall_pools(const struct sl_check *cx, enum sl_cause cause, struct sl_pool_fit **pf)
{
	size_t nadmit = 0;
	*pf = sl_pools_for(cx, &nadmit);
	int64_t room = nadmit ? sl_pools_room(*pf, cx->model->npools) : 0;
	if (room == 0)
		return SL_POOLS_SHORT;
	if (room > 0 && room < cx->a->replicas - cx->a->steady_placed)
		return SL_POOLS_SHORT;
	return new_node_new_domain(&cx->w->pod, cause) ? SL_POOLS_TAKE : SL_POOLS_MAYBE;
}

void sl_note_shortfall_pools(struct sl_finding *f, const struct sl_check *cx, enum sl_pool_shortfall v,
			     const struct sl_pool_fit *pf)
{
	size_t np = cx->model->npools;
	int64_t rest = cx->a->replicas - cx->a->steady_placed;
	if (v == SL_POOLS_TAKE) {
		f->level = SL_NOTE;
		sl_note(f, "each new node is a domain of its own (another host), so a new node takes a pod the nodes "
			   "leave out");
		sl_note_pools_take(f, pf, np, rest);
	} else if (v == SL_POOLS_MAYBE) {
		if (f->level == SL_ERROR)
			f->level = SL_WARNING;
		sl_note(
		    f,
		    "the node pools that admit its pods may add nodes for the other %lld: whether they run there rests "
		    "on the topology domains (zones) the new nodes get",
		    (long long)rest);
		sl_note_pools_take(f, pf, np, rest);
	} else
		sl_note_pools_short(f, cx, pf, np);
}
