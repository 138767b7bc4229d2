/* unit_gang.c — gangs as the model binds them: a Volcano Job's tasks as workloads "<job>-<task>"
 * with Volcano's defaults (a task's minAvailable its replicas, the Job's their sum; the tasks'
 * own minimums only while the Job's is at least their sum), and a coscheduling PodGroup held only
 * by a scheduler that runs the plugin (the others' pods still count for its quorum); what each
 * gang needs of each workload. */
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "unit.h"

static const char gangs_yaml[] =
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: dflt}\nspec: {tasks: ["
    "{name: ps, replicas: 1, template: {spec: {containers: [{name: c}]}}},"
    "{replicas: 4, template: {spec: {containers: [{name: c}]}}}]}\n"
    "---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: low}\nspec: {minAvailable: 3, tasks: ["
    "{name: ps, replicas: 1, template: {spec: {containers: [{name: c}]}}},"
    "{name: worker, replicas: 4, template: {spec: {containers: [{name: c}]}}}]}\n"
    "---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: other}\nspec: {schedulerName: "
    "kube-batch, tasks: [{name: a, replicas: 2, template: {spec: {containers: [{name: c}]}}}]}\n"
    "---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: pg}\nspec: {minMember: 3}\n"
    "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: held}\nspec: {parallelism: 2, template: {metadata: "
    "{labels: {scheduling.x-k8s.io/pod-group: pg}}, spec: {schedulerName: sp, containers: [{name: c}]}}}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: loose, labels: {scheduling.x-k8s.io/pod-group: pg}}\n"
    "spec: {containers: [{name: c}]}\n";

void test_gangs(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *s = sl_source_from_memory("gangs.yaml", gangs_yaml, strlen(gangs_yaml));
	sl_model_load(&m, s, SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	CHECK(m.nworkloads == 7 && m.npodgroups == 3);                 /* kube-batch's Job makes no gang */
	const struct sl_workload *w = unit_named(&m, "dflt-default1"); /* an unnamed task: default<i> */
	CHECK(w && !sl_wbatch(w)->is && w->replicas == 4 && sl_wgang(w)->podgroup &&
	      sl_wgang(w)->podgroup->min_member == 5 && sl_wgang(w)->podgroup->nworkloads == 2 &&
	      sl_wgang(w)->gang_need == 4 && sl_wgang(w)->task_min == 4 && w->all_at_once);
	w = unit_named(&m, "dflt-ps");
	CHECK(w && sl_wgang(w)->gang_need == 1 && sl_wgang(w)->podgroup->first == w);
	w = unit_named(&m, "low-worker"); /* 3 < 5: the tasks' minimums do not count; 3 less 1 ps */
	CHECK(w && sl_wgang(w)->podgroup->min_member == 3 && sl_wgang(w)->task_min == 0 && sl_wgang(w)->gang_need == 2);
	w = unit_named(&m, "low-ps");
	CHECK(w && sl_wgang(w)->gang_need == 0 && !w->all_at_once);
	w = unit_named(&m, "other-a");
	CHECK(w && !sl_wgang(w)->podgroup && !sl_wgang(w)->gang_need);
	w = unit_named(&m, "held");
	CHECK(w && sl_wgang(w)->podgroup && sl_wgang(w)->podgroup->flavor == SL_GANG_COSCHED && !sl_wgang(w)->unheld);
	/* default-scheduler: not held, but its pod carries the label and counts for the quorum */
	w = unit_named(&m, "loose");
	CHECK(w && !sl_wgang(w)->podgroup && sl_wgang(w)->unheld &&
	      !strcmp(sl_wgang(w)->unheld_by, "default-scheduler") && !sl_wgang(w)->gang_need);
	w = unit_named(&m, "held");
	CHECK(sl_wgang(w)->podgroup->members == 3 && sl_wgang(w)->podgroup->nworkloads == 2 &&
	      sl_wgang(w)->podgroup->first == w && sl_wgang(w)->gang_need == 2);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(s);
}
