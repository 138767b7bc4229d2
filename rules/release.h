/* release.h — the release view's shared state: the workloads of one target that take part, the
 * node groups, and each workload's signature. release_common.c builds it and owns the pieces several
 * release files use. release_capacity.c's check runs the others (release_domains.c,
 * release_order.c, release_change.c's smallest changes); they use release_common.c and never call
 * back into release_capacity.c, so no two release files call each other. */
#ifndef SL_RULES_RELEASE_H
#define SL_RULES_RELEASE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../linter/base/buf.h"
#include "../linter/base/flow.h"
#include "rules.h"

struct sl_release {
	const struct sl_rule *self;
	struct sl_model_check *cx;
	const struct sl_model *m;
	const struct sl_workload **w; /* the workloads that take part */
	int64_t *pods;                /* pods of each still to place */
	size_t *index;                /* each one's index among the model's workloads */
	size_t *sig;                  /* per workload: its signature, the groups it may use */
	size_t nw;
	bool *broken;  /* per workload: named in a broken bound (release-capacity's errors) */
	size_t *group; /* per node */
	size_t ngroups;
	size_t *nodes_in; /* per group */
	bool *adm;        /* nsigs × ngroups: may a workload of signature s use group g */
	size_t nsigs;
	struct sl_strpool resources; /* "pods" and every resource a taking-part template requests */
	/* Preemption: a running pod of priority below evict_below may be evicted for a pod of the
	 * release (DefaultPreemption evicts only lower-priority pods, for a preemptor whose policy is
	 * PreemptLowerPriority); INT64_MIN when no workload of the release preempts, INT64_MAX when
	 * one's priority is not known. evictable: nnodes × resources.n, what such pods hold on each
	 * node (NULL when none runs). */
	int64_t evict_below;
	int64_t *evictable;
	uint64_t change_left; /* work left for checking smallest changes (release_change.c) */
	/* Node pools (the model's, in its order): padm, nsigs × npools, whether some workload of the
	 * signature is admitted by the pool (sl_pools_judge) — an over-estimate for the others, so that
	 * the flow with pools only grows. */
	size_t npools;
	bool *padm;
	bool pools_admit; /* some workload is admitted by some pool */
	bool pools_take;  /* the nodes alone are short of some resource, and the pools take the rest */
	/* Per resource of `resources` (NULL until its first flow), what every flow of it starts
	 * from: the demand per signature, the free room per group, and what evictable pods hold per
	 * group. A rule runs several flows of each: the sums over workloads and nodes are made once. */
	int64_t **demand_of, **supply_of, **evict_of;
};

/* The work the smallest changes of one target may take, in sl_release_place_cost units: a few
 * tries on a release as large as one placement takes. */
#define SL_RELEASE_CHANGE_BUDGET 8000000u

/* One resource's flow: source → signature (its demand) → group (infinite) → sink (its free).
 * Vertex 0 is the source, 1 + q signature q, 1 + nsigs + k group k, the last the sink. */
struct sl_release_flow {
	struct sl_flow g;
	int64_t *demand; /* per signature */
	int64_t *supply; /* per group */
	int64_t total, flow;
};

/* release_common.c: the release, its flows, and the words shared by the messages. */

/* The workloads of cx's target that take part (long-running kinds and bare Pods that fit alone),
 * their node groups and signatures; false when fewer than two take part (free it either way). */
bool sl_release_build(struct sl_release *r, const struct sl_rule *self, struct sl_model_check *cx);
void sl_release_free(struct sl_release *r);
/* The target's release, built once and shared by the checks of the whole target (cx->shared);
 * NULL when fewer than two workloads take part. Reports made through it are self's, into cx. */
struct sl_release *sl_release_get(const struct sl_rule *self, struct sl_model_check *cx);
/* Build and run one resource's flow. */
/* evictions: count what lower-priority running pods hold as free too (r->evictable), an upper
 * bound on the room preemption may make: a set short even so is short in the cluster as it is. */
