/* unit_placefits.c — the proofs that a workload's pods all fit (sl_place_all_fits), or that a
 * replica is left out (sl_place_all_short), without placing them, against the placement itself,
 * pod by pod (sl_place_all), on random small clusters: a proof that says "fit" must never meet a
 * placement that leaves a pod out, nor one that says "short" a placement that places every replica
 * and surge pod, whichever node the scoring prefers (the scheduler's choice, the one it likes
 * least, ties broken either way). The workloads spread per zone, node or rack (DoNotSchedule,
 * maxSkew 1-3, sometimes minDomains, matchLabelKeys or a ScheduleAnyway constraint beside), some
 * with anti-affinity per node, zone or rack (racks drawn apart from zones: one may span several),
 * of their own pods or of others, sometimes kept to one generation (matchLabelKeys), host ports,
 * pods already running that the spread counts, nodes without the zone label, and a rolling
 * update's surge. And the proofs are not idle: they must settle most of the workloads that fit,
 * spread ones among them, and some that do not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "../linter/sched/cluster.h"
#include "../linter/sched/cycle.h"
#include "../linter/sched/plugin.h"
#include "unit.h"

/* A fixed sequence (xorshift64*): the same cases on every run. */
static unsigned pick(uint64_t *state, unsigned n)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (unsigned)((*state * 2685821657736338717ULL) >> 33) % n;
}

/* The nodes and the running pods of one case. */
static void gen_inventory(uint64_t *r, struct sl_buf *nodes, struct sl_buf *pods, unsigned *nnodes)
{
	unsigned zones = 1 + pick(r, 4), racks = 1 + pick(r, 4);
	*nnodes = 2 + pick(r, 9);
	sl_buf_puts(nodes, "apiVersion: v1\nkind: List\nitems:\n");
	for (unsigned i = 0; i < *nnodes; i++) {
		sl_buf_printf(
		    nodes, "- {kind: Node, apiVersion: v1, metadata: {name: n%u, labels: {kubernetes.io/hostname: n%u",
		    i, i);
		if (pick(r, 10)) /* a node in no zone now and then: the spread filter rejects it */
			sl_buf_printf(nodes, ", zone: z%u", pick(r, zones));
		/* racks drawn apart from zones: a rack may span zones, and a zone racks */
		sl_buf_printf(nodes, ", rack: r%u", pick(r, racks));
		sl_buf_printf(nodes, "}}, status: {allocatable: {cpu: '%u', memory: 64Gi, pods: '%u'}}}\n",
			      1 + pick(r, 4), pick(r, 6) ? 110 : 2);
	}
	unsigned npods = pick(r, 9);
	sl_buf_puts(pods, "apiVersion: v1\nkind: List\nitems:\n");
	for (unsigned i = 0; i < npods; i++)
		sl_buf_printf(pods,
			      "- {kind: Pod, apiVersion: v1, metadata: {name: p%u, namespace: ns, labels: {app: %s}},"
			      " spec: {nodeName: n%u, containers: [{name: c, resources: {requests: {cpu: %um}}}]},"
			      " status: {phase: Running}}\n",
			      i, pick(r, 2) ? "web" : "other", pick(r, *nnodes), 250 * (1 + pick(r, 4)));
}

