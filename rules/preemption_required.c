/* preemption-required — pods of a workload that schedule only by evicting lower-priority pods.
 *
 * The scheduler's DefaultPreemption PostFilter makes room for a pod no node passes by evicting
 * running pods of lower priority (sched/preemption.c runs its dry run and nomination). The pod then
 * runs, so `unschedulable`, `insufficient-capacity` and `rollout-deadlock` stay silent; but every
 * such pod, on every rollout, costs the work of the pods it evicts, which is worth knowing before
 * the merge. */
#include <string.h>

#include "../linter/base/buf.h"
#include "rules.h"

/* "ns/name (priority P)" for each victim, six at most named, with the budget its eviction breaks:
 * the scheduler evicts such a pod only where no other victim makes room. */
static void victims_text(struct sl_buf *b, const struct sl_preempt_step *s)
{
	for (size_t v = 0; v < s->nvictims && v < 6; v++) {
		const struct sl_pod *p = s->victims[v];
		const struct sl_pdb *d = s->broken[v];
		sl_buf_printf(b, "%s%s/%s (priority %lld", v ? ", " : "", p->obj.namespace, p->obj.name,
			      (long long)p->spec.priority);
		if (d)
			sl_buf_printf(b, "; breaks PodDisruptionBudget %s/%s", d->obj.namespace, d->obj.name);
		sl_buf_putc(b, ')');
	}
	if (s->nvictims > 6)
		sl_buf_printf(b, " and %zu more", s->nvictims - 6);
}

/* Victims whose priority is not known were taken as 0: the claim depends on them. */
static void note_unknown_victims(struct sl_finding *f, const struct sl_analysis *a, int64_t prio)
{
	for (size_t s = 0; s < a->npreempted; s++)
		for (size_t v = 0; v < a->preempted[s].nvictims; v++) {
			const struct sl_pod *p = a->preempted[s].victims[v];
			if (p->spec.prio_from != SL_PRIO_UNKNOWN)
				continue;
			sl_note(
			    f,
			    "this depends on the priority of %s/%s, which is not known: it names PriorityClass %s, "
			    "which is not among the inputs, and shows no spec.priority; taken as 0, but at %lld or "
			    "more it is no victim, and the pod may not fit (give the cluster's classes: kubectl get "
			    "priorityclasses -o yaml)",
			    p->obj.namespace, p->obj.name, p->spec.priority_class, (long long)prio);
			return;
		}
}

/* A DaemonSet's pods are pinned each to its node (sched/daemonset_fit.c): those that fit on their
 * node only by evicting pods there, with the victims per node. */
static void check_daemonset(const struct sl_rule *self, struct sl_check *cx)
{
	if (!cx->a || !cx->cluster)
		return;
	const struct sl_daemon_fit *df = sl_daemon_fit(cx->cluster, cx->w, cx->a);
	size_t nodes = 0, evicted = 0;
	for (size_t k = 0; k < df->nstuck; k++)
		if (df->stuck[k].a->npreempted) {
			nodes++;
			evicted += df->stuck[k].a->preempted[0].nvictims;
		}
	if (!nodes)
		return;
	const struct sl_workload *w = cx->w;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	struct sl_finding *f = sl_rule_report(
	    self, cx, w->pod.priority_class_node ? w->pod.priority_class_node : sl_ymap_key(w->obj.root, "spec"),
	    "the pod%s of %s on %zu node%s schedule%s only by preempting %zu lower-priority pod%s",
	    nodes == 1 ? "" : "s", ref, nodes, nodes == 1 ? "" : "s", nodes == 1 ? "s" : "", evicted,
	    evicted == 1 ? "" : "s");
	sl_note(f,
		"priority %lld%s%s; preemptionPolicy PreemptLowerPriority; each pod is pinned to its node, so "
		"it evicts pods there",
		(long long)w->pod.priority, w->pod.priority_class ? " from PriorityClass " : "",
		w->pod.priority_class ? w->pod.priority_class : "");
	struct sl_buf b = SL_BUF_INIT;
	for (size_t k = 0, shown = 0; k < df->nstuck && shown < 10; k++) {
		const struct sl_analysis *a = df->stuck[k].a;
		if (!a->npreempted)
			continue;
		b.len = 0;
		victims_text(&b, &a->preempted[0]);
		sl_note(f, "node %s: evicting %s", cx->model->nodes[df->stuck[k].node]->name, sl_buf_str(&b));
		note_unknown_victims(f, a, w->pod.priority);
		shown++;
	}
	if (nodes > 10)
		sl_note(f, "and %zu more nodes", nodes - 10);
	sl_buf_free(&b);
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	/* A DaemonSet's pods are not one template placed anywhere: each is pinned to its node. */
	if (!strcmp(cx->w->obj.kind, "DaemonSet")) {
		check_daemonset(self, cx);
		return;
	}
	if (!a || !a->npreempted)
		return;
	const struct sl_workload *w = cx->w;
	size_t evicted = 0, surge = 0;
	for (size_t s = 0; s < a->npreempted; s++) {
		evicted += a->preempted[s].nvictims;
		surge += a->preempted[s].surge;
	}
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	const struct sl_ynode *at = w->pod.priority_class_node ? w->pod.priority_class_node
				    : w->replicas_node         ? w->replicas_node
							       : sl_ymap_key(w->obj.root, "spec");
	struct sl_finding *f =
	    sl_rule_report(self, cx, at, "%zu pod%s of %s schedule%s only by preempting %zu lower-priority pod%s%s",
			   a->npreempted, a->npreempted == 1 ? "" : "s", ref, a->npreempted == 1 ? "s" : "", evicted,
			   evicted == 1 ? "" : "s", surge == a->npreempted ? " (the rollout's surge)" : "");
	sl_note(f, "priority %lld%s%s; preemptionPolicy PreemptLowerPriority", (long long)w->pod.priority,
		w->pod.priority_class ? " from PriorityClass " : "",
		w->pod.priority_class ? w->pod.priority_class : "");
	struct sl_buf b = SL_BUF_INIT;
	for (size_t s = 0; s < a->npreempted && s < 10; s++) {
		const struct sl_preempt_step *st = &a->preempted[s];
		b.len = 0;
		victims_text(&b, st);
		sl_note(f, "%s pod %zu: node %s, evicting %s%s", st->surge ? "surge" : "replica", s + 1,
			cx->model->nodes[st->node]->name, sl_buf_str(&b),
			st->tie ? " (another node is as good: the scheduler picks among them at random)" : "");
	}
	if (a->npreempted > 10)
		sl_note(f, "and %zu more pods placed by preemption", a->npreempted - 10);
	note_unknown_victims(f, a, w->pod.priority);
	sl_buf_free(&b);
}

const struct sl_rule sl_rule_preemption_required = {
    .id = "preemption-required",
    .name = "PreemptionRequired",
    .summary = "Pods that schedule only by evicting lower-priority pods.",
    .description =
	"No node has room for some pods of the workload (or for its rollout's surge pod) as the cluster is, "
	"but the scheduler's DefaultPreemption evicts running pods of lower priority to make room, so they "
	"run. The evicted pods are work lost, on every rollout; their controllers recreate them, and they may "
	"wait Pending themselves.",
    .help = "Make room for the pods (more nodes or allocatable where the template may run), or lower the "
	    "workload's priority if evicting the other pods was not meant, or accept the evictions.",
    .level = SL_WARNING,
    .needs_nodes = true,
    .check = check,
};
