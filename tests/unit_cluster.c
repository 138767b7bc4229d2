/* unit_cluster.c — the index a what-if derives from the run's (sl_cluster_derive) is the index
 * sl_cluster_new builds for the changed nodes: more allocatable on one node, empty copies of one
 * (a hostname domain each, the other domains and the class of the node copied), and, where a
 * running pod names a copy's name, a build of its own. And the release that surely places
 * (sl_release_places_surely): shown only with room to spare whatever the order, never for one
 * the placement leaves short. And the index refreshed with more running pods (as a release is placed)
 * is the index built anew on them. And a cycle planned (sl_filter_plan) asks only the filters
 * that can fail, with the verdicts of all of them, and one renewed for another workload
 * (sl_cycle_renew) places as a new one would. */
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "../linter/sched/cluster.h"
#include "../linter/sched/cycle.h"
#include "../linter/sched/plugin.h"
#include "unit.h"

static const char nodes_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {kind: Node, metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a, zone: z1, role: web}},"
    " status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}}\n"
    "- {kind: Node, metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b, zone: z2, role: web}},"
    " spec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]},"
    " status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}}\n"
    "- {kind: Node, metadata: {name: node-c, labels: {kubernetes.io/hostname: node-c, zone: z1, role: db}},"
    " status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}\n";

/* Running pods: on node-a and node-b, and one bound to node-a-copy-1, a node the inventory lacks. */
static const char pods_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {kind: Pod, metadata: {name: p1, namespace: shop, labels: {app: web}},"
    " spec: {nodeName: node-a, containers: [{name: c, resources: {requests: {cpu: '1'}}}],"
    " affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
    " [{topologyKey: rack, labelSelector: {matchLabels: {app: web}}}]}}}, status: {phase: Running}}\n"
    "- {kind: Pod, metadata: {name: p2, namespace: shop, labels: {app: db}},"
    " spec: {nodeName: node-b, containers: [{name: c, resources: {requests: {memory: 1Gi}}}]},"
    " status: {phase: Running}}\n"
    "- {kind: Pod, metadata: {name: p3, namespace: shop, labels: {app: web}},"
    " spec: {nodeName: node-a-copy-1, containers: [{name: c}]}, status: {phase: Running}}\n";

static const char workload_yaml[] =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
    "spec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n"
    "    metadata: {labels: {app: web}}\n    spec:\n"
    "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,"
    " labelSelector: {matchLabels: {app: web}}}]\n"
    "      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
    " [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n"
    "      containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n";

static bool same_groups(const struct sl_group_index *a, const struct sl_group_index *b)
{
	if (a->keys.n != b->keys.n)
		return false;
	for (size_t g = 0; g < a->keys.n; g++) {
		size_t n = a->start[g + 1] - a->start[g];
		if (strcmp(a->keys.v[g], b->keys.v[g]) || n != b->start[g + 1] - b->start[g] ||
		    memcmp(a->items + a->start[g], b->items + b->start[g], n * sizeof *a->items))
			return false;
	}
	return true;
}

static bool same_nodes(const struct sl_cluster *d, const struct sl_cluster *f)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->cls[i] != f->cls[i] || d->nz_cpu[i] != f->nz_cpu[i] || d->nz_mem[i] != f->nz_mem[i] ||
		    d->alloc_cpu[i] != f->alloc_cpu[i] || d->alloc_mem[i] != f->alloc_mem[i] ||
		    d->used_cpu[i] != f->used_cpu[i] || d->used_mem[i] != f->used_mem[i] ||
		    d->alloc_eph[i] != f->alloc_eph[i] || d->used_eph[i] != f->used_eph[i])
			return false;
	for (size_t i = 0; i < d->n + 2; i++)
		if (d->pod_start[i] != f->pod_start[i])
			return false;
	for (size_t t = 0; t < d->ntopos; t++) {
		if (strcmp(d->topos[t].key, f->topos[t].key) || d->topos[t].ndom != f->topos[t].ndom ||
		    memcmp(d->topos[t].dom, f->topos[t].dom, d->n * sizeof *d->topos[t].dom))
			return false;
	}
	return true;
}

