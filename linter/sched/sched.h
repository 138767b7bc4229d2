/* sched.h — the engine's interface: the scheduler's semantics as kube-scheduler's default profile
 * (v1.26) applies them, for the rules. Behind it, in linter/sched/: one file per filter plugin,
 * listed in profile order in plugins.c (the interface in plugin.h), the cluster index and node
 * classes (cluster.c), the per-pod cycle state and sequential placement with scoring
 * (cycle.h, placement.c), verdicts and the FailedScheduling text (status.c), and the analysis of
 * one workload (analyze.c). An analysis owns its arrays and strings; the cluster index owns its
 * own and the reason texts every analysis points at.
 *
 * The engine (linter/sched/): the scheduler's and the controllers' semantics over the model.
 * May include: base/, load/ and model/; the rules above read it through this
 * header alone. */
#ifndef SL_SCHED_H
#define SL_SCHED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/k8s.h"

enum sl_plugin {
	SL_FITS = 0,
	SL_PL_NODE_UNSCHEDULABLE,
	SL_PL_NODE_NAME,
	SL_PL_TAINT_TOLERATION,
	SL_PL_NODE_AFFINITY,
	SL_PL_NODE_PORTS,
	SL_PL_NODE_RESOURCES_FIT,
	SL_PL_POD_TOPOLOGY_SPREAD,
	SL_PL_INTER_POD_AFFINITY,
	/* The volume plugins, which the profile runs after NodeResourcesFit (plugins.c has the order). */
	SL_PL_VOLUME_BINDING,
	SL_PL_VOLUME_ZONE,
	SL_PL_NODE_VOLUME_LIMITS,
	SL_PL_DYNAMIC_RESOURCES, /* the last filter of the profile (from 1.34) */
};
#define SL_PL_LAST SL_PL_DYNAMIC_RESOURCES
/* VolumeBinding's Filter reasons (ErrReasonNodeConflict, ErrReasonBindConflict). */
#define SL_REASON_VOLUME_NODE_CONFLICT "node(s) had volume node affinity conflict"
#define SL_REASON_VOLUME_BIND_CONFLICT "node(s) didn't find available persistent volumes to bind"
/* ErrReasonNotEnoughSpace: no CSIStorageCapacity lets the provisioner make the claim's volume. */
#define SL_REASON_VOLUME_NO_SPACE "node(s) did not have enough free storage"
/* ErrReasonPVNotExist: a claim bound to a volume that does not exist. */
#define SL_REASON_VOLUME_PV_NOT_EXIST "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
const char *sl_plugin_name(enum sl_plugin p);
/* Whether evicting pods could ever make a node pass this filter (it cannot change labels,
 * taints or cordons). */
bool sl_plugin_preemptible(enum sl_plugin p);

/* A pod placed by preemption (sched/preemption.c): the node nominated and the running pods it
 * evicts, most important first. */
struct sl_pod;
struct sl_preempt_step {
	size_t node;
	const struct sl_pod **victims; /* the model's running pods */
	const struct sl_pdb **broken;  /* per victim: the first PodDisruptionBudget its eviction breaks, or NULL */
	size_t nvictims;
	bool tie;   /* the scheduler could as well have nominated another node */
	bool surge; /* a pod of the rollout's new generation */
};

/* Where a placement stops: the first pod (fit), the next replica (steady_fit), the next surge pod
 * (rollout_fit). */
enum sl_stop { SL_STOP_FIT, SL_STOP_STEADY, SL_STOP_ROLLOUT };

/* What DefaultPreemption found for the pod where a placement stops, every node failing it: nodes
 * where evicting pods cannot help (a filter they do not change), where no pod of lower priority
 * runs, where the pod lacks room even with all of them gone, and where the dry run was not
 * modelled. */
struct sl_preempt_summary {
	bool evaluated; /* the PostFilter ran */
	bool eligible;  /* preemptionPolicy PreemptLowerPriority */
	size_t not_helpful, no_victims, fails, unknown;
};

/* DefaultPreemption's verdict on one node (sched/preemption.c). */
enum sl_preempt_verdict {
	SL_PN_NOT_HELPFUL = 0, /* a filter evicting pods does not change: "Preemption is not helpful…" */
	SL_PN_NO_VICTIMS,      /* no running pod of lower priority: "No preemption victims found…" */
	SL_PN_FAILS,           /* the pod does not fit even with every lower-priority pod gone */
	SL_PN_CANDIDATE,       /* it fits once the victims go */
	SL_PN_UNKNOWN,         /* a filter this dry run does not model decides (inter-pod terms, spread) */
};

