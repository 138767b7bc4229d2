/* topology-spread-unsatisfiable — DoNotSchedule topology spread cannot place every replica.
 *
 * PodTopologySpread admits a pod into a domain only while that domain's matching pods, plus the
 * pod, exceed the least-populated eligible domain by at most maxSkew. An eligible domain that
 * cannot take pods (full, or its nodes rejected by other filters) holds the minimum down, so the
 * other domains stop at minimum + maxSkew and the remaining replicas stay Pending. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "rules.h"

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_podspec *p = &cx->w->pod;
	const struct sl_ynode *at = NULL;
	if (!sl_shortfall_is(cx, SL_CAUSE_SPREAD))
		return; /* asked of every workload: nothing is formatted for one that is not reported */
	struct sl_buf b = SL_BUF_INIT;
	for (size_t k = 0; k < p->nspread; k++)
		if (p->spread[k].hard) {
			if (!at)
				at = p->spread[k].node;
			sl_buf_printf(&b, "%s%s (maxSkew %lld)", b.len ? ", " : "", p->spread[k].topology_key,
				      (long long)p->spread[k].max_skew);
		}
	char why[512];
	snprintf(why, sizeof why, "every node with room would break the DoNotSchedule spread over %s", b.s ? b.s : "?");
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_SPREAD, at, why);
	sl_buf_free(&b);
	if (!f)
		return;
	/* Say what holds the minimum down, from the nodes of the constraint's domains that take no
	 * pod for another reason. */
	const struct sl_analysis *a = cx->a;
	bool tainted = false, unaffine = false, full = false;
	const struct sl_spread *c = NULL;
	for (size_t k = 0; k < p->nspread && !c; k++)
		if (p->spread[k].hard)
			c = &p->spread[k];
	for (size_t i = 0; c && i < a->nnodes; i++) {
		if (!sl_labels_get(&cx->model->nodes[i]->labels, c->topology_key))
			continue;
		tainted |= a->steady_fit[i].plugin == SL_PL_TAINT_TOLERATION && !c->honor_taints;
		unaffine |= a->steady_fit[i].plugin == SL_PL_NODE_AFFINITY && !c->honor_affinity;
		full |= a->steady_fit[i].plugin == SL_PL_NODE_RESOURCES_FIT;
	}
	if (tainted)
		sl_note(f,
			"a domain whose nodes carry a taint the pod does not tolerate still counts (nodeTaintsPolicy "
			"Ignore, the default) and holds the global minimum at 0");
	if (unaffine)
		sl_note(f,
			"a domain whose nodes the pod's node affinity rejects still counts (nodeAffinityPolicy Ignore) "
			"and holds the global minimum down");
	if (full)
		sl_note(f, "a domain whose nodes have no room left still counts: its pods set the global minimum the "
			   "others may exceed by maxSkew only");
	if (c && c->min_domains > 1)
		sl_note(f, "minDomains %lld: with fewer eligible domains the global minimum is taken as 0",
			(long long)c->min_domains);
	sl_note(f,
		"fix: %s%sraise maxSkew, use whenUnsatisfiable: ScheduleAnyway, or add capacity in the domain that "
		"holds the minimum",
		tainted    ? "set nodeTaintsPolicy: Honor, "
		: unaffine ? "set nodeAffinityPolicy: Honor, "
			   : "",
		c && c->min_domains > 1 ? "lower minDomains, " : "");
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
