/* nodepool.h — node pools: where new nodes come from. Karpenter NodePools (karpenter.sh/v1 and
 * v1beta1), read from the manifests or from an inventory, and node groups declared in the config
 * (`nodePools:`, for cluster-autoscaler and managed node groups, whose definitions live in the
 * cloud). A pool owns its arrays (sl_pool_free); strings and nodes point into the YAML tree it was
 * read from (a manifest, an inventory or the config).
 *
 * Requirements are matched as Karpenter matches them (pkg/scheduling/requirement.go and
 * requirements.go): a requirement is a set of values or its complement, with integer bounds for
 * Gt/Lt, and two requirements on one key are compatible when the sets intersect. */
#ifndef SL_NODEPOOL_H
#define SL_NODEPOOL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labels.h"
#include "node.h"
#include "object.h"
#include "resources.h"

struct sl_read;
struct sl_source;
struct sl_findings;
struct sl_podspec;

/* Karpenter's Requirement: values (In) or their complement (NotIn; Exists without values), with
 * inclusive integer bounds (Gt n is >= n+1, Lt n is <= n-1). DoesNotExist is no value at all. */
struct sl_kreq {
	const char *key;
	bool complement;
	const char **values; /* owned array */
	size_t nvalues;
	bool has_gte, has_lte;
	int64_t gte, lte;
};
/* A set of requirements, at most one per key (a second on a key is intersected with the first). */
struct sl_kreqs {
	struct sl_kreq *v;
	size_t n;
};
/* Requirement r of a nodeSelector or node affinity term (or a NodePool) as Karpenter reads it:
 * beta keys normalised (beta.kubernetes.io/arch is kubernetes.io/arch...). false when a Gt/Lt
 * value is no integer (such a requirement is an input error). */
bool sl_kreqs_add_requirement(struct sl_kreqs *s, const struct sl_requirement *r);
void sl_kreqs_add_in(struct sl_kreqs *s, const char *key, const char *value);
void sl_kreqs_free(struct sl_kreqs *s);
const struct sl_kreq *sl_kreqs_get(const struct sl_kreqs *s, const char *key);
/* Karpenter's Requirement.Operator() and String(): "kubernetes.io/arch In [amd64]". */
const char *sl_kreq_operator(const struct sl_kreq *r);
void sl_kreq_string(const struct sl_kreq *r, char *out, size_t n);
bool sl_kreq_intersects(const struct sl_kreq *a, const struct sl_kreq *b);
/* Karpenter's Requirements.Compatible(pod, AllowUndefinedWellKnownLabels): NULL when the pod's
 * requirements can be met by the pool's, else the reason in Karpenter's words, written to why. */
bool sl_kreqs_compatible(const struct sl_kreqs *pool, const struct sl_kreqs *pod, char *why, size_t n);
/* Whether Karpenter lets a pod leave this key undefined in a pool (v1.WellKnownLabels). */
bool sl_karpenter_well_known(const char *key);

enum sl_pool_kind {
	SL_POOL_KARPENTER, /* a NodePool object */
	SL_POOL_GROUP,     /* a node group declared in the config */
};

struct sl_pool {
	struct sl_object obj; /* a NodePool's identity; for a group, its name and the config's node */
	enum sl_pool_kind kind;
	bool inventory; /* read from an inventory (--nodes) rather than among the manifests */
	/* The labels every new node of the pool carries: the template's, every requirement fixed to
	 * one value, karpenter.sh/nodepool and the node class's label (as NodeClaims get them). */
	struct sl_labels labels;
	struct sl_requirement *reqs; /* spec.template.spec.requirements as written */
	size_t nreqs;
	struct sl_kreqs kreqs; /* the requirements and the labels, as Karpenter matches them */
	struct sl_taint *taints, *startup;
	size_t ntaints, nstartup;
	struct sl_reslist limits; /* spec.limits ("nodes" among them); none: unlimited */
	int64_t weight;
	const char *node_class;  /* nodeClassRef name, or NULL */
	char *class_label;       /* the node class's label key (group/kind), owned; or NULL */
	struct sl_reslist alloc; /* what a new node holds, when known (alloc_known) */
	bool alloc_known;
	int64_t max;           /* a group's maximum size; -1: none */
	const char *from_node; /* a group's template.fromNode, resolved by sl_pool_resolve */
	const struct sl_ynode *from_node_node;
	const struct sl_ynode *max_node;
	/* The inventory's nodes of the pool (sl_pool_owns), in the inventory's order, and their
	 * allocatable summed: indexed once per model (sl_pool_index), since every judgement of a
	 * workload against the pool reads them (its limits, its maximum size, a node to size a new
	 * one by), and a release judges every workload. The array is owned; the nodes are the model's. */
	const struct sl_node **members;
	size_t nmembers;
	struct sl_reslist members_alloc;
};

/* Read the NodePool o (c: model_read.h) into *out: NULL (and 0) when it is no Karpenter NodePool.
 * Returns -1 after an input error, with nothing kept. */
int sl_pool_read(struct sl_read *c, const struct sl_object *o, struct sl_pool **out);
/* Read one node group of the config's `nodePools:` list (m, in src): {name, template: {labels,
 * taints, allocatable} | {fromNode}, max}. Errors go to errs; returns -1 after one. */
int sl_pool_read_group(const struct sl_source *src, const struct sl_ynode *m, struct sl_findings *errs,
		       struct sl_pool **out);
/* A copy of a group for one model (fromNode is resolved per inventory). */
struct sl_pool *sl_pool_copy(const struct sl_pool *p);
/* A group's fromNode: the labels (but the hostname), taints and allocatable of that node; an error
 * at fromNode when the inventory has no such node. */
int sl_pool_resolve(struct sl_pool *p, struct sl_node *const *nodes, size_t nnodes, struct sl_findings *errs);
/* Whether node n is one of the pool's: a NodePool's carries karpenter.sh/nodepool: NAME, a
 * group's every label of its template. */
bool sl_pool_owns(const struct sl_pool *p, const struct sl_node *n);
/* The pool's members among nodes[0 .. n) and their allocatable summed (members, members_alloc),
 * made again from scratch (sl_model_bind_pods, once the pools and nodes are all read). */
void sl_pool_index(struct sl_pool *p, struct sl_node *const *nodes, size_t n);
void sl_pool_free(struct sl_pool *p); /* and p itself */

#endif
