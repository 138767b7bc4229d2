/* unit_dra.c — Dynamic Resource Allocation's objects read into the model (dra.h): every kind in
 * each version read (v1, v1beta2, v1beta1), the defaults (ExactCount, count 1, a count of 0
 * defaulted to 1), attribute and capacity names split (a bare name in the driver's domain), the
 * lookups by name and namespace, an object named twice (the later kept), a pod's claims with a
 * running pod's generated claim, what a release does not serve, and the input errors. */
#include <string.h>

#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "unit.h"

static const char manifests_yaml[] =
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one, namespace: ml}\n"
    "spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}},"
    " {name: all, exactly: {deviceClassName: gpu, allocationMode: All}},"
    " {name: zero, exactly: {deviceClassName: gpu, count: 0}},"
    " {name: alt, firstAvailable: [{name: big, deviceClassName: gpu, count: 3}, {name: small, deviceClassName: gpu}]}],"
    " constraints: [{matchAttribute: gpu.example.com/numa}]}}}\n---\n"
    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaimTemplate\nmetadata: {name: beta, namespace: ml}\n"
    "spec: {spec: {devices: {requests: [{name: g, deviceClassName: gpu, count: 2, adminAccess: true,"
    " selectors: [{cel: {expression: 'true'}}]},"
    " {name: f, firstAvailable: [{name: a, deviceClassName: gpu}]}]}}}\n---\n"
    "apiVersion: resource.k8s.io/v1beta2\nkind: ResourceClaim\nmetadata: {name: shared, namespace: ml,"
    " annotations: {resource.kubernetes.io/pod-claim-name: s}}\n"
    "spec: {devices: {requests: [{name: n, exactly: {deviceClassName: gpu, tolerations: [{operator: Exists}]}}]}}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ml}\n"
    "spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}},"
    " spec: {resourceClaims: [{name: g, resourceClaimTemplateName: one}, {name: s, resourceClaimName: shared}],"
    " containers: [{name: c, resources: {claims: [{name: g}, {name: s, request: n}]}}]}}}\n";

static const char cluster_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- apiVersion: resource.k8s.io/v1\n  kind: ResourceSlice\n  metadata: {name: s1}\n"
    "  spec: {driver: gpu.example.com, nodeName: n1, pool: {name: p1, generation: 2, resourceSliceCount: 1},"
    " devices: [{name: d0, attributes: {model: {string: A100}, other.io/idx: {int: 7}, mig: {bool: true},"
    " fw: {version: 1.2.3}}, capacity: {memory: {value: 40Gi}}, taints: [{key: k, effect: NoSchedule}]}]}\n"
    "- apiVersion: resource.k8s.io/v1beta1\n  kind: ResourceSlice\n  metadata: {name: s2}\n"
    "  spec: {driver: nic.example.com, allNodes: true, pool: {name: p2, resourceSliceCount: 1},"
    " devices: [{name: d1, basic: {attributes: {speed: {int: 100}}, capacity: {nic.example.com/bw: {value: 10G}}}}]}\n"
    "- apiVersion: resource.k8s.io/v1beta2\n  kind: ResourceSlice\n  metadata: {name: s3}\n"
    "  spec: {driver: x.example.com, nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: z, operator: In,"
    " values: [a]}]}]}, pool: {name: p3, resourceSliceCount: 2}}\n"
    "- apiVersion: v1\n  kind: Pod\n  metadata: {name: web-1, namespace: ml}\n"
    "  spec: {nodeName: n1, resourceClaims: [{name: g, resourceClaimTemplateName: one}], containers: [{name: c,"
    " resources: {claims: [{name: g}]}}]}\n"
    "  status: {phase: Running, resourceClaimStatuses: [{name: g, resourceClaimName: web-1-g-x}]}\n"
    "- apiVersion: resource.k8s.io/v1\n  kind: ResourceClaim\n  metadata: {name: web-1-g-x, namespace: ml,"
    " deletionTimestamp: '2026-01-01T00:00:00Z', annotations: {resource.kubernetes.io/pod-claim-name: g},"
    " ownerReferences: [{kind: Pod, name: web-1, controller: true}]}\n"
    "  spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}\n"
    "  status: {allocation: {devices: {results: [{request: g, driver: gpu.example.com, pool: p1, device: d0}]},"
    " nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}},"
    " reservedFor: [{resource: pods, name: web-1}]}\n";

