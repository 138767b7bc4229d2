/* yarena.c — the arena of YAML trees (see yarena.h). */
#include "yarena.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/buf.h"

/* Bump allocation from a list of chunks that double from 64 KiB to SL_HUGE_MIN, so a small
 * manifest stays small and a large inventory fills huge pages (larger requests get a chunk of
 * their own). A spare chunk (a dropped document's) is taken before a new one. */
static void *chunk_alloc(struct sl_arena_chunk **list, struct sl_arena_chunk **spare, size_t first, size_t n)
{
	struct sl_arena_chunk *c = *list;
	if ((!c || c->cap - c->used < n) && *spare && (*spare)->cap >= n) {
		c = *spare;
		*spare = c->next;
		c->used = 0;
		c->next = *list;
		*list = c;
	} else if (!c || c->cap - c->used < n) {
		size_t cap = c ? 2 * (sizeof *c + c->cap) : first ? first : 65536;
		if (cap >= SL_HUGE_MIN)
			cap = SL_HUGE_MIN;
		cap -= sizeof *c;
		if (cap < n)
			cap = n;
		c = sizeof *c + cap >= SL_HUGE_MIN ? sl_huge_alloc(sizeof *c + cap) : sl_xmalloc(sizeof *c + cap);
		c->used = 0;
		c->cap = cap;
		c->next = *list;
		*list = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static void chunks_free(struct sl_arena_chunk **list)
{
	while (*list) {
		struct sl_arena_chunk *c = *list;
		*list = c->next;
		if (sizeof *c + c->cap >= SL_HUGE_MIN)
			sl_huge_free(c, sizeof *c + c->cap);
		else
			free(c);
	}
}

void *sl_yarena_alloc_slow(struct sl_yarena *a, int k, size_t n)
{
	return chunk_alloc(&a->list[k], &a->spare[k], a->first, n);
}

struct sl_yarena_mark sl_yarena_mark(const struct sl_yarena *a)
{
	struct sl_yarena_mark m;
	for (int k = 0; k < 2; k++) {
		m.chunk[k] = a->list[k];
		m.used[k] = a->list[k] ? a->list[k]->used : 0;
	}
	return m;
}

void sl_yarena_rewind(struct sl_yarena *a, const struct sl_yarena_mark *m)
{
	for (int k = 0; k < 2; k++) {
		while (a->list[k] != m->chunk[k]) {
			struct sl_arena_chunk *c = a->list[k];
			a->list[k] = c->next;
			c->next = a->spare[k];
			a->spare[k] = c;
		}
		if (a->list[k])
			a->list[k]->used = m->used[k];
	}
}

void sl_yarena_spares_free(struct sl_yarena *a)
{
	chunks_free(&a->spare[0]);
	chunks_free(&a->spare[1]);
}

void sl_yarena_trim(struct sl_yarena *a)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int k = 0; k < 2 && page; k++) {
		struct sl_arena_chunk *c = a->list[k];
		if (!c || sizeof *c + c->cap < SL_HUGE_MIN)
			continue; /* malloc's: its pages are not this arena's to give back */
		uintptr_t from = ((uintptr_t)c->data + c->used + page - 1) & ~(page - 1);
		uintptr_t to = ((uintptr_t)c->data + c->cap) & ~(page - 1);
		if (from < to)
			madvise((void *)from, to - from, MADV_DONTNEED); /* advice: kept as they are if refused */
	}
}

void sl_yarena_free(struct sl_yarena *a)
{
	chunks_free(&a->list[0]);
	chunks_free(&a->list[1]);
	sl_yarena_spares_free(a);
}
