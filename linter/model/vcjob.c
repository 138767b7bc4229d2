/* vcjob.c — a Volcano Job's tasks as workloads bound to its gang (see vcjob.h). The numbers are
 * Volcano's: JobSpec and TaskSpec name the fields; its mutating webhook defaults a task's
 * minAvailable to its replicas (to minPartitions × partitionSize under a partitionPolicy), a Job's
 * minAvailable of 0 to the sum of its tasks' and its schedulerName to volcano; the job controller
 * gives each pod the template's schedulerName, else the Job's; and the gang plugin holds each
 * task to its minAvailable only while the Job's minAvailable is at least their sum
 * (JobInfo.CheckTaskReady), else the Job's minAvailable alone counts. */
#include "vcjob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gang.h"
#include "model.h"
#include "model_read.h"
#include "workload.h"

bool sl_vcjob_kind(const struct sl_object *o)
{
	return !strcmp(o->kind, "Job") && sl_object_in_group(o, "batch.volcano.sh");
}

/* What a task adds to the gang: its minimum (minAvailable, as written or defaulted; min_node NULL
 * when defaulted) and whether Volcano schedules its pods. */
struct task {
	struct sl_workload *w;
	int64_t min;
	const struct sl_ynode *min_node;
	bool volcano;
};

/* A task without minAvailable under a partitionPolicy with minPartitions: that many partitions. */
static int64_t partition_min(struct sl_read *c, const struct sl_ynode *r, int64_t replicas)
{
	const struct sl_ynode *pp = sl_read_want(c, r, "partitionPolicy", SL_YMAP, "tasks[].partitionPolicy");
	int64_t parts = 0, size = 0;
	const struct sl_ynode *n;
	sl_read_count(c, pp, "minPartitions", &parts, &n);
	sl_read_count(c, pp, "partitionSize", &size, &n);
	return parts > 0 ? parts * size : replicas; /* int32 × int32: no overflow */
}

/* The task's name node, its own or the one Volcano gives it ("default<i>") in *owned. */
static const struct sl_ynode *task_name(struct sl_read *c, const struct sl_ynode *r, size_t i, char *dflt, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "spec.tasks[%zu].name", i);
	const struct sl_ynode *name = sl_read_want(c, r, "name", SL_YSCALAR, path);
	snprintf(dflt, n, "default%zu", i);
	return name && *name->str ? name : NULL;
}

/* Task r (index i) of Job o as a workload in t->w; false after an input error or when it holds no
 * pod template. job_sched: the Job's schedulerName. */
static bool read_task(struct sl_read *c, const struct sl_object *o, const struct sl_ynode *r, size_t i,
		      const char *job_sched, struct task *t)
{
	char path[96], dflt[32];
	if (r->kind != SL_YMAP) {
		sl_read_error(c, r, "spec.tasks[%zu] must be a mapping, not %s", i, sl_ykind_name(r));
		return false;
	}
	const struct sl_ynode *name = task_name(c, r, i, dflt, sizeof dflt);
	snprintf(path, sizeof path, "spec.tasks[%zu].template", i);
	const struct sl_ynode *labels, *podspec = sl_read_template(c, r, path, &labels);
	int64_t replicas = 0;
	const struct sl_ynode *replicas_node = NULL;
	sl_read_count(c, r, "replicas", &replicas, &replicas_node);
	t->min_node = NULL;
	if (!sl_read_count(c, r, "minAvailable", &t->min, &t->min_node))
		t->min = partition_min(c, r, replicas);
	if (t->min_node && t->min > replicas)
		sl_read_error(c, t->min_node,
			      "spec.tasks[%zu].minAvailable %lld is above the task's replicas %lld: "
			      "Volcano's admission refuses the Job",
			      i, (long long)t->min, (long long)replicas);
	snprintf(path, sizeof path, "spec.tasks[%zu].template.spec.schedulerName", i);
	const char *sched = sl_read_str(c, podspec, "schedulerName", path);
	t->volcano = !strcmp(sched ? sched : job_sched, "volcano");
	if (!podspec || c->failed)
		return false;
	struct sl_workload *w = sl_xcalloc(1, sizeof *w);
	w->obj = *o;
	const char *tn = name ? name->str : dflt;
	size_t len = strlen(o->name) + strlen(tn) + 2;
	w->owned_name = sl_xmalloc(len);
	snprintf(w->owned_name, len, "%s-%s", o->name, tn);
	w->obj.name = w->owned_name;
	w->obj.kind_node = name ? name : r; /* its own location: the entry, not the Job's kind line */
	w->spec = r;
	w->replicas = replicas;
	w->replicas_node = replicas_node;
	if (sl_parse_podspec(c->src, podspec, o->namespace, labels, &w->pod, c->errs) < 0)
		c->failed = 1;
	sl_read_selector(c, NULL, "spec.selector", &w->sel);
	t->w = w;
	if (c->failed) {
		sl_workload_free(w);
		return false;
	}
	return true;
}

