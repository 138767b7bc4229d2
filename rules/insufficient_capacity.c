/* insufficient-capacity — fewer than `replicas` pods of the workload fit at once.
 *
 * Some node takes one pod (otherwise it is `unschedulable`), but the filters leave room for fewer
 * pods than the workload asks for, so the rest stay Pending after every scale-up and every
 * rescheduling. Resources alone: the count is each node's capacity and holds for every placement.
 * Shortfalls caused by spread, anti-affinity or host ports have rules of their own. */
#include <stdio.h>

#include "../linter/fix.h"
#include "rules.h"

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	const struct sl_workload *w = cx->w;
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_RESOURCES, NULL,
						   "the nodes the template admits have no room for more");
	if (!f)
		return;
	sl_note(f, "fix: lower replicas to %lld, lower the requests, or add nodes the template admits",
		(long long)a->steady_placed);
	sl_relate_nodes(f, cx->model, a, true);
	if (w->replicas_node && a->steady_placed > 0) {
		char v[32], desc[96];
		snprintf(v, sizeof v, "%lld", (long long)a->steady_placed);
		snprintf(desc, sizeof desc, "Lower replicas to %s, what the nodes hold", v);
		sl_fix_replace(sl_fix_new(f, desc), w->obj.src, w->replicas_node, v);
	}
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
