/* hostport-rollout — more pods bind the same host port than there are nodes to bind it on.
 *
 * NodePorts admits one pod per node for a given (hostIP, protocol, hostPort), with 0.0.0.0
 * conflicting with every address. The workload's pods all ask for the same ports, so at most one
 * of them runs per admissible node; replicas beyond that stay Pending. (With nodes, the rollout's
 * surge pod meeting the same wall is reported by rollout-deadlock.)
 *
 * Without nodes, a template pinned by hostname (nodeSelector, node affinity In lists or
 * matchFields metadata.name) admits at most as many nodes as it names: more replicas
 * never run, and exactly that many with maxUnavailable 0 leave no node for the surge pod.
 *
 * A DaemonSet that surges (updateStrategy.rollingUpdate.maxSurge > 0, so maxUnavailable 0)
 * starts each updated pod on the node of the old one, pinned there by the controller's node
 * affinity on metadata.name, and deletes the old pod only once the new one is available. With a
 * host port the old pod holds it, the new pod fails NodePorts on the only node it may use, and
 * the rollout stops on its first batch: on every cluster, so with or without nodes. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "edits.h"
#include "rules.h"

static const char *pinned_by(const struct sl_podspec *p)
{
	bool sel = sl_labels_get(&p->node_selector, "kubernetes.io/hostname") != NULL;
	if (sel && p->has_required_affinity)
		return "its nodeSelector and required node affinity";
	return sel ? "its nodeSelector" : "its required node affinity";
}

static void note_nodes(struct sl_finding *f, const struct sl_podspec *p, const struct sl_domains *d)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_domains_format(d, &b);
	size_t n = d->nvals + d->nnames;
	sl_note(f, "%s admits only the node%s %s%s: at most %zu node%s in any cluster, no inventory needed",
		pinned_by(p), n == 1 ? "" : "s", d->nvals ? "with kubernetes.io/hostname " : "", b.s, n,
		n == 1 ? "" : "s");
	sl_note(f,
		"NodePorts admits one pod per node for host port %lld/%s (hostIP %s), and every pod of the template "
		"asks for it",
		(long long)p->ports[0].port, p->ports[0].proto, p->ports[0].ip);
	sl_buf_free(&b);
	if (p->node_selector_node)
		sl_add_related(f, &p->node_selector_node->at, "the nodeSelector that pins the nodes");
	if (p->affinity_node)
		sl_add_related(f, &p->affinity_node->at, "the required node affinity that pins the nodes");
}

/* More replicas than the n nodes the template admits: n run, the rest stay Pending. */
static void report_more_than_nodes(const struct sl_rule *self, struct sl_check *cx, const struct sl_domains *d,
				   int64_t n)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	char ref[512], rest[48];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (w->replicas - n == 1)
		snprintf(rest, sizeof rest, "pod stays");
	else
		snprintf(rest, sizeof rest, "%lld pods stay", (long long)(w->replicas - n));
	struct sl_finding *f = sl_rule_report(self, cx, p->ports[0].node,
					      "only %lld of the %lld replicas of %s can run at once: each node binds "
					      "host port %lld/%s for one pod only, and %s admits only %lld node%s",
					      (long long)n, (long long)w->replicas, ref, (long long)p->ports[0].port,
					      p->ports[0].proto, pinned_by(p), (long long)n, n == 1 ? "" : "s");
	sl_note(f, "replicas %lld%s", (long long)w->replicas, w->replicas_node ? "" : " (defaulted)");
	note_nodes(f, p, d);
	sl_note(f,
		"the other %s Pending: every admitted node fails NodePorts (node(s) didn't have "
		"free ports for the requested pod ports)",
		rest);
	bool deadlocks = sl_surge_only_at(w, n);
	sl_note(f,
		"fix: drop hostPort (use a Service, or hostNetwork only where it is needed), run it as a "
		"DaemonSet, admit more nodes, or lower replicas to %lld%s",
		(long long)n,
		deadlocks ? " (and roll with maxSurge: 0, maxUnavailable: 1: at that count no surge pod fits)" : "");
	sl_fix_lower_replicas(f, w, n, "the nodes the template admits", deadlocks, "no node for a surge pod");
}

/* Exactly as many replicas as admitted nodes, rolling with maxUnavailable 0: the old pods hold
 * the port on every node, so the surge pod has nowhere to go and no old pod leaves first. */
static void report_rollout_stuck(const struct sl_rule *self, struct sl_check *cx, const struct sl_domains *d,
				 int64_t surge, int64_t unavail)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	char ref[512], olds[48], u[32];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (w->replicas == 1)
		snprintf(olds, sizeof olds, "its old pod");
	else
		snprintf(olds, sizeof olds, "its %lld old pods", (long long)w->replicas);
	sl_intpct_format(&w->max_unavailable, u, sizeof u);
	struct sl_finding *f =
	    sl_rule_report(self, cx, p->ports[0].node,
			   "rollout of %s can never finish: %s hold%s host port %lld/%s on every node the "
			   "template admits, and maxUnavailable %s%s, so no old pod goes before a new one is Ready",
			   ref, olds, w->replicas == 1 ? "s" : "", (long long)p->ports[0].port, p->ports[0].proto, u,
			   w->max_unavailable.percent ? " resolves to 0" : "");
	sl_note_rollout(f, w, w->replicas, surge, unavail);
	note_nodes(f, p, d);
	sl_note(f, "fix: set strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (an old pod goes first, then its "
		   "replacement takes its node), or use strategy type Recreate");
	sl_relate_strategy(f, w);
	sl_fix_rolling_params(sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace one pod at a time)"), w,
			      "0", "1");
	sl_fix_recreate(sl_fix_new(f, "Use the Recreate strategy (all old pods stop before new ones start)"), w);
}

