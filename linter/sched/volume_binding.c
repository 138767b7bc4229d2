/* VolumeBinding (pkg/scheduler/framework/plugins/volumebinding): for the pod's bound claims, the
 * PersistentVolume's required node affinity must admit the node (FindPodVolumes'
 * checkBoundClaims, through CheckNodeAffinity, which matches the node's labels alone). Its
 * PreFilter — a claim that does not exist, an Immediate claim that is not bound — fails every node
 * alike and is applied by the analysis (analyze.c) before any filter, as the scheduler does.
 * Unbound WaitForFirstConsumer claims (matching a volume or a provisioner's topologies on the
 * node) are not modelled: they pass. */
#include "plugin.h"
#include "status.h"

/* ErrReasonNodeConflict. */
#define SL_REASON_VOLUME_NODE_CONFLICT "node(s) had volume node affinity conflict"

const struct sl_volset *sl_volset_of(const struct sl_workload *w, const struct sl_volset *chosen)
{
	if (chosen)
		return chosen;
	const struct sl_wstorage *ws = w->storage;
	return ws && ws->nsets == 1 ? &ws->sets[0] : NULL;
}

bool sl_volume_idle(const struct sl_cycle *cy)
{
	return !cy->vol || !cy->vol->npvs;
}

bool sl_volume_binding_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_volset *v = cy->vol;
	if (!v)
		return true;
	const struct sl_node *n = cy->m->nodes[node];
	for (size_t i = 0; i < v->npvs; i++)
		if (!sl_pv_admits(v->pvs[i], &n->labels)) {
			/* FindPodVolumes stops at the first conflicting bound claim: one reason. */
			if (out)
				sl_nodefit_fail(out, SL_PL_VOLUME_BINDING, SL_REASON_VOLUME_NODE_CONFLICT);
			return false;
		}
	return true;
}

bool sl_volume_verdict(const struct sl_cluster *cl, const struct sl_volset *v, size_t node, struct sl_nodefit *out)
{
	/* The filters read the node and v alone: the cycle is only how they are called. */
	struct sl_cycle cy = {.m = cl->m, .vol = v, .n = cl->n};
	return sl_volume_binding_filter(&cy, node, out) && sl_volume_zone_filter(&cy, node, out);
}

const struct sl_volset *sl_volumes_choose(struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
					  const bool *static_ok)
{
	const struct sl_wstorage *ws = w->storage;
	if (!ws || ws->nsets == 1)
		return sl_volset_of(w, NULL);
	/* Ordinals whose claims differ: the first no node takes is the pod left Pending (the
	 * controller makes them in order). When each fits somewhere, how their pinning caps the pods
	 * at once is not counted: nothing is judged, which can only find less. */
	for (size_t k = 0; k < ws->nsets; k++) {
		const struct sl_volset *v = &ws->sets[k];
		if (v->prefilter)
			return v;
		bool some = false;
		for (size_t i = 0; i < cl->n && !some; i++)
			some = !excluded[i] && static_ok[i] && sl_volume_verdict(cl, v, i, NULL);
		if (!some)
			return v;
	}
	return NULL;
}

void sl_volume_prefilter_fails(const struct sl_volset *v, size_t n, struct sl_nodefit *fit, bool *static_ok)
{
	for (size_t i = 0; i < n; i++) {
		static_ok[i] = false;
		if (!fit)
			continue;
		sl_nodefit_clear(&fit[i]);
		sl_nodefit_fail(&fit[i], SL_PL_VOLUME_BINDING, v->prefilter);
		fit[i].prefilter = true;
	}
}
