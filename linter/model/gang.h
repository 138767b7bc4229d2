/* gang.h — work admitted or scheduled as a whole: Volcano PodGroups (scheduling.volcano.sh) and
 * Kueue's queues (kueue.x-k8s.io ClusterQueue and LocalQueue), read from the manifests, and the
 * workloads bound to them. Each object is one allocation with its arrays (sl_podgroup_free,
 * sl_kqueue_free); strings and nodes point into the trees. */
#ifndef SL_GANG_H
#define SL_GANG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "resources.h"

struct sl_read;
struct sl_model;
struct sl_workload;

/* A Volcano PodGroup: Volcano binds none of its pods until minMember of them can be bound at once
 * and the cluster holds minResources. Or a gang of Kubernetes' own (kgang.h): the pod group
 * `group` of the Workload obj, whose pods the scheduler binds only minCount at once. */
struct sl_podgroup {
	struct sl_object obj;
	int64_t min_member; /* spec.minMember; 1 when unset (Volcano's default); or minCount */
	const struct sl_ynode *min_node;
	struct sl_reslist min_res; /* spec.minResources */
	const struct sl_ynode *min_res_node;
	/* Kubernetes' own: the pod group's name and the podGroupReplicaKey of its pods ("" when
	 * none: each key is a gang of its own); NULL for Volcano's. */
	const char *group, *replica;
	size_t nworkloads;               /* workloads whose pods name it (sl_gang_bind) */
	int64_t pods;                    /* the pods they make together (their replicas, summed) */
	const struct sl_workload *first; /* the first of them */
};

/* One quota of a ClusterQueue: resource of flavor, in resource group `group`. */
struct sl_kquota {
	size_t group;
	const char *flavor, *resource;
	int64_t nominal;
	int64_t borrow, lend;        /* borrowingLimit, lendingLimit; -1 when unset (no limit) */
	const struct sl_ynode *node; /* nominalQuota */
};

/* A Kueue ClusterQueue (cluster-scoped) or LocalQueue (namespaced, naming its ClusterQueue). */
struct sl_kqueue {
	struct sl_object obj;
	bool cluster;
	const char *cohort;        /* ClusterQueue: spec.cohort; NULL when none */
	const char *cluster_queue; /* LocalQueue: spec.clusterQueue */
	struct sl_kquota *q;
	size_t nq;
};

/* Whether o is a PodGroup or a Kueue queue these readers take. */
bool sl_gang_kind(const struct sl_object *o);
/* Read o (sl_gang_kind) into the model's arrays; -1 after an input error, with nothing kept. */
int sl_gang_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m);
/* Bind every workload to the PodGroup its pods name and to the ClusterQueue of its queue-name
 * label, and mark the gangs' workloads all_at_once (call once, after loading, and after
 * sl_kgang_bind, whose gangs it marks too). */
void sl_gang_bind(struct sl_model *m);
/* The pod template of w, where its pods name their gang (a bare Pod: the object itself). */
const struct sl_ynode *sl_gang_template(const struct sl_workload *w);
/* Count w's pods in g's (binding). */
void sl_podgroup_add(struct sl_podgroup *g, const struct sl_workload *w);
/* How messages name g: "PodGroup trainer", "Workload trainer, pod group workers"; and its
 * minimum: "minMember", "minCount". */
void sl_gang_label(const struct sl_podgroup *g, char *out, size_t n);
const char *sl_gang_min_name(const struct sl_podgroup *g);
void sl_podgroup_free(struct sl_podgroup *g);
void sl_kqueue_free(struct sl_kqueue *q);

#endif
