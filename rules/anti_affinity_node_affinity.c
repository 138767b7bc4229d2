/* anti-affinity-vs-node-affinity — required anti-affinity needs more topology domains than the
 * nodes the template admits provide.
 *
 * A self-selecting required anti-affinity term puts at most one pod per domain of its
 * topologyKey; nodeSelector / node affinity (and taints) decide which domains exist for the
 * pod. With more replicas than admitted domains, the rest stay Pending whatever the order.
 *
 * Without nodes the count of domains comes from the template alone: when every node it admits
 * must carry the key with one of a few listed values, there are at most that many domains in
 * any cluster. That also proves the rollout deadlock of a Deployment whose replicas fill every
 * domain while maxUnavailable is 0 (with nodes, rollout-deadlock reports that one). */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "edits.h"
#include "rules.h"

/* Workloads whose pods stay up: a Job's surplus pods run once others complete. */
static size_t ndomains(const struct sl_domains *d)
{
	return d->nvals + d->nnames;
}

/* "its nodeSelector and required node affinity", naming what bounds key. */
static const char *bounded_by(const struct sl_podspec *p, const char *key)
{
	bool sel = sl_labels_get(&p->node_selector, key) != NULL;
	if (sel && p->has_required_affinity)
		return "its nodeSelector and required node affinity";
	return sel ? "its nodeSelector" : "its required node affinity";
}

static void relate_constraints(struct sl_finding *f, const struct sl_podspec *p)
{
	if (p->node_selector_node)
		sl_add_related(f, &p->node_selector_node->at, "the nodeSelector that limits the domains");
	if (p->affinity_node)
		sl_add_related(f, &p->affinity_node->at, "the required node affinity that limits the domains");
}

static void note_domains(struct sl_finding *f, const struct sl_podspec *p, const struct sl_podterm *t,
			 const struct sl_domains *d)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_domains_format(d, &b);
	size_t n = ndomains(d);
	sl_note(f,
		"the term selects the template's own pods (namespace %s), so no two of them share a %s domain; "
		"nodes without the label would escape it, but the template admits none",
		p->namespace, t->topology_key);
	if (d->nnames && !d->nvals)
		sl_note(f, "%s admits only the node%s %s: at most %zu domain%s in any cluster, no inventory needed",
			bounded_by(p, t->topology_key), n == 1 ? "" : "s", b.s, n, n == 1 ? "" : "s");
	else
		sl_note(f, "%s admits %s %s only: at most %zu domain%s in any cluster, no inventory needed",
			bounded_by(p, t->topology_key), t->topology_key, b.s, n, n == 1 ? "" : "s");
	sl_buf_free(&b);
}

static void report_shortfall(const struct sl_rule *self, struct sl_check *cx, const struct sl_podterm *t,
			     const struct sl_domains *d)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	int64_t n = (int64_t)ndomains(d);
	char ref[512], rest[48];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (w->replicas - n == 1)
		snprintf(rest, sizeof rest, "pod stays");
	else
		snprintf(rest, sizeof rest, "%lld pods stay", (long long)(w->replicas - n));
	struct sl_finding *f = sl_rule_report(
	    self, cx, t->node ? t->node : p->anti_terms_node,
	    "only %lld of the %lld replicas of %s can run at once: required pod anti-affinity allows one pod per %s, "
	    "and %s admits only %lld %s",
	    (long long)n, (long long)w->replicas, ref, t->topology_key, bounded_by(p, t->topology_key), (long long)n,
	    d->nnames && !d->nvals ? (n == 1 ? "node" : "nodes")
				   : (n == 1 ? "value of that key" : "values of that key"));
	sl_note(f, "replicas %lld%s", (long long)w->replicas, w->replicas_node ? "" : " (defaulted)");
	note_domains(f, p, t, d);
	sl_note(f,
		"the other %s Pending: every admitted node fails InterPodAffinity (node(s) didn't "
		"match pod anti-affinity rules)",
		rest);
	/* At exactly n replicas a surge pod has no domain left: with maxUnavailable resolving to 0
	 * every rollout would deadlock, so the fix also replaces one pod at a time. */
	bool deadlocks = !sl_term_per_replicaset(t) && sl_surge_only_at(w, n);
	sl_note(f,
		"fix: lower replicas to %lld%s, admit more %s values, or make the term preferred "
		"(preferredDuringSchedulingIgnoredDuringExecution)",
		(long long)n,
		deadlocks ? " (and roll with maxSurge: 0, maxUnavailable: 1: at that count no surge pod fits)" : "",
		t->topology_key);
	relate_constraints(f, p);
	sl_fix_lower_replicas(f, w, n, "the domains the template admits", deadlocks, "no domain for a surge pod");
}