#define SL_MAX_REASONS 8
struct sl_nodefit {
	enum sl_plugin plugin; /* SL_FITS when every filter passes */
	bool excluded;         /* left out by PreFilter: not run, not counted in the reasons */
	/* A PreFilter failed (plugin's): every node shares the verdict, and FitError prints the
	 * reason once, without a count, in place of the filters' histogram. */
	bool prefilter;
	size_t nreasons;
	const char *reasons[SL_MAX_REASONS]; /* static or interned by the cluster: never freed here */
};
void sl_nodefit_clear(struct sl_nodefit *f);

/* What DefaultPreemption finds on each node for the pod where a placement stops (--explain). */
struct sl_preempt_view_node {
	enum sl_preempt_verdict verdict;
	/* SL_PN_NOT_HELPFUL: the filter that fails, which evicting pods does not change; SL_PN_FAILS:
	 * the filter that still fails with every lower-priority pod gone. */
	struct sl_nodefit why;
	struct sl_preempt_step victims; /* SL_PN_CANDIDATE: the victims, as a step would evict them */
	bool nominated;                 /* the candidate the scheduler nominates (or one of the tie) */
};
struct sl_preempt_view {
	bool evaluated; /* there is such a pod, and no node passes for it */
	bool eligible;  /* preemptionPolicy PreemptLowerPriority: else nodes is NULL */
	bool lower;     /* some running pod has a lower priority: else no node has a victim */
	size_t n;
	struct sl_preempt_view_node *nodes;
};

struct sl_cluster;
/* Dynamic Resource Allocation as the engine sees it for a pod (dra_view.c), for the rules' notes
 * and --explain: each request's alternatives, and per node how many devices it reaches match one
 * and how many of those a claim of the inventory holds. Owns its arrays (sl_dra_view_free). */
struct sl_dra_view_alt {
	char name[128];    /* "req" or "req/sub" */
	const char *cls;   /* deviceClassName */
	int64_t count;     /* ExactCount's count; 0 with all */
	bool all;          /* allocationMode All */
	size_t *match;     /* per node: matching devices it reaches */
	size_t *held;      /* per node: of those, allocated to a claim of the inventory */
	const char *claim; /* the pod's claim entry it is of */
	const char *from;  /* the template or claim named */
	bool template;     /* from a ResourceClaimTemplate: one claim per pod */
	bool no_class;     /* its DeviceClass is not among the inputs' */
};
struct sl_dra_view {
	bool judged; /* the run has ResourceSlices and the pod claims devices */
	/* Not judged for this: the first template or shared claim the pod names that the inputs do
	 * not hold (missing_template tells which), or no DeviceClass among the inputs. */
	const struct sl_pod_claim *missing;
	bool missing_template, no_classes;
	char prefail[256];
	size_t nnodes, nalts;
	struct sl_dra_view_alt *alts;
	/* The first selector of the pod's requests or classes outside the CEL subset or erring on
	 * some device: counted as matching. */
	const struct sl_dra_selector *unknown;
	char unknown_why[200];
	size_t unknown_running; /* running pods whose claims the inventory does not hold */
	/* The first field read but not modelled (constraints, a request's tolerations or capacity, a
	 * matching device's taints, counters or node selection): where it is written. */
	const struct sl_ynode *unmodelled;
	size_t nslices, ndevices;
};
void sl_dra_view(const struct sl_cluster *cl, const struct sl_podspec *p, struct sl_dra_view *v);
/* Devices as a resource of the release view (release-capacity's bound): the resource name is
 * SL_DRA_RES_PREFIX and a DeviceClass's name. Whether the run judges devices (it has
 * ResourceSlices); what node i has free of the class's devices (reached, matching its selectors,
 * held by no claim of the inventory; a device that several nodes reach counts on each, so the
 * bound over-counts room, never under-counts it); how many a pod of p takes of the class through
 * its claim templates (ExactCount requests naming the class; a subrequest, an All request or a
 * shared claim counts nothing, again never less room than the cluster has). */
#define SL_DRA_RES_PREFIX "devices of DeviceClass "
bool sl_dra_indexed(const struct sl_cluster *cl);
int64_t sl_dra_class_free(const struct sl_cluster *cl, size_t node, const char *cls);
int64_t sl_dra_class_request(const struct sl_model *m, const struct sl_podspec *p, const char *cls);
void sl_dra_view_free(struct sl_dra_view *v);