/* Everything an analysis reads of the two indexes is the same. */
static bool same_index(const struct sl_cluster *d, const struct sl_cluster *f)
{
	if (d->n != f->n || d->npods != f->npods || d->ncls != f->ncls || d->ntopos != f->ntopos)
		return false;
	for (size_t k = 0; k < d->npods; k++)
		if (d->pods[k] != f->pods[k] || d->pod_node[k] != f->pod_node[k] || d->all[k] != f->all[k])
			return false;
	return same_groups(&d->by_ns, &f->by_ns) && same_groups(&d->by_label, &f->by_label) &&
	       same_groups(&d->by_pair, &f->by_pair) && same_groups(&d->anti_by_ns, &f->anti_by_ns) &&
	       same_groups(&d->anti_wild, &f->anti_wild) && same_nodes(d, f);
}

static void load(struct sl_model *m, const char *path, const char *yaml, enum sl_input_role role,
		 struct sl_findings *errs, struct sl_source **src)
{
	*src = sl_source_from_memory(path, yaml, strlen(yaml));
	sl_model_load(m, *src, role, errs);
}

/* m with node `node` given more cpu, or with `copies` empty copies of it named <node>-copy-<i>,
 * as whatif.c changes it; into x, its nodes in the arrays given. */
static void change(const struct sl_model *m, size_t node, int copies, struct sl_model *x, struct sl_node **nodes,
		   struct sl_node *made, struct sl_kv *labels, char (*names)[32], struct sl_reslist *alloc)
{
	*x = *m;
	memcpy(nodes, m->nodes, m->nnodes * sizeof *nodes);
	x->nodes = nodes;
	x->nnodes = m->nnodes + (size_t)copies;
	const struct sl_node *b = m->nodes[node];
	if (!copies) {
		made[0] = *b;
		*alloc = (struct sl_reslist){0};
		for (size_t r = 0; r < b->alloc.n; r++)
			sl_res_add(alloc, b->alloc.v[r].name, b->alloc.v[r].amount, NULL);
		sl_res_add(alloc, "cpu", 2000, NULL);
		made[0].alloc = *alloc;
		nodes[node] = &made[0];
		return;
	}
	for (int c = 0; c < copies; c++) {
		snprintf(names[c], sizeof names[c], "%s-copy-%d", b->name, c + 1);
		made[c] = *b;
		made[c].name = names[c];
		made[c].used = (struct sl_reslist){0};
		made[c].npods = 0;
		made[c].labels.v = labels + (size_t)c * b->labels.n;
		for (size_t l = 0; l < b->labels.n; l++) {
			made[c].labels.v[l] = b->labels.v[l];
			if (!strcmp(b->labels.v[l].key, "kubernetes.io/hostname"))
				made[c].labels.v[l].val = names[c];
		}
		nodes[m->nnodes + (size_t)c] = &made[c];
	}
}

/* One change: derived (from base, or built when derived is false) and built alike. */
static void check_change(const struct sl_cluster *base, const struct sl_model *m, size_t node, int copies, bool derived)
{
	struct sl_model x;
	struct sl_node *nodes[8], made[2];
	struct sl_kv labels[16];
	char names[2][32];
	struct sl_reslist alloc = {0};
	change(m, node, copies, &x, nodes, made, labels, names, &alloc);
	struct sl_cluster *d = sl_cluster_derive(base, &x), *f = sl_cluster_new(&x);
	CHECK((d->base == base) == derived);
	CHECK(same_index(d, f));
	sl_cluster_free(d);
	sl_cluster_free(f);
	sl_res_free(&alloc);
}

