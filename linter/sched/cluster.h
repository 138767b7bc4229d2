/* cluster.h — the cluster index: what the engine knows of the cluster beyond the model, built
 * once per run by sl_cluster_new and shared read-only by every analysis (they may run on several
 * threads). It owns its arrays and indexes; the nodes and pods it points at are the model's.
 * Internal to linter/sched/; sched.h is the engine's interface. */
#ifndef SL_SCHED_CLUSTER_H
#define SL_SCHED_CLUSTER_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/index.h"
#include "sched.h"
#include "status.h"

/* The domains of one topology key: a small id per value of the label, per node. */
struct sl_topo {
	const char *key;
	int32_t *dom; /* per node: the domain, -1 without the label */
	size_t ndom;
	size_t nbare;          /* nodes without the label (dom -1) */
	struct sl_strmap vals; /* value → domain, for a cluster derived from this one (empty in a derived one) */
};

/* The per-node arrays of a finished cycle (cycle.h), kept by its cluster for the next one: a
 * placement's block, with what sl_cycle_take needs to use it again. */
struct sl_cycle_spare {
	int64_t *placed; /* the per-node arrays, as placement.c's carve lays them out */
	size_t *cand;
	struct sl_placement *log;
	size_t caplog;
	int64_t res_base;
	struct sl_cycle_spare *next;
};

struct sl_cluster {
	const struct sl_model *m;
	size_t n;
	/* Running pods (bound to a known node, not finished), grouped by node: node i holds
	 * pods[pod_start[i]] .. pods[pod_start[i + 1] - 1]. */
	size_t *pod_start;
	const struct sl_pod **pods;
	size_t npods;
	size_t *pod_node;
	size_t *all; /* 0 .. npods - 1 */
	/* The running pods' lowest priority and whether one's is unknown: that no pod is a victim for
	 * preemption is known without reading every pod. */
	int64_t min_prio;
	bool unknown_prio;
	struct sl_group_index by_ns;    /* running pods by namespace */
	struct sl_group_index by_label; /* running pods by "namespace\x1fkey\x1fvalue" of each label */
	struct sl_group_index by_pair;  /* running pods by "key\x1fvalue" of each label, any namespace */
	/* Running pods with required anti-affinity, under each term's label it requires (one value
	 * of an In): when every term keeps to the pod's own namespace in anti_by_ns, under
	 * "namespace\x1fkey\x1fvalue", or the namespace alone for a term that requires none; else in
	 * anti_wild under "key\x1fvalue", or "" for a term that requires none. */
	struct sl_group_index anti_by_ns, anti_wild;
	/* Nodes with the same labels (but the hostname), taints and cordon form a class: the filters
	 * that look only at the node give them one verdict. */
	size_t *cls;
	size_t ncls;
	int64_t *nz_cpu, *nz_mem; /* per node: requests as scoring counts them (0 becomes 100m / 200Mi) */
	int64_t *alloc_cpu, *alloc_mem, *used_cpu, *used_mem; /* per node, for scoring */
	int64_t *alloc_eph, *used_eph;
	/* per node, the pods it has room for: its pod limit less its pods (NodeResourcesFit's count),
	 * read without the node; sl_cluster_charge takes the pods it charges */
	int64_t *room;
	/* per node, its running pods that bind host ports: NodePorts walks the pods of those alone */
	int64_t *port_pods;
	struct sl_topo *topos;
	size_t ntopos, captopos;
	struct sl_reasons reasons; /* the reason texts of every analysis */
	/* Per-node verdicts of the node-only filters, by what of a pod spec they read (see
	 * static_key in analyze.c): workloads written alike share them. Guarded by static_lock. */
	struct sl_strpool static_keys;
	bool **static_verdicts; /* indexed like static_keys.v; one per node each */
	size_t capstatic;
	pthread_mutex_t static_lock;
	/* n + 1 false: the excluded array of every pod NodeAffinity's PreFilter narrows nothing for,
	 * shared rather than made and cleared for each workload analysed. */
	bool *none_excluded;
	/* The per-node blocks of the cycles the analyses finished (placement.c), cleared where they
	 * were written and kept for the next workload's: a cluster of thousands of nodes otherwise
	 * zeroes a block per workload. Guarded by spare_lock. */
	struct sl_cycle_spare *spare;
	pthread_mutex_t spare_lock;
	/* The groups of each template of running pods (cluster.c); NULL until refreshed. */
	struct sl_pod_templates *templates;
	struct sl_strpool classes; /* the class keys, by class (empty in a derived cluster) */
	bool charged;              /* sl_cluster_charge ran: the scoring arrays no longer follow the pods */
	/* A cluster derived from base (sl_cluster_derive): pods, pod_node, all and the group indexes
	 * are base's, read only; everything per node is its own. NULL for a cluster built. */
	const struct sl_cluster *base;
	/* The devices of the run's ResourceSlices (dra.h); NULL without any: DRA is not judged. */
	struct sl_dra_index *dra;
};

