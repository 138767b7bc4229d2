/* yarena.h — where YAML trees live: bump allocation in chunks that are freed together, nodes in
 * one list (pointer-aligned) and scalar text in another (packed), with marks to give back at once
 * what was allocated after one (a document dropped as it ends). Owns: its chunks. */
#ifndef SL_YARENA_H
#define SL_YARENA_H
#include <stddef.h>

struct sl_arena_chunk;
struct sl_yarena {
	struct sl_arena_chunk *list[2];  /* [0] nodes, [1] scalar text */
	struct sl_arena_chunk *spare[2]; /* chunks given back, taken before new ones */
	/* The first chunk's size (0: 64 KiB). An arena of one small source, kept for long (a parse
	 * cache's), asks for less: thousands of them would each hold 128 KiB mostly empty. */
	size_t first;
};

/* n bytes for a node or an array of node pointers (pointer-aligned). */
void *sl_yarena_node(struct sl_yarena *a, size_t n);
/* n bytes of text, unaligned: packing it saves a third of the arena on typical YAML. */
char *sl_yarena_text(struct sl_yarena *a, size_t n);

/* Where an arena stood. */
struct sl_yarena_mark {
	struct sl_arena_chunk *chunk[2];
	size_t used[2];
};
struct sl_yarena_mark sl_yarena_mark(const struct sl_yarena *a);
/* Give back what was allocated since m; its chunks are kept as spares for what comes next. */
void sl_yarena_rewind(struct sl_yarena *a, const struct sl_yarena_mark *m);
void sl_yarena_spares_free(struct sl_yarena *a);
void sl_yarena_free(struct sl_yarena *a);

#endif
