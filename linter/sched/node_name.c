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

bool sl_judged_by_class(const struct sl_podspec *p)
{
	if (p->node_name || sl_labels_get(&p->node_selector, "kubernetes.io/hostname"))
		return false;
	for (size_t t = 0; t < p->nterms; t++) {
		if (p->terms[t].nfields)
			return false;
		for (size_t e = 0; e < p->terms[t].nexprs; e++)
			if (!strcmp(p->terms[t].exprs[e].key, "kubernetes.io/hostname"))
				return false;
	}
	return true;
}
