/* storage.h — the cluster's storage as volume binding reads it: PersistentVolumes,
 * StorageClasses, CSINodes and CSIDrivers (among the manifests or in any inventory file), indexed
 * once by name; and, per workload, the claims its pods mount resolved to what the scheduler's
 * volume plugins judge (sl_volset): the PersistentVolumes bound claims pin the pods to, or the
 * PreFilter's verdict when a claim does not exist or can never be bound. A StatefulSet's pods
 * differ in their claims (one per ordinal from each volumeClaimTemplate), so it has a set per
 * distinct resolution. The storage owns its objects, arrays and texts (sl_storage_free); they
 * point into the trees. */
#ifndef SL_STORAGE_H
#define SL_STORAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/index.h"
#include "labels.h"
#include "object.h"
#include "podspec.h"

struct sl_read;
struct sl_pvc;
struct sl_workload;

struct sl_pv {
	struct sl_object obj;
	struct sl_labels labels;           /* metadata.labels: the zone and region VolumeZone reads */
	const char *storage_class;         /* spec.storageClassName; "" none */
	const char *claim_ns, *claim_name; /* spec.claimRef; NULL: not claimed */
	bool claim_uid;                    /* spec.claimRef.uid is given */
	int64_t capacity;                  /* spec.capacity.storage, bytes */
	bool rwo, rwop, rwx, rox;
	struct sl_term *terms; /* spec.nodeAffinity.required.nodeSelectorTerms, OR'd */
	size_t nterms;
	bool has_affinity; /* required is given (an empty list of terms admits no node) */
	const struct sl_ynode *affinity_node;
	const char *phase; /* status.phase; "" when absent */
	/* spec.csi: the driver and the volume's handle (NodeVolumeLimits counts driver/handle once per
	 * node); NULL when the volume is not a CSI one. */
	const char *csi_driver, *csi_handle;
	bool inventory;
};

struct sl_storage_class {
	struct sl_object obj;
	const char *provisioner;
	bool wait;            /* volumeBindingMode WaitForFirstConsumer (the default is Immediate) */
	bool is_default;      /* annotation storageclass.kubernetes.io/is-default-class "true" */
	struct sl_term *topo; /* allowedTopologies: matchLabelExpressions as In requirements */
	size_t ntopo;
	bool inventory;
};

struct sl_csinode_driver {
	const char *name;
	bool has_count;
	int64_t count; /* allocatable.count: attachable volumes of the driver on the node */
};
struct sl_csinode {
	struct sl_object obj;
	struct sl_csinode_driver *drivers;
	size_t ndrivers;
};

struct sl_csidriver {
	struct sl_object obj;
	bool attach_required;  /* spec.attachRequired (default true) */
	bool storage_capacity; /* spec.storageCapacity: the scheduler checks CSIStorageCapacity */
};

/* A CSIStorageCapacity (storage.k8s.io/v1): how large a volume of a class the driver can still
 * make for the nodes its nodeTopology selects (hasEnoughCapacity reads maximumVolumeSize when
 * given, else capacity; no topology: no node). */
struct sl_csi_capacity {
	struct sl_object obj;
	const char *class_name;
	bool has_limit;
	int64_t limit; /* bytes */
	bool has_topology;
	struct sl_selector topology;
};

/* An unbound claim of a WaitForFirstConsumer class, which VolumeBinding's Filter binds per node
 * (FindPodVolumes): to an available PersistentVolume that matches it and whose node affinity
 * admits the node, or else to one the class's provisioner makes where its allowedTopologies admit
 * the node. What does not depend on the node is settled once: the volumes that match but for
 * their node affinity. */