void test_cluster_derive(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src[3];
	load(&m, "nodes.yaml", nodes_yaml, SL_ROLE_NODES, &errs, &src[0]);
	load(&m, "pods.yaml", pods_yaml, SL_ROLE_PODS, &errs, &src[1]);
	load(&m, "workload.yaml", workload_yaml, SL_ROLE_MANIFESTS, &errs, &src[2]);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0 && m.nnodes == 3 && m.npods == 3 && m.nworkloads == 1);
	struct sl_cluster *base = sl_cluster_new(&m);
	/* p3's node is unknown; hostname, zone, rack, and the system-default spreading's zone key */
	CHECK(base->npods == 2 && base->ntopos == 4);
	check_change(base, &m, 1, 0, true);  /* more cpu on the tainted node */
	check_change(base, &m, 2, 2, true);  /* two copies of node-c: new hostnames, zone z1 */
	check_change(base, &m, 0, 2, false); /* p3 names node-a-copy-1: it runs on the copy */
	sl_cluster_free(base);
	sl_model_free(&m);
	sl_findings_free(&errs);
	for (int i = 0; i < 3; i++)
		sl_source_free(src[i]);
}

/* Two 4-cpu nodes (a running pod with anti-affinity against app=solo on node-b) and the
 * Deployments given: whether the release of all of them surely places. */
static bool surely(const char *deployments)
{
	static const char nodes[] =
	    "apiVersion: v1\nkind: List\nitems:\n"
	    "- {kind: Node, metadata: {name: node-a}, status: {allocatable: {cpu: '4', pods: '3'}}}\n"
	    "- {kind: Node, metadata: {name: node-b}, status: {allocatable: {cpu: '4', pods: '3'}}}\n";
	static const char pods[] =
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: guard, namespace: shop}\n"
	    "spec:\n  nodeName: node-b\n  containers: [{name: c}]\n"
	    "  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
	    " [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: solo}}}]}}\n"
	    "status: {phase: Running}\n";
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src[3];
	load(&m, "nodes.yaml", nodes, SL_ROLE_NODES, &errs, &src[0]);
	load(&m, "pods.yaml", pods, SL_ROLE_PODS, &errs, &src[1]);
	load(&m, "manifest.yaml", deployments, SL_ROLE_MANIFESTS, &errs, &src[2]);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0 && m.nnodes == 2 && m.nworkloads >= 2);
	struct sl_cluster *cl = sl_cluster_new(&m);
	int64_t todo[8];
	for (size_t i = 0; i < m.nworkloads && i < 8; i++)
		todo[i] = m.workloads[i]->replicas;
	bool sure = sl_release_places_surely(cl, (const struct sl_workload *const *)m.workloads, todo, m.nworkloads);
	sl_cluster_free(cl);
	sl_model_free(&m);
	sl_findings_free(&errs);
	for (int i = 0; i < 3; i++)
		sl_source_free(src[i]);
	return sure;
}

#define DEPLOY(name, app, replicas, cpu, extra)                                                                        \
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " name                                                \
	", namespace: shop}\nspec:\n  replicas: " replicas "\n  selector: {matchLabels: {app: " app                    \
	"}}\n  template:\n    metadata: {labels: {app: " app "}}\n"                                                    \
	"    spec:\n" extra "      containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"

