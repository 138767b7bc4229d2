/* namespace.h — Namespace objects among the inputs, whose labels a pod term's namespaceSelector
 * reads. A namespace owns its label array (sl_namespace_free); strings point into the tree. */
#ifndef SL_NAMESPACE_H
#define SL_NAMESPACE_H

#include "labels.h"
#include "object.h"

struct sl_read;

/* A Namespace among the inputs: its labels, which a namespaceSelector reads. */
struct sl_namespace {
	struct sl_object obj;
	struct sl_labels labels; /* with kubernetes.io/metadata.name, as the API server sets it */
};

/* Read the Namespace o (c: model_read.h) into *out (NULL after an input error, when it
 * returns -1). */
int sl_namespace_read(struct sl_read *c, const struct sl_object *o, struct sl_namespace **out);
void sl_namespace_free(struct sl_namespace *ns); /* and ns itself */

#endif