struct sl_wait_claim {
	const char *name;
	const struct sl_pvc *pvc; /* NULL: one the StatefulSet controller will make from a template */
	const struct sl_storage_class *cls;
	const struct sl_pv *prebound; /* a volume whose claimRef names the claim: the only one it takes */
	const struct sl_pv **cands;   /* the other volumes it may take, on a node they admit */
	size_t ncands;
	bool provisions; /* the class has a provisioner that makes volumes */
	/* The volumeClaimTemplate it is made from (each pod has one of its own), or NULL: a claim
	 * the pods share. */
	const char *tmpl;
	/* Where the provisioner's CSIDriver asks for storage capacity tracking and the inputs hold
	 * CSIStorageCapacity objects: the capacities of the class large enough for the claim (a node
	 * one of them selects has room to provision it). */
	bool space_checked;
	const struct sl_csi_capacity **caps;
	size_t ncaps;
};

/* A volume NodeVolumeLimits counts against its driver's attach limit on a node. handle is the
 * PersistentVolume's spec.csi.volumeHandle, or for a claim not bound (to a volume among the
 * inputs) the claim's name in ns, counted under its class's provisioner: the scheduler gives such
 * a claim a handle of its own that no bound volume shares. per_pod: a StatefulSet template's
 * claim, which each pod has its own of, so every pod on a node adds one. */
struct sl_attach {
	const char *driver, *handle;
	bool fresh; /* handle is a claim's name, not a volume handle */
	bool per_pod;
};

/* What the scheduler's volume plugins judge for one pod: the PersistentVolumes of its bound
 * claims (VolumeBinding's node affinity, VolumeZone's labels), its unbound delayed claims, or a
 * PreFilter failure every node shares. */
struct sl_volset {
	const struct sl_pv **pvs;
	const struct sl_pvc **pv_claims; /* per PV: the claim bound to it (NULL: a claim to be made) */
	const char **pv_claim_names;
	size_t npvs;
	/* A claim the cluster bound to a PersistentVolume that is not among the inventory's (which
	 * lists volumes): checkBoundClaims meets it after pvs[0 .. missing_at) and fails every node
	 * with ErrReasonPVNotExist. missing_claim NULL: none. */
	const char *missing_claim, *missing_pv;
	size_t missing_at;
	struct sl_wait_claim *waits;
	size_t nwaits;
	struct sl_attach *attach; /* the CSI volumes NodeVolumeLimits counts, each once */
	size_t nattach;
	char *prefilter; /* NULL, or VolumeBinding's PreFilter reason (UnschedulableAndUnresolvable) */
	enum sl_prefilter_why { SL_PF_NOT_FOUND, SL_PF_LOST, SL_PF_DELETING, SL_PF_UNBOUND } prefilter_why;
	const char *claim; /* with prefilter: the claim it is about */
	/* NULL, or what the verdict rests on that the inventory did not capture: no PersistentVolume
	 * (or claim) being in the cluster beyond those listed. Owned. */
	char *assumed;
	int64_t ordinal; /* a StatefulSet's first ordinal with this resolution; -1 otherwise */
	int64_t pods;    /* how many of the workload's pods have it */
};
struct sl_wstorage {
	struct sl_volset *sets; /* in ordinal order of first use */
	size_t nsets;
	char **names; /* claim names made for a StatefulSet's ordinals */
	size_t nnames;
};

struct sl_storage {
	struct sl_pv **pvs;
	size_t npvs, cappvs;
	struct sl_storage_class **classes;
	size_t nclasses, capclasses;
	struct sl_csinode **csinodes;
	size_t ncsinodes, capcsinodes;
	struct sl_csidriver **csidrivers;
	size_t ncsidrivers, capcsidrivers;
	struct sl_csi_capacity **capacities;
	size_t ncapacities, capcapacities;
	struct sl_strmap pv_index, class_index, csinode_index; /* name → index (sl_storage_index) */
	struct sl_group_index pvs_by_class;                    /* storageClassName → pvs ("" for none) */
	const struct sl_storage_class *default_class;
	/* An inventory file lists PersistentVolumes, claims or classes: the cluster's storage was
	 * captured (kubectl get pv,pvc,storageclass), so a claim or volume missing from it is missing. */
	bool known;
	/* An inventory file lists a PersistentVolume / a PersistentVolumeClaim. A cluster with none
	 * prints none, so the absence of one is read as "not captured": a verdict that rests on no
	 * volume (or claim) existing is then a warning that says so (sl_volset.assumed). */
	bool pvs_listed, claims_listed;
	bool classes_listed;              /* an inventory file lists a StorageClass */
	bool any_claim;                   /* some PersistentVolumeClaim among all the inputs */
	struct sl_wstorage *per_workload; /* one per workload of the model (sl_storage_relate) */
	size_t nworkloads;
	int kube_minor; /* the release judged (sl_storage_relate): what the volume plugins read */
	/* The first workload (in input order) that mounts claims while no claim is among the inputs:
	 * volume binding was not checked; (size_t)-1 when none. */
	size_t unknown_at;
};

