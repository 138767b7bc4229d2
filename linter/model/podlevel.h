/* podlevel.h — what the API server makes of two fields of a pod spec that act before the
 * scheduler: pod-level resources (spec.resources, PodLevelResources: alpha 1.32, beta and on by
 * default from 1.34), whose requests take the place of the containers' aggregate for the
 * resources they set, as resourcehelper.PodRequests computes a pod's request, and are validated
 * against the containers' as validatePodResources does; and scheduling gates
 * (spec.schedulingGates, beta and on from 1.27), which keep the pods out of the scheduler until a
 * controller removes them. Owns nothing: what it finds goes into the pod specs. */
#ifndef SL_PODLEVEL_H
#define SL_PODLEVEL_H

struct sl_findings;
struct sl_model;

/* The first minor release whose API server keeps spec.schedulingGates (PodSchedulingReadiness
 * beta, on by default). */
#define SL_KUBE_SCHEDULING_GATES 27

/* Apply both to every workload's template (input errors, warnings and notes into errs) and
 * pod-level resources to every running pod (silently: the cluster kept them), once the release
 * is chosen and before any RuntimeClass adds its overhead. */
void sl_podlevel_apply(struct sl_model *m, struct sl_findings *errs);

#endif