bool sl_field_matches(const struct sl_requirement *r, const char *node_name);
bool sl_term_matches(const struct sl_term *t, const struct sl_node *n);
/* Whether any of the OR'd terms t[0 .. n) matches node (a NodeSelector's nodeSelectorTerms). */
bool sl_terms_match(const struct sl_term *t, size_t n, const struct sl_node *node);
/* nodeSelector AND (any required node affinity term). */
bool sl_node_affinity_matches(const struct sl_podspec *p, const struct sl_node *n);
/* The first NoSchedule/NoExecute taint of n that p does not tolerate, or NULL. The default
 * not-ready/unreachable NoExecute tolerations every pod receives are included. */
const struct sl_taint *sl_untolerated_taint(const struct sl_podspec *p, const struct sl_node *n);

/* A pool's verdict on one pod of the template (sched/pools.c): whether a new node of it would take
 * the pod, and if not why, in the pool's own words (Karpenter's for a NodePool) and in the words
 * cluster-autoscaler counts in its NotTriggerScaleUp event. */
struct sl_pool_fit {
	const struct sl_pool *pool;
	bool admits;
	/* Admits, but what a new node holds is not known (no template allocatable, no node of the pool
	 * in the inventory, or a larger instance type than the one seen may be launched): this rests on
	 * the pool offering an instance type with room for the pod, within its limits. */
	bool assumed;
	int64_t per_node;   /* admits and not assumed: pods of the template a new node holds */
	int64_t nodes_left; /* with per_node: new nodes the pool's limits leave room for; -1: no limit */
	/* Admits: at most how many pods of the template the pool's new nodes take within its limits or
	 * maximum size, an OVER-estimate (a shortfall beyond it is certain); -1: no bound known. */
	int64_t pods_max;
	const struct sl_node *sample; /* the inventory node of the pool that told the room, or NULL */
	char resource[64];            /* rejected on a resource (limits, room): its name */
	char ca[256];                 /* rejected: cluster-autoscaler's reason ("max node group size reached") */
	char text[640];               /* rejected: the pool's own reason */
};
/* Judge every pool of m (out: m->npools entries); returns how many admit the pod. */
size_t sl_pools_judge(const struct sl_model *m, const struct sl_podspec *p, struct sl_pool_fit *out);
/* At most how much of resource res (a name of the pod's requests, or "pods") the pool's new nodes
 * can add, over-estimated: what its limits leave (Karpenter charges every node's capacity to them,
 * existing ones included), or a group's nodes still allowed × a template node's allocatable;
 * -1: no bound known. */
int64_t sl_pool_adds(const struct sl_model *m, const struct sl_pool_fit *f, const char *res);
/* At most how much of res (a resource, or "pods") the pool's new nodes add for pods of any
 * template: sl_pool_adds with a new node sized by the pool's template or one of its nodes; -1: no
 * bound known. */
int64_t sl_pool_supply(const struct sl_model *m, const struct sl_pool *pool, const char *res);
/* How many nodes of the inventory are the pool's (sl_pool_owns). */
int64_t sl_pool_members(const struct sl_model *m, const struct sl_pool *p);
/* cluster-autoscaler's ReasonsMessage over the pools that reject: "1 max node group size reached,
 * 2 node(s) didn't match Pod's node affinity/selector". */
void sl_pools_scaleup_reasons(const struct sl_pool_fit *v, size_t n, char *out, size_t outsz);

/* What the engine knows of the cluster beyond the model: running pods grouped by node, the pods
 * with required anti-affinity, node groups with identical labels, taints and cordon, and
 * topology domains per label key (built on first use). Built once per run; analyses share it. */
struct sl_cluster;
struct sl_cluster *sl_cluster_new(const struct sl_model *m);
void sl_cluster_free(struct sl_cluster *c);

/* How many pods of p node n holds at once by resources and the pod count alone, given
 * fit = the filters for one pod: 0 when a filter other than resources fails. *limit names what
 * bounds the count ("pods" for the pod count). */
int64_t sl_node_slots(const struct sl_podspec *p, const struct sl_node *n, const struct sl_nodefit *fit,
		      const char **limit);

/* The work one workload's sequential placement may take: nodes filtered plus pods placed. Real
 * workloads take far less (10,000 replicas one per node on 5,000 nodes a few million); an absurd one
 * (2^31 replicas that all fit) would run for hours. */
#define SL_PLACEMENT_BUDGET 10000000u

/* A node where a DaemonSet's pod runs (or is assumed to) and no second pod of its template fits
 * beside it, by resources and the pod count. */
