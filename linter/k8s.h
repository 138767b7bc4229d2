/* k8s.h — typed views over the YAML tree: objects, workloads and their pod templates, Nodes and
 * running Pods. Strings and node pointers point into the YAML streams, which the model owns;
 * the model owns every array below. A workload or node whose shape is wrong gets an input error
 * at the offending YAML node and is left out, so a rule never sees half-read data. */
#ifndef SL_K8S_H
#define SL_K8S_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "diag.h"
#include "index.h"
#include "yamldoc.h"

struct sl_source;
struct sl_sources;

struct sl_kv {
	const char *key, *val;
	const struct sl_ynode *knode, *vnode;
};

struct sl_labels {
	struct sl_kv *v;
	size_t n;
};
const char *sl_labels_get(const struct sl_labels *l, const char *key); /* NULL when absent */

/* Resource amounts in the scheduler's units (cpu milli, the rest whole units). */
struct sl_res {
	const char *name;
	int64_t amount;
	const struct sl_ynode *node; /* where it was written, when it was */
};
struct sl_reslist {
	struct sl_res *v;
	size_t n, cap;
};
int64_t sl_res_get(const struct sl_reslist *l, const char *name);
const struct sl_res *sl_res_find(const struct sl_reslist *l, const char *name);
void sl_res_add(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node);
void sl_res_max(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node);
void sl_res_free(struct sl_reslist *l);

enum sl_op { SL_OP_IN, SL_OP_NOTIN, SL_OP_EXISTS, SL_OP_DOESNOTEXIST, SL_OP_GT, SL_OP_LT, SL_OP_BAD };
const char *sl_op_name(enum sl_op op);

struct sl_requirement {
	const char *key;
	enum sl_op op;
	const char **vals;
	size_t nvals;
	const struct sl_ynode *node;
};

/* One nodeSelectorTerm: matchExpressions and matchFields, all ANDed. */
struct sl_term {
	struct sl_requirement *exprs, *fields;
	size_t nexprs, nfields;
	const struct sl_ynode *node;
};

/* A metav1.LabelSelector; matchLabels become In requirements. An absent selector selects
 * nothing and an empty one everything, as metav1.LabelSelectorAsSelector has it. */
struct sl_selector {
	bool nothing;
	struct sl_requirement *reqs;
	size_t nreqs;
	const struct sl_ynode *node;
};
/* Matching (labels.c): a requirement against a label set (Gt/Lt compare integers and match
 * nothing else), whether it lists a value, a selector, and matchLabelKeys: each key the owner
 * carries must carry the owner's value in labels. */
bool sl_requirement_matches(const struct sl_requirement *r, const struct sl_labels *labels);
bool sl_requirement_has_value(const struct sl_requirement *r, const char *v);
bool sl_selector_matches(const struct sl_selector *s, const struct sl_labels *l);
bool sl_match_label_keys(const char *const *keys, size_t n, const struct sl_labels *owner,
			 const struct sl_labels *labels);

/* A required PodAffinityTerm. namespaces and namespaceSelector both absent mean the owning pod's
 * own namespace. matchLabelKeys / mismatchLabelKeys take their values from the owning pod's
 * labels when the term is matched (the API server merges them into the selector). */
struct sl_podterm {
	struct sl_selector sel;
	const char **namespaces;
	size_t nnamespaces;
	bool has_ns_selector;
	struct sl_selector ns_sel;
	const char *topology_key;
	const char **match_keys, **mismatch_keys;
	size_t nmatch_keys, nmismatch_keys;
	const struct sl_ynode *node;
	/* Bound by sl_model_bind_pods when Namespace objects are known: them (sl_model.namespaces)
	 * and the index to find them by name, so that namespaceSelector is matched on their labels
	 * when a namespace is asked about (not every namespace for every term up front). */
	struct sl_namespace *const *ns_known;
	const struct sl_strmap *ns_index;
};