/* The gang of the tasks t[0..n) (every one scheduled by Volcano), into the model. */
static void make_gang(struct sl_model *m, const struct sl_object *o, struct task *t, size_t n, int64_t min,
		      const struct sl_ynode *min_node)
{
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += t[i].min; /* int32s, at most one per entry of a document: no overflow */
	struct sl_podgroup *g = sl_xcalloc(1, sizeof *g);
	g->obj = *o;
	g->flavor = SL_GANG_VCJOB;
	g->min_member = min ? min : sum;
	g->min_node = min ? min_node : NULL;
	for (size_t i = 0; i < n; i++) {
		struct sl_workload *w = t[i].w;
		struct sl_wgang *wg = sl_wgang_mut(w);
		wg->podgroup = g;
		wg->gang_at = w->obj.kind_node;
		if (g->min_member >= sum) { /* else the tasks' minimums are not checked */
			wg->task_min = t[i].min;
			wg->task_min_node = t[i].min_node;
		}
		sl_gang_join(g, w);
	}
	sl_grow(&m->podgroups, &m->cappodgroups, m->npodgroups + 1, sizeof *m->podgroups);
	m->podgroups[m->npodgroups++] = g;
}

int sl_vcjob_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	int64_t min = 0;
	const struct sl_ynode *min_node = NULL;
	sl_read_count(c, spec, "minAvailable", &min, &min_node);
	const char *sched = sl_read_str(c, spec, "schedulerName", "spec.schedulerName");
	sl_read_str(c, spec, "queue", "spec.queue");
	const struct sl_ynode *tasks = sl_read_want(c, spec, "tasks", SL_YSEQ, "spec.tasks");
	if (!tasks)
		return c->failed ? -1 : 0;
	struct task *t = sl_xcalloc(tasks->n + 1, sizeof *t);
	size_t k = 0;
	bool whole = true, volcano = true;
	int64_t replicas = 0;
	for (size_t i = 0; i < tasks->n; i++) {
		struct sl_read ec = {c->src, c->errs, 0}; /* a task's errors do not hide the next one's */
		bool ok = read_task(&ec, o, tasks->v[i], i, sched ? sched : "volcano", &t[k]);
		c->failed |= ec.failed;
		whole &= ok;
		if (ok) {
			volcano &= t[k].volcano;
			replicas += t[k].w->replicas;
			k++;
		}
	}
	if (min_node && min > replicas && whole)
		sl_read_error(
		    c, min_node,
		    "spec.minAvailable %lld is above the %lld replicas of the Job's tasks: Volcano's admission "
		    "refuses the Job",
		    (long long)min, (long long)replicas);
	if (c->failed) {
		for (size_t i = 0; i < k; i++)
			sl_workload_free(t[i].w);
		free(t);
		return -1;
	}
	for (size_t i = 0; i < k; i++) {
		sl_grow(&m->workloads, &m->capworkloads, m->nworkloads + 1, sizeof *m->workloads);
		m->workloads[m->nworkloads++] = t[i].w;
	}
	/* Every task read, and Volcano scheduling them all: otherwise what the gang counts is not
	 * known (a task without a template is a manifest fragment). */
	if (k && whole && volcano)
		make_gang(m, o, t, k, min, min_node);
	free(t);
	return 0;
}