struct sl_daemon_room {
	size_t node;       /* in the model's nodes */
	int64_t old;       /* its pods counted on the node: running ones, or 1 assumed */
	const char *limit; /* what bounds the node ("pods" for the pod count) */
	bool running;      /* the old pod is among the running pods */
};
struct sl_daemon_fit;
struct sl_daemon_view {
	size_t nruns;                   /* nodes where a pod of it runs, or would */
	int64_t own_running;            /* its pods among the running pods (controller-revision-hash) */
	struct sl_daemon_room *blocked; /* the nodes where a surge's new pod never fits */
	size_t nblocked;
	/* Made when first asked (sl_daemon_fit, daemonset_fit.c) and freed through free_fit, a pointer
	 * so that the analysis, which that file analyses again, need not call into it. */
	struct sl_daemon_fit *fit;
	void (*free_fit)(struct sl_daemon_fit *fit);
};
struct sl_analysis {
	const struct sl_podspec *pod;
	/* The pod's claims as the volume plugins judge them (storage.h): the workload's, or for a
	 * StatefulSet whose ordinals' claims differ, the first ordinal no node takes; NULL: none
	 * judged (or ordinals that differ and each fit somewhere, whose pinning is not counted). */
	const struct sl_volset *vol;
	size_t nnodes;
	struct sl_nodefit *fit; /* one pod of the template on the inventory as it is */
	size_t nfeasible, nexcluded;
	/* The FailedScheduling texts (of fit, steady_fit, rollout_fit) are formatted when a report
	 * first asks for one (sl_fit_error and the others): most analyses end in no finding. */
	bool texts;           /* reasons were gathered (sl_analyze): the texts can be made */
	char *fit_error_text; /* made by sl_fit_error; the others' likewise */
	char *steady_fit_error_text, *rollout_fit_error_text;
	/* The PostFilter's sentence that follows each filter text (DefaultPreemption: "preemption:
	 * …"), when preemption finds no candidate; NULL otherwise (see the preempt_* counts). */
	struct sl_cluster *cl; /* with texts: the index it ran on, for the PostFilter's texts */
	bool post_made[3];     /* by enum sl_stop: made by sl_postfilter (or the preemption run) */
	char *post[3];
	struct sl_preempt_summary pre[3];
	/* Pods placed only by evicting lower-priority running pods (counted in steady_placed and
	 * surge_placed), in order, with their victims; NULL without. */
	struct sl_preempt_step *preempted;
	size_t npreempted;
	/* Preemption may place more than counted: evicting pods where inter-pod terms, topology
	 * spread or host ports decide is not modelled. */
	bool preempt_unknown;
	/* With preempt_unknown: a running pod whose priority is not known and that evicting could make
	 * room, were its priority below the pod's (NULL when something else is not known). */
	const struct sl_pod *preempt_unknown_pod;
	/* After pods placed by preemption: the running pods evicted, and the pods placed per node
	 * (those the room took and those preemption placed), where the placement stopped; NULL
	 * without such a run. */
	bool *preempt_gone;
	int64_t *preempt_placed;
	/* Placement. When only resources limit the pods (no inter-pod terms, spread or host ports),
	 * slots are per-node capacities and the count is exact whatever order the scheduler picks;
	 * otherwise pods are placed one after another, as the scheduler would (`sequential`), and
	 * slots[i] is what landed on node i. */
	bool detailed; /* the per-node arrays below are filled */
	bool sequential;
	/* Sequential placement stopped short in the scheduler's order of preference, but not in the
	 * opposite order: the verdict depends on placement, not only on the nodes. */
	bool order_dependent;
	int64_t *slots;
	const char **slot_limit; /* per node: the resource that bounds the slots ("pods" for the count) */
	int64_t total_slots;     /* pods that fit at once (sequential: placed, replicas and surge) */
	int64_t *surge_slots;    /* sequential only: new pods placed per node */
	int64_t own_running;     /* the workload's own running pods found among the running pods */
	int64_t *own_on;         /* detailed: how many of them run on each node */
	int64_t replicas;
	int64_t steady_placed;
	struct sl_nodefit *steady_fit; /* per node, when steady_placed < replicas: why the next pod fails */
	bool is_rollout;               /* a Deployment */
	enum sl_strategy strategy;
	int64_t max_surge, max_unavailable; /* resolved; 0/0 for Recreate */
	int64_t surge_placed;
	struct sl_nodefit *rollout_fit; /* per node, when surge_placed < max_surge */
	bool rollout_deadlock;
	/* Sequential placement spent its budget (SL_PLACEMENT_BUDGET, an absurd number of replicas
	 * that fit) before it ended: the workload counts as fitting, and is reported as not checked. */
	bool not_placed;
	/* A DaemonSet: its nodes, and where a surging update's new pod never fits. */
	struct sl_daemon_view daemon;
	/* The node pools' verdicts on a pod of the template, in the model's order (sl_analysis_pools):
	 * judged when a rule first asks, and kept for the others. */
	bool pools_judged;
	size_t pools_admit;
	struct sl_pool_fit *pools;
};