/* Without nodes: a template pinned by hostname admits at most the n nodes it names, one pod of
 * it each (the docs page's "Without a node inventory"): more replicas, or exactly n rolling with
 * maxUnavailable 0, is proved on every cluster. */
static void check_static(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	if (!p->nports || w->replicas == 0 || !sl_long_running(w->obj.kind))
		return;
	struct sl_domains d;
	sl_static_domains(p, "kubernetes.io/hostname", &d);
	int64_t n = (int64_t)(d.nvals + d.nnames), surge, unavail;
	sl_fenceposts(w, &surge, &unavail);
	bool rolling = w->strategy == SL_STRATEGY_ROLLING && surge > 0 && unavail == 0;
	/* No node at all is contradictory-node-constraints'; the same count under a self-selecting
	 * hostname anti-affinity term is anti-affinity-vs-node-affinity's. */
	bool proved = d.bounded && n > 0 && (w->replicas > n || (w->replicas == n && rolling)) &&
		      !sl_self_hostname_term(p, p->anti, p->nanti, w->replicas == n);
	if (proved && w->replicas > n)
		report_more_than_nodes(self, cx, &d, n);
	else if (proved)
		report_rollout_stuck(self, cx, &d, surge, unavail);
	sl_domains_free(&d);
}

static void check_daemonset(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	const struct sl_ynode *su, *un, *type;
	if (!p->nports || !sl_daemonset_surges(w, cx->model->kube.minor, &su, &un, &type))
		return;
	/* With nodes: only when some node runs its pods (no pod, nothing to roll). */
	if (cx->a && cx->a->nfeasible == 0 && cx->a->steady_placed == 0)
		return;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	const struct sl_hostport *hp = &p->ports[0];
	struct sl_finding *f =
	    sl_rule_report(self, cx, su,
			   "rollout of %s can never finish: maxSurge %s starts each updated pod on its node beside the "
			   "old one, which holds host port %lld/%s, so the new pod never schedules, and with "
			   "maxUnavailable %s the old pod goes only once its replacement is available",
			   ref, su->str, (long long)hp->port, hp->proto, un->str);
	sl_note(f, "updateStrategy RollingUpdate%s, maxSurge %s%s, maxUnavailable %s",
		sl_ynull(type) ? " (defaulted)" : "", su->str,
		su->str[su->len - 1] == '%' ? " (of the nodes it runs on, rounded up: at least 1 pod)" : "", un->str);
	sl_note(f, "the DaemonSet controller pins the surge pod to the old pod's node (node affinity on "
		   "metadata.name), and there NodePorts rejects it: node(s) didn't have free ports for the "
		   "requested pod ports; preemption cannot help, the old pod has the same priority");
	sl_note(f, "this holds on every node that runs one of its pods, for every update that keeps the port");
	sl_note(f, "fix: set updateStrategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (the old pod stops first, "
		   "then its replacement binds the port), or use updateStrategy type OnDelete");
	sl_add_related(f, &hp->node->at, "host port %lld/%s", (long long)hp->port, hp->proto);
	struct sl_fix *fx = sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace the pod in place)");
	sl_fix_replace(fx, w->obj.src, su, "0");
	sl_fix_replace(fx, w->obj.src, un, "1");
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_podspec *p = &cx->w->pod;
	if (!strcmp(cx->w->obj.kind, "DaemonSet")) {
		check_daemonset(self, cx);
		return;
	}
	if (!cx->a) {
		check_static(self, cx);
		return;
	}
	if (!p->nports || !sl_shortfall_is(cx, SL_CAUSE_PORTS))
		return;
	char why[256];
	snprintf(why, sizeof why, "each node binds host port %lld/%s for one pod only", (long long)p->ports[0].port,
		 p->ports[0].proto);
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_PORTS, p->ports[0].node, why);
	if (!f)
		return;
	if (sl_in_waves(cx->w)) /* no replicas to lower: waves.c */
		sl_note_waves_fix(f, cx->w, cx->a->steady_placed,
				  "drop hostPort (use a Service) or add nodes the template admits");
	else
		sl_note(f, "fix: drop hostPort (use a Service, or hostNetwork only where it is needed), run it as a "
			   "DaemonSet, or lower replicas to the number of nodes it admits");
	sl_relate_nodes(f, cx->model, cx->a, true);
}

const struct sl_rule sl_rule_hostport_rollout = {
    .id = "hostport-rollout",
    .name = "HostPortLimitsReplicas",
    .summary = "Host ports allow one pod per node, and the workload asks for more pods than admissible nodes.",
    .description = "Every pod of the template binds the same host port, so NodePorts admits at most one per node. "
		   "With more replicas (or replicas plus the rollout's surge) than nodes the template admits, "
		   "the remaining pods stay Pending. Without a node inventory, a template pinned by hostname "
		   "(nodeSelector, node affinity, matchFields) admits at most the nodes it names, which "
		   "proves the same shortfall, and the rollout deadlock of a Deployment with exactly that many "
		   "replicas and maxUnavailable 0. A DaemonSet that surges (maxSurge above 0) starts each new pod "
		   "beside the old one on its node, where the old pod holds the port: its rollout never "
		   "finishes, on any cluster.",
    .help = "Drop `hostPort` and expose the pods through a Service, run the workload as a DaemonSet, or keep "
	    "`replicas` at or below the number of admissible nodes and roll with `maxSurge: 0, maxUnavailable: 1`. "
	    "A DaemonSet with a host port rolls in place: `maxSurge: 0, maxUnavailable: 1`, or `OnDelete`.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
