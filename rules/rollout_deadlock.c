/* rollout-deadlock — a RollingUpdate that can never finish: a Deployment's, or a DaemonSet's that
 * surges (check_daemonset).
 *
 * With maxUnavailable resolved to 0 the Deployment controller removes no old pod until a new
 * one is Ready, and with room on the nodes for `replicas` pods but not one more, no new pod can
 * ever be scheduled: the surge pod waits for the old pods' resources, the old pods wait for the
 * surge pod. The proof uses the exact filters and slot counts of sched.c, so it holds for every
 * placement of the identical pods. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/model/quantity.h"
#include "edits.h"
#include "release.h"
#include "rules.h"

/* The template's first required anti-affinity term that selects the template's own pods and is
 * not yet scoped to one ReplicaSet. */
static const struct sl_podterm *own_anti_term(const struct sl_workload *w)
{
	const struct sl_podspec *p = &w->pod;
	for (size_t t = 0; t < p->nanti; t++) {
		const struct sl_podterm *term = &p->anti[t];
		if (!sl_term_per_replicaset(term) &&
		    sl_podterm_matches(term, p->namespace, &p->labels, p->namespace, &p->labels))
			return term;
	}
	return NULL;
}

/* One node's picture for a DaemonSet surge: what bounds it, and how much its pods take. */
static void note_daemon_node(struct sl_buf *b, const struct sl_model *m, const struct sl_workload *w,
			     const struct sl_daemon_room *r)
{
	const struct sl_node *n = m->nodes[r->node];
	const char *own = r->running ? "its old pod among them" : "its old pod assumed there";
	if (!r->limit || !strcmp(r->limit, "pods")) {
		sl_buf_printf(b, "%s: %lld of %lld pods (%s)", n->name, (long long)n->npods + !r->running,
			      (long long)n->max_pods, own);
		return;
	}
	char al[48], us[48], rq[48];
	int64_t used = sl_res_get(&n->used, r->limit) + (r->running ? 0 : sl_res_get(&w->pod.request, r->limit));
	sl_format_amount(r->limit, sl_res_get(&n->alloc, r->limit), al, sizeof al);
	sl_format_amount(r->limit, used, us, sizeof us);
	sl_format_amount(r->limit, sl_res_get(&w->pod.request, r->limit), rq, sizeof rq);
	sl_buf_printf(b, "%s: %s %s allocatable, %s requested (%s), a pod asks %s", n->name, al, r->limit, us, own, rq);
}

/* The finding, at maxSurge: the nodes (six named) with no room for a second pod of it. */
static struct sl_finding *report_daemon_stuck(const struct sl_rule *self, struct sl_check *cx,
					      const struct sl_ynode *su, const struct sl_ynode *un)
{
	const struct sl_daemon_view *d = &cx->a->daemon;
	char ref[512];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	struct sl_buf names = SL_BUF_INIT;
	for (size_t i = 0; i < d->nblocked && i < 6; i++)
		sl_buf_printf(&names, "%s%s", i ? ", " : "", cx->model->nodes[d->blocked[i].node]->name);
	if (d->nblocked > 6)
		sl_buf_printf(&names, " and %zu more", d->nblocked - 6);
	const char *limit = d->blocked[0].limit ? d->blocked[0].limit : "pods";
	struct sl_finding *f = sl_rule_report(
	    self, cx, su,
	    "rollout of %s can never finish: maxSurge %s starts each updated pod on its node beside the old one, "
	    "and %snode%s %s %s no room for a second pod (%s), so the new pod%s never schedule%s there; with "
	    "maxUnavailable %s the old pod goes only once its replacement is available",
	    ref, su->str, d->nblocked == d->nruns ? "its " : "", d->nblocked == 1 ? "" : "s", names.s,
	    d->nblocked == 1 ? "has" : "have", limit, d->nblocked == 1 ? "" : "s", d->nblocked == 1 ? "s" : "",
	    un->str);
	sl_buf_free(&names);
	return f;
}

/* Where its pods run (found running, or assumed where they fit) and, per blocked node, what
 * leaves no room for the surge pod. */
