/* unit_job.c — Jobs as the Job controller keeps their pods: defaults (one pod to one completion;
 * parallelism 1), min(parallelism, completions) at once, a work queue's parallelism, a CronJob's
 * jobTemplate and suspension; a JobSet's replicatedJobs as workloads "<jobset>-<entry>" with
 * replicas × the Job's pods. */
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "unit.h"

static const char jobs_yaml[] =
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: plain}\nspec: {template: {spec: {containers: [{name: c}]}}}\n"
    "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: capped}\n"
    "spec: {parallelism: 8, completions: 3, template: {spec: {containers: [{name: c}]}}}\n"
    "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: queue}\n"
    "spec: {parallelism: 5, template: {spec: {containers: [{name: c}]}}}\n"
    "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: serial}\n"
    "spec: {completions: 4, template: {spec: {containers: [{name: c}]}}}\n"
    "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cron}\nspec: {schedule: '@daily', suspend: true,"
    " jobTemplate: {spec: {parallelism: 2, completionMode: Indexed, completions: 6,"
    " template: {spec: {containers: [{name: c}]}}}}}\n"
    "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: train}\nspec: {replicatedJobs: ["
    "{name: driver, template: {spec: {template: {spec: {containers: [{name: c}]}}}}},"
    "{name: workers, replicas: 3, template: {spec: {parallelism: 4, completions: 8,"
    " template: {spec: {containers: [{name: c}]}}}}}]}\n"
    "---\napiVersion: other.example.com/v1\nkind: JobSet\nmetadata: {name: foreign}\nspec: {}\n";

const struct sl_workload *unit_named(const struct sl_model *m, const char *name)
{
	for (size_t i = 0; i < m->nworkloads; i++)
		if (!strcmp(m->workloads[i]->obj.name, name))
			return m->workloads[i];
	return NULL;
}

void test_jobs(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *s = sl_source_from_memory("jobs.yaml", jobs_yaml, strlen(jobs_yaml));
	sl_model_load(&m, s, SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	CHECK(m.nworkloads == 7); /* five Jobs and CronJobs, two entries; the foreign JobSet is not read */
	const struct sl_workload *w = unit_named(&m, "plain");
	CHECK(w && sl_wbatch(w)->is && w->replicas == 1 && sl_wbatch(w)->total == 1 && sl_wbatch(w)->completions == 1);
	w = unit_named(&m, "capped"); /* never more pods than completions */
	CHECK(w && w->replicas == 3 && sl_wbatch(w)->total == 3 && w->replicas_node == sl_wbatch(w)->completions_node);
	w = unit_named(&m, "queue"); /* no completions: a work queue of parallelism pods */
	CHECK(w && w->replicas == 5 && sl_wbatch(w)->total == 5 && sl_wbatch(w)->completions < 0);
	w = unit_named(&m, "serial"); /* parallelism defaults to 1 */
	CHECK(w && w->replicas == 1 && sl_wbatch(w)->total == 4 && !w->replicas_node);
	w = unit_named(&m, "cron");
	CHECK(w && w->replicas == 2 && sl_wbatch(w)->total == 6 && sl_wbatch(w)->indexed &&
	      sl_wbatch(w)->suspend_node && !strcmp(sl_wbatch(w)->suspend_path, "spec.suspend"));
	w = unit_named(&m, "train-driver");
	CHECK(w && !strcmp(w->obj.kind, "JobSet") && w->replicas == 1 && sl_wbatch(w)->jobs == 1);
	w = unit_named(&m, "train-workers");
	CHECK(w && w->replicas == 12 && sl_wbatch(w)->total == 24 && sl_wbatch(w)->jobs == 3 &&
	      !strcmp(sl_wbatch(w)->member, "workers") && !w->all_at_once);
	CHECK(!unit_named(&m, "foreign"));
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(s);
}
