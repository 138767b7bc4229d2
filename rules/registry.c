/* registry.c — the one table of rules. Adding a rule: its file, its docs page, its fixtures and
 * one line here. */
#include <string.h>

#include "rules.h"

extern const struct sl_rule sl_rule_rollout_deadlock;
extern const struct sl_rule sl_rule_unschedulable;

const struct sl_rule *const sl_rules[] = {
    &sl_rule_rollout_deadlock,
    &sl_rule_unschedulable,
};
const unsigned sl_nrules = sizeof sl_rules / sizeof sl_rules[0];

const struct sl_rule *sl_rule_find(const char *id)
{
	for (unsigned i = 0; i < sl_nrules; i++)
		if (!strcmp(sl_rules[i]->id, id))
			return sl_rules[i];
	return NULL;
}
