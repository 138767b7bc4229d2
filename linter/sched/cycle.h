/* cycle.h — the state of scheduling the pods of one workload (kube-scheduler's CycleState,
 * carried from pod to pod as they are placed): the pod spec, the labels of its two generations,
 * the pods placed so far, and the PreFilter state of each plugin that reads other pods. Sequential
 * placement (placement.c) drives it: filter every node, score the feasible ones, bind the best,
 * and tell the plugins (AddPod). A cycle owns its arrays and its plugins' states; sl_cycle_free
 * releases them. Internal to linter/sched/. */
#ifndef SL_SCHED_CYCLE_H
#define SL_SCHED_CYCLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "sched.h"

struct sl_placement {
	size_t node;
	int gen;
};

/* A cycle's per-node arrays, in one block (placement.c's carve): the first SL_CYCLE_ZEROED start
 * at 0. */
#define SL_CYCLE_ARRAYS 6
#define SL_CYCLE_ZEROED 4

/* The most filter plugins a profile lists (plugins.c checks it). */
#define SL_MAX_FILTERS 12
struct sl_cycle;
typedef bool (*sl_filter_fn)(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out);

/* Each stateful plugin's PreFilter state, defined in the plugin's own file. */
struct sl_fit_state;
struct sl_spread_state;
struct sl_interpod_state;
struct sl_attach_state;
struct sl_dra_state;

/* Generations: 0 = the pods of the running ReplicaSet, 1 = the new one a rollout creates. They
 * share the template's labels but not pod-template-hash. The node-only filters read only cl, m,
 * p and pool, so a cycle with just those set serves them before any placement. */
struct sl_cycle {
	struct sl_cluster *cl;
	const struct sl_model *m;
	const struct sl_workload *w;
	const struct sl_podspec *p;
	const struct sl_volset *vol; /* what the volume filters judge (sl_analysis.vol); NULL: nothing */
	size_t n;
	struct sl_reasons *pool; /* where reason texts go; NULL: the verdict alone (no text formatted) */
	const bool *excluded;    /* per node: left out by NodeAffinity's PreFilter */
	const bool *static_ok;   /* per node: passes the node-only filters */
	struct sl_labels gl[2];  /* the labels of a pod of each generation (gl[1] only for a rolling update) */
	int gen;                 /* the generation of the incoming pod */
	int64_t *placed;         /* per node: pods of the workload placed there, both generations */
	int64_t *placed_gen[2];
	struct sl_placement *log;
	size_t nlog, caplog;
	bool reverse; /* choose the node the scheduler likes least (the order check) */
	/* among nodes scored alike take the last listed, not the first: the scheduler picks one at
	 * random, and placing again with ties broken the other way shows an outcome that hinges on
	 * one (sl_release_place_ties) */
	bool ties_last;
	/* score without PodTopologySpread's system defaults: what a report compares with, to say
	 * whether they decided an outcome (SL_PLACE_NO_DEFAULT_SPREAD) */
	bool no_sys_spread;
	/* Pods bound since the index was built (the release placement's, sl_release_place): not among
	 * its running pods, so the system defaults' spread counts them from here (node: extra_node).
	 * Nothing else reads them: a workload another plugin would read them for builds the index
	 * again first. */
	const struct sl_pod *extra;
	const size_t *extra_node;
	size_t nextra;
	uint32_t *stamp; /* per running pod: the last visit's epoch (so each is counted once) */
	uint32_t epoch;
	size_t nall; /* nodes the scheduler filters at all (PreFilter may narrow them) */
	size_t next_start;
	uint64_t work;  /* nodes filtered and pods placed so far */
	bool truncated; /* placement stopped at SL_PLACEMENT_BUDGET, not because nothing fit */
	size_t *cand;   /* per node: scratch for an attempt's feasible nodes */
	int64_t *score; /* and their spread scores */
	/* per node: NodeResourcesFit's score (res_score), computed with placed[i] == res_at[i] -
	 * res_base - 1; res_at at most res_base: none yet. The index does not change while a cycle
	 * places. (A block used again starts above every value its last cycle wrote.) */
	int64_t *res_at, *res_score;
	int64_t res_base;
	/* The cluster whose spare blocks the per-node arrays go back to (sl_cycle_take); NULL: freed. */
	struct sl_cluster *home;
	/* The filters beyond the node-only ones that can fail a node in this cycle, in the profile's
	 * order (sl_filter_plan): a placement attempt asks only these. */
	sl_filter_fn active[SL_MAX_FILTERS];
	size_t nactive;
	struct sl_fit_state *fit;
	struct sl_spread_state *spread;
	struct sl_interpod_state *interpod;
	struct sl_attach_state *attach;
	struct sl_dra_state *dra;
};

