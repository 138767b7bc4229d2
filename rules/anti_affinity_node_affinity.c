/* anti-affinity-vs-node-affinity — required anti-affinity needs more topology domains than the
 * nodes the template admits provide.
 *
 * A self-selecting required anti-affinity term puts at most one pod per domain of its
 * topologyKey; nodeSelector / node affinity (and taints) decide which domains exist for the
 * pod. With more replicas than admitted domains, the rest stay Pending whatever the order. */
#include <stdio.h>
#include <string.h>

#include "rules.h"

static void check(const struct sl_rule *self, struct sl_check *cx)
{
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
	if (p->nanti && strcmp(key, "kubernetes.io/hostname"))
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
		   "there) offer fewer domains than `replicas`.",
    .help = "Lower `replicas`, admit more nodes, choose a topology key with more domains, or make the term "
	    "preferred instead of required.",
    .level = SL_ERROR,
    .needs_nodes = true,
    .check = check,
};