/* Where the DaemonSet controller places a DaemonSet's pods, and whether each fits there
 * (sched/daemonset_fit.c). The controller creates, for every node it places the DaemonSet on
 * (sl_daemon_runs_on), a pod with the tolerations it adds and its required node affinity replaced
 * by the node's name (matchFields metadata.name In [node]); the default scheduler then judges that
 * pod, on that node alone, against the node's running pods: resources, pod count, host ports,
 * inter-pod affinity, and preemption when none is left. A node where a running pod of the
 * DaemonSet is found (its selector and a controller-revision-hash label) needs no new pod. */
struct sl_daemon_stuck {
	size_t node;
	/* The pod pinned to the node (a->nfeasible is 0), judged on node `at`: this one, or an earlier
	 * stuck node alike for it (no pod runs on either, the same allocatable), whose analysis it
	 * shares. */
	const struct sl_analysis *a;
	size_t at;
	struct sl_analysis *own; /* what this entry owns: a, or NULL when shared */
	void *pinned;            /* the pod spec own points at (daemonset_fit.c's) */
};
struct sl_daemon_fit {
	/* per node: SL_FITS where the controller places a pod, else the filter (NodeName, TaintToleration
	 * or NodeAffinity, with the tolerations it adds) that keeps it off, with the scheduler's reason */
	struct sl_nodefit *placed;
	char *placed_text;             /* nplaced 0: "0/N nodes are available: …" over placed */
	size_t nplaced;                /* nodes the controller places a pod on */
	size_t nown;                   /* of them, nodes where a pod of it runs already */
	struct sl_daemon_stuck *stuck; /* nodes where the new pod passes no filter as the node is */
	size_t nstuck;
	size_t unjudged; /* nodes whose pod does not fit that were not analysed (SL_DAEMON_FIT_BUDGET) */
};
/* The most nodes whose pinned pod is analysed in full, per DaemonSet: each is an analysis. */
#define SL_DAEMON_FIT_BUDGET 256
/* Made on the first call and kept with the analysis a (of the DaemonSet w, on cl), as the texts are:
 * a is one thread's. */
const struct sl_daemon_fit *sl_daemon_fit(struct sl_cluster *cl, const struct sl_workload *w,
					  const struct sl_analysis *a);

/* The FailedScheduling text of one pod of the template when no node passes every filter
 * (nfeasible == 0, sl_analyze), of the next pod when steady_fit is set, of the surge pod when
 * rollout_fit is set; NULL otherwise. Made on the first call and kept with the analysis, which is
 * why a const analysis is written to: it is one thread's (a workload's checks). */
const char *sl_fit_error(const struct sl_analysis *a);
/* The PostFilter (DefaultPreemption) for the pod where a placement stops: what the judged release
 * prints after the filters' text and a space ("preemption: …", after DynamicResources' reason where
 * the release has it, with its period: sl_postfilter_text; NULL when there is no stop, it nominates
 * a node, or the release prints none), and in *sum (may be NULL) what it found node by node. Made
 * when first asked. */
const char *sl_postfilter(const struct sl_analysis *a, enum sl_stop which, const struct sl_preempt_summary **sum);
/* The PostFilter node by node for the pod where the placement stops at which, in the state the
 * placement left (the pods placed before it, and those evicted by the ones before it placed by
 * preemption); v->evaluated is false where there is no such stop. Free with sl_preempt_view_free. */
void sl_preempt_view(const struct sl_analysis *a, enum sl_stop which, struct sl_preempt_view *v);
void sl_preempt_view_free(struct sl_preempt_view *v);
const char *sl_steady_fit_error(const struct sl_analysis *a);
const char *sl_rollout_fit_error(const struct sl_analysis *a);

/* The rollout arithmetic (sched/rollout.c). Fence-posts as the Deployment controller resolves
 * them (ResolveFenceposts in pkg/controller/deployment/util): maxSurge rounded up and
 * maxUnavailable rounded down against the replicas, and 1 unavailable when both come to 0. */
void sl_fenceposts(const struct sl_workload *w, int64_t *surge, int64_t *unavailable);
/* Whether a RollingUpdate can never start: no old pod may go first (maxUnavailable resolves to
 * 0) and not one surge pod fits (surge_placed 0), with replicas to replace. */
bool sl_rollout_never_starts(const struct sl_workload *w, int64_t max_unavailable, int64_t surge_placed);

