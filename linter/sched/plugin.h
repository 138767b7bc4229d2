/* plugin.h — the filter plugins of kube-scheduler's default profile, one file each, named after
 * the plugin (pkg/scheduler/framework/plugins/<plugin>/), and listed once, in the profile's order,
 * in plugins.c. Every plugin has a Filter; those that read other pods also keep a PreFilter state
 * in the cycle (cycle.h), filled from the running pods (prefilter), updated as the workload's
 * own pods are placed (add_pod, PreFilterExtensions.AddPod) and released with the cycle.
 *
 * To add a filter: write linter/sched/<plugin>.c with its Filter (and state hooks when it reads
 * other pods), declare them below, give it an enum sl_plugin value in sched.h, and list it in
 * plugins.c at its place in the profile. Internal to linter/sched/. */
#ifndef SL_SCHED_PLUGIN_H
#define SL_SCHED_PLUGIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cycle.h"

struct sl_filter_plugin {
	enum sl_plugin id;
	const char *name; /* as kube-scheduler names it (and its FailedScheduling events) */
	/* Reads the node and the pod spec alone: judged before any placement, once per class of
	 * identical nodes when the pod names no node. */
	bool node_only;
	/* Evicting pods could make a node pass: it reads other pods, never labels, taints or the
	 * cordon. */
	bool preemptible;
	/* Filter: whether the cycle's incoming pod may go to node; when not and out is not NULL, the
	 * plugin and its reason are recorded there. */
	bool (*filter)(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
	/* PreFilter, for the cycle's generation: the state from the running pods. NULL: none. */
	void (*prefilter)(struct sl_cycle *cy);
	/* AddPod: a pod of the workload, of generation gen, now on node. NULL: nothing to count. */
	void (*add_pod)(struct sl_cycle *cy, size_t node, int gen);
	/* After prefilter or add_pod: what is derived from the counts (the spread's minimum). */
	void (*refresh)(struct sl_cycle *cy);
	void (*release)(struct sl_cycle *cy);
	/* After prefilter: whether the filter passes every node for the rest of the cycle, whatever
	 * of the workload is placed (it has nothing to judge), so placement need not ask it. NULL:
	 * always asked. */
	bool (*idle)(const struct sl_cycle *cy);
};

/* The profile's filters, in its order (plugins.c). */
extern const struct sl_filter_plugin sl_filter_plugins[];
extern const size_t sl_nfilter_plugins;

/* The node-only filters in order: whether all pass (the first failure is recorded in out). */
bool sl_filter_node_only(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
/* The others in order: the first that fails, or SL_FITS. out may be NULL (the verdict alone). */
enum sl_plugin sl_filter_others(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
/* The filters sl_filter_others asks that are not idle for the cycle as it now is, into
 * cy->active (after the prefilter); sl_filter_fits asks only those, in the same order, so a node
 * fits exactly when sl_filter_others says so. */
void sl_filter_plan(struct sl_cycle *cy);
bool sl_filter_fits(const struct sl_cycle *cy, size_t node);
/* Every stateful plugin's hook, in order. */
void sl_plugins_prefilter(struct sl_cycle *cy);
void sl_plugins_add_pod(struct sl_cycle *cy, size_t node, int gen);
void sl_plugins_refresh(struct sl_cycle *cy);
void sl_plugins_release(struct sl_cycle *cy);

/* NodeUnschedulable: a cordoned node, unless the pod tolerates its taint. */
bool sl_node_unschedulable_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);

/* NodeName: spec.nodeName names another node. */
bool sl_node_name_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);

/* TaintToleration: a NoSchedule or NoExecute taint the pod does not tolerate. */
bool sl_taint_toleration_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
/* Whether p tolerates taint, counting the tolerations admission adds to every pod. */
bool sl_pod_tolerates(const struct sl_podspec *p, const struct sl_taint *taint);

/* NodeAffinity: nodeSelector and required node affinity. */
bool sl_node_affinity_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
/* Its PreFilter: when every required term names nodes with matchFields metadata.name In, only
 * the union of those names is filtered at all. Returns true and marks the others excluded
 * (per node of m) when it narrows. */
bool sl_node_affinity_prefilter(const struct sl_podspec *p, const struct sl_model *m, bool *excluded);

/* NodePorts: a host port the pod wants is taken on the node, by a running pod or one of the
 * workload's own placed there. */
bool sl_node_ports_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
bool sl_node_ports_idle(const struct sl_cycle *cy);
/* Whether a port in want[0 .. nwant) conflicts with one in used[0 .. nused) (same protocol and
 * port, either address the wildcard or both the same). */
bool sl_ports_conflict(const struct sl_hostport *want, size_t nwant, const struct sl_hostport *used, size_t nused);

/* NodeResourcesFit: the pod count and every resource the scheduler checks. */
/* Whether it checks a resource of this name: cpu, memory, ephemeral-storage and the scalar ones
 * (extended, hugepages-*, attachable-volumes-*); any other a pod names is not counted. */
bool sl_resource_checked(const char *name);
bool sl_node_resources_fit_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
void sl_node_resources_fit_prefilter(struct sl_cycle *cy);
void sl_node_resources_fit_release(struct sl_cycle *cy);
/* The filter on its own: allocatable < request + requested (+ `placed` more of this pod). With out
 * NULL, stops at the first shortage. Returns whether anything is short. Reasons go to pool. */
bool sl_resources_short(struct sl_reasons *pool, const struct sl_podspec *p, const struct sl_node *n, int64_t placed,
			struct sl_nodefit *out);
/* A pod's requests in the form the capacity count wants: the three resources every node has,
 * and the scalar (extended) ones it names. */
struct sl_podres {
	bool all_zero;
	int64_t cpu, mem, eph;
	const struct sl_res *scalar[8];
	size_t nscalar;
	bool many; /* more scalar resources than fit above: use the general count */
};
void sl_podres_init(struct sl_podres *r, const struct sl_podspec *p);
/* sl_resources_short for many nodes and one pod, its requests r read once (sl_podres_init): why[k]
 * keeps the reason joined for p->request.v[k] (NULL until it is first needed), so that it is
 * joined once per pod, not once per node. */
bool sl_resources_short_why(struct sl_reasons *pool, const char **why, const struct sl_podres *r,
			    const struct sl_podspec *p, const struct sl_node *n, int64_t placed,
			    struct sl_nodefit *out);
/* sl_resources_short_why for node i of cl, the basic resources and the pod count read from cl's
 * arrays (what the node's lists hold). */
bool sl_resources_short_at(struct sl_reasons *pool, const char **why, const struct sl_podres *r,
			   const struct sl_podspec *p, const struct sl_cluster *cl, size_t i, int64_t placed,
			   struct sl_nodefit *out);
/* sl_node_slots with the pod's requests r read once (sl_podres_init). */
int64_t sl_node_slots_of(const struct sl_podres *r, const struct sl_podspec *p, const struct sl_node *n,
			 const struct sl_nodefit *fit, const char **limit);
/* sl_node_slots for node i, which passes the other filters, from the cluster's arrays. */
int64_t sl_node_capacity(const struct sl_cluster *c, const struct sl_podres *r, const struct sl_podspec *p, size_t i);
/* A request as scoring counts it: 0 cpu or memory becomes 100m or 200Mi. */
int64_t sl_nonzero_request(const struct sl_podspec *p, const char *res);
/* Score: NodeResourcesFit's LeastAllocated plus NodeResourcesBalancedAllocation for node, with
 * the next pod of the workload on it. */
int64_t sl_resources_score(const struct sl_cycle *cy, size_t node);

/* NodeVolumeLimits: the CSI volumes of each driver on the node, with the pod's, within the
 * CSINode's allocatable.count. Unschedulable; idle when the pod's claims meet no limit. */
bool sl_node_volume_limits_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
void sl_node_volume_limits_prefilter(struct sl_cycle *cy);
void sl_node_volume_limits_release(struct sl_cycle *cy);
bool sl_node_volume_limits_idle(const struct sl_cycle *cy);

/* VolumeBinding, for bound claims: the PersistentVolume's required node affinity must admit the
 * node. VolumeZone: the volume's zone and region labels must name the node's. Both
 * UnschedulableAndUnresolvable; idle when the cycle's pod has no volume they judge. */
bool sl_volume_binding_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
bool sl_volume_zone_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
bool sl_volume_idle(const struct sl_cycle *cy);
/* Whether v gives VolumeBinding's or VolumeZone's Filter nothing to judge on any node. */
bool sl_volset_idle(const struct sl_volset *v);
/* What the volume filters judge for a pod of w: chosen when the analysis chose (a StatefulSet's
 * ordinal), else the workload's one resolution; NULL: none. */
const struct sl_volset *sl_volset_of(const struct sl_workload *w, const struct sl_volset *chosen);
/* Both volume filters for v on node (the first failure into out, which may be NULL). */
bool sl_volume_verdict(const struct sl_cluster *cl, const struct sl_volset *v, size_t node, struct sl_nodefit *out);
/* The resolution an analysis of w judges: the workload's one, or of a StatefulSet's differing
 * ordinals the first whose PreFilter fails or that no node passing the node-only filters takes;
 * NULL when none. */
const struct sl_volset *sl_volumes_choose(struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
					  const bool *static_ok);
/* VolumeBinding's PreFilter failed for v: every node of n rejected alike (fit may be NULL). */
void sl_volume_prefilter_fails(const struct sl_volset *v, size_t n, struct sl_nodefit *fit, bool *static_ok);

/* PodTopologySpread: DoNotSchedule constraints filter; ScheduleAnyway ones only score. */
/* (sl_spread_defaults, in sched.h: whether a pod gets the system defaults.) */
bool sl_pod_topology_spread_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
void sl_pod_topology_spread_prefilter(struct sl_cycle *cy);
void sl_pod_topology_spread_add_pod(struct sl_cycle *cy, size_t node, int gen);
void sl_pod_topology_spread_refresh(struct sl_cycle *cy);
void sl_pod_topology_spread_release(struct sl_cycle *cy);
bool sl_pod_topology_spread_idle(const struct sl_cycle *cy);
/* The one DoNotSchedule constraint of the incoming pod, for a proof that its pods fit without
 * placing them (placement.c's sl_place_all_fits), as this PreFilter counted it. */
struct sl_spread_view {
	size_t topo;           /* its topology key's */
	const int64_t *cnt;    /* matching pods per domain (read only where present) */
	const bool *present;   /* the domains the global minimum is taken over */
	int64_t max_skew;      /* at least 1 */
	int64_t min;           /* the minimum the skew is measured from now (it never falls) */
	bool true_min;         /* that is the fewest counted in a present domain (minDomains met) */
	bool other_gen_counts; /* its selector matches a pod of the other generation */
};
/* Whether the filter is that alone: a single DoNotSchedule constraint (ScheduleAnyway ones only
 * score) that selects the incoming pod itself, with a domain to measure from; then *v
 * describes it. */
bool sl_pod_topology_spread_one_hard(const struct sl_cycle *cy, struct sl_spread_view *v);
/* Score: for each candidate, 0..100 (normalized; fewer matching pods is better) into score[c].
 * Returns false, leaving score alone, when the pod has no ScheduleAnyway constraint. */
bool sl_pod_topology_spread_scores(const struct sl_cycle *cy, const size_t *cand, size_t ncand, int64_t *score);

/* InterPodAffinity: required affinity and anti-affinity, the pod's own and the running pods'. */
bool sl_inter_pod_affinity_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
void sl_inter_pod_affinity_prefilter(struct sl_cycle *cy);
void sl_inter_pod_affinity_add_pod(struct sl_cycle *cy, size_t node, int gen);
void sl_inter_pod_affinity_release(struct sl_cycle *cy);
bool sl_inter_pod_affinity_idle(const struct sl_cycle *cy);

/* DynamicResources: the pod's ResourceClaims allocatable from devices the node reaches (dra.h).
 * Idle for a pod without claims, or when the run has no ResourceSlice. */
bool sl_dynamic_resources_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);
void sl_dynamic_resources_prefilter(struct sl_cycle *cy);
void sl_dynamic_resources_add_pod(struct sl_cycle *cy, size_t node, int gen);
void sl_dynamic_resources_release(struct sl_cycle *cy);
bool sl_dynamic_resources_idle(const struct sl_cycle *cy);

#endif
