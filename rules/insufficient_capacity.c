/* insufficient-capacity — fewer than `replicas` pods of the workload fit at once.
 *
 * Some node takes one pod (otherwise it is `unschedulable`), but the filters leave room for fewer
 * pods than the workload asks for, so the rest stay Pending after every scale-up and every
 * rescheduling. Resources alone: the count is each node's capacity and holds for every placement.
 * Shortfalls caused by spread, anti-affinity or host ports have rules of their own.
 *
 * With node pools, the pods the nodes leave out go to new nodes: only a shortfall beyond what every
 * pool admitting the pod can add within its limits or maximum size (over-estimated, so that it
 * holds for every scale-up) is an error; one the pools cover is a note naming them. */
#include <stdio.h>
#include <stdlib.h>

#include "rules.h"

/* The nodes fall short but the pools take the rest: a note naming them and their new nodes. */
static void report_scale_up(const struct sl_rule *self, struct sl_check *cx, const struct sl_pool_fit *pf, size_t n)
{
	const struct sl_analysis *a = cx->a;
	const struct sl_workload *w = cx->w;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	int64_t rest = a->replicas - a->steady_placed;
	struct sl_finding *f = sl_rule_report(
	    self, cx, w->replicas_node ? w->replicas_node : sl_ymap_key(w->obj.root, "spec"),
	    "only %lld of the %lld replicas of %s fit on the nodes of the inventory; the other %lld would be placed "
	    "on new nodes of the pools that admit its pods",
	    (long long)a->steady_placed, (long long)a->replicas, ref, (long long)rest);
	f->level = SL_NOTE;
	sl_note(f, "the next pod, as the nodes are: %s", sl_steady_fit_error(a));
	sl_note_pools_take(f, pf, n, rest);
}

/* A StatefulSet whose new claims compete for fewer free volumes than pods need them (and no
 * provisioner makes more): the pods beyond them never run, however the nodes' room is placed.
 * Reported when it caps the count below what the room holds. */
