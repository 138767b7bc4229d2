/* priority.c — PriorityClasses and the resolution of pods' priorities (see priority.h). */
#include "priority.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model.h"
#include "model_read.h"

int sl_priority_class_read(struct sl_read *c, const struct sl_object *o, struct sl_priority_class **out)
{
	*out = NULL;
	struct sl_priority_class pc = {.obj = *o};
	/* As ValidatePriorityClass: value is a required int32; a user's class may not go above
	 * HighestUserDefinablePriority unless it is one of the built-in names. */
	pc.value_node = sl_ymap_get(o->root, "value");
	int64_t v = 0;
	/* Without a value (a stub in an example of deprecated APIs) it is no class a pod can name: left
	 * out, as the API server would refuse it, without failing the run on it. */
	if (sl_ynull(pc.value_node) || sl_ynull(o->name_node))
		return 0;
	if (sl_yint(pc.value_node, &v) != 0 || v < INT32_MIN || v > INT32_MAX)
		sl_read_error(c, pc.value_node, "PriorityClass value must be a 32-bit integer");
	else if (v > SL_HIGHEST_USER_PRIORITY && strcmp(o->name, "system-cluster-critical") &&
		 strcmp(o->name, "system-node-critical"))
		sl_read_error(c, pc.value_node,
			      "PriorityClass value must not be greater than %d (the highest a user may define)",
			      SL_HIGHEST_USER_PRIORITY);
	pc.value = v;
	const struct sl_ynode *g = sl_ymap_get(o->root, "globalDefault");
	if (!sl_ynull(g) && sl_read_bool(g, &pc.global_default) < 0)
		sl_read_error(c, g, "globalDefault must be true or false");
	const struct sl_ynode *pol = sl_ymap_get(o->root, "preemptionPolicy");
	if (sl_yis(pol, "Never"))
		pc.never = true;
	else if (!sl_ynull(pol) && !sl_yis(pol, "PreemptLowerPriority"))
		sl_read_error(c, pol, "preemptionPolicy must be PreemptLowerPriority or Never");
	if (c->failed)
		return -1;
	*out = sl_xmalloc(sizeof **out);
	**out = pc;
	return 0;
}

/* The classes every cluster has, whether the inputs describe them or not. */
static const struct sl_priority_class builtin[] = {
    {.obj = {.kind = "PriorityClass", .name = "system-cluster-critical"}, .value = SL_SYSTEM_CLUSTER_CRITICAL},
    {.obj = {.kind = "PriorityClass", .name = "system-node-critical"}, .value = SL_SYSTEM_NODE_CRITICAL},
};

const struct sl_priority_class *sl_model_priority_class(const struct sl_model *m, const char *name)
{
	size_t i = sl_strmap_get(&m->prioclass_index, name);
	if (i != (size_t)-1)
		return m->prioclasses[i];
	for (size_t k = 0; k < sizeof builtin / sizeof *builtin; k++)
		if (!strcmp(builtin[k].obj.name, name))
			return &builtin[k];
	return NULL;
}

bool sl_model_knows_all_classes(const struct sl_model *m)
{
	for (size_t i = 0; i < m->nprioclasses; i++)
		if (m->prioclasses[i]->inventory)
			return true;
	return false;
}

/* The globalDefault class with the lowest value (getDefaultPriorityClass: two defaults can exist
 * after a race, and the lowest wins), or NULL. */
static const struct sl_priority_class *default_class(const struct sl_model *m)
{
	const struct sl_priority_class *d = NULL;
	for (size_t i = 0; i < m->nprioclasses; i++)
		if (m->prioclasses[i]->global_default && (!d || m->prioclasses[i]->value < d->value))
			d = m->prioclasses[i];
	return d;
}

/* What running pods show of classes the inputs do not describe: the API shows a running pod's
 * resolved spec.priority beside its class's name. Values by name, the first pod's. */
static void learn_from_running(const struct sl_model *m, struct sl_strmap *names, int64_t **values, size_t *cap)
{
	for (size_t i = 0; i < m->npods; i++) {
		const struct sl_podspec *p = &m->pods[i]->spec;
		if (!p->priority_class || !p->has_priority || sl_model_priority_class(m, p->priority_class))
			continue;
		size_t n = names->n;
		if (sl_strmap_put(names, p->priority_class, n) == n) {
			sl_grow(values, cap, n + 1, sizeof **values);
			(*values)[n] = p->priority_given;
		}
	}
}

struct learned {
	struct sl_strmap names;
	int64_t *values;
	size_t cap;
};

static void resolve(const struct sl_model *m, const struct sl_priority_class *dflt, const struct learned *l,
		    struct sl_podspec *p, bool running)
{
	const struct sl_priority_class *pc = p->priority_class ? sl_model_priority_class(m, p->priority_class) : NULL;
	p->preempts = !(pc ? pc->never : !p->priority_class && dflt && dflt->never);
	if (running && p->preempt_given)
		p->preempts = p->preempt_given > 0; /* what admission set, as the API shows it */
	if (running && p->has_priority) {
		p->priority = p->priority_given;
		p->prio_from = SL_PRIO_GIVEN;
	} else if (pc) {
		p->priority = pc->value;
		p->prio_from = SL_PRIO_CLASS;
	} else if (p->priority_class) {
		size_t k = sl_strmap_get(&l->names, p->priority_class);
		p->priority = k == (size_t)-1 ? 0 : l->values[k];
		p->prio_from = k == (size_t)-1 ? SL_PRIO_UNKNOWN : SL_PRIO_RUNNING;
	} else {
		p->priority = dflt ? dflt->value : 0;
		p->prio_from = dflt ? SL_PRIO_GLOBAL : SL_PRIO_NONE;
	}
}

void sl_model_resolve_priorities(struct sl_model *m)
{
	SL_KEEP_LAST_BY_NAME(m->prioclasses, m->nprioclasses, &m->prioclass_index, free);
	const struct sl_priority_class *dflt = default_class(m);
	struct learned l = {0};
	learn_from_running(m, &l.names, &l.values, &l.cap);
	for (size_t i = 0; i < m->npods; i++)
		resolve(m, dflt, &l, &m->pods[i]->spec, true);
	for (size_t i = 0; i < m->nworkloads; i++)
		resolve(m, dflt, &l, &m->workloads[i]->pod, false);
	sl_strmap_free(&l.names);
	free(l.values);
}
