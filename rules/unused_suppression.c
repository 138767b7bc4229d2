/* unused_suppression.c — a suppression comment or annotation that silenced no finding. It has
 * no check of its own: linter/config/suppress.c reports it once every rule has run, since only then is
 * it known what each suppression matched. */
#include "rules.h"

const struct sl_rule sl_rule_unused_suppression = {
    .id = "unused-suppression",
    .name = "UnusedSuppression",
    .summary = "a schedlint-ignore comment or schedlint.io/ignore annotation that matched no finding",
    .description = "A suppression in the manifest (the annotation schedlint.io/ignore, a `# schedlint-ignore:` "
		   "comment or a `# schedlint-ignore-document:` comment) names a rule that ran on the object, the "
		   "line or the document and reported nothing there, or names no rule at all. A suppression "
		   "whose rule is off, or needs nodes where none were given, is not judged.",
    .help = "Remove the suppression, or the rule ids it no longer needs (--fix does so for comments), or "
	    "correct a misspelt rule id.",
    .level = SL_NOTE,
    .needs_nodes = false,
    .check = NULL,
};