/* Whether kind is one the storage reads. */
bool sl_storage_kind(const char *kind);
/* Read o (of a kind sl_storage_kind names) into s; inventory: from an --nodes/--pods file. */
int sl_storage_read(struct sl_read *c, const struct sl_object *o, bool inventory, struct sl_storage *s);
/* Append part's objects to s (a source's own, in source order) and free part's arrays. */
void sl_storage_merge(struct sl_storage *s, struct sl_storage *part);
/* The indexes by name (a later object of a name replaces an earlier one) and the default class. */
void sl_storage_index(struct sl_storage *s);
const struct sl_pv *sl_storage_pv(const struct sl_storage *s, const char *name);
const struct sl_storage_class *sl_storage_class(const struct sl_storage *s, const char *name);
/* The CSINode of a node (named as the node), or NULL. */
const struct sl_csinode *sl_storage_csinode(const struct sl_storage *s, const char *node);
/* What NodeVolumeLimits counts for claim (NULL: not found, nothing), named name: the bound
 * volume's CSI driver and handle, or when the claim is not bound (or its volume is not among the
 * inputs) its class's provisioner and the claim itself (fresh). Returns false when the scheduler
 * counts nothing (no class, an unknown one, a volume that is not CSI). */
bool sl_claim_attach(const struct sl_storage *s, const struct sl_pvc *claim, const char *name, struct sl_attach *out);
/* The class path of it, for a claim name of class cls (NULL: unset, so the default class). */
bool sl_class_attach(const struct sl_storage *s, const char *cls, const char *name, struct sl_attach *out);
/* Whether the PV's required node affinity admits a node with these labels (the scheduler's
 * CheckNodeAffinity, which gives the node its labels alone: matchFields match no name). */
bool sl_pv_admits(const struct sl_pv *pv, const struct sl_labels *node_labels);
/* The CSIDriver of that name, or NULL. */
const struct sl_csidriver *sl_storage_csidriver(const struct sl_storage *s, const char *name);
/* Whether some capacity of c admits a node with these labels (nodeHasAccess). */
bool sl_capacity_admits(const struct sl_wait_claim *c, const struct sl_labels *node_labels);
/* Whether the class's allowedTopologies admit a node with these labels (MatchTopologySelectorTerms:
 * no terms admit every node). */
bool sl_class_admits(const struct sl_storage_class *c, const struct sl_labels *node_labels);
void sl_storage_free(struct sl_storage *s);
void sl_volset_free(struct sl_volset *v); /* its arrays, not v */
/* Each workload's claims resolved (volumes.c), after the claims are indexed (sl_model_relate). */
struct sl_model;
void sl_storage_relate(struct sl_model *m);

/* A NodeSelector's nodeSelectorTerms (terms: the list, NULL: none) as a pod's required node
 * affinity is written: a PersistentVolume's nodeAffinity, a ResourceClaim's allocation or a
 * ResourceSlice's nodeSelector (dra.c). *out is the caller's (sl_node_terms_free); path names the
 * list in errors. */
void sl_read_node_terms(struct sl_read *c, const struct sl_ynode *terms, const char *path, struct sl_term **out,
			size_t *n);
void sl_node_terms_free(struct sl_term *t, size_t n);

#endif
