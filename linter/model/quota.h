/* quota.h — ResourceQuotas (namespaced): what each holds back (spec.hard), which pods it applies
 * to (spec.scopes, spec.scopeSelector) and what already runs against it (status.used, when the
 * cluster's own copy is among the inputs); and what one pod of a template charges to a quota, as
 * the quota admission plugin's pod evaluator counts it (pkg/quota/v1/evaluator/core/pods.go).
 * A quota owns its arrays (sl_quota_free); strings and nodes point into the tree. */
#ifndef SL_QUOTA_H
#define SL_QUOTA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "resources.h"

struct sl_read;
struct sl_model;
struct sl_podspec;
struct sl_workload;

/* The scopes a quota may name (corev1.ResourceQuotaScope). */
enum sl_qscope {
	SL_QS_TERMINATING,
	SL_QS_NOT_TERMINATING,
	SL_QS_BEST_EFFORT,
	SL_QS_NOT_BEST_EFFORT,
	SL_QS_PRIORITY_CLASS,
	SL_QS_CROSS_NAMESPACE_AFFINITY,
};
enum sl_qscope_op { SL_QOP_EXISTS, SL_QOP_DOES_NOT_EXIST, SL_QOP_IN, SL_QOP_NOT_IN };

/* One scope: a spec.scopes entry (Exists) or a scopeSelector.matchExpressions entry. */
struct sl_qscope_req {
	enum sl_qscope scope;
	enum sl_qscope_op op;
	const char **values; /* PriorityClass In / NotIn */
	size_t nvalues;
	const struct sl_ynode *node;
};

/* One spec.hard entry, in the unit the scheduler counts the resource it names in (cpu in
 * milli-units), with status.used's amount for it when the quota carries a status. */
struct sl_qitem {
	const char *name;
	int64_t hard, used;
	bool has_used;
	const struct sl_ynode *node; /* the hard amount */
};

struct sl_quota {
	struct sl_object obj;
	struct sl_qitem *items;
	size_t nitems;
	struct sl_qscope_req *scopes; /* all must select a pod for the quota to apply to it */
	size_t nscopes;
	bool has_status; /* status.used is written: what already runs is counted in it */
	bool inventory;  /* read from an inventory (the cluster's own copy) */
};

/* What one pod charges to quotas and what their scopes ask of it. */
struct sl_qpod {
	const struct sl_reslist *request; /* effective requests (sl_podspec.request) */
	struct sl_reslist limits;         /* PodLimits: containers summed, max'd with init containers, + overhead */
	const char *priority_class;       /* after the Priority admission plugin: the globalDefault's when unset */
	bool best_effort, terminating, cross_namespace;
	bool terminal; /* a running pod that has finished (Succeeded, Failed): only count/pods */
};

/* Read the ResourceQuota o (c: model_read.h) into *out; -1 after an input error, with nothing
 * kept. */
int sl_quota_read(struct sl_read *c, const struct sl_object *o, struct sl_quota **out);
void sl_quota_free(struct sl_quota *q); /* and q itself */
/* The quota facts of the pod spec p: of a template (phase NULL), or of a running pod (phase: its
 * status.phase, "" without one). Free with sl_qpod_free. */
void sl_qpod_of(const struct sl_model *m, const struct sl_podspec *p, const char *phase, struct sl_qpod *out);
void sl_qpod_free(struct sl_qpod *p);
/* Whether every scope of q selects the pod (a quota without scopes selects every pod). */
bool sl_quota_selects(const struct sl_quota *q, const struct sl_qpod *p);
/* What one pod charges to the quota resource `name` ("pods", "requests.cpu", "limits.memory",
 * "count/pods", "requests.nvidia.com/gpu"...); -1 when pods are not what the resource counts
 * (services, claims, count/deployments.apps). */
int64_t sl_qpod_usage(const struct sl_qpod *p, const char *name);
/* For "count/<resource>.<group>": whether it counts objects of w's kind (a Deployment is one
 * count/deployments.apps). */
bool sl_quota_counts_object(const char *name, const struct sl_workload *w);
/* --explain: per quota of w's namespace whose scopes select its pods, one line into out ("  quota
 * ResourceQuota shop/pods (pods: hard 3): room for 3 pods of this template, ..."): the pods its
 * tightest entry leaves room for beside status.used, the run's other workloads not counted. */
struct sl_buf;
void sl_quota_explain(const struct sl_model *m, const struct sl_workload *w, struct sl_buf *out);
/* "ResourceQuota team/compute" */
void sl_quota_ref(const struct sl_quota *q, char *out, unsigned n);

#endif