static void report_deadlock(const struct sl_rule *self, struct sl_check *cx, const struct sl_podterm *t,
			    const struct sl_domains *d, int64_t surge, int64_t unavail)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	char ref[512], u[32], olds[48];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (w->replicas == 1)
		snprintf(olds, sizeof olds, "its old pod");
	else
		snprintf(olds, sizeof olds, "its %lld old pods", (long long)w->replicas);
	sl_intpct_format(&w->max_unavailable, u, sizeof u);
	struct sl_finding *f = sl_rule_report(
	    self, cx, t->node ? t->node : p->anti_terms_node,
	    "rollout of %s can never finish: %s fill%s every %s domain the template admits, required "
	    "pod anti-affinity keeps the surge pod out of each, and maxUnavailable %s%s, so no old pod goes before a "
	    "new one is Ready",
	    ref, olds, w->replicas == 1 ? "s" : "", t->topology_key, u,
	    w->max_unavailable.percent ? " resolves to 0" : "");
	sl_note_rollout(f, w, w->replicas, surge, unavail);
	note_domains(f, p, t, d);
	sl_note(f,
		"the term has no matchLabelKeys: [pod-template-hash] in effect, so it selects the old pods as well as "
		"the new ones: every admitted domain holds a pod that repels the surge pod");
	bool label_keys_fix = sl_note_match_label_keys(f, t, cx->model->kube.minor);
	sl_note(f,
		"fix: set strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (an old pod goes first, then its "
		"replacement takes its domain)%s",
		label_keys_fix ? ", or add matchLabelKeys: [pod-template-hash] to the term" : "");
	sl_relate_strategy(f, w);
	relate_constraints(f, p);
	sl_fix_rolling_params(sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace one pod at a time)"), w,
			      "0", "1");
	if (label_keys_fix) {
		const struct sl_yentry e = {"matchLabelKeys", "[pod-template-hash]", NULL, 0};
		sl_fix_insert(sl_fix_new(f, "Add matchLabelKeys: [pod-template-hash] to the anti-affinity term, so it "
					    "only repels pods of the same ReplicaSet"),
			      w->obj.src, t->node, NULL, &e, 1);
	}
}

