/* NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable): a cordoned node takes
 * no new pod, unless the pod tolerates the taint the node lifecycle controller puts on it. */
#include "plugin.h"
#include "status.h"

bool sl_node_unschedulable_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	static const struct sl_taint unschedulable_taint = {"node.kubernetes.io/unschedulable", "", "NoSchedule", NULL};
	if (!cy->m->nodes[node]->unschedulable || sl_pod_tolerates(cy->p, &unschedulable_taint))
		return true;
	if (out)
		sl_nodefit_fail(out, SL_PL_NODE_UNSCHEDULABLE, "node(s) were unschedulable");
	return false;
}
