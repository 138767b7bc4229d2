/* dra_refs.c — a template or shared ResourceClaim that a workload's pods name and the inputs do
 * not hold: it may be in the cluster, so a warning, and the pods' claims are not checked. Beside
 * dra.c (the notes), which the shared proof notes of common.c call. */
#include <stdio.h>

#include "rules.h"

/* A selector outside the CEL subset, said once at the selector (several workloads may use its
 * class) even when no finding follows: the claims were judged with it counted as matching. */
static void note_unevaluated(struct sl_check *cx, const struct sl_dra_view *v)
{
	const struct sl_span *at = &v->unknown->node->at;
	for (size_t i = 0; i < cx->out->n; i++)
		if (!cx->out->v[i].rule && cx->out->v[i].at.src == at->src && cx->out->v[i].at.off == at->off)
			return;
	sl_input_note(cx->out, at,
		      "this selector was not evaluated (%s): every device it may match counts as matching, so a "
		      "finding on devices never rests on it",
		      v->unknown_why);
}

void sl_check_dra_refs(const struct sl_rule *self, struct sl_check *cx)
{
	if (!cx->cluster || !cx->w->pod.nclaims)
		return;
	struct sl_dra_view v;
	sl_dra_view(cx->cluster, &cx->w->pod, &v);
	if (v.unknown && v.unknown->node)
		note_unevaluated(cx, &v);
	const struct sl_pod_claim *pc = v.missing;
	if (pc) {
		char ref[512];
		sl_object_ref(&cx->w->obj, ref, sizeof ref);
		const struct sl_ynode *at = pc->ref_node ? pc->ref_node : pc->node;
		struct sl_finding *f =
		    v.missing_template
			? sl_rule_report(
			      self, cx, at,
			      "ResourceClaimTemplate %s, which the pods of %s name, is not among the inputs: "
			      "if the cluster does not hold it either, the resourceclaim controller never "
			      "creates their claims and they stay Pending",
			      pc->template_name, ref)
			: sl_rule_report(self, cx, at,
					 "ResourceClaim %s, which the pods of %s name, is not among the inputs: if the "
					 "cluster does not hold it either, they stay Pending",
					 pc->claim_name, ref);
		if (f->level == SL_ERROR)
			f->level = SL_WARNING; /* it may be in the cluster: the inputs do not say */
		sl_note(f, "their device claims were not checked; the scheduler keeps such a pod out of its queue "
			   "(PreEnqueue), so no FailedScheduling event says why");
		sl_note(f, "add it to the manifests, or the cluster's with kubectl get "
			   "resourceclaimtemplates,resourceclaims -A -o yaml");
	}
	sl_dra_view_free(&v);
}
