/* unit_priority.c — pods' priorities as the Priority admission plugin resolves them: a named class
 * (a built-in one too), the globalDefault class with the lowest value, 0 without one; a running
 * pod's spec.priority as the API shows it; a class no input describes, known from a running pod of
 * it or not known at all; preemptionPolicy from the class, or a running pod's own; a class named
 * twice (manifest, then inventory) takes the later description; invalid classes are input errors. */
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "unit.h"

static const char classes_yaml[] =
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: batch}\nvalue: 100\n"
    "globalDefault: true\n---\n"
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low-default}\nvalue: -5\n"
    "globalDefault: true\n---\n"
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: train}\nvalue: 1000000\n"
    "preemptionPolicy: Never\n---\n"
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: redefined}\nvalue: 7\n";

static const char workloads_yaml[] =
    "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {priorityClassName: train, containers: [{name: c}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: {containers: [{name: c}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n"
    "spec: {priorityClassName: system-node-critical, containers: [{name: c}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: d}\nspec: {priorityClassName: seen, containers: [{name: c}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: e}\nspec: {priorityClassName: nowhere, containers: [{name: "
    "c}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: f}\nspec: {priorityClassName: redefined, containers: [{name: "
    "c}]}\n";

/* Running pods as kubectl prints them: the resolved priority beside the class name, or the name
 * alone (a hand-written inventory). */
static const char running_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {kind: Pod, metadata: {name: r1, namespace: x}, spec: {nodeName: n, priorityClassName: seen, priority: 42,"
    " preemptionPolicy: Never, containers: [{name: c}]}, status: {phase: Running}}\n"
    "- {kind: Pod, metadata: {name: r2, namespace: x}, spec: {nodeName: n, priorityClassName: train,"
    " containers: [{name: c}]}, status: {phase: Running}}\n"
    "- {kind: PriorityClass, metadata: {name: redefined}, value: 9}\n";

static const struct sl_podspec *workload(const struct sl_model *m, const char *name)
{
	const struct sl_workload *w = unit_named(m, name);
	return w ? &w->pod : NULL;
}

static void test_resolution(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *s1 = sl_source_from_memory("classes.yaml", classes_yaml, strlen(classes_yaml));
	struct sl_source *s2 = sl_source_from_memory("w.yaml", workloads_yaml, strlen(workloads_yaml));
	struct sl_source *s3 = sl_source_from_memory("pods.yaml", running_yaml, strlen(running_yaml));
	sl_model_load(&m, s1, SL_ROLE_MANIFESTS, &errs);
	sl_model_load(&m, s2, SL_ROLE_MANIFESTS, &errs);
	sl_model_load(&m, s3, SL_ROLE_PODS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	CHECK(m.nprioclasses == 4); /* redefined once, in its first place */
	const struct sl_podspec *a = workload(&m, "a"), *b = workload(&m, "b"), *c = workload(&m, "c"),
				*d = workload(&m, "d"), *e = workload(&m, "e"), *f = workload(&m, "f");
	CHECK(a && a->priority == 1000000 && a->prio_from == SL_PRIO_CLASS && !a->preempts);
	/* Two globalDefault classes: the lowest value wins. */
	CHECK(b && b->priority == -5 && b->prio_from == SL_PRIO_GLOBAL && b->preempts);
	CHECK(c && c->priority == SL_SYSTEM_NODE_CRITICAL && c->prio_from == SL_PRIO_CLASS && c->preempts);
	CHECK(d && d->priority == 42 && d->prio_from == SL_PRIO_RUNNING);
	CHECK(e && e->priority == 0 && e->prio_from == SL_PRIO_UNKNOWN);
	CHECK(f && f->priority == 9); /* the inventory's description, read later */
	CHECK(m.npods == 2 && m.pods[0]->spec.priority == 42 && m.pods[0]->spec.prio_from == SL_PRIO_GIVEN &&
	      !m.pods[0]->spec.preempts);
	/* The class name alone: the class's value and policy. */
	CHECK(m.pods[1]->spec.priority == 1000000 && m.pods[1]->spec.prio_from == SL_PRIO_CLASS &&
	      !m.pods[1]->spec.preempts);
	CHECK(sl_model_knows_all_classes(&m));
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(s1);
	sl_source_free(s2);
	sl_source_free(s3);
}

static size_t errors_of(const char *yaml)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *s = sl_source_from_memory("bad.yaml", yaml, strlen(yaml));
	sl_model_load(&m, s, SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	size_t n = errs.n;
	CHECK(!sl_model_knows_all_classes(&m)); /* manifests alone never tell every class */
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(s);
	return n;
}

static void test_invalid(void)
{
	CHECK(errors_of("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: x}\nvalue: 1\n") == 0);
	CHECK(errors_of("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: x}\n") == 0);
	CHECK(errors_of("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: x}\nvalue: high\n") ==
	      1);
	CHECK(errors_of("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: x}\n"
			"value: 1000000001\n") == 1);
	CHECK(errors_of("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: x}\nvalue: 1\n"
			"preemptionPolicy: Sometimes\n") == 1);
	CHECK(errors_of("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
			"spec: {preemptionPolicy: Always, containers: [{name: c}]}\n") == 1);
	CHECK(errors_of("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
			"spec: {priority: 3000000000, containers: [{name: c}]}\n") == 1);
}

void test_priorities(void)
{
	test_resolution();
	test_invalid();
}
