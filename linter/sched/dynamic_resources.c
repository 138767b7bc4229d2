/* DynamicResources (pkg/scheduler/framework/plugins/dynamicresources), the last filter of the
 * default profile from 1.34, where DRA is on by default, and on 1.32-1.33 with the gate (where DRA
 * is off the model has dropped the pods' claims, and it has nothing to judge). A pod's
 * ResourceClaims must exist and their classes too (PreFilter: else the pod is unschedulable on
 * every node, its message printed once); a claim allocated already must be available on the node
 * ("resourceclaim not available on the node"); the others must be allocatable from the devices
 * the node reaches ("cannot allocate all claims"). Each pod of a workload gets its own claim from
 * a template; the devices a placed pod was given are taken for the pods after it, and a shared
 * claim allocated for the first pod holds the others to the nodes its devices reach.
 *
 * Every rejection is UnschedulableAndUnresolvable (1.32 to 1.35), so DefaultPreemption skips the
 * nodes it rejects ("Preemption is not helpful for scheduling"); the plugin has no
 * PreFilterExtensions either, so a dry run would still see the victims' devices in use
 * (sl_filter_plugin.preemptible false). The allocator itself is dra_alloc.c. */
#include <stdlib.h>
#include <string.h>

#include "dra.h"
#include "plugin.h"
#include "status.h"

#define REASON_CANNOT_ALLOCATE "cannot allocate all claims"
#define REASON_NOT_AVAILABLE "resourceclaim not available on the node"

struct sl_dra_state {
	struct sl_dra_need nd;
	const char *prefail; /* interned in the cluster's reasons */
};

void sl_dynamic_resources_prefilter(struct sl_cycle *cy)
{
	/* Again at each phase: the pods placed before are then added back one by one (add_pod). */
	sl_dynamic_resources_release(cy);
	if (!cy->cl->dra || !cy->p->nclaims)
		return;
	struct sl_dra_state *st = sl_xcalloc(1, sizeof *st);
	if (!sl_dra_need_init(&st->nd, cy->cl->dra, cy->m, cy->p) || !sl_dra_need_judged(&st->nd)) {
		sl_dra_need_free(&st->nd);
		free(st);
		return;
	}
	if (st->nd.prefail)
		st->prefail = sl_reason_join(&cy->cl->reasons, &st->nd.prefail, 1);
	cy->dra = st;
}

bool sl_dynamic_resources_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	struct sl_dra_state *st = cy->dra;
	if (!st)
		return true;
	const char *why = st->prefail;
	bool unavailable = false;
	if (!why && !sl_dra_allocate(&st->nd, cy->m, node, false, &unavailable))
		why = REASON_CANNOT_ALLOCATE;
	else if (!why && unavailable)
		why = REASON_NOT_AVAILABLE;
	if (!why)
		return true;
	if (out) {
		sl_nodefit_fail(out, SL_PL_DYNAMIC_RESOURCES, why);
		out->prefilter = st->prefail != NULL;
	}
	return false;
}

void sl_dynamic_resources_add_pod(struct sl_cycle *cy, size_t node, int gen)
{
	(void)gen;
	bool unavailable;
	if (cy->dra && !cy->dra->prefail)
		sl_dra_allocate(&cy->dra->nd, cy->m, node, true, &unavailable);
}

void sl_dynamic_resources_release(struct sl_cycle *cy)
{
	if (!cy->dra)
		return;
	sl_dra_need_free(&cy->dra->nd);
	free(cy->dra);
	cy->dra = NULL;
}

bool sl_dynamic_resources_idle(const struct sl_cycle *cy)
{
	return !cy->dra;
}

bool sl_dra_judged(const struct sl_cluster *cl, const struct sl_podspec *p)
{
	return cl->dra && p->nclaims;
}

bool sl_dra_prefilter_fails(struct sl_cluster *cl, const struct sl_podspec *p, size_t n, struct sl_nodefit *fit,
			    bool *static_ok)
{
	struct sl_dra_need nd;
	if (!sl_dra_need_init(&nd, cl->dra, cl->m, p))
		return false;
	bool fails = nd.prefail != NULL && sl_dra_need_judged(&nd);
	const char *why = fails ? sl_reason_join(&cl->reasons, &nd.prefail, 1) : NULL;
	sl_dra_need_free(&nd);
	for (size_t i = 0; fails && i < n; i++) {
		static_ok[i] = false;
		if (!fit)
			continue;
		sl_nodefit_clear(&fit[i]);
		sl_nodefit_fail(&fit[i], SL_PL_DYNAMIC_RESOURCES, why);
		fit[i].prefilter = true;
	}
	return fails;
}

void sl_dra_charge(struct sl_cluster *c, size_t node, const struct sl_podspec *p, int64_t count)
{
	struct sl_dra_need nd;
	if (!sl_dra_need_init(&nd, c->dra, c->m, p))
		return;
	if (!sl_dra_need_judged(&nd)) {
		sl_dra_need_free(&nd);
		return;
	}
	bool unavailable;
	for (int64_t k = 0; k < count && !nd.prefail; k++)
		if (!sl_dra_allocate(&nd, c->m, node, true, &unavailable))
			break;
	for (size_t d = 0; d < c->dra->ndev; d++)
		c->dra->taken[d] |= nd.taken[d];
	sl_dra_need_free(&nd);
}
