/* registry.c — the one table of rules. Adding a rule: its file, its docs page, its fixtures and
 * one line here. */
#include <string.h>

#include "rules.h"

extern const struct sl_rule sl_rule_rollout_deadlock;
extern const struct sl_rule sl_rule_unschedulable;
extern const struct sl_rule sl_rule_insufficient_capacity;
extern const struct sl_rule sl_rule_topology_spread_unsatisfiable;
extern const struct sl_rule sl_rule_hostport_rollout;
extern const struct sl_rule sl_rule_anti_affinity_vs_node_affinity;
extern const struct sl_rule sl_rule_contradictory_node_constraints;
extern const struct sl_rule sl_rule_affinity_contradiction;
extern const struct sl_rule sl_rule_selector_mismatch;
extern const struct sl_rule sl_rule_invalid_rollout_params;
extern const struct sl_rule sl_rule_extended_resource_mismatch;
extern const struct sl_rule sl_rule_pdb_blocks_eviction;
extern const struct sl_rule sl_rule_rwo_volume_rollout;
extern const struct sl_rule sl_rule_probe_port_mismatch;
extern const struct sl_rule sl_rule_release_capacity;
extern const struct sl_rule sl_rule_unused_suppression;
extern const struct sl_rule sl_rule_preemption_required;
extern const struct sl_rule sl_rule_unknown_priority_class;
extern const struct sl_rule sl_rule_daemonset_no_nodes;
extern const struct sl_rule sl_rule_never_admitted;
extern const struct sl_rule sl_rule_limitrange_violation;
extern const struct sl_rule sl_rule_quota_exceeded;

const struct sl_rule *const sl_rules[] = {
    &sl_rule_rollout_deadlock,
    &sl_rule_unschedulable,
    &sl_rule_insufficient_capacity,
    &sl_rule_release_capacity,
    &sl_rule_preemption_required,
    &sl_rule_daemonset_no_nodes,
    &sl_rule_topology_spread_unsatisfiable,
    &sl_rule_anti_affinity_vs_node_affinity,
    &sl_rule_hostport_rollout,
    &sl_rule_contradictory_node_constraints,
    &sl_rule_affinity_contradiction,
    &sl_rule_selector_mismatch,
    &sl_rule_invalid_rollout_params,
    &sl_rule_extended_resource_mismatch,
    &sl_rule_pdb_blocks_eviction,
    &sl_rule_rwo_volume_rollout,
    &sl_rule_probe_port_mismatch,
    &sl_rule_unused_suppression,
    &sl_rule_unknown_priority_class,
    &sl_rule_never_admitted,
    &sl_rule_limitrange_violation,
    &sl_rule_quota_exceeded,
};
const unsigned sl_nrules = sizeof sl_rules / sizeof sl_rules[0];

const struct sl_rule *sl_rule_find(const char *id)
{
	for (unsigned i = 0; i < sl_nrules; i++)
		if (!strcmp(sl_rules[i]->id, id))
			return sl_rules[i];
	return NULL;
}
