/* release.c — what the release view (rules/release_capacity.c) asks of the engine: the node
 * classes of the cluster index (nodes the node-only filters judge alike, unless a pod names nodes:
 * sl_judged_by_class). */
#include "cluster.h"

size_t sl_cluster_nclasses(const struct sl_cluster *cl)
{
	return cl->ncls;
}

size_t sl_cluster_class(const struct sl_cluster *cl, size_t node)
{
	return cl->cls[node];
}
