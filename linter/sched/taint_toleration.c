/* TaintToleration (pkg/scheduler/framework/plugins/tainttoleration; the matching is
 * component-helpers' v1helper): a NoSchedule or NoExecute taint the pod does not tolerate keeps
 * it off the node. PreferNoSchedule only scores, which is left out. */
#include <string.h>

#include "plugin.h"
#include "status.h"

/* DefaultTolerationSeconds admission (plugin/pkg/admission/defaulttolerationseconds/admission.go)
 * adds these to every pod, with tolerationSeconds 300: each one only when the pod has no
 * toleration of its own whose key is that key or empty and whose effect is NoExecute or empty. */
static const struct sl_toleration default_tolerations[] = {
    {"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", NULL},
    {"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", NULL},
};

/* Whether admission left default toleration d off the pod: the pod's own toleration covers that
 * key and effect, and decides alone (an Equal one with another value tolerates nothing there). */
static bool default_withheld(const struct sl_podspec *p, const struct sl_toleration *d)
{
	for (size_t i = 0; i < p->ntols; i++) {
		const struct sl_toleration *t = &p->tols[i];
		if ((!*t->key || !strcmp(t->key, d->key)) && (!*t->effect || !strcmp(t->effect, d->effect)))
			return true;
	}
	return false;
}

bool sl_pod_tolerates(const struct sl_podspec *p, const struct sl_taint *taint)
{
	for (size_t i = 0; i < p->ntols; i++)
		if (sl_tolerates(&p->tols[i], taint))
			return true;
	for (size_t i = 0; i < sizeof default_tolerations / sizeof *default_tolerations; i++)
		if (sl_tolerates(&default_tolerations[i], taint) && !default_withheld(p, &default_tolerations[i]))
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
	if (!out)
		return false;
	const char *why = "node(s) had untolerated taint";
	if (cy->pool) {
		const char *const parts[] = {"node(s) had untolerated taint {", t->key, ": ", t->value, "}"};
		why = sl_reason_join(cy->pool, parts, 5);
	}
	sl_nodefit_fail(out, SL_PL_TAINT_TOLERATION, why);
	return false;
}
