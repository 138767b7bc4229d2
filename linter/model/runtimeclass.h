/* runtimeclass.h — RuntimeClasses (node.k8s.io/v1, cluster-scoped) and what the RuntimeClass
 * admission plugin (plugin/pkg/admission/runtimeclass) makes of a pod that names one in
 * spec.runtimeClassName: overhead.podFixed becomes the pod's overhead (which the scheduler adds to
 * its request), scheduling.nodeSelector is merged into its nodeSelector (a key the pod gives
 * another value is a conflict, and the pod is rejected) and scheduling.tolerations are appended.
 * A class is one allocation with its arrays (sl_runtimeclass_free); strings and nodes point into
 * the trees. */
#ifndef SL_RUNTIMECLASS_H
#define SL_RUNTIMECLASS_H
#include <stdbool.h>
#include <stddef.h>

#include "labels.h"
#include "object.h"
#include "podspec.h"
#include "resources.h"

struct sl_findings;
struct sl_model;
struct sl_read;

struct sl_runtimeclass {
	struct sl_object obj;
	const char *handler;
	struct sl_reslist overhead;      /* overhead.podFixed */
	const struct sl_ynode *podfixed; /* where it is written; NULL: no overhead */
	struct sl_labels node_selector;  /* scheduling.nodeSelector */
	struct sl_toleration *tols;      /* scheduling.tolerations */
	size_t ntols;
};

/* Whether o is a RuntimeClass of node.k8s.io. */
bool sl_runtimeclass_kind(const struct sl_object *o);
/* Read o; -1 after an input error (the class is left out), else *out (the caller's). */
int sl_runtimeclass_read(struct sl_read *c, const struct sl_object *o, struct sl_runtimeclass **out);
/* Apply the class each workload's template names, as admission does, once every object is read
 * (from sl_model_apply_version, after the release's own changes to the request); a template
 * naming a class the run does not know gets one note per run. */
void sl_runtimeclass_apply(struct sl_model *m, struct sl_findings *errs);
void sl_runtimeclass_free(struct sl_runtimeclass *rc);

#endif
