/* gang.c — Volcano gangs, for the rules that count the pods that run at once.
 *
 * Volcano's gang plugin binds none of a PodGroup's pods until minMember of them can be bound
 * together (JobReady), and its enqueue step (the proportion plugin of the default scheduler
 * configuration) holds a group whose minResources exceed what its queue can ever have, at most
 * the cluster's allocatable. So a gang that finds room for fewer than minMember pods runs
 * nothing, not "some of them": the messages say so, and the fix that lowers replicas below
 * minMember is not offered (the gang would still run nothing). A group that several workloads
 * name counts their pods together: judged here only when one workload names it. */
#include <stdio.h>

#include "../linter/model/quantity.h"
#include "rules.h"

/* minResources above the whole cluster's allocatable: never enqueued. */
static bool too_large(const struct sl_rule *self, struct sl_check *cx, const struct sl_podgroup *g)
{
	const struct sl_model *m = cx->model;
	for (size_t i = 0; i < g->min_res.n; i++) {
		const struct sl_res *r = &g->min_res.v[i];
		int64_t total = 0;
		for (size_t j = 0; j < m->nnodes; j++)
			total = sl_sat_add(total, sl_res_get(&m->nodes[j]->alloc, r->name));
		if (r->amount <= total)
			continue;
		char ref[512], want[32], have[32];
		sl_object_ref(&cx->w->obj, ref, sizeof ref);
		sl_format_amount(r->name, r->amount, want, sizeof want);
		sl_format_amount(r->name, total, have, sizeof have);
		struct sl_finding *f = sl_rule_report(
		    self, cx, cx->w->gang_at,
		    "%s runs nothing: its PodGroup %s asks for minResources %s %s, more than the %s the nodes' "
		    "allocatable adds up to, so Volcano never enqueues it",
		    ref, g->obj.name, want, r->name, have);
		sl_add_related(f, &r->node->at, "PodGroup %s: minResources %s %s", g->obj.name, r->name, want);
		if (m->npools && f->level == SL_ERROR)
			f->level = SL_WARNING;
		if (m->npools)
			sl_note(f, "unless the node pools add the rest: the cluster's allocatable grows with them");
		sl_note(f, "the enqueue step of the default volcano-scheduler configuration (proportion, overcommit) "
			   "admits a group only within the queue's capability, at most the cluster's allocatable");
		sl_note(f, "fix: lower minResources to what the nodes have, or add nodes");
		return true;
	}
	return false;
}

bool sl_check_gang(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podgroup *g = w->podgroup;
	if (!g || g->nworkloads != 1)
		return false;
	if (too_large(self, cx, g))
		return true;
	if (g->min_member <= w->replicas)
		return false;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	struct sl_finding *f = sl_rule_report(
	    self, cx, w->gang_at, "%s runs nothing: a gang of minMember %lld (PodGroup %s), and it makes %lld pod%s",
	    ref, (long long)g->min_member, g->obj.name, (long long)w->replicas, w->replicas == 1 ? "" : "s");
	sl_relate_gang(f, w);
	sl_note(f, "fix: lower the PodGroup's minMember to %lld, or raise the workload's pods to %lld",
		(long long)w->replicas, (long long)g->min_member);
	return true;
}
