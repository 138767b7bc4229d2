/* dra.h — Dynamic Resource Allocation's objects (resource.k8s.io): DeviceClasses,
 * ResourceClaimTemplates, ResourceClaims (with status.allocation and reservedFor, as the cluster
 * shows them) and ResourceSlices (the devices a driver publishes, per node or for a set of
 * nodes), read from manifests and inventories in their v1 form, and in v1beta1 / v1beta2 where
 * the release serves those (docs/dra.md); and a pod's claims (spec.resourceClaims).
 *
 * Everything read belongs to struct sl_dra (in the model): each object is one allocation with its
 * arrays, freed by sl_dra_free; strings and nodes point into the trees. Selectors are parsed once
 * (cel.h) when the objects are related (sl_dra_bind); one that is no CEL at all is an input error
 * at it. What the scheduler does with all this is linter/sched/dynamic_resources.c's. */
#ifndef SL_DRA_H
#define SL_DRA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "cel.h"
#include "object.h"
#include "podspec.h"

struct sl_findings;
struct sl_model;
struct sl_read;

/* One CEL selector ({cel: {expression: …}}). */
struct sl_dra_selector {
	const char *expr;
	const struct sl_ynode *node; /* the expression's scalar */
	struct sl_cel *cel;          /* owned; NULL when it did not parse (an input error was reported) */
};

/* A request of a claim: spec.devices.requests[] — in v1 `exactly` or `firstAvailable`, in
 * v1beta1 the fields on the request itself. A subrequest (firstAvailable[]) has the same form
 * with no subrequests of its own. */
struct sl_dra_request {
	const char *name;
	const struct sl_ynode *node;
	const char *class_name; /* deviceClassName; NULL for a request with subrequests */
	const struct sl_ynode *class_node;
	struct sl_dra_selector *selectors;
	size_t nselectors;
	bool all;      /* allocationMode: All (every matching device, at least one) */
	int64_t count; /* allocationMode: ExactCount (the default), count (default 1) */
	bool admin_access;
	struct sl_dra_request *sub; /* firstAvailable, in order of preference */
	size_t nsub;
	/* Written but not modelled: tolerations of device taints, capacity requests (consumable
	 * capacity); the engine says so in a note rather than ignoring them silently. */
	const struct sl_ynode *unmodelled;
};

/* spec of a claim or of a template's claim. */
struct sl_dra_claim_spec {
	struct sl_dra_request *requests;
	size_t nrequests;
	/* spec.devices.constraints (matchAttribute, distinctAttribute): not modelled; the first,
	 * for the note that says so. NULL: none. */
	const struct sl_ynode *constraints;
};

struct sl_device_class {
	struct sl_object obj;
	struct sl_dra_selector *selectors;
	size_t nselectors;
};

struct sl_claim_template {
	struct sl_object obj;
	struct sl_dra_claim_spec spec; /* spec.spec */
};

/* One device of an allocation: status.allocation.devices.results[]. */
struct sl_dra_result {
	const char *request; /* "req" or "req/subreq" */
	const char *driver, *pool, *device;
	const struct sl_ynode *node;
};

struct sl_resource_claim {
	struct sl_object obj;
	struct sl_dra_claim_spec spec;
	bool allocated;
	struct sl_dra_result *results;
	size_t nresults;
	/* status.allocation.nodeSelector: the nodes its pods may run on; OR'd terms.
	 * has_node_selector false: any node. */
	struct sl_term *node_terms;
	size_t nnode_terms;
	bool has_node_selector;
	size_t nreserved;      /* status.reservedFor entries */
	const char **reserved; /* their names (pods, usually) */
	bool deleting;         /* metadata.deletionTimestamp */
	/* A claim the resourceclaim controller made from a template for a pod: its owner (the pod's
	 * name, ownerReferences kind Pod with controller: true) and the pod's claim entry (annotation
	 * resource.kubernetes.io/pod-claim-name). NULL when not. */
	const char *owner_pod, *pod_claim_name;
};

/* A device of a ResourceSlice (v1 devices[]; v1beta1 devices[].basic). */
struct sl_dra_device {
	const char *name;
	const struct sl_ynode *node;
	struct sl_cel_device cel;  /* driver, attributes and capacity, as selectors see them */
	struct sl_cel_attr *attrs; /* owned; cel.attrs points here */
	struct sl_cel_cap *caps;   /* owned; cel.caps points here */
	char *domains;             /* owned: the domains of qualified names ("gpu.example.com/x") */
	/* Written but not modelled (taints, per-device node selection, shared counters): the
	 * engine's note names it. NULL: none. */
	const struct sl_ynode *unmodelled;
};

