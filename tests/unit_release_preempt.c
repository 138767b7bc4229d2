/* unit_release_preempt.c — preemption inside the release placement (sl_release_place): a pod that
 * finds no node evicts pods of lower priority, running ones or the release's own placed earlier,
 * each victim once (the index is built anew after an eviction), and a pod of the release evicted
 * so is placed again. */
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "../linter/sched/sched.h"
#include "unit.h"

#define NODE(name, cpu)                                                                                                \
	"- {kind: Node, metadata: {name: " name ", labels: {kubernetes.io/hostname: " name "}},"                       \
	" status: {allocatable: {cpu: '" cpu "', memory: 8Gi, pods: '110'}}}\n"

#define BATCH(name, node)                                                                                              \
	"- {kind: Pod, metadata: {name: " name ", namespace: etl, labels: {app: etl}}, spec: {nodeName: " node         \
	", priority: 0, containers: [{name: c, resources: {requests: {cpu: '2'}}}]}, status: {phase: Running}}\n"

#define DEPLOY(name, replicas, cpu, klass)                                                                             \
	"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " name ", namespace: shop}\nspec:\n"             \
	"  replicas: " replicas "\n  strategy: {type: Recreate}\n  selector: {matchLabels: {app: " name "}}\n"         \
	"  template:\n    metadata: {labels: {app: " name "}}\n    spec:\n      priorityClassName: " klass "\n"        \
	"      containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"

#define CLASSES                                                                                                        \
	"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n"            \
	"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 0\n"

static char *list(const char *items)
{
	return sl_xasprintf("apiVersion: v1\nkind: List\nitems:%s%s", *items ? "\n" : " []\n", items);
}

/* A GPU of DRA's on node n1: a class, a slice of one device and a template that asks for it. */
#define GPU_SLICE                                                                                                      \
	"- {apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: s1}, spec: {driver: "                \
	"gpu.example.com,"                                                                                             \
	" nodeName: n1, pool: {name: p1, resourceSliceCount: 1}, devices: [{name: d0}]}}\n"
#define GPU_CLASS                                                                                                      \
	"---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"                              \
	"spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n---\n"                      \
	"apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one, namespace: shop}\n"        \
	"spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}\n"
#define DEPLOY_GPU(name, cpu, klass)                                                                                   \
	"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " name ", namespace: shop}\nspec:\n"             \
	"  replicas: 1\n  strategy: {type: Recreate}\n  selector: {matchLabels: {app: " name "}}\n"                    \
	"  template:\n    metadata: {labels: {app: " name "}}\n    spec:\n      priorityClassName: " klass "\n"        \
	"      resourceClaims: [{name: g, resourceClaimTemplateName: one}]\n"                                          \
	"      containers: [{name: c, resources: {requests: {cpu: '" cpu "'}, claims: [{name: g}]}}]\n"

/* A running pod of priority -5 holding the claim trainer-g made for it from a template, and that
 * claim: allocated n1's GPU, reserved for it. */
#define TRAINER(name, cpu)                                                                                             \
	"- {kind: Pod, metadata: {name: " name ", namespace: etl}, spec: {nodeName: n1, priority: -5,"                 \
	" resourceClaims: [{name: g, resourceClaimTemplateName: one}], containers: [{name: c, resources:"              \
	" {requests: {cpu: '" cpu "'}, claims: [{name: g}]}}]}, status: {phase: Running,"                              \
	" resourceClaimStatuses: [{name: g, resourceClaimName: trainer-g}]}}\n"
#define TRAINER_CLAIM                                                                                                  \
	"- {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: trainer-g, namespace: etl,"          \
	" ownerReferences: [{apiVersion: v1, kind: Pod, name: trainer, uid: u1, controller: true}]},"                  \
	" spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}, status: {allocation: {devices:"   \
	" {results: [{request: g, driver: gpu.example.com, pool: p1, device: d0}]}}, reservedFor: [{resource: pods,"   \
	" name: trainer, uid: u1}]}}\n"

/* The release of manifests placed in input order on nodes with pods running: into out. minor: the
 * Kubernetes release whose semantics apply (0: the default). */
