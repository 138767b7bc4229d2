/* gang.h — work admitted or scheduled as a whole: Volcano PodGroups (scheduling.volcano.sh), the
 * PodGroup a Volcano Job (batch.volcano.sh, vcjob.h) makes, scheduler-plugins' coscheduling
 * PodGroups (scheduling.x-k8s.io) and Kueue's queues (kueue.x-k8s.io ClusterQueue and
 * LocalQueue), read from the manifests, and the workloads bound to them. Each object is one
 * allocation with its arrays (sl_podgroup_free, sl_kqueue_free); strings and nodes point into
 * the trees. */
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

/* Who holds the group's pods back: Volcano's gang plugin for a PodGroup its pods name or for the
 * one a Volcano Job makes (obj: the Job), the Coscheduling plugin of scheduler-plugins, or
 * kube-scheduler's own GangScheduling plugin for a Workload's pod group (kgang.h; obj: the
 * Workload). */
enum sl_gang_flavor { SL_GANG_VOLCANO, SL_GANG_VCJOB, SL_GANG_COSCHED, SL_GANG_KUBE };

/* A gang: none of its pods is bound until min_member of them (and, for a Volcano Job, each task's
 * minAvailable) can be bound at once, and the cluster holds minResources. */
struct sl_podgroup {
	struct sl_object obj;
	enum sl_gang_flavor flavor;
	int64_t min_member; /* minMember (Volcano: 1 when unset; coscheduling: 0) or a Job's minAvailable */
	const struct sl_ynode *min_node; /* NULL: defaulted */
	struct sl_reslist min_res;       /* spec.minResources (none for a Volcano Job's) */
	const struct sl_ynode *min_res_node;
	/* The workloads whose pods are in it (for coscheduling, also those its plugin does not hold:
	 * their pods count for the quorum), the pods they make together and the first it holds (where
	 * a finding about the whole group goes): set by sl_gang_bind, or by the Job's reader. */
	size_t nworkloads;
	int64_t members;
	const struct sl_workload *first;
	/* SL_GANG_KUBE: the pod group's name and the podGroupReplicaKey of its pods ("" when none:
	 * each key is a gang of its own); NULL otherwise. */
	const char *group, *replica;
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

/* "PodGroup pg", "Job train" or "Workload train, pod group workers" (out: n bytes); the name of
 * its minimum ("minMember", "minAvailable", "minCount"); and what holds that minimum ("PodGroup",
 * "Job", "pod group"). */
void sl_gang_name(const struct sl_podgroup *g, char *out, unsigned n);
const char *sl_gang_min_key(const struct sl_podgroup *g);
const char *sl_gang_holder(const struct sl_podgroup *g);
/* Whether o is a PodGroup, a Kueue queue or a Kueue ResourceFlavor (kflavor.h) these readers take. */
bool sl_gang_kind(const struct sl_object *o);
/* Read o (sl_gang_kind) into the model's arrays; -1 after an input error, with nothing kept. */
int sl_gang_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m);
/* Bind every workload to the PodGroup its pods name and to the ClusterQueue of its queue-name
 * label, and set what each gang needs of each of its workloads (sl_wgang.gang_need); call
 * once, after loading. */
void sl_gang_bind(struct sl_model *m);
/* Count w's pods in g (nworkloads, members; first: the first w whose podgroup g is). */
void sl_gang_join(struct sl_podgroup *g, struct sl_workload *w);
/* The pod template of w, where its pods name their gang (a bare Pod: the object itself). */
const struct sl_ynode *sl_gang_template(const struct sl_workload *w);
void sl_podgroup_free(struct sl_podgroup *g);
void sl_kqueue_free(struct sl_kqueue *q);

#endif