/* The domains of a key that sl_cluster_new prepared (every key in the model); aborts on
 * another. */
size_t sl_topo_id(const struct sl_cluster *c, const char *key);
static inline int32_t sl_topo_dom(const struct sl_cluster *c, size_t topo, size_t node)
{
	return c->topos[topo].dom[node];
}

/* The index of m, a changed copy of the model base was built on (sl_cluster_new, neither charged
 * nor refreshed): the same running pods and workloads; the same nodes first, by name, labels,
 * taints and cordon (their allocatable and load may differ), then maybe nodes added that no
 * running pod names. Only what is per node is made; the running pods' index, most of the work of
 * a build, is base's, shared read only (base must outlive it). The result is what sl_cluster_new(m)
 * would build, which it falls back to when m differs in any other way. Free it with
 * sl_cluster_free. */
struct sl_cluster *sl_cluster_derive(const struct sl_cluster *base, const struct sl_model *m);

/* count pods of p placed on node i since the index was built: charged to the scoring arrays (the
 * node's own load is its owner's to charge). Only a placement of its own changes an index. */
void sl_cluster_charge(struct sl_cluster *c, size_t i, const struct sl_podspec *p, int64_t count);
/* The model's running pods indexed again (more of them, on the same nodes): the node classes,
 * topologies, node-only verdicts and reason texts are kept, and so are the keys of the pods'
 * groups, so a pod of a template already indexed costs no key. After the first refresh only the
 * pods appended to the model since the last one are indexed, merged among the others (the model's
 * earlier pods must be unchanged); the result is what a build would make. Not while analyses run. */
void sl_cluster_refresh(struct sl_cluster *c);

/* Running pods that a selector of pods in namespace ns can select: those carrying the value of
 * one of its single-valued In requirements, else every pod of the namespace; with any_ns (a term
 * that names other namespaces) the same in every namespace. */
const size_t *sl_running_for(const struct sl_cluster *c, const char *ns, bool any_ns, const struct sl_selector *sel,
			     struct sl_buf *scratch, size_t *n);
/* Each running pod a selector of sels[0 .. nsels) can select, once: fn(ctx, pod index). *stamp
 * (one entry per running pod, allocated on first use) and *epoch belong to the caller, which
 * visits many times. */
void sl_visit_running(const struct sl_cluster *c, const char *ns, bool any_ns, const struct sl_selector *const *sels,
		      size_t nsels, uint32_t **stamp, uint32_t *epoch, void (*fn)(void *ctx, size_t pod), void *ctx);
/* The running pods whose anti-affinity may exclude a pod of namespace ns with one of the label
 * sets gl[0 .. ngl): each once, in the running pods' order. The caller frees the list. */
size_t *sl_anti_candidates(const struct sl_cluster *c, const char *ns, const struct sl_labels *gl, size_t ngl,
			   size_t *n);

/* DynamicResources beyond its filter (dynamic_resources.c): whether a pod of p has claims the
 * run judges; its PreFilter failing (every node of n rejected alike, fit may be NULL); count pods
 * of p bound to node i, their devices taken (sl_cluster_charge). */
bool sl_dra_judged(const struct sl_cluster *cl, const struct sl_podspec *p);
bool sl_dra_prefilter_fails(struct sl_cluster *cl, const struct sl_podspec *p, size_t n, struct sl_nodefit *fit,
			    bool *static_ok);
void sl_dra_charge(struct sl_cluster *c, size_t i, const struct sl_podspec *p, int64_t count);

#endif
