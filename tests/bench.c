/* The schedlint benchmark: a cluster-sized input, generated deterministically, and the time and
 * memory schedlint needs for it.
 *
 *   bench gen DIR [SEED]     write DIR/nodes.yaml, DIR/pods.yaml, DIR/workloads.yaml
 *   bench run SCHEDLINT DIR  run schedlint on them 3 times; report wall time and peak RSS
 *
 * The shapes follow what `kubectl get -o yaml` prints (keys sorted, numeric strings quoted), so
 * the parser sees what it sees in production, with the quantity spellings real clusters use. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { NNODES = 5000, NPODS = 20000, NWORKLOADS = 10000, NAPPS = 500, NNS = 20, RUNS = 3 };
/* Nodes and pods go out as Lists of this many items, one YAML document each, as concatenated
 * `kubectl get -n NS -o yaml` outputs would be. One 20,000-pod List is what `kubectl get pods -A`
 * prints, but schedlint rejects a document of more than 2,000,000 YAML nodes as an alias bomb
 * (yamldoc.c), and counts a nested node once per enclosing collection towards that limit. */
#define LIST_ITEMS 1000
#define TARGET_S 1.0
#define TARGET_MB 500.0

static uint64_t rng;

static uint64_t mix(uint64_t z) /* splitmix64's finaliser */
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}
static unsigned rnd(unsigned n) { return (unsigned)(mix(rng += 0x9e3779b97f4a7c15u) % n); }
static int pct(unsigned p) { return rnd(100) < p; }
#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

struct itype { const char *name; int cpu, mem_gi, gpus; };
static const struct itype itypes[] = {
	{"m5.xlarge", 4, 16, 0},  {"m5.2xlarge", 8, 32, 0}, {"m5.4xlarge", 16, 64, 0}, {"c5.4xlarge", 16, 32, 0},
	{"r5.2xlarge", 8, 64, 0}, {"r5.4xlarge", 16, 128, 0}, {"p3.2xlarge", 8, 61, 1}, {"g5.12xlarge", 48, 192, 4},
};
/* A pool draws its nodes from a contiguous run of itypes; weights are percentages. */
struct pool { const char *name; unsigned weight; int t0, nt; const char *tkey, *tval, *teffect; };
static const struct pool pools[] = {
	{"general", 30, 0, 3, NULL, NULL, NULL},
	{"mem", 10, 4, 2, NULL, NULL, NULL},
	{"cpu", 8, 2, 2, NULL, NULL, NULL},
	{"gpu", 5, 6, 2, "nvidia.com/gpu", "present", "NoSchedule"},
	{"infra", 5, 0, 2, "dedicated", "infra", "NoSchedule"},
	{"batch", 15, 2, 2, NULL, NULL, NULL},
	{"system", 5, 0, 2, NULL, NULL, NULL},
	{"edge", 4, 0, 1, "dedicated", "edge", "NoExecute"},
	{"spot", 10, 1, 3, "spot", "true", "PreferNoSchedule"},
	{"data", 8, 4, 2, NULL, NULL, NULL},
};
enum { POOL_GPU = 3, POOL_INFRA = 4 };
static const char *const zones[] = {"eu-west-1a", "eu-west-1b", "eu-west-1c",
				    "eu-west-2a", "eu-west-2b", "eu-west-2c"};
static const char *const untainted[] = {"general", "mem", "cpu", "batch", "system", "data"};
static const char *const hostports[] = {"9100", "9400", "8443", "10054"};
static const char *const w1[] = {"checkout", "cart",  "search",  "billing", "auth",   "ledger", "notify",
				 "catalog",  "media", "profile", "ingest",  "report", "fraud",  "pricing",
				 "gateway",  "orders", "stock", "ranking", "vision", "speech", "geo",
				 "payments", "audit", "session", "feeds"};
static const char *const w2[] = {"api",    "worker", "web",   "cache", "indexer", "sync",   "cron",
				 "proxy",  "store",  "queue", "model", "stream",  "export", "import",
				 "router", "engine", "agent", "db",    "admin",   "batch"};

struct node { int pool, type, gpus_free; };
static struct node nodes[NNODES];

