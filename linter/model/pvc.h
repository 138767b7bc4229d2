/* pvc.h — PersistentVolumeClaims, among the manifests or in an inventory: their access modes
 * (whether pods on two nodes can mount the claim at once), and what volume binding reads of them
 * (class, the volume bound, the size and selector asked). A claim is one allocation
 * (sl_pvc_free); it points into the tree. */
#ifndef SL_PVC_H
#define SL_PVC_H
#include <stdbool.h>
#include <stdint.h>

#include "labels.h"
#include "object.h"

struct sl_read;

struct sl_pvc {
	struct sl_object obj;
	bool rwo, rwop, rwx, rox;          /* spec.accessModes */
	const struct sl_ynode *modes_node; /* spec.accessModes */
	/* spec.storageClassName (or the beta annotation, which the API reads first); NULL: unset, so
	 * admission gives it the default class; "": no class. */
	const char *storage_class;
	const struct sl_ynode *class_node;
	const char *volume_name; /* spec.volumeName; NULL: not bound */
	const struct sl_ynode *volume_node;
	int64_t request; /* spec.resources.requests.storage in bytes; 0 when unset */
	bool has_selector;
	struct sl_selector sel; /* spec.selector */
	bool inventory;         /* from an --nodes/--pods file: the cluster's own claim */
	/* What the cluster says of it (an inventory's claim): the annotation
	 * pv.kubernetes.io/bind-completed (or status.phase Bound, set with it), which makes a claim
	 * with a volumeName bound for the scheduler (isPVCFullyBound; without it the claim is
	 * pre-bound, so Immediate); status.phase Lost (its volume is gone);
	 * metadata.deletionTimestamp. */
	bool bind_completed, lost, deleting;
};

/* Read the PersistentVolumeClaim o (c: model_read.h) into *out (NULL after an input error, when
 * it returns -1). */
int sl_pvc_read(struct sl_read *c, const struct sl_object *o, struct sl_pvc **out);
void sl_pvc_free(struct sl_pvc *v); /* and v itself */
/* A claim's spec into v (a PersistentVolumeClaim's, or an entry of a StatefulSet's
 * volumeClaimTemplates), its fields named from `at` in errors ("spec"); a class already set in
 * v (the beta annotation) is kept. */
void sl_read_claim_spec(struct sl_read *c, const struct sl_ynode *spec, const char *at, struct sl_pvc *v);
/* spec.accessModes (a claim's or a volume's; modes NULL: none) into out, an unknown mode an input
 * error at it. */
struct sl_access_modes {
	bool rwo, rwop, rwx, rox;
};
void sl_read_access_modes(struct sl_read *c, const struct sl_ynode *modes, struct sl_access_modes *out);

#endif
