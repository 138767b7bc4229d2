/* resources.h — resource amounts by name in the scheduler's units (cpu in milli-units, the rest
 * in whole units): a pod's request, a node's allocatable and the load on it. Names and nodes
 * point into the YAML trees; a list owns its array (sl_res_free). */
#ifndef SL_RESOURCES_H
#define SL_RESOURCES_H
#include <stddef.h>
#include <stdint.h>

struct sl_ynode;
struct sl_read;

struct sl_res {
	const char *name;
	int64_t amount;
	const struct sl_ynode *node; /* where it was written, when it was */
};
struct sl_reslist {
	struct sl_res *v;
	size_t n, cap;
};
int64_t sl_res_get(const struct sl_reslist *l, const char *name);
const struct sl_res *sl_res_find(const struct sl_reslist *l, const char *name);
void sl_res_add(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node);
void sl_res_max(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node);
void sl_res_free(struct sl_reslist *l);

/* Add the amounts of a ResourceList mapping m (requests, limits, overhead, a Node's
 * allocatable) at path to out; an amount that is not a quantity the API server keeps is an
 * input error (c: model_read.h). m NULL: nothing. */
void sl_read_reslist(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_reslist *out);

#endif