/* Workload i is named after its index; running pods belong to the first NAPPS of them, so their
 * anti-affinity and spread constraints meet pods that carry their label. */
static void app_name(char *out, size_t n, unsigned i)
{
	if (i < NAPPS)
		snprintf(out, n, "%s-%s", w1[i % 25], w2[(i / 25) % 20]);
	else
		snprintf(out, n, "%s-%s-%u", w1[i % 25], w2[(i / 25) % 20], i / NAPPS);
}
static char ns_of(unsigned i) { return (char)('a' + (i * 7) % NNS); }

struct out { FILE *f; char path[4096], tmp[4100]; };

static int out_open(struct out *o, const char *dir, const char *name)
{
	snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
	snprintf(o->tmp, sizeof o->tmp, "%s.tmp", o->path);
	if (!(o->f = fopen(o->tmp, "w"))) {
		fprintf(stderr, "bench: %s: %s\n", o->tmp, strerror(errno));
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 20);
	return 0;
}

/* Written under a temporary name so an interrupted run never leaves a half file that bench.sh
 * would take for a finished one. */
static int out_close(struct out *o)
{
	if (ferror(o->f) | fclose(o->f) || rename(o->tmp, o->path)) {
		fprintf(stderr, "bench: %s: %s\n", o->path, strerror(errno));
		return -1;
	}
	struct stat st;
	printf("bench: wrote %s (%.1f MB)\n", o->path, stat(o->path, &st) ? 0.0 : st.st_size / 1048576.0);
	return 0;
}

