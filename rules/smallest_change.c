/* smallest_change.c — the smallest change in each direction that resolves a node-capacity
 * finding, each one seen to work before it is printed: the engine runs again on the changed input
 * (sched.h, what-if) and the finding must be gone.
 *
 *  - the manifest: the largest replicas that fits (a SARIF fix, besides the rule's own), and for
 *    a rollout the in-place strategy;
 *  - capacity on one node: how much more of which resource on which named node;
 *  - more nodes: how many empty copies of a named node.
 *
 * Capacity changes are notes: they are not edits to the manifest. Running the engine on a changed
 * cluster builds a cluster of its own, so the work is bounded per run (the check's whatif_left):
 * past it, the capacity changes of later findings say they were not computed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/model/quantity.h"
#include "edits.h"
#include "rules.h"

static bool met(enum sl_goal g, const struct sl_whatif_result *r)
{
	if (r->not_placed)
		return false;
	switch (g) {
	case SL_GOAL_ONE_POD:
		return r->steady_placed >= 1;
	case SL_GOAL_REPLICAS:
		return r->steady_placed >= r->replicas;
	default:
		return r->steady_placed >= r->replicas && !r->rollout_deadlock;
	}
}

static const char *const goal_text[] = {
    [SL_GOAL_ONE_POD] = "a pod of it schedules",
    [SL_GOAL_REPLICAS] = "every replica fits",
    [SL_GOAL_ROLLOUT] = "the surge pod fits and the rollout goes on",
};

/* Whether the run may still build a cluster of this size for a what-if. */
static bool spend(struct sl_check *cx, size_t cost)
{
	if (!cx->whatif_left)
		return false;
	size_t left = atomic_load(cx->whatif_left);
	while (left >= cost)
		if (atomic_compare_exchange_weak(cx->whatif_left, &left, left - cost))
			return true;
	return false;
}

static bool try_nodes(struct sl_check *cx, enum sl_goal g, const struct sl_whatif *c, bool *starved)
{
	if (!spend(cx, sl_whatif_cost(cx->model, c))) {
		*starved = true;
		return false;
	}
	struct sl_whatif_result r;
	sl_whatif_analyze(cx->cluster, cx->w, c, &r);
	return met(g, &r);
}

/* Whether more allocatable on one node takes it off a DaemonSet's list of nodes where a surge
 * never fits, checked. */
static bool daemon_node_freed(struct sl_check *cx, size_t node, const struct sl_reslist *extra,
			      const struct sl_daemon_view *d, bool *starved)
{
	struct sl_whatif c = {node, extra, 0};
	if (!spend(cx, sl_whatif_cost(cx->model, &c))) {
		*starved = true;
		return false;
	}
	struct sl_whatif_result r;
	sl_whatif_analyze(cx->cluster, cx->w, &c, &r);
	return r.daemon_blocked < d->nblocked;
}

/* How many more pods of the template the change must make room for. */
static int64_t shortfall(enum sl_goal g, const struct sl_analysis *a)
{
	return g == SL_GOAL_REPLICAS ? a->replicas - a->steady_placed : 1;
}

/* The allocatable node i lacks for `want` pods of p beside what runs there, per resource (0 when
 * it has room); returns how many resources fall short. */
static size_t lacking(const struct sl_podspec *p, const struct sl_node *n, int64_t want, struct sl_reslist *out)
{
	static const char *const basic[] = {"cpu", "memory", "ephemeral-storage"};
	size_t k = 0;
	for (size_t i = 0; i < 3 + p->request.n; i++) {
		const char *nm = i < 3 ? basic[i] : p->request.v[i - 3].name;
		if (i >= 3 && (!strcmp(nm, "cpu") || !strcmp(nm, "memory") || !strcmp(nm, "ephemeral-storage")))
			continue;
		int64_t req = i < 3 ? sl_res_get(&p->request, nm) : p->request.v[i - 3].amount;
		if (req <= 0 || (i < 3 && !sl_res_find(&n->alloc, nm) && !sl_res_find(&p->request, nm)))
			continue;
		int64_t need = sl_sat_add(sl_sat_mul(want, req), sl_res_get(&n->used, nm)) - sl_res_get(&n->alloc, nm);
		if (need > 0) {
			sl_res_add(out, nm, need, NULL);
			k++;
		}
	}
	int64_t pods = n->npods + want - n->max_pods;
	if (pods > 0) {
		sl_res_add(out, "pods", pods, NULL);
		k++;
	}
	return k;
}

/* Pods of p an empty copy of n takes, by resources and the pod count. */
static int64_t empty_room(const struct sl_podspec *p, const struct sl_node *n)
{
	struct sl_node e = *n;
	e.used = (struct sl_reslist){0};
	e.npods = 0;
	struct sl_nodefit pass;
	sl_nodefit_clear(&pass);
	const char *limit;
	return sl_node_slots(p, &e, &pass, &limit);
}