static void place_on(int minor, const char *nodes, const char *pods, const char *manifests,
		     struct sl_release_placement *out)
{
	char *n = list(nodes), *p = list(pods);
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src[3] = {sl_source_from_memory("nodes.yaml", n, strlen(n)),
				    sl_source_from_memory("pods.yaml", p, strlen(p)),
				    sl_source_from_memory("manifest.yaml", manifests, strlen(manifests))};
	sl_model_load(&m, src[0], SL_ROLE_NODES, &errs);
	sl_model_load(&m, src[1], SL_ROLE_PODS, &errs);
	sl_model_load(&m, src[2], SL_ROLE_MANIFESTS, &errs);
	if (minor)
		sl_model_apply_version(&m, minor, "1.x", 0, NULL, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	int64_t todo[8];
	for (size_t i = 0; i < m.nworkloads && i < 8; i++)
		todo[i] = m.workloads[i]->replicas;
	CHECK(sl_release_place(&m, (const struct sl_workload *const *)m.workloads, todo, m.nworkloads, false, out));
	sl_model_free(&m);
	sl_findings_free(&errs);
	for (size_t i = 0; i < 3; i++)
		sl_source_free(src[i]);
	free(n);
	free(p);
}

static void place(const char *nodes, const char *pods, const char *manifests, struct sl_release_placement *out)
{
	place_on(0, nodes, pods, manifests, out);
}

void test_release_preemption(void)
{
	/* Three pods of 2 CPU at priority 1000 on a 4-CPU node two priority-0 pods fill: two of them
	 * evict one each, the third finds nothing left to evict (an evicted pod is not evicted
	 * twice). */
	struct sl_release_placement a;
	place(NODE("n1", "4"), BATCH("etl-a", "n1") BATCH("etl-b", "n1"), CLASSES DEPLOY("train", "3", "2", "high"),
	      &a);
	CHECK(a.placed[0] == 2);
	CHECK(a.by_preemption == 2 && a.evicted_running == 2 && a.evicted_own == 0);
	sl_release_placement_free(&a);

	/* api (priority 0) spreads its two 2-CPU pods over two 4-CPU nodes; batch (1000) asks 4 CPU,
	 * evicts one of them, and api's controller places it again on the other node: all run. */
	struct sl_release_placement b;
	place(NODE("n1", "4") NODE("n2", "4"), "",
	      CLASSES DEPLOY("api", "2", "2", "low") DEPLOY("batch", "1", "4", "high"), &b);
	CHECK(b.placed[0] == 2 && b.placed[1] == 1);
	CHECK(b.by_preemption == 1 && b.evicted_own == 1 && b.evicted_running == 0);
	sl_release_placement_free(&b);

	/* The devices the release's pods took stay taken once the index is built anew after an
	 * eviction: a (priority 0) takes n1's only GPU; b (1000, the whole of a node's CPU) evicts
	 * the pod of lower priority still, on n2; c (0) then finds the GPU taken and no victim. */
	struct sl_release_placement c;
	place_on(35, NODE("n1", "4") NODE("n2", "4") GPU_SLICE,
		 "- {kind: Pod, metadata: {name: etl, namespace: etl}, spec: {nodeName: n2, priority: -5, containers: "
		 "[{name: c, resources: {requests: {cpu: '4'}}}]}, status: {phase: Running}}\n",
		 CLASSES GPU_CLASS DEPLOY_GPU("a", "1", "low") DEPLOY("b", "1", "4", "high")
		     DEPLOY_GPU("c", "1", "low"),
		 &c);
	CHECK(c.placed[0] == 1 && c.placed[1] == 1 && c.placed[2] == 0);
	CHECK(c.by_preemption == 1 && c.evicted_running == 1 && c.evicted_own == 0);
	sl_release_placement_free(&c);

	/* A victim's devices go with it: trainer (priority -5) holds n1's only GPU through the claim
	 * made for it from a template; b (1000) evicts it for CPU; the claim goes with its pod, and c
	 * (0) takes the GPU. The same claim shared by name with a pod that stays keeps it: c then
	 * finds none. */
	for (int shared = 0; shared < 2; shared++) {
		struct sl_buf pods = SL_BUF_INIT;
		sl_buf_puts(&pods, TRAINER("trainer", "2"));
		if (shared)
			sl_buf_puts(&pods,
				    "- {kind: Pod, metadata: {name: keeper, namespace: etl}, spec: {nodeName: n1, "
				    "priority: 2000, resourceClaims: [{name: g, resourceClaimName: trainer-g}], "
				    "containers: [{name: c}]}, status: {phase: Running}}\n");
		sl_buf_puts(&pods, TRAINER_CLAIM);
		struct sl_release_placement d;
		place_on(35, NODE("n1", "4") GPU_SLICE, sl_buf_str(&pods),
			 CLASSES GPU_CLASS DEPLOY("b", "1", "3", "high") DEPLOY_GPU("c", "1", "low"), &d);
		CHECK(d.placed[0] == 1 && d.evicted_running == 1);
		CHECK(d.placed[1] == (shared ? 0 : 1));
		sl_release_placement_free(&d);
		sl_buf_free(&pods);
	}
}