/* A topologySpreadConstraint. */
struct sl_spread {
	int64_t max_skew, min_domains;
	const char *topology_key;
	bool hard;           /* whenUnsatisfiable: DoNotSchedule */
	bool honor_affinity; /* nodeAffinityPolicy (default Honor) */
	bool honor_taints;   /* nodeTaintsPolicy (default Ignore) */
	struct sl_selector sel;
	const char **match_keys;
	size_t nmatch_keys;
	const struct sl_ynode *node;
};

/* A pod volume backed by a PersistentVolumeClaim. */
struct sl_volume {
	const char *name, *claim;
	bool read_only;
	const struct sl_ynode *node; /* the persistentVolumeClaim mapping */
};

/* A container port bound on the node (hostPort, or containerPort under hostNetwork). */
struct sl_hostport {
	const char *ip;    /* "0.0.0.0" when unset: every address */
	const char *proto; /* "TCP" when unset */
	int64_t port;
	const struct sl_ynode *node;
};

struct sl_toleration {
	const char *key, *op, *value, *effect; /* "" when absent */
	const struct sl_ynode *node;
};

struct sl_taint {
	const char *key, *value, *effect;
	const struct sl_ynode *node;
};

struct sl_podspec {
	const struct sl_ynode *node; /* the pod spec mapping */
	const char *namespace;
	struct sl_labels labels;   /* the template's (or the Pod's) labels */
	struct sl_reslist request; /* effective request: containers, init containers, overhead */
	struct sl_labels node_selector;
	const struct sl_ynode *node_selector_node;
	struct sl_term *terms; /* required node affinity; OR'd */
	size_t nterms;
	bool has_required_affinity; /* nodeSelectorTerms present (an empty list matches nothing) */
	const struct sl_ynode *affinity_node;
	struct sl_toleration *tols;
	size_t ntols;
	const char *node_name;
	const struct sl_ynode *containers_node;
	struct sl_podterm *affinity, *anti; /* required pod affinity / anti-affinity terms */
	size_t naffinity, nanti;
	const struct sl_ynode *affinity_terms_node, *anti_terms_node;
	struct sl_spread *spread; /* every constraint, ScheduleAnyway included */
	size_t nspread;
	const struct sl_ynode *spread_node;
	struct sl_hostport *ports;
	size_t nports;
	struct sl_volume *volumes; /* volumes that name a PersistentVolumeClaim */
	size_t nvolumes;
};
/* Whether term (of a pod in owner_ns with owner labels) selects a pod in ns with labels. */
bool sl_podterm_matches(const struct sl_podterm *t, const char *owner_ns, const struct sl_labels *owner, const char *ns,
			const struct sl_labels *labels);

enum sl_strategy { SL_STRATEGY_NONE, SL_STRATEGY_ROLLING, SL_STRATEGY_RECREATE };

/* An int-or-percent rollout parameter, as written or as the API server defaults it. */
struct sl_intpct {
	bool set; /* written in the manifest */
	bool percent;
	int64_t v;
	const struct sl_ynode *node;
};

struct sl_object {
	const struct sl_source *src;
	const struct sl_ynode *root;
	const char *kind, *api_version, *name, *namespace; /* namespace defaults to "default" */
	const struct sl_ynode *kind_node, *name_node;
};

struct sl_workload {
	struct sl_object obj;
	struct sl_podspec pod;
	const struct sl_ynode *spec;
	int64_t replicas;
	const struct sl_ynode *replicas_node; /* NULL: defaulted to 1 */
	const struct sl_ynode *selector;
	struct sl_selector sel; /* spec.selector; selects nothing when absent */
	/* Deployments (and DaemonSets) only */
	enum sl_strategy strategy;
	const struct sl_ynode *strategy_node, *type_node, *rolling_node;
	struct sl_intpct max_surge, max_unavailable;
	/* Bound by sl_model_bind_pods: the budgets whose selector selects the template's labels in
	 * its namespace, in input order, and the first autoscaler that names it as its target. */
	const struct sl_pdb *const *pdbs;
	size_t npdbs;
	const struct sl_hpa *hpa;
};

