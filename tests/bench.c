/* The schedlint benchmark: a cluster-sized input, generated deterministically, and the time and
 * memory schedlint needs for it.
 *
 *   bench gen DIR [SEED]     write DIR/nodes.yaml, DIR/pods.yaml, DIR/workloads.yaml
 *   bench run SCHEDLINT DIR  run schedlint on them 3 times; report wall time and peak RSS
 *
 * The shapes follow what `kubectl get -o yaml` prints (keys sorted, numeric strings quoted), so
 * the parser meets what it meets in production, with the quantity spellings clusters use. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

enum { NNODES = 5000, NPODS = 20000, NWORKLOADS = 10000, NAPPS = 500, NNS = 20, RUNS = BENCH_RUNS };
#define TARGET_S 1.0
#define TARGET_MB 500.0
/* Nodes and pods go out as one List each, as `kubectl get nodes -o yaml` and
 * `kubectl get pods -A -o yaml` print them (a document of over two million YAML nodes). */
#define LIST_ITEMS 1000000
#define LIST_END "kind: List\nmetadata:\n  resourceVersion: \"\"\n"

static FILE *out;
#define P(...) fprintf(out, __VA_ARGS__)
/* Argument evaluation order differs between compilers and the data must not: at most one
 * random draw per call, the others go into variables first. */
static uint64_t rng;
static uint64_t mix(uint64_t z) /* splitmix64 */
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}
static unsigned rnd(unsigned n)
{
	return (unsigned)(mix(rng += 0x9e3779b97f4a7c15u) % n);
}
static int pct(unsigned p)
{
	return rnd(100) < p;
}
#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

static const struct itype {
	const char *name;
	int cpu, mem_gi, gpus;
} itypes[] = {{"m5.xlarge", 4, 16, 0},   {"m5.2xlarge", 8, 32, 0},   {"m5.4xlarge", 16, 64, 0},
	      {"c5.4xlarge", 16, 32, 0}, {"r5.2xlarge", 8, 64, 0},   {"r5.4xlarge", 16, 128, 0},
	      {"p3.2xlarge", 8, 61, 1},  {"g5.12xlarge", 48, 192, 4}};
/* A pool's nodes come from the itypes t0 .. t0+nt-1; weights are percentages. */
static const struct pool {
	const char *name;
	unsigned weight;
	int t0, nt;
	const char *taint; /* the YAML of its one taint */
} pools[] = {{"general", 30, 0, 3, NULL},
	     {"mem", 10, 4, 2, NULL},
	     {"cpu", 8, 2, 2, NULL},
	     {"gpu", 5, 6, 2, "effect: NoSchedule\n      key: nvidia.com/gpu\n      value: present"},
	     {"infra", 5, 0, 2, "effect: NoSchedule\n      key: dedicated\n      value: infra"},
	     {"batch", 15, 2, 2, NULL},
	     {"system", 5, 0, 2, NULL},
	     {"edge", 4, 0, 1, "effect: NoExecute\n      key: dedicated\n      value: edge"},
	     {"spot", 10, 1, 3, "effect: PreferNoSchedule\n      key: spot\n      value: \"true\""},
	     {"data", 8, 4, 2, NULL}};
static const char *const zones[] = {"eu-west-1a", "eu-west-1b", "eu-west-1c", "eu-west-2a", "eu-west-2b", "eu-west-2c"};
static const char *const untainted[] = {"general", "mem", "cpu", "batch", "system", "data"};
static const char *const hostports[] = {"9100", "9400", "8443", "10054"};
static const char *const w1[] = {"checkout", "cart",   "search",  "billing", "auth",   "ledger", "notify",
				 "catalog",  "media",  "profile", "ingest",  "report", "fraud",  "pricing",
				 "gateway",  "orders", "stock",   "ranking", "vision", "speech", "geo",
				 "payments", "audit",  "session", "feeds"};
static const char *const w2[] = {"api",    "worker", "web",   "cache", "indexer", "sync",   "cron",
				 "proxy",  "store",  "queue", "model", "stream",  "export", "import",
				 "router", "engine", "agent", "db",    "admin",   "batch"};
static struct {
	int pool, gpus_free;
} nodes[NNODES];

