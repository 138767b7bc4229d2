/* daemonset.c — where a DaemonSet runs and whether a surge fits beside it.
 *
 * The DaemonSet controller decides the nodes (NodeShouldRunDaemonPod and predicates in
 * pkg/controller/daemon/daemon_controller.go): the template's nodeName, its nodeSelector and
 * required node affinity, and the NoSchedule / NoExecute taints of the node, which its pods
 * tolerate with what the controller adds to them (AddOrUpdateDaemonPodTolerations in
 * pkg/controller/daemon/util): not-ready and unreachable (NoExecute), disk-, memory- and
 * pid-pressure and unschedulable (NoSchedule), and network-unavailable under hostNetwork. A
 * cordon keeps no DaemonSet pod off its node.
 *
 * A surging update (maxSurge above 0, maxUnavailable 0) creates each node's new pod beside the old
 * one, pinned to that node, and deletes the old pod only once the new one is available: a node
 * without room for a second pod of the template keeps its old pod for ever. One second pod, whatever
 * maxSurge is: rollingUpdate in pkg/controller/daemon/update.go keeps at most one old and one new
 * pod per node, and maxSurge bounds how many nodes surge at once (numSurge against maxSurge), not
 * the pods on one node. */
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "cluster.h"
#include "plugin.h"

static const struct sl_toleration daemon_tolerations[] = {
    {"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", NULL},
    {"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", NULL},
    {"node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule", NULL},
    {"node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule", NULL},
    {"node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule", NULL},
    {"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule", NULL},
    /* Added only to pods on the host's network. */
    {"node.kubernetes.io/network-unavailable", "Exists", "", "NoSchedule", NULL},
};

static bool daemon_tolerates(const struct sl_podspec *p, const struct sl_taint *t)
{
	size_t n = sizeof daemon_tolerations / sizeof *daemon_tolerations - !p->host_network;
	for (size_t i = 0; i < n; i++)
		if (sl_tolerates(&daemon_tolerations[i], t))
			return true;
	return sl_pod_tolerates(p, t);
}

bool sl_daemon_runs_on(const struct sl_podspec *p, const struct sl_node *n)
{
	if (p->node_name && *p->node_name && strcmp(p->node_name, n->name))
		return false;
	if (!sl_node_affinity_matches(p, n))
		return false;
	for (size_t i = 0; i < n->ntaints; i++) {
		const struct sl_taint *t = &n->taints[i];
		if ((!strcmp(t->effect, "NoSchedule") || !strcmp(t->effect, "NoExecute")) && !daemon_tolerates(p, t))
			return false;
	}
	return true;
}

void sl_daemon_pod(const struct sl_podspec *p, struct sl_podspec *out)
{
	*out = *p;
	size_t n = sizeof daemon_tolerations / sizeof *daemon_tolerations - !p->host_network;
	out->tols = sl_xcalloc(p->ntols + n + 1, sizeof *out->tols);
	if (p->ntols)
		memcpy(out->tols, p->tols, p->ntols * sizeof *out->tols);
	memcpy(out->tols + p->ntols, daemon_tolerations, n * sizeof *out->tols);
	out->ntols = p->ntols + n;
}

/* The DaemonSet's own running pods per node: in its namespace, selected by its selector, with the
 * controller-revision-hash label its controller gives them. */
int64_t sl_daemon_own_pods(const struct sl_cluster *cl, const struct sl_workload *w, int64_t *per_node)
{
	struct sl_buf scratch = SL_BUF_INIT;
	size_t nk;
	const size_t *ks = sl_running_for(cl, w->pod.namespace, false, &w->sel, &scratch, &nk);
	sl_buf_free(&scratch);
	int64_t n = 0;
	for (size_t j = 0; j < nk; j++) {
		const struct sl_podspec *q = &cl->pods[ks[j]]->spec;
		if (strcmp(q->namespace, w->pod.namespace) || !sl_labels_get(&q->labels, "controller-revision-hash") ||
		    !sl_selector_matches(&w->sel, &q->labels))
			continue;
		per_node[cl->pod_node[ks[j]]]++;
		n++;
	}
	return n;
}

void sl_daemon_view(const struct sl_cluster *cl, const struct sl_workload *w, struct sl_daemon_view *v)
{
	memset(v, 0, sizeof *v);
	size_t n = cl->n;
	int64_t *own = sl_xcalloc(n + 1, sizeof *own);
	v->own_running = sl_daemon_own_pods(cl, w, own);
	struct sl_nodefit pass;
	sl_nodefit_clear(&pass);
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sl_node *nd = cl->m->nodes[i];
		if (!sl_daemon_runs_on(&w->pod, nd))
			continue;
		const char *limit;
		int64_t room = sl_node_slots(&w->pod, nd, &pass, &limit);
		/* Where its pod runs, it is in the node's load already; where none of its pods is known
		 * to run (no running pods given, or not deployed yet), the old pod is assumed wherever
		 * one fits. A node without its pod while others have one: that pod is Pending, and an
		 * update creates the new pod there without a surge. */
		bool here = own[i] > 0;
		if (!here && (v->own_running > 0 || room < 1))
			continue;
		v->nruns++;
		int64_t second = here ? room : room - 1;
		if (second >= 1)
			continue;
		sl_grow(&v->blocked, &cap, v->nblocked + 1, sizeof *v->blocked);
		v->blocked[v->nblocked++] = (struct sl_daemon_room){i, here ? own[i] : 1, limit, here};
	}
	free(own);
}

void sl_daemon_view_free(struct sl_daemon_view *v)
{
	if (v->fit)
		v->free_fit(v->fit);
	free(v->blocked);
	memset(v, 0, sizeof *v);
}