/* A node the template could use but for room: every filter but resources passes for one pod. */
static bool candidate(const struct sl_analysis *a, size_t i)
{
	const struct sl_nodefit *fit = &a->fit[i];
	return !fit->excluded && (fit->plugin == SL_FITS || fit->plugin == SL_PL_NODE_RESOURCES_FIT);
}

/* "1 more nvidia.com/gpu (1 → 2)" for each resource of extra. */
static void describe_extra(struct sl_buf *b, const struct sl_node *n, const struct sl_reslist *extra)
{
	for (size_t i = 0; i < extra->n; i++) {
		const char *nm = extra->v[i].name;
		char more[48], from[48], to[48];
		int64_t have = !strcmp(nm, "pods") ? n->max_pods : sl_res_get(&n->alloc, nm);
		sl_format_amount(nm, extra->v[i].amount, more, sizeof more);
		sl_format_amount(nm, have, from, sizeof from);
		sl_format_amount(nm, sl_sat_add(have, extra->v[i].amount), to, sizeof to);
		sl_buf_printf(b, "%s%s more %s (%s → %s allocatable)", i ? " and " : "", more, nm, from, to);
	}
}

/* The node whose shortfall is smallest: fewest resources short, then the least in proportion to
 * what it has. Nodes already tried are skipped. */
static size_t best_node(const struct sl_check *cx, enum sl_goal g, const bool *tried, struct sl_reslist *extra)
{
	const struct sl_analysis *a = cx->a;
	size_t best = (size_t)-1, best_k = 0;
	double best_share = 0;
	int64_t k = shortfall(g, a);
	for (size_t i = 0; i < a->nnodes; i++) {
		if (tried[i] || !candidate(a, i))
			continue;
		const struct sl_node *n = cx->model->nodes[i];
		struct sl_reslist x = {0};
		int64_t base = g == SL_GOAL_ONE_POD || !a->slots ? 0 : a->slots[i];
		size_t nk = lacking(&cx->w->pod, n, base + k, &x);
		double share = 0;
		for (size_t r = 0; r < x.n; r++) {
			int64_t have = !strcmp(x.v[r].name, "pods") ? n->max_pods : sl_res_get(&n->alloc, x.v[r].name);
			share += (double)x.v[r].amount / (double)(have > 0 ? have : 1);
		}
		if (nk && (best == (size_t)-1 || nk < best_k || (nk == best_k && share < best_share))) {
			best = i, best_k = nk, best_share = share;
			sl_res_free(extra);
			*extra = x;
		} else
			sl_res_free(&x);
	}
	return best;
}

static void offer_node_capacity(struct sl_finding *f, struct sl_check *cx, enum sl_goal g, bool *starved)
{
	const struct sl_analysis *a = cx->a;
	bool *tried = sl_xcalloc(a->nnodes + 1, sizeof *tried);
	for (int attempt = 0; attempt < 2; attempt++) {
		struct sl_reslist extra = {0};
		size_t i = best_node(cx, g, tried, &extra);
		if (i == (size_t)-1) {
			sl_res_free(&extra);
			break;
		}
		tried[i] = true;
		struct sl_whatif c = {i, &extra, 0};
		if (try_nodes(cx, g, &c, starved)) {
			const struct sl_node *n = cx->model->nodes[i];
			struct sl_buf b = SL_BUF_INIT;
			describe_extra(&b, n, &extra);
			sl_note(f,
				"smallest change on one node: node %s with %s; then %s (checked by running the engine "
				"again)",
				n->name, b.s, goal_text[g]);
			sl_buf_free(&b);
			sl_res_free(&extra);
			break;
		}
		sl_res_free(&extra);
	}
	free(tried);
}

static void offer_more_nodes(struct sl_finding *f, struct sl_check *cx, enum sl_goal g, bool *starved)
{
	const struct sl_analysis *a = cx->a;
	size_t base = (size_t)-1;
	int64_t room = 0;
	for (size_t i = 0; i < a->nnodes; i++) {
		if (!candidate(a, i) || !sl_whatif_copy_admits(&cx->w->pod, cx->model->nodes[i]))
			continue;
		int64_t e = empty_room(&cx->w->pod, cx->model->nodes[i]);
		if (e > room)
			base = i, room = e;
	}
	if (base == (size_t)-1)
		return;
	int64_t need = shortfall(g, a), k = (need + room - 1) / room;
	/* Spread and anti-affinity may want a copy more than room alone says. */
	for (int64_t extra = 0; extra < 2 && k + extra <= 1000; extra++) {
		struct sl_whatif c = {base, NULL, k + extra};
		if (!try_nodes(cx, g, &c, starved))
			continue;
		const struct sl_node *n = cx->model->nodes[base];
		sl_note(
		    f,
		    "smallest change in nodes: %lld more node%s like %s (its labels, taints and allocatable, empty: "
		    "room for %lld pod%s of it each); then %s (checked by running the engine again)",
		    (long long)(k + extra), k + extra == 1 ? "" : "s", n->name, (long long)room, room == 1 ? "" : "s",
		    goal_text[g]);
		return;
	}
}