/* Whether the DaemonSet controller runs a pod of p on n (NodeShouldRunDaemonPod): nodeName,
 * nodeSelector and required node affinity, and the NoSchedule / NoExecute taints p tolerates with
 * the tolerations the controller adds (sched/daemonset.c). */
bool sl_daemon_runs_on(const struct sl_podspec *p, const struct sl_node *n);
/* p as the controller makes its pods: its tolerations and those the controller adds (out->tols is
 * the caller's to free; the rest is p's, borrowed). */
void sl_daemon_pod(const struct sl_podspec *p, struct sl_podspec *out);
/* The DaemonSet's own running pods per node (per_node: one entry per node, added to), and their
 * count: in its namespace, selected by its selector, with a controller-revision-hash label. */
int64_t sl_daemon_own_pods(const struct sl_cluster *cl, const struct sl_workload *w, int64_t *per_node);

struct sl_cluster;
void sl_daemon_view(const struct sl_cluster *cl, const struct sl_workload *w, struct sl_daemon_view *v);
void sl_daemon_view_free(struct sl_daemon_view *v);

/* Analyse one workload. Without detail, a workload whose replicas and surge all fit is settled
 * without per-node arrays (fit, slots… stay NULL, nfeasible is 1 for "at least one"); anything
 * that does not fit, or detail (--explain, the conformance suite), gets every node's verdict
 * (detailed). */
void sl_analyze(struct sl_cluster *cl, const struct sl_workload *w, bool detail, struct sl_analysis *a);
/* The counts of sl_analyze without detail (replicas and surge placed, nfeasible, the deadlock, not
 * placed, a DaemonSet's nodes without room): what a what-if reads. No reason text, FailedScheduling
 * message or picture of where the next pod stops is made (those fields stay NULL; fit's reasons
 * are generic), nor is order_dependent found. */
void sl_analyze_counts(struct sl_cluster *cl, const struct sl_workload *w, struct sl_analysis *a);
void sl_analysis_free(struct sl_analysis *a);
/* sl_pools_judge of a's template over m's pools (m->npools entries; NULL without pools), with in
 * *nadmit how many admit it: judged on the first call and kept with the analysis, whose rules all
 * read it; a const analysis is written to as by sl_fit_error. */
const struct sl_pool_fit *sl_analysis_pools(const struct sl_analysis *a, const struct sl_model *m, size_t *nadmit);

/* What-if (sched/whatif.c): the workload analysed again with one change, so that a change offered
 * to the user is one the engine has seen resolve the finding. */
struct sl_whatif_result {
	int64_t replicas, steady_placed, surge_placed, max_surge;
	size_t nfeasible;
	bool rollout_deadlock, not_placed;
	size_t daemon_blocked; /* a DaemonSet: nodes with no room for a surge pod */
};
/* A change to the nodes: extra allocatable on node `node` (extra non-NULL), and/or `copies` empty
 * copies of it (its labels but a hostname of their own, its taints, cordon and allocatable). */
struct sl_whatif {
	size_t node;
	const struct sl_reslist *extra;
	int64_t copies;
};
/* The work a run may spend on analyses on changed clusters, in sl_whatif_cost units (nodes and
 * running pods of each cluster built): 200 checks on a 25,000-object cluster (about 2 s), every
 * finding's on a small one. */
#define SL_WHATIF_BUDGET 5000000u
/* w on the cluster of cl's model changed by c: an index of its own for the changed nodes, the
 * running pods' index cl's (counted as about sl_whatif_cost units of work, the nodes and running
 * pods of the cluster it stands for). */
void sl_whatif_analyze(const struct sl_cluster *cl, const struct sl_workload *w, const struct sl_whatif *c,
		       struct sl_whatif_result *r);
size_t sl_whatif_cost(const struct sl_model *m, const struct sl_whatif *c);
/* Whether an empty copy of base (a hostname and a name of its own) passes p's node-only filters:
 * a template pinned to named nodes gains nothing from more nodes. */
bool sl_whatif_copy_admits(const struct sl_podspec *p, const struct sl_node *base);
/* w (a changed copy of a workload: replicas, strategy) on the cluster as it is. */
void sl_whatif_workload(struct sl_cluster *cl, const struct sl_workload *w, struct sl_whatif_result *r);

/* The release view (sched/release.c): node classes (nodes with the same labels but the hostname,
 * taints and cordon, which the node-only filters judge alike unless a pod names its nodes). */
size_t sl_cluster_nclasses(const struct sl_cluster *cl);
size_t sl_cluster_class(const struct sl_cluster *cl, size_t node);
/* Whether the filters that look only at the node give every node of a class the same verdict
 * for p: not when the pod names nodes (nodeName, metadata.name fields, the hostname label). */
