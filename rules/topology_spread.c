/* topology-spread-unsatisfiable — DoNotSchedule topology spread cannot place every replica.
 *
 * PodTopologySpread admits a pod into a domain only while that domain's matching pods, plus the
 * pod, exceed the least-populated eligible domain by at most maxSkew. An eligible domain that
 * cannot take pods (full, or its nodes rejected by other filters) holds the minimum down, so the
 * other domains stop at minimum + maxSkew and the remaining replicas stay Pending. */
#include <stdio.h>
#include <string.h>

#include "../linter/buf.h"
#include "rules.h"

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_podspec *p = &cx->w->pod;
	const struct sl_ynode *at = NULL;
	struct sl_buf b = SL_BUF_INIT;
	for (size_t k = 0; k < p->nspread; k++)
		if (p->spread[k].hard) {
			if (!at)
				at = p->spread[k].node;
			sl_buf_printf(&b, "%s%s (maxSkew %lld)", b.len ? ", " : "", p->spread[k].topology_key,
				      (long long)p->spread[k].max_skew);
		}
	char why[512];
	snprintf(why, sizeof why, "DoNotSchedule spread over %s rejects the other nodes", b.s ? b.s : "?");
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_SPREAD, at, why);
	sl_buf_free(&b);
	if (!f)
		return;
	sl_note(f, "a domain that can take no more pods (full, or tainted and not tolerated while nodeTaintsPolicy is "
		   "Ignore) still counts as eligible and holds the minimum down");
	sl_note(f, "fix: raise maxSkew, use whenUnsatisfiable: ScheduleAnyway, set nodeTaintsPolicy: Honor, or add "
		   "capacity in the least-populated domain");
	sl_relate_nodes(f, cx->model, cx->a, true);
}

const struct sl_rule sl_rule_topology_spread_unsatisfiable = {
    .id = "topology-spread-unsatisfiable",
    .name = "TopologySpreadCannotPlaceReplicas",
    .summary = "DoNotSchedule topology spread cannot place `replicas` pods within maxSkew.",
    .description = "Placed one after another as the scheduler places them, the pods of the workload stop short of "
		   "`replicas` because every node with room would raise its domain more than maxSkew above the "
		   "least-populated eligible domain.",
    .help = "Raise `maxSkew`, switch to `whenUnsatisfiable: ScheduleAnyway`, make ineligible domains drop out "
	    "(`nodeTaintsPolicy: Honor`, node affinity with `nodeAffinityPolicy: Honor`), or add capacity in the "
	    "domain that holds the minimum.",
    .level = SL_ERROR,
    .needs_nodes = true,
    .check = check,
};
