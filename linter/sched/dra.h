/* dra.h — Dynamic Resource Allocation in the engine: the devices of the run's ResourceSlices
 * indexed once per cluster (which nodes reach each, which are taken by a claim's allocation),
 * and the structured allocator's search for one pod's claims on one node, which the
 * DynamicResources filter (dynamic_resources.c) asks for every node and every pod it places.
 * The index belongs to the cluster (sl_cluster_new makes it, sl_cluster_free frees it); an
 * allocation's state belongs to the cycle that made it. Internal to linter/sched/. */
#ifndef SL_SCHED_DRA_H
#define SL_SCHED_DRA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/k8s.h"
#include "sched.h"

struct sl_cluster;

/* A device of the run and where it is published. */
struct sl_dra_dev {
	const struct sl_resource_slice *slice;
	const struct sl_dra_device *d;
};

struct sl_dra_index {
	size_t ndev;
	struct sl_dra_dev *dev; /* in the slices' order, each slice's devices in order */
	/* Per node: the devices it reaches (its own slices', allNodes ones, those whose slice's
	 * nodeSelector admits it), increasing: node i has reach[start[i]] .. reach[start[i+1] - 1]. */
	size_t *start, *reach;
	/* Per device: allocated to a claim of the inventory, or to a pod the run placed and charged. */
	unsigned char *taken;
	/* Per device: allowMultipleAllocations (consumable capacity, not modelled): never taken, so
	 * that a verdict never rests on it being exclusive. */
	unsigned char *shareable;
	struct sl_strpool keys; /* "driver\x1fpool\x1fdevice", each once */
	size_t *key_dev;        /* per key: its first device */
	/* Running pods whose claims the inventory does not hold (their devices may be taken). */
	size_t unknown_running;
};

/* The index of c's model, or NULL when the run has no ResourceSlice (DRA is then not judged:
 * the pods' claims are not checked, and the rules say so). */
struct sl_dra_index *sl_dra_index_new(const struct sl_cluster *c);
void sl_dra_index_free(struct sl_dra_index *x);
/* The devices of the claims preemption's victims (gone, n of them, no longer among c's pods) held
 * free again where the resourceclaim controller frees them: a template's claim made for a victim
 * (deleted with it), and a claim reserved for victims alone that no pod of c names (deallocated).
 * For an index built anew (sl_cluster_new) before the pods placed since are charged again. */
void sl_dra_release_evicted(struct sl_cluster *c, const struct sl_pod *const *gone, size_t n);
/* Whether node reaches device dev. */
bool sl_dra_reaches(const struct sl_dra_index *x, size_t node, size_t dev);

/* One request's alternative (the request itself, or one of its firstAvailable subrequests). */
struct sl_dra_alt {
	const struct sl_dra_request *r;
	const struct sl_device_class *cls;
	char name[128]; /* "req" or "req/sub", as the scheduler names it */
};
struct sl_dra_req {
	size_t alt0, nalt;             /* alternatives alts[alt0 .. alt0 + nalt) */
	size_t shared;                 /* the shared claim (index into shared) it is of; (size_t)-1: a template's */
	const struct sl_pod_claim *pc; /* the pod's claim entry */
	const struct sl_dra_claim_spec *spec; /* the claim's (or template's) spec */
};
/* A claim the pod names by resourceClaimName: allocated in the inventory (node_terms), or by the
 * first pod of the run placed (pinned to the devices chosen then), or not yet. */
struct sl_dra_shared {
	const struct sl_resource_claim *claim;
	size_t req0, nreq; /* its requests among reqs, while not allocated */
	bool pinned;
	size_t *devs, ndevs, capdevs; /* pinned: the devices allocated */
};

/* What one pod needs: the requests of its claims to allocate (each template's, for every pod;
 * an unallocated shared claim's, once), the shared claims, the PreFilter's verdict. Built by
 * sl_dra_need_init; owns its arrays. */
struct sl_dra_need {
	const struct sl_dra_index *x;
	const struct sl_podspec *p;
	const char *prefail; /* the PreFilter's message, or NULL; interned by the caller */
	/* Not judged (the filter passes every node): a template or shared claim the pod names is not
	 * among the inputs (it may exist in the cluster), or the run holds no DeviceClass at all. */
	const struct sl_pod_claim *missing;
	bool no_classes;
	char prefail_buf[256];
	struct sl_dra_alt *alts;
	size_t nalts, capalts;
	struct sl_dra_req *reqs;
	size_t nreqs, capreqs;
	size_t nper_pod; /* reqs[0 .. nper_pod) are the templates', allocated again for every pod */
	struct sl_dra_shared *shared;
	size_t nshared, capshared;
	signed char *match;            /* [alt * ndev + dev]: 0 not yet known, 1 matches, -1 does not */
	unsigned char *taken, *chosen; /* per device: taken before this pod; chosen for it */
	size_t *pick, *pick_req;       /* the devices chosen, in order of choice, and for which request */
	size_t npick;
	bool all_none_ok; /* 1.32: allocationMode All is satisfied by zero matching devices */
	uint64_t budget;  /* search steps left for one allocation */
	bool over;        /* a search ran out of steps: taken as fitting */
};

/* The pod p's claims against x: resolved, with the PreFilter's verdict in prefail. Returns false
 * when the pod has no claim to judge (no claims, or no index). */
bool sl_dra_need_init(struct sl_dra_need *nd, const struct sl_dra_index *x, const struct sl_model *m,
		      const struct sl_podspec *p);
void sl_dra_need_free(struct sl_dra_need *nd);
/* Whether the filter judges the pod (nothing it names is missing from the inputs). */
static inline bool sl_dra_need_judged(const struct sl_dra_need *nd)
{
	return !nd->missing && !nd->no_classes;
}
/* Whether device dev may match alternative alt (its class's selectors and its own; a selector
 * not evaluated counts as matching). Cached in nd. */
bool sl_dra_matches(struct sl_dra_need *nd, size_t alt, size_t dev);
/* Whether every claim of the pod can be allocated on node now: the allocated shared ones are
 * available there (*unavailable set when not), the others allocated from devices the node
 * reaches and nothing has taken. With take, the devices chosen become taken (and an unallocated
 * shared claim pinned to them), as when the pod is bound there. */
bool sl_dra_allocate(struct sl_dra_need *nd, const struct sl_model *m, size_t node, bool take, bool *unavailable);

#endif