static void note_daemon_runs(struct sl_finding *f, struct sl_check *cx)
{
	const struct sl_daemon_view *d = &cx->a->daemon;
	if (d->own_running)
		sl_note(
		    f,
		    "%lld of its pods run (found among the running pods) on %zu node%s; %zu of them cannot take the "
		    "surge pod",
		    (long long)d->own_running, d->nruns, d->nruns == 1 ? "" : "s", d->nblocked);
	else
		sl_note(f,
			"it runs on %zu node%s (its nodeSelector, required node affinity and tolerations, with those "
			"the DaemonSet controller adds); %zu of them cannot take the surge pod",
			d->nruns, d->nruns == 1 ? "" : "s", d->nblocked);
	for (size_t i = 0; i < d->nblocked && i < 6; i++) {
		struct sl_buf b = SL_BUF_INIT;
		note_daemon_node(&b, cx->model, cx->w, &d->blocked[i]);
		sl_note(f, "%s", b.s);
		sl_buf_free(&b);
	}
	if (!d->own_running)
		sl_note(f, "none of its pods is among the running pods: its old pod is assumed on every node where one "
			   "fits, as after any earlier rollout");
}

/* A DaemonSet that surges: the new pod of each node must go beside the old one on that node
 * (the controller pins it there), and the old pod goes only once the new one is available. */
static void check_daemonset(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_analysis *a = cx->a;
	const struct sl_ynode *su, *un, *type;
	/* Host ports: hostport-rollout proves it on every cluster. */
	if (!a || !a->daemon.nblocked || w->pod.nports ||
	    !sl_daemonset_surges(w, cx->model->kube.minor, &su, &un, &type))
		return;
	const struct sl_daemon_view *d = &a->daemon;
	struct sl_finding *f = report_daemon_stuck(self, cx, su, un);
	sl_note(f, "updateStrategy RollingUpdate%s, maxSurge %s, maxUnavailable %s",
		sl_ynull(type) ? " (defaulted)" : "", su->str, un->str);
	note_daemon_runs(f, cx);
	sl_note(f, "the DaemonSet controller pins the surge pod to the old pod's node (node affinity on "
		   "metadata.name); preemption cannot help, the old pod has the same priority");
	sl_note(f, "fix: set updateStrategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (the old pod stops first, "
		   "then its replacement takes its place), or use updateStrategy type OnDelete");
	sl_offer_daemon_capacity(f, cx);
	for (size_t i = 0; i < d->nblocked && i < 6; i++) {
		const struct sl_node *n = cx->model->nodes[d->blocked[i].node];
		sl_add_related(f, &(n->name_node ? n->name_node : n->root)->at, "node %s", n->name);
	}
	struct sl_fix *fx = sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace the pod in place)");
	sl_fix_replace(fx, w->obj.src, su, "0");
	sl_fix_replace(fx, w->obj.src, un, "1");
}

/* Why the surge pod finds no node, in the words of the filter that stops it on most nodes. */
static void surge_blocked_why(const struct sl_analysis *a, enum sl_cause cause, char *why, size_t n)
{
	/* Nodes with room the volumes do not reach are no place for the surge pod: the room that
	 * counts is where the volumes are. */
	const char *where = sl_volume_rejects(a, a->rollout_fit) ? "the nodes its volumes reach" : "the nodes";
	switch (cause) {
	case SL_CAUSE_ANTI:
		snprintf(why, n,
			 "required anti-affinity keeps the surge pod out of every domain that holds one of its %lld "
			 "old pods",
			 (long long)a->replicas);
		break;
	case SL_CAUSE_PORTS:
		snprintf(why, n, "its %lld old pod%s hold the host port on every node that admits the surge pod",
			 (long long)a->replicas, a->replicas == 1 ? "" : "s");
		break;
	case SL_CAUSE_SPREAD:
		snprintf(why, n, "beside its %lld old pods the surge pod would exceed maxSkew on every node with room",
			 (long long)a->replicas);
		break;
	default:
		snprintf(why, n, "%s hold its %lld pod%s but not one more", where, (long long)a->replicas,
			 a->replicas == 1 ? "" : "s");
	}
}

/* The finding, at maxUnavailable (what makes the surge pod necessary), else at the strategy,
 * else at spec. */
static struct sl_finding *report_deadlock(const struct sl_rule *self, struct sl_check *cx, enum sl_cause cause)
{
	const struct sl_workload *w = cx->w;
	char ref[512], unavail[32], why[256];
	sl_object_ref(&w->obj, ref, sizeof ref);
	sl_intpct_format(&w->max_unavailable, unavail, sizeof unavail);
	const struct sl_ynode *at = w->max_unavailable.node;
	if (!at)
		at = sl_ymap_key(w->spec, "strategy");
	if (!at)
		at = sl_ymap_key(w->obj.root, "spec");
	surge_blocked_why(cx->a, cause, why, sizeof why);
	return sl_rule_report(self, cx, at,
			      "rollout of %s can never finish: %s, and maxUnavailable %s%s, so no old pod "
			      "goes before a new one is Ready",
			      ref, why, unavail, w->max_unavailable.percent ? " resolves to 0" : "");
}

