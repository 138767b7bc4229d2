/* unschedulable — no node passes the scheduler's filters for even one pod of the workload.
 *
 * The verdict and its breakdown are the scheduler's own: the filters run in the default
 * profile's order, the first failing one per node is counted, and the message is assembled as
 * FitError does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/model/quantity.h"
#include "rules.h"

/* Point at what eliminated most nodes: the nodeSelector / affinity, or the request. */
static const struct sl_ynode *culprit(const struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	size_t count[SL_PL_LAST + 1] = {0};
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
	for (size_t p = 1; p <= SL_PL_LAST; p++)
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
	if (best == SL_PL_DYNAMIC_RESOURCES) {
		const struct sl_ynode *rc = sl_ymap_key(pod->node, "resourceClaims");
		if (rc)
			return rc;
	}
	if (best == SL_PL_TAINT_TOLERATION || best == SL_PL_NODE_UNSCHEDULABLE) {
		const struct sl_ynode *tk = sl_ymap_key(pod->node, "tolerations");
		if (tk)
			return tk;
	}
	/* The pod spec's first key: the template every filter judged. */
	return pod->node && pod->node->kind == SL_YMAP && pod->node->n ? pod->node->v[0] : NULL;
}

/* Whether VolumeBinding turned nodes away for the provisioner's capacity alone. */
static bool short_of_space(const struct sl_analysis *a)
{
	for (size_t i = 0; i < a->nnodes; i++)
		for (size_t k = 0; !a->fit[i].excluded && k < a->fit[i].nreasons; k++)
			if (!strcmp(a->fit[i].reasons[k], SL_REASON_VOLUME_NO_SPACE))
				return true;
	return false;
}

/* Whether DynamicResources turned nodes away because a shared claim is allocated elsewhere. */
static bool dra_unavailable(const struct sl_analysis *a)
{
	for (size_t i = 0; i < a->nnodes; i++)
		if (!a->fit[i].excluded && a->fit[i].plugin == SL_PL_DYNAMIC_RESOURCES && a->fit[i].nreasons &&
		    strstr(a->fit[i].reasons[0], "not available on the node"))
			return true;
	return false;
}

/* One fix per filter that rejected nodes, the filter that rejected most first: on a node that a
 * taint keeps out while the others fail the selector, either fix may be the right one. */
