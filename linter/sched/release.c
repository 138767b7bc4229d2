/* release.c — what the release view (rules/release_capacity.c) asks of the engine: the node
 * classes of the cluster index (nodes the node-only filters judge alike, unless a pod names nodes:
 * sl_judged_by_class). */
#include <string.h>

#include "../base/buf.h"
#include "cluster.h"

size_t sl_cluster_nclasses(const struct sl_cluster *cl)
{
	return cl->ncls;
}

size_t sl_cluster_class(const struct sl_cluster *cl, size_t node)
{
	return cl->cls[node];
}

void sl_each_running(const struct sl_cluster *cl, const char *ns, const struct sl_selector *sel,
		     void (*fn)(void *ctx, const struct sl_pod *p, size_t node), void *ctx)
{
	struct sl_buf scratch = SL_BUF_INIT;
	size_t n;
	const size_t *ks = sl_running_for(cl, ns, false, sel, &scratch, &n);
	sl_buf_free(&scratch);
	for (size_t j = 0; j < n; j++) {
		const struct sl_pod *p = cl->pods[ks[j]];
		if (!strcmp(p->spec.namespace, ns) && sl_selector_matches(sel, &p->spec.labels))
			fn(ctx, p, cl->pod_node[ks[j]]);
	}
}

void sl_each_running_pod(const struct sl_cluster *cl, void (*fn)(void *ctx, const struct sl_pod *p, size_t node),
			 void *ctx)
{
	for (size_t k = 0; k < cl->npods; k++)
		fn(ctx, cl->pods[k], cl->pod_node[k]);
}