/* Workload i is named after its index. The running pods belong to NAPPS apps that are not among
 * the workloads ("svc-..."), the rest of the cluster: schedlint takes a Deployment's running pods
 * for its replicas, so those would need its replica count and nodes its template admits, which
 * binding pods to random nodes does not give. */
static void app_name(char *s, size_t n, unsigned i)
{
	if (i >= NWORKLOADS)
		snprintf(s, n, "svc-%s-%s", w1[i % 25], w2[(i / 25) % 20]);
	else
		snprintf(s, n, i < NAPPS ? "%s-%s" : "%s-%s-%u", w1[i % 25], w2[(i / 25) % 20], i / NAPPS);
}
static char ns_of(unsigned i)
{
	return (char)('a' + (i * 7) % NNS);
}

static void gen_node(int i)
{
	unsigned w = rnd(100), p = 0;
	while (w >= pools[p].weight)
		w -= pools[p++].weight;
	const struct pool *pl = &pools[p];
	const struct itype *t = &itypes[pl->t0 + (int)rnd((unsigned)pl->nt)];
	nodes[i].pool = (int)p;
	nodes[i].gpus_free = t->gpus;
	static const char *const disks[] = {"", "", "      disktype: ssd\n", "      disktype: ssd\n",
					    "      disktype: hdd\n"};
	static const char *const cpufmt[] = {"\"%d\"", "\"%d.5\"", "%dm"};
	int z = (int)rnd(6), cordoned = rnd(200) == 0, notready = rnd(500) == 0;
	const char *disk = PICK(disks);
	unsigned rv = 100000 + rnd(900000), inst = rnd(1u << 31);
	P("- apiVersion: v1\n  kind: Node\n  metadata:\n    annotations:\n      node.alpha.kubernetes.io/ttl: \"0\"\n"
	  "    creationTimestamp: \"2024-03-0%dT08:%02d:00Z\"\n    labels:\n      beta.kubernetes.io/arch: amd64\n"
	  "      beta.kubernetes.io/os: linux\n%s",
	  1 + i % 9, i % 60, disk);
	if (t->gpus)
		P("      gpu-mem: \"%d\"\n", t->gpus == 1 ? 16 : 24);
	P("      kubernetes.io/arch: amd64\n      kubernetes.io/hostname: node-%05d\n      kubernetes.io/os: linux\n"
	  "      node.kubernetes.io/instance-type: %s\n      pool: %s\n      topology.kubernetes.io/region: %.9s\n"
	  "      topology.kubernetes.io/zone: %s\n    name: node-%05d\n    resourceVersion: \"%u\"\n"
	  "    uid: %08x-2fa1-11d2-883f-0016d3cca427\n  spec:\n    podCIDR: 10.%d.%d.0/24\n"
	  "    providerID: aws:///%s/i-0%015x\n",
	  i + 1, t->name, pl->name, zones[z], zones[z], i + 1, rv, (unsigned)i, 64 + i / 256, i % 256, zones[z], inst);
	if (pl->taint || cordoned || notready)
		P("    taints:\n");
	if (pl->taint)
		P("    - %s\n", pl->taint);
	if (notready)
		P("    - effect: NoSchedule\n      key: node.kubernetes.io/not-ready\n    - effect: NoExecute\n"
		  "      key: node.kubernetes.io/not-ready\n      timeAdded: \"2024-05-01T10:00:00Z\"\n");
	if (cordoned)
		P("    - effect: NoSchedule\n      key: node.kubernetes.io/unschedulable\n"
		  "      timeAdded: \"2024-05-01T10:00:00Z\"\n    unschedulable: true\n");
	/* The kubelet holds some of each resource back: allocatable is what pods may request. */
	long long alloc_mi = t->mem_gi * 1015LL - 500, cap_ki = t->mem_gi * 1048576LL - 200000 - rnd(200000);
	char cpu[32], mcap[32], malloc_[32], gpu[32] = "";
	unsigned cs = rnd(10), ms = rnd(3), as = rnd(2);
	int cpuval[] = {t->cpu, t->cpu - 1, t->cpu * 975};
	snprintf(cpu, sizeof cpu, cpufmt[cs < 2 ? cs : 2], cpuval[cs < 2 ? cs : 2]);
	if (ms < 2)
		snprintf(mcap, sizeof mcap, ms ? "%dGi" : "%dMi", ms ? t->mem_gi : t->mem_gi * 1024);
	else
		snprintf(mcap, sizeof mcap, "%lldKi", cap_ki);
	snprintf(malloc_, sizeof malloc_, as ? "%lldMi" : "%lldKi", as ? alloc_mi : alloc_mi * 1024);
	if (t->gpus)
		snprintf(gpu, sizeof gpu, "      nvidia.com/gpu: \"%d\"\n", t->gpus);
	P("  status:\n    addresses:\n    - address: 10.%d.%d.10\n      type: InternalIP\n    - address: node-%05d\n"
	  "      type: Hostname\n    allocatable:\n      cpu: %s\n      ephemeral-storage: \"96625420948\"\n"
	  "      hugepages-1Gi: \"0\"\n      hugepages-2Mi: \"0\"\n      memory: %s\n%s      pods: \"110\"\n"
	  "    capacity:\n      cpu: \"%d\"\n      ephemeral-storage: 104845292Ki\n      hugepages-1Gi: \"0\"\n"
	  "      hugepages-2Mi: \"0\"\n      memory: %s\n%s      pods: \"110\"\n    conditions:\n"
	  "    - lastHeartbeatTime: \"2024-05-01T10:00:00Z\"\n      reason: KubeletReady\n      status: \"%s\"\n"
	  "      type: Ready\n    nodeInfo:\n      architecture: amd64\n"
	  "      containerRuntimeVersion: containerd://1.7.13\n      kubeletVersion: v1.29.3\n"
	  "      operatingSystem: linux\n",
	  64 + i / 256, i % 256, i + 1, cpu, malloc_, gpu, t->cpu, mcap, gpu, notready ? "Unknown" : "True");
}