static const struct sl_cel_attr *attr(const struct sl_dra_device *d, const char *domain, const char *name)
{
	for (size_t i = 0; i < d->cel.nattrs; i++)
		if (!strcmp(d->cel.attrs[i].domain, domain) && !strcmp(d->cel.attrs[i].name, name))
			return &d->cel.attrs[i];
	return NULL;
}

static void check_templates(const struct sl_dra *d)
{
	const struct sl_claim_template *t = sl_dra_template(d, "ml", "one");
	CHECK(t && t->spec.nrequests == 4 && t->spec.constraints);
	if (!t || t->spec.nrequests != 4)
		return;
	const struct sl_dra_request *r = t->spec.requests;
	CHECK(!strcmp(r[0].name, "g") && !strcmp(r[0].class_name, "gpu") && !r[0].all && r[0].count == 1);
	CHECK(r[1].all && r[1].count == 0);
	CHECK(!r[2].all && r[2].count == 1); /* count 0 is defaulted to 1 */
	CHECK(!r[3].class_name && r[3].nsub == 2 && !strcmp(r[3].sub[0].name, "big") && r[3].sub[0].count == 3 &&
	      !strcmp(r[3].sub[1].class_name, "gpu") && r[3].sub[1].count == 1);
	const struct sl_claim_template *b = sl_dra_template(d, "ml", "beta");
	CHECK(b && b->spec.nrequests == 2);
	if (b && b->spec.nrequests == 2)
		CHECK(b->spec.requests[0].count == 2 && b->spec.requests[0].admin_access &&
		      b->spec.requests[0].nselectors == 1 && b->spec.requests[0].selectors[0].cel &&
		      b->spec.requests[1].nsub == 1 && !b->spec.requests[1].class_name);
	CHECK(!sl_dra_template(d, "default", "one"));
}

static void check_slices(const struct sl_dra *d)
{
	CHECK(d->nslices == 3);
	if (d->nslices != 3)
		return;
	const struct sl_resource_slice *s1 = d->slices[0], *s2 = d->slices[1], *s3 = d->slices[2];
	CHECK(!strcmp(s1->driver, "gpu.example.com") && !strcmp(s1->node_name, "n1") && !strcmp(s1->pool, "p1") &&
	      s1->pool_generation == 2 && s1->pool_slices == 1 && s1->ndevices == 1);
	const struct sl_dra_device *d0 = &s1->devices[0];
	CHECK(d0->cel.nattrs == 4 && d0->cel.ncaps == 1 && d0->unmodelled &&
	      !strcmp(d0->cel.driver, "gpu.example.com"));
	const struct sl_cel_attr *a = attr(d0, "gpu.example.com", "model");
	CHECK(a && a->kind == SL_CEL_STRING && !strcmp(a->s, "A100"));
	a = attr(d0, "other.io", "idx");
	CHECK(a && a->kind == SL_CEL_INT && a->i == 7);
	a = attr(d0, "gpu.example.com", "mig");
	CHECK(a && a->kind == SL_CEL_BOOL && a->b);
	a = attr(d0, "gpu.example.com", "fw");
	CHECK(a && a->kind == SL_CEL_VERSION && !strcmp(a->s, "1.2.3"));
	CHECK(!strcmp(d0->cel.caps[0].domain, "gpu.example.com") && !strcmp(d0->cel.caps[0].name, "memory") &&
	      sl_qty_value(&d0->cel.caps[0].value) == 40LL << 30);
	CHECK(s2->all_nodes && !s2->node_name && s2->ndevices == 1 && s2->devices[0].cel.nattrs == 1 &&
	      !s2->devices[0].unmodelled);
	if (s2->ndevices == 1 && s2->devices[0].cel.ncaps == 1)
		CHECK(!strcmp(s2->devices[0].cel.caps[0].domain, "nic.example.com") &&
		      !strcmp(s2->devices[0].cel.caps[0].name, "bw") &&
		      sl_qty_value(&s2->devices[0].cel.caps[0].value) == 10000000000LL);
	CHECK(s3->has_node_selector && s3->nnode_terms == 1 && s3->node_terms[0].nexprs == 1 && s3->ndevices == 0 &&
	      s3->pool_slices == 2);
}

