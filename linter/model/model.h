/* model.h — the model: every object the inputs describe, typed (workloads, Nodes, running Pods,
 * claims, budgets, Namespaces, autoscalers), read from sources parsed in parallel and related to
 * each other once. Strings and node pointers point into the YAML streams, which the model owns
 * with their arenas; the model owns every array and object below (sl_model_free). A workload or
 * node whose shape is wrong gets an input error at the offending YAML node and is left out, so a
 * rule never sees half-read data. */
#ifndef SL_MODEL_H
#define SL_MODEL_H
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../base/index.h"
#include "../load/yamldoc.h"
#include "../base/diag.h"
#include "dra.h"
#include "gang.h"
#include "gates.h"
#include "hpa.h"
#include "kgang.h"
#include "kflavor.h"
#include "kversion.h"
#include "limitrange.h"
#include "namespace.h"
#include "node.h"
#include "nodepool.h"
#include "object.h"
#include "pdb.h"
#include "priority.h"
#include "quota.h"
#include "service.h"
#include "pvc.h"
#include "runtimeclass.h"
#include "storage.h"
#include "workload.h"

struct sl_parse_cache;
struct sl_source;

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
	struct sl_service **services;
	size_t nservices, capservices;
	struct sl_namespace **namespaces;
	size_t nnamespaces, capnamespaces;
	struct sl_strmap namespace_index; /* name → index into namespaces (bound by sl_model_bind_pods) */
	struct sl_hpa **hpas;
	size_t nhpas, caphpas;
	struct sl_pool **pools; /* Karpenter NodePools in input order, then the config's node groups */
	size_t npools, cappools;
	struct sl_podgroup **podgroups; /* in input order, then Kubernetes' own gangs (gang.h, kgang.h) */
	size_t npodgroups, cappodgroups;
	struct sl_kworkload **kworkloads; /* scheduling.k8s.io Workloads, in input order */
	size_t nkworkloads, capkworkloads;
	struct sl_kqueue **kqueues; /* Kueue's ClusterQueues and LocalQueues, in input order */
	size_t nkqueues, capkqueues;
	struct sl_kflavor **kflavors; /* Kueue's ResourceFlavors, in input order */
	size_t nkflavors, capkflavors;
	struct sl_runtimeclass **runtimeclasses; /* node.k8s.io RuntimeClasses, in input order */
	size_t nruntimeclasses, capruntimeclasses;
	struct sl_priority_class **prioclasses;
	size_t nprioclasses, capprioclasses;
	struct sl_strmap prioclass_index; /* name → index into prioclasses (sl_model_resolve_priorities) */
	struct sl_storage storage;        /* volumes, classes, CSI nodes and drivers (storage.h) */
	struct sl_dra dra;                /* resource.k8s.io's classes, templates, claims, slices (dra.h) */
	/* LimitRanges (limitrange.h), by namespace once applied */
	struct sl_limitrange **limitranges;
	size_t nlimitranges, caplimitranges;
	struct sl_quota **quotas; /* ResourceQuotas, in input order (quota.h) */
	size_t nquotas, capquotas;
	/* Relations, computed once by sl_model_bind_pods (relate.c) */
	struct sl_group_index claims;        /* "namespace\x1fname" → pvcs */
	struct sl_group_index pdbs_by_ns;    /* namespace → pdbs, in input order */
	const struct sl_pdb **workload_pdbs; /* every workload's pdbs, one after another */
	bool pod_namespace_unknown;          /* some pod's namespace has no Namespace object */
	struct sl_kube_version kube;         /* the release whose semantics apply (sl_model_apply_version) */
	struct sl_gates gates;               /* the feature gates asked for (set before the release) */
};

enum sl_input_role {
	SL_ROLE_MANIFESTS, /* workloads to check; Nodes and bound Pods in them count too */
	SL_ROLE_NODES,     /* --nodes: the cluster's objects (Nodes, storage, pools, classes), no workload */
	SL_ROLE_PODS,      /* --pods: Pods, read as running pods, and the cluster's storage */
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
	/* Parses kept between runs (parsecache.h; NULL: none), used when all_bytes is set (a parse
	 * that forgets bytes cannot be compared with them again) and the readers do not change
	 * between the runs that share it. */
	struct sl_parse_cache *cache;
	/* The report quotes the text of every finding (SARIF's snippets): a file under 1 KiB that
	 * holds a document the model keeps (or an input error) gives its bytes back with their hash
	 * (sl_source_release_summed), so that reading it again for a snippet costs an open and a
	 * read, no fstat; the others cannot be quoted. */
	bool quoted;
};
/* readers NULL: every tree is kept. A source that takes the cache's parse of the same bytes is
 * replaced in v by the cache's (the caller puts it in place of the one it read, and frees that). */
int sl_model_load_many(struct sl_model *m, struct sl_load *v, size_t n, const struct sl_tree_readers *readers,
		       struct sl_findings *errs);
/* Parse a source and add what it holds. Input errors go to errs; returns -1 if there was any. */
int sl_model_load(struct sl_model *m, struct sl_source *src, enum sl_input_role role, struct sl_findings *errs);
/* Charge every running pod to its node, bind pod terms' namespaceSelectors to the known
 * Namespace objects and relate the objects to each other (call once after loading everything). */
void sl_model_bind_pods(struct sl_model *m);
void sl_model_free(struct sl_model *m);
/* The trees alone (every node the model points into): what is left may be freed, not read. */
void sl_model_free_trees(struct sl_model *m);

#endif