struct sl_resource_slice {
	struct sl_object obj;
	const char *driver;
	const char *pool;
	int64_t pool_generation, pool_slices; /* pool.generation, pool.resourceSliceCount */
	/* Which nodes reach its devices: exactly one of these. */
	const char *node_name;      /* nodeName: that node alone */
	struct sl_term *node_terms; /* nodeSelector: OR'd terms */
	size_t nnode_terms;
	bool has_node_selector;
	bool all_nodes;        /* allNodes: true */
	bool per_device_nodes; /* perDeviceNodeSelection: true (not modelled: a note) */
	struct sl_dra_device *devices;
	size_t ndevices;
};

/* A pod's claim: spec.resourceClaims[] — one of resourceClaimName (a claim shared by every pod
 * that names it) or resourceClaimTemplateName (one claim per pod, made by the resourceclaim
 * controller from the template). */
struct sl_pod_claim {
	const char *name;
	const struct sl_ynode *node;
	const char *claim_name, *template_name;
	const struct sl_ynode *ref_node; /* the one of the two written */
	/* A running pod's status.resourceClaimStatuses[].resourceClaimName for this entry: the claim
	 * made for it. NULL when not known. */
	const char *generated;
};

/* Everything the run read of DRA, in input order, with the indexes made by sl_dra_bind. */
struct sl_dra {
	struct sl_device_class **classes;
	size_t nclasses, capclasses;
	struct sl_claim_template **templates;
	size_t ntemplates, captemplates;
	struct sl_resource_claim **claims;
	size_t nclaims, capclaims;
	struct sl_resource_slice **slices;
	size_t nslices, capslices;
	struct sl_strmap class_index;    /* name → index into classes */
	struct sl_strmap template_index; /* "namespace\x1fname" → index into templates */
	struct sl_strmap claim_index;    /* "namespace\x1fname" → index into claims */
	struct sl_strmap slice_index;    /* name → index into slices */
	struct sl_strpool keys;          /* owns the "namespace\x1fname" keys of the two above */
	/* sl_dra_bind ran (it runs once: from sl_model_apply_version with the load's errors, else from
	 * sl_model_bind_pods without them). */
	bool bound;
};

/* Whether o is one of the four kinds above, of resource.k8s.io. */
bool sl_dra_kind(const struct sl_object *o);
/* Read o into the model's dra; -1 after an input error (the object is left out), else 0. */
int sl_dra_read(struct sl_read *c, const struct sl_object *o, struct sl_dra *d);
/* After every object is read: objects named twice (the later kept, as kubectl apply would), the
 * indexes, and every selector parsed (one that is no CEL: an input error into errs). */
void sl_dra_bind(struct sl_dra *d, struct sl_findings *errs);
const struct sl_device_class *sl_dra_class(const struct sl_dra *d, const char *name);
const struct sl_claim_template *sl_dra_template(const struct sl_dra *d, const char *ns, const char *name);
const struct sl_resource_claim *sl_dra_claim(const struct sl_dra *d, const char *ns, const char *name);
void sl_dra_free(struct sl_dra *d);
/* Append part's objects to d's, in order, and free part's arrays (a source's model merged). */
void sl_dra_merge(struct sl_dra *d, struct sl_dra *part);
/* What the release (m->kube, m->gates) keeps: an object whose apiVersion it does not serve is left
 * out with a warning at its apiVersion; without DynamicResourceAllocation a template's
 * spec.resourceClaims and its containers' resources.claims are dropped (a warning) and a running
 * pod's cleared. Then sl_dra_bind with errs. From sl_model_apply_version. */
void sl_dra_apply_version(struct sl_model *m, struct sl_findings *errs);

/* A pod spec's spec.resourceClaims (p->node) into claims / nclaims (owned by the pod spec: freed
 * with it), and each container's resources.claims checked against them (a name no entry has is
 * the API server's rejection: an input error). */
void sl_pod_claims_read(struct sl_read *c, const struct sl_ynode *spec, const char *path, struct sl_pod_claim **claims,
			uint32_t *nclaims);
/* A running Pod's status.resourceClaimStatuses (status: the Pod's status, NULL: none) into its
 * claims' generated. */
void sl_pod_claims_status(struct sl_read *c, const struct sl_ynode *status, struct sl_pod_claim *claims,
			  size_t nclaims);

#endif
