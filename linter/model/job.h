/* job.h — work that runs to completion: a Job's (a CronJob's run's, a JobSet's replicatedJob's)
 * parallelism, completions, completion mode and suspension, as the Job controller reads them
 * (pkg/controller/job: manageJob keeps min(parallelism, completions - succeeded) pods active, or
 * parallelism for a work queue, which has no completions). Pods that do not fit at once wait
 * Pending and start as others complete, so such work runs in waves rather than failing — unless
 * it needs all its pods at once (sl_workload.all_at_once). Nothing here is owned: the nodes point
 * into the tree. */
#ifndef SL_JOB_H
#define SL_JOB_H
#include <stdbool.h>
#include <stdint.h>

#include "../load/yamldoc.h"

struct sl_read;
struct sl_workload;

struct sl_batch {
	bool is;      /* the pods run to completion: a Job, a CronJob's Job, a JobSet's replicatedJob */
	bool indexed; /* completionMode: Indexed */
	/* A JobSet's replicatedJob (member below) that starts only after an earlier one is ready
	 * (startupPolicy InOrder, or dependsOn). (The flags side by side: padding after each would
	 * weigh a fifth of the struct.) */
	bool ordered;
	int64_t parallelism; /* of one Job, as the API server defaults it (1) */
	int64_t completions; /* of one Job; -1: unset with parallelism set, a work queue */
	int64_t jobs;        /* Jobs made from the template: a replicatedJob's replicas; 1 otherwise */
	int64_t total;       /* pods the work takes in all, without retries: jobs × completions */
	const struct sl_ynode *parallelism_node, *completions_node, *jobs_node;
	/* A `suspend: true` that holds the pods back (the Job's, the CronJob's or its jobTemplate's,
	 * the JobSet's), and the path it was read at; NULL: not suspended. */
	const struct sl_ynode *suspend_node;
	const char *suspend_path;
	const char *member; /* a JobSet's replicatedJob: its name (and ordered above) */
};

/* What a workload that runs no Job reads as its batch (sl_wbatch): every field zero. */
extern const struct sl_batch sl_batch_none;

/* An int32 at map.key that must not be negative, as the API server validates counts; false when
 * absent, or after an input error at it. */
bool sl_read_count(struct sl_read *c, const struct sl_ynode *map, const char *key, int64_t *out,
		   const struct sl_ynode **node);
/* A boolean at map.suspend: the node when it is true; NULL when false or absent (path names it in
 * an input error). */
const struct sl_ynode *sl_read_suspend(struct sl_read *c, const struct sl_ynode *map, const char *path);

/* Job and CronJob (a JobSet is read by jobset.h). */
bool sl_job_kind(const char *kind);
/* Read a JobSpec (its parallelism, completions, completionMode, suspend) into w->batch, and set
 * w->replicas to the pods one Job keeps at once (min of parallelism and completions) and
 * w->replicas_node to what bounds them. cron: a CronJob's spec (its own suspend), or NULL. Input
 * errors at the offending node (c->failed set). */
void sl_job_read(struct sl_read *c, const struct sl_ynode *cron, const struct sl_ynode *jobspec, struct sl_workload *w);

#endif
