/* hostport-rollout — more pods bind the same host port than there are nodes to bind it on.
 *
 * NodePorts admits one pod per node for a given (hostIP, protocol, hostPort), with 0.0.0.0
 * conflicting with every address. The workload's pods all ask for the same ports, so at most one
 * of them runs per admissible node; replicas beyond that stay Pending. (The rollout's surge pod
 * meeting the same wall is reported by rollout-deadlock.) */
#include <stdio.h>

#include "rules.h"

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_podspec *p = &cx->w->pod;
	if (!p->nports)
		return;
	char why[256];
	snprintf(why, sizeof why, "each node binds host port %lld/%s for one pod only", (long long)p->ports[0].port,
		 p->ports[0].proto);
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_PORTS, p->ports[0].node, why);
	if (!f)
		return;
	sl_note(f, "fix: drop hostPort (use a Service, or hostNetwork only where it is needed), run it as a DaemonSet, "
		   "or lower replicas to the number of nodes it admits");
	sl_relate_nodes(f, cx->model, cx->a, true);
}

const struct sl_rule sl_rule_hostport_rollout = {
    .id = "hostport-rollout",
    .name = "HostPortLimitsReplicas",
    .summary = "Host ports allow one pod per node, and the workload asks for more pods than admissible nodes.",
    .description = "Every pod of the template binds the same host port, so NodePorts admits at most one per node. "
		   "With more replicas (or replicas plus the rollout's surge) than nodes the template admits, "
		   "the remaining pods stay Pending.",
    .help = "Drop `hostPort` and expose the pods through a Service, run the workload as a DaemonSet, or keep "
	    "`replicas` at or below the number of admissible nodes and roll with `maxSurge: 0, maxUnavailable: 1`.",
    .level = SL_ERROR,
    .needs_nodes = true,
    .check = check,
};
