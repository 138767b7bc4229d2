/* jobset.h — JobSets (jobset.x-k8s.io): each spec.replicatedJobs[] entry is `replicas` Jobs made
 * from one Job template, and is read as a workload of its own named "<jobset>-<replicatedJob>"
 * (the prefix of the Jobs the JobSet controller creates), located at its entry, whose pods at once
 * are replicas × its Job's min(parallelism, completions). Findings about it keep the JobSet as
 * their subject (its suppression annotation and the config's ignore entries apply). The workloads
 * made are the caller's (sl_workload_free). */
#ifndef SL_JOBSET_H
#define SL_JOBSET_H
#include <stdbool.h>
#include <stddef.h>

struct sl_object;
struct sl_read;
struct sl_workload;

/* kind JobSet of the jobset.x-k8s.io API group. */
bool sl_jobset_kind(const struct sl_object *o);
/* Read the replicatedJobs of JobSet o: *out (malloc'd, *n entries; NULL when none) holds one
 * workload per entry. Returns -1 after an input error, with nothing kept. */
int sl_jobset_read(struct sl_read *c, const struct sl_object *o, struct sl_workload ***out, size_t *n);

#endif
