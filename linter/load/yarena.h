/* yarena.h — where YAML trees live: bump allocation in chunks that are freed together, nodes in
 * one list (pointer-aligned) and scalar text in another (packed), with marks to give back at once
 * what was allocated after one (a document dropped as it ends). Owns: its chunks. */
#ifndef SL_YARENA_H
#define SL_YARENA_H
#include <stddef.h>

/* A chunk: the arena's own, public only so that the bump below is inline. */
struct sl_arena_chunk {
	struct sl_arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};
struct sl_yarena {
	struct sl_arena_chunk *list[2];  /* [0] nodes, [1] scalar text */
	struct sl_arena_chunk *spare[2]; /* chunks given back, taken before new ones */
	/* The first chunk's size (0: 64 KiB). An arena of one small source, kept for long (a parse
	 * cache's), asks for less: thousands of them would each hold 128 KiB mostly empty. */
	size_t first;
};

/* What the two below do when the newest chunk of list k (0 nodes, 1 text) has no room. */
void *sl_yarena_alloc_slow(struct sl_yarena *a, int k, size_t n);

/* n bytes from the newest chunk of list k, when they fit: a parse makes a node (and most often a
 * text) per event, so the common case is a bump, not a call. */
static inline void *sl_yarena_bump(struct sl_yarena *a, int k, size_t n)
{
	struct sl_arena_chunk *c = a->list[k];
	if (!c || c->cap - c->used < n)
		return sl_yarena_alloc_slow(a, k, n);
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

/* n bytes for a node or an array of node pointers: pointer alignment is all they need (rounding
 * each node up to max_align_t would waste an eighth of the arena). */
static inline void *sl_yarena_node(struct sl_yarena *a, size_t n)
{
	return sl_yarena_bump(a, 0, (n + _Alignof(void *) - 1) / _Alignof(void *) * _Alignof(void *));
}

/* n bytes of text, unaligned: packing it saves a third of the arena on typical YAML. */
static inline char *sl_yarena_text(struct sl_yarena *a, size_t n)
{
	return sl_yarena_bump(a, 1, n);
}

/* Where an arena stood. */
struct sl_yarena_mark {
	struct sl_arena_chunk *chunk[2];
	size_t used[2];
};
struct sl_yarena_mark sl_yarena_mark(const struct sl_yarena *a);
/* Give back what was allocated since m; its chunks are kept as spares for what comes next. */
void sl_yarena_rewind(struct sl_yarena *a, const struct sl_yarena_mark *m);
void sl_yarena_spares_free(struct sl_yarena *a);
/* The pages of the newest huge chunks (sl_huge_alloc's) past what they hold, given back: a chunk
 * takes 2 MiB at its first byte where huge pages are on, and a parsing thread's arena ends with
 * two chunks each about half full. Allocating on after it is allowed (the pages come back, zeroed). */
void sl_yarena_trim(struct sl_yarena *a);
void sl_yarena_free(struct sl_yarena *a);

#endif