void test_release_surely(void)
{
	/* 2 + 1 cpu of 8, 3 pods of 5 slots: room to spare in any order */
	CHECK(surely(DEPLOY("api", "api", "2", "1", "") "---\n" DEPLOY("batch", "batch", "1", "1", "")));
	/* 4 pods of the 5 slots (guard takes one): whatever three others take, one node has a slot */
	CHECK(surely(DEPLOY("api", "api", "2", "100m", "") "---\n" DEPLOY("batch", "batch", "2", "100m", "")));
	/* 6 pods, 5 slots: short in any order */
	CHECK(!surely(DEPLOY("api", "api", "3", "100m", "") "---\n" DEPLOY("batch", "batch", "3", "100m", "")));
	/* the order-dependent fixture: 2 cpu pods may split the nodes before the 4 cpu one comes */
	CHECK(!surely(DEPLOY("api", "api", "2", "2", "") "---\n" DEPLOY("batch", "batch", "1", "4", "")));
	/* 8 cpu of 8 in pods of 2: every order packs, but nothing is to spare, so it is placed */
	CHECK(!surely(DEPLOY("api", "api", "2", "2", "") "---\n" DEPLOY("batch", "batch", "2", "2", "")));
	/* pods that read other pods are always placed */
	CHECK(!surely(DEPLOY(
	    "api", "api", "1", "100m",
	    "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname,"
	    " whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: api}}}]\n") "---\n" DEPLOY("batch",
													       "batch",
													       "1",
													       "100m",
													       "")));
	/* the guard keeps app=solo off node-b: node-a alone, 3 cpu of 4 asked there, one node */
	CHECK(!surely(DEPLOY("solo", "solo", "1", "3", "") "---\n" DEPLOY("batch", "batch", "1", "2", "")));
	CHECK(surely(DEPLOY("solo", "solo", "1", "1", "") "---\n" DEPLOY("batch", "batch", "1", "1", "")));
}

/* Pods a release adds: q1 and q2 placed as many times as asked (copies sharing the spec, as the
 * placement binds them), q3 finished. q2 has anti-affinity across namespaces on a key new to the
 * index. */
static const char more_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {kind: Pod, metadata: {name: q1, namespace: shop, labels: {app: web, tier: fe}},"
    " spec: {nodeName: node-c, containers: [{name: c, resources: {requests: {cpu: 500m}}}]},"
    " status: {phase: Running}}\n"
    "- {kind: Pod, metadata: {name: q2, namespace: other, labels: {app: api}},"
    " spec: {nodeName: node-c, containers: [{name: c, resources: {requests: {memory: 1Gi}}}],"
    " affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
    " [{topologyKey: row, namespaces: [shop], labelSelector: {matchLabels: {app: web}}}]}}},"
    " status: {phase: Running}}\n"
    "- {kind: Pod, metadata: {name: q3, namespace: shop, labels: {app: web}},"
    " spec: {nodeName: node-a, containers: [{name: c}]}, status: {phase: Succeeded}}\n";

/* The same items under every key of a (keys may be numbered apart: a refreshed index keeps its
 * first numbers). */
static bool same_groups_by_key(const struct sl_group_index *a, const struct sl_group_index *b)
{
	size_t na = 0, nb = 0;
	for (size_t g = 0; g < a->keys.n; g++) {
		size_t n, m;
		const size_t *x = sl_group_get(a, a->keys.v[g], &n), *y = sl_group_get(b, a->keys.v[g], &m);
		if (n != m || (n && memcmp(x, y, n * sizeof *x)))
			return false;
		na += n;
	}
	for (size_t g = 0; g < b->keys.n; g++) {
		size_t m;
		sl_group_get(b, b->keys.v[g], &m);
		nb += m;
	}
	return na == nb;
}

/* What analyses read of a refreshed index r and of f built anew on the same model. */
static bool same_refreshed(const struct sl_cluster *r, const struct sl_cluster *f)
{
	if (r->n != f->n || r->npods != f->npods || r->ntopos != f->ntopos)
		return false;
	for (size_t k = 0; k < r->npods; k++)
		if (r->pods[k] != f->pods[k] || r->pod_node[k] != f->pod_node[k] || r->all[k] != f->all[k])
			return false;
	for (size_t i = 0; i < r->n + 2; i++)
		if (r->pod_start[i] != f->pod_start[i])
			return false;
	for (size_t i = 0; i < r->n; i++)
		if (r->nz_cpu[i] != f->nz_cpu[i] || r->nz_mem[i] != f->nz_mem[i] || r->used_cpu[i] != f->used_cpu[i])
			return false;
	for (size_t t = 0; t < r->ntopos; t++)
		if (strcmp(r->topos[t].key, f->topos[t].key))
			return false;
	return same_groups_by_key(&r->by_ns, &f->by_ns) && same_groups_by_key(&r->by_label, &f->by_label) &&
	       same_groups_by_key(&r->by_pair, &f->by_pair) && same_groups_by_key(&r->anti_by_ns, &f->anti_by_ns) &&
	       same_groups_by_key(&r->anti_wild, &f->anti_wild);
}

/* x gains pods bound as the placement binds them: of[i] on node on[i] (a name), then cl is
 * refreshed and compared with an index built anew. */
static bool grow_and_compare(struct sl_cluster *cl, struct sl_model *x, struct sl_pod *made, size_t *nmade,
			     const struct sl_pod *const *of, const char *const *on, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sl_pod *p = &made[(*nmade)++];
		*p = *of[i];
		p->spec.node_name = on[i];
		x->pods[x->npods++] = p;
	}
	sl_cluster_refresh(cl);
	struct sl_cluster *f = sl_cluster_new(x);
	bool same = same_refreshed(cl, f);
	sl_cluster_free(f);
	return same;
}

