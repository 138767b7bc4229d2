/* model.c — the model's objects (see model.h): each object of a document read by its kind's
 * reader into a part of the model (model_parse.c parses the sources, on two threads, and merges
 * the parts in source order); binding and freeing. What of the trees is kept: treeneed.c. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "../load/input.h"
#include "jobset.h"
#include "model_load.h"
#include "model_read.h"
#include "relate.h"
#include "vcjob.h"

/* Append x to the model's array f (growing capf, counting nf). */
#define PUSH(f, x)                                                                                                     \
	do {                                                                                                           \
		sl_grow(&m->f, &m->cap##f, m->n##f + 1, sizeof *m->f);                                                 \
		m->f[m->n##f++] = (x);                                                                                 \
	} while (0)

/* The same node named twice (two inventories, or a manifest and an inventory): the later
 * description replaces the earlier one, as a later `kubectl apply` would. */
static void add_node(struct sl_model *m, struct sl_node *n)
{
	size_t at = sl_strmap_put(&m->node_index, n->name, m->nnodes);
	if (at != m->nnodes) {
		sl_node_free(m->nodes[at]);
		m->nodes[at] = n;
		return;
	}
	sl_grow(&m->nodes, &m->capnodes, m->nnodes + 1, sizeof *m->nodes);
	m->nodes[m->nnodes++] = n;
}

/* The objects admission applies before the scheduler sees a pod: ResourceQuotas, LimitRanges,
 * RuntimeClasses. Whether o was one (*rc: its reader's verdict). */
static bool load_admission(struct sl_model *m, struct sl_read *c, const struct sl_object *o, enum sl_input_role role,
			   int *rc)
{
	const char *k = o->kind;
	if (!strcmp(k, "ResourceQuota")) {
		/* From an inventory (kubectl get resourcequota) with status.used: what already runs. */
		struct sl_quota *q;
		if ((*rc = sl_quota_read(c, o, &q)) == 0) {
			q->inventory = role != SL_ROLE_MANIFESTS;
			PUSH(quotas, q);
		}
	} else if (!strcmp(k, "LimitRange")) {
		/* From an inventory (kubectl get limitrange -A) the cluster's own. */
		struct sl_limitrange *l;
		if ((*rc = sl_limitrange_read(c, o, &l)) == 0) {
			l->inventory = role != SL_ROLE_MANIFESTS;
			PUSH(limitranges, l);
		}
	} else if (sl_runtimeclass_kind(o)) {
		/* From the manifests or an inventory (kubectl get runtimeclass): one set, by name. */
		struct sl_runtimeclass *v;
		if ((*rc = sl_runtimeclass_read(c, o, &v)) == 0 && v)
			PUSH(runtimeclasses, v);
	} else {
		return false;
	}
	return true;
}

/* Read o with its kind's reader (role permitting) and keep what it made, in input order. */
static int load_kind(struct sl_model *m, struct sl_read *c, const struct sl_object *o, enum sl_input_role role)
{
	const char *k = o->kind;
	int rc = 0;
	if (!strcmp(k, "Node")) {
		struct sl_node *n = NULL;
		if (role != SL_ROLE_PODS && (rc = sl_node_read(c, o, &n)) == 0 && n)
			add_node(m, n);
	} else if (!strcmp(k, "Pod") && (role == SL_ROLE_PODS || (role == SL_ROLE_MANIFESTS &&
								  !sl_ynull(sl_ypath(o->root, "spec.nodeName"))))) {
		/* A Pod bound to a node is running load, not something to schedule. */
		struct sl_pod *p;
		if ((rc = sl_pod_read(c, o, &p)) == 0)
			PUSH(pods, p);
	} else if (role == SL_ROLE_MANIFESTS && sl_jobset_kind(o)) {
		struct sl_workload **v;
		size_t n;
		if ((rc = sl_jobset_read(c, o, &v, &n)) == 0)
			for (size_t i = 0; i < n; i++)
				PUSH(workloads, v[i]);
		free(v);
	} else if (role == SL_ROLE_MANIFESTS && sl_vcjob_kind(o)) {
		rc = sl_vcjob_read(c, o, m); /* before batch/v1's Job: told apart by the API group */
	} else if (role == SL_ROLE_MANIFESTS && sl_workload_kind(k)) {
		struct sl_workload *w;
		if ((rc = sl_workload_read(c, o, &w)) == 0 && w)
			PUSH(workloads, w);
	} else if (role != SL_ROLE_NODES && !strcmp(k, "Namespace")) {
		struct sl_namespace *ns;
		if ((rc = sl_namespace_read(c, o, &ns)) == 0)
			PUSH(namespaces, ns);
	} else if (!strcmp(k, "PersistentVolumeClaim")) {
		/* The manifests' claims and the cluster's (an inventory's) are one set: relate.c
		 * looks the manifests' up first. */
		struct sl_pvc *v;
		if ((rc = sl_pvc_read(c, o, &v)) == 0) {
			v->inventory = role != SL_ROLE_MANIFESTS;
			m->storage.known |= v->inventory;
			m->storage.claims_listed |= v->inventory;
			PUSH(pvcs, v);
		}
	} else if (sl_storage_kind(k)) {
		rc = sl_storage_read(c, o, role != SL_ROLE_MANIFESTS, &m->storage);
	} else if (sl_dra_kind(o)) {
		/* Cluster objects, from the manifests or any inventory (kubectl get
		 * resourceslices,resourceclaims,… -A -o yaml in either file): one set. */
		rc = sl_dra_read(c, o, &m->dra);
	} else if (role != SL_ROLE_PODS && !strcmp(k, "NodePool")) {
		/* Karpenter's pools: where new nodes come from, among the manifests or in an inventory. */
		struct sl_pool *p;
		if ((rc = sl_pool_read(c, o, &p)) == 0 && p) {
			p->inventory = role == SL_ROLE_NODES;
			PUSH(pools, p);
		}
	} else if (!strcmp(k, "PriorityClass")) {
		/* From an inventory (kubectl get priorityclasses) the list is the cluster's own. */
		struct sl_priority_class *pc;
		if ((rc = sl_priority_class_read(c, o, &pc)) == 0 && pc) {
			pc->inventory = role != SL_ROLE_MANIFESTS;
			PUSH(prioclasses, pc);
		}
	} else if (role != SL_ROLE_PODS && sl_gang_kind(o)) {
		/* Volcano's PodGroups, Kueue's queues (gang.c): the cluster's, from an inventory, too. */
		rc = sl_gang_read(c, o, m);
	} else if (role != SL_ROLE_PODS && sl_kgang_kind(o)) {
		rc = sl_kgang_read(c, o, m); /* Kubernetes' own Workloads (kgang.c): the same */
	} else if (load_admission(m, c, o, role, &rc)) {
		/* read (or refused) there */
	} else if (role == SL_ROLE_MANIFESTS && !strcmp(k, "PodDisruptionBudget")) {
		struct sl_pdb *v;
		if ((rc = sl_pdb_read(c, o, &v)) == 0)
			PUSH(pdbs, v);
	} else if (role == SL_ROLE_MANIFESTS && !strcmp(k, "Service")) {
		struct sl_service *v;
		if ((rc = sl_service_read(c, o, &v)) == 0)
			PUSH(services, v);
	}
	return rc;
}

/* An autoscaler is looked for in every document and in every item of a document's `items`,
 * whatever the document's kind. */
static void load_hpas(struct sl_model *m, const struct sl_source *src, const struct sl_ynode *root)
{
	struct sl_hpa *h = sl_hpa_read(src, root);
	if (h)
		PUSH(hpas, h);
	const struct sl_ynode *items = sl_ymap_get(root, "items");
	for (size_t i = 0; items && items->kind == SL_YSEQ && i < items->n; i++)
		if ((h = sl_hpa_read(src, items->v[i])))
			PUSH(hpas, h);
}

static int load_object(struct sl_model *m, struct sl_read *c, const struct sl_ynode *root, enum sl_input_role role,
		       int depth)
{
	if (!root || root->kind != SL_YMAP)
		return 0; /* not an object: values files and fragments are skipped silently */
	struct sl_object o;
	sl_object_read(c->src, root, &o);
	if (!o.kind)
		return 0;
	size_t kl = strlen(o.kind);
	if (kl >= 4 && !strcmp(o.kind + kl - 4, "List") && depth == 0) {
		const struct sl_ynode *items = sl_ymap_get(root, "items");
		if (sl_ynull(items))
			return 0;
		if (items->kind != SL_YSEQ) {
			sl_read_error(c, items, "%s.items must be a list, not %s", o.kind, sl_ykind_name(items));
			return -1;
		}
		int rc = 0;
		for (size_t i = 0; i < items->n; i++) {
			struct sl_read ic = {c->src, c->errs, 0};
			if (load_object(m, &ic, items->v[i], role, depth + 1) < 0)
				rc = -1;
		}
		return rc;
	}
	struct sl_read oc = {c->src, c->errs, 0};
	return load_kind(m, &oc, &o, role);
}

/* Inventories are large (kubectl prints managedFields, status, images…) and little of them is
 * read: keep only what the model reads. Manifests are kept whole, for positions and fixes. The
 * storage's paths (storage.c, pvc.c: a default class's annotation, a volume's labels, class,
 * claim, size, modes and node affinity, a claim's class, volume, size, selector, phase and
 * deletion, a class's provisioner, mode and topologies, a CSINode's drivers) are in both lists, as either file may
 * hold `kubectl get nodes,pv,pvc,storageclass,…` output; but a --pods file keeps no annotations
 * (a pod's are large: last-applied-configuration), so a default class is told from an --nodes
 * file or the manifests. */
/* The storage objects' fields, and running pods' claims, in both lists; a RuntimeClass's
 * (runtimeclass.c: handler, overhead, scheduling) too, as kubectl get runtimeclass may go to
 * either file; a running pod's spec.resources is its pod-level resources (podlevel.c) too. */
#define STORAGE_PATHS                                                                                                  \
	"spec.capacity", "spec.storageClassName", "spec.claimRef", "spec.accessModes", "spec.nodeAffinity",            \
	    "spec.volumeName", "spec.resources", "spec.selector", "provisioner", "volumeBindingMode",                  \
	    "allowedTopologies", "spec.drivers", "spec.attachRequired", "spec.storageCapacity", "storageClassName",    \
	    "capacity", "maximumVolumeSize", "nodeTopology", "spec.csi.driver", "spec.csi.volumeHandle",               \
	    "spec.volumes[].persistentVolumeClaim", "metadata.deletionTimestamp", "handler", "overhead", "scheduling", \
	    DRA_PATHS
/* Dynamic Resource Allocation's objects (dra.c: a class's selectors, a claim's or a template's
 * spec, a slice's driver, pool, nodes and devices, a claim's allocation, users and owner) and a
 * running pod's claims, in both lists: `kubectl get resourceslices,resourceclaims -A` may go to
 * either. (A --pods file keeps no annotations: a claim made for a pod is told by its owner. A
 * slice's spec.nodeName is kept in a --nodes file too, where a Pod is still not read.) */
#define DRA_PATHS                                                                                                      \
	"spec.selectors", "spec.devices", "spec.spec", "spec.driver", "spec.pool", "spec.nodeSelector",                \
	    "spec.nodeName", "spec.allNodes", "spec.perDeviceNodeSelection", "status.allocation",                      \
	    "status.reservedFor", "metadata.ownerReferences", "spec.resourceClaims", "status.resourceClaimStatuses"
/* What both lists keep besides: storage, and a ResourceQuota's fields (`kubectl get resourcequota -A
 * -o yaml` in either file). */
#define SHARED_PATHS STORAGE_PATHS, "spec.hard", "spec.scopes", "spec.scopeSelector", "status.used"
static const char *const node_paths[] = {"apiVersion",           "kind",
					 "metadata.name",        "metadata.generateName",
					 "metadata.labels",      "spec.taints",
					 "spec.unschedulable",   "status.allocatable",
					 "status.capacity",      "status.nodeInfo.kubeletVersion",
					 "spec.template",        "spec.limits",
					 "spec.weight",          "value",
					 "globalDefault",        "preemptionPolicy",
					 "spec.minMember",       "spec.minResources",
					 "spec.cohort",          "spec.cohortName",
					 "spec.resourceGroups",  "spec.clusterQueue",
					 "spec.podGroups",       "spec.nodeLabels", /* a ResourceFlavor's */
					 "spec.nodeTaints",      "spec.tolerations",
					 "metadata.namespace", /* a LocalQueue's, a PodGroup's */
					 "metadata.annotations", "status.phase",
					 SHARED_PATHS,           NULL};
static const char *const pod_paths[] = {"apiVersion",
					"kind",
					"metadata.name",
					"metadata.namespace",
					"metadata.labels",
					"spec.nodeName",
					"spec.nodeSelector",
					"spec.affinity",
					"spec.tolerations",
					"spec.topologySpreadConstraints",
					"spec.hostNetwork",
					"spec.overhead",
					"spec.containers[].name",
					"spec.containers[].resources",
					"spec.containers[].ports",
					"spec.initContainers[].name",
					"spec.initContainers[].resources",
					"spec.initContainers[].restartPolicy",
					"spec.priority",
					"spec.priorityClassName",
					"spec.preemptionPolicy",
					"spec.limits", /* a LimitRange's */
					"status.phase",
					"status.startTime",
					"value",
					"globalDefault",
					"preemptionPolicy",
					"spec.activeDeadlineSeconds", /* a ResourceQuota's scopes */
					SHARED_PATHS,
					NULL};

/* A path past the parser's last would be dropped silently. */
_Static_assert(sizeof node_paths / sizeof *node_paths - 1 <= SL_YKEEP_MAX, "too many keep paths for --nodes");
_Static_assert(sizeof pod_paths / sizeof *pod_paths - 1 <= SL_YKEEP_MAX, "too many keep paths for --pods");

const char *const *sl_model_keep_paths(enum sl_input_role role)
{
	return role == SL_ROLE_NODES ? node_paths : role == SL_ROLE_PODS ? pod_paths : NULL;
}

bool sl_model_is_list(const struct sl_source *src, const struct sl_ynode *root)
{
	if (!root || root->kind != SL_YMAP)
		return false;
	struct sl_object o;
	sl_object_read(src, root, &o);
	size_t kl = o.kind ? strlen(o.kind) : 0;
	return kl >= 4 && !strcmp(o.kind + kl - 4, "List");
}

int sl_model_load_items(struct sl_model *part, const struct sl_source *src, struct sl_findings *errs,
			const struct sl_ynode *items, enum sl_input_role role)
{
	int rc = 0;
	for (size_t i = 0; i < items->n; i++) {
		struct sl_read c = {src, errs, 0};
		if (load_object(part, &c, items->v[i], role, 1) < 0)
			rc = -1;
	}
	/* as load_hpas finds them after the objects: the array of each kind in item order */
	for (size_t i = 0; i < items->n; i++) {
		struct sl_hpa *h = sl_hpa_read(src, items->v[i]);
		if (h) {
			struct sl_model *m = part;
			PUSH(hpas, h);
		}
	}
	return rc;
}

int sl_model_load_doc(struct sl_model *part, const struct sl_source *src, struct sl_findings *errs,
		      const struct sl_ynode *root, enum sl_input_role role)
{
	struct sl_read c = {src, errs, 0};
	int rc = load_object(part, &c, root, role, 0);
	load_hpas(part, src, root);
	return rc;
}

/* Append what part holds (NULL: nothing) to m and free part, as if part's objects had been loaded
 * into m one after another: a node named again replaces the earlier one in its place. */
void sl_model_merge(struct sl_model *m, struct sl_model *part)
{
	if (!part)
		return;
/* Append part's array f to m's, and free part's. */
#define APPEND(f, capf, nf)                                                                                            \
	do {                                                                                                           \
		sl_grow(&m->f, &m->capf, m->nf + part->nf, sizeof *m->f);                                              \
		if (part->nf)                                                                                          \
			memcpy(m->f + m->nf, part->f, part->nf * sizeof *m->f);                                        \
		m->nf += part->nf;                                                                                     \
		free(part->f);                                                                                         \
	} while (0)
	APPEND(workloads, capworkloads, nworkloads);
	for (size_t i = 0; i < part->nnodes; i++)
		add_node(m, part->nodes[i]);
	free(part->nodes);
	APPEND(pods, cappods, npods);
	APPEND(pvcs, cappvcs, npvcs);
	APPEND(pdbs, cappdbs, npdbs);
	APPEND(services, capservices, nservices);
	APPEND(namespaces, capnamespaces, nnamespaces);
	APPEND(hpas, caphpas, nhpas);
	APPEND(prioclasses, capprioclasses, nprioclasses);
	APPEND(pools, cappools, npools);
	APPEND(podgroups, cappodgroups, npodgroups);
	APPEND(kqueues, capkqueues, nkqueues);
	APPEND(kworkloads, capkworkloads, nkworkloads);
	APPEND(kflavors, capkflavors, nkflavors);
	APPEND(limitranges, caplimitranges, nlimitranges);
	APPEND(quotas, capquotas, nquotas);
	APPEND(runtimeclasses, capruntimeclasses, nruntimeclasses);
#undef APPEND
	sl_storage_merge(&m->storage, &part->storage);
	sl_dra_merge(&m->dra, &part->dra);
	sl_strmap_free(&part->node_index);
	free(part);
}

static void bind_terms(const struct sl_model *m, struct sl_podspec *p)
{
	for (int k = 0; k < 2; k++) {
		struct sl_podterm *ts = k ? p->anti : p->affinity;
		size_t nt = k ? p->nanti : p->naffinity;
		for (size_t i = 0; i < nt; i++) {
			if (!ts[i].has_ns_selector)
				continue;
			ts[i].ns_known = m->namespaces;
			ts[i].ns_index = &m->namespace_index;
		}
	}
}

void sl_model_bind_pods(struct sl_model *m)
{
	SL_KEEP_LAST_BY_NAME(m->namespaces, m->nnamespaces, &m->namespace_index, sl_namespace_free);
	/* A NodePool both among the manifests and in the inventory is one pool: the later read. The
	 * config's node groups, after them, are named in a namespace of their own. */
	size_t nk = 0, all = m->npools;
	while (nk < all && m->pools[nk]->kind == SL_POOL_KARPENTER)
		nk++;
	size_t kept = nk;
	struct sl_strmap pool_index = {0};
	SL_KEEP_LAST_BY_NAME(m->pools, kept, &pool_index, sl_pool_free);
	sl_strmap_free(&pool_index);
	if (all > nk) /* (no array at all without pools) */
		memmove(m->pools + kept, m->pools + nk, (all - nk) * sizeof *m->pools);
	m->npools = kept + (all - nk);
	for (size_t i = 0; i < m->npools; i++)
		sl_pool_index(m->pools[i], m->nodes, m->nnodes);
	if (m->nnamespaces) {
		for (size_t i = 0; i < m->nworkloads; i++)
			bind_terms(m, &m->workloads[i]->pod);
		for (size_t i = 0; i < m->npods; i++)
			bind_terms(m, &m->pods[i]->spec);
	}
	struct sl_strmap names = {0};
	for (size_t j = 0; j < m->nnodes; j++)
		sl_strmap_put(&names, m->nodes[j]->name, j);
	for (size_t i = 0; i < m->npods; i++) {
		const struct sl_pod *p = m->pods[i];
		/* The scheduler's cache leaves out finished pods: they hold no resources. */
		if (!strcmp(p->phase, "Succeeded") || !strcmp(p->phase, "Failed") || !p->spec.node_name)
			continue;
		size_t j = sl_strmap_get(&names, p->spec.node_name);
		if (j == (size_t)-1)
			continue;
		struct sl_node *n = m->nodes[j];
		for (size_t r = 0; r < p->spec.request.n; r++)
			sl_res_add(&n->used, p->spec.request.v[r].name, p->spec.request.v[r].amount, NULL);
		n->npods++;
	}
	sl_strmap_free(&names);
	sl_storage_index(&m->storage);
	sl_dra_bind(&m->dra, NULL); /* bound already, with the load's errors, when the release was applied */
	sl_model_relate(m);
	sl_kgang_bind(m); /* Kubernetes' own gangs first: sl_gang_bind marks every gang's workloads */
	sl_storage_relate(m);
	sl_gang_bind(m);
}

void sl_model_free_trees(struct sl_model *m)
{
	for (size_t i = 0; i < m->narenas; i++) {
		sl_yarena_free(m->arenas[i]);
		free(m->arenas[i]);
	}
	free(m->arenas);
	m->arenas = NULL;
	m->narenas = m->caparenas = 0;
}

void sl_model_free(struct sl_model *m)
{
	for (size_t i = 0; i < m->nworkloads; i++)
		sl_workload_free(m->workloads[i]);
	for (size_t i = 0; i < m->nnodes; i++)
		sl_node_free(m->nodes[i]);
	for (size_t i = 0; i < m->npods; i++)
		sl_pod_free(m->pods[i]);
	for (size_t i = 0; i < m->npvcs; i++)
		sl_pvc_free(m->pvcs[i]);
	sl_storage_free(&m->storage);
	sl_dra_free(&m->dra);
	free(m->pvcs);
	for (size_t i = 0; i < m->npdbs; i++)
		sl_pdb_free(m->pdbs[i]);
	free(m->pdbs);
	for (size_t i = 0; i < m->nservices; i++)
		sl_service_free(m->services[i]);
	free(m->services);
	for (size_t i = 0; i < m->nnamespaces; i++)
		sl_namespace_free(m->namespaces[i]);
	free(m->namespaces);
	sl_strmap_free(&m->namespace_index);
	for (size_t i = 0; i < m->nhpas; i++)
		free(m->hpas[i]);
	free(m->hpas);
	for (size_t i = 0; i < m->nprioclasses; i++)
		free(m->prioclasses[i]);
	free(m->prioclasses);
	sl_strmap_free(&m->prioclass_index);
	for (size_t i = 0; i < m->npools; i++)
		sl_pool_free(m->pools[i]);
	free(m->pools);
	for (size_t i = 0; i < m->npodgroups; i++)
		sl_podgroup_free(m->podgroups[i]);
	free(m->podgroups);
	for (size_t i = 0; i < m->nkqueues; i++)
		sl_kqueue_free(m->kqueues[i]);
	free(m->kqueues);
	for (size_t i = 0; i < m->nkworkloads; i++)
		sl_kworkload_free(m->kworkloads[i]);
	free(m->kworkloads);
	for (size_t i = 0; i < m->nkflavors; i++)
		sl_kflavor_free(m->kflavors[i]);
	free(m->kflavors);
	for (size_t i = 0; i < m->nlimitranges; i++)
		sl_limitrange_free(m->limitranges[i]);
	free(m->limitranges);
	for (size_t i = 0; i < m->nquotas; i++)
		sl_quota_free(m->quotas[i]);
	free(m->quotas);
	for (size_t i = 0; i < m->nruntimeclasses; i++)
		sl_runtimeclass_free(m->runtimeclasses[i]);
	free(m->runtimeclasses);
	sl_group_free(&m->claims);
	sl_group_free(&m->pdbs_by_ns);
	free(m->workload_pdbs);
	for (size_t i = 0; i < m->nstreams; i++)
		sl_ystream_free(&m->streams[i]);
	free(m->streams);
	sl_model_free_trees(m);
	sl_strmap_free(&m->node_index);
	free(m->workloads);
	free(m->nodes);
	free(m->pods);
	memset(m, 0, sizeof *m);
}
