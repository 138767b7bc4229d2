/* preemption.h — DefaultPreemption, the default profile's PostFilter (v1.26:
 * pkg/scheduler/framework/plugins/defaultpreemption and framework/preemption), for a pod that no
 * node passes: on every node where evicting pods may help, the dry run of SelectVictimsOnNode
 * (every lower-priority pod gone, the filters again, then the victims reprieved most important
 * first), the candidate the scheduler nominates (pickOneNodeForPreemption), and, when there is
 * none, the PostFilter's own sentence of the FailedScheduling message. Internal to linter/sched/;
 * a preemption owns its arrays and its message (sl_preemption_free). */
#ifndef SL_SCHED_PREEMPTION_H
#define SL_SCHED_PREEMPTION_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"

struct sl_preempt_node {
	enum sl_preempt_verdict verdict;
	struct sl_nodefit still;      /* SL_PN_FAILS: the first filter that still fails */
	size_t *victims;              /* SL_PN_CANDIDATE: running pods (the cluster's indexes), most important first */
	const struct sl_pdb **broken; /* per victim: the first budget its eviction breaks, or NULL */
	size_t nvictims;
	int64_t top, sum;  /* the victims' highest priority, and the sum the scheduler compares */
	int64_t earliest;  /* the earliest start among the highest-priority victims */
	size_t violations; /* victims that break a PodDisruptionBudget */
};

/* The state the pod meets: the cluster's running pods but those gone (evicted by an earlier
 * preemption; NULL: none), and placed[i] more pods of the same template on node i (NULL: none). */
struct sl_preempt_state {
	const bool *gone;
	const int64_t *placed;
	/* Running pods whose priority is not known (their class is not among the inputs, and they
	 * show no spec.priority) taken as the lowest a pod may have, rather than 0: whether an
	 * unknown priority could let preemption make room. */
	bool unknown_lowest;
};

struct sl_preemption {
	bool eligible; /* preemptionPolicy PreemptLowerPriority */
	struct sl_preempt_node *nodes;
	size_t n;
	size_t chosen; /* the candidate nominated, or (size_t)-1 */
	bool tie;      /* others are as good by every criterion: the scheduler picks at random */
	bool unknown;  /* some node's dry run was not modelled: no candidate does not prove there is none */
	/* Without a candidate: the PostFilter's part of the FailedScheduling message, as the release
	 * prints it after the filters' text ("preemption: …", sl_postfilter_text); NULL for none. */
	char *message;
	/* No pod of lower priority anywhere: nodes is NULL, and these count the nodes as the dry run
	 * would have judged them. */
	size_t not_helpful, no_victims;
};

/* The PostFilter for p, which fails on every node for the reasons fits[0 .. cl->n) (excluded
 * nodes included, with the reason of their first filter), in state st. */
void sl_preempt(struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_nodefit *fits,
		const struct sl_preempt_state *st, struct sl_preemption *out);
void sl_preemption_free(struct sl_preemption *pr);
/* The PostFilter's part of the FailedScheduling message for p on release m->kube with m->gates,
 * after the filters' text and a space, where the placement stops with the verdicts fits (NULL: none
 * known): DynamicResources' reason before DefaultPreemption's status preemption (NULL: it nominated
 * a node), and the period FitError adds in 1.26 to 1.29. Takes preemption; NULL when nothing is
 * printed. The one place the text depends on the release. */
char *sl_postfilter_text(const struct sl_model *m, const struct sl_podspec *p, const struct sl_nodefit *fits,
			 char *preemption);
/* sl_preempt's verdicts node by node, for people (sl_preempt_view in sched.h): v owns its arrays. */
void sl_preempt_view_of(struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_nodefit *fits,
			const struct sl_preempt_state *st, struct sl_preempt_view *v);
/* Whether some running pod (not gone in st, which may be NULL) has a lower priority than p: else
 * preemption has no victim anywhere. */
bool sl_preempt_has_victims(const struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_preempt_state *st);
/* Its verdicts counted (evaluated is set). */
void sl_preempt_summarize(const struct sl_preemption *pr, struct sl_preempt_summary *s);

/* Pods placed by preemption, one after another, where resources alone decide (no inter-pod
 * terms, spread or host ports): the state they leave (pods gone, pods placed per node) and what
 * each evicted. */
struct sl_preempt_run {
	bool *gone;      /* per running pod: evicted */
	int64_t *placed; /* per node: pods of the workload placed there (not among the running ones) */
	struct sl_preempt_step *steps;
	size_t nsteps, capsteps;
	/* Where the last pod stopped (the next one that fits nowhere, even by preemption): every node's
	 * verdict for it and the PostFilter's sentence; NULL when every pod was placed. */
	struct sl_nodefit *fits;
	char *post;
	struct sl_preempt_summary summary;
	bool unknown; /* a dry run read a filter it does not model */
};
/* Start a run for cl with placed[i] pods on node i (copied). Free it with sl_preempt_run_free. */
void sl_preempt_run_init(struct sl_preempt_run *r, const struct sl_cluster *cl, const int64_t *placed);
void sl_preempt_run_free(struct sl_preempt_run *r, size_t nnodes);
/* Place up to `want` more pods of p, every node full already (none fits without preemption),
 * node_only[i] the verdicts of the node-only filters (and excluded) for node i: a pod goes where
 * evictions left room, else where the scheduler nominates. Returns how many were placed. */
int64_t sl_preempt_place(struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_nodefit *node_only,
			 struct sl_preempt_run *r, int64_t want, bool surge);

#endif
