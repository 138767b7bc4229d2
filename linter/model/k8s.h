/* k8s.h — the model, all of it, for code that reads the model as a whole (the engine, the rules,
 * the tests): typed views over the YAML tree, one header per concern. Strings and node pointers
 * point into the YAML streams, which the model owns; the model owns every array (model.h).
 *
 * The model stage (linter/model/): typed objects over the trees, one file per kind or concern,
 * quantities, labels and selectors, the relations between objects (relate.c) and the Kubernetes
 * release's view of them (kversion.c). May include: base/ and load/; never the engine or anything
 * above it. */
#ifndef SL_K8S_H
#define SL_K8S_H
#include <stdbool.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/index.h" /* items grouped under string keys */
#include "../load/yamldoc.h"
#include "../base/diag.h"
#include "dra.h"       /* Dynamic Resource Allocation: classes, claims, templates, slices */
#include "gang.h"      /* Volcano PodGroups, Kueue queues */
#include "gates.h"     /* feature gates */
#include "hpa.h"       /* HorizontalPodAutoscalers */
#include "kgang.h"     /* Kubernetes' own gangs: scheduling.k8s.io Workloads */
#include "job.h"       /* Jobs: parallelism, completions, suspension */
#include "jobset.h"    /* JobSets: each replicatedJob a workload */
#include "labels.h"    /* labels, selectors and their matching */
#include "model.h"     /* the model: loading, binding, freeing */
#include "namespace.h" /* Namespaces */
#include "node.h"      /* Nodes and running Pods */
#include "nodepool.h"  /* node pools: Karpenter NodePools and the config's node groups */
#include "object.h"    /* an object's identity, the objects of a document */
#include "pdb.h"       /* PodDisruptionBudgets */
#include "priority.h"  /* PriorityClasses and pods' priorities */
#include "podspec.h"   /* the pod spec: requests, node affinity, pod terms, spread, ports, volumes */
#include "pvc.h"       /* PersistentVolumeClaims */
#include "quota.h"     /* ResourceQuotas and what pods charge to them */
#include "relate.h"    /* the relations between objects */
#include "resources.h" /* resource amounts */
#include "workload.h"  /* workloads and their rollout parameters */

#endif