static void check_claims(const struct sl_model *m)
{
	const struct sl_dra *d = &m->dra;
	/* (a --pods file keeps no annotations: the pod-claim-name is not known from there) */
	const struct sl_resource_claim *c = sl_dra_claim(d, "ml", "web-1-g-x");
	CHECK(c && c->allocated && c->nresults == 1 && c->has_node_selector && c->nnode_terms == 1 &&
	      c->nreserved == 1 && c->deleting && c->owner_pod && !strcmp(c->owner_pod, "web-1") && !c->pod_claim_name);
	if (c && c->nresults == 1)
		CHECK(!strcmp(c->results[0].request, "g") && !strcmp(c->results[0].device, "d0") &&
		      !strcmp(c->reserved[0], "web-1"));
	const struct sl_resource_claim *s = sl_dra_claim(d, "ml", "shared");
	CHECK(s && !s->allocated && s->spec.nrequests == 1 && s->spec.requests[0].unmodelled && !s->owner_pod &&
	      s->pod_claim_name && !strcmp(s->pod_claim_name, "s"));
	/* the class named twice: the later (no selectors) kept, in the earlier's place */
	const struct sl_device_class *g = sl_dra_class(d, "gpu");
	CHECK(d->nclasses == 1 && g && g->nselectors == 0 && !sl_dra_class(d, "cpu"));
	const struct sl_workload *w = m->nworkloads == 1 ? m->workloads[0] : NULL;
	CHECK(w && w->pod.nclaims == 2);
	if (w && w->pod.nclaims == 2)
		CHECK(!strcmp(w->pod.claims[0].template_name, "one") && !w->pod.claims[0].claim_name &&
		      !strcmp(w->pod.claims[1].claim_name, "shared") && !w->pod.claims[1].generated);
	CHECK(m->npods == 1 && m->pods[0]->spec.nclaims == 1);
	if (m->npods == 1 && m->pods[0]->spec.nclaims == 1)
		CHECK(m->pods[0]->spec.claims[0].generated &&
		      !strcmp(m->pods[0]->spec.claims[0].generated, "web-1-g-x"));
}

static void load(struct sl_model *m, struct sl_findings *errs, struct sl_source **s1, struct sl_source **s2)
{
	*s1 = sl_source_from_memory("m.yaml", manifests_yaml, strlen(manifests_yaml));
	*s2 = sl_source_from_memory("cluster.yaml", cluster_yaml, strlen(cluster_yaml));
	sl_model_load(m, *s1, SL_ROLE_MANIFESTS, errs);
	sl_model_load(m, *s2, SL_ROLE_PODS, errs);
}

