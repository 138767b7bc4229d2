/* workload.h — workloads: the kinds that make pods from a template (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet, Job, CronJob, ReplicationController) and bare Pods to schedule, with
 * their replicas, selector and rollout parameters. A workload owns its pod spec and selector
 * (sl_workload_free); the budgets and autoscaler bound to it belong to the model. */
#ifndef SL_WORKLOAD_H
#define SL_WORKLOAD_H
#include <stdbool.h>
#include <stdint.h>

#include "job.h"
#include "labels.h"
#include "object.h"
#include "podspec.h"

struct sl_hpa;
struct sl_kchoice;
struct sl_kqueue;
struct sl_podgroup;
struct sl_pdb;
struct sl_read;
struct sl_wstorage;

enum sl_strategy { SL_STRATEGY_NONE, SL_STRATEGY_ROLLING, SL_STRATEGY_RECREATE };

/* An int-or-percent rollout parameter, as written or as the API server defaults it. */
struct sl_intpct {
	bool set; /* written in the manifest */
	bool percent;
	int64_t v;
	const struct sl_ynode *node;
};

/* A workload's gang and Kueue queue (sl_workload.gang), bound by sl_gang_bind (gang.h): the
 * Volcano PodGroup its pods name (gang_at: the annotation), and the ClusterQueue its Kueue
 * queue-name label (queue_at) leads to; NULL: none, or not among the inputs. */
struct sl_wgang {
	const struct sl_podgroup *podgroup;
	const struct sl_ynode *gang_at;
	/* How many of its own pods the gang needs bound at once: minMember less the pods of the
	 * group's other workloads, at least a Volcano task's own minAvailable (task_min, where
	 * Volcano's gang plugin applies it; task_min_node: NULL when defaulted). 0: no gang. */
	int64_t gang_need, task_min;
	const struct sl_ynode *task_min_node;
	/* A coscheduling PodGroup its pods name (the label: gang_at) while they go to a scheduler
	 * that does not run the Coscheduling plugin: not a gang (podgroup stays NULL). */
	const struct sl_podgroup *unheld;
	const char *unheld_by; /* that scheduler's name */
	const struct sl_kqueue *kqueue;
	const struct sl_ynode *queue_at;
	/* With ResourceFlavors known (kflavor.h): every flavor of that ClusterQueue judged for its
	 * pods as written (owned), and what the flavors do to the pod spec (enum sl_kplace; with
	 * SL_KPLACE_SET, the workload's pod holds the flavors' nodeLabels and tolerations: its
	 * kplace). */
	struct sl_kchoice *kchoice;
	size_t nkchoice;
};
/* Every field NULL or 0: what sl_wgang gives for a workload with neither gang nor queue. */
extern const struct sl_wgang sl_wgang_none;

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
	/* Its pods are useful only all at once (a gang): fewer fitting than replicas runs nothing,
	 * rather than running in waves. Set by the reader of whatever makes it a gang. (Beside
	 * strategy, and kplace: each alone would be padded to 8 bytes, in every workload.) */
	bool all_at_once;
	unsigned char kplace; /* with gang->kchoice (sl_wgang) */
	const struct sl_ynode *strategy_node, *type_node, *rolling_node;
	struct sl_intpct max_surge, max_unavailable;
	/* Jobs, CronJobs and JobSets' replicatedJobs (job.h): replicas is the pods kept at once. NULL
	 * for the other kinds (most workloads: a fifth of a workload's bytes saved in each); read it
	 * through sl_wbatch. Owned. */
	struct sl_batch *batch;
	char *owned_name; /* obj.name when the reader made it (a JobSet's "<jobset>-<replicatedJob>") */
	/* Bound by sl_model_bind_pods: the budgets whose selector selects the template's labels in
	 * its namespace, in input order, and the first autoscaler that names it as its target. */
	const struct sl_pdb *const *pdbs;
	size_t npdbs;
	const struct sl_hpa *hpa;
	/* Bound by sl_gang_bind (gang.h): its gang and its Kueue queue. NULL for most workloads, which
	 * have neither (a ninth of a workload's bytes saved in each): read it through sl_wgang, set it
	 * through sl_wgang_mut. Owned. */
	struct sl_wgang *gang;
	/* The selectors of the Services of its namespace that select the template's labels, merged
	 * as helper.DefaultSelector merges them (every pair, each key once; none: no such Service).
	 * Owned (its requirement arrays; the strings are the Services'). */
	struct sl_selector svc;
	/* Bound by sl_storage_relate (storage.h): what its pods' claims pin them to, per distinct
	 * resolution (a StatefulSet's ordinals may differ); NULL when no claim judges anything. */
	const struct sl_wstorage *storage;
};

/* w's gang and queue (sl_wgang_none when it has neither), and the same to set, made on first use. */
static inline const struct sl_wgang *sl_wgang(const struct sl_workload *w)
{
	return w->gang ? w->gang : &sl_wgang_none;
}
struct sl_wgang *sl_wgang_mut(struct sl_workload *w);

/* w's batch, or one that is not (sl_batch_none: is false) when w runs no Job. */
static inline const struct sl_batch *sl_wbatch(const struct sl_workload *w)
{
	return w->batch ? w->batch : &sl_batch_none;
}

/* Whether objects of kind k are workloads the model reads (bare Pods included). */
bool sl_workload_kind(const char *k);
/* Deployment, StatefulSet, ReplicaSet, ReplicationController: kinds whose pods have a controller
 * with a scale the disruption controller reads. */
bool sl_scaled_kind(const char *kind);

/* An int-or-percent of total, a percentage rounded up or down, as the Deployment controller
 * resolves maxSurge and maxUnavailable (ResolveFenceposts). */
int64_t sl_intpct_resolve(const struct sl_intpct *p, int64_t total, bool round_up);
/* Human form of an int-or-percent: "25%" or "1". */
void sl_intpct_format(const struct sl_intpct *p, char *out, unsigned n);

/* Read the workload o (of a kind sl_workload_kind names; c: model_read.h) into *out, which is
 * NULL when it holds no pod template (a manifest fragment). Returns -1 after an input error,
 * with nothing kept. */
int sl_workload_read(struct sl_read *c, const struct sl_object *o, struct sl_workload **out);
void sl_workload_free(struct sl_workload *w); /* and w itself */

#endif