/* The proof's numbers: the rollout parameters, where the old pods sit, why the surge pod does
 * not fit, whether the placement order matters (then only a warning), and preemption. */
static void note_placement(struct sl_finding *f, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	sl_note_rollout(f, cx->w, a->replicas, a->max_surge, a->max_unavailable);
	sl_note_slots(f, cx->model, a);
	/* The surge pod's stop, or the first pod's when not one replica fits either. */
	const struct sl_preempt_summary *pre;
	const char *post = sl_postfilter(a, SL_STOP_ROLLOUT, &pre);
	if (!a->rollout_fit)
		sl_postfilter(a, SL_STOP_FIT, &pre);
	if (sl_rollout_fit_error(a))
		sl_note(f, "the surge pod: %s%s%s", sl_rollout_fit_error(a), post ? " " : "", post ? post : "");
	else
		sl_note(f, "the surge pod: no node has room");
	size_t far = sl_volume_rejects(a, a->rollout_fit);
	if (far) {
		sl_note(f,
			"%zu node%s with room for the surge pod %s out of its volumes' reach: it can only go where "
			"its volumes are, and the old pod%s hold%s the room there",
			far, far == 1 ? "" : "s", far == 1 ? "is" : "are", a->replicas == 1 ? "" : "s",
			a->replicas == 1 ? "s" : "");
		sl_note_volumes(f, cx);
	}
	sl_note_dra(f, cx);
	if (sl_note_order(f, a) && f->level == SL_ERROR)
		f->level = SL_WARNING;
	sl_note_preemption(f, a, pre);
}

/* The nodes, and the template's node constraints that narrow them to these. */
static void relate_candidates(struct sl_finding *f, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	sl_relate_nodes(f, cx->model, cx->a, true);
	if (w->pod.node_selector_node)
		sl_add_related(f, &w->pod.node_selector_node->at, "the nodeSelector that narrows the candidate nodes");
	if (w->pod.affinity_node)
		sl_add_related(f, &w->pod.affinity_node->at,
			       "the required node affinity that narrows the candidate nodes");
}

/* Replace in place (no surge pod needed); scope the anti-affinity term that repels the old pods
 * to one ReplicaSet, when that is what blocks and the release has matchLabelKeys; or Recreate. */
static void offer_fixes(struct sl_finding *f, const struct sl_workload *w, const struct sl_podterm *label_keys_term)
{
	sl_fix_rolling_params(sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace one pod at a time)"), w,
			      "0", "1");
	if (label_keys_term) {
		const struct sl_yentry e = {"matchLabelKeys", "[pod-template-hash]", NULL, 0};
		sl_fix_insert(sl_fix_new(f, "Add matchLabelKeys: [pod-template-hash] to the anti-affinity term, so it "
					    "only repels pods of the same ReplicaSet"),
			      w->obj.src, label_keys_term->node, NULL, &e, 1);
	}
	sl_fix_recreate(sl_fix_new(f, "Use the Recreate strategy (all old pods stop before new ones start)"), w);
}

/* The first pool (by weight) that admits the surge pod and has room for one more within its limits
 * or maximum size, or NULL. */
static const struct sl_pool_fit *pool_with_room(const struct sl_pool_fit *pf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pf[i].admits && pf[i].pods_max != 0)
			return &pf[i];
	return NULL;
}

/* The nodes hold the replicas but not the surge pod, and a pool adds a node for it: the rollout
 * waits for a new node, it does not deadlock. */
static void report_waits(const struct sl_rule *self, struct sl_check *cx, const struct sl_pool_fit *pt)
{
	const struct sl_workload *w = cx->w;
	char ref[512], unavail[32];
	sl_object_ref(&w->obj, ref, sizeof ref);
	sl_intpct_format(&w->max_unavailable, unavail, sizeof unavail);
	const struct sl_ynode *at = w->max_unavailable.node;
	if (!at)
		at = sl_ymap_key(w->spec, "strategy");
	struct sl_finding *f = sl_rule_report(
	    self, cx, at,
	    "the nodes of the inventory hold the %lld pod%s of %s but not one more, and maxUnavailable %s: "
	    "each surge pod of a rollout waits for a new node of %s %s",
	    (long long)cx->a->replicas, cx->a->replicas == 1 ? "" : "s", ref, unavail, sl_pool_kind(pt->pool),
	    pt->pool->obj.name);
	f->level = SL_NOTE;
	if (sl_rollout_fit_error(cx->a))
		sl_note(f, "the surge pod, as the nodes are: %s", sl_rollout_fit_error(cx->a));
	sl_note_pools_take(f, pt, 1, 1);
}

