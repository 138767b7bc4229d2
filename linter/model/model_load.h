/* model_load.h — between model.c (an object's reader by its kind, the parts merged) and
 * model_parse.c (the sources parsed on two threads, each into a part of the model of its own):
 * nothing else includes it (model.h is the API). */
#ifndef SL_MODEL_LOAD_H
#define SL_MODEL_LOAD_H
#include "../load/input.h"
#include "../load/yamldoc.h"
#include "model.h"

/* The paths of an inventory's objects the model reads (sl_yaml_parse_keep); NULL for manifests. */
const char *const *sl_model_keep_paths(enum sl_input_role role);
/* The objects of one document of src (a List's items, each) into part; -1 after an input error. */
int sl_model_load_doc(struct sl_model *part, const struct sl_source *src, struct sl_findings *errs,
		      const struct sl_ynode *root, enum sl_input_role role);
/* Whether sl_model_load_doc reads root as a List (a kind ending in "List"): then what it loads is
 * its items' objects, each read alone, which sl_model_load_items loads from any run of them. */
bool sl_model_is_list(const struct sl_source *src, const struct sl_ynode *root);
int sl_model_load_items(struct sl_model *part, const struct sl_source *src, struct sl_findings *errs,
			const struct sl_ynode *items, enum sl_input_role role);
/* Append what part holds (NULL: nothing) to m and free part, as if part's objects had been loaded
 * into m one after another: a node named again replaces the earlier one in its place. */
void sl_model_merge(struct sl_model *m, struct sl_model *part);

#endif
