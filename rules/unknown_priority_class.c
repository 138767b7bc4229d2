/* unknown-priority-class — a pod template names a PriorityClass the cluster does not have.
 *
 * The Priority admission plugin (plugin/pkg/admission/priority) resolves spec.priorityClassName
 * when a pod is created, and refuses a pod whose class does not exist: `pods "…" is forbidden: no
 * PriorityClass with name X was found`. The workload itself is accepted; every pod its controller
 * creates is refused (FailedCreate), so none ever runs. That holds only where the run knows every
 * class of the cluster (an inventory of `kubectl get priorityclasses`); otherwise the class may
 * well exist, and the finding is a note that says what the other rules assumed. */
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "rules.h"

/* The classes the run knows, by name, eight at most, and the inventory file they came from. */
static void known_classes(const struct sl_model *m, struct sl_buf *b, const char **from)
{
	*from = NULL;
	size_t listed = 0;
	for (size_t i = 0; i < m->nprioclasses; i++) {
		const struct sl_priority_class *pc = m->prioclasses[i];
		if (pc->inventory && !*from && pc->obj.src)
			*from = pc->obj.src->path;
		if (listed++ < 8)
			sl_buf_printf(b, "%s%s", listed > 1 ? ", " : "", pc->obj.name);
	}
	if (listed > 8)
		sl_buf_printf(b, " and %zu more", listed - 8);
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	if (!p->priority_class || sl_model_priority_class(cx->model, p->priority_class))
		return;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (sl_model_knows_all_classes(cx->model)) {
		struct sl_finding *f =
		    sl_rule_report(self, cx, p->priority_class_node,
				   "the API server refuses every pod of %s: no PriorityClass with name %s was found",
				   ref, p->priority_class);
		struct sl_buf b = SL_BUF_INIT;
		const char *from;
		known_classes(cx->model, &b, &from);
		sl_note(f, "the classes the inputs give (the cluster's, from %s): %s", from ? from : "an inventory",
			sl_buf_str(&b));
		sl_note(f,
			"the Priority admission plugin refuses the pods, not the %s: its controller keeps "
			"creating them (FailedCreate), and none runs",
			w->obj.kind);
		sl_buf_free(&b);
		return;
	}
	struct sl_finding *f = sl_rule_report(self, cx, p->priority_class_node,
					      "PriorityClass %s of %s is not among the inputs", p->priority_class, ref);
	f->level = f->level > SL_NOTE ? SL_NOTE : f->level;
	if (p->prio_from == SL_PRIO_RUNNING)
		sl_note(f, "running pods of that class show priority %lld: taken as its value", (long long)p->priority);
	else
		sl_note(f, "its pods' priority is not known: findings that depend on it say so, and whether "
			   "preemption makes room for them is not checked");
	sl_note(f, "if the cluster has no such class, the API server refuses every pod of it; give the cluster's "
		   "classes (kubectl get priorityclasses -o yaml) with --nodes to check");
}

const struct sl_rule sl_rule_unknown_priority_class = {
    .id = "unknown-priority-class",
    .name = "UnknownPriorityClass",
    .summary = "A pod template names a PriorityClass the cluster does not have: every pod is refused.",
    .description =
	"The Priority admission plugin resolves spec.priorityClassName when a pod is created and refuses a "
	"pod whose PriorityClass does not exist (\"no PriorityClass with name X was found\"). The workload is "
	"accepted, but every pod its controller creates is refused, so none runs. An error where the run knows "
	"all of the cluster's classes (an inventory of `kubectl get priorityclasses`); otherwise a note that "
	"the class is not among the inputs, and what was assumed of its pods' priority.",
    .help = "Name a PriorityClass the cluster has (`kubectl get priorityclasses`), create the class with the "
	    "release (a `PriorityClass` among the manifests), or remove `priorityClassName` to take the global "
	    "default.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
