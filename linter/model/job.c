/* job.c — a Job's parallelism, completions and suspension (see job.h), with the API server's
 * defaults (SetDefaults_Job: both unset is one pod to one completion; parallelism unset is 1) and
 * its validation (validateJobSpec: int32s not negative; Indexed needs completions). */
#include "job.h"

#include <string.h>

#include "../base/buf.h"
#include "model_read.h"
#include "workload.h"

const struct sl_batch sl_batch_none;

bool sl_job_kind(const char *kind)
{
	return !strcmp(kind, "Job") || !strcmp(kind, "CronJob");
}

bool sl_read_count(struct sl_read *c, const struct sl_ynode *map, const char *key, int64_t *out,
		   const struct sl_ynode **node)
{
	const struct sl_ynode *v = sl_ymap_get(map, key);
	if (sl_ynull(v))
		return false;
	int64_t x;
	if (sl_yint(v, &x) < 0 || x < 0 || x > INT32_MAX) {
		bool text = v->kind == SL_YSCALAR;
		sl_read_error(c, v, "%s must be an integer from 0 to 2147483647 (an int32), not %s%s%s%s", key,
			      text ? "\"" : "", text ? v->str : sl_ykind_name(v), text ? "\"" : "",
			      text && !v->plain ? " (a quoted number is a string, which the API server rejects)" : "");
		return false;
	}
	*out = x;
	*node = v;
	return true;
}

const struct sl_ynode *sl_read_suspend(struct sl_read *c, const struct sl_ynode *map, const char *path)
{
	const struct sl_ynode *v = sl_ymap_get(map, "suspend");
	bool on = false;
	if (sl_ynull(v))
		return NULL;
	if (v->kind != SL_YSCALAR || !v->plain || sl_read_bool(v, &on) < 0) {
		sl_read_error(c, v, "%s must be true or false, not %s%s%s", path, v->kind == SL_YSCALAR ? "\"" : "",
			      v->kind == SL_YSCALAR ? v->str : sl_ykind_name(v), v->kind == SL_YSCALAR ? "\"" : "");
		return NULL;
	}
	return on ? v : NULL;
}

static void read_mode(struct sl_read *c, const struct sl_ynode *jobspec, struct sl_batch *b)
{
	const struct sl_ynode *mode = sl_ymap_get(jobspec, "completionMode");
	if (sl_ynull(mode))
		return;
	if (sl_yis(mode, "Indexed"))
		b->indexed = true;
	else if (!sl_yis(mode, "NonIndexed"))
		sl_read_error(c, mode, "completionMode must be NonIndexed or Indexed");
	if (b->indexed && !b->completions_node)
		sl_read_error(c, mode,
			      "completionMode Indexed needs spec.completions (the API server rejects an Indexed Job "
			      "without it)");
}

void sl_job_read(struct sl_read *c, const struct sl_ynode *cron, const struct sl_ynode *jobspec, struct sl_workload *w)
{
	struct sl_batch *b = w->batch ? w->batch : (w->batch = sl_xmalloc(sizeof *b));
	*b = (struct sl_batch){.is = true, .parallelism = 1, .completions = -1, .jobs = 1};
	/* The CronJob's own suspend stops new runs; its jobTemplate's creates every Job suspended. */
	if (cron && (b->suspend_node = sl_read_suspend(c, cron, "spec.suspend")))
		b->suspend_path = "spec.suspend";
	bool par = sl_read_count(c, jobspec, "parallelism", &b->parallelism, &b->parallelism_node);
	bool com = sl_read_count(c, jobspec, "completions", &b->completions, &b->completions_node);
	if (!par && !com)
		b->completions = 1;
	read_mode(c, jobspec, b);
	const struct sl_ynode *js =
	    sl_read_suspend(c, jobspec, cron ? "spec.jobTemplate.spec.suspend" : "spec.suspend");
	if (js && !b->suspend_node) {
		b->suspend_node = js;
		b->suspend_path = cron ? "spec.jobTemplate.spec.suspend" : "spec.suspend";
	}
	/* manageJob: a work queue keeps parallelism pods; otherwise at most what is left to complete. */
	bool capped = b->completions >= 0 && b->completions < b->parallelism;
	w->replicas = capped ? b->completions : b->parallelism;
	w->replicas_node = capped ? b->completions_node : b->parallelism_node;
	b->total = b->completions >= 0 ? b->completions : b->parallelism;
}