void sl_release_flow(struct sl_release *r, const char *res, bool evictions, struct sl_release_flow *rf);
/* The same flow with the node pools as more groups (vertex 1 + nsigs + ngroups + p, the sink
 * after them), each supplying what it can add of res within its limits or maximum size
 * (sl_pool_supply, over-estimated; unbounded when not known): a set short even so is short on
 * every cluster the pools grow. */
void sl_release_flow_pools(struct sl_release *r, const char *res, bool evictions, struct sl_release_flow *rf);
/* When a pool admits a pod of one of the workloads members[0 .. n) (r->padm), a finding on the
 * domains or room of the nodes holds only while the pool adds no node: its level is lowered to `to`
 * (an error to a warning; the placement order's warning to a note), with a note and a related
 * location on the pool. */
void sl_release_pools_weaken(const struct sl_release *r, struct sl_finding *f, const size_t *members, size_t n,
			     enum sl_level to);
/* Whether preemption may evict running pod p for some pod of the release (a pod whose priority
 * is not known may be). */
bool sl_release_evictable(const struct sl_release *r, const struct sl_pod *p);
/* What node k's running pods of lower priority (r->evictable) hold of res. */
int64_t sl_release_evictable_of(const struct sl_release *r, size_t k, const char *res);
void sl_release_flow_free(struct sl_release_flow *rf);
/* What node n of the release has free of res (the pod count for "pods"; a DeviceClass's devices for
 * SL_DRA_RES_PREFIX), and what a pod of w asks of it. */
int64_t sl_release_free_of(const struct sl_release *r, size_t n, const char *res);
int64_t sl_release_request(const struct sl_release *r, const struct sl_workload *w, const char *res);

/* A note on f: the placement a search over placements found (rs FOUND), node by node, the
 * workloads ws[0 .. nw) and the surge pod (nw) on each; what: the note's opening words. */
struct sl_release_search;
void sl_release_note_found(struct sl_finding *f, const struct sl_model *m, const struct sl_workload *const *ws,
			   size_t nw, const struct sl_release_search *rs, const char *what);

/* How many workloads or nodes a message names before "and N more". */
#define SL_RELEASE_NAMED 6

/* The index of key in pool, interning a copy when it is new. */
size_t sl_release_key_index(struct sl_strpool *pool, const char *key);
/* "Deployments" when every workload in `in` is one, "workloads" otherwise. */
void sl_release_kinds(const struct sl_release *r, const bool *in, char *out, size_t n);
/* "ns/a, ns/b and ns/c", or the first SL_RELEASE_NAMED and how many more. */
void sl_release_names(const struct sl_release *r, const bool *in, size_t nin, struct sl_buf *b);

/* What release_capacity.c runs beside its check of the totals, and rollout-deadlock's check. */

/* Pods that must each have a topology domain of their own, across workloads (release_domains.c). */
void sl_release_domains(struct sl_release *r);
/* Workloads that bind the same host port on every address: a node each (release_domains.c). */
void sl_release_ports(struct sl_release *r);
/* The smallest change in nodes that makes the whole release fit, checked by placing it (a note on
 * f): k or a few more empty copies of the node with the most of res among those every workload
 * `in` may use (release_change.c). */
void sl_release_offer_copies(struct sl_release *r, struct sl_finding *f, const bool *in, const char *res, int64_t k);
/* The copies a shortfall of res needs at least: over the most of it one of their nodes has. */
int64_t sl_release_copies_for(const struct sl_release *r, const bool *in, const char *res, int64_t shortfall);
/* The order-dependent warning: no bound broken for these workloads, yet placed as the scheduler
 * would, in input order or in reverse, some of their pods stay Pending (release_order.c). */
void sl_release_order(struct sl_release *r);
/* --explain: how the release places in either order, or why that was not checked. */
void sl_release_order_explain(struct sl_release *r, struct sl_buf *out, struct cJSON *json);
/* rollout-deadlock's check of each rollout beside the rest of the release (release_rollouts.c). */
void sl_release_rollouts(const struct sl_rule *self, struct sl_model_check *cx);

#endif
