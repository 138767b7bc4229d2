/* VolumeBinding (pkg/scheduler/framework/plugins/volumebinding): for the pod's bound claims, the
 * PersistentVolume's required node affinity must admit the node (FindPodVolumes'
 * checkBoundClaims, through CheckNodeAffinity, which matches the node's labels alone); its
 * unbound WaitForFirstConsumer claims must each find on the node an available volume that matches
 * (findMatchingVolumes: no two claims of the pod take one volume) or else a provisioner whose
 * allowedTopologies admit the node (checkVolumeProvisions). Both are judged and both reasons given
 * (FindPodVolumes appends them in that order); UnschedulableAndUnresolvable. Its PreFilter — a
 * claim that does not exist, an Immediate claim that is not bound — fails every node alike and is
 * applied by the analysis (analyze.c) before any filter, as the scheduler does. */
#include <stdlib.h>

#include "plugin.h"
#include "status.h"

const struct sl_volset *sl_volset_of(const struct sl_workload *w, const struct sl_volset *chosen)
{
	if (chosen)
		return chosen;
	const struct sl_wstorage *ws = w->storage;
	return ws && ws->nsets == 1 ? &ws->sets[0] : NULL;
}

bool sl_volset_idle(const struct sl_volset *v)
{
	return !v->npvs && !v->nwaits && !v->missing_claim;
}

bool sl_volume_idle(const struct sl_cycle *cy)
{
	return !cy->vol || sl_volset_idle(cy->vol);
}

/* The claims left to bind (those no provisioner makes on the node) and the volume each holds. */
struct matching {
	const struct sl_wait_claim **claims;
	const struct sl_pv **held;
	bool *seen;
	size_t n;
	const struct sl_labels *node;
};

/* Whether claims[k] can hold a volume the node admits, moving others along an alternating path
 * (an augmenting path of bipartite matching). */
static bool augment(struct matching *mt, size_t k)
{
	mt->seen[k] = true;
	const struct sl_wait_claim *wc = mt->claims[k];
	const struct sl_pv *const *c = wc->prebound ? &wc->prebound : wc->cands;
	size_t nc = wc->prebound ? 1 : wc->ncands;
	for (size_t i = 0; i < nc; i++) {
		if (!sl_pv_admits(c[i], mt->node))
			continue;
		size_t owner = mt->n;
		for (size_t j = 0; j < mt->n && owner == mt->n; j++)
			if (mt->held[j] == c[i])
				owner = j;
		if (owner == mt->n || (!mt->seen[owner] && augment(mt, owner))) {
			mt->held[k] = c[i];
			return true;
		}
	}
	return false;
}

enum waits_verdict { WAITS_FIT, WAITS_BIND_CONFLICT, WAITS_NO_SPACE };

/* A claim the class's provisioner makes on the node: its allowedTopologies admit it and, where
 * capacity is tracked, a CSIStorageCapacity large enough selects it. *short_of_space: it would
 * be but for that. */
static bool provisioned_here(const struct sl_wait_claim *wc, const struct sl_labels *labels, bool *short_of_space)
{
	*short_of_space = false;
	if (!wc->provisions || !sl_class_admits(wc->cls, labels))
		return false;
	if (wc->space_checked && !sl_capacity_admits(wc, labels)) {
		*short_of_space = true;
		return false;
	}
	return true;
}

/* Whether the pod's delayed claims can all be bound or provisioned on a node of these labels.
 * The scheduler binds them greedily, smallest request first, each to the smallest volume that
 * fits (ties in the informer's order), and provisions the rest: whenever that succeeds, some
 * assignment of distinct volumes covers the claims no provisioner makes here. When none does
 * (bipartite matching finds none), every order fails: a proof, where the greedy order is not. */
static enum waits_verdict waits_fit(const struct sl_volset *v, const struct sl_labels *labels)
{
	const struct sl_wait_claim *small_c[16];
	const struct sl_pv *small_h[16];
	bool small_s[16];
	bool big = v->nwaits > 16;
	struct matching mt = {big ? sl_xcalloc(v->nwaits, sizeof *mt.claims) : small_c,
			      big ? sl_xcalloc(v->nwaits, sizeof *mt.held) : small_h,
			      big ? sl_xcalloc(v->nwaits, sizeof *mt.seen) : small_s, 0, labels};
	/* A claim short of space only may still take a volume; when the pod fails and every claim
	 * left to bind is such a one, capacity is the scheduler's reason (checkVolumeProvisions). */
	bool all_space = true;
	for (size_t i = 0; i < v->nwaits; i++) {
		bool space;
		if (provisioned_here(&v->waits[i], labels, &space))
			continue;
		all_space &= space;
		mt.claims[mt.n++] = &v->waits[i];
	}
	bool ok = true;
	for (size_t k = 0; k < mt.n; k++)
		mt.held[k] = NULL;
	for (size_t k = 0; k < mt.n && ok; k++) {
		for (size_t j = 0; j < mt.n; j++)
			mt.seen[j] = false;
		ok = augment(&mt, k);
	}
	if (big) {
		free(mt.claims);
		free(mt.held);
		free(mt.seen);
	}
	return ok ? WAITS_FIT : all_space ? WAITS_NO_SPACE : WAITS_BIND_CONFLICT;
}

bool sl_volume_binding_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_volset *v = cy->vol;
	if (!v)
		return true;
	const struct sl_node *n = cy->m->nodes[node];
	/* checkBoundClaims stops at the first conflicting bound claim (one reason for all of them),
	 * or at the first whose volume does not exist. */
	bool bound = true, found = true;
	for (size_t i = 0; i <= v->npvs && bound && found; i++) {
		if (v->missing_claim && i == v->missing_at)
			found = false;
		else if (i < v->npvs)
			bound = sl_pv_admits(v->pvs[i], &n->labels);
	}
	enum waits_verdict wv = v->nwaits ? waits_fit(v, &n->labels) : WAITS_FIT;
	bool unbound = wv != WAITS_BIND_CONFLICT, space = wv != WAITS_NO_SPACE;
	/* FindPodVolumes' order: node conflict, bind conflict, (capacity,) volume not found. */
	if (out && !bound)
		sl_nodefit_fail(out, SL_PL_VOLUME_BINDING, SL_REASON_VOLUME_NODE_CONFLICT);
	if (out && !unbound)
		sl_nodefit_fail(out, SL_PL_VOLUME_BINDING, SL_REASON_VOLUME_BIND_CONFLICT);
	if (out && !space)
		sl_nodefit_fail(out, SL_PL_VOLUME_BINDING, SL_REASON_VOLUME_NO_SPACE);
	if (out && !found)
		sl_nodefit_fail(out, SL_PL_VOLUME_BINDING,
				cy->m->kube.minor >= SL_KUBE_CLAIM_LOST ? SL_REASON_VOLUME_PV_NOT_EXIST
									: "pvc(s) bound to non-existent pv(s)");
	return bound && unbound && space && found;
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

bool sl_volume_admits(const struct sl_cluster *cl, const struct sl_workload *w, bool *ok)
{
	const struct sl_wstorage *ws = w->storage;
	bool judges = false;
	for (size_t k = 0; ws && k < ws->nsets; k++)
		judges |= ws->sets[k].prefilter || ws->sets[k].npvs || ws->sets[k].nwaits;
	if (!judges)
		return false;
	for (size_t i = 0; i < cl->n; i++) {
		bool some = false;
		for (size_t k = 0; ok[i] && k < ws->nsets && !some; k++)
			some = !ws->sets[k].prefilter && sl_volume_verdict(cl, &ws->sets[k], i, NULL);
		ok[i] = some;
	}
	return true;
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
