/* policy.h — the team's own checks from the config: a PCRE2 pattern over one field of each
 * object (see config.h for how a policy is written). A policy is a rule in every respect but its
 * origin: its findings carry its rule record, its level and [id]. */
#ifndef SL_POLICY_H
#define SL_POLICY_H

#include "../model/k8s.h"
#include "config.h"

/* Check every policy that is on against manifest object o; findings go to out, a match that
 * stops at a PCRE2 limit is an input error in errs. */
void sl_policies_check(struct sl_config *c, const struct sl_object *o, struct sl_findings *out,
		       struct sl_findings *errs);
/* Whether a policy that is on reads o; whether one looks key up (its field names it). */
bool sl_policies_read(const struct sl_config *c, const struct sl_object *o);
bool sl_policies_read_key(const struct sl_config *c, const char *key);

#endif
