/* ymerge.h — a mapping's pairs as the API server decodes them, when the tree is built
 * (yamldoc.c): YAML 1.1 merge keys (<<) applied, explicit keys winning, then earlier merged maps;
 * of a key written twice the last kept, with a warning. Sorting keeps this O(n log n) for hostile
 * key counts. The nodes are the tree's; the pair array is the caller's. */
#ifndef SL_YMERGE_H
#define SL_YMERGE_H
#include <stdbool.h>
#include <stddef.h>

#include "yamldoc.h"

struct sl_ypair {
	struct sl_ynode *k, *v;
	size_t order;
};

/* Whether the pairs of items (keys and values alternating, nitems of them) go as they are: no
 * merge key, no key twice. Only few pairs are checked; more go the general way. */
bool sl_ymap_plain(struct sl_ynode *const *items, size_t nitems);
/* The pairs of items with merge keys applied and each key once: the merged pairs first, then the
 * explicit ones in the order written. A key written twice is warned of in errs. *merged: a mapping
 * was merged in. Returns how many pairs; *out (the caller frees it) holds them. */
size_t sl_ymap_pairs(struct sl_ynode *const *items, size_t nitems, struct sl_findings *errs, bool *merged,
		     struct sl_ypair **out);

#endif
