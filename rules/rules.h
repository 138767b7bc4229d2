/* rules.h — what a rule is. Each rule lives in one file of rules/ as a `const struct sl_rule`
 * (its id, its documentation and a check function) and is listed once in registry.c. A check
 * sees one workload at a time, with the scheduler analysis already computed when there are
 * nodes, and reports findings into the context.
 *
 * The check stage (rules/): one file per rule, the notes and smallest changes several rules
 * share (common.c, smallest_change.c), the edits their fixes are made of (edits.c), one
 * registration table (registry.c). May include: linter/base, load, model, sched (through
 * sched.h); never the configuration, the report's emitters or the fix stage. */
#ifndef SL_RULES_H
#define SL_RULES_H
#include <stdbool.h>

#include "../linter/model/k8s.h"
#include "../linter/base/diag.h"
#include <stdatomic.h>

#include "../linter/sched/sched.h"

struct sl_check {
	const struct sl_model *model;
	const struct sl_workload *w;
	const struct sl_analysis *a; /* NULL when no node is known */
	struct sl_findings *out;
	enum sl_level level; /* the level this rule reports at (its default unless configured) */
	/* With nodes: the cluster the analysis ran on (to analyse a changed workload again), and the
	 * run's budget for analyses on changed clusters (smallest_change.c); NULL otherwise. */
	struct sl_cluster *cluster;
	atomic_size_t *whatif_left;
};

struct sl_model_check {
	const struct sl_model *model;
	struct sl_findings *out;
	enum sl_level level;
	struct sl_cluster *cluster; /* NULL when no node is known */
	const unsigned char *alone; /* per workload: SL_ALONE_* flags, what its own analysis found */
	struct sl_shared *shared;   /* what the target's checks share; NULL: nothing is shared */
};
/* What the whole-target checks of one target share: built by the first that needs it, freed by
 * the run once they have all run (the release view: release-capacity and rollout-deadlock). */
struct sl_shared {
	void *release;
	void (*free_release)(void *release);
};
enum { SL_ALONE_SHORT = 1, SL_ALONE_DEADLOCK = 2 }; /* fewer pods fit than it asks; its rollout never starts */

struct sl_rule {
	const char *id;
	const char *name;        /* PascalCase, distinct from the id (SARIF reportingDescriptor.name) */
	const char *summary;     /* one line: what it proves */
	const char *description; /* a paragraph: the proof and when it holds */
	const char *help;        /* markdown: the fix */
	enum sl_level level;
	bool needs_nodes;
	void (*check)(const struct sl_rule *self, struct sl_check *cx);
	/* Optional: a check over the whole target, once (budgets on themselves, the release together). */
	void (*check_model)(const struct sl_rule *self, struct sl_model_check *cx);
};

extern const struct sl_rule *const sl_rules[];
extern const unsigned sl_nrules;
const struct sl_rule *sl_rule_find(const char *id);