struct sl_node {
	const char *name;
	const struct sl_source *src;
	const struct sl_ynode *root, *name_node;
	struct sl_labels labels; /* plus kubernetes.io/hostname = name when absent */
	struct sl_taint *taints;
	size_t ntaints;
	bool unschedulable;
	struct sl_reslist alloc;
	int64_t max_pods;
	/* Load of running pods bound here. */
	struct sl_reslist used;
	int64_t npods;
};

struct sl_pod {
	struct sl_object obj;
	struct sl_podspec spec;
	const char *phase;
};

/* A Namespace among the inputs: its labels, which a namespaceSelector reads. */
struct sl_namespace {
	struct sl_object obj;
	struct sl_labels labels; /* with kubernetes.io/metadata.name, as the API server sets it */
};

/* A PersistentVolumeClaim among the manifests. */
struct sl_pvc {
	struct sl_object obj;
	bool rwo, rwop, rwx, rox;          /* spec.accessModes */
	const struct sl_ynode *modes_node; /* spec.accessModes */
};

/* A PodDisruptionBudget among the manifests. minAvailable / maxUnavailable are int-or-percent;
 * `set` tells which one is written. */
struct sl_pdb {
	struct sl_object obj;
	struct sl_selector sel;
	struct sl_intpct min_available, max_unavailable;
	/* Bound by sl_model_bind_pods, over the workloads of the input it selects: their pods, how
	 * many workloads, whether one is a bare Pod, and whether that count is the disruption
	 * controller's: false when one has no scale the controller reads (a DaemonSet, a Job), or is
	 * a bare Pod while the budget needs a scale (maxUnavailable or a percentage). */
	int64_t total;
	size_t nselected;
	bool bare, countable;
};

/* A HorizontalPodAutoscaler among the inputs whose spec.scaleTargetRef names a kind and a name:
 * the object it scales (in its own namespace) and the range it keeps spec.replicas in. */
struct sl_hpa {
	const struct sl_ynode *ref; /* spec.scaleTargetRef */
	const char *namespace, *kind, *name;
	int64_t min, max; /* minReplicas (1 when unset), maxReplicas (INT32_MAX when unset) */
};

struct sl_model {
	struct sl_ystream *streams; /* one per parsed source */
	size_t nstreams;
	struct sl_yarena **arenas; /* the streams' trees: one arena per parsing thread */
	size_t narenas, caparenas;
	struct sl_workload **workloads;
	size_t nworkloads, capworkloads;
	struct sl_node **nodes;
	size_t nnodes, capnodes;
	struct sl_strmap node_index; /* name → index into nodes */
	struct sl_pod **pods;
	size_t npods, cappods;
	struct sl_pvc **pvcs;
	size_t npvcs, cappvcs;
	struct sl_pdb **pdbs;
	size_t npdbs, cappdbs;
	struct sl_namespace **namespaces;
	size_t nnamespaces, capnamespaces;
	struct sl_strmap namespace_index; /* name → index into namespaces (bound by sl_model_bind_pods) */
	struct sl_hpa **hpas;
	size_t nhpas, caphpas;
	/* Relations, computed once by sl_model_bind_pods (index.c) */
	struct sl_group_index claims;        /* "namespace\x1fname" → pvcs */
	const struct sl_pdb **workload_pdbs; /* every workload's pdbs, one after another */
	bool pod_namespace_unknown;          /* some pod's namespace has no Namespace object */
};

enum sl_input_role {
	SL_ROLE_MANIFESTS, /* workloads to check; Nodes and bound Pods in them count too */
	SL_ROLE_NODES,     /* --nodes: only Node objects are read */
	SL_ROLE_PODS,      /* --pods: only Pod objects are read, as running pods */
};

