/* jobset.c — a JobSet's replicatedJobs as workloads (see jobset.h). The JobSet controller creates
 * every replicatedJob's Jobs at once (startupPolicy AnyOrder, the default); with InOrder, or an
 * entry's dependsOn, an entry's Jobs are created once the earlier entry's are ready, which the
 * workload records (sl_batch.ordered) for the notes. */
#include "jobset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_read.h"
#include "workload.h"

bool sl_jobset_kind(const struct sl_object *o)
{
	return !strcmp(o->kind, "JobSet") && o->api_version && !strncmp(o->api_version, "jobset.x-k8s.io/", 16);
}

/* spec.startupPolicy.startupPolicyOrder is InOrder. */
static bool in_order(struct sl_read *c, const struct sl_ynode *spec)
{
	const struct sl_ynode *sp = sl_read_want(c, spec, "startupPolicy", SL_YMAP, "spec.startupPolicy");
	const struct sl_ynode *order = sl_ymap_get(sp, "startupPolicyOrder");
	if (sl_ynull(order) || sl_yis(order, "AnyOrder"))
		return false;
	if (!sl_yis(order, "InOrder"))
		sl_read_error(c, order, "startupPolicy.startupPolicyOrder must be AnyOrder or InOrder");
	return true;
}

/* One replicatedJob entry rj (index i) of JobSet o as a workload; NULL after an input error or
 * when it holds no pod template. */
static struct sl_workload *read_entry(struct sl_read *c, const struct sl_object *o, const struct sl_ynode *rj, size_t i,
				      bool ordered)
{
	char path[96];
	if (rj->kind != SL_YMAP) {
		sl_read_error(c, rj, "spec.replicatedJobs[%zu] must be a mapping, not %s", i, sl_ykind_name(rj));
		return NULL;
	}
	snprintf(path, sizeof path, "spec.replicatedJobs[%zu].name", i);
	const struct sl_ynode *raw = sl_ymap_get(rj, "name");
	const struct sl_ynode *name = sl_read_want(c, rj, "name", SL_YSCALAR, path);
	if (sl_ynull(raw) || (name && !*name->str)) {
		sl_read_error(c, raw ? raw : rj, "%s is required: it names the entry's Jobs", path);
		return NULL;
	}
	if (!name) /* not a string: reported */
		return NULL;
	snprintf(path, sizeof path, "spec.replicatedJobs[%zu].template", i);
	const struct sl_ynode *jt = sl_read_want(c, rj, "template", SL_YMAP, path);
	snprintf(path, sizeof path, "spec.replicatedJobs[%zu].template.spec", i);
	const struct sl_ynode *jobspec = sl_read_want(c, jt, "spec", SL_YMAP, path);
	snprintf(path, sizeof path, "spec.replicatedJobs[%zu].template.spec.template", i);
	const struct sl_ynode *labels, *podspec = sl_read_template(c, jobspec, path, &labels);
	int64_t jobs = 1;
	const struct sl_ynode *jobs_node = NULL;
	sl_read_count(c, rj, "replicas", &jobs, &jobs_node);
	if (!podspec || c->failed)
		return NULL;
	struct sl_workload *w = sl_xcalloc(1, sizeof *w);
	w->obj = *o;
	size_t len = strlen(o->name) + strlen(name->str) + 2;
	w->owned_name = sl_xmalloc(len);
	snprintf(w->owned_name, len, "%s-%s", o->name, name->str);
	w->obj.name = w->owned_name;
	w->obj.kind_node = name; /* its own location: the entry, not the JobSet's kind line */
	w->spec = jobspec;
	if (sl_parse_podspec(c->src, podspec, o->namespace, labels, &w->pod, c->errs) < 0)
		c->failed = 1;
	sl_read_selector(c, NULL, "spec.selector", &w->sel);
	sl_job_read(c, NULL, jobspec, w);
	struct sl_batch *b = w->batch; /* sl_job_read's */
	b->jobs = jobs;
	b->jobs_node = jobs_node;
	b->member = name->str;
	b->ordered = ordered || !sl_ynull(sl_ymap_get(rj, "dependsOn"));
	w->replicas *= jobs; /* int32 × int32: no overflow */
	b->total *= jobs;
	/* A finding about the entry's count points at what bounds its pods, else at its replicas; one
	 * about the entry as a whole at its name (obj.kind_node). */
	if (!w->replicas_node)
		w->replicas_node = jobs_node;
	if (c->failed) {
		sl_workload_free(w);
		return NULL;
	}
	return w;
}

/* The JobSet's own suspend holds back every Job of it. */
static void suspend_all(struct sl_workload **v, size_t n, const struct sl_ynode *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (v[i]->batch && !v[i]->batch->suspend_node) {
			v[i]->batch->suspend_node = s;
			v[i]->batch->suspend_path = "spec.suspend";
		}
}

int sl_jobset_read(struct sl_read *c, const struct sl_object *o, struct sl_workload ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	bool ordered = in_order(c, spec);
	const struct sl_ynode *suspend = sl_read_suspend(c, spec, "spec.suspend");
	const struct sl_ynode *rjs = sl_read_want(c, spec, "replicatedJobs", SL_YSEQ, "spec.replicatedJobs");
	if (!rjs)
		return c->failed ? -1 : 0;
	struct sl_workload **v = sl_xcalloc(rjs->n + 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < rjs->n; i++) {
		struct sl_read ec = {c->src, c->errs, 0}; /* an entry's errors do not hide the next one's */
		struct sl_workload *w = read_entry(&ec, o, rjs->v[i], i, ordered && i > 0);
		c->failed |= ec.failed;
		if (w)
			v[k++] = w;
	}
	if (c->failed) {
		for (size_t i = 0; i < k; i++)
			sl_workload_free(v[i]);
		free(v);
		return -1;
	}
	suspend_all(v, k, suspend);
	*out = v;
	*n = k;
	return 0;
}