static void gen_pod(int unused)
{
	(void)unused;
	static const char *const mem[] = {"64Mi",  "128Mi", "256Mi", "384Mi",    "512Mi",
					  "768Mi", "1Gi",   "200M",  "134217728"};
	static const char sfx[] = "bcdfghjklmnpqrstvwxz2456789";
	unsigned a = rnd(NAPPS), ni = rnd(NNODES), day = rnd(9), rv = rnd(1u << 30), cpu = 50 + 10 * rnd(46);
	unsigned long long h = mix(a + 1) & 0xfffffffffull, uid = mix(rng);
	char app[64], id[6] = {0};
	for (int j = 0; j < 5; j++)
		id[j] = sfx[rnd(27)];
	app_name(app, sizeof app, NWORKLOADS + a);
	P("- apiVersion: v1\n  kind: Pod\n  metadata:\n    creationTimestamp: \"2024-04-2%uT10:00:00Z\"\n"
	  "    generateName: %s-%09llx-\n    labels:\n      app: %s\n      pod-template-hash: %09llx\n"
	  "    name: %s-%09llx-%s\n    namespace: team-%c\n    ownerReferences:\n    - apiVersion: apps/v1\n"
	  "      blockOwnerDeletion: true\n      controller: true\n      kind: ReplicaSet\n      name: %s-%09llx\n"
	  "      uid: %016llx\n    resourceVersion: \"%u\"\n  spec:\n",
	  day, app, h, app, h, app, h, id, ns_of(a), app, h, uid, rv);
	/* Traits drawn from the app's hash, so that its pods agree as under one template. */
	if (h % 20 == 0)
		P("    affinity:\n      podAntiAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n"
		  "        - labelSelector:\n            matchLabels:\n              app: %s\n"
		  "          topologyKey: kubernetes.io/hostname\n",
		  app);
	P("    containers:\n    - image: registry.example.com/team-%c/%s:1.%u.0\n      imagePullPolicy: IfNotPresent\n"
	  "      name: %s\n",
	  ns_of(a), app, (unsigned)(h >> 20) % 30, app);
	if (h % 50 == 1)
		P("      ports:\n      - containerPort: %s\n        hostPort: %s\n        protocol: TCP\n",
		  hostports[(h >> 8) % 4], hostports[(h >> 8) % 4]);
	/* GPUs are handed out only while the node has some, as the scheduler would have. */
	const char *m = PICK(mem), *g = "";
	int lim = pct(60);
	if (nodes[ni].gpus_free > 0 && pct(60)) {
		nodes[ni].gpus_free--;
		g = "          nvidia.com/gpu: \"1\"\n";
		lim = 1;
	}
	P("      resources:\n");
	if (lim)
		P("        limits:\n          cpu: %um\n          memory: %s\n%s", cpu * 2, m, g);
	P("        requests:\n          cpu: %um\n          memory: %s\n%s"
	  "      terminationMessagePath: /dev/termination-log\n      terminationMessagePolicy: File\n",
	  cpu, m, g);
	if (pct(10))
		P("    - image: istio/proxyv2:1.21.0\n      name: istio-proxy\n      resources:\n        requests:\n"
		  "          cpu: 10m\n          memory: 40Mi\n");
	P("    dnsPolicy: ClusterFirst\n    nodeName: node-%05u\n    priority: 0\n    restartPolicy: Always\n"
	  "    schedulerName: default-scheduler\n    securityContext: {}\n    serviceAccountName: default\n"
	  "    terminationGracePeriodSeconds: 30\n    tolerations:\n",
	  ni + 1);
	if (pools[nodes[ni].pool].taint) /* it runs there, so it tolerates the node's taint */
		P("    - effect: NoExecute\n      operator: Exists\n"
		  "    - effect: NoSchedule\n      operator: Exists\n");
	P("    - effect: NoExecute\n      key: node.kubernetes.io/not-ready\n      operator: Exists\n"
	  "      tolerationSeconds: 300\n");
	int done = pct(1);
	unsigned ip = rnd(1u << 22);
	P("  status:\n    phase: %s\n    podIP: 10.%u.%u.%u\n    qosClass: Burstable\n"
	  "    startTime: \"2024-04-20T10:00:00Z\"\n",
	  done ? "Succeeded" : "Running", 128 + (ip >> 16), (ip >> 8) & 255, 1 + ip % 254);
}

