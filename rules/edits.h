/* edits.h — the edits a rule's fix is made of, as byte edits on the original text: entries
 * inserted into a mapping at the file's own indentation and line ending (block style) or as flow
 * entries ({…}, JSON), scalars replaced in place, so comments and formatting elsewhere stay
 * untouched. They live with the rules, which alone make fixes; the fix stage (linter/fix/)
 * applies them. */
#ifndef SL_EDITS_H
#define SL_EDITS_H
#include <stddef.h>

#include "../linter/load/yamldoc.h"
#include "../linter/model/k8s.h"
#include "../linter/base/diag.h"

/* A mapping entry to insert: a scalar value, or nested entries. */
struct sl_yentry {
	const char *key;
	const char *val; /* NULL: kids */
	const struct sl_yentry *kids;
	size_t nkids;
};

/* Insert entries into mapping `map` of src, before key node `before` (NULL: the first key). */
void sl_fix_insert(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *map,
		   const struct sl_ynode *before, const struct sl_yentry *e, size_t n);
/* Replace a node's text. */
void sl_fix_replace(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *node, const char *text);
/* Make a Deployment's strategy RollingUpdate with the given maxSurge / maxUnavailable, editing
 * what is written and inserting what is not. */
void sl_fix_rolling_params(struct sl_fix *fx, const struct sl_workload *w, const char *surge, const char *unavail);
/* Make a Deployment's strategy Recreate (dropping rollingUpdate, which Recreate forbids). */
void sl_fix_recreate(struct sl_fix *fx, const struct sl_workload *w);

#endif
