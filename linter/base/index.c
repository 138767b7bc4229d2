/* index.c — string-keyed groups (see index.h). */
#include "index.h"

#include <stdlib.h>
#include <string.h>

struct sl_group_pair {
	size_t group, item;
};

void sl_group_add_to(struct sl_group_builder *b, size_t group, size_t item)
{
	sl_grow(&b->v, &b->cap, b->n + 1, sizeof *b->v);
	b->v[b->n++] = (struct sl_group_pair){group, item};
}

void sl_group_reserve(struct sl_group_builder *b, size_t keys, size_t pairs)
{
	sl_strpool_reserve(&b->gi->keys, keys);
	sl_grow(&b->v, &b->cap, b->n + pairs, sizeof *b->v);
}

size_t sl_group_add(struct sl_group_builder *b, const char *key, size_t item)
{
	size_t g = sl_intern_id(&b->gi->keys, key);
	sl_group_add_to(b, g, item);
	return g;
}

void sl_group_finish(struct sl_group_builder *b)
{
	struct sl_group_index *gi = b->gi;
	size_t ng = gi->keys.n;
	gi->start = sl_xcalloc(ng + 2, sizeof *gi->start);
	gi->items = sl_xcalloc(b->n + 1, sizeof *gi->items);
	for (size_t k = 0; k < b->n; k++)
		gi->start[b->v[k].group + 2]++;
	for (size_t g = 2; g < ng + 2; g++)
		gi->start[g] += gi->start[g - 1];
	for (size_t k = 0; k < b->n; k++) /* stable: items stay in the order they were added */
		gi->items[gi->start[b->v[k].group + 1]++] = b->v[k].item;
	gi->ng = ng;
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
}

/* The pairs of b by group, in the order added: group g's items are at[g] .. at[g + 1] - 1. */
static size_t *pairs_by_group(const struct sl_group_builder *b, size_t ng, size_t **at)
{
	size_t *s = sl_xcalloc(ng + 2, sizeof *s), *v = sl_xmalloc((b->n + 1) * sizeof *v); /* every one written */
	for (size_t k = 0; k < b->n; k++)
		s[b->v[k].group + 2]++;
	for (size_t g = 2; g < ng + 2; g++)
		s[g] += s[g - 1];
	for (size_t k = 0; k < b->n; k++)
		v[s[b->v[k].group + 1]++] = b->v[k].item;
	*at = s;
	return v;
}

/* sl_group_merge with no pair added: the items renumbered where they are, and the groups whose
 * keys were interned since laid out empty. */
static void renumber(struct sl_group_index *gi, const size_t *remap)
{
	size_t ng = gi->keys.n, old = gi->start ? gi->ng : 0, n = old ? gi->start[old] : 0;
	for (size_t k = 0; k < n; k++)
		gi->items[k] = remap[gi->items[k]];
	if (!gi->items)
		gi->items = sl_xcalloc(1, sizeof *gi->items); /* as a merge makes it: never a null base */
	if (ng == old && gi->start)
		return;
	gi->start = sl_xrealloc(gi->start, (ng + 2) * sizeof *gi->start);
	if (!old)
		gi->start[0] = 0;
	for (size_t g = old; g <= ng; g++)
		gi->start[g + 1] = n;
	gi->ng = ng;
}

void sl_group_merge(struct sl_group_builder *b, const size_t *remap)
{
	struct sl_group_index *gi = b->gi;
	if (!b->n) { /* most groupings gain nothing in a refresh (those of anti-affinity) */
		renumber(gi, remap);
		free(b->v);
		b->v = NULL;
		b->cap = 0;
		return;
	}
	size_t ng = gi->keys.n, old = gi->start ? gi->ng : 0, *at;
	size_t *added = pairs_by_group(b, ng, &at);
	/* Every element written below: no zeroing. */
	size_t *start = sl_xmalloc((ng + 2) * sizeof *start);
	size_t *items = sl_xmalloc((b->n + (old ? gi->start[old] : 0) + 1) * sizeof *items), n = 0;
	start[0] = 0;
	for (size_t g = 0; g < ng; g++) {
		/* Two increasing lists merged: the renumbered items and the ones added. Most groups
		 * gain nothing in a refresh: theirs are only renumbered. */
		size_t i = g < old ? gi->start[g] : 0, ie = g < old ? gi->start[g + 1] : 0;
		size_t j = at[g], je = at[g + 1];
		while (i < ie && j < je)
			items[n++] = remap[gi->items[i]] < added[j] ? remap[gi->items[i++]] : added[j++];
		for (; i < ie; i++)
			items[n++] = remap[gi->items[i]];
		for (; j < je; j++)
			items[n++] = added[j];
		start[g + 1] = n;
	}
	start[ng + 1] = n;
	free(added);
	free(at);
	free(gi->start);
	free(gi->items);
	gi->start = start;
	gi->items = items;
	gi->ng = ng;
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
}

const char *sl_group_key(struct sl_buf *b, const char *a, const char *x, const char *y)
{
	/* The parts measured once and copied into room made once: this runs for every label of
	 * every pod indexed. */
	size_t la = strlen(a), lx = strlen(x), ly = y ? strlen(y) : 0;
	sl_buf_reset(b);
	char *p = sl_buf_room(b, la + 1 + lx + (y ? 1 + ly : 0));
	memcpy(p, a, la);
	p[la] = '\x1f';
	memcpy(p + la + 1, x, lx);
	if (y) {
		p[la + 1 + lx] = '\x1f';
		memcpy(p + la + 2 + lx, y, ly);
	}
	return sl_buf_str(b);
}

const size_t *sl_group_get(const struct sl_group_index *gi, const char *key, size_t *n)
{
	size_t g = sl_strmap_get(&gi->keys.map, key);
	if (g == (size_t)-1 || !gi->start) {
		*n = 0;
		return NULL;
	}
	*n = gi->start[g + 1] - gi->start[g];
	return gi->items + gi->start[g];
}

void sl_group_clear(struct sl_group_index *gi)
{
	free(gi->start);
	free(gi->items);
	gi->start = gi->items = NULL;
	gi->ng = 0;
}

void sl_group_free(struct sl_group_index *gi)
{
	sl_strpool_free(&gi->keys);
	sl_group_clear(gi);
}
