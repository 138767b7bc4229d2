/* ysplit.h — one large List parsed in two pieces at once. An inventory is most often one
 * document, `kubectl get pods -A -o yaml`'s: tens of megabytes that one thread would parse
 * while the other waits. Cut at an item of its top-level `items`, the first piece is the bytes
 * before the cut and the second is `items:` and the bytes from it, each a document of its own
 * (sl_yaml_parse_piece); joined, they are the tree the whole would have parsed to. Anything
 * that could make them differ (an error, a warning, a limit, a key on both sides, a piece that
 * ran over the cut) refuses the join, and the caller parses the whole. */
#ifndef SL_YSPLIT_H
#define SL_YSPLIT_H
#include <stdbool.h>
#include <stddef.h>

#include "yamldoc.h"

/* Sources smaller than this are parsed whole: a piece is worth a thread's hand-over. */
#define SL_YSPLIT_MIN ((size_t)1 << 20)
/* The second piece's prefix: the key its items are the value of. */
#define SL_YSPLIT_PREFIX "items:\n"

/* Where src (indexed) may be cut: the start of a line "- " at column 0 at or after its middle,
 * inside the `items:` of one document that starts with keys, all written in block style at
 * column 0 (kubectl's way) and in ASCII. False when there is no such place. */
bool sl_ysplit_find(const struct sl_source *src, size_t *cut);
/* The two pieces of src cut at cut, for sl_yaml_parse_piece. */
void sl_ysplit_pieces(const struct sl_source *src, size_t cut, struct sl_ypiece *first, struct sl_ypiece *second);
/* b's items after a's, and b's keys after the items in a's root: a's stream then holds the whole
 * document (its new nodes from arena). False, with a unchanged, when the pieces do not join into
 * what the whole would have parsed to; a's and b's parses must have reported nothing. */
bool sl_ysplit_join(struct sl_ystream *a, const struct sl_ystream *b, const struct sl_ypiece *pa,
		    const struct sl_ypiece *pb, struct sl_yarena *arena);

#endif
