/* podspec.h — a pod spec as the scheduler reads it: the effective request, nodeSelector and
 * required node affinity, tolerations, required pod (anti-)affinity terms, topology spread
 * constraints, host ports and claimed volumes; and when a pod term selects a pod. Read from a
 * workload's template or a running Pod; strings and nodes point into the YAML tree, the arrays
 * are the spec's own (sl_podspec_free). */
#ifndef SL_PODSPEC_H
#define SL_PODSPEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "labels.h"
#include "resources.h"

struct sl_findings;
struct sl_namespace;
struct sl_pod_claim;
struct sl_runtimeclass;
struct sl_source;
struct sl_ynode;

/* One nodeSelectorTerm: matchExpressions and matchFields, all ANDed. */
struct sl_term {
	struct sl_requirement *exprs, *fields;
	size_t nexprs, nfields;
	const struct sl_ynode *node;
};

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

/* One container's resources, as the API server keeps them: a request it does not state defaults
 * to its limit. Read again from a spec after the load (sl_podspec_containers) when admission
 * changes them (limitrange.h); the lists are the container's own (sl_ctrs_free). */
struct sl_ctr_res {
	const struct sl_ynode *node; /* the container's mapping */
	size_t index;                /* in containers, or in initContainers */
	bool init;
	const struct sl_ynode *restart; /* an init container's restartPolicy: Always (a sidecar) */
	struct sl_reslist req, lim;
};

/* A container request admission filled in (a LimitRange's defaultRequest): the resource, the
 * object that gave it and the value there. */
struct sl_object;
struct sl_req_default {
	const char *resource;
	const struct sl_object *from;
	const struct sl_ynode *node;
};

struct sl_podspec {
	const struct sl_ynode *node; /* the pod spec mapping */
	const char *namespace;
	struct sl_labels labels;   /* the template's (or the Pod's) labels */
	struct sl_reslist request; /* effective request: containers, init containers, overhead */
	/* With a sidecar (an init container with restartPolicy: Always; this is the first one's
	 * restartPolicy), the request as releases before 1.29 compute it, where that is an init
	 * container like the others; empty otherwise. */
	struct sl_reslist request_legacy;
	const struct sl_ynode *sidecar;
	struct sl_labels node_selector;
	const struct sl_ynode *node_selector_node;
	/* The counts here and below are 32 bits, in pairs: every pod spec would carry a padding
	 * hole beside each alone (an array of a document counts fewer than 2^32). */
	struct sl_term *terms; /* required node affinity; OR'd */
	struct sl_toleration *tols;
	uint32_t nterms, ntols;
	const struct sl_ynode *affinity_node;
	const char *node_name;
	const struct sl_ynode *containers_node;
	struct sl_podterm *affinity, *anti; /* required pod affinity / anti-affinity terms */
	uint32_t naffinity, nanti;
	const struct sl_ynode *affinity_terms_node, *anti_terms_node;
	struct sl_spread *spread; /* every constraint, ScheduleAnyway included */
	const struct sl_ynode *spread_node;
	struct sl_hostport *ports;
	struct sl_volume *volumes; /* volumes that name a PersistentVolumeClaim */
	uint32_t nspread, nports, nvolumes;
	uint32_t ndefaulted, nclaims; /* of defaulted and claims, below */
	/* Priority (priority.h): what the spec writes, and what admission makes of it
	 * (sl_model_resolve_priorities). The flags first, beside the counts above. */
	bool has_priority;         /* spec.priority is written (a running pod's, as the API shows it) */
	signed char preempt_given; /* spec.preemptionPolicy: 0 unwritten, 1 PreemptLowerPriority, -1 Never */
	unsigned char prio_from;   /* enum sl_prio_from: where the priority below comes from */
	bool preempts;             /* resolved: PreemptLowerPriority */
	/* Two flags of the above (beside these, not each padded to 8 bytes in every pod spec): */
	bool has_required_affinity; /* nodeSelectorTerms present (an empty list matches nothing) */
	bool host_network;
	const char *priority_class; /* spec.priorityClassName, or NULL */
	const struct sl_ynode *priority_class_node;
	int64_t priority_given;
	int64_t priority; /* resolved (0 while unknown) */
	/* Requests a LimitRange gave containers that state none (limitrange.c), each resource once:
	 * what request holds beyond the spec as written. Owned. */
	struct sl_req_default *defaulted;
	/* Admission beyond the containers (podlevel.c, runtimeclass.c), once the release is known:
	 * the pod-level requests that took the containers' place in request; the RuntimeClass
	 * applied (its overhead added to request, its nodeSelector and tolerations merged); a key of
	 * the nodeSelector the class gives another value (rc_conflict, the pod's value, and
	 * rc_conflict_with, the class's: the API rejects the pod); spec.schedulingGates when it names
	 * any (the pods wait for a controller to remove them). */
	struct sl_reslist pod_level;
	const struct sl_runtimeclass *runtime_class;
	const struct sl_ynode *rc_conflict, *rc_conflict_with;
	const struct sl_ynode *gates;
	/* spec.resourceClaims (dra.h): the Dynamic Resource Allocation claims of the pod. Owned. */
	struct sl_pod_claim *claims;
};
/* Whether term (of a pod in owner_ns with owner labels) selects a pod in ns with labels. */
bool sl_podterm_matches(const struct sl_podterm *t, const char *owner_ns, const struct sl_labels *owner, const char *ns,
			const struct sl_labels *labels);

/* Read a pod spec (requests, nodeSelector, required node affinity, tolerations, nodeName);
 * input errors go to errs and make it return -1. Free with sl_podspec_free. */
int sl_parse_podspec(const struct sl_source *src, const struct sl_ynode *spec, const char *ns,
		     const struct sl_ynode *labels, struct sl_podspec *out, struct sl_findings *errs);
void sl_podspec_free(struct sl_podspec *p);
/* The containers and then the init containers of p (read without an input error before), in
 * *out (freed by the caller with sl_ctrs_free); returns how many. */
size_t sl_podspec_containers(const struct sl_podspec *p, struct sl_ctr_res **out);
void sl_ctrs_free(struct sl_ctr_res *v, size_t n);
/* The pod's total of its containers' requests (limits: their limits), as resourcehelper's
 * PodRequests / PodLimits aggregate them without overhead; legacy: as before 1.29, where a
 * sidecar is an init container like the others. Added to out. */
void sl_ctrs_aggregate(const struct sl_ctr_res *v, size_t n, bool limits, bool legacy, struct sl_reslist *out);
/* p's request (and request_legacy) made again from its containers v, as admission left them,
 * with its overhead. */
void sl_podspec_set_request(struct sl_podspec *p, const struct sl_ctr_res *v, size_t n);

#endif
