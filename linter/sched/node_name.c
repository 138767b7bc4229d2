/* NodeName (pkg/scheduler/framework/plugins/nodename): a pod with spec.nodeName goes to that node
 * only. */
#include <string.h>

#include "plugin.h"
#include "status.h"

bool sl_node_name_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	if (!cy->p->node_name || !strcmp(cy->p->node_name, cy->m->nodes[node]->name))
		return true;
	if (out)
		sl_nodefit_fail(out, SL_PL_NODE_NAME, "node(s) didn't match the requested node name");
	return false;
}