static void gen_workload(int idx)
{
	unsigned i = (unsigned)idx;
	static const char *const cpus[] = {"100m", "250m", "500m", "750m", "1", "1500m", "2", "0.5", "200m"};
	static const char *const mems[] = {"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "1.5Gi", "500M", "768Mi"};
	static const char *const surge[] = {"0", "1", "25%"};
	static const char *const tols[] = {
	    "key: dedicated\n        operator: Equal\n        value: infra\n        effect: NoSchedule",
	    "key: spot\n        operator: Exists", "key: dedicated\n        operator: Exists",
	    "key: node.kubernetes.io/not-ready\n        operator: Exists\n        effect: NoExecute"};
	char app[64];
	app_name(app, sizeof app, i);
	unsigned k = rnd(100), replicas = 1 + rnd(6), strat = rnd(100), ms = rnd(3), mu = rnd(3);
	int job = k >= 95;
	const char *kind = k < 80 ? "Deployment" : job ? "Job" : "StatefulSet";
	P("---\napiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  namespace: team-%c\n  labels:\n    app: %s\nspec:\n",
	  job ? "batch/v1" : "apps/v1", kind, app, ns_of(i), app);
	if (job)
		P("  parallelism: %u\n  completions: %u\n  backoffLimit: 4\n", replicas, replicas * 4);
	else
		P("  replicas: %u\n  selector:\n    matchLabels:\n      app: %s\n", replicas, app);
	if (k >= 80 && !job)
		P("  serviceName: %s\n  podManagementPolicy: Parallel\n", app);
	else if (k < 80 && strat < 35) /* both 0 is rejected by the API server */
		P("  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n"
		  "      maxSurge: %s\n      maxUnavailable: %s\n",
		  surge[ms], surge[!ms && !mu ? 1 : mu]);
	else if (k < 80 && strat < 50)
		P("  strategy:\n    type: Recreate\n");
	P("  template:\n    metadata:\n      labels:\n        app: %s\n    spec:\n%s", app,
	  job ? "      restartPolicy: Never\n" : "");
	int gpu = pct(3), tol = gpu ? 0 : pct(20) ? 1 + (int)rnd(4) : 0, sel = gpu ? 0 : (int)rnd(10);
	if (gpu)
		P("      nodeSelector:\n        pool: gpu\n");
	else if (sel == 0)
		P("      nodeSelector:\n        disktype: %s\n", pct(80) ? "ssd" : "hdd");
	else if (sel < 3) /* infra nodes only for those that tolerate their taint */
		P("      nodeSelector:\n        pool: %s\n", tol == 1 && pct(50) ? "infra" : PICK(untainted));
	int na = pct(20), anti = pct(10), spread = pct(10), x = (int)rnd(3), y = 3 + (int)rnd(3);
	if (na || anti)
		P("      affinity:\n");
	if (na) {
		P("        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
		  "            nodeSelectorTerms:\n            - matchExpressions:\n              - key: ");
		static const char *const keys[] = {"topology.kubernetes.io/zone",      "topology.kubernetes.io/zone",
						   "node.kubernetes.io/instance-type", "disktype",
						   "node.kubernetes.io/instance-type", "gpu-mem"};
		static const char *const ops[] = {"In", "NotIn", "In", "Exists", "NotIn", "Gt"};
		unsigned e = rnd(gpu ? 6 : 5);
		const char *a = e < 2 ? zones[x] : itypes[x].name, *b = e < 2 ? zones[y] : itypes[y].name;
		static const char *const vals[] = {"[%s, %s]", "[%.0s%s]", "[%s, %s]",
						   NULL,       "[%.0s%s]", "[\"20\"%.0s%.0s]"};
		P("%s\n                operator: %s\n", keys[e], ops[e]);
		if (vals[e]) {
			P("                values: ");
			P(vals[e], a, b);
			P("\n");
		}
	}
	if (anti)
		P("        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
		  "          - labelSelector:\n              matchLabels:\n                app: %s\n"
		  "            topologyKey: %s\n",
		  app, x ? "kubernetes.io/hostname" : "topology.kubernetes.io/zone");
	if (spread)
		P("      topologySpreadConstraints:\n      - maxSkew: %d\n        topologyKey: %s\n"
		  "        whenUnsatisfiable: DoNotSchedule\n        labelSelector:\n          matchLabels:\n"
		  "            app: %s\n",
		  1 + y % 2, y < 5 ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname", app);
	if (gpu)
		P("      tolerations:\n      - key: nvidia.com/gpu\n        operator: Exists\n"
		  "        effect: NoSchedule\n");
	else if (tol)
		P("      tolerations:\n      - %s\n", tols[tol - 1]);
	P("      containers:\n      - name: %s\n        image: registry.example.com/%s:2.%u\n", app, app, rnd(20));
	if (pct(2))
		P("        ports:\n        - containerPort: 8080\n          hostPort: %s\n", PICK(hostports));
	const char *c = PICK(cpus), *m = PICK(mems);
	P("        resources:\n          requests:\n            cpu: %s\n            memory: %s\n", c, m);
	if (pct(60) || gpu)
		P("          limits:\n            cpu: %s\n            memory: %s\n%s", c, m,
		  gpu ? "            nvidia.com/gpu: 1\n" : "");
	if (pct(10))
		P("      - name: istio-proxy\n        image: istio/proxyv2:1.21.0\n        resources:\n"
		  "          requests: {cpu: 10m, memory: 40Mi}\n");
}

/* Written under a temporary name, so that an interrupted run leaves no half file that bench.sh
 * would take for a finished one. */
static int gen_file(const char *dir, const char *name, int n, int lists, void (*item)(int))
{
	char path[4096], tmp[4100];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!(out = fopen(tmp, "w")))
		goto fail;
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	for (int i = 0; i < n; i++) {
		if (lists && i % LIST_ITEMS == 0)
			P("%sapiVersion: v1\nitems:\n", i ? LIST_END "---\n" : "");
		item(i);
	}
	if (lists)
		P(LIST_END);
	struct stat st;
	if ((ferror(out) | fclose(out)) || rename(tmp, path) || stat(path, &st))
		goto fail;
	printf("bench: wrote %s (%.1f MB)\n", path, st.st_size / 1048576.0);
	return 0;
fail:
	fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
	return -1;
}

static int gen(const char *dir, uint64_t seed)
{
	double t0 = bench_now();
	rng = seed;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "bench: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (gen_file(dir, "nodes.yaml", NNODES, 1, gen_node) || gen_file(dir, "pods.yaml", NPODS, 1, gen_pod) ||
	    gen_file(dir, "workloads.yaml", NWORKLOADS, 0, gen_workload))
		return 1;
	printf("bench: generated in %.2f s (seed %llu)\n", bench_now() - t0, (unsigned long long)seed);
	return 0;
}