/* The largest replicas below the current count for which the goal holds, checked; 0 if none
 * of the few tried does. */
static int64_t largest_replicas(struct sl_check *cx, enum sl_goal g)
{
	const struct sl_analysis *a = cx->a;
	int64_t start = g == SL_GOAL_REPLICAS ? a->steady_placed : a->replicas - 1;
	for (int64_t n = start; n >= 1 && n > start - 3; n--) {
		struct sl_workload w = *cx->w;
		w.replicas = n;
		struct sl_whatif_result r;
		sl_whatif_workload(cx->cluster, &w, &r);
		if (met(g, &r))
			return n;
	}
	return 0;
}

void sl_offer_smallest_changes(struct sl_finding *f, struct sl_check *cx, enum sl_goal g)
{
	const struct sl_workload *w = cx->w;
	if (!cx->a || !cx->a->detailed || !cx->cluster)
		return;
	if (g != SL_GOAL_ONE_POD && w->replicas_node) {
		int64_t n = largest_replicas(cx, g);
		if (n > 0) {
			char v[32], desc[160];
			snprintf(v, sizeof v, "%lld", (long long)n);
			snprintf(desc, sizeof desc,
				 "Set replicas to %s, the most for which %s (checked by running the engine again)", v,
				 goal_text[g]);
			sl_note(f,
				"smallest change to the manifest: replicas %s, the most for which %s (checked by "
				"running the engine again)",
				v, goal_text[g]);
			if (g == SL_GOAL_ROLLOUT)
				sl_fix_replace(sl_fix_new(f, desc), w->obj.src, w->replicas_node, v);
		}
	}
	if (g == SL_GOAL_ROLLOUT) {
		struct sl_workload in_place = *w;
		in_place.max_surge = (struct sl_intpct){true, false, 0, NULL};
		in_place.max_unavailable = (struct sl_intpct){true, false, 1, NULL};
		struct sl_whatif_result r;
		sl_whatif_workload(cx->cluster, &in_place, &r);
		if (met(g, &r))
			sl_note(
			    f,
			    "smallest change to the strategy: maxSurge 0, maxUnavailable 1; then an old pod goes first "
			    "and the rollout goes on (checked by running the engine again)");
	}
	bool starved = false;
	/* More of a resource on one node cannot help where anti-affinity or a host port stops the
	 * next pod: each node that has room already holds a pod that repels it. */
	const struct sl_analysis *a = cx->a;
	const struct sl_nodefit *fits = g == SL_GOAL_ROLLOUT    ? a->rollout_fit
					: g == SL_GOAL_REPLICAS ? a->steady_fit
								: a->fit;
	enum sl_cause cause = fits ? sl_blocking_cause(a, fits) : SL_CAUSE_RESOURCES;
	if (cause != SL_CAUSE_ANTI && cause != SL_CAUSE_PORTS)
		offer_node_capacity(f, cx, g, &starved);
	/* A copy of a node is a new domain of kubernetes.io/hostname only: against anti-affinity on a
	 * wider key (a zone) it adds no domain. */
	bool by_host = false;
	for (size_t i = 0; i < w->pod.nanti; i++)
		by_host |= !strcmp(w->pod.anti[i].topology_key, "kubernetes.io/hostname");
	if (cause != SL_CAUSE_ANTI || by_host)
		offer_more_nodes(f, cx, g, &starved);
	if (starved)
		sl_note(f, "capacity changes were not all computed: checking them runs the engine again on a changed "
			   "cluster, and this run has done that as often as it does");
}

void sl_offer_daemon_capacity(struct sl_finding *f, struct sl_check *cx)
{
	const struct sl_daemon_view *d = &cx->a->daemon;
	bool starved = false;
	for (size_t i = 0; i < d->nblocked && i < 6; i++) {
		const struct sl_daemon_room *room = &d->blocked[i];
		const struct sl_node *n = cx->model->nodes[room->node];
		struct sl_reslist extra = {0};
		/* Where the old pod runs it is in the load already: one more pod; else two. */
		if (lacking(&cx->w->pod, n, room->running ? 1 : 2, &extra) &&
		    daemon_node_freed(cx, room->node, &extra, d, &starved)) {
			struct sl_buf b = SL_BUF_INIT;
			describe_extra(&b, n, &extra);
			sl_note(f,
				"smallest change on node %s: %s; then the surge pod fits beside the old one there "
				"(checked by running the engine again)",
				n->name, b.s);
			sl_buf_free(&b);
		}
		sl_res_free(&extra);
	}
	if (starved)
		sl_note(f, "capacity changes were not all computed: checking them runs the engine again on a changed "
			   "cluster, and this run has done that as often as it does");
}
