/* NodePorts (pkg/scheduler/framework/plugins/nodeports): a host port the pod wants is taken on
 * the node. */
#include <string.h>

#include "plugin.h"
#include "status.h"

/* NodePorts: a wanted port conflicts with one in use for the same protocol and port when either
 * address is the wildcard or both are the same. */
static bool ports_conflict(const struct sl_hostport *want, const struct sl_hostport *used)
{
	if (want->port != used->port || strcmp(want->proto, used->proto))
		return false;
	return !strcmp(want->ip, "0.0.0.0") || !strcmp(used->ip, "0.0.0.0") || !strcmp(want->ip, used->ip);
}

/* Whether a port in want[0 .. nwant) conflicts with one in used[0 .. nused). */
static bool any_conflict(const struct sl_hostport *want, size_t nwant, const struct sl_hostport *used, size_t nused)
{
	for (size_t a = 0; a < nwant; a++)
		for (size_t b = 0; b < nused; b++)
			if (ports_conflict(&want[a], &used[b]))
				return true;
	return false;
}

bool sl_ports_conflict(const struct sl_hostport *want, size_t nwant, const struct sl_hostport *used, size_t nused)
{
	return any_conflict(want, nwant, used, nused);
}

bool sl_node_ports_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_podspec *p = cy->p;
	if (!p->nports)
		return true;
	/* Every placed pod of the workload binds the same ports. */
	bool taken = cy->placed[node] && any_conflict(p->ports, p->nports, p->ports, p->nports);
	const struct sl_cluster *cl = cy->cl;
	for (size_t k = cl->pod_start[node]; cl->port_pods[node] && k < cl->pod_start[node + 1] && !taken; k++)
		taken = any_conflict(p->ports, p->nports, cl->pods[k]->spec.ports, cl->pods[k]->spec.nports);
	if (taken && out)
		sl_nodefit_fail(out, SL_PL_NODE_PORTS, "node(s) didn't have free ports for the requested pod ports");
	return !taken;
}

bool sl_node_ports_idle(const struct sl_cycle *cy)
{
	return !cy->p->nports;
}