/* The Deployment of one case; *spread: it has a DoNotSchedule constraint. */
static void gen_workload(uint64_t *r, struct sl_buf *b, bool *spread)
{
	static const char *const keys[3] = {"zone", "kubernetes.io/hostname", "rack"};
	sl_buf_printf(b,
		      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n"
		      "spec:\n  replicas: %u\n  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: %u, "
		      "maxUnavailable: %u}}\n  selector: {matchLabels: {app: web}}\n  template:\n"
		      "    metadata: {labels: {app: web}}\n    spec:\n",
		      1 + pick(r, 8), pick(r, 4), pick(r, 3) ? 0 : 1);
	*spread = pick(r, 5) != 0;
	if (*spread) {
		unsigned key = pick(r, 3);
		sl_buf_printf(
		    b,
		    "      topologySpreadConstraints:\n      - {maxSkew: %u, topologyKey: %s, whenUnsatisfiable: "
		    "DoNotSchedule, labelSelector: {matchLabels: {app: web}}",
		    1 + pick(r, 3), keys[key]);
		if (!pick(r, 6))
			sl_buf_printf(b, ", minDomains: %u", 1 + pick(r, 4));
		if (!pick(r, 3)) /* the surge's pods count only themselves */
			sl_buf_puts(b, ", matchLabelKeys: [pod-template-hash]");
		sl_buf_puts(b, "}\n");
		if (!pick(r, 4))
			sl_buf_printf(b,
				      "      - {maxSkew: 1, topologyKey: %s, whenUnsatisfiable: ScheduleAnyway, "
				      "labelSelector: {matchLabels: {app: web}}}\n",
				      keys[(key + 1) % 3]);
	}
	if (!pick(r, 3))
		sl_buf_printf(b,
			      "      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
			      "[{topologyKey: %s, labelSelector: {matchLabels: {app: %s}}%s}]}}\n",
			      keys[pick(r, 3)], pick(r, 4) ? "web" : "other",
			      pick(r, 4) ? "" : ", matchLabelKeys: [pod-template-hash]");
	sl_buf_printf(b, "      containers:\n      - name: c\n        resources: {requests: {cpu: %um}}\n",
		      250 * (1 + pick(r, 4)));
	if (!pick(r, 8))
		sl_buf_puts(b, "        ports: [{containerPort: 80, hostPort: 8080}]\n");
}

/* Tallies over the cases. */
struct tally {
	unsigned fit, proven, spread_proven, short_proven;
};

/* One case (nodes, running pods, the workload; nn nodes): the proof and the placements agree.
 * Returns whether it was proven. */
static bool check_sources(const char *name, const struct sl_buf *nb, const struct sl_buf *pb, const struct sl_buf *wb,
			  unsigned nn, bool spread, struct tally *t)
{
	bool proven = false;
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src[3] = {sl_source_from_memory("nodes.yaml", nb->s, nb->len),
				    sl_source_from_memory("pods.yaml", pb->s, pb->len),
				    sl_source_from_memory("web.yaml", wb->s, wb->len)};
	sl_model_load(&m, src[0], SL_ROLE_NODES, &errs);
	sl_model_load(&m, src[1], SL_ROLE_PODS, &errs);
	sl_model_load(&m, src[2], SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0 && m.nworkloads == 1 && m.nnodes == nn);
	if (errs.n || m.nworkloads != 1 || m.nnodes != nn) {
		fprintf(stderr, "case %s:\n%s%s%s", name, nb->s, pb->s, wb->s);
		goto out;
	}
	struct sl_cluster *cl = sl_cluster_new(&m);
	const struct sl_workload *w = m.workloads[0];
	bool excluded[16] = {false}, ok[16] = {false};
	sl_node_only_verdicts(cl, &w->pod, ok);
	struct sl_cycle s;
	sl_cycle_init(&s, cl, w, excluded, ok, "h0");
	proven = sl_place_all_fits(&s, w, 0);
	bool short_proven = !proven && sl_place_all_short(&s, w, 0);
	sl_cycle_free(&s);
	int64_t max_surge, max_unavailable;
	sl_fenceposts(w, &max_surge, &max_unavailable);
	bool all = true;
	for (int way = 0; way < 4; way++) {
		int64_t steady, surge;
		sl_cycle_init(&s, cl, w, excluded, ok, "h0");
		s.reverse = way & 1;
		s.ties_last = way & 2;
		sl_place_all(&s, w, NULL, 0, &steady, &surge, NULL, NULL);
		bool placed = !s.truncated && steady == w->replicas && surge == max_surge;
		sl_cycle_free(&s);
		all &= placed;
		if (short_proven && placed) {
			CHECK(!placed);
			fprintf(stderr, "case %s: proven short, but every pod placed (way %d):\n%s%s%s", name, way,
				nb->s, pb->s, wb->s);
			break;
		}
		if (proven && !placed) {
			CHECK(placed);
			fprintf(stderr,
				"case %s: proven, but placed %lld of %lld and %lld of %lld surge (way %d):\n%s%s%s",
				name, (long long)steady, (long long)w->replicas, (long long)surge, (long long)max_surge,
				way, nb->s, pb->s, wb->s);
			break;
		}
	}
	t->fit += all;
	t->proven += proven;
	t->spread_proven += proven && spread;
	t->short_proven += short_proven;
	sl_cluster_free(cl);
out:
	sl_model_free(&m);
	sl_findings_free(&errs);
	for (int i = 0; i < 3; i++)
		sl_source_free(src[i]);
	return proven;
}