static void test_dra_model(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *s1, *s2;
	load(&m, &errs, &s1, &s2);
	sl_model_apply_version(&m, 35, "1.35", 0, NULL, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	for (size_t i = 0; i < errs.n; i++)
		fprintf(stderr, "  unexpected: %s\n", errs.v[i].message);
	check_templates(&m.dra);
	check_slices(&m.dra);
	check_claims(&m);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(s1);
	sl_source_free(s2);
}

/* 1.33: v1 is not served (its objects left out, a warning each), the claims of pods are dropped
 * (DynamicResourceAllocation off by default): a warning at the template's, the running pod's
 * silently. With the gate on, the pods keep them. */
static void test_dra_release(void)
{
	for (int gate = 0; gate < 2; gate++) {
		struct sl_model m = {0};
		struct sl_findings errs = {0};
		struct sl_source *s1, *s2;
		load(&m, &errs, &s1, &s2);
		if (gate) {
			char err[128];
			CHECK(sl_gates_parse("DynamicResourceAllocation=true", "--feature-gates", &m.gates, err,
					     sizeof err, NULL, NULL) == 0);
		}
		sl_model_apply_version(&m, 33, "1.33", 0, NULL, &errs);
		sl_model_bind_pods(&m);
		size_t served = 0, dropped = 0;
		for (size_t i = 0; i < errs.n; i++) {
			served += errs.v[i].level == SL_WARNING && strstr(errs.v[i].message, "does not serve") != NULL;
			dropped += errs.v[i].level == SL_WARNING &&
				   strstr(errs.v[i].message, "spec.resourceClaims has no effect") != NULL;
		}
		/* v1: two classes (one kept of them after), a template, a slice, a claim */
		CHECK(served == 5 && dropped == (gate ? 0u : 1u) && errs.n == served + dropped);
		CHECK(m.dra.nclasses == 0 && m.dra.ntemplates == 1 && m.dra.nclaims == 1 && m.dra.nslices == 2);
		CHECK(m.nworkloads == 1 && m.workloads[0]->pod.nclaims == (gate ? 2u : 0u));
		CHECK(m.npods == 1 && m.pods[0]->spec.nclaims == (gate ? 1u : 0u));
		sl_model_free(&m);
		sl_findings_free(&errs);
		sl_source_free(s1);
		sl_source_free(s2);
	}
}

/* Each case an input error (and the object left out); other objects still read. */
static void test_dra_errors(void)
{
	static const char *const bad[] = {
	    /* a malformed capacity */
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d, allNodes: "
	    "true,"
	    " pool: {name: p, resourceSliceCount: 1}, devices: [{name: x, capacity: {mem: {value: 4GB}}}]}\n",
	    /* a negative count */
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
	    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g, count: -1}}]}}\n",
	    /* count with All */
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
	    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g, allocationMode: All, count: 2}}]}}\n",
	    /* an unknown allocationMode */
	    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c}\n"
	    "spec: {devices: {requests: [{name: r, deviceClassName: g, allocationMode: Some}]}}\n",
	    /* v1: neither exactly nor firstAvailable */
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
	    "spec: {devices: {requests: [{name: r}]}}\n",
	    /* v1: both */
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
	    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g}, firstAvailable: [{name: a,"
	    " deviceClassName: g}]}]}}\n",
	    /* v1beta1: no class and no subrequests */
	    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\n"
	    "spec: {spec: {devices: {requests: [{name: r, count: 1}]}}}\n",
	    /* a pod claim naming both */
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n, resourceClaims: [{name: a,"
	    " resourceClaimName: x, resourceClaimTemplateName: y}], containers: [{name: c}]}\n",
	    /* neither */
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n, resourceClaims: [{name: a}],"
	    " containers: [{name: c}]}\n",
	    /* a container's claim naming no entry */
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n, containers: [{name: c,"
	    " resources: {claims: [{name: gpu}]}}]}\n",
	    /* an attribute of a wrong type */
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d, nodeName: n,"
	    " pool: {name: p, resourceSliceCount: 1}, devices: [{name: x, attributes: {a: {int: many}}}]}\n",
	    /* a slice with two node choices */
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d, nodeName: n,"
	    " allNodes: true, pool: {name: p, resourceSliceCount: 1}}\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct sl_model m = {0};
		struct sl_findings errs = {0};
		struct sl_source *src = sl_source_from_memory("bad.yaml", bad[i], strlen(bad[i]));
		int rc = sl_model_load(&m, src, SL_ROLE_MANIFESTS, &errs);
		CHECK(rc < 0 && errs.n >= 1 && errs.v[0].level == SL_ERROR);
		CHECK(m.dra.nclaims + m.dra.nslices + m.dra.ntemplates + m.npods == 0);
		if (rc >= 0)
			fprintf(stderr, "  case %zu read without an error\n", i);
		sl_model_free(&m);
		sl_findings_free(&errs);
		sl_source_free(src);
	}
}

void test_dra(void)
{
	test_dra_model();
	test_dra_release();
	test_dra_errors();
}
