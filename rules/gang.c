/* gang.c — gangs, for the rules that count the pods that run at once.
 *
 * Volcano's gang plugin binds none of a PodGroup's pods until minMember of them can be bound
 * together (JobReady) — for a Volcano Job's group, each task's minAvailable of its own pods too —
 * and its enqueue step (the proportion plugin of the default scheduler configuration) holds a
 * group whose minResources exceed what its queue can ever have, at most the cluster's
 * allocatable. scheduler-plugins' Coscheduling plugin refuses a pod in PreFilter while fewer than
 * minMember pods carry its group's label or minResources exceed what the nodes have free, and
 * holds each pod in Permit until minMember are assumed. Kubernetes' own GangScheduling plugin
 * (a Workload's pod group, model/kgang.h) does the same with minCount: PreEnqueue holds the pods
 * until minCount of them exist, Permit binds none until minCount are placed together. So a gang
 * that finds room for fewer than
 * it needs runs nothing, not "some of them": the messages say so, and the fix that lowers
 * replicas below the minimum is not offered (the gang would still run nothing). Of a gang of
 * several workloads each is judged on what the gang needs of it whatever the others place
 * (sl_wgang.gang_need); what concerns the whole group is reported at its first workload. */
#include <stdio.h>
#include <string.h>

#include "../linter/model/quantity.h"
#include "rules.h"

/* The words for the step that holds back a group whose minResources the cluster lacks. */
static const char *holder(const struct sl_podgroup *g)
{
	return g->flavor == SL_GANG_COSCHED ? "the Coscheduling plugin refuses its pods in PreFilter"
					    : "Volcano never enqueues it";
}

/* minResources above the whole cluster's allocatable: never enqueued (Volcano), never past
 * PreFilter, which weighs what the nodes have free (Coscheduling). Reported at the group's first
 * workload; true for every one of them. */
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
		if (g->first != cx->w)
			return true;
		char ref[512], want[32], have[32];
		sl_object_ref(&cx->w->obj, ref, sizeof ref);
		sl_format_amount(r->name, r->amount, want, sizeof want);
		sl_format_amount(r->name, total, have, sizeof have);
		struct sl_finding *f = sl_rule_report(
		    self, cx, sl_wgang(cx->w)->gang_at,
		    "%s runs nothing: its PodGroup %s asks for minResources %s %s, more than the %s the nodes' "
		    "allocatable adds up to, so %s",
		    ref, g->obj.name, want, r->name, have, holder(g));
		sl_add_related(f, &r->node->at, "PodGroup %s: minResources %s %s", g->obj.name, r->name, want);
		if (m->npools && f->level == SL_ERROR)
			f->level = SL_WARNING;
		if (m->npools)
			sl_note(f, "unless the node pools add the rest: the cluster's allocatable grows with them");
		if (g->flavor == SL_GANG_COSCHED)
			sl_note(
			    f,
			    "the Coscheduling plugin's PreFilter admits a pod only while the nodes have minResources "
			    "free, at most their allocatable");
		else
			sl_note(f,
				"the enqueue step of the default volcano-scheduler configuration (proportion, "
				"overcommit) admits a group only within the queue's capability, at most the cluster's "
				"allocatable");
		sl_note(f, "fix: lower minResources to what the nodes have, or add nodes");
		return true;
	}
	return false;
}

/* Pods that name a coscheduling PodGroup but go to a scheduler without the plugin: bound one by
 * one, as any pod. A note: the group's minimum holds nothing back. */
static void note_unheld(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_wgang *wg = sl_wgang(w);
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	struct sl_finding *f = sl_rule_report(
	    self, cx, wg->gang_at,
	    "%s is not gang-scheduled: its pods name the coscheduling PodGroup %s (minMember %lld), but go to %s, "
	    "%s, so they are bound one by one",
	    ref, wg->unheld->obj.name, (long long)wg->unheld->min_member, wg->unheld_by,
	    strcmp(wg->unheld_by, "volcano") ? "whose default profile has no Coscheduling plugin"
					     : "which does not run the Coscheduling plugin");
	f->level = SL_NOTE;
	sl_add_related(f, &wg->unheld->obj.name_node->at, "PodGroup %s", wg->unheld->obj.name);
	if (!strcmp(wg->unheld_by, "volcano"))
		sl_note(f, "Volcano gangs only the pods of its own PodGroups (scheduling.volcano.sh); no gang verdict "
			   "is given");
	else
		sl_note(f, "unless the cluster's own kube-scheduler configuration adds Coscheduling to that "
			   "profile; no gang verdict is given");
	sl_note(f, "fix: set the template's schedulerName to the scheduler whose profile enables Coscheduling, "
		   "or drop the scheduling.x-k8s.io/pod-group label");
}

/* The group asks for more pods than its workloads have: reported at the first of them. */
static void report_too_few(const struct sl_rule *self, struct sl_check *cx, const struct sl_podgroup *g)
{
	const struct sl_workload *w = cx->w;
	char ref[512], name[300];
	sl_object_ref(&w->obj, ref, sizeof ref);
	sl_gang_name(g, name, sizeof name);
	struct sl_finding *f;
	if (g->nworkloads == 1) {
		f = sl_rule_report(self, cx, sl_wgang(w)->gang_at,
				   "%s runs nothing: a gang of %s %lld (%s), and it makes %lld pod%s", ref,
				   sl_gang_min_key(g), (long long)g->min_member, name, (long long)w->replicas,
				   w->replicas == 1 ? "" : "s");
		sl_relate_gang(f, w);
		sl_note(f, "fix: lower the %s's %s to %lld, or raise the workload's pods to %lld", sl_gang_holder(g),
			sl_gang_min_key(g), (long long)w->replicas, (long long)g->min_member);
		return;
	}
	f = sl_rule_report(self, cx, sl_wgang(w)->gang_at,
			   "%s runs nothing: a gang of %s %lld (%s), and its %zu workloads make %lld pods together",
			   ref, sl_gang_min_key(g), (long long)g->min_member, name, g->nworkloads,
			   (long long)g->members);
	sl_relate_gang(f, w);
	sl_note(f, "%s",
		g->flavor == SL_GANG_COSCHED
		    ? "the Coscheduling plugin's PreFilter refuses every pod of the group while fewer than "
		      "minMember pods carry its label"
		: g->flavor == SL_GANG_KUBE
		    ? "the GangScheduling plugin's PreEnqueue holds every pod of the group until minCount of them "
		      "exist"
		    : "Volcano's gang plugin finds the job invalid while it has fewer pods than minMember");
	sl_note(f, "fix: lower the %s's %s to %lld, or raise the workloads' pods to %lld", sl_gang_holder(g),
		sl_gang_min_key(g), (long long)g->members, (long long)g->min_member);
}

bool sl_check_gang(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_wgang *wg = sl_wgang(w);
	const struct sl_podgroup *g = wg->podgroup;
	if (!g) {
		if (wg->unheld)
			note_unheld(self, cx);
		return false;
	}
	if (too_large(self, cx, g))
		return true;
	if (wg->gang_need <= w->replicas)
		return false;
	if (g->min_member > g->members) { /* the group's count: at its first workload */
		if (g->first == w)
			report_too_few(self, cx, g);
		return true;
	}
	return false; /* a Volcano task's own minAvailable above its replicas: refused as input (vcjob.c) */
}
