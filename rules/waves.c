/* waves.c — work that runs to completion (a Job, a CronJob's Jobs, a JobSet's replicatedJob):
 * what fewer pods fitting at once than it starts means for it, in the words every shortfall rule
 * uses. The Job controller creates its pods at once (manageJob: min(parallelism, completions
 * left), or parallelism for a work queue); those that do not fit wait Pending, and start as
 * running ones end, since the scheduler stops counting a pod that has succeeded or failed (its
 * informer leaves them out). So the work finishes, in waves: a warning, not a failure, unless the
 * pods are useful only together (sl_workload.all_at_once, set for gangs). Beside them, the note
 * on a suspended one.
 *
 * Only the model and the findings are used here: common.c, which reports the shortfalls, calls
 * in, and nothing here calls back. */
#include <stdio.h>
#include <string.h>

#include "rules.h"

bool sl_in_waves(const struct sl_workload *w)
{
	return sl_wbatch(w)->is && !w->all_at_once;
}

void sl_waves_format(const struct sl_workload *w, const char *ref, int64_t fit, char *out, unsigned n)
{
	int64_t total = sl_wbatch(w)->total, waves = fit > 0 ? (total + fit - 1) / fit : 0;
	snprintf(out, n, "%s%s runs %lld pod%s in %lld wave%s of %s%lld",
		 !strcmp(w->obj.kind, "CronJob") ? "each run of " : "", ref, (long long)total, total == 1 ? "" : "s",
		 (long long)waves, waves == 1 ? "" : "s", fit > 0 && total % fit ? "up to " : "", (long long)fit);
}

/* The Job's counts and what the controller makes of them: "parallelism 8, completions 8: ...". */
static void counts(const struct sl_batch *b, char *out, unsigned n)
{
	int64_t one = b->completions >= 0 && b->completions < b->parallelism ? b->completions : b->parallelism;
	if (b->completions < 0)
		snprintf(out, n,
			 "parallelism %lld and no completions: a work queue, for which the Job controller starts "
			 "parallelism pods at once and no new one after the first succeeds",
			 (long long)b->parallelism);
	else if (!b->parallelism_node && !b->completions_node)
		snprintf(out, n, "parallelism and completions 1 (both defaulted): one pod");
	else
		snprintf(out, n,
			 "parallelism %lld%s, completions %lld%s: the Job controller keeps at most min(parallelism, "
			 "completions not yet done) pods, %lld at first",
			 (long long)b->parallelism, b->parallelism_node ? "" : " (defaulted)",
			 (long long)b->completions, b->indexed ? " (Indexed: one pod per completion index)" : "",
			 (long long)one);
}

void sl_note_batch(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_batch *b = sl_wbatch(w);
	char c[320];
	counts(b, c, sizeof c);
	if (b->member)
		sl_note(
		    f,
		    "replicatedJob %s: %lld Job%s (replicas%s), each with %s; %lld pod%s at once, %lld in all, as the "
		    "JobSet controller creates its Jobs together",
		    b->member, (long long)b->jobs, b->jobs == 1 ? "" : "s", b->jobs_node ? "" : ", defaulted", c,
		    (long long)w->replicas, w->replicas == 1 ? "" : "s", (long long)b->total);
	else
		sl_note(f, "%s; %lld pod%s in all", c, (long long)b->total, b->total == 1 ? "" : "s");
	sl_note(f, "the pods that do not fit wait Pending and start as running ones end (the scheduler stops "
		   "counting a pod once it has succeeded or failed), so the work completes in waves; retries of "
		   "failed pods (backoffLimit) add to them");
	if (b->member)
		sl_note(f,
			"each replicatedJob is judged on its own: the pods of the JobSet's other replicatedJobs%s take "
			"room beside these, which is not counted here",
			b->ordered ? ", started before this one (startupPolicy InOrder or dependsOn) and still running,"
				   : "");
}

/* `together` is what to change if the pods are useful only all at once (a rule's own remedy for
 * its cause); NULL for resources: lower the requests or add nodes. */
void sl_note_waves_fix(struct sl_finding *f, const struct sl_workload *w, int64_t fit, const char *together)
{
	if (!together)
		together = "lower the requests or add nodes the template admits";
	if (sl_wbatch(w)->member)
		sl_note(f,
			"fix, if its pods must run together (they wait for each other): %s, or have a gang scheduler "
			"admit the JobSet whole; otherwise nothing is wrong: %lld at once is what the nodes hold",
			together, (long long)fit);
	else
		sl_note(f,
			"fix, if its pods must run together (they wait for each other): %s; otherwise nothing is "
			"wrong, and parallelism %lld makes the waves explicit (no pod waits Pending)",
			together, (long long)fit);
}

void sl_note_suspended(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_batch *b = sl_wbatch(w);
	/* A Job with Kueue's queue-name label is created suspended on purpose: Kueue resumes it when it
	 * admits it (never-admitted says when it never will), so its suspension says nothing new. */
	if (!b->suspend_node || sl_wgang(w)->queue_at)
		return;
	const char *k = w->obj.kind;
	if (!strcmp(k, "CronJob") && !strcmp(b->suspend_path, "spec.suspend"))
		sl_note(f,
			"the CronJob is suspended (spec.suspend: true): no run starts until it is resumed; judged as "
			"each run will be");
	else
		sl_note(f,
			"the %s is suspended (%s: true): %s until it is resumed (a queue such as Kueue resumes the "
			"Jobs it admits); judged as it will run then",
			!strcmp(k, "JobSet") ? "JobSet" : "Job", b->suspend_path,
			!strcmp(k, "CronJob") ? "each run's Job creates no pod" : "no pod is created");
	sl_add_related(f, &b->suspend_node->at, "suspended here");
}