void test_cluster_refresh(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src[4];
	load(&m, "nodes.yaml", nodes_yaml, SL_ROLE_NODES, &errs, &src[0]);
	load(&m, "pods.yaml", pods_yaml, SL_ROLE_PODS, &errs, &src[1]);
	load(&m, "more.yaml", more_yaml, SL_ROLE_PODS, &errs, &src[2]);
	load(&m, "workload.yaml", workload_yaml, SL_ROLE_MANIFESTS, &errs, &src[3]);
	CHECK(errs.n == 0 && m.nnodes == 3 && m.npods == 6);
	const struct sl_pod *q1 = m.pods[3], *q2 = m.pods[4], *q3 = m.pods[5];
	struct sl_model x = m;
	struct sl_pod *pods[32];
	struct sl_pod made[32];
	size_t nmade = 0;
	memcpy(pods, m.pods, 3 * sizeof *pods);
	x.pods = pods;
	x.npods = 3;
	struct sl_cluster *cl = sl_cluster_new(&x);
	/* The first refresh builds again; the later ones add the pods gained, among the others. */
	CHECK(grow_and_compare(cl, &x, made, &nmade, (const struct sl_pod *[]){q1, q2},
			       (const char *[]){"node-c", "node-a"}, 2));
	CHECK(grow_and_compare(cl, &x, made, &nmade, (const struct sl_pod *[]){q1, q1, q2, q3, q1, q2},
			       (const char *[]){"node-a", "node-b", "node-c", "node-a", "nowhere", "node-a"}, 6));
	CHECK(grow_and_compare(cl, &x, made, &nmade, NULL, NULL, 0));
	/* Charged since: the refresh counts the pods, not the charges. */
	sl_cluster_charge(cl, 0, &q2->spec, 3);
	CHECK(grow_and_compare(cl, &x, made, &nmade, (const struct sl_pod *[]){q2, q1},
			       (const char *[]){"node-b", "node-a"}, 2));
	CHECK(cl->npods == 10 && x.npods == 13);
	sl_cluster_free(cl);
	sl_model_free(&m);
	sl_findings_free(&errs);
	for (int i = 0; i < 4; i++)
		sl_source_free(src[i]);
}

/* Deployments on the three nodes of nodes_yaml beside the running pods of pods_yaml: web (spread
 * and anti-affinity), a plain one, one with a host port, one p1's anti-affinity could select. */
static const char cycle_workloads_yaml[] =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: batch, namespace: shop}\n"
    "spec:\n  replicas: 4\n  selector: {matchLabels: {app: batch}}\n  template:\n"
    "    metadata: {labels: {app: batch}}\n    spec:\n"
    "      containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n"
    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: edge, namespace: shop}\n"
    "spec:\n  replicas: 3\n  selector: {matchLabels: {app: edge}}\n  template:\n"
    "    metadata: {labels: {app: edge}}\n    spec:\n"
    "      tolerations: [{operator: Exists}]\n"
    "      containers: [{name: c, ports: [{containerPort: 80, hostPort: 80}]}]\n"
    "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web2, namespace: shop}\n"
    "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web, v: '2'}}\n  template:\n"
    "    metadata: {labels: {app: web, v: '2'}}\n    spec:\n"
    "      containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n";