/* Sources with their roles, parsed in parallel and loaded in order (errors in source order). */
struct sl_load {
	struct sl_source *src; /* indexed by the thread that parses it */
	enum sl_input_role role;
};
/* Who reads a manifest's tree besides the model (whose objects point into it): whether a source's
 * documents must all be kept whole (a suppression comment may be in any of them), whether an
 * object's must be kept (a policy reads it, or it carries the suppression annotation), and whether
 * an entry is looked up by its key (a policy's field names it). The tree of any other document
 * goes, and its bytes too, as soon as it is parsed; entries nothing looks up are left out. */
struct sl_tree_readers {
	bool (*source)(void *ctx, const struct sl_source *src);
	bool (*object)(void *ctx, const struct sl_object *o);
	bool (*key)(void *ctx, const char *key); /* an object's entry is looked up by key (a policy's field) */
	bool all_bytes;                          /* every byte of a source is read again (--fix rewrites whole files) */
	void *ctx;
};
/* readers NULL: every tree is kept. */
int sl_model_load_many(struct sl_model *m, const struct sl_load *v, size_t n, const struct sl_tree_readers *readers,
		       struct sl_findings *errs);
/* Parse a source and add what it holds. Input errors go to errs; returns -1 if there was any. */
int sl_model_load(struct sl_model *m, struct sl_source *src, enum sl_input_role role, struct sl_findings *errs);
/* Whether the namespace is described by a Namespace object of the inputs. */
bool sl_model_knows_namespace(const struct sl_model *m, const char *ns);
/* Charge every running pod to its node, bind pod terms' namespaceSelectors to the known
 * Namespace objects and relate the objects to each other (call once after loading everything). */
void sl_model_bind_pods(struct sl_model *m);
/* The relations between objects, through indexes built once (index.c; sl_model_bind_pods calls
 * it): budgets and workloads, autoscalers and workloads, pods and namespaces. */
void sl_model_relate(struct sl_model *m);
/* Deployment, StatefulSet, ReplicaSet, ReplicationController: kinds whose pods have a controller
 * with a scale the disruption controller reads. */
bool sl_scaled_kind(const char *kind);
/* The first PersistentVolumeClaim of the inputs named name in namespace ns, or NULL. */
const struct sl_pvc *sl_model_claim(const struct sl_model *m, const char *ns, const char *name);
void sl_model_free(struct sl_model *m);

/* kind, apiVersion, name and namespace of the object at root (kind NULL when it has none). */
void sl_object_read(const struct sl_source *src, const struct sl_ynode *root, struct sl_object *o);
/* Record o as what finding f is about (its object key, root and position). */
void sl_finding_subject(struct sl_finding *f, const struct sl_object *o);
/* Every object of a stream with a kind, the items of a *List one by one, in order. */
void sl_stream_objects(const struct sl_ystream *ys, void (*fn)(void *ctx, const struct sl_object *o), void *ctx);
/* The same for one document. */
void sl_doc_objects(const struct sl_ydoc *doc, void (*fn)(void *ctx, const struct sl_object *o), void *ctx);

/* Fence-posts as the Deployment controller resolves them (ResolveFenceposts). */
int64_t sl_intpct_resolve(const struct sl_intpct *p, int64_t total, bool round_up);
void sl_fenceposts(const struct sl_workload *w, int64_t *surge, int64_t *unavailable);
/* Human form of an int-or-percent: "25%" or "1". */
void sl_intpct_format(const struct sl_intpct *p, char *out, unsigned n);
/* Default namespace used for objects that name none. */
#define SL_DEFAULT_NAMESPACE "default"

/* Read a pod spec (requests, nodeSelector, required node affinity, tolerations, nodeName);
 * input errors go to errs and make it return -1. Free with sl_podspec_free. */
int sl_parse_podspec(const struct sl_source *src, const struct sl_ynode *spec, const char *ns,
		     const struct sl_ynode *labels, struct sl_podspec *out, struct sl_findings *errs);
void sl_podspec_free(struct sl_podspec *p);

#endif