static void gen_node(FILE *f, int i)
{
	unsigned w = rnd(100), p = 0;
	while (w >= pools[p].weight)
		w -= pools[p++].weight;
	const struct pool *pl = &pools[p];
	struct node *n = &nodes[i];
	n->pool = (int)p;
	n->type = pl->t0 + (int)rnd((unsigned)pl->nt);
	const struct itype *t = &itypes[n->type];
	n->gpus_free = t->gpus;
	/* Every draw is its own statement: argument evaluation order differs between compilers,
	 * and the data must not. */
	int z = (int)rnd(6), cordoned = pct(1) && rnd(2), notready = rnd(500) == 0;
	unsigned rv = 100000 + rnd(900000), uid = rnd(1u << 31), inst = rnd(1u << 31);
	fprintf(f, "- apiVersion: v1\n  kind: Node\n  metadata:\n    annotations:\n"
		   "      node.alpha.kubernetes.io/ttl: \"0\"\n    creationTimestamp: \"2024-03-0%dT08:%02d:00Z\"\n"
		   "    labels:\n      beta.kubernetes.io/arch: amd64\n      beta.kubernetes.io/os: linux\n",
		1 + i % 9, i % 60);
	if (pct(60))
		fprintf(f, "      disktype: %s\n", pct(75) ? "ssd" : "hdd");
	if (t->gpus)
		fprintf(f, "      gpu-mem: \"%d\"\n", t->gpus == 1 ? 16 : 24);
	fprintf(f, "      kubernetes.io/arch: amd64\n      kubernetes.io/hostname: node-%05d\n"
		   "      kubernetes.io/os: linux\n      node.kubernetes.io/instance-type: %s\n      pool: %s\n"
		   "      topology.kubernetes.io/region: %.9s\n      topology.kubernetes.io/zone: %s\n"
		   "    name: node-%05d\n    resourceVersion: \"%u\"\n    uid: %08x-2fa1-11d2-883f-%012x\n",
		i + 1, t->name, pl->name, zones[z], zones[z], i + 1, rv, (unsigned)i, uid);
	fprintf(f, "  spec:\n    podCIDR: 10.%d.%d.0/24\n    providerID: aws:///%s/i-0%015x\n", 64 + i / 256, i % 256,
		zones[z], inst);
	if (pl->tkey || cordoned || notready) {
		fputs("    taints:\n", f);
		if (pl->tkey)
			fprintf(f, "    - effect: %s\n      key: %s\n      value: \"%s\"\n", pl->teffect, pl->tkey, pl->tval);
		if (notready)
			fputs("    - effect: NoSchedule\n      key: node.kubernetes.io/not-ready\n"
			      "    - effect: NoExecute\n      key: node.kubernetes.io/not-ready\n"
			      "      timeAdded: \"2024-05-01T10:00:00Z\"\n", f);
		if (cordoned)
			fputs("    - effect: NoSchedule\n      key: node.kubernetes.io/unschedulable\n"
			      "      timeAdded: \"2024-05-01T10:00:00Z\"\n    unschedulable: true\n", f);
	}
	/* kubelet reserves some of each resource; allocatable is what pods may request. */
	long long cap_ki = (long long)t->mem_gi * 1048576, alloc_mi = (long long)t->mem_gi * 1024 - 500 - 9 * t->mem_gi;
	char cpu[32], mcap[32], malloc_[32], gpu[32] = "";
	switch (rnd(10)) {
	case 0: snprintf(cpu, sizeof cpu, "\"%d\"", t->cpu); break;
	case 1: snprintf(cpu, sizeof cpu, "\"%d.5\"", t->cpu - 1); break;
	default: snprintf(cpu, sizeof cpu, "%dm", t->cpu * 975); break;
	}
	switch (rnd(3)) {
	case 0: snprintf(mcap, sizeof mcap, "%dGi", t->mem_gi); break;
	case 1: snprintf(mcap, sizeof mcap, "%dMi", t->mem_gi * 1024); break;
	default: cap_ki -= 200000 + rnd(200000); snprintf(mcap, sizeof mcap, "%lldKi", cap_ki); break;
	}
	if (pct(50))
		snprintf(malloc_, sizeof malloc_, "%lldMi", alloc_mi);
	else
		snprintf(malloc_, sizeof malloc_, "%lldKi", cap_ki - (cap_ki / 1024 - alloc_mi) * 1024);
	if (t->gpus)
		snprintf(gpu, sizeof gpu, "      nvidia.com/gpu: \"%d\"\n", t->gpus);
	fprintf(f, "  status:\n    addresses:\n    - address: 10.%d.%d.10\n      type: InternalIP\n"
		   "    - address: node-%05d\n      type: Hostname\n"
		   "    allocatable:\n      cpu: %s\n      ephemeral-storage: \"96625420948\"\n"
		   "      hugepages-1Gi: \"0\"\n      hugepages-2Mi: \"0\"\n      memory: %s\n%s      pods: \"110\"\n"
		   "    capacity:\n      cpu: \"%d\"\n      ephemeral-storage: 104845292Ki\n"
		   "      hugepages-1Gi: \"0\"\n      hugepages-2Mi: \"0\"\n      memory: %s\n%s      pods: \"110\"\n"
		   "    conditions:\n    - lastHeartbeatTime: \"2024-05-01T10:00:00Z\"\n      reason: KubeletReady\n"
		   "      status: \"%s\"\n      type: Ready\n    nodeInfo:\n      architecture: amd64\n"
		   "      containerRuntimeVersion: containerd://1.7.13\n      kubeletVersion: v1.29.3\n"
		   "      operatingSystem: linux\n",
		64 + i / 256, i % 256, i + 1, cpu, malloc_, gpu, t->cpu, mcap, gpu, notready ? "Unknown" : "True");
}

static void pod_tolerations(FILE *f, const struct pool *pl, const char *ind)
{
	if (pl->tkey)
		fprintf(f, "%s- effect: %s\n%s  key: %s\n%s  operator: Exists\n", ind, pl->teffect, ind, pl->tkey, ind);
	fprintf(f, "%s- effect: NoExecute\n%s  key: node.kubernetes.io/not-ready\n%s  operator: Exists\n"
		   "%s  tolerationSeconds: 300\n",
		ind, ind, ind, ind);
}