bool sl_judged_by_class(const struct sl_podspec *p);
/* The node-only filters (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity) for p on
 * every node, into ok (one per node), through the per-class cache the analyses share. */
void sl_node_only_verdicts(struct sl_cluster *cl, const struct sl_podspec *p, bool *ok);
/* The volume filters that read the node alone (VolumeBinding, VolumeZone) for w's claims, ANDed
 * into ok (one per node): a node stays when some resolution of the claims (a StatefulSet has one
 * per distinct ordinal) passes there, so what is left over-estimates where w's pods may go, as
 * the release view's admissible nodes must. Returns whether the claims judge anything (a
 * PreFilter's failure admits no node); ok is unchanged otherwise. */
bool sl_volume_admits(const struct sl_cluster *cl, const struct sl_workload *w, bool *ok);
/* Everything the node-only filters read of a pod spec that names no node (tolerations,
 * nodeSelector, required node affinity), appended to b: equal keys, equal verdicts. */
struct sl_buf;
void sl_static_key(const struct sl_podspec *p, struct sl_buf *b);
/* Each running pod of namespace ns that sel selects, with the index of its node. */
struct sl_pod;
void sl_each_running(const struct sl_cluster *cl, const char *ns, const struct sl_selector *sel,
		     void (*fn)(void *ctx, const struct sl_pod *p, size_t node), void *ctx);
/* Each running pod (bound to a known node, not finished), with the index of its node. */
void sl_each_running_pod(const struct sl_cluster *cl, void (*fn)(void *ctx, const struct sl_pod *p, size_t node),
			 void *ctx);
/* The workload's own pods among the running pods (analyze.c). */
int64_t sl_own_running(const struct sl_cluster *cl, const struct sl_workload *w);

/* The release placed as the scheduler would (sched/release_place.c): workloads ws[0 .. nw), in
 * that order or reversed, each placing todo[i] pods (its replicas not yet running: the rollout's
 * surge is not placed) on the cluster as the workloads before it left it, their placed pods
 * counting as running where they went. The work is bounded: nodes and pods of each index built,
 * nodes filtered and pods placed, SL_RELEASE_PLACE_BUDGET in all (a 100-workload release on
 * 1,000 nodes and 10,000 pods, both orders, in about a second). */
#define SL_RELEASE_PLACE_BUDGET 1000000u
struct sl_release_binding {
	size_t workload, node; /* indexes into ws and the model's nodes */
	int64_t pods;
};
struct sl_release_placement {
	int64_t *placed;                /* per workload: how many of its todo pods the scheduler placed */
	struct sl_release_binding *log; /* where they went, in the order placed */
	size_t nlog, caplog;
	/* every pod placed, one entry each (pods 1), in the order the scheduler bound them: the pod-by-
	 * pod sequence the log sums up per node (the conformance suite compares it with the
	 * scheduler's) */
	struct sl_release_binding *seq;
	size_t nseq, capseq;
	/* for the first workload left short, in the order placed (NULL for the others): per node that
	 * passes its node-only filters, why its next pod does not fit there (the filters' reasons; NULL
	 * for the other nodes) */
	char ***why;
	size_t nw, nnodes;
	bool complete; /* false: the budget ran out first, and placed says nothing */
	/* Preemption: pods placed only by evicting pods of lower priority, the running pods and the
	 * release's own pods evicted (placed again where room was left), and whether a pod that found
	 * no node might have preempted where this placement does not model it (it reads other pods,
	 * or a pod carries anti-affinity). */
	int64_t by_preemption, evicted_running, evicted_own;
	bool preempt_unmodelled;
};
/* An upper bound on that work, known before placing. */
uint64_t sl_release_place_cost(const struct sl_model *m, const struct sl_workload *const *ws, size_t nw, int64_t total);
/* Returns out->complete. out is the caller's to free (sl_release_placement_free) either way. */
bool sl_release_place(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
		      bool reverse, struct sl_release_placement *out);
/* The same placed otherwise, to tell what decided an outcome (flags, SL_PLACE_*): ties between
 * nodes scored alike broken to the last listed instead of the first (the scheduler picks among
 * them at random, so where this places otherwise the outcome may differ from run to run), or
 * scored without PodTopologySpread's system defaults. */
enum { SL_PLACE_TIES_LAST = 1, SL_PLACE_NO_DEFAULT_SPREAD = 2 };
bool sl_release_place_as(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
			 bool reverse, unsigned flags, struct sl_release_placement *out);
