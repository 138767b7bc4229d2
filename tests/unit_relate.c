/* unit_relate.c — the relations between the model's objects (relate.c): budgets and Services that
 * repeat a selector (a repository's overlays and copies) relate exactly as each alone would. */
#include <string.h>

#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "unit.h"

static const char objects_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 2, selector: {matchLabels: "
    "{app: web}}, template: {metadata: {labels: {app: web, tier: fe}}, spec: {containers: [{name: c}]}}}}\n"
    "- {apiVersion: apps/v1, kind: Deployment, metadata: {name: api}, spec: {replicas: 3, selector: {matchLabels: "
    "{app: api}}, template: {metadata: {labels: {app: api}}, spec: {containers: [{name: c}]}}}}\n"
    "- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: other}, spec: {replicas: 1, "
    "selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: "
    "c}]}}}}\n"
    /* 1 and 2 alike; 3 alike but in another namespace; 4 and 5 alike; 6 like 4 with the values
     * in another order (another selector, the same workloads). */
    "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p1}, spec: {maxUnavailable: 1, "
    "selector: {matchLabels: {app: web}}}}\n"
    "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p2}, spec: {maxUnavailable: 1, "
    "selector: {matchLabels: {app: web}}}}\n"
    "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p3, namespace: other}, spec: "
    "{maxUnavailable: 1, selector: {matchLabels: {app: web}}}}\n"
    "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p4}, spec: {maxUnavailable: 1, "
    "selector: {matchExpressions: [{key: app, operator: In, values: [web, api]}]}}}\n"
    "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p5}, spec: {maxUnavailable: 1, "
    "selector: {matchExpressions: [{key: app, operator: In, values: [web, api]}]}}}\n"
    "- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p6}, spec: {maxUnavailable: 1, "
    "selector: {matchExpressions: [{key: app, operator: In, values: [api, web]}]}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s1}, spec: {selector: {app: web}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s2}, spec: {selector: {app: web}}}\n"
    "- {apiVersion: v1, kind: Service, metadata: {name: s3}, spec: {selector: {app: web, tier: fe}}}\n";

static const struct sl_workload *in_ns(const struct sl_model *m, const char *ns, const char *name)
{
	for (size_t i = 0; i < m->nworkloads; i++)
		if (!strcmp(m->workloads[i]->obj.name, name) && !strcmp(m->workloads[i]->obj.namespace, ns))
			return m->workloads[i];
	return NULL;
}

/* w's budgets' names, joined: "p1 p2". */
static const char *budgets(const struct sl_workload *w, char *out, size_t n)
{
	out[0] = 0;
	for (size_t i = 0; w && i < w->npdbs; i++) {
		strncat(out, i ? " " : "", n - strlen(out) - 1);
		strncat(out, w->pdbs[i]->obj.name, n - strlen(out) - 1);
	}
	return out;
}

void test_relations(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *s = sl_source_from_memory("objects.yaml", objects_yaml, strlen(objects_yaml));
	sl_model_load(&m, s, SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	const struct sl_workload *web = in_ns(&m, "default", "web"), *api = in_ns(&m, "default", "api"),
				 *other = in_ns(&m, "other", "web");
	char b[128];
	CHECK(web && !strcmp(budgets(web, b, sizeof b), "p1 p2 p4 p5 p6"));
	CHECK(api && !strcmp(budgets(api, b, sizeof b), "p4 p5 p6"));
	CHECK(other && !strcmp(budgets(other, b, sizeof b), "p3"));
	CHECK(m.npdbs == 6);
	for (size_t k = 0; k < m.npdbs; k++) {
		const struct sl_pdb *p = m.pdbs[k];
		bool both = k >= 3;
		CHECK(p->countable && p->nselected == (both ? 2u : 1u) && p->total == (both ? 5 : k == 2 ? 1 : 2));
	}
	/* The Services' pairs, once each: app from s1 (s2 adds nothing), tier from s3. */
	CHECK(web && web->svc.nreqs == 2 && !strcmp(web->svc.reqs[0].key, "app") &&
	      !strcmp(web->svc.reqs[1].key, "tier"));
	CHECK(api && api->svc.nreqs == 0);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(s);
}