void sl_cycle_init(struct sl_cycle *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		   const bool *static_ok, const char *old_hash);
void sl_cycle_free(struct sl_cycle *s);
/* sl_cycle_init with the per-node arrays of a cycle on cl freed before (cleared where it wrote
 * them), when there is one: for the analyses, which place workload after workload on the same
 * cluster. sl_cycle_free gives them back to cl, which must outlive s (sl_cluster_free frees
 * them). */
void sl_cycle_take(struct sl_cycle *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		   const bool *static_ok, const char *old_hash);
/* For a caller placing many workloads on the same nodes, one after another: sl_cycle_finish
 * releases what s holds of its workload (the plugins' states, the labels, the per-pod stamps),
 * keeping the per-node arrays, and sl_cycle_renew then makes it what sl_cycle_init would for the
 * next workload on cl (refreshed or charged since, its nodes s's), without making them again.
 * sl_cycle_free still frees a finished cycle. */
void sl_cycle_finish(struct sl_cycle *s);
void sl_cycle_renew(struct sl_cycle *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		    const bool *static_ok, const char *old_hash);

/* The labels of a pod of the template in a ReplicaSet: pod-template-hash set to hash (kept as
 * the template has it when hash is NULL). out->v is the caller's to free. */
void sl_generation_labels(struct sl_labels *out, const struct sl_labels *in, const char *hash);

/* Place the replicas (generation 0) after the workload's own running pods, then the surge
 * (generation 1), one pod at a time as the scheduler would. With a, records every node's verdict
 * for the first pod and, where placement stopped, why (steady_fit, rollout_fit; NULL when not
 * wanted). Stops, with s->truncated, once the budget is spent. */
void sl_place_all(struct sl_cycle *s, const struct sl_workload *w, struct sl_analysis *a, int64_t own, int64_t *steady,
		  int64_t *surge, struct sl_nodefit **steady_fit, struct sl_nodefit **rollout_fit);

/* Whether sl_place_all(s, w, NULL, own, ...) on the fresh cycle s would place every replica and
 * every surge pod, within the budget, proven without choosing nodes: when each pod placed can
 * take from the pods after it at most its node (or with its own anti-affinity terms, all on one
 * topology key, its domain), enough of those fit the first pod of each generation; with one
 * DoNotSchedule spread constraint, enough in each of its domains (placement.c's spread_fits).
 * False when that is not known (then s is to be freed, or asked sl_place_all_short). */
bool sl_place_all_fits(struct sl_cycle *s, const struct sl_workload *w, int64_t own);
/* Whether sl_place_all(s, w, NULL, own, ...) on the fresh cycle s (or one sl_place_all_fits
 * proved nothing with) would, within the budget, leave a replica out, proven without choosing
 * nodes: the pod's own anti-affinity selects it, so a domain of the term's key takes one replica
 * at most, and fewer such domains than replicas have a node the first one fits. False when that
 * is not known. */
bool sl_place_all_short(struct sl_cycle *s, const struct sl_workload *w, int64_t own);

/* The workload's own pods among the running ones (analyze.c): same namespace, selected by its
 * selector and, for a Deployment, stamped with a pod-template-hash. Returns their count and the
 * hash of the first (NULL without one); per_node (optional) counts them per node. */
int64_t sl_own_pods(const struct sl_cluster *cl, const struct sl_workload *w, const char **hash, int64_t *per_node);
/* The hash sl_own_pods gives, found without counting the rest (the release placement asks it of
 * every workload it places, on an index that holds the pods it placed). */
const char *sl_own_hash(const struct sl_cluster *cl, const struct sl_workload *w);
/* "schedlint-<wi>" into h (32 bytes): the pod-template-hash of a release's workload wi that has no
 * running pod, made without printf (once per workload placed or searched). */
void sl_release_hash(char *h, size_t wi);

#endif
