/* udiff.h — a unified diff of two texts, line by line, as `diff -u` and git print it: a minimal
 * edit script (Myers), 3 lines of context, hunks whose context would touch merged, removed lines
 * before added ones, and "\ No newline at end of file" where a text ends without one. */
#ifndef SL_UDIFF_H
#define SL_UDIFF_H
#include <stddef.h>

#include "../base/buf.h"

#define SL_UDIFF_CONTEXT 3

/* Bytes [aoff, aend) of a that are bytes [boff, bend) of b: where two texts may differ. */
struct sl_udiff_span {
	size_t aoff, aend, boff, bend;
};

/* Append to out the diff that turns a into b, under the headers "--- a/NAME" and "+++ b/NAME";
 * nothing when the texts are equal. Lines keep their own endings (a CRLF file's diff carries
 * CRLF lines, as diff's does). spans, in order and not overlapping, say where the texts differ
 * (outside them they are the same): each stretch of lines they touch is searched on its own, so
 * a file with thousands of fixes costs no more than its fixes. NULL: anything may differ. */
void sl_udiff(struct sl_buf *out, const char *name, const char *a, size_t alen, const char *b, size_t blen,
	      const struct sl_udiff_span *spans, size_t nspans);

#endif