static void note_fixes(struct sl_finding *f, const struct sl_analysis *a)
{
	static const char *const fix[SL_PL_LAST + 1] = {
	    [SL_PL_NODE_UNSCHEDULABLE] = "uncordon the nodes",
	    [SL_PL_NODE_NAME] = "drop or correct spec.nodeName",
	    [SL_PL_TAINT_TOLERATION] = "tolerate the taints, or add nodes without them",
	    [SL_PL_NODE_AFFINITY] = "relax the nodeSelector / node affinity, or add nodes that satisfy it",
	    [SL_PL_NODE_PORTS] = "free the host port, or drop hostPort and expose the pods through a Service",
	    [SL_PL_NODE_RESOURCES_FIT] = "lower the requests, or free or add capacity on nodes the template admits",
	    [SL_PL_POD_TOPOLOGY_SPREAD] = "give the nodes the topology key, or relax the spread constraint",
	    [SL_PL_INTER_POD_AFFINITY] = "relax the required pod affinity / anti-affinity, or run the pods it needs "
					 "first",
	    [SL_PL_VOLUME_BINDING] =
		"place the pods where their volumes are (the nodes the PersistentVolume's "
		"nodeAffinity admits), or give them claims of volumes that reach the nodes they select",
	    [SL_PL_VOLUME_ZONE] = "select nodes in the volume's zone, or give the pods claims of volumes in the zones "
				  "they select",
	    [SL_PL_NODE_VOLUME_LIMITS] = "free volumes of the CSI driver on the nodes (its CSINode allocatable.count "
					 "caps them), or add nodes",
	    [SL_PL_DYNAMIC_RESOURCES] =
		"free devices the claims' classes and selectors match on nodes the pods may use "
		"(a ResourceSlice's nodeName, nodeSelector or allNodes), or relax the selectors",
	};
	size_t count[SL_PL_LAST + 1] = {0};
	for (size_t i = 0; i < a->nnodes; i++)
		if (!a->fit[i].excluded)
			count[a->fit[i].plugin]++;
	struct sl_buf b = SL_BUF_INIT;
	for (;;) {
		size_t best = 0;
		for (size_t p = 1; p <= SL_PL_LAST; p++)
			if (count[p] > count[best])
				best = p;
		if (!best)
			break;
		const char *text = fix[best];
		if (best == SL_PL_VOLUME_BINDING && a->vol && a->vol->prefilter)
			text =
			    a->vol->prefilter_why == SL_PF_LOST
				? "give the pods a new claim (a Lost claim's volume is gone for good; restoring a "
				  "PersistentVolume of that name with the claim in its claimRef binds it again)"
			    : a->vol->prefilter_why == SL_PF_DELETING
				? "give the pods another claim: one being deleted goes once no pod uses it"
			    : a->vol->prefilter_why == SL_PF_NOT_FOUND
				? "create the PersistentVolumeClaim the pods name"
				: "create a PersistentVolume (or a StorageClass whose provisioner makes one) that can "
				  "bind the claim";
		else if (best == SL_PL_DYNAMIC_RESOURCES && a->nnodes && a->fit[0].prefilter)
			text = "create the DeviceClass (or claim) the pods' claims name, or name one that exists";
		else if (best == SL_PL_DYNAMIC_RESOURCES && dra_unavailable(a))
			text = "run the pods where the shared claim's devices are (its allocation's nodeSelector), or "
			       "give "
			       "each pod a claim of its own (resourceClaimTemplateName)";
		else if (best == SL_PL_VOLUME_BINDING && a->vol && a->vol->missing_claim && !a->vol->nwaits &&
			 !a->vol->npvs)
			text = "restore the PersistentVolume the claim is bound to, or give the pods a claim whose "
			       "volume exists";
		else if (best == SL_PL_VOLUME_BINDING && a->vol && a->vol->nwaits && short_of_space(a))
			text = "select nodes where a CSIStorageCapacity of the claim's class allows a volume that "
			       "large, ask for a smaller volume, or create PersistentVolumes that match the claims on "
			       "the nodes the pods select";
		else if (best == SL_PL_VOLUME_BINDING && a->vol && a->vol->nwaits)
			text = a->vol->npvs
				   ? "place the pods where their volumes are (the nodes the PersistentVolumes' "
				     "nodeAffinity and the StorageClass's allowedTopologies admit), or give them "
				     "claims of volumes that reach the nodes they select"
				   : "select nodes the StorageClass's allowedTopologies (or a matching "
				     "PersistentVolume's nodeAffinity) admit, or create PersistentVolumes that "
				     "match the claims on the nodes the pods select";
		sl_buf_printf(&b, "%s%s (%zu node%s)", b.len ? "; " : "", text, count[best],
			      count[best] == 1 ? "" : "s");
		count[best] = 0;
	}
	sl_note(f, "fix: %s", b.len ? b.s : "add nodes");
	sl_buf_free(&b);
}

/* The pod's requests, as "cpu 3, nvidia.com/gpu 1". */
static void requests(const struct sl_podspec *p, char *out, size_t n)
{
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < p->request.n; i++) {
		char amt[64];
		if (p->request.v[i].amount <= 0)
			continue;
		sl_format_amount(p->request.v[i].name, p->request.v[i].amount, amt, sizeof amt);
		sl_buf_printf(&b, "%s%s %s", b.len ? ", " : "", p->request.v[i].name, amt);
	}
	snprintf(out, n, "%s", b.len ? b.s : "none");
	sl_buf_free(&b);
}

/* How a pool that admits the pod would take the workload's pods, and what that rests on. */
static void note_admitting(struct sl_finding *f, const struct sl_check *cx, const struct sl_pool_fit *pf)
{
	const struct sl_pool *p = pf->pool;
	int64_t reps = cx->a->replicas;
	if (!pf->assumed && pf->per_node > 0) {
		int64_t need = (reps + pf->per_node - 1) / pf->per_node;
		char from[300] = "its template's allocatable";
		if (pf->sample)
			snprintf(from, sizeof from, "node %.200s of the pool", pf->sample->name);
		char left[96] = "";
		if (pf->nodes_left >= 0)
			snprintf(left, sizeof left, "; its limits leave room for %lld new node%s of that size",
				 (long long)pf->nodes_left, pf->nodes_left == 1 ? "" : "s");
		sl_note(f,
			"%s %s: a new node holds %lld pod%s of the template (as %s does), so %lld pod%s need %lld new "
			"node%s%s",
			sl_pool_kind(p), p->obj.name, (long long)pf->per_node, pf->per_node == 1 ? "" : "s", from,
			(long long)reps, reps == 1 ? "" : "s", (long long)need, need == 1 ? "" : "s", left);
	} else {
		char req[512];
		requests(&cx->w->pod, req, sizeof req);
		sl_note(f,
			"%s %s: what a new node holds is not known (%s): this rests on the pool offering an instance "
			"type with room for the pod's requests (%s)%s",
			sl_pool_kind(p), p->obj.name,
			p->kind == SL_POOL_GROUP ? "the template gives no allocatable"
			: pf->sample ? "a larger instance type than its nodes in the inventory may be launched"
				     : "no node of the pool is in the inventory",
			req, p->limits.n ? ", within its limits" : "");
	}
	sl_add_related(f, &p->obj.name_node->at, "%s %s would take the pod", sl_pool_kind(p), p->obj.name);
}