static void gen_pod(FILE *f)
{
	static const char *const mem[] = {"64Mi", "128Mi", "256Mi", "384Mi", "512Mi", "768Mi", "1Gi", "200M", "134217728"};
	static const char sfx[] = "bcdfghjklmnpqrstvwxz2456789";
	unsigned a = rnd(NAPPS), ni = rnd(NNODES);
	struct node *n = &nodes[ni];
	uint64_t h = mix(a + 1);
	char app[64], name[96], id[6];
	for (int j = 0; j < 5; j++)
		id[j] = sfx[rnd(27)];
	id[5] = 0;
	unsigned day = rnd(9), hour = rnd(10), rv = rnd(1u << 30);
	unsigned long long uid = mix(rng);
	app_name(app, sizeof app, a);
	snprintf(name, sizeof name, "%s-%09llx-%s", app, (unsigned long long)(h & 0xfffffffffull), id);
	fprintf(f, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    creationTimestamp: \"2024-04-2%uT1%u:00:00Z\"\n"
		   "    generateName: %.*s\n    labels:\n      app: %s\n      pod-template-hash: %09llx\n"
		   "    name: %s\n    namespace: team-%c\n    ownerReferences:\n    - apiVersion: apps/v1\n"
		   "      blockOwnerDeletion: true\n      controller: true\n      kind: ReplicaSet\n"
		   "      name: %s-%09llx\n      uid: %016llx\n    resourceVersion: \"%u\"\n  spec:\n",
		day, hour, (int)strlen(name) - 5, name, app, (unsigned long long)(h & 0xfffffffffull), name,
		ns_of(a), app, (unsigned long long)(h & 0xfffffffffull), uid, rv);
	/* Per-app traits, so all pods of one app agree as they would under one template. */
	if (h % 20 == 0)
		fprintf(f, "    affinity:\n      podAntiAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n"
			   "        - labelSelector:\n            matchLabels:\n              app: %s\n"
			   "          topologyKey: kubernetes.io/hostname\n",
			app);
	unsigned cpu = 50 + 10 * rnd(46);
	const char *m = PICK(mem);
	fprintf(f, "    containers:\n    - image: registry.example.com/team-%c/%s:1.%u.0\n"
		   "      imagePullPolicy: IfNotPresent\n      name: %s\n",
		ns_of(a), app, (unsigned)(h >> 40) % 30, app);
	if (h % 50 == 1)
		fprintf(f, "      ports:\n      - containerPort: %s\n        hostPort: %s\n        protocol: TCP\n",
			hostports[(h >> 8) % 4], hostports[(h >> 8) % 4]);
	fputs("      resources:\n", f);
	int gpu = n->gpus_free > 0 && pct(60);
	n->gpus_free -= gpu;
	if (pct(60) || gpu)
		fprintf(f, "        limits:\n          cpu: %um\n          memory: %s\n%s", cpu * 2, m,
			gpu ? "          nvidia.com/gpu: \"1\"\n" : "");
	fprintf(f, "        requests:\n          cpu: %um\n          memory: %s\n%s"
		   "      terminationMessagePath: /dev/termination-log\n      terminationMessagePolicy: File\n",
		cpu, m, gpu ? "          nvidia.com/gpu: \"1\"\n" : "");
	if (pct(10))
		fputs("    - image: istio/proxyv2:1.21.0\n      name: istio-proxy\n      resources:\n        requests:\n"
		      "          cpu: 10m\n          memory: 40Mi\n",
		      f);
	fprintf(f, "    dnsPolicy: ClusterFirst\n    nodeName: node-%05u\n    priority: 0\n    restartPolicy: Always\n"
		   "    schedulerName: default-scheduler\n    securityContext: {}\n    serviceAccountName: default\n"
		   "    terminationGracePeriodSeconds: 30\n    tolerations:\n",
		ni + 1);
	pod_tolerations(f, &pools[n->pool], "    ");
	int done = pct(1);
	unsigned ip1 = 128 + rnd(64), ip2 = rnd(256), ip3 = 1 + rnd(254);
	fprintf(f, "  status:\n    phase: %s\n    podIP: 10.%u.%u.%u\n    qosClass: Burstable\n"
		   "    startTime: \"2024-04-20T10:00:00Z\"\n",
		done ? "Succeeded" : "Running", ip1, ip2, ip3);
}

