/* pvc.h — PersistentVolumeClaims among the manifests: their access modes, which say whether
 * pods on two nodes can mount the claim at once. A claim is one allocation (free()); it points
 * into the tree. */
#ifndef SL_PVC_H
#define SL_PVC_H
#include <stdbool.h>

#include "object.h"

struct sl_read;

/* A PersistentVolumeClaim among the manifests. */
struct sl_pvc {
	struct sl_object obj;
	bool rwo, rwop, rwx, rox;          /* spec.accessModes */
	const struct sl_ynode *modes_node; /* spec.accessModes */
};

/* Read the PersistentVolumeClaim o (c: model_read.h) into *out (NULL after an input error, when
 * it returns -1). */
int sl_pvc_read(struct sl_read *c, const struct sl_object *o, struct sl_pvc **out);

#endif