static void check_static(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	if (!p->nanti || w->replicas == 0 || !sl_long_running(w->obj.kind))
		return;
	int64_t surge, unavail;
	sl_fenceposts(w, &surge, &unavail);
	bool rolling = w->strategy == SL_STRATEGY_ROLLING && surge > 0 && unavail == 0;
	/* The fewest domains any self-selecting term leaves bound the replicas; the rollout needs a
	 * term that also repels the other ReplicaSet's pods. */
	const struct sl_podterm *few = NULL, *lock = NULL;
	struct sl_domains fd = {0}, ld = {0};
	for (size_t i = 0; i < p->nanti; i++) {
		const struct sl_podterm *t = &p->anti[i];
		if (!t->topology_key || !sl_podterm_matches(t, p->namespace, &p->labels, p->namespace, &p->labels))
			continue;
		struct sl_domains d;
		sl_static_domains(p, t->topology_key, &d);
		size_t n = ndomains(&d);
		if (!d.bounded || n == 0) { /* no node at all is contradictory-node-constraints' */
			sl_domains_free(&d);
			continue;
		}
		if (!few || n < ndomains(&fd)) {
			sl_domains_free(&fd);
			few = t;
			fd = d;
		} else if (!lock && rolling && !sl_term_per_replicaset(t) && (int64_t)n == w->replicas) {
			lock = t;
			ld = d;
		} else
			sl_domains_free(&d);
	}
	if (few && w->replicas > (int64_t)ndomains(&fd))
		report_shortfall(self, cx, few, &fd);
	else if (few && rolling && !sl_term_per_replicaset(few) && (int64_t)ndomains(&fd) == w->replicas)
		report_deadlock(self, cx, few, &fd, surge, unavail);
	else if (lock)
		report_deadlock(self, cx, lock, &ld, surge, unavail);
	sl_domains_free(&fd);
	sl_domains_free(&ld);
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	if (!cx->a) {
		check_static(self, cx);
		return;
	}
	if (!sl_shortfall_is(cx, SL_CAUSE_ANTI))
		return;
	const struct sl_podspec *p = &cx->w->pod;
	const struct sl_ynode *at = p->anti_terms_node;
	const char *key = p->nanti ? p->anti[0].topology_key : "its topology key";
	char why[512];
	if (p->nanti)
		snprintf(
		    why, sizeof why,
		    "required pod anti-affinity allows one pod per %s, and the nodes the template admits offer no more",
		    key);
	else
		snprintf(why, sizeof why,
			 "the required anti-affinity of pods already running keeps it off the other "
			 "nodes the template admits");
	struct sl_finding *f = sl_report_shortfall(self, cx, SL_CAUSE_ANTI, at, why);
	if (!f)
		return;
	if (p->node_selector_node)
		sl_add_related(f, &p->node_selector_node->at, "the nodeSelector that limits the domains");
	if (p->affinity_node)
		sl_add_related(f, &p->affinity_node->at, "the required node affinity that limits the domains");
	if (p->nanti && sl_in_waves(cx->w)) /* no replicas to lower: waves.c */
		sl_note_waves_fix(f, cx->w, cx->a->steady_placed,
				  "make the anti-affinity term preferred or admit more nodes");
	else if (p->nanti && strcmp(key, "kubernetes.io/hostname"))
		sl_note(f,
			"fix: lower replicas to the number of domains, admit more nodes, use a topology key with more "
			"domains (kubernetes.io/hostname rather than %s), or make the term preferred "
			"(preferredDuringSchedulingIgnoredDuringExecution)",
			key);
	else if (p->nanti)
		sl_note(f, "fix: lower replicas to the number of nodes it admits, admit more nodes, or make the term "
			   "preferred (preferredDuringSchedulingIgnoredDuringExecution)");
	else
		sl_note(f, "fix: the running pods' anti-affinity terms select this workload's labels: narrow their "
			   "selectors, or admit more nodes");
	sl_relate_nodes(f, cx->model, cx->a, true);
}

const struct sl_rule sl_rule_anti_affinity_vs_node_affinity = {
    .id = "anti-affinity-vs-node-affinity",
    .name = "AntiAffinityNeedsMoreDomains",
    .summary = "Required pod anti-affinity needs more topology domains than the admitted nodes offer.",
    .description = "The template's required anti-affinity keeps its pods in distinct domains of the topology key, "
		   "and the nodes its nodeSelector, node affinity and tolerations admit (with what already runs "
		   "there) offer fewer domains than `replicas`. Without a node inventory, the nodeSelector and "
		   "required node affinity alone can bound the topology key to a few listed values: more replicas "
		   "than values never run, and a Deployment with exactly that many replicas and maxUnavailable 0 "
		   "can never finish a rollout.",
    .help = "Lower `replicas`, admit more nodes, choose a topology key with more domains, or make the term "
	    "preferred instead of required. For the rollout: roll with `maxSurge: 0` and `maxUnavailable: 1`, or "
	    "add `matchLabelKeys: [pod-template-hash]` to the term (Kubernetes 1.31 and later).",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