static void gen_workload(FILE *f, unsigned i)
{
	static const char *const cpus[] = {"100m", "250m", "500m", "750m", "1", "1500m", "2", "0.5", "200m"};
	static const char *const mems[] = {"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "1.5Gi", "500M", "768Mi"};
	static const char *const surge[] = {"0", "1", "25%"};
	char app[64];
	app_name(app, sizeof app, i);
	unsigned k = rnd(100), replicas = 1 + rnd(6);
	const char *kind = k < 80 ? "Deployment" : k < 95 ? "StatefulSet" : "Job";
	int job = k >= 95;
	fprintf(f, "---\napiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  namespace: team-%c\n  labels:\n"
		   "    app: %s\nspec:\n",
		job ? "batch/v1" : "apps/v1", kind, app, ns_of(i), app);
	if (job)
		fprintf(f, "  parallelism: %u\n  completions: %u\n  backoffLimit: 4\n", replicas, replicas * 4);
	else
		fprintf(f, "  replicas: %u\n  selector:\n    matchLabels:\n      app: %s\n", replicas, app);
	if (k < 80) {
		unsigned s = rnd(100);
		if (s < 35) {
			/* Both 0 is rejected by the API server, so keep one side positive. */
			unsigned ms = rnd(3), mu = rnd(3);
			if (!ms && !mu)
				mu = 1;
			fprintf(f, "  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: %s\n"
				   "      maxUnavailable: %s\n",
				surge[ms], surge[mu]);
		} else if (s < 50) {
			fputs("  strategy:\n    type: Recreate\n", f);
		}
	} else if (!job) {
		fprintf(f, "  serviceName: %s\n  podManagementPolicy: Parallel\n", app);
	}
	fprintf(f, "  template:\n    metadata:\n      labels:\n        app: %s\n    spec:\n", app);
	if (job)
		fputs("      restartPolicy: Never\n", f);
	int gpu = pct(3), tol = gpu ? 0 : pct(20) ? 1 + (int)rnd(4) : 0;
	if (gpu)
		fputs("      nodeSelector:\n        pool: gpu\n", f);
	else if (pct(30)) {
		if (pct(30))
			fprintf(f, "      nodeSelector:\n        disktype: %s\n", pct(80) ? "ssd" : "hdd");
		else
			fprintf(f, "      nodeSelector:\n        pool: %s\n", tol == 1 && pct(50) ? "infra" : PICK(untainted));
	}
	int na = pct(20), anti = pct(10), spread = pct(10);
	if (na || anti)
		fputs("      affinity:\n", f);
	if (na) {
		fputs("        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
		      "            nodeSelectorTerms:\n            - matchExpressions:\n",
		      f);
		const char *e = "              - key: ";
		unsigned x = rnd(3), y = 3 + rnd(3);
		switch (rnd(gpu ? 6 : 5)) {
		case 0: fprintf(f, "%stopology.kubernetes.io/zone\n                operator: In\n"
				   "                values:\n                - %s\n                - %s\n",
				e, zones[x], zones[y]); break;
		case 1: fprintf(f, "%stopology.kubernetes.io/zone\n                operator: NotIn\n"
				   "                values: [%s]\n", e, PICK(zones)); break;
		case 2: fprintf(f, "%snode.kubernetes.io/instance-type\n                operator: In\n"
				   "                values: [%s, %s]\n", e, itypes[x].name, itypes[y].name); break;
		case 3: fprintf(f, "%sdisktype\n                operator: Exists\n", e); break;
		case 4: fprintf(f, "%snode.kubernetes.io/instance-type\n                operator: NotIn\n"
				   "                values: [%s]\n", e, itypes[rnd(6)].name); break;
		default: fprintf(f, "%sgpu-mem\n                operator: Gt\n                values: [\"20\"]\n", e); break;
		}
	}
	if (anti)
		fprintf(f, "        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
			   "          - labelSelector:\n              matchLabels:\n                app: %s\n"
			   "            topologyKey: %s\n",
			app, pct(80) ? "kubernetes.io/hostname" : "topology.kubernetes.io/zone");
	unsigned skew = 1 + rnd(2);
	int by_zone = pct(60);
	if (spread)
		fprintf(f, "      topologySpreadConstraints:\n      - maxSkew: %u\n        topologyKey: %s\n"
			   "        whenUnsatisfiable: DoNotSchedule\n        labelSelector:\n          matchLabels:\n"
			   "            app: %s\n",
			skew, by_zone ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname", app);
	if (gpu)
		fputs("      tolerations:\n      - key: nvidia.com/gpu\n        operator: Exists\n        effect: NoSchedule\n", f);
	else if (tol) {
		static const char *const tols[] = {
			"key: dedicated\n        operator: Equal\n        value: infra\n        effect: NoSchedule\n",
			"key: spot\n        operator: Exists\n",
			"key: dedicated\n        operator: Exists\n",
			("key: node.kubernetes.io/not-ready\n        operator: Exists\n        effect: NoExecute\n"
			 "        tolerationSeconds: 300\n")};
		fprintf(f, "      tolerations:\n      - %s", tols[tol - 1]);
	}
	fprintf(f, "      containers:\n      - name: %s\n        image: registry.example.com/%s:2.%u\n", app, app, rnd(20));
	if (pct(2))
		fprintf(f, "        ports:\n        - containerPort: 8080\n          hostPort: %s\n", PICK(hostports));
	const char *c = PICK(cpus), *m = PICK(mems);
	fprintf(f, "        resources:\n          requests:\n            cpu: %s\n            memory: %s\n", c, m);
	if (pct(60) || gpu)
		fprintf(f, "          limits:\n            cpu: %s\n            memory: %s\n%s", c, m,
			gpu ? "            nvidia.com/gpu: 1\n" : "");
	if (pct(10))
		fputs("      - name: istio-proxy\n        image: istio/proxyv2:1.21.0\n        resources:\n"
		      "          requests: {cpu: 10m, memory: 40Mi}\n",
		      f);
}

#define LIST_END "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
static void list_break(FILE *f, int i)
{
	if (i % LIST_ITEMS)
		return;
	fputs(i ? LIST_END "---\napiVersion: v1\nitems:\n" : "apiVersion: v1\nitems:\n", f);
}

static int gen(const char *dir, uint64_t seed)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rng = seed;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "bench: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	struct out o;
	if (out_open(&o, dir, "nodes.yaml"))
		return 1;
	for (int i = 0; i < NNODES; i++) {
		list_break(o.f, i);
		gen_node(o.f, i);
	}
	fputs(LIST_END, o.f);
	if (out_close(&o) || out_open(&o, dir, "pods.yaml"))
		return 1;
	for (int i = 0; i < NPODS; i++) {
		list_break(o.f, i);
		gen_pod(o.f);
	}
	fputs(LIST_END, o.f);
	if (out_close(&o) || out_open(&o, dir, "workloads.yaml"))
		return 1;
	for (unsigned i = 0; i < NWORKLOADS; i++)
		gen_workload(o.f, i);
	if (out_close(&o))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("bench: generated in %.2f s (seed %llu)\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, (unsigned long long)seed);
	return 0;
}

/* The counts come from the files, not from the constants, so the report describes the input
 * that was actually measured (data generated by an older bench.c, say). */
static long count_lines(const char *path, const char *line, off_t *bytes)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	*bytes += st.st_size;
	char buf[512];
	long n = 0;
	size_t len = strlen(line);
	int bol = 1;
	while (fgets(buf, sizeof buf, f)) {
		if (bol && !strncmp(buf, line, len))
			n++;
		bol = strchr(buf, '\n') != NULL;
	}
	fclose(f);
	return n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One run of schedlint. errfd < 0 sends its stderr to /dev/null. Returns wait4()'s status. */
static int run_once(char *const argv[], int errfd, double *wall, long *maxrss_kib)
{
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("bench: fork");
		exit(1);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 1) < 0 || dup2(errfd >= 0 ? errfd : null, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (errfd >= 0)
		close(errfd);
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("bench: wait4");
			exit(1);
		}
	*wall = now() - t0;
	*maxrss_kib = ru.ru_maxrss; /* KiB on Linux, and only this child's */
	return status;
}

static const char *describe(int status, char *buf, size_t n)
{
	if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, n, "exit %d (%s)", WEXITSTATUS(status),
			 WEXITSTATUS(status) == 0 ? "clean" : WEXITSTATUS(status) == 1 ? "findings" : "input errors");
	return buf;
}