/* Whether, for a pod of w with k of its pods placed on node `at`, the planned filters agree with
 * all of them on every node. */
static bool plan_agrees(struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded, const bool *ok,
			size_t at, int k)
{
	struct sl_cycle s;
	sl_cycle_init(&s, cl, w, excluded, ok, "h1");
	sl_plugins_prefilter(&s);
	sl_plugins_refresh(&s);
	for (int j = 0; j < k; j++) {
		s.placed[at]++;
		s.placed_gen[0][at]++;
		sl_plugins_add_pod(&s, at, 0);
		sl_plugins_refresh(&s);
	}
	sl_filter_plan(&s);
	bool same = s.nactive < sl_nfilter_plugins;
	for (size_t i = 0; i < s.n; i++)
		same &= sl_filter_fits(&s, i) == (sl_filter_others(&s, i, NULL) == SL_FITS);
	sl_cycle_free(&s);
	return same;
}

/* Where w's pods go: a new cycle's placement and that of a cycle used for `before` first, then
 * renewed (the counts per node, and how many placed). */
static bool renew_places_alike(struct sl_cluster *cl, const struct sl_workload *before, const struct sl_workload *w,
			       const bool *excluded, const bool *ok)
{
	struct sl_cycle a, b;
	int64_t pa, sa, pb, sb;
	sl_cycle_init(&a, cl, w, excluded, ok, "h1");
	sl_place_all(&a, w, NULL, 0, &pa, &sa, NULL, NULL);
	sl_cycle_init(&b, cl, before, excluded, ok, "h0");
	sl_place_all(&b, before, NULL, 0, &pb, &sb, NULL, NULL);
	sl_cycle_finish(&b);
	sl_cycle_renew(&b, cl, w, excluded, ok, "h1");
	sl_place_all(&b, w, NULL, 0, &pb, &sb, NULL, NULL);
	bool same = pa == pb && sa == sb && a.nlog == b.nlog;
	for (size_t i = 0; i < a.n; i++)
		same &= a.placed_gen[0][i] == b.placed_gen[0][i] && a.placed_gen[1][i] == b.placed_gen[1][i];
	sl_cycle_free(&a);
	sl_cycle_free(&b);
	return same;
}

void test_cycle_plan(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src[4];
	load(&m, "nodes.yaml", nodes_yaml, SL_ROLE_NODES, &errs, &src[0]);
	load(&m, "pods.yaml", pods_yaml, SL_ROLE_PODS, &errs, &src[1]);
	load(&m, "workload.yaml", workload_yaml, SL_ROLE_MANIFESTS, &errs, &src[2]);
	load(&m, "more.yaml", cycle_workloads_yaml, SL_ROLE_MANIFESTS, &errs, &src[3]);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0 && m.nnodes == 3 && m.nworkloads == 4);
	struct sl_cluster *cl = sl_cluster_new(&m);
	bool excluded[4] = {false}, ok[4];
	for (size_t w = 0; w < m.nworkloads; w++) {
		const struct sl_workload *wl = m.workloads[w];
		memset(ok, 0, sizeof ok);
		sl_node_only_verdicts(cl, &wl->pod, ok);
		for (size_t at = 0; at < m.nnodes; at++)
			for (int k = 0; k < 3; k++)
				CHECK(plan_agrees(cl, wl, excluded, ok, at, k));
		CHECK(renew_places_alike(cl, m.workloads[(w + 1) % m.nworkloads], wl, excluded, ok));
	}
	sl_cluster_free(cl);
	sl_model_free(&m);
	sl_findings_free(&errs);
	for (int i = 0; i < 4; i++)
		sl_source_free(src[i]);
}

