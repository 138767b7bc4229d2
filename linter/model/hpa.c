/* hpa.c — reading a HorizontalPodAutoscaler or a KEDA ScaledObject (see hpa.h). */
#include "hpa.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../base/buf.h"
#include "object.h"

/* KEDA's ScaledObject (keda.sh/v1alpha1): scaleTargetRef.kind defaults to Deployment, the range
 * to minReplicaCount 0 .. maxReplicaCount 100; with no trigger active it scales to
 * idleReplicaCount when that is set (below the minimum). */
static bool keda(const struct sl_ynode *n)
{
	const struct sl_ynode *api = sl_ymap_get(n, "apiVersion");
	return sl_yis(sl_ymap_get(n, "kind"), "ScaledObject") && sl_yscalar(api) && !strncmp(api->str, "keda.sh/", 8);
}

struct sl_hpa *sl_hpa_read(const struct sl_source *src, const struct sl_ynode *n)
{
	if (!n || n->kind != SL_YMAP)
		return NULL;
	bool scaled = keda(n);
	if (!scaled && !sl_yis(sl_ymap_get(n, "kind"), "HorizontalPodAutoscaler"))
		return NULL;
	const struct sl_ynode *ref = sl_ypath(n, "spec.scaleTargetRef");
	const struct sl_ynode *kind = sl_ymap_get(ref, "kind"), *name = sl_ymap_get(ref, "name");
	const char *k = sl_yscalar(kind) ? kind->str : scaled && sl_ynull(kind) ? "Deployment" : NULL;
	if (!k || !sl_yscalar(name))
		return NULL;
	struct sl_object o;
	sl_object_read(src, n, &o);
	struct sl_hpa *h = sl_xcalloc(1, sizeof *h);
	*h = (struct sl_hpa){scaled ? "ScaledObject" : "HorizontalPodAutoscaler",
			     ref,
			     o.namespace,
			     k,
			     name->str,
			     scaled ? 0 : 1,
			     scaled ? 100 : INT32_MAX};
	int64_t v;
	if (sl_yint(sl_ypath(n, scaled ? "spec.minReplicaCount" : "spec.minReplicas"), &v) == 0)
		h->min = v;
	if (sl_yint(sl_ypath(n, scaled ? "spec.maxReplicaCount" : "spec.maxReplicas"), &v) == 0)
		h->max = v;
	if (scaled && sl_yint(sl_ypath(n, "spec.idleReplicaCount"), &v) == 0 && v < h->min)
		h->min = v;
	return h;
}