static bool check_volume_pool(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	const struct sl_workload *w = cx->w;
	struct sl_volume_pool p;
	if (!a->nfeasible || !w->storage || !sl_volume_pool_short(cx, &p))
		return false;
	if (p.bound >= a->steady_placed) {
		sl_volume_pool_free(&p);
		return false;
	}
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	int64_t held = w->replicas - p.need;
	char hold[64] = "";
	if (held > 0)
		snprintf(hold, sizeof hold, " (%lld bound already)", (long long)held);
	struct sl_finding *f = sl_rule_report(
	    self, cx, w->replicas_node ? w->replicas_node : sl_ymap_key(w->obj.root, "spec"),
	    "only %lld of the %lld replicas of %s can run at once: each pod's claim of volumeClaimTemplate %s takes a "
	    "PersistentVolume of its own, StorageClass %s (%s) makes none%s, and %zu free volume%s match%s the %lld "
	    "claim%s still to bind%s",
	    (long long)p.bound, (long long)w->replicas, ref, p.tmpl, p.cls->obj.name,
	    *p.cls->provisioner ? p.cls->provisioner : "no provisioner", p.topo ? " where the pods may run" : "",
	    p.npvs, p.npvs == 1 ? "" : "s", p.npvs == 1 ? "es" : "", (long long)p.need, p.need == 1 ? "" : "s", hold);
	sl_note(f, "replicas %lld%s", (long long)w->replicas, w->replicas_node ? "" : " (defaulted)");
	sl_note_volume_pool(f, w, &p);
	if (p.assumed)
		sl_note_assumed(f, p.assumed);
	sl_note(f,
		"fix: create a PersistentVolume of StorageClass %s for each pod beyond %lld (on a node the pods may "
		"use)%s, or lower replicas to %lld",
		p.cls->obj.name, (long long)p.bound,
		p.topo ? ", let the class's allowedTopologies admit the nodes the pods select" : "",
		(long long)p.bound);
	if (p.bound > 0)
		sl_fix_lower_replicas(f, w, p.bound, "what the free volumes hold", false, NULL);
	sl_volume_pool_free(&p);
	return true;
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	const struct sl_workload *w = cx->w;
	const struct sl_wgang *wg = sl_wgang(w);
	if (!a || sl_check_gang(self, cx) || check_volume_pool(self, cx) || !sl_shortfall_is(cx, SL_CAUSE_RESOURCES))
		return;
	bool affinity = sl_blocking_cause(a, a->steady_fit) == SL_CAUSE_AFFINITY;
	size_t np = cx->model->npools, nadmit = 0;
	struct sl_pool_fit *pf = sl_pools_for(cx, &nadmit);
	int64_t room = nadmit && !affinity ? sl_pools_room(pf, np) : 0;
	/* A pod held to its affinity's domains gains nothing from a new node elsewhere: left as it is. */
	if (nadmit && !affinity && (room < 0 || room >= a->replicas - a->steady_placed)) {
		report_scale_up(self, cx, pf, np);
		free(pf);
		return;
	}
	char why[256], more[128] = "";
	if (np)
		snprintf(more, sizeof more,
			 nadmit && !affinity ? ", and the pools that admit its pods add at most %lld more"
					     : ", and no pool adds nodes it may use",
			 (long long)room);
	snprintf(why, sizeof why, "%s%s",
		 affinity ? "its required pod affinity admits no other node with room"
			  : "the nodes the template admits have no room for more",
		 more);
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_RESOURCES, NULL, why);
	sl_note_pools_short(f, cx, pf, np);
	free(pf);
	if (sl_gang_short(w, a)) { /* fewer replicas than minMember: the gang would still run nothing */
		const struct sl_podgroup *g = wg->podgroup;
		const char *holder = sl_gang_holder(g);
		if (g->nworkloads == 1 && wg->gang_need == g->min_member)
			sl_note(f,
				"fix: add room for %lld pods at once where the template admits, or lower the %s's %s "
				"and %s to %lld, or the requests",
				(long long)g->min_member, holder, sl_gang_min_key(g),
				sl_wbatch(w)->is ? "parallelism" : "replicas", (long long)a->steady_placed);
		else
			sl_note(f,
				"fix: add room for %lld pods at once where the template admits, or lower the requests, "
				"or lower the %s's %s%s so that the gang needs at most %lld of them",
				(long long)wg->gang_need, holder, sl_gang_min_key(g),
				wg->task_min ? " and the task's" : "", (long long)a->steady_placed);
		sl_relate_nodes(f, cx->model, a, true);
		return;
	}
	if (sl_in_waves(w)) { /* it runs in waves: no count to lower (waves.c) */
		sl_note_waves_fix(f, w, a->steady_placed, NULL);
		sl_relate_nodes(f, cx->model, a, true);
		return;
	}
	if (affinity)
		sl_note(
		    f,
		    "fix: relax the required pod affinity (a wider topologyKey), lower replicas to %lld, or add room "
		    "where its pods are",
		    (long long)a->steady_placed);
	else
		sl_note(f, "fix: lower replicas to %lld%s, lower the requests, or add nodes the template admits",
			(long long)a->steady_placed,
			sl_surge_only_at(w, a->steady_placed)
			    ? " (and roll with maxSurge: 0, maxUnavailable: 1: at that count no surge pod fits)"
			    : "");
	sl_offer_smallest_changes(f, cx, SL_GOAL_REPLICAS);
	sl_relate_nodes(f, cx->model, a, true);
	/* At exactly what fits, a surge pod never fits: with maxUnavailable resolving to 0 that count
	 * would deadlock every rollout, so the fix replaces one pod at a time. */
	if (a->steady_placed > 0)
		sl_fix_lower_replicas(f, w, a->steady_placed, "what the nodes hold",
				      sl_surge_only_at(w, a->steady_placed), "no room for a surge pod");
}

const struct sl_rule sl_rule_insufficient_capacity = {
    .id = "insufficient-capacity",
    .name = "ReplicasExceedCapacity",
    .summary = "Fewer than `replicas` pods of the workload fit on the nodes at once.",
    .description = "At least one node passes the scheduler's filters for a pod of the template, but the nodes it "
		   "admits, with the pods already running on them, have room for fewer pods than `replicas`. "
		   "The remaining pods stay Pending.",
    .help = "Lower `replicas` to what fits, lower the requests, or add capacity on nodes the template admits "
	    "(labels it selects, taints it tolerates).",
    .level = SL_ERROR,
    .needs_nodes = true,
    .check = check,
};
