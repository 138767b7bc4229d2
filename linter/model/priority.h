/* priority.h — PriorityClasses, and the priority and preemption policy of every pod, resolved as
 * the Priority admission plugin resolves them when a pod is created
 * (plugin/pkg/admission/priority): spec.priorityClassName's class, else the globalDefault class
 * with the lowest value, else 0; spec.preemptionPolicy, else the class's, else
 * PreemptLowerPriority. The two built-in classes exist in every cluster. A class owns nothing
 * (strings and nodes point into the tree). */
#ifndef SL_PRIORITY_H
#define SL_PRIORITY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

struct sl_read;
struct sl_model;

/* The built-in classes' values (pkg/apis/scheduling: SystemCriticalPriority and + 1000). */
#define SL_SYSTEM_CLUSTER_CRITICAL 2000000000
#define SL_SYSTEM_NODE_CRITICAL 2000001000
/* The highest value a user's class may have (HighestUserDefinablePriority). */
#define SL_HIGHEST_USER_PRIORITY 1000000000

struct sl_priority_class {
	struct sl_object obj;
	int64_t value;
	bool global_default;
	bool never;     /* preemptionPolicy: Never */
	bool inventory; /* read from an inventory file (the cluster's own list), not a manifest */
	const struct sl_ynode *value_node;
};

/* Read the PriorityClass o (c: model_read.h) into *out (NULL after an input error, when it
 * returns -1). */
int sl_priority_class_read(struct sl_read *c, const struct sl_object *o, struct sl_priority_class **out);

/* Where a pod's priority comes from. */
enum sl_prio_from {
	SL_PRIO_NONE = 0, /* no class named and no globalDefault class known: 0 */
	SL_PRIO_GLOBAL,   /* the globalDefault class */
	SL_PRIO_CLASS,    /* spec.priorityClassName's class (a built-in one too) */
	SL_PRIO_GIVEN,    /* spec.priority as the API shows a running pod */
	SL_PRIO_RUNNING,  /* the class is not among the inputs, but a running pod of it shows its value */
	SL_PRIO_UNKNOWN,  /* the class is not among the inputs: the priority is not known */
};

/* Resolve the priority of every workload's template and running pod (sl_model_relate calls it,
 * after every PriorityClass is read): a class named twice takes the later description. */
void sl_model_resolve_priorities(struct sl_model *m);
/* The class called name among m's (the built-in ones included), or NULL. */
const struct sl_priority_class *sl_model_priority_class(const struct sl_model *m, const char *name);
/* Whether the run knows every class of the cluster: some PriorityClass came from an inventory
 * (kubectl get priorityclasses), so a class none of them names does not exist. */
bool sl_model_knows_all_classes(const struct sl_model *m);

#endif