/* What the model reads of a container's probe is its handler's port: the rest of the probe is left
 * out of the tree as it is parsed, while the probe's span still covers it; a policy's field that
 * names a key keeps it. */
static bool key_timeout(void *ctx, const char *key)
{
	(void)ctx;
	return !strcmp(key, "timeoutSeconds");
}

void test_unread_probes(void)
{
	static const char yaml[] = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
				   "  template:\n    spec:\n      containers:\n      - name: c\n"
				   "        livenessProbe:\n          httpGet: {path: /healthz, port: http}\n"
				   "          initialDelaySeconds: 5\n          timeoutSeconds: 2\n"
				   "        readinessProbe:\n          exec: {command: [cat, /tmp/ready]}\n";
	for (int policy = 0; policy < 2; policy++) {
		struct sl_model m = {0};
		struct sl_findings errs = {0};
		struct sl_tree_readers readers = {NULL, NULL, policy ? key_timeout : NULL, true, NULL, NULL, false};
		struct sl_load one = {sl_source_from_memory("d.yaml", yaml, strlen(yaml)), SL_ROLE_MANIFESTS};
		sl_model_load_many(&m, &one, 1, &readers, &errs);
		CHECK(errs.n == 0 && m.nworkloads == 1);
		const struct sl_ynode *cs = m.nworkloads ? m.workloads[0]->pod.containers_node : NULL;
		const struct sl_ynode *c = cs && cs->n == 1 ? cs->v[0] : NULL;
		const struct sl_ynode *live = sl_ymap_get(c, "livenessProbe");
		CHECK(sl_yis(sl_ypath(live, "httpGet.port"), "http"));
		CHECK(live && !sl_ypath(live, "httpGet.path") && !sl_ymap_get(live, "initialDelaySeconds"));
		CHECK(live && (sl_ymap_get(live, "timeoutSeconds") != NULL) == (policy == 1));
		CHECK(live && one.src->data[live->at.end - 1] == '2'); /* the span runs to its last entry */
		const struct sl_ynode *ready = sl_ymap_get(c, "readinessProbe");
		CHECK(ready && ready->kind == SL_YMAP && ready->n == 0);
		sl_model_free(&m);
		sl_findings_free(&errs);
		sl_source_free(one.src);
	}
}

/* A source that holds "{{" keeps no more documents than another: a ConfigMap whose string holds a
 * template goes as it ends, and the file is still told from a Go template, whose "{{" are outside
 * every scalar (here in a comment after the ConfigMap, which no tree holds any more). */
void test_braces_documents(void)
{
	static const char cm[] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n"
				 "  t: \"{{ .Values.x }}\"\n";
	static const char deploy[] = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
				     "spec:\n  template:\n    spec:\n      containers:\n      - name: c\n";
	for (int comment = 0; comment < 2; comment++) {
		char yaml[512];
		snprintf(yaml, sizeof yaml, "%s%s%s", cm, comment ? "# {{ end }}\n" : "", deploy);
		struct sl_model m = {0};
		struct sl_findings errs = {0};
		struct sl_tree_readers readers = {NULL, NULL, NULL, false, NULL, NULL, false};
		struct sl_load one = {sl_source_from_memory("c.yaml", yaml, strlen(yaml)), SL_ROLE_MANIFESTS};
		sl_model_load_many(&m, &one, 1, &readers, &errs);
		if (!comment) { /* the ConfigMap's tree is not kept: only the Deployment's */
			CHECK(errs.n == 0 && m.nworkloads == 1 && m.nstreams == 1 && m.streams[0].n == 1);
		} else
			CHECK(errs.n == 1 && strstr(errs.v[0].message, "Go template") && m.nworkloads == 0 &&
			      sl_span_line(&errs.v[0].at) == 6);
		sl_model_free(&m);
		sl_findings_free(&errs);
		sl_source_free(one.src);
	}
}
