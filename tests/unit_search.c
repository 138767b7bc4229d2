/* unit_search.c — the search over placements of a release (sl_release_search): "none" only where
 * no assignment runs every pod (packing, host ports, anti-affinity, SPREAD), "found" with a
 * placement that does, "not searched" past its bounds; and a rollout's surge pod judged given the
 * release, whose own spread constraints do not count it (the release's pods were running first). */
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "../linter/sched/sched.h"
#include "unit.h"

#define NODE(name, zone, cpu)                                                                                          \
	"- {kind: Node, metadata: {name: " name ", labels: {kubernetes.io/hostname: " name ", zone: " zone "}},"       \
	" status: {allocatable: {cpu: '" cpu "', memory: 8Gi, pods: '110'}}}\n"

#define DEPLOY(name, labels, replicas, cpu, extra)                                                                     \
	"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " name ", namespace: shop}\nspec:\n"             \
	"  replicas: " replicas                                                                                        \
	"\n  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n"                       \
	"  selector: {matchLabels: {app: " name "}}\n  template:\n    metadata: {labels: {app: " name labels "}}\n"    \
	"    spec:\n" extra "      containers: [{name: c, resources: {requests: {cpu: '" cpu "'}}}]\n"

#define ANTI(sel)                                                                                                      \
	"      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"                           \
	" [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {" sel "}}}]}}\n"

#define SPREAD                                                                                                         \
	"      topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,"          \
	" labelSelector: {matchLabels: {tier: t}}}]\n"

/* The search on nodes and manifests, every replica to place; surge: the index of the workload
 * whose surge pod is added, or -1. The verdict (a placement found is checked to hold every pod),
 * and the steps into *steps when not NULL. */
static enum sl_search_verdict search(const char *nodes, const char *manifests, int surge, int64_t *steps)
{
	char *all = malloc(strlen(nodes) + 64);
	strcpy(all, "apiVersion: v1\nkind: List\nitems:\n");
	strcat(all, nodes);
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src[2] = {sl_source_from_memory("nodes.yaml", all, strlen(all)),
				    sl_source_from_memory("manifest.yaml", manifests, strlen(manifests))};
	sl_model_load(&m, src[0], SL_ROLE_NODES, &errs);
	sl_model_load(&m, src[1], SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	struct sl_cluster *cl = sl_cluster_new(&m);
	int64_t todo[16];
	for (size_t i = 0; i < m.nworkloads && i < 16; i++)
		todo[i] = m.workloads[i]->replicas;
	struct sl_release_search rs;
	sl_release_search(cl, (const struct sl_workload *const *)m.workloads, todo, m.nworkloads,
			  surge >= 0 ? m.workloads[surge] : NULL, &rs);
	/* a placement found runs every pod */
	for (size_t i = 0; rs.verdict == SL_SEARCH_FOUND && i < m.nworkloads; i++) {
		int64_t n = 0;
		for (size_t k = 0; k < m.nnodes; k++)
			n += rs.at[i * rs.nnodes + k];
		CHECK(n == todo[i]);
	}
	if (steps)
		*steps = (int64_t)rs.steps;
	enum sl_search_verdict v = rs.verdict;
	sl_release_search_free(&rs);
	sl_cluster_free(cl);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(src[0]);
	sl_source_free(src[1]);
	free(all);
	return v;
}

void test_release_search(void)
{
	const char *three5 = NODE("n1", "a", "5") NODE("n2", "a", "5") NODE("n3", "a", "5");
	/* 2 x 4 CPU and 3 x 2 CPU on three 5-CPU nodes: 14 of 15, but no packing */
	CHECK(search(three5, DEPLOY("api", "", "2", "4", "") DEPLOY("worker", "", "3", "2", ""), -1, NULL) ==
	      SL_SEARCH_NONE);
	/* 2 x 3 CPU and 3 x 2 CPU: 3 + 2 on each node */
	CHECK(search(three5, DEPLOY("api", "", "3", "3", "") DEPLOY("worker", "", "3", "2", ""), -1, NULL) ==
	      SL_SEARCH_FOUND);
	/* anti-affinity: api's term repels its own pods and worker's (worker has no term: a pod of it
	 * is kept off api's nodes by the placed pods' term), so 3 api pods and a worker need 4 nodes */
	const char *three9 = NODE("n1", "a", "9") NODE("n2", "a", "9") NODE("n3", "a", "9");
	CHECK(search(three9,
		     DEPLOY("api", ", tier: t", "3", "1", ANTI("tier: t")) DEPLOY("worker", ", tier: t", "1", "1", ""),
		     -1, NULL) == SL_SEARCH_NONE);
	CHECK(search(three9,
		     DEPLOY("api", ", tier: t", "2", "1", ANTI("tier: t")) DEPLOY("worker", ", tier: t", "2", "1", ""),
		     -1, NULL) == SL_SEARCH_FOUND);
	/* spread: 4 pods, maxSkew 1 over zones a (two nodes of 9) and b (one node of 1 CPU): 2 + 2
	 * needs 2 CPU in b */
	const char *zones = NODE("n1", "a", "9") NODE("n2", "a", "9") NODE("n3", "b", "1");
	CHECK(search(zones, DEPLOY("web", ", tier: t", "4", "1", "") DEPLOY("api", ", tier: t", "1", "1", SPREAD), -1,
		     NULL) == SL_SEARCH_FOUND);
	CHECK(search(zones, DEPLOY("web", ", tier: t", "4", "1", SPREAD) DEPLOY("api", "", "1", "1", ""), -1, NULL) ==
	      SL_SEARCH_NONE);
	/* the surge pod beside the release: strict (3 CPU, spread maxSkew 1 over zones, counting web)
	 * must share zone a with one web pod, the other in b; the surge pod then fits only in a,
	 * where strict's constraint, counting it, would fail: it does not count it. */
	const char *surge_nodes = NODE("n1", "a", "7") NODE("n2", "b", "2");
	const char *surge_release =
	    DEPLOY("strict", ", tier: t", "1", "3", SPREAD) DEPLOY("web", ", tier: t", "2", "2", "");
	CHECK(search(surge_nodes, surge_release, -1, NULL) == SL_SEARCH_FOUND);
	CHECK(search(surge_nodes, surge_release, 1, NULL) == SL_SEARCH_FOUND);
	/* and with 6 CPU on n1 no placement leaves it room */
	CHECK(search(NODE("n1", "a", "6") NODE("n2", "b", "2"), surge_release, 1, NULL) == SL_SEARCH_NONE);
	/* the steps are counted; a small release takes few */
	int64_t steps = 0;
	search(three5, DEPLOY("api", "", "2", "4", "") DEPLOY("worker", "", "3", "2", ""), -1, &steps);
	CHECK(steps > 0 && steps < 100);
}
