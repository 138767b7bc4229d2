/* hpa.h — autoscalers among the inputs, HorizontalPodAutoscalers and KEDA ScaledObjects: the
 * workload each scales and the range it keeps its replicas in. An autoscaler is one allocation
 * (free()); it points into the tree. */
#ifndef SL_HPA_H
#define SL_HPA_H
#include <stdint.h>

#include "../load/yamldoc.h"

struct sl_source;

/* An autoscaler among the inputs whose spec.scaleTargetRef names the object it scales (in its own
 * namespace), and the range it keeps spec.replicas in. */
struct sl_hpa {
	const char *what;           /* "HorizontalPodAutoscaler" or "ScaledObject", for messages */
	const struct sl_ynode *ref; /* spec.scaleTargetRef */
	const char *namespace, *kind, *name;
	/* A HorizontalPodAutoscaler: minReplicas (1 when unset) to maxReplicas (INT32_MAX when unset).
	 * A ScaledObject: minReplicaCount (0 when unset; idleReplicaCount when that is lower) to
	 * maxReplicaCount (100 when unset), KEDA's defaults. */
	int64_t min, max;
};

/* The autoscaler at n (any mapping: a document, or an item of one's `items`), or NULL when n is
 * none or its scaleTargetRef names no kind and name (it scales nothing the rules could find; a
 * ScaledObject's kind defaults to Deployment). */
struct sl_hpa *sl_hpa_read(const struct sl_source *src, const struct sl_ynode *n);

#endif
