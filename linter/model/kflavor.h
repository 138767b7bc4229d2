/* kflavor.h — Kueue's ResourceFlavors (kueue.x-k8s.io, cluster-scoped): the node labels, node
 * taints and tolerations of a flavor of quota, and what they do to a workload Kueue admits. The
 * flavor assigner (pkg/scheduler/flavorassigner) skips a flavor whose nodeTaints the pods do not
 * tolerate (their own tolerations and the flavor's) or whose nodeLabels their required
 * nodeSelector or node affinity excludes (on the flavor's own label keys only); admission
 * (pkg/podset) then merges the assigned flavor's nodeLabels into the pods' nodeSelector and
 * appends its tolerations. A flavor is one allocation with its arrays (sl_kflavor_free); strings
 * and nodes point into the trees. */
#ifndef SL_KFLAVOR_H
#define SL_KFLAVOR_H
#include <stdbool.h>
#include <stddef.h>

#include "labels.h"
#include "node.h"
#include "object.h"
#include "podspec.h"

struct sl_read;
struct sl_model;
struct sl_workload;

struct sl_kflavor {
	struct sl_object obj;
	struct sl_labels node_labels; /* spec.nodeLabels */
	struct sl_taint *taints;      /* spec.nodeTaints */
	size_t ntaints;
	struct sl_toleration *tols; /* spec.tolerations */
	size_t ntols;
};

/* Whether Kueue may give the pods a flavor of a ClusterQueue, and if not, why. */
enum sl_kfit {
	SL_KFIT_OK,
	SL_KFIT_MISSING, /* no ResourceFlavor of that name among the inputs (others are) */
	SL_KFIT_TAINT,   /* a NoSchedule/NoExecute nodeTaint the pods do not tolerate */
	SL_KFIT_LABELS,  /* the pods' nodeSelector or required node affinity excludes its nodeLabels */
};

/* One flavor of one resource group of the workload's ClusterQueue, judged for its pods as the
 * template is written (sl_gang_bind). */
struct sl_kchoice {
	size_t group;
	const char *name;
	const struct sl_kflavor *f; /* NULL: SL_KFIT_MISSING */
	enum sl_kfit fit;
	const char *why; /* the untolerated taint's or the conflicting label's key */
	bool used;       /* the pods ask for a resource of its group */
};

/* What Kueue's flavors do to where the workload's pods run (sl_workload.kplace). */
enum sl_kplace {
	SL_KPLACE_NONE, /* nothing: no flavor known, none it may assign adds anything, or none fits */
	SL_KPLACE_SET,  /* one flavor per resource group the pods use: applied to the pod spec */
	SL_KPLACE_OPEN, /* several a group may assign, and one of them adds labels or tolerations */
};

/* Read o (a ResourceFlavor of kueue.x-k8s.io) into the model; -1 after an input error. */
int sl_kflavor_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m);
/* Judge every flavor of w's ClusterQueue for its pods and, when one flavor per group the pods
 * use is left, merge it into w->pod as admission does (call once, from sl_gang_bind, with
 * sl_wgang(w)->kqueue bound and ResourceFlavors known). */
void sl_kflavor_bind(const struct sl_model *m, struct sl_workload *w);
/* Whether flavor f (NULL: missing) may take pods of spec p; *why as in sl_kchoice. */
enum sl_kfit sl_kflavor_fit(const struct sl_kflavor *f, const struct sl_podspec *p, const char **why);
/* Whether it adds anything to the pods (nodeLabels or tolerations). */
bool sl_kflavor_adds(const struct sl_kflavor *f);
void sl_kflavor_free(struct sl_kflavor *f);
/* Tolerations at seq (path: where, "spec.tolerations"), as the API validates a pod's: operator
 * Equal (the default) or Exists, no value with Exists, an empty key only with Exists, effect empty
 * or a taint effect; *out and *n are the caller's (those invalid are left out, reported). Also read
 * for a RuntimeClass's scheduling.tolerations. */
void sl_read_tolerations(struct sl_read *c, const struct sl_ynode *seq, const char *path, struct sl_toleration **out,
			 size_t *n);
/* Append tolerations t to p's, each unless the same one is there (tolerations.MergeTolerations, as
 * Kueue's admission and the RuntimeClass plugin merge theirs). */
void sl_tolerations_merge(struct sl_podspec *p, const struct sl_toleration *t, size_t n);

#endif