/* No node takes a pod but a pool does: the autoscaler adds nodes, so this is a note, naming the
 * pools in the order Karpenter tries them (by weight). */
static void report_scale_up(const struct sl_rule *self, struct sl_check *cx, const char *ref,
			    const struct sl_pool_fit *pf, size_t n)
{
	struct sl_buf names = SL_BUF_INIT;
	const struct sl_pool_fit **order = sl_xcalloc(n, sizeof *order);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (pf[i].admits) {
			size_t j = k++;
			for (; j > 0 && order[j - 1]->pool->weight < pf[i].pool->weight; j--)
				order[j] = order[j - 1];
			order[j] = &pf[i];
		}
	for (size_t i = 0; i < k; i++)
		sl_buf_printf(&names, "%s%s %s", i ? (i + 1 == k ? " or " : ", ") : "", sl_pool_kind(order[i]->pool),
			      order[i]->pool->obj.name);
	struct sl_finding *f =
	    sl_rule_report(self, cx, culprit(cx),
			   "no node of the inventory can run a pod of %s; it would be placed on a new "
			   "node of %s",
			   ref, names.s);
	f->level = SL_NOTE;
	sl_note(f, "as the nodes are: %s", sl_fit_error(cx->a));
	for (size_t i = 0; i < k; i++)
		note_admitting(f, cx, order[i]);
	free(order);
	sl_buf_free(&names);
}

/* Each pool's reason for refusing the pod, at the pool. */
static void note_refusing(struct sl_finding *f, const struct sl_pool_fit *pf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct sl_pool *p = pf[i].pool;
		sl_note(f, "%s %s: %s", sl_pool_kind(p), p->obj.name, pf[i].text);
		sl_add_related(f, &p->obj.name_node->at, "%s %s: %s", sl_pool_kind(p), p->obj.name, pf[i].text);
	}
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	if (!strcmp(cx->w->obj.kind, "DaemonSet")) {
		sl_unschedulable_daemonset(self, cx);
		return;
	}
	sl_report_storage_unknown(self, cx);
	sl_check_dra_refs(self, cx);
	/* Replicas that already run (found among the running pods) need no node; when all of them
	 * do, a pod that fits nowhere is the rollout's problem (rollout-deadlock), not this rule's. */
	if (!a || a->nfeasible > 0 || a->replicas == 0 || a->steady_placed > 0)
		return;
	char ref[512];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	size_t np = cx->model->npools;
	size_t nadmit;
	const struct sl_pool_fit *pf = sl_analysis_pools(a, cx->model, &nadmit);
	if (nadmit) {
		report_scale_up(self, cx, ref, pf, np);
		return;
	}
	char scale[1200] = "";
	if (np) {
		char why[1024];
		sl_pools_scaleup_reasons(pf, np, why, sizeof why);
		snprintf(scale, sizeof scale, " pod didn't trigger scale-up: %s.", why);
	}
	const struct sl_preempt_summary *pre;
	const char *post = sl_postfilter(a, SL_STOP_FIT, &pre);
	/* A StatefulSet's later ordinal whose claims no node takes: the pods before it run. */
	char what[700];
	if (a->vol && a->vol->ordinal > 0)
		snprintf(what, sizeof what, "pod %s-%lld of %s", cx->w->obj.name, (long long)a->vol->ordinal, ref);
	else
		snprintf(what, sizeof what, "a pod of %s", ref);
	struct sl_finding *f = sl_rule_report(self, cx, culprit(cx), "no node can run %s: %s%s%s%s", what,
					      sl_fit_error(a), post ? " " : "", post ? post : "", scale);
	if (a->nexcluded)
		sl_note(f,
			"%zu node%s left out before filtering: the required node affinity names other nodes in "
			"matchFields metadata.name",
			a->nexcluded, a->nexcluded == 1 ? " is" : "s are");
	sl_note_slots(f, cx->model, a);
	sl_note_request_defaults(f, cx->w);
	sl_note_volumes(f, cx);
	sl_note_dra(f, cx);
	sl_note_preemption(f, a, pre);
	note_refusing(f, pf, np);
	note_fixes(f, a);
	sl_offer_smallest_changes(f, cx, SL_GOAL_ONE_POD);
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
