/* The benchmark's second input: a repository of many small manifest files that reaches every rule
 * (and the config's policies and ignore entries, and suppression comments and annotations), with
 * a node inventory and running pods, at any scale. The repository grows with the scale, one set of
 * namespaces and apps per unit; the cluster it is checked against does not (a workload's placement
 * reads every node: the placement benchmark measures large clusters on their own).
 *
 * Written under DIR: .schedlint.yaml, inventory/nodes.yaml, inventory/pods.yaml, namespaces.yaml
 * and apps/<namespace>/<app>.yaml, deterministically. */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { APPS = 40, NS = 4, RUNNING = 40, GENERAL = 12 };

static FILE *out;
#define P(...) fprintf(out, __VA_ARGS__)

static int open_file(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(out = fopen(path, "w"))) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int close_file(void)
{
	int bad = ferror(out) | fclose(out);
	if (bad)
		perror("bench: write");
	return bad ? -1 : 0;
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void node(const char *pool, unsigned k, const char *zone, const char *cpu, const char *extra)
{
	P("- apiVersion: v1\n  kind: Node\n  metadata:\n    name: %s-%u\n    labels:\n"
	  "      kubernetes.io/hostname: %s-%u\n      topology.kubernetes.io/zone: %s\n"
	  "      pool: %s\n      disktype: ssd\n  spec:%s\n  status:\n    allocatable:\n      cpu: \"%s\"\n"
	  "      memory: 32Gi\n      pods: \"110\"\n%s",
	  pool, k, pool, k, zone, pool,
	  extra ? "\n    taints:\n    - {key: nvidia.com/gpu, value: present, "
		  "effect: NoSchedule}"
		: " {}",
	  cpu, extra ? extra : "");
}

/* A general pool, and small pools that the rules' cases need exactly: two nodes that hold two pods
 * but not a third (tight, small), three zones of which one is full (spread), two GPUs behind a
 * taint. */
static void nodes(void)
{
	static const char *const zones[] = {"zone-a", "zone-b", "zone-c"};
	for (unsigned k = 0; k < GENERAL; k++)
		node("general", k, zones[k % 3], "16", NULL);
	for (unsigned k = 0; k < 2; k++) {
		node("tight", k, zones[k], "4", NULL);
		node("small", k, zones[k], "4", NULL);
		node("gpu", k, zones[k], "8", "      nvidia.com/gpu: \"1\"\n");
	}
	for (unsigned k = 0; k < 3; k++)
		node("spread", k, zones[k], k == 2 ? "250m" : "4", NULL);
	node("busy", 0, zones[0], "2", NULL);
}

/* Running pods on the general pool: the replicas of the first unit's plain Deployments (their
 * owners), and a few with anti-affinity, of their namespace and across namespaces. */
static void pods(void)
{
	unsigned u = 0;
	for (unsigned k = 0; k < RUNNING; k++) {
		unsigned app = (k * 20) % APPS; /* a plain Deployment: see app_of */
		P("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: app-%u-%u-7d4f9c-%u\n    namespace: "
		  "team-%u-%u\n"
		  "    labels:\n      app: app-%u-%u\n      pod-template-hash: 7d4f9c\n  spec:\n    nodeName: "
		  "general-%u\n"
		  "    containers:\n    - name: main\n      image: registry.example/app:1\n"
		  "      resources:\n        requests: {cpu: 500m, memory: 512Mi}\n",
		  u, app, k, u, app % NS, u, app, k % GENERAL);
		if (k % 10 == 3)
			P("    affinity:\n      podAntiAffinity:\n        "
			  "requiredDuringSchedulingIgnoredDuringExecution:\n"
			  "        - labelSelector:\n            matchLabels: {app: app-%u-%u}\n%s"
			  "          topologyKey: kubernetes.io/hostname\n",
			  u, app, k % 20 == 3 ? "          namespaceSelector: {}\n" : "");
		P("  status:\n    phase: Running\n");
	}
	/* The busy pool's one node, full with a batch pod of priority 0: preemption-required's
	 * victim. */
	P("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: batch-0-5d8f7\n    namespace: batch\n"
	  "    labels: {app: batch}\n  spec:\n    nodeName: busy-0\n    priority: 0\n"
	  "    containers:\n    - name: job\n      image: registry.example/batch:1\n"
	  "      resources:\n        requests: {cpu: \"2\", memory: 1Gi}\n  status:\n    phase: Running\n");
}

/* A Deployment of app-u-j whose template is labelled app: tmpl (its own name, but for a case
 * whose selector misses its template). */
static void deployment(unsigned u, unsigned j, const char *ns, unsigned replicas, const char *strategy,
		       const char *podspec, const char *tmpl)
{
	P("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%u-%u\n  namespace: %s\n"
	  "  labels: {app: app-%u-%u, team: %s}\n  annotations:\n    owner: team@example.com\n"
	  "spec:\n  replicas: %u\n%s  selector:\n    matchLabels: {app: app-%u-%u}\n  template:\n    metadata:\n"
	  "      labels: {app: %s}\n    spec:\n%s",
	  u, j, ns, u, j, ns, replicas, strategy, u, j, tmpl, podspec);
}

/* The container most cases share: requests, limits, the env, probes and mounts a real one has. */
static void container(const char *image, const char *cpu, const char *extra)
{
	P("      containers:\n      - name: main\n        image: %s\n        resources:\n"
	  "          requests: {cpu: %s, memory: 512Mi%s}\n          limits: {memory: 512Mi%s}\n"
	  "        env:\n        - {name: LOG_LEVEL, value: info}\n        - {name: PORT, value: \"8080\"}\n"
	  "        readinessProbe:\n          httpGet: {path: /ready, port: 8080}\n"
	  "        volumeMounts:\n        - {name: config, mountPath: /etc/app}\n"
	  "      volumes:\n      - name: config\n        configMap: {name: app-config}\n",
	  image, cpu, extra ? extra : "", extra ? extra : "");
}

static void service(unsigned u, unsigned j, const char *ns)
{
	P("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: app-%u-%u\n  namespace: %s\nspec:\n"
	  "  selector: {app: app-%u-%u}\n  ports:\n  - {port: 80, targetPort: 8080}\n"
	  "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: %s\n"
	  "data:\n  app.yaml: |\n    listen: 8080\n    log: info\n",
	  u, j, ns, u, j, ns);
}

static void pdb(const char *name, const char *ns, const char *app, const char *value)
{
	P("---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n"
	  "  %s\n  selector:\n    matchLabels: {app: %s}\n",
	  name, ns, value, app);
}

#define SAFE "  strategy:\n    rollingUpdate: {maxSurge: 0, maxUnavailable: 1}\n"

/* The cases that are one Deployment: their replicas, strategy, CPU request and what their pod
 * spec holds (each %s is the app's name). */
static const struct {
	unsigned which, replicas;
	const char *strategy, *cpu, *spec;
} one_deployment[] = {
    /* rollout-deadlock: two nodes hold two pods, not the surge pod */
    {1, 2, "", "3", "      nodeSelector: {pool: tight}\n"},
    /* unschedulable: no node has the label */
    {2, 2, SAFE, "500m", "      nodeSelector: {pool: retired}\n"},
    /* insufficient-capacity */
    {3, 3, SAFE, "3", "      nodeSelector: {pool: small}\n"},
    /* topology-spread-unsatisfiable: the full zone holds the minimum */
    {4, 4, SAFE, "500m",
     "      nodeSelector: {pool: spread}\n      topologySpreadConstraints:\n      - maxSkew: 1\n"
     "        topologyKey: topology.kubernetes.io/zone\n        whenUnsatisfiable: DoNotSchedule\n"
     "        labelSelector:\n          matchLabels: {app: %s}\n"},
    /* anti-affinity-vs-node-affinity: one pod per node, two nodes, three replicas */
    {5, 3, SAFE, "100m",
     "      nodeSelector: {pool: tight}\n      affinity:\n        podAntiAffinity:\n"
     "          requiredDuringSchedulingIgnoredDuringExecution:\n          - labelSelector:\n"
     "              matchLabels: {app: %s}\n            topologyKey: kubernetes.io/hostname\n"},
    /* contradictory-node-constraints */
    {7, 2, SAFE, "500m",
     "      nodeSelector: {disktype: ssd}\n      affinity:\n        nodeAffinity:\n"
     "          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n"
     "            - matchExpressions:\n              - {key: disktype, operator: In, values: [hdd]}\n"},
    /* affinity-contradiction: near its own pods and apart from them, in one zone */
    {8, 3, SAFE, "100m",
     "      affinity:\n        podAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
     "          - labelSelector:\n              matchLabels: {app: %s}\n"
     "            topologyKey: topology.kubernetes.io/zone\n        podAntiAffinity:\n"
     "          requiredDuringSchedulingIgnoredDuringExecution:\n          - labelSelector:\n"
     "              matchLabels: {app: %s}\n            topologyKey: topology.kubernetes.io/zone\n"},
    /* invalid-rollout-params */
    {10, 2, "  strategy:\n    rollingUpdate: {maxSurge: 0, maxUnavailable: 0}\n", "500m", ""},
};

static void autoscaler(const char *app, const char *ns)
{
	P("---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\n  namespace: %s\n"
	  "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %s}\n  minReplicas: 2\n"
	  "  maxReplicas: 6\n",
	  app, ns, app);
}

/* The cases of kinds other than a Deployment's, and a claim: j % 20 from 14 to 17. */
static void other_kind(unsigned u, unsigned j, const char *ns, const char *app, const char *img)
{
	switch (j % 20) {
	case 14: /* rwo-volume-rollout: replicas share a ReadWriteOnce claim */
		deployment(u, j, ns, 2, "", "", app);
		P("      containers:\n      - name: main\n        image: %s\n"
		  "      volumes:\n      - name: data\n        persistentVolumeClaim: {claimName: %s-data}\n"
		  "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: %s-data\n  namespace: %s\n"
		  "spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: {storage: 1Gi}\n",
		  img, app, app, ns);
		break;
	case 15: /* a StatefulSet with claim templates and a percentage budget */
		P("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n"
		  "  serviceName: %s\n  replicas: 3\n  selector:\n    matchLabels: {app: %s}\n  template:\n"
		  "    metadata:\n      labels: {app: %s}\n    spec:\n",
		  app, ns, app, app, app);
		container(img, "500m", NULL);
		P("  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec:\n      accessModes: [ReadWriteOnce]\n"
		  "      resources:\n        requests: {storage: 1Gi}\n");
		pdb(app, ns, app, "minAvailable: 50%");
		break;
	case 16: /* a Job and a CronJob */
		P("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  parallelism: 2\n"
		  "  template:\n    spec:\n      restartPolicy: Never\n",
		  app, ns);
		container(img, "500m", NULL);
		P("---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: %s-nightly\n  namespace: %s\nspec:\n"
		  "  schedule: \"0 3 * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
		  "          restartPolicy: OnFailure\n          containers:\n          - name: main\n"
		  "            image: %s\n",
		  app, ns, img);
		break;
	case 17: /* a bare Pod and a budget that allows it no disruption */
		P("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: %s\n  labels: {app: %s}\nspec:\n",
		  app, ns, app);
		P("  containers:\n  - name: main\n    image: %s\n    resources:\n      requests: {cpu: 100m}\n", img);
		pdb(app, ns, app, "maxUnavailable: 0");
		break;
	}
}

/* One app file: the case j % 20 of the unit u (see the comments), with a Service and a ConfigMap
 * beside it as most repositories have. */
static void app_of(unsigned u, unsigned j, const char *ns)
{
	char app[64], sel[160], spec[1024], img[128];
	snprintf(app, sizeof app, "app-%u-%u", u, j);
	snprintf(img, sizeof img, "registry.example/%s:1.%u", app, j % 7);
	const char *def = "", *safe = SAFE;
	for (size_t k = 0; k < sizeof one_deployment / sizeof one_deployment[0]; k++)
		if (one_deployment[k].which == j % 20) {
			snprintf(spec, sizeof spec, one_deployment[k].spec, app, app);
			deployment(u, j, ns, one_deployment[k].replicas, one_deployment[k].strategy, spec, app);
			container(img, one_deployment[k].cpu, NULL);
			service(u, j, ns);
			return;
		}
	if (j % 20 >= 14 && j % 20 <= 17) {
		other_kind(u, j, ns, app, img);
		service(u, j, ns);
		return;
	}
	switch (j % 20) {
	case 0: /* plain, with running replicas, a budget that allows one disruption and an autoscaler */
	default:
		deployment(u, j, ns, 3, def, "", app);
		container(img, "500m", NULL);
		pdb(app, ns, app, "maxUnavailable: 1");
		autoscaler(app, ns);
		break;
	case 6: /* hostport-rollout: a DaemonSet that surges beside its own host port */
		P("apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n"
		  "  selector:\n    matchLabels: {app: %s}\n  updateStrategy:\n    type: RollingUpdate\n"
		  "    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}\n  template:\n    metadata:\n"
		  "      labels: {app: %s}\n    spec:\n      containers:\n      - name: exporter\n"
		  "        image: %s\n        ports:\n        - {containerPort: 9100, hostPort: 9100}\n",
		  app, ns, app, app, img);
		break;
	case 9: /* selector-mismatch, suppressed by a comment; an unused one beside it */
		P("# schedlint-ignore-document: selector-mismatch the old labels stay until the migration\n"
		  "# schedlint-ignore-document: hostport-rollout nothing here binds a host port\n");
		snprintf(sel, sizeof sel, "%s-old", app);
		deployment(u, j, ns, 2, safe, "", sel);
		container(img, "500m", NULL);
		break;
	case 11: /* extended-resource-mismatch: a GPU requested, no limit */
		snprintf(spec, sizeof spec,
			 "      nodeSelector: {pool: gpu}\n      tolerations:\n"
			 "      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n");
		deployment(u, j, ns, 1, safe, spec, app);
		P("      containers:\n      - name: main\n        image: %s\n        resources:\n"
		  "          requests: {cpu: 500m, nvidia.com/gpu: 1}\n",
		  img);
		break;
	case 12: /* pdb-blocks-eviction: minAvailable = replicas */
		deployment(u, j, ns, 2, safe, "", app);
		container(img, "500m", NULL);
		pdb(app, ns, app, "minAvailable: 2");
		break;
	case 13: /* pdb-blocks-eviction: two budgets on the same pods */
		deployment(u, j, ns, 3, safe, "", app);
		container(img, "500m", NULL);
		snprintf(sel, sizeof sel, "%s-a", app);
		pdb(sel, ns, app, "maxUnavailable: 1");
		snprintf(sel, sizeof sel, "%s-b", app);
		pdb(sel, ns, app, "maxUnavailable: 1");
		break;
	case 18: /* the policy: an image without a tag (an ignore entry covers one namespace); and
		  * probe-port-mismatch: its probe names a port the container does not declare */
		deployment(u, j, ns, 2, safe, "", app);
		P("      containers:\n      - name: main\n        image: registry.example/tool\n        resources:\n"
		  "          requests: {cpu: 500m, memory: 512Mi}\n        ports:\n        - {name: web, "
		  "containerPort: 8080}\n"
		  "        readinessProbe:\n          httpGet: {path: /ready, port: http}\n");
		break;
	case 19: /* an annotation that silences nothing */
		P("# a Deployment that asks its annotation to silence a rule that finds nothing in it\n");
		deployment(u, j, ns, 2, safe, "", app);
		container(img, "500m", NULL);
		P("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-flags\n  namespace: %s\n"
		  "  annotations: {schedlint.io/ignore: rwo-volume-rollout}\ndata: {a: b}\n",
		  app, ns);
		/* daemonset-no-nodes: a node agent whose nodeSelector names a pool no node is in */
		P("---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: %s-agent\n  namespace: %s\n"
		  "spec:\n  selector:\n    matchLabels: {app: %s-agent}\n  template:\n    metadata:\n"
		  "      labels: {app: %s-agent}\n    spec:\n      nodeSelector: {pool: gpuu}\n      containers:\n"
		  "      - {name: agent, image: %s, resources: {requests: {cpu: 100m}}}\n",
		  app, ns, app, app, img);
		/* never-admitted: a Kueue Job asking 2 cpu at once of a ClusterQueue with 1 */
		P("---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: cq-%s\nspec:\n"
		  "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
		  "      resources:\n      - {name: cpu, nominalQuota: \"1\"}\n"
		  "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: lq-%s\n"
		  "  namespace: %s\nspec:\n  clusterQueue: cq-%s\n"
		  "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s-sweep\n  namespace: %s\n"
		  "  labels: {kueue.x-k8s.io/queue-name: lq-%s}\nspec:\n  parallelism: 4\n  suspend: true\n"
		  "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n"
		  "      - {name: sweep, image: %s, resources: {requests: {cpu: 500m}}}\n",
		  app, app, ns, app, app, ns, app, img);
		break;
	}
	service(u, j, ns);
}

/* The unit's admission and priority cases, in namespaces of their own so that their LimitRange and
 * ResourceQuota bear on nothing else: preemption-required (a class above the busy node's batch
 * pod), unknown-priority-class (a class no input has), limitrange-violation (a container above
 * the namespace's maximum) and quota-exceeded (a quota of two pods that holds the replicas but
 * not the surge pod). */
static void admission_of(unsigned u)
{
	P("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: critical-%u\nvalue: 1000\n"
	  "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: urgent-%u\n  namespace: prio-%u\n"
	  "spec:\n  replicas: 1\n  strategy: {type: Recreate}\n  selector:\n    matchLabels: {app: urgent-%u}\n"
	  "  template:\n    metadata:\n      labels: {app: urgent-%u}\n    spec:\n"
	  "      priorityClassName: critical-%u\n      nodeSelector: {pool: busy}\n",
	  u, u, u, u, u, u);
	container("registry.example/urgent:1", "1", NULL);
	P("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nightly-%u\n  namespace: prio-%u\n"
	  "spec:\n  replicas: 1\n%s  selector:\n    matchLabels: {app: nightly-%u}\n  template:\n    metadata:\n"
	  "      labels: {app: nightly-%u}\n    spec:\n      priorityClassName: nightly-batch\n",
	  u, u, SAFE, u, u);
	container("registry.example/nightly:1", "100m", NULL);
	P("---\napiVersion: v1\nkind: LimitRange\nmetadata:\n  name: caps\n  namespace: limits-%u\nspec:\n"
	  "  limits:\n  - type: Container\n    max: {cpu: \"1\"}\n"
	  "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big-%u\n  namespace: limits-%u\n"
	  "spec:\n  replicas: 1\n%s  selector:\n    matchLabels: {app: big-%u}\n  template:\n    metadata:\n"
	  "      labels: {app: big-%u}\n    spec:\n",
	  u, u, u, SAFE, u, u);
	container("registry.example/big:1", "2", NULL);
	P("---\napiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: pods\n  namespace: quota-%u\nspec:\n"
	  "  hard: {pods: \"2\"}\n"
	  "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-%u\n  namespace: quota-%u\n"
	  "spec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web-%u}\n  template:\n    metadata:\n"
	  "      labels: {app: web-%u}\n    spec:\n",
	  u, u, u, u, u);
	container("registry.example/web:1", "100m", NULL);
}

static int config(const char *dir)
{
	if (open_file(dir, ".schedlint.yaml"))
		return -1;
	P("rules:\n  rwo-volume-rollout: warning\npolicies:\n  - id: no-latest-tag\n"
	  "    message: container images must be pinned to a tag or digest\n    level: error\n"
	  "    field: podspec.containers[*].image\n    forbid: ':latest$|^[^:@]+$'\nignore:\n"
	  "  - rules: [no-latest-tag]\n    path: '^apps/team-0-0/'\n    reason: the tools team pins by digest in CD\n");
	return close_file();
}

int bench_gen_rules(const char *dir, unsigned scale)
{
	char path[4096];
	if (make_dir(dir) || config(dir))
		return -1;
	snprintf(path, sizeof path, "%s/inventory", dir);
	if (make_dir(path))
		return -1;
	snprintf(path, sizeof path, "%s/apps", dir);
	if (make_dir(path) || open_file(dir, "inventory/nodes.yaml"))
		return -1;
	P("apiVersion: v1\nkind: List\nitems:\n");
	nodes();
	if (close_file() || open_file(dir, "inventory/pods.yaml"))
		return -1;
	P("apiVersion: v1\nkind: List\nitems:\n");
	pods();
	if (close_file() || open_file(dir, "namespaces.yaml"))
		return -1;
	for (unsigned u = 0; u < scale; u++)
		for (unsigned k = 0; k < NS; k++)
			P("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-%u-%u\n"
			  "  labels: {env: %s, team: team-%u}\n",
			  u, k, k % 2 ? "staging" : "prod", k);
	if (close_file())
		return -1;
	for (unsigned u = 0; u < scale; u++)
		for (unsigned k = 0; k < NS; k++) {
			snprintf(path, sizeof path, "%s/apps/team-%u-%u", dir, u, k);
			if (make_dir(path))
				return -1;
		}
	for (unsigned u = 0; u < scale; u++)
		for (unsigned j = 0; j < APPS; j++) {
			char ns[32], name[128];
			snprintf(ns, sizeof ns, "team-%u-%u", u, j % NS);
			snprintf(name, sizeof name, "apps/%s/app-%u-%u.yaml", ns, u, j);
			if (open_file(dir, name))
				return -1;
			app_of(u, j, ns);
			if (close_file())
				return -1;
		}
	for (unsigned u = 0; u < scale; u++) {
		char name[128];
		snprintf(name, sizeof name, "apps/team-%u-0/admission.yaml", u);
		if (open_file(dir, name))
			return -1;
		admission_of(u);
		if (close_file())
			return -1;
	}
	return 0;
}
