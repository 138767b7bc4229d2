/* TaintToleration (pkg/scheduler/framework/plugins/tainttoleration; the matching is
 * component-helpers' v1helper): a NoSchedule or NoExecute taint the pod does not tolerate keeps
 * it off the node. PreferNoSchedule only scores, which is left out. */
#include <string.h>

#include "plugin.h"
#include "status.h"

bool sl_tolerates(const struct sl_toleration *t, const struct sl_taint *taint)
{
	if (*t->effect && strcmp(t->effect, taint->effect))
		return false;
	if (*t->key && strcmp(t->key, taint->key))
		return false;
	if (!*t->op || !strcmp(t->op, "Equal"))
		return !strcmp(t->value, taint->value);
	return !strcmp(t->op, "Exists");
}

static const struct sl_toleration default_tolerations[] = {
    /* DefaultTolerationSeconds admission adds these to every pod. */
    {"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", NULL},
    {"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", NULL},
};

bool sl_pod_tolerates(const struct sl_podspec *p, const struct sl_taint *taint)
{
	for (size_t i = 0; i < p->ntols; i++)
		if (sl_tolerates(&p->tols[i], taint))
			return true;
	for (size_t i = 0; i < 2; i++)
		if (sl_tolerates(&default_tolerations[i], taint))
			return true;
	return false;
}

const struct sl_taint *sl_untolerated_taint(const struct sl_podspec *p, const struct sl_node *n)
{
	for (size_t i = 0; i < n->ntaints; i++) {
		const struct sl_taint *t = &n->taints[i];
		if (strcmp(t->effect, "NoSchedule") && strcmp(t->effect, "NoExecute"))
			continue;
		if (!sl_pod_tolerates(p, t))
			return t;
	}
	return NULL;
}

bool sl_taint_toleration_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_taint *t = sl_untolerated_taint(cy->p, cy->m->nodes[node]);
	if (!t)
		return true;
	/* Without a pool only the verdict counts: no reason text is formatted (that would cost a
	 * lock per node class and workload). */
	if (out)
		sl_nodefit_fail(
		    out, SL_PL_TAINT_TOLERATION,
		    cy->pool ? sl_reason_printf(cy->pool, "node(s) had untolerated taint {%s: %s}", t->key, t->value)
			     : "node(s) had untolerated taint");
	return false;
}
