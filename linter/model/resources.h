/* resources.h — resource amounts by name in the scheduler's units (cpu in milli-units, the rest
 * in whole units): a pod's request, a node's allocatable and the load on it. Names and nodes
 * point into the YAML trees; a list owns its array (sl_res_free). */
#ifndef SL_RESOURCES_H
#define SL_RESOURCES_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sl_buf;
struct sl_ynode;
struct sl_read;

struct sl_res {
	const char *name;
	int64_t amount;
	const struct sl_ynode *node; /* where it was written, when it was */
};
/* 16 bytes, not 24: every pod spec holds three (a list has a few entries, never 2^32). */
struct sl_reslist {
	struct sl_res *v;
	uint32_t n, cap;
};
/* Inline: asked some 200,000 times in a corpus run (every resource of every pod and node the
 * engine compares), of lists of a few entries, with names mostly known when compiled. The first
 * byte rules out most names (cpu, memory, ephemeral-storage, pods, a domain's) without a call. */
static inline const struct sl_res *sl_res_find(const struct sl_reslist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].name[0] == name[0] && !strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}
static inline int64_t sl_res_get(const struct sl_reslist *l, const char *name)
{
	const struct sl_res *r = sl_res_find(l, name);
	return r ? r->amount : 0;
}
void sl_res_add(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node);
void sl_res_max(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node);
void sl_res_free(struct sl_reslist *l);
/* Append l's amounts in the units a person reads ("cpu 2050m, memory 2208Mi") to b. */
void sl_res_describe(struct sl_buf *b, const struct sl_reslist *l);

/* Add the amounts of a ResourceList mapping m (requests, limits, overhead, a Node's
 * allocatable) at path to out; an amount that is not a quantity the API server keeps is an
 * input error (c: model_read.h). m NULL: nothing. */
/* One amount of resource name at v (a quota), as sl_read_reslist reads each; -1 after an input
 * error at v (path names where it is). */
int sl_read_amount(struct sl_read *c, const struct sl_ynode *v, const char *name, const char *path, int64_t *out);
void sl_read_reslist(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_reslist *out);

#endif
