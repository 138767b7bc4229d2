/* insufficient-capacity — fewer than `replicas` pods of the workload fit at once.
 *
 * Some node takes one pod (otherwise it is `unschedulable`), but the filters leave room for fewer
 * pods than the workload asks for, so the rest stay Pending after every scale-up and every
 * rescheduling. Resources alone: the count is each node's capacity and holds for every placement.
 * Shortfalls caused by spread, anti-affinity or host ports have rules of their own. */
#include <stdio.h>

#include "rules.h"

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	const struct sl_workload *w = cx->w;
	if (!a)
		return;
	bool affinity = sl_blocking_cause(a, a->steady_fit) == SL_CAUSE_AFFINITY;
	const char *why = affinity ? "its required pod affinity admits no other node with room"
				   : "the nodes the template admits have no room for more";
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_RESOURCES, NULL, why);
	if (!f)
		return;
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