/* With pools: a pool that has room takes the surge pod when only resources or host ports stop it
 * (a new node has both free); under spread or anti-affinity it depends on the domain the new node
 * gets, so the deadlock is then a warning (*may). Pools that take no pod say why. Returns whether
 * the rollout only waits for a new node (reported as such). */
static bool judge_pools(const struct sl_rule *self, struct sl_check *cx, enum sl_cause cause, struct sl_finding **out,
			bool *may)
{
	size_t np = cx->model->npools, nadmit = 0;
	struct sl_pool_fit *pf = sl_pools_for(cx, &nadmit);
	const struct sl_pool_fit *pt = pool_with_room(pf, np);
	bool waits = pt && cause != SL_CAUSE_ANTI && cause != SL_CAUSE_SPREAD;
	if (waits)
		report_waits(self, cx, pt);
	else {
		*out = report_deadlock(self, cx, cause);
		*may = pt != NULL;
		if (pt) {
			sl_note(
			    *out,
			    "%s %s may add a node for the surge pod: whether the pod fits there rests on the topology "
			    "domain the new node gets",
			    sl_pool_kind(pt->pool), pt->pool->obj.name);
			sl_add_related(*out, &pt->pool->obj.name_node->at, "%s %s", sl_pool_kind(pt->pool),
				       pt->pool->obj.name);
		} else
			sl_note_pools_short(*out, cx, pf, np);
	}
	free(pf);
	return waits;
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_analysis *a = cx->a;
	if (!strcmp(w->obj.kind, "DaemonSet")) {
		check_daemonset(self, cx);
		return;
	}
	if (!a || !a->is_rollout || a->strategy != SL_STRATEGY_ROLLING || !a->rollout_deadlock)
		return;
	/* Room for fewer than `replicas` pods is a capacity problem (and no room at all is
	 * `unschedulable`); this rule is about the step from replicas to replicas + 1. */
	if (a->steady_placed < a->replicas || a->replicas == 0)
		return;
	enum sl_cause cause = sl_blocking_cause(a, a->rollout_fit);
	struct sl_finding *f = NULL;
	bool pool_may = false;
	if (cx->model->npools && judge_pools(self, cx, cause, &f, &pool_may))
		return;
	if (!f)
		f = report_deadlock(self, cx, cause);
	note_placement(f, cx);
	if (pool_may && f->level == SL_ERROR)
		f->level = SL_WARNING;
	const struct sl_podterm *self_term = cause == SL_CAUSE_ANTI ? own_anti_term(w) : NULL;
	bool label_keys_fix = self_term && sl_note_match_label_keys(f, self_term, cx->model->kube.minor);
	sl_note(f, "fix: set strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (an old pod goes first, "
		   "then its replacement takes its place), or use strategy type Recreate, or add capacity");
	sl_offer_smallest_changes(f, cx, SL_GOAL_ROLLOUT);
	relate_candidates(f, cx);
	offer_fixes(f, w, label_keys_fix ? self_term : NULL);
}

const struct sl_rule sl_rule_rollout_deadlock = {
    .id = "rollout-deadlock",
    .name = "RolloutCanNeverFinish",
    .summary = "A RollingUpdate with maxUnavailable 0 whose surge pod can never be scheduled.",
    .description =
	"maxUnavailable resolves to 0, so the Deployment controller keeps every old pod until a new pod is "
	"Ready, and the nodes the pod template can use hold `replicas` pods but not `replicas + 1`. The new "
	"pod stays Pending forever and the rollout never progresses. A DaemonSet that surges (maxSurge above "
	"0) starts each new pod beside the old one on its node: on a node with no room for a second pod "
	"of it the rollout never finishes.",
    .help = "Set `strategy.rollingUpdate` to `maxSurge: 0` and `maxUnavailable: 1` so an old pod is removed "
	    "before its replacement is created, or use `strategy.type: Recreate`, or make room for one more pod "
	    "(more nodes the template admits, more of the scarce resource).",
    .level = SL_ERROR,
    .needs_nodes = true,
    .check = check,
    .check_model = sl_release_rollouts,
};
