/* unschedulable — no node passes the scheduler's filters for even one pod of the workload.
 *
 * The verdict and its breakdown are the scheduler's own: the filters run in the default
 * profile's order, the first failing one per node is counted, and the message is assembled as
 * FitError does. */
#include <stdio.h>
#include <string.h>

#include "rules.h"

/* Point at what eliminated most nodes: the nodeSelector / affinity, or the request. */
static const struct sl_ynode *culprit(const struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	size_t count[SL_PL_INTER_POD_AFFINITY + 1] = {0};
	const char *res = NULL;
	for (size_t i = 0; i < a->nnodes; i++) {
		if (a->fit[i].excluded) {
			count[SL_PL_NODE_AFFINITY]++;
			continue;
		}
		count[a->fit[i].plugin]++;
		if (a->fit[i].plugin == SL_PL_NODE_RESOURCES_FIT && a->fit[i].nreasons &&
		    !strncmp(a->fit[i].reasons[0], "Insufficient ", 13))
			res = a->fit[i].reasons[0] + 13;
	}
	size_t best = 1;
	for (size_t p = 1; p <= SL_PL_INTER_POD_AFFINITY; p++)
		if (count[p] > count[best])
			best = p;
	const struct sl_podspec *pod = &cx->w->pod;
	if (best == SL_PL_NODE_RESOURCES_FIT && res) {
		const struct sl_res *r = sl_res_find(&pod->request, res);
		if (r && r->node)
			return r->node;
	}
	if (best == SL_PL_NODE_AFFINITY) {
		if (pod->node_selector_node && (!pod->affinity_node || pod->node_selector.n))
			return pod->node_selector_node;
		if (pod->affinity_node)
			return pod->affinity_node;
	}
	if (best == SL_PL_TAINT_TOLERATION || best == SL_PL_NODE_UNSCHEDULABLE) {
		const struct sl_ynode *tk = sl_ymap_key(pod->node, "tolerations");
		if (tk)
			return tk;
	}
	/* The pod spec's first key: the template every filter judged. */
	return pod->node && pod->node->kind == SL_YMAP && pod->node->n ? pod->node->v[0] : NULL;
}

/* The fix that fits what rejected most nodes. */
static const char *fix_for(const struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	size_t count[SL_PL_INTER_POD_AFFINITY + 1] = {0};
	for (size_t i = 0; i < a->nnodes; i++)
		if (!a->fit[i].excluded)
			count[a->fit[i].plugin]++;
	size_t best = 1;
	for (size_t p = 1; p <= SL_PL_INTER_POD_AFFINITY; p++)
		if (count[p] > count[best])
			best = p;
	switch (best) {
	case SL_PL_NODE_PORTS:
		return "free the host port on the nodes, or drop hostPort and expose the pods through a Service";
	case SL_PL_NODE_RESOURCES_FIT:
		return "lower the requests, or add nodes (or free capacity) the template admits";
	case SL_PL_POD_TOPOLOGY_SPREAD:
		return "give every node the topology key, or relax the spread constraint (maxSkew, ScheduleAnyway)";
	case SL_PL_INTER_POD_AFFINITY:
		return "relax the required pod affinity / anti-affinity, or run the pods it needs first";
	case SL_PL_TAINT_TOLERATION:
	case SL_PL_NODE_UNSCHEDULABLE:
		return "tolerate the taints (or uncordon the nodes), or add nodes without them";
	default:
		return "relax the nodeSelector / node affinity, or add nodes that satisfy them";
	}
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	/* Replicas that already run (found among the running pods) need no node; when all of them
	 * do, a pod that fits nowhere is the rollout's problem (rollout-deadlock), not this rule's. */
	if (!a || a->nfeasible > 0 || a->replicas == 0 || a->steady_placed > 0 || !strcmp(cx->w->obj.kind, "DaemonSet"))
		return;
	char ref[512];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	struct sl_finding *f =
	    sl_rule_report(self, cx, culprit(cx), "no node can run a pod of %s: %s", ref, a->fit_error);
	if (a->nexcluded)
		sl_note(f,
			"%zu node%s left out before filtering: the required node affinity names other nodes in "
			"matchFields metadata.name",
			a->nexcluded, a->nexcluded == 1 ? " is" : "s are");
	sl_note_slots(f, cx->model, a);
	sl_note_preemption(f, cx->model, a, a->fit);
	sl_note(f, "fix: %s", fix_for(cx));
	sl_relate_nodes(f, cx->model, a, false);
}

const struct sl_rule sl_rule_unschedulable = {
    .id = "unschedulable",
    .name = "NoNodeFitsPod",
    .summary = "No node passes the scheduler's filters for a single pod of the workload.",
    .description = "Every node in the inventory fails at least one Filter plugin of the default scheduler "
		   "profile (unschedulable, node name, taints, node affinity / nodeSelector, resources) for one "
		   "pod of the template, so every pod stays Pending.",
    .help = "Read the breakdown: relax `nodeSelector` / required node affinity, add tolerations for the "
	    "taints, lower the requests, or add nodes that satisfy them.",
    .level = SL_ERROR,
    .needs_nodes = true,
    .check = check,
};