void sl_release_placement_free(struct sl_release_placement *p);
/* Whether w's pods get PodTopologySpread's system-default constraints (no constraint of their
 * own, a ReplicaSet's, StatefulSet's or ReplicationController's selector): the scheduler then
 * spreads them over nodes and zones when it scores (sched/pod_topology_spread.c). *own_hash (may
 * be NULL): their selector asks for their own pod-template-hash (a Deployment's ReplicaSet). */
bool sl_spread_defaults(const struct sl_workload *w, bool *own_hash);
/* Whether those defaults may count a pod with these labels (a looser test than their selector:
 * the controller's selector alone, or the Services' when no controller's selector joins it). */
bool sl_spread_defaults_may_select(const struct sl_workload *w, const struct sl_labels *labels);
/* Whether some of m's nodes lack a key of those defaults that others have: Score adds a
 * constraint's maxSkew - 1 only on nodes with its key, so then the defaults tell nodes apart even
 * for a workload's only pod with nothing to count. */
bool sl_spread_defaults_keys_uneven(const struct sl_model *m);
/* Rollouts beside the release: once every pod of it is placed, whether one more pod of ws[of[j]]'s
 * template, of a new ReplicaSet (its surge), passes every filter on some node: fits[j] 1 or 0
 * (left as the caller set it when the release left pods Pending or the budget ran out), and when
 * 0, what blocks it in why[j] (each reason once). The caller owns the arrays and the buffers. */
struct sl_release_surges {
	const size_t *of;
	size_t n;
	signed char *fits;
	struct sl_buf *why;
};
bool sl_release_place_surges(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo,
			     size_t nw, bool reverse, struct sl_release_surges *surges,
			     struct sl_release_placement *out);
/* Whether sl_release_place on cl's model leaves no pod of ws Pending in any order, known without
 * placing: no workload reads or repels other pods (inter-pod terms, spread, host ports), so only
 * the nodes' load changes as pods are placed, and each workload has more nodes where a pod fits
 * alone than the rest of the release can fill, for the pod count and each resource it asks.
 * False when that is not shown (the placement then decides) or when the release is larger than
 * one placement places. cl: the index sl_cluster_new built on the model. */
bool sl_release_places_surely(struct sl_cluster *cl, const struct sl_workload *const *ws, const int64_t *todo,
			      size_t nw);
/* Whether, on the cluster of m changed by c, the release places every pod (sl_release_place) in
 * input order and in reverse. */
bool sl_whatif_release(const struct sl_model *m, const struct sl_whatif *c, const struct sl_workload *const *ws,
		       const int64_t *todo, size_t nw);

/* Whether any placement runs every pod of a small release at once (sched/release_search.c): ws[i]
 * with todo[i] pods to place and, when surge is not NULL, one more pod of surge's template in a
 * new ReplicaSet (a rollout's surge beside the release); every pod passing every filter given
 * all the others. FOUND and NONE are exact (NONE: no placement exists, so some pod stays Pending
 * whatever the order); NOT_SEARCHED (why says why) and GAVE_UP (the steps ran out) say nothing.
 * The bounds keep it small: at most SL_RELEASE_SEARCH_PODS workloads, SL_RELEASE_SEARCH_NODES
 * nodes of at most SL_RELEASE_SEARCH_NODE_KINDS kinds (nodes alike for the release), and
 * SL_RELEASE_SEARCH_STEPS steps (a node tried for a workload's pods). cl: the index of the
 * model, the running pods as they are. */
#define SL_RELEASE_SEARCH_PODS 12
#define SL_RELEASE_SEARCH_NODES 128
#define SL_RELEASE_SEARCH_NODE_KINDS 32
#define SL_RELEASE_SEARCH_STEPS 200000
enum sl_search_verdict { SL_SEARCH_FOUND, SL_SEARCH_NONE, SL_SEARCH_NOT_SEARCHED, SL_SEARCH_GAVE_UP };
struct sl_release_search {
	enum sl_search_verdict verdict;
	uint64_t steps;
	const char *why; /* NOT_SEARCHED: why (static text) */
	/* FOUND: the placement, pods of ws[i] on node k at at[i * nnodes + k] (i == nw: the surge) */
	int64_t *at;
	size_t nw, nnodes;
};
void sl_release_search(struct sl_cluster *cl, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
		       const struct sl_workload *surge, struct sl_release_search *out);
void sl_release_search_free(struct sl_release_search *out);

/* LeastAllocated's 0..100 share of a resource left free: (alloc - req) * 100 / alloc, exact for
 * any alloc up to INT64_MAX. */
int64_t sl_free_share(int64_t alloc, int64_t req);

#endif
