/* hpa.h — HorizontalPodAutoscalers among the inputs: the workload each scales and the range it
 * keeps its replicas in. An autoscaler is one allocation (free()); it points into the tree. */
#ifndef SL_HPA_H
#define SL_HPA_H
#include <stdint.h>

#include "yamldoc.h"

struct sl_source;

/* A HorizontalPodAutoscaler among the inputs whose spec.scaleTargetRef names a kind and a name:
 * the object it scales (in its own namespace) and the range it keeps spec.replicas in. */
struct sl_hpa {
	const struct sl_ynode *ref; /* spec.scaleTargetRef */
	const char *namespace, *kind, *name;
	int64_t min, max; /* minReplicas (1 when unset), maxReplicas (INT32_MAX when unset) */
};

/* The autoscaler at n (any mapping: a document, or an item of one's `items`), or NULL when n is
 * none or its scaleTargetRef names no kind and name (it scales nothing the rules could find). */
struct sl_hpa *sl_hpa_read(const struct sl_source *src, const struct sl_ynode *n);

#endif
