/* vcjob.h — Volcano Jobs (kind Job of the batch.volcano.sh API group, not batch/v1): each
 * spec.tasks[] entry is read as a workload of its own named "<job>-<task>" (the prefix of the pods
 * the job controller creates), located at its entry, of `replicas` pods at once; together they
 * are one gang, the PodGroup the job controller makes with minMember = the Job's minAvailable and
 * each task's minAvailable as its minTaskMember (a gang.h group of flavor SL_GANG_VCJOB). Findings
 * about a task keep the Job as their subject. The workloads and the group go to the model. */
#ifndef SL_VCJOB_H
#define SL_VCJOB_H
#include <stdbool.h>

struct sl_model;
struct sl_object;
struct sl_read;

/* kind Job of the batch.volcano.sh API group. */
bool sl_vcjob_kind(const struct sl_object *o);
/* Read Volcano Job o's tasks into the model's workloads and, when Volcano schedules them, its gang
 * into the model's PodGroups. Returns -1 after an input error, with nothing kept. */
int sl_vcjob_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m);

#endif