/* Shared helpers for rule files (rules/common.c). */
/* Start a finding for the workload at `at` (falls back to the object's kind line). */
struct sl_finding *sl_rule_report(const struct sl_rule *r, struct sl_check *cx, const struct sl_ynode *at,
				  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Start a finding about an object that is not a workload (a budget) at `at` (falls back to its
 * kind line). */
struct sl_finding *sl_rule_report_object(const struct sl_rule *r, struct sl_model_check *cx, const struct sl_object *o,
					 const struct sl_ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "Deployment default/web" */
void sl_object_ref(const struct sl_object *o, char *out, unsigned n);
/* Notes that list where the pods could go: per-node slots and what bounds them. */
void sl_note_slots(struct sl_finding *f, const struct sl_model *m, const struct sl_analysis *a);
/* Related locations for the nodes that pass every filter but resources. */
void sl_relate_nodes(struct sl_finding *f, const struct sl_model *m, const struct sl_analysis *a, bool feasible_only);
/* What stops the next pod on the nodes that pass the filters which ignore other pods, judged
 * from a per-node verdict (steady_fit or rollout_fit): the filter that rejects most of them. */
enum sl_cause {
	SL_CAUSE_NONE,
	SL_CAUSE_SPREAD,    /* PodTopologySpread */
	SL_CAUSE_ANTI,      /* InterPodAffinity: its own or a running pod's anti-affinity */
	SL_CAUSE_AFFINITY,  /* InterPodAffinity: no pod to be near */
	SL_CAUSE_PORTS,     /* NodePorts */
	SL_CAUSE_RESOURCES, /* NodeResourcesFit */
};
enum sl_cause sl_blocking_cause(const struct sl_analysis *a, const struct sl_nodefit *fits);
/* Whether a finding from a sequential placement holds only for the order the scheduler's
 * scoring picks (see sl_analysis.order_dependent); adds the note that says so. */
bool sl_note_order(struct sl_finding *f, const struct sl_analysis *a);
/* The workload's replicas do not all fit at once (steady_placed < replicas, some node passes the
 * filters for one pod) and cause is what stops them: report it with the proof notes that all
 * such rules share. Returns NULL when this is not the case. */
struct sl_finding *sl_report_shortfall(const struct sl_rule *r, struct sl_check *cx, enum sl_cause cause,
				       const struct sl_ynode *at, const char *why);
/* Whether sl_report_shortfall reports for cause: asked first by a rule whose why costs something
 * to build, so that it is built only for a finding that is reported. */
bool sl_shortfall_is(const struct sl_check *cx, enum sl_cause cause);
/* Work that runs to completion (rules/waves.c): whether fewer pods fitting at once than it
 * starts makes it run in waves (a Job, a CronJob, a JobSet's replicatedJob that is not a gang);
 * "Job batch/render runs 8 pods in 2 waves of 4" (ref: sl_object_ref) for fit pods at once; the
 * notes on its counts and on the waves; the fix for a finding about it; and, for a suspended one,
 * the note that says so. */
bool sl_in_waves(const struct sl_workload *w);
void sl_waves_format(const struct sl_workload *w, const char *ref, int64_t fit, char *out, unsigned n);
void sl_note_batch(struct sl_finding *f, const struct sl_workload *w);
void sl_note_waves_fix(struct sl_finding *f, const struct sl_workload *w, int64_t fit, const char *together);
/* The ResourceFlavors that decide where w's pods run (w->kplace): a related location each, and
 * a note; several possible (SL_KPLACE_OPEN) make an error a warning. */
void sl_note_kflavors(struct sl_finding *f, const struct sl_workload *w);
void sl_note_suspended(struct sl_finding *f, const struct sl_workload *w);
/* What admission did to the pods, on a finding about where they go (a rule that needs nodes;
 * rules/admission.c): it holds once their scheduling gates are removed; their request is set by
 * pod-level resources or includes a RuntimeClass's overhead. */
void sl_note_admission(struct sl_finding *f, const struct sl_workload *w);
/* Gangs, Volcano's, coscheduling's and Kubernetes' own (rules/common.c; the checks in rules/gang.c): the gang that
 * needs more than one of the workload's pods at once (sl_wgang.gang_need; NULL: none); whether fewer than that fit
 * at once (the gang runs nothing); "a gang of minMember 3 (PodGroup trainer)", or what a gang of several workloads
 * needs of this one; its minimum as a related location; and the checks of a gang that need no placement (minResources
 * above the cluster's, a minimum above the pods it has; a note for pods that name a coscheduling PodGroup their
 * scheduler ignores): true when the workload runs nothing. */
const struct sl_podgroup *sl_gang_of(const struct sl_workload *w);
bool sl_gang_short(const struct sl_workload *w, const struct sl_analysis *a);
void sl_gang_phrase(const struct sl_workload *w, char *out, unsigned n);
void sl_relate_gang(struct sl_finding *f, const struct sl_workload *w);
bool sl_check_gang(const struct sl_rule *self, struct sl_check *cx);
/* Pools (rules/pools_common.c): "NodePool" or "node group". */
const char *sl_pool_kind(const struct sl_pool *p);
/* Every pool's verdict on a pod of the workload's template, by weight (the order Karpenter tries
 * them); NULL without pools. *nadmit: how many admit it. The caller frees the array. */
struct sl_pool_fit *sl_pools_for(const struct sl_check *cx, size_t *nadmit);
/* At most how many pods the admitting pools add together (an over-estimate); -1: no bound. */
int64_t sl_pools_room(const struct sl_pool_fit *pf, size_t n);
/* Notes, with a related location on each pool: which pools take `pods` more pods (in Karpenter's
 * order) and on how many new nodes. */
void sl_note_pools_take(struct sl_finding *f, const struct sl_pool_fit *pf, size_t n, int64_t pods);
/* Notes, with a related location on each pool: what each pool adds at most and why no more (its
 * limits, its maximum size), or why it refuses the pod. */
void sl_note_pools_short(struct sl_finding *f, const struct sl_check *cx, const struct sl_pool_fit *pf, size_t n);
/* What the pools change for a shortfall of cause (spread, anti-affinity, host ports): TAKE, the
 * pools take the rest on new nodes, each a domain of its own (host ports; hostname-keyed terms) —
 * a note; MAYBE, they may, depending on the domains (zones) the new nodes get — a warning; SHORT,
 * they add fewer — the error stands. *pf: the pools' verdicts (freed by the caller). */
enum sl_pool_shortfall { SL_POOLS_NONE, SL_POOLS_TAKE, SL_POOLS_MAYBE, SL_POOLS_SHORT };
enum sl_pool_shortfall sl_shortfall_pools(const struct sl_check *cx, enum sl_cause cause, struct sl_pool_fit **pf);
/* The notes (and level) for that verdict on a shortfall's finding f. */
void sl_note_shortfall_pools(struct sl_finding *f, const struct sl_check *cx, enum sl_pool_shortfall v,
			     const struct sl_pool_fit *pf);
/* Why preemption does not make room for the pod where a placement stops (s: a->fit_pre,
 * steady_pre or rollout_pre), from the priorities; or, where evicting pods was not modelled, that
 * it may, which makes an error a warning (the cluster may run the pod). */
void sl_note_preemption(struct sl_finding *f, const struct sl_analysis *a, const struct sl_preempt_summary *s);

/* Claims (rules/volumes.c): notes naming the claims and PersistentVolumes the scheduler's volume
 * filters judged for the analysis's pod (a StatefulSet's ordinal), each volume a related
 * location; and, at the first workload of a run that mounts claims while the inputs hold none,
 * the note that volume binding was not checked and how to capture the storage (true when made). */
void sl_note_volumes(struct sl_finding *f, const struct sl_check *cx);
/* Device claims (rules/dra.c): what the pod's claims ask for and the matching devices each node
 * reaches, for a finding about a pod that claims devices when the run judged them. */
void sl_note_dra(struct sl_finding *f, const struct sl_check *cx);
/* A template or shared claim the pods name that the inputs do not hold: a warning (it may be in the
 * cluster), the claims not checked. */
void sl_check_dra_refs(const struct sl_rule *self, struct sl_check *cx);
/* For a finding on several workloads: the claims that narrow w's nodes to those its volumes reach
 * (bound volumes, with their nodeAffinity as related locations, and delayed claims); whether
 * there were any. */
bool sl_note_reach(struct sl_finding *f, const struct sl_workload *w);
/* How many nodes of fits (one per node of a) a volume filter (VolumeBinding, VolumeZone) turns
 * away: the filters before it passed there, so the pod had room but not its volumes. */
size_t sl_volume_rejects(const struct sl_analysis *a, const struct sl_nodefit *fits);
bool sl_report_storage_unknown(const struct sl_rule *self, struct sl_check *cx);
/* The free volumes a StatefulSet's new claims of one volumeClaimTemplate compete for: each pod's
 * claim of a WaitForFirstConsumer class whose provisioner makes none (none at all, or none on a
 * node the pods' node-only filters admit: allowedTopologies) binds a PersistentVolume of
 * its own, so no more pods run than hold a bound (or pre-bound) claim plus the distinct volumes
 * the others may take. */
struct sl_volume_pool {
	const char *tmpl;
	const struct sl_storage_class *cls;
	int64_t need;             /* pods whose claim of it is still to bind */
	int64_t first;            /* the first ordinal among them */
	int64_t bound;            /* at most this many pods run at once (replicas - need + npvs) */
	const struct sl_pv **pvs; /* the distinct volumes those claims may take; owned */
	size_t npvs;
	const char *assumed; /* the verdict rests on the inventory listing every volume (sl_volset) */
	bool topo;           /* the class has a provisioner, whose allowedTopologies admit none of the pods' nodes */
};
/* The template whose pool holds the fewest pods, when fewer than cx->w's replicas: true, and *out
 * filled (free with sl_volume_pool_free); false when the volumes cap nothing. */
bool sl_volume_pool_short(const struct sl_check *cx, struct sl_volume_pool *out);
void sl_volume_pool_free(struct sl_volume_pool *p);
void sl_note_volume_pool(struct sl_finding *f, const struct sl_workload *w, const struct sl_volume_pool *p);
/* A placement verdict that rests on no PersistentVolume (or claim) beyond the inventory's, when
 * the inventory lists none: the error becomes a warning, with a note saying what was assumed
 * (rules/volumes_assumed.c). */
void sl_note_storage_assumed(struct sl_finding *f, const struct sl_check *cx);
/* The same for a verdict of a rule's own that rests on `assumed` (sl_volset.assumed): once per
 * finding. */
void sl_note_assumed(struct sl_finding *f, const char *assumed);

/* Notes, with a related location on each, for the requests a LimitRange's default gave the
 * workload's containers (sl_podspec.defaulted). */
void sl_note_request_defaults(struct sl_finding *f, const struct sl_workload *w);

/* What a kubelet always reports (cpu, memory, ephemeral-storage; the os/arch labels, beta ones
 * too) that no node of the inventory lists: the mark of a hand-written inventory. Found once
 * per target, so that each finding asks in constant time. */
#define SL_KUBELET_RESOURCES 3
#define SL_KUBELET_LABELS 4
struct sl_inventory_gaps {
	bool resource[SL_KUBELET_RESOURCES]; /* true: no node lists it */
	bool label[SL_KUBELET_LABELS];
};
void sl_inventory_gaps(const struct sl_model *m, struct sl_inventory_gaps *out);
/* When what decided f (an "Insufficient R" or a node affinity/selector mismatch) is something
 * the inventory leaves out, a note that says so and where the real value comes from. */
void sl_note_inventory_gaps(struct sl_finding *f, const struct sl_inventory_gaps *g, const struct sl_workload *w);

/* The rollout's parameters as proof notes: replicas and strategy (saying what was defaulted),
 * then maxSurge / maxUnavailable as written and, for percentages, as resolved to surge and
 * unavail against `replicas`. */
void sl_note_rollout(struct sl_finding *f, const struct sl_workload *w, int64_t replicas, int64_t surge,
		     int64_t unavail);
/* Related location: the strategy that keeps every old pod until a new one is Ready. */
void sl_relate_strategy(struct sl_finding *f, const struct sl_workload *w);
/* Deployment, ReplicaSet, ReplicationController, StatefulSet: replicas that run until replaced. */
bool sl_long_running(const char *kind);
/* The note on matchLabelKeys: [pod-template-hash] for an anti-affinity term t that repels the old
 * pods, as Kubernetes 1.minor has it; whether adding it to t is a fix there (from 1.31, a block
 * mapping without it). */
bool sl_note_match_label_keys(struct sl_finding *f, const struct sl_podterm *t, int minor);
/* What a node-capacity finding says cannot happen, which a change must make happen. */
enum sl_goal {
	SL_GOAL_ONE_POD,  /* unschedulable: one pod of the template */
	SL_GOAL_REPLICAS, /* insufficient-capacity: every replica at once */
	SL_GOAL_ROLLOUT,  /* rollout-deadlock: the surge pod beside the old ones */
};
/* Notes (and, for the manifest, fixes) with the smallest change in each direction that reaches
 * the goal, each checked by running the engine again on the changed input (smallest_change.c). */
void sl_offer_smallest_changes(struct sl_finding *f, struct sl_check *cx, enum sl_goal g);
/* For a DaemonSet that surges: per node where the surge pod never fits, the allocatable that
 * makes room for it, checked the same way. */
void sl_offer_daemon_capacity(struct sl_finding *f, struct sl_check *cx);
/* unschedulable for a DaemonSet (unschedulable_daemonset.c): per group of nodes where its pod must
 * run and never fits, the scheduler's message for the pod pinned there. */
void sl_unschedulable_daemonset(const struct sl_rule *self, struct sl_check *cx);
/* --explain's release view of a target: per resource and node group, what is free, what the
 * workloads take (release_capacity.c); text into out, or with json a {"release": …} object. */
extern const struct sl_rule sl_rule_release_capacity;
struct cJSON;
void sl_release_explain(const struct sl_model *m, struct sl_cluster *cl, const unsigned char *alone, const char *target,
			struct sl_buf *out, struct cJSON **json);
/* A DaemonSet that updates by surging, as the API server of Kubernetes 1.minor accepts it:
 * updateStrategy RollingUpdate (written or defaulted) with maxSurge above 0 and maxUnavailable
 * written as 0, from 1.22 (DaemonSetUpdateSurge); the nodes are returned (maxSurge,
 * maxUnavailable, type: NULL when absent). A surge beside the default maxUnavailable 1 is
 * refused, and invalid-rollout-params' to report. */
bool sl_daemonset_surges(const struct sl_workload *w, int minor, const struct sl_ynode **su, const struct sl_ynode **un,
			 const struct sl_ynode **type);
/* matchLabelKeys [pod-template-hash] confines the term to the pods of one ReplicaSet. */
bool sl_term_per_replicaset(const struct sl_podterm *t);
/* Whether one of the n terms v is on kubernetes.io/hostname and selects the template's own pods;
 * with across_sets, one that also selects the other ReplicaSet's pods during a rollout. */
bool sl_self_hostname_term(const struct sl_podspec *p, const struct sl_podterm *v, size_t n, bool across_sets);
/* At exactly n replicas a Deployment's RollingUpdate whose maxUnavailable resolves to 0 and
 * maxSurge to at least 1 needs room for n + 1 pods: where only n fit, it never finishes. */
bool sl_surge_only_at(const struct sl_workload *w, int64_t n);
/* The fix "lower replicas to n" (`what` says what n is), when replicas is written. With
 * `deadlocks` the same fix also rolls one pod at a time, since at exactly n pods no surge pod
 * fits; `room` names what the surge pod would lack. */
void sl_fix_lower_replicas(struct sl_finding *f, const struct sl_workload *w, int64_t n, const char *what,
			   bool deadlocks, const char *room);

/* The domains of node label `key` that the template's nodeSelector, required node affinity and
 * nodeName admit, from the template alone: bounded when every node the template admits carries
 * the label with one of `vals` (In lists, minus NotIn, intersected with the nodeSelector's value,
 * united over the OR'd terms) or, for kubernetes.io/hostname, is one of the nodes in `names`
 * (matchFields metadata.name In). nodeName, which skips the scheduler, is not considered. nvals + nnames is then an
 * upper bound on the distinct domains, for every cluster. Strings are borrowed from the pod spec. */
struct sl_domains {
	bool bounded;
	const char **vals, **names;
	size_t nvals, nnames;
};
void sl_static_domains(const struct sl_podspec *p, const char *key, struct sl_domains *out);
void sl_domains_free(struct sl_domains *d);
/* "a, b, node c" */
struct sl_buf;
void sl_domains_format(const struct sl_domains *d, struct sl_buf *b);

#endif