/* An exit 2 means the generator wrote something schedlint rejects: the timing would be of the
 * error path, so show why rather than a number. */
static int explain_failure(char *const argv[])
{
	int fds[2];
	if (pipe(fds)) {
		perror("bench: pipe");
		return 1;
	}
	double wall;
	long rss;
	pid_t reader = fork();
	if (reader == 0) { /* drains the pipe so a chatty child never blocks on it */
		close(fds[1]);
		FILE *in = fdopen(fds[0], "r");
		char line[1024];
		for (int n = 0; in && fgets(line, sizeof line, in);)
			if (n++ < 15)
				fprintf(stderr, "  | %s%s", line, strchr(line, '\n') ? "" : "\n");
		_exit(0);
	}
	close(fds[0]);
	run_once(argv, fds[1], &wall, &rss);
	if (reader > 0)
		waitpid(reader, NULL, 0);
	fputs("bench: the benchmark input is broken (schedlint's stderr above); fix the generator\n", stderr);
	return 1;
}

static int run(const char *bin, const char *dir)
{
	char nodes[4096], pods[4096], work[4096], desc[64];
	snprintf(nodes, sizeof nodes, "%s/nodes.yaml", dir);
	snprintf(pods, sizeof pods, "%s/pods.yaml", dir);
	snprintf(work, sizeof work, "%s/workloads.yaml", dir);
	off_t bytes = 0;
	long nn = count_lines(nodes, "  kind: Node\n", &bytes);
	long np = count_lines(pods, "  kind: Pod\n", &bytes), nrun = count_lines(pods, "    phase: Running\n", &(off_t){0});
	long nw = count_lines(work, "kind: ", &bytes);
	double mb = bytes / 1048576.0;
	char *argv[] = {(char *)bin, "--nodes", nodes, "--pods", pods, "--format", "json", "-o", "/dev/null", work, NULL};
	double best = 1e30;
	long peak = 0;
	int status = 0;
	printf("bench: %s --nodes %s --pods %s --format json -o /dev/null %s  (%.1f MB of YAML)\n", bin, nodes, pods, work,
	       mb);
	for (int r = 1; r <= RUNS; r++) {
		double wall;
		long rss;
		status = run_once(argv, -1, &wall, &rss);
		printf("bench: run %d: wall %.3f s, peak RSS %.1f MB, %s\n", r, wall, rss / 1024.0,
		       describe(status, desc, sizeof desc));
		fflush(stdout);
		if (WIFSIGNALED(status) || WEXITSTATUS(status) > 1)
			return explain_failure(argv);
		best = wall < best ? wall : best;
		peak = rss > peak ? rss : peak;
	}
	double peak_mb = peak / 1024.0; /* MiB, as the target means it */
	printf("bench: %ld nodes, %ld pods (%ld running), %ld workloads: wall %.3f s (best of %d), peak RSS %.1f MB, "
	       "schedlint %s\n",
	       nn, np, nrun, nw, best, RUNS, peak_mb, describe(status, desc, sizeof desc));
	printf("bench: throughput %.0f workloads/s, %.1f MB of YAML/s\n", nw / best, mb / best);
	int ok_t = best < TARGET_S, ok_m = peak_mb < TARGET_MB;
	printf("bench: target: under %.0f s and %.0f MB on 2 cores (this machine: %ld online): %s%s%s\n", TARGET_S,
	       TARGET_MB, sysconf(_SC_NPROCESSORS_ONLN), ok_t && ok_m ? "met" : "NOT met", ok_t ? "" : " (time)",
	       ok_m ? "" : " (memory)");
	return 0; /* a missed target is a finding for people, not a failure */
}

int main(int argc, char **argv)
{
	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], argc == 4 ? strtoull(argv[3], NULL, 10) : 1);
	if (argc == 4 && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3]);
	fprintf(stderr, "usage: bench gen DIR [SEED]\n       bench run SCHEDLINT DIR\n");
	return 2;
}