/* Counted in the files rather than taken from the constants, so that the report describes the
 * input measured (data left by an older bench.c, say). Adds the file's size to *bytes. */
static long count(const char *path, const char *line, off_t *bytes)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "bench: %s: %s (run `bench gen` first)\n", path, strerror(errno));
		exit(1);
	}
	*bytes += st.st_size;
	char buf[512];
	long n = 0;
	for (int bol = 1; fgets(buf, sizeof buf, f); bol = strchr(buf, '\n') != NULL)
		n += bol && !strncmp(buf, line, strlen(line));
	fclose(f);
	return n;
}

static int run(const char *bin, const char *dir)
{
	char nodes[4096], pods[4096], work[4096], desc[64];
	snprintf(nodes, sizeof nodes, "%s/nodes.yaml", dir);
	snprintf(pods, sizeof pods, "%s/pods.yaml", dir);
	snprintf(work, sizeof work, "%s/workloads.yaml", dir);
	off_t bytes = 0, ignored = 0;
	long nn = count(nodes, "  kind: Node\n", &bytes), np = count(pods, "  kind: Pod\n", &bytes);
	long nrun = count(pods, "    phase: Running\n", &ignored), nw = count(work, "kind: ", &bytes);
	double mb = bytes / 1048576.0, best = 1e30;
	char *argv[] = {(char *)bin, "--nodes", nodes,       "--pods", pods, "--format",
			"json",      "-o",      "/dev/null", work,     NULL};
	long peak = 0;
	int status = 0;
	printf("bench: %s --nodes %s --pods %s --format json -o /dev/null %s (%.1f MB of YAML)\n", bin, nodes, pods,
	       work, mb);
	for (int r = 1; r <= RUNS; r++) {
		double wall;
		long rss;
		fflush(stdout); /* a run can take long: show each as it ends, through a pipe too */
		status = bench_run_once(argv, -1, &wall, &rss);
		printf("bench: run %d: wall %.3f s, peak RSS %.1f MB, %s\n", r, wall, rss / 1024.0,
		       bench_describe(status, desc, sizeof desc));
		if (WIFSIGNALED(status) || WEXITSTATUS(status) > 1) {
			fflush(stdout);
			return bench_explain_failure(argv);
		}
		best = wall < best ? wall : best;
		peak = rss > peak ? rss : peak;
	}
	double peak_mb = peak / 1024.0; /* MiB, as the target means it */
	printf("bench: %ld nodes, %ld pods (%ld running), %ld workloads: wall %.3f s (best of %d), peak RSS %.1f MB, "
	       "schedlint %s\n",
	       nn, np, nrun, nw, best, RUNS, peak_mb, bench_describe(status, desc, sizeof desc));
	printf("bench: throughput %.0f workloads/s, %.1f MB of YAML/s\n", nw / best, mb / best);
	int fast = best < TARGET_S, small = peak_mb < TARGET_MB;
	printf("bench: target: under %g s and %g MB on 2 cores (this machine: %ld online): %s%s%s\n", TARGET_S,
	       TARGET_MB, sysconf(_SC_NPROCESSORS_ONLN), fast && small ? "met" : "NOT met", fast ? "" : " (too slow)",
	       small ? "" : " (too much memory)");
	return 0; /* a missed target is news for people, not a failed build */
}

int main(int argc, char **argv)
{
	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], argc == 4 ? strtoull(argv[3], NULL, 10) : 1);
	if (argc == 4 && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "genrules"))
		return bench_gen_rules(argv[2], (unsigned)strtoul(argv[3], NULL, 10)) ? 1 : 0;
	if (argc == 5 && !strcmp(argv[1], "rules"))
		return bench_rules(argv[2], argv[3], argv[4]);
	if (argc == 6 && !strcmp(argv[1], "corpus"))
		return bench_corpus(argv[2], argv[3], argv[4], argv[5]);
	fprintf(stderr, "usage: bench gen DIR [SEED]\n       bench run SCHEDLINT DIR\n"
			"       bench genrules DIR SCALE\n       bench rules SCHEDLINT DIR1X DIR10X\n"
			"       bench corpus SCHEDLINT BAREPARSE CORPUS WORKDIR\n");
	return 2;
}