static void check_case(uint64_t seed, struct tally *t)
{
	uint64_t r = seed;
	struct sl_buf nb = SL_BUF_INIT, pb = SL_BUF_INIT, wb = SL_BUF_INIT;
	unsigned nn;
	bool spread;
	char name[32];
	gen_inventory(&r, &nb, &pb, &nn);
	gen_workload(&r, &wb, &spread);
	snprintf(name, sizeof name, "%llu", (unsigned long long)seed);
	check_sources(name, &nb, &pb, &wb, nn, spread, t);
	sl_buf_free(&nb);
	sl_buf_free(&pb);
	sl_buf_free(&wb);
}

/* A rack across two zones: the spread per zone (maxSkew 1) and the anti-affinity per rack. The
 * scheduler puts the first pod on n2, the roomiest, in zone b and rack 1; the second must then go
 * to zone a, whose only node is in rack 1 too. A unit per rack counted in the zone first seen
 * (rack 1 in a, rack 2 in b) would have each zone hold one: the proof must not count a rack that
 * is in more than one zone. */
static void check_rack_across_zones(struct tally *t)
{
	struct sl_buf nb = SL_BUF_INIT, pb = SL_BUF_INIT, wb = SL_BUF_INIT;
	sl_buf_puts(&nb, "apiVersion: v1\nkind: List\nitems:\n");
	static const struct {
		const char *zone, *rack;
		int cpu;
	} ns[3] = {{"a", "1", 1}, {"b", "1", 4}, {"b", "2", 1}};
	for (int i = 0; i < 3; i++)
		sl_buf_printf(
		    &nb,
		    "- {kind: Node, apiVersion: v1, metadata: {name: n%d, labels: {kubernetes.io/hostname: n%d, "
		    "zone: %s, rack: '%s'}}, status: {allocatable: {cpu: '%d', memory: 64Gi, pods: '110'}}}\n",
		    i + 1, i + 1, ns[i].zone, ns[i].rack, ns[i].cpu);
	sl_buf_puts(&pb, "apiVersion: v1\nkind: List\nitems: []\n");
	sl_buf_puts(&wb, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n"
			 "spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector: {matchLabels: {app: web}}\n"
			 "  template:\n    metadata: {labels: {app: web}}\n    spec:\n"
			 "      topologySpreadConstraints:\n      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
			 "DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n"
			 "      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
			 "[{topologyKey: rack, labelSelector: {matchLabels: {app: web}}}]}}\n"
			 "      containers:\n      - name: c\n        resources: {requests: {cpu: 500m}}\n");
	CHECK(!check_sources("rack across zones", &nb, &pb, &wb, 3, true, t));
	sl_buf_free(&nb);
	sl_buf_free(&pb);
	sl_buf_free(&wb);
}

void test_place_all_fits(void)
{
	struct tally t = {0};
	check_rack_across_zones(&t);
	for (uint64_t seed = 1; seed <= 3000; seed++)
		check_case(seed * 0x9E3779B97F4A7C15ULL, &t);
	/* Not idle: most of what fits is proven so, spread workloads too, and some replicas short. */
	bool busy = t.fit > 1000 && t.proven * 5 > t.fit * 2 && t.spread_proven > 500 && t.short_proven > 100;
	CHECK(busy);
	if (!busy)
		fprintf(stderr, "place_all_fits: %u fit, %u proven, %u with spread, %u proven short\n", t.fit, t.proven,
			t.spread_proven, t.short_proven);
}
