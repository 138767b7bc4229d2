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

/* A Volcano PodGroup: Volcano binds none of its pods until minMember of them can be bound at once
 * and the cluster holds minResources. */
struct sl_podgroup {
	struct sl_object obj;
	int64_t min_member; /* spec.minMember; 1 when unset (Volcano's default) */
	const struct sl_ynode *min_node;
	struct sl_reslist min_res; /* spec.minResources */
	const struct sl_ynode *min_res_node;
	size_t nworkloads; /* workloads whose pods name it (sl_gang_bind) */
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

/* Whether o is a PodGroup, a Kueue queue or a Kueue ResourceFlavor (kflavor.h) these readers take. */
bool sl_gang_kind(const struct sl_object *o);
/* Read o (sl_gang_kind) into the model's arrays; -1 after an input error, with nothing kept. */
int sl_gang_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m);
/* Bind every workload to the PodGroup its pods name and to the ClusterQueue of its queue-name
 * label (call once, after loading). */
void sl_gang_bind(struct sl_model *m);
void sl_podgroup_free(struct sl_podgroup *g);
void sl_kqueue_free(struct sl_kqueue *q);

#endif
