/* hpa.c — reading a HorizontalPodAutoscaler (see hpa.h). */
#include "hpa.h"

#include <stdint.h>

#include "buf.h"
#include "object.h"

struct sl_hpa *sl_hpa_read(const struct sl_source *src, const struct sl_ynode *n)
{
	if (!n || n->kind != SL_YMAP || !sl_yis(sl_ymap_get(n, "kind"), "HorizontalPodAutoscaler"))
		return NULL;
	const struct sl_ynode *ref = sl_ypath(n, "spec.scaleTargetRef");
	const struct sl_ynode *kind = sl_ymap_get(ref, "kind"), *name = sl_ymap_get(ref, "name");
	if (!sl_yscalar(kind) || !sl_yscalar(name))
		return NULL;
	struct sl_object o;
	sl_object_read(src, n, &o);
	struct sl_hpa *h = sl_xcalloc(1, sizeof *h);
	*h = (struct sl_hpa){ref, o.namespace, kind->str, name->str, 1, INT32_MAX};
	int64_t v;
	if (sl_yint(sl_ypath(n, "spec.minReplicas"), &v) == 0)
		h->min = v;
	if (sl_yint(sl_ypath(n, "spec.maxReplicas"), &v) == 0)
		h->max = v;
	return h;
}
