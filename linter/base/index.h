/* index.h — items grouped under string keys, built once and read many times, so that a relation
 * between objects (the running pods a selector can select, the budgets that select a workload,
 * the claim a volume names) costs a lookup rather than a scan of every object per object.
 * Owns: its keys (interned) and its arrays. */
#ifndef SL_INDEX_H
#define SL_INDEX_H
#include <stddef.h>

#include "buf.h"

/* Items (indexes into some array) under string keys, an item possibly under several, as CSR
 * arrays: the items of group g are items[start[g]] .. items[start[g + 1] - 1], in the order they
 * were added; keys.v[g] is its key. */
struct sl_group_index {
	struct sl_strpool keys;
	size_t *start;
	size_t *items;
	size_t ng; /* the groups laid out in start (keys interned since have none yet) */
};

struct sl_group_pair;
struct sl_group_builder {
	struct sl_group_index *gi;
	struct sl_group_pair *v;
	size_t n, cap;
};

/* item under key; returns the key's group, under which sl_group_add_to adds more items without
 * looking the key up again. */
size_t sl_group_add(struct sl_group_builder *b, const char *key, size_t item);
void sl_group_add_to(struct sl_group_builder *b, size_t group, size_t item);
/* Room for keys keys in all and pairs more pairs, made at once, when the builder's caller knows
 * (at most) how many: no rehash or regrowth as it fills. */
void sl_group_reserve(struct sl_group_builder *b, size_t keys, size_t pairs);
/* Lay the pairs added out into b->gi, which is then read-only (and safe to share across threads). */
void sl_group_finish(struct sl_group_builder *b);
/* The pairs added laid out into b->gi among the items it holds, those renumbered by remap (old item
 * → new item, increasing): each group's items in increasing order, as sl_group_finish makes them
 * when every item is added in increasing order. The pairs of each group must come increasing. */
void sl_group_merge(struct sl_group_builder *b, const size_t *remap);
/* A key of several parts, "a\x1fx" or "a\x1fx\x1fy" (y NULL: two parts), into b: the indexes'
 * keys are built for every label of every pod and workload, so without printf. */
const char *sl_group_key(struct sl_buf *b, const char *a, const char *x, const char *y);
/* The items under key (none when the key is unknown). */
const size_t *sl_group_get(const struct sl_group_index *gi, const char *key, size_t *n);
void sl_group_free(struct sl_group_index *gi);
/* The items gone, the keys kept: groups added again keep their numbers. */
void sl_group_clear(struct sl_group_index *gi);

#endif
