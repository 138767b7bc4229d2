/* kgang.h — Kubernetes' own gangs: the scheduling.k8s.io/v1alpha1 Workload (Kubernetes 1.35,
 * alpha), whose spec.podGroups[] each have a policy, basic (pod by pod) or gang (minCount pods
 * at once), and the pods that name one by spec.workloadRef {name, podGroup, podGroupReplicaKey}.
 * The scheduler's GangScheduling plugin keeps such a pod out of the queue until minCount pods of
 * its group exist (PreEnqueue) and binds none until minCount are placed together (Permit), so a
 * gang judges as a Volcano PodGroup does (gang.h). Served only with the GenericWorkload gate on
 * (and the gang held only with GangScheduling too): gates.h. A Workload is one allocation with
 * its array (sl_kworkload_free); strings and nodes point into the tree. */
#ifndef SL_KGANG_H
#define SL_KGANG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

struct sl_read;
struct sl_model;
struct sl_workload;
struct sl_findings;

/* One of spec.podGroups[]. */
struct sl_kpodgroup {
	const char *name;
	const struct sl_ynode *node; /* the item */
	bool gang;                   /* policy.gang; else policy.basic */
	int64_t min_count;           /* policy.gang.minCount */
	const struct sl_ynode *min_node;
};

struct sl_kworkload {
	struct sl_object obj;
	struct sl_kpodgroup *groups;
	size_t ngroups;
};

/* Whether o is a scheduling.k8s.io Workload (Kueue's Workload is another kind of the same name). */
bool sl_kgang_kind(const struct sl_object *o);
/* Read o (sl_kgang_kind) into the model; -1 after an input error, with nothing kept. */
int sl_kgang_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m);
/* After the release and the gates are chosen (sl_model_apply_version): a note at every Workload
 * and spec.workloadRef the cluster would not act on (the gates off, or a release without them),
 * and at a workloadRef the scheduler keeps Pending (a pod group its Workload does not have). */
void sl_kgang_apply(struct sl_model *m, struct sl_findings *errs);
/* Bind every workload to the gang its workloadRef names, when the scheduler holds it as one (call
 * once, after loading, before sl_gang_bind). */
void sl_kgang_bind(struct sl_model *m);
void sl_kworkload_free(struct sl_kworkload *k);

#endif
